/* sph.c — the SPH field table expanded, and everything that walks it field
 * by field: decode, encode, validate and the readable dump (gpusim/sph.h).
 * Every path goes through sph_fields; none knows a bit position itself. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "gpusim/sph.h"
#include "core/bytes.h"
#include "sph/table.h"

#define SPH_MAX(a, b) ((a) > (b) ? (a) : (b))

const sph_field sph_fields[SPH_F_COUNT] = {
#define X(id, name, member, names, vbit, vn, vw, pbit, pn, pw, fmt, map, k0) \
  [SPH_F_##id] = {name, offsetof(gs_sph, member), SPH_MAX(vn, pn), names, fmt, map, k0, \
                  {{vbit, vn, vw}, {pbit, pn, pw}}},
    SPH_FIELDS(X)
#undef X
};

/* The table and the struct must agree: a scalar is a uint32_t, an array
 * holds exactly as many uint8_t elements as the larger layout has. */
#define X(id, name, member, names, vbit, vn, vw, pbit, pn, pw, fmt, map, k0)        \
  _Static_assert(sizeof(((gs_sph *)0)->member) ==                                   \
                     (SPH_MAX(vn, pn) == 1 ? sizeof(uint32_t) : (size_t)SPH_MAX(vn, pn)), \
                 "gs_sph member " #member " does not match its table row");
SPH_FIELDS(X)
#undef X

/* ---- elements ------------------------------------------------------------- */

uint32_t sph_field_get(const gs_sph *s, const sph_field *f, unsigned i) {
  const unsigned char *p = (const unsigned char *)s + f->offset;
  assert(i < f->count);
  if (f->count == 1) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  return p[i];
}

void sph_field_set(gs_sph *s, const sph_field *f, unsigned i, uint32_t v) {
  unsigned char *p = (unsigned char *)s + f->offset;
  assert(i < f->count);
  if (f->count == 1)
    memcpy(p, &v, sizeof v);
  else
    p[i] = (unsigned char)v;  /* array elements are at most 2 bits wide */
}

static const char *const xyzw[] = {"X", "Y", "Z", "W"};
static const char *const strq[] = {"S", "T", "R", "Q"};
static const char *const rgba[] = {"Red", "Green", "Blue", "Alpha"};
static const char *const lod[] = {"Left", "Right", "Bottom", "Top"};
static const char *const uv[] = {"U", "V"};
static const char *const st[] = {"S", "T"};
static const char *const digits[] = {"0", "1", "2", "3", "4", "5", "6", "7"};
static const char *const colors[] = {"FrontDiffuse", "FrontSpecular", "BackDiffuse",
                                     "BackSpecular"};
static const char *const ps_colors[] = {"Diffuse", "Specular"}; /* the PS picks the face */

/* Element naming per enum sph_names: outer names (or "[v]." when vector
 * is set) for element i / n, then inner[i % n]. */
static const struct {
  const char *const *outer, *const *inner;
  unsigned n, vector;
} element_names[] = {
    [SPH_NM_NONE] = {NULL, NULL, 1, 0},     [SPH_NM_XYZW] = {NULL, xyzw, 4, 0},
    [SPH_NM_LOD] = {NULL, lod, 4, 0},       [SPH_NM_UV] = {NULL, uv, 2, 0},
    [SPH_NM_ST] = {NULL, st, 2, 0},         [SPH_NM_DIGIT] = {NULL, digits, 8, 0},
    [SPH_NM_COLOR] = {colors, rgba, 4, 0},  [SPH_NM_VEC_XYZW] = {NULL, xyzw, 4, 1},
    [SPH_NM_VEC_STRQ] = {NULL, strq, 4, 1}, [SPH_NM_VEC_RGBA] = {NULL, rgba, 4, 1},
};

void sph_element_name(const sph_field *f, int layout, unsigned i, char *buf, size_t len) {
  unsigned n = element_names[f->names].n;
  const char *const *outer = element_names[f->names].outer;
  const char *inner = element_names[f->names].inner ? element_names[f->names].inner[i % n] : "";
  if (outer == colors && layout == 1 && i < 8) outer = ps_colors;
  if (element_names[f->names].vector)
    snprintf(buf, len, "%s[%u].%s", f->name, i / n, inner);
  else if (outer)
    snprintf(buf, len, "%s%s%s", f->name, outer[i / n], inner);
  else
    snprintf(buf, len, "%s%s", f->name, inner);
}

/* Writes the place of bits [bit, bit + width) into buf in one of two
 * notations: the messages' "word 8 bits 13:12", "word 5 bit 31" (dump 0)
 * or the dump's "w8[13:12]", "w5[31]" (dump 1). Bits that run on into the
 * next word are written as two places: "word 12 bits 31:26 and word 13
 * bits 7:0", "w12[31:26]+w13[7:0]". */
static void write_place(int dump, unsigned bit, unsigned width, char *buf, size_t len) {
  unsigned lo = bit % 32, n = width < 32 - lo ? width : 32 - lo;
  const char *sep = dump ? "+" : " and ";
  size_t k;
  if (n == 1)
    snprintf(buf, len, dump ? "w%u[%u]" : "word %u bit %u", bit / 32, lo);
  else
    snprintf(buf, len, dump ? "w%u[%u:%u]" : "word %u bits %u:%u", bit / 32, lo + n - 1, lo);
  k = strlen(buf);
  if (n < width && k + strlen(sep) < len) {
    strcpy(buf + k, sep);
    k += strlen(sep);
    write_place(dump, bit + n, width - n, buf + k, len - k);
  }
}

/* Records "SPH <place>, <name>: <message>" in d and returns code. The
 * place is that of element i of p; left out if p is NULL or has no such
 * element. */
static int vreport(gs_diag *d, int code, const sph_place *p, unsigned i, const char *name,
                   const char *fmt, va_list ap) {
  char place[64] = "", msg[256];
  if (p && i < p->n) write_place(0, p->bit + i * p->width, p->width, place, sizeof place);
  vsnprintf(msg, sizeof msg, fmt, ap);
  return gs_diag_set(d, code, "SPH %s%s%s: %s", place, *place ? ", " : "", name, msg);
}

static int report(gs_diag *d, int code, const sph_place *p, unsigned i, const char *name,
                  const char *fmt, ...) {
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = vreport(d, code, p, i, name, fmt, ap);
  va_end(ap);
  return rc;
}

/* report() for element i of f in layout, named as in that layout. */
static int field_error(gs_diag *d, int code, int layout, const sph_field *f, unsigned i,
                       const char *fmt, ...) {
  char name[64];
  va_list ap;
  int rc;
  sph_element_name(f, layout, i, name, sizeof name);
  va_start(ap, fmt);
  rc = vreport(d, code, &f->at[layout], i, name, fmt, ap);
  va_end(ap);
  return rc;
}

/* ---- bits ------------------------------------------------------------------- */

static uint32_t bits_get(const uint32_t w[GS_SPH_WORDS], unsigned bit, unsigned width) {
  unsigned i = bit / 32;
  uint64_t v = w[i];
  if (i + 1 < GS_SPH_WORDS) v |= (uint64_t)w[i + 1] << 32;
  return (uint32_t)((v >> (bit % 32)) & ((UINT64_C(1) << width) - 1));
}

/* ORs v (already checked to fit) into bits [bit, bit + width) of w. */
static void bits_or(uint32_t w[GS_SPH_WORDS], unsigned bit, unsigned width, uint32_t v) {
  unsigned i = bit / 32;
  uint64_t shifted = (uint64_t)v << (bit % 32);
  (void)width; /* only checked */
  assert(width <= 32 && bit + width <= 32 * GS_SPH_WORDS);
  w[i] |= (uint32_t)shifted;
  if (shifted >> 32) w[i + 1] |= (uint32_t)(shifted >> 32);
}

static const char *sph_type_name(uint32_t t) {
  return t == GS_SPH_TYPE_VTG ? "VTG" : t == GS_SPH_TYPE_PS ? "PS" : "invalid";
}

static int sph_type_error(gs_diag *d, long long t) {
  return field_error(d, GS_EINVAL, 0, &sph_fields[SPH_F_SPH_TYPE], 0,
                     "%lld is neither 1 (VTG) nor 2 (PS)", t);
}

/* The two ways a value cannot be encoded: it is wider than element i of
 * p, or its layout (SphType sph_type) has no such element. */
static int fit_error(gs_diag *d, const sph_place *p, unsigned i, const char *name, long long v) {
  return report(d, GS_EINVAL, p, i, name, "%lld does not fit in %u bit%s", v, (unsigned)p->width,
                p->width == 1 ? "" : "s");
}

static int absent_error(gs_diag *d, const char *name, long long v, uint32_t sph_type) {
  return report(d, GS_EINVAL, NULL, 0, name, "%lld, but a Type %u (%s) header has no such field",
                v, (unsigned)sph_type, sph_type_name(sph_type));
}

/* ---- decode / encode ------------------------------------------------------ */

int gs_sph_decode(const uint32_t words[GS_SPH_WORDS], gs_sph *out, gs_diag *d) {
  const sph_field *f;
  uint32_t type = bits_get(words, sph_fields[SPH_F_SPH_TYPE].at[0].bit,
                           sph_fields[SPH_F_SPH_TYPE].at[0].width);
  int layout = sph_layout(type);
  memset(out, 0, sizeof *out);
  if (type != GS_SPH_TYPE_VTG && type != GS_SPH_TYPE_PS) return sph_type_error(d, type);
  for (f = sph_fields; f < sph_fields + SPH_F_COUNT; f++) {
    const sph_place *p = &f->at[layout];
    unsigned i;
    for (i = 0; i < p->n; i++) sph_field_set(out, f, i, bits_get(words, p->bit + i * p->width, p->width));
  }
  return GS_OK;
}

/* Checks that every element of *s can be encoded: SphType valid, every
 * value within its width, nothing set that the layout lacks. */
static int check_encodable(const gs_sph *s, gs_diag *d) {
  const sph_field *f;
  int layout = sph_layout(s->sph_type);
  if (s->sph_type != GS_SPH_TYPE_VTG && s->sph_type != GS_SPH_TYPE_PS)
    return sph_type_error(d, s->sph_type);
  for (f = sph_fields; f < sph_fields + SPH_F_COUNT; f++) {
    const sph_place *p = &f->at[layout];
    unsigned i;
    for (i = 0; i < f->count; i++) {
      uint32_t v = sph_field_get(s, f, i);
      char name[64];
      if (v == 0 || (i < p->n && (p->width >= 32 || !(v >> p->width)))) continue;
      sph_element_name(f, layout, i, name, sizeof name);
      if (i >= p->n) return absent_error(d, name, v, s->sph_type);
      return fit_error(d, p, i, name, v);
    }
  }
  return GS_OK;
}

int gs_sph_encode(const gs_sph *s, uint32_t words[GS_SPH_WORDS], gs_diag *d) {
  const sph_field *f;
  int layout = sph_layout(s->sph_type), rc;
  memset(words, 0, GS_SPH_WORDS * sizeof words[0]);
  if ((rc = check_encodable(s, d)) < 0) return rc;
  for (f = sph_fields; f < sph_fields + SPH_F_COUNT; f++) {
    const sph_place *p = &f->at[layout];
    unsigned i;
    for (i = 0; i < p->n; i++) bits_or(words, p->bit + i * p->width, p->width, sph_field_get(s, f, i));
  }
  return GS_OK;
}

int gs_sph_decode_bytes(const unsigned char bytes[GS_SPH_BYTES], gs_sph *out, gs_diag *d) {
  uint32_t words[GS_SPH_WORDS];
  unsigned w;
  for (w = 0; w < GS_SPH_WORDS; w++) words[w] = gs_get_le32(bytes + 4 * w);
  return gs_sph_decode(words, out, d);
}

int gs_sph_encode_bytes(const gs_sph *s, unsigned char bytes[GS_SPH_BYTES], gs_diag *d) {
  uint32_t words[GS_SPH_WORDS];
  unsigned w;
  int rc = gs_sph_encode(s, words, d);
  for (w = 0; w < GS_SPH_WORDS; w++) gs_put_le32(bytes + 4 * w, words[w]);
  return rc;
}

/* ---- validation ------------------------------------------------------------- */

static const char *const shader_type_names[] = {
    "invalid", "VERTEX", "TESSELLATION_INIT", "TESSELLATION", "GEOMETRY", "PIXEL"};

static const char *shader_type_name(uint32_t t) {
  return t < sizeof shader_type_names / sizeof shader_type_names[0] ? shader_type_names[t]
                                                                     : "invalid";
}

static const char *topology_name(uint32_t t) {
  switch (t) {
  case GS_SPH_POINTLIST: return "POINTLIST";
  case GS_SPH_LINESTRIP: return "LINESTRIP";
  case GS_SPH_TRIANGLESTRIP: return "TRIANGLESTRIP";
  default: return NULL;
  }
}

/* The rules of a geometry shader's header (NVIDIA's SPH description,
 * CommonWord3/4). */
static int validate_geometry(const gs_sph *s, int layout, gs_diag *d) {
  if (!topology_name(s->output_topology))
    return field_error(d, GS_EINVAL, layout, &sph_fields[SPH_F_OUTPUT_TOPOLOGY], 0,
                       "%u is not 1 (POINTLIST), 6 (LINESTRIP) or 7 (TRIANGLESTRIP), "
                       "as a geometry shader needs", (unsigned)s->output_topology);
  if (s->max_output_vertex_count < 1 || s->max_output_vertex_count > 1024)
    return field_error(d, GS_EINVAL, layout, &sph_fields[SPH_F_MAX_OUTPUT_VERTICES], 0,
                       "%u is not 1-1024, as a geometry shader needs",
                       (unsigned)s->max_output_vertex_count);
  return GS_OK;
}

int gs_sph_validate(const gs_sph *s, gs_diag *d) {
  int layout = sph_layout(s->sph_type), rc;
  uint32_t is_ps = s->sph_type == GS_SPH_TYPE_PS;
  if ((rc = check_encodable(s, d)) < 0) return rc;
  if (s->version != GS_SPH_VERSION)
    return field_error(d, GS_EINVAL, layout, &sph_fields[SPH_F_VERSION], 0,
                       "%u is not 3 (gpusim reads the 20-word SPH version 3 of Maxwell)",
                       (unsigned)s->version);
  if (s->shader_type < GS_SPH_VERTEX || s->shader_type > GS_SPH_PIXEL)
    return field_error(d, GS_EINVAL, layout, &sph_fields[SPH_F_SHADER_TYPE], 0,
                       "%u is not 1 (VERTEX) to 5 (PIXEL)", (unsigned)s->shader_type);
  if (is_ps != (s->shader_type == GS_SPH_PIXEL))
    return field_error(d, GS_EINVAL, layout, &sph_fields[SPH_F_SHADER_TYPE], 0,
                       "%s does not go with SphType %u (%s): PIXEL needs PS, the others VTG",
                       shader_type_name(s->shader_type), (unsigned)s->sph_type,
                       sph_type_name(s->sph_type));
  if (s->shader_type == GS_SPH_GEOMETRY && (rc = validate_geometry(s, layout, d)) < 0) return rc;
  if (s->shader_local_memory_crs_size % 512 || s->shader_local_memory_crs_size > (1u << 20))
    return field_error(d, GS_EINVAL, layout, &sph_fields[SPH_F_LOCAL_CRS], 0,
                       "%u bytes is not a multiple of 512 up to 1 MiB",
                       (unsigned)s->shader_local_memory_crs_size);
  if (is_ps && !s->imap_position[3])
    return field_error(d, GS_EINVAL, layout, &sph_fields[SPH_F_IMAP_POSITION], 3,
                       "0, but a pixel shader must map it (the hardware traps without it)");
  return GS_OK;
}

/* ---- dump ------------------------------------------------------------------- */

/* An snprintf-like sink: counts everything, stores what fits. */
typedef struct dump_sink {
  char *buf;
  size_t len, pos;
} dump_sink;

static void sink_printf(dump_sink *k, const char *fmt, ...) {
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(k->pos < k->len ? k->buf + k->pos : NULL, k->pos < k->len ? k->len - k->pos : 0,
                fmt, ap);
  va_end(ap);
  if (n > 0) k->pos += (size_t)n;
}

static const char *const pixel_imap_names[] = {"Unused", "Constant", "Perspective", "ScreenLinear"};

/* The value of element i of f as the dump shows it. */
static void value_text(const gs_sph *s, const sph_field *f, const sph_place *p, uint32_t v,
                       char *buf, size_t len) {
  const char *name = NULL;
  switch ((enum sph_fmt)f->fmt) {
  case SPH_FMT_HEX: snprintf(buf, len, "0x%x", (unsigned)v); return;
  case SPH_FMT_SPH_TYPE: name = sph_type_name(v); break;
  case SPH_FMT_SHADER_TYPE: name = shader_type_name(v); break;
  case SPH_FMT_TOPOLOGY: name = v ? topology_name(v) : NULL; break;
  case SPH_FMT_MAP:
    if (s->sph_type == GS_SPH_TYPE_PS && p->width == 2 && v < 4) name = pixel_imap_names[v];
    break;
  case SPH_FMT_DEC: break;
  }
  if (name)
    snprintf(buf, len, "%u (%s)", (unsigned)v, name);
  else
    snprintf(buf, len, "%u", (unsigned)v);
}

size_t gs_sph_dump(const gs_sph *s, char *buf, size_t len) {
  dump_sink k = {buf, len, 0};
  int layout = sph_layout(s->sph_type);
  const sph_field *f;
  if (len) buf[0] = '\0';
  for (f = sph_fields; f < sph_fields + SPH_F_COUNT; f++) {
    const sph_place *p = &f->at[layout];
    int common = p->n && p->bit < 160; /* words 0-4: always listed */
    unsigned i;
    for (i = 0; i < f->count; i++) {
      uint32_t v = sph_field_get(s, f, i);
      char place[32] = "-", name[64], value[48];
      if (v == 0 && !(common && i < p->n)) continue;
      if (i < p->n) write_place(1, p->bit + i * p->width, p->width, place, sizeof place);
      sph_element_name(f, layout, i, name, sizeof name);
      value_text(s, f, p, v, value, sizeof value);
      sink_printf(&k, "%-11s%-34s%s\n", place, name, value);
    }
  }
  return k.pos;
}

/* ---- the header as named elements ------------------------------------------ */

/* Element k of layout (in table order, which is bit order): its field, and
 * the element's index in *i; NULL if the layout has fewer elements. */
static const sph_field *element_at(int layout, unsigned k, unsigned *i) {
  const sph_field *f;
  for (f = sph_fields; f < sph_fields + SPH_F_COUNT; f++) {
    if (k < f->at[layout].n) {
      *i = k;
      return f;
    }
    k -= f->at[layout].n;
  }
  return NULL;
}

/* Whether another row of the table has f's name ("Reserved" has three). */
static int name_shared(const sph_field *f) {
  const sph_field *g;
  for (g = sph_fields; g < sph_fields + SPH_F_COUNT; g++)
    if (g != f && strcmp(g->name, f->name) == 0) return 1;
  return 0;
}

/* The key of element i of f in layout: its name, and for a shared name
 * "@" and its place as the dump writes it. */
static void element_key(const sph_field *f, int layout, unsigned i, char *buf, size_t len) {
  sph_element_name(f, layout, i, buf, len);
  if (name_shared(f)) {
    const sph_place *p = &f->at[layout];
    size_t n = strlen(buf);
    if (n + 1 < len) {
      buf[n] = '@';
      write_place(1, p->bit + i * p->width, p->width, buf + n + 1, len - n - 1);
    }
  }
}

static int valid_type(uint32_t t) { return t == GS_SPH_TYPE_VTG || t == GS_SPH_TYPE_PS; }

unsigned gs_sph_element_count(uint32_t sph_type) {
  const sph_field *f;
  unsigned n = 0;
  if (!valid_type(sph_type)) return 0;
  for (f = sph_fields; f < sph_fields + SPH_F_COUNT; f++) n += f->at[sph_layout(sph_type)].n;
  return n;
}

int gs_sph_element_get(const gs_sph *s, unsigned k, gs_sph_element *e) {
  int layout = sph_layout(s->sph_type);
  unsigned i;
  const sph_field *f = valid_type(s->sph_type) ? element_at(layout, k, &i) : NULL;
  if (!f) return GS_EARG;
  element_key(f, layout, i, e->key, sizeof e->key);
  e->bit = f->at[layout].bit + i * f->at[layout].width;
  e->width = f->at[layout].width;
  e->value = sph_field_get(s, f, i);
  return GS_OK;
}

int gs_sph_init(gs_sph *s, long long sph_type, gs_diag *d) {
  memset(s, 0, sizeof *s);
  if (sph_type != GS_SPH_TYPE_VTG && sph_type != GS_SPH_TYPE_PS) return sph_type_error(d, sph_type);
  s->sph_type = (uint32_t)sph_type;
  return GS_OK;
}

int gs_sph_element_set(gs_sph *s, uint32_t sph_type, unsigned k, long long v, gs_diag *d) {
  int layout = sph_layout(sph_type);
  unsigned i;
  const sph_field *f;
  const sph_place *p;
  char key[64];
  if (!valid_type(s->sph_type) || !valid_type(sph_type) || !(f = element_at(layout, k, &i)))
    return gs_diag_set(d, GS_EARG, "SPH element %u of a Type %u header: no such element", k,
                       (unsigned)sph_type);
  p = &f->at[layout];
  element_key(f, layout, i, key, sizeof key);
  if (sph_type != s->sph_type) return v == 0 ? GS_OK : absent_error(d, key, v, s->sph_type);
  if (v < 0 || v >> p->width) return fit_error(d, p, i, key, v);
  if (f == &sph_fields[SPH_F_SPH_TYPE] && (uint32_t)v != s->sph_type)
    return report(d, GS_EINVAL, p, i, key, "%lld, but the header was started as Type %u (%s)", v,
                  (unsigned)s->sph_type, sph_type_name(s->sph_type));
  sph_field_set(s, f, i, (uint32_t)v);
  return GS_OK;
}
