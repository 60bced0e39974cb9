/* cl.c — control-list packets: the descriptors built from the table in
 * cl.h, and the one table-driven path every user of packets goes through:
 * pack (values -> bytes), unpack (bytes -> values), format (values -> dump
 * text), parse (dump text -> values), decode (GPU memory -> packet), the
 * list walker behind gs_cl_dump, and the writer that emits lists into GPU
 * memory. No function here knows a particular packet's layout except
 * through its field descriptors; the few packets with control-flow meaning
 * (branches, return, halt, primitive list format, shader state) are looked
 * at by ID in the walker and the writer.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "v3d/cl.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- descriptors derived from the table --------------------------------- */

#define CL_ENUM_(name, ...) static const char *const cl_enum_##name[] = {__VA_ARGS__, NULL};
GS_CL_ENUMS(CL_ENUM_)
#undef CL_ENUM_
static const char *const cl_enum_none[] = {NULL};

#define CL_FIELD_(name, byte, lo, width, kind, en) \
  {#name, byte, lo, width, GS_CL_##kind, (uint8_t)(NELEM(cl_enum_##en) - 1), cl_enum_##en},
#define CL_PFIELDS_(id, NAME, lname, size, mode, tail, FIELDS) \
  static const gs_cl_field_info cl_fields_##lname[] = {FIELDS(CL_FIELD_)};
#define CL_RFIELDS_(NAME, lname, size, FIELDS) \
  static const gs_cl_field_info cl_fields_##lname[] = {FIELDS(CL_FIELD_)};
GS_CL_PACKETS(CL_PFIELDS_, GS_CL_NONE_)
GS_CL_RECORDS(CL_RFIELDS_)

/* Position of each packet in cl_packets (the table is in ID order). */
#define CL_POS_(id, NAME, ...) CL_POS_##NAME,
enum { GS_CL_PACKETS(CL_POS_, CL_POS_) CL_NPACKETS };
#undef CL_POS_

#define CL_PINFO_(id, NAME, lname, size, mode, tail, FIELDS)                        \
  {#NAME, id, size, GS_CL_MODE_##mode, GS_CL_TAIL_##tail, (uint8_t)NELEM(cl_fields_##lname), \
   cl_fields_##lname},
#define CL_PINFO0_(id, NAME, lname, size, mode, tail) \
  {#NAME, id, size, GS_CL_MODE_##mode, GS_CL_TAIL_##tail, 0, NULL},
static const gs_cl_format_info cl_packets[CL_NPACKETS] = {GS_CL_PACKETS(CL_PINFO_, CL_PINFO0_)};

#define CL_BYID_(id, NAME, ...) [id] = &cl_packets[CL_POS_##NAME],
static const gs_cl_format_info *const cl_by_id[256] = {GS_CL_PACKETS(CL_BYID_, CL_BYID_)};

#define CL_RINFO_(NAME, lname, size, FIELDS) \
  {#NAME, -1, size, 0, GS_CL_TAIL_NONE, (uint8_t)NELEM(cl_fields_##lname), cl_fields_##lname},
static const gs_cl_format_info cl_records[GS_CL_REC_COUNT] = {GS_CL_RECORDS(CL_RINFO_)};

#define CL_CHECK_(id, NAME, lname, size, mode, tail, FIELDS) \
  _Static_assert(NELEM(cl_fields_##lname) <= GS_CL_MAX_FIELDS, #NAME " has too many fields");
#define CL_RCHECK_(NAME, lname, size, FIELDS) \
  _Static_assert(NELEM(cl_fields_##lname) <= GS_CL_MAX_FIELDS, #NAME " has too many fields");
GS_CL_PACKETS(CL_CHECK_, GS_CL_NONE_)
GS_CL_RECORDS(CL_RCHECK_)

const gs_cl_format_info *gs_cl_packet_info(unsigned id) { return id < 256 ? cl_by_id[id] : NULL; }

const gs_cl_format_info *gs_cl_packets(size_t *n) {
  *n = CL_NPACKETS;
  return cl_packets;
}

const gs_cl_format_info *gs_cl_records(size_t *n) {
  *n = GS_CL_REC_COUNT;
  return cl_records;
}

const gs_cl_format_info *gs_cl_record_info(int r) {
  return r >= 0 && r < GS_CL_REC_COUNT ? &cl_records[r] : NULL;
}

static const gs_cl_format_info *find_by_name(const gs_cl_format_info *t, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(t[i].name, name) == 0) return &t[i];
  return NULL;
}

const gs_cl_format_info *gs_cl_packet_by_name(const char *name) {
  return find_by_name(cl_packets, CL_NPACKETS, name);
}

const gs_cl_format_info *gs_cl_record_by_name(const char *name) {
  return find_by_name(cl_records, GS_CL_REC_COUNT, name);
}

int gs_cl_field_index(const gs_cl_format_info *f, const char *name) {
  for (int i = 0; i < f->nfields; i++)
    if (strcmp(f->fields[i].name, name) == 0) return i;
  return -1;
}

uint32_t gs_cl_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

float gs_cl_float(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* ---- fields: raw bits <-> values ----------------------------------------- */

static uint64_t mask_of(unsigned width) { return width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1; }

/* Bytes a field's word spans from its byte offset. */
static unsigned field_nbytes(const gs_cl_field_info *fi) { return (fi->lo + fi->width + 7u) / 8u; }

/* Offset of the fields' byte 0 in the packed bytes: after the ID byte. */
static unsigned hdr_of(const gs_cl_format_info *f) { return f->id >= 0 ? 1u : 0u; }

static uint32_t field_get_raw(const uint8_t *payload, const gs_cl_field_info *fi) {
  uint64_t w = 0;
  unsigned n = field_nbytes(fi);
  for (unsigned i = 0; i < n; i++) w |= (uint64_t)payload[fi->byte + i] << (8 * i);
  return (uint32_t)((w >> fi->lo) & mask_of(fi->width));
}

/* ORs raw into the field's bits: the caller starts from zeroed bytes, and
 * fields never share a bit (test_table checks it). */
static void field_put_raw(uint8_t *payload, const gs_cl_field_info *fi, uint32_t raw) {
  uint64_t w = (uint64_t)raw << fi->lo;
  unsigned n = field_nbytes(fi);
  for (unsigned i = 0; i < n; i++) payload[fi->byte + i] |= (uint8_t)(w >> (8 * i));
}

static uint32_t sign_extend(uint32_t raw, unsigned width) {
  if (width >= 32) return raw;
  uint32_t m = 1u << (width - 1);
  return (raw ^ m) - m;
}

/* The value a field's raw bits stand for (see VALUES in gpusim/cl.h). */
static uint32_t value_of_raw(const gs_cl_field_info *fi, uint32_t raw) {
  switch (fi->kind) {
  case GS_CL_SINT:
  case GS_CL_FIX4: return sign_extend(raw, fi->width);
  case GS_CL_F187: return raw << 16;
  case GS_CL_ADDR: return raw << fi->lo;
  default: return raw;
  }
}

/* The raw bits for a value, or a GS_EARG naming format and field. */
static int raw_of_value(const gs_cl_format_info *f, const gs_cl_field_info *fi, uint32_t v, uint32_t *raw,
                        gs_diag *d) {
  uint64_t max = mask_of(fi->width);
  switch (fi->kind) {
  case GS_CL_SINT:
  case GS_CL_FIX4: {
    int64_t s = (int32_t)v, lo = -(int64_t)((max + 1) / 2), hi = (int64_t)(max / 2);
    if (s < lo || s > hi)
      return gs_diag_set(d, GS_EARG, "%s: %s=%" PRId64 " does not fit %u signed bits (%" PRId64 "..%" PRId64 ")",
                         f->name, fi->name, s, fi->width, lo, hi);
    *raw = v & (uint32_t)max;
    return GS_OK;
  }
  case GS_CL_F187: *raw = v >> 16; return GS_OK;
  case GS_CL_ADDR:
    if (v & (uint32_t)mask_of(fi->lo))
      return gs_diag_set(d, GS_EARG, "%s: %s=0x%08x is not a multiple of %u", f->name, fi->name, v, 1u << fi->lo);
    v >>= fi->lo;
    break;
  default: break;
  }
  if (v > max)
    return gs_diag_set(d, GS_EARG, "%s: %s=%u does not fit %u bits (max %" PRIu64 ")", f->name, fi->name, v,
                       fi->width, max);
  *raw = v;
  return GS_OK;
}

/* ---- pack and unpack ------------------------------------------------------ */

int gs_cl_pack(const gs_cl_format_info *f, const uint32_t *values, uint8_t *dst, size_t cap, gs_diag *d) {
  if (cap < f->size) return gs_diag_set(d, GS_EARG, "%s: needs %u bytes, buffer has %zu", f->name, f->size, cap);
  uint8_t tmp[256];
  memset(tmp, 0, f->size);
  unsigned hdr = hdr_of(f);
  if (hdr) tmp[0] = (uint8_t)f->id;
  for (int i = 0; i < f->nfields; i++) {
    uint32_t raw = 0;
    int rc = raw_of_value(f, &f->fields[i], values ? values[i] : 0, &raw, d);
    if (rc < 0) return rc;
    field_put_raw(tmp + hdr, &f->fields[i], raw);
  }
  memcpy(dst, tmp, f->size);  /* dst untouched on error */
  return f->size;
}

int gs_cl_pack_fields(const gs_cl_format_info *f, const gs_cl_field_value *fv, size_t n, uint8_t *dst,
                      size_t cap, gs_diag *d) {
  uint32_t values[GS_CL_MAX_FIELDS] = {0};
  uint32_t seen = 0;
  for (size_t i = 0; i < n; i++) {
    int k = gs_cl_field_index(f, fv[i].name);
    if (k < 0) return gs_diag_set(d, GS_EARG, "%s: no field called '%s'", f->name, fv[i].name);
    if (seen & (1u << k)) return gs_diag_set(d, GS_EARG, "%s: field '%s' given twice", f->name, fv[i].name);
    seen |= 1u << k;
    values[k] = fv[i].value;
  }
  return gs_cl_pack(f, values, dst, cap, d);
}

void gs_cl_unpack(const gs_cl_format_info *f, const uint8_t *src, uint32_t *values) {
  unsigned hdr = hdr_of(f);
  for (int i = 0; i < f->nfields; i++) values[i] = value_of_raw(&f->fields[i], field_get_raw(src + hdr, &f->fields[i]));
}

/* ---- typed structs <-> values (generated from the same table) ------------- */

static uint32_t to_value_UINT(uint32_t x) { return x; }
static uint32_t to_value_SINT(int32_t x) { return (uint32_t)x; }
static uint32_t to_value_F32(float x) { return gs_cl_f32(x); }
#define to_value_HEX to_value_UINT
#define to_value_ADDR to_value_UINT
#define to_value_ENUM to_value_UINT
#define to_value_FLAG to_value_UINT
#define to_value_FIX4 to_value_SINT
#define to_value_F187 to_value_F32
static uint32_t from_value_UINT(uint32_t v) { return v; }
static int32_t from_value_SINT(uint32_t v) { return (int32_t)v; }
#define from_value_HEX from_value_UINT
#define from_value_ADDR from_value_UINT
#define from_value_ENUM from_value_UINT
#define from_value_FLAG from_value_UINT
#define from_value_FIX4 from_value_SINT
#define from_value_F32 gs_cl_float
#define from_value_F187 gs_cl_float

#define CL_TOV_(name, byte, lo, width, kind, en) v[i++] = to_value_##kind(s->name);
#define CL_FROMV_(name, byte, lo, width, kind, en) s->name = from_value_##kind(v[i++]);
#define CL_TYPED_COMMON_(lname, info, FIELDS)                                                 \
  int gs_cl_pack_##lname(uint8_t *dst, size_t cap, const gs_cl_##lname *s, gs_diag *d) {    \
    uint32_t v[GS_CL_MAX_FIELDS];                                                           \
    size_t i = 0;                                                                           \
    FIELDS(CL_TOV_)                                                                         \
    return gs_cl_pack(info, v, dst, cap, d);                                                \
  }                                                                                         \
  void gs_cl_unpack_##lname(const uint32_t *v, gs_cl_##lname *s) {                          \
    size_t i = 0;                                                                           \
    FIELDS(CL_FROMV_)                                                                       \
  }
#define CL_TYPED_(id, NAME, lname, size, mode, tail, FIELDS)                                  \
  CL_TYPED_COMMON_(lname, &cl_packets[CL_POS_##NAME], FIELDS)                               \
  int gs_cl_emit_##lname(gs_cl_writer *w, const gs_cl_##lname *s, gs_diag *d) {             \
    uint32_t v[GS_CL_MAX_FIELDS];                                                           \
    size_t i = 0;                                                                           \
    FIELDS(CL_TOV_)                                                                         \
    return gs_cl_put(w, &cl_packets[CL_POS_##NAME], v, d);                                  \
  }
#define CL_RTYPED_(NAME, lname, size, FIELDS) CL_TYPED_COMMON_(lname, &cl_records[GS_CL_REC_##NAME], FIELDS)
GS_CL_PACKETS(CL_TYPED_, GS_CL_NONE_)
GS_CL_RECORDS(CL_RTYPED_)

/* ---- text: values -> dump syntax ----------------------------------------- */

/* A bounded string builder: keeps counting past the end like snprintf. */
typedef struct sbuf {
  char *p;
  size_t cap, n;
} sbuf;

static void sb_printf(sbuf *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = s->n < s->cap ? s->cap - s->n : 0;
  int k = vsnprintf(room ? s->p + s->n : NULL, room, fmt, ap);
  va_end(ap);
  if (k > 0) s->n += (size_t)k;
}

/* The shortest decimal that reads back as exactly f; NaNs (whose payload
 * text would lose) as their bits in hex, which gs_cl_parse accepts. */
static void sb_float(sbuf *s, uint32_t bits) {
  float f = gs_cl_float(bits);
  char t[40];
  if (isnan(f)) {
    sb_printf(s, "0x%08x", bits);
    return;
  }
  for (int prec = 1; prec <= 9; prec++) {
    snprintf(t, sizeof t, "%.*g", prec, (double)f);
    if (gs_cl_f32(strtof(t, NULL)) == bits) break;
  }
  sb_printf(s, "%s", t);
}

/* A 12.4 fixed-point value in pixels, exactly ("320", "-0.5", "1.0625"). */
static void sb_fix4(sbuf *s, int32_t v) {
  uint32_t a = v < 0 ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
  sb_printf(s, "%s%u", v < 0 ? "-" : "", a >> 4);
  if (a & 15) {
    char frac[8];
    snprintf(frac, sizeof frac, "%04u", (a & 15) * 625u);
    for (int i = 3; i > 0 && frac[i] == '0'; i--) frac[i] = '\0';
    sb_printf(s, ".%s", frac);
  }
}

static void sb_value(sbuf *s, const gs_cl_field_info *fi, uint32_t v) {
  switch (fi->kind) {
  case GS_CL_UINT: sb_printf(s, "%u", v); break;
  case GS_CL_HEX: sb_printf(s, "0x%0*x", (fi->width + 3) / 4, v); break;
  case GS_CL_SINT: sb_printf(s, "%d", (int32_t)v); break;
  case GS_CL_FIX4: sb_fix4(s, (int32_t)v); break;
  case GS_CL_F32:
  case GS_CL_F187: sb_float(s, v); break;
  case GS_CL_ADDR: sb_printf(s, "0x%08x", v); break;
  case GS_CL_ENUM:
    if (v < fi->nvalues && fi->values[v]) sb_printf(s, "%s", fi->values[v]);
    else sb_printf(s, "%u", v);
    break;
  default: sb_printf(s, "%u", v); break;
  }
}

/* The FLAG fields, which the dump shows together as flags=a|b. */
static void sb_flags(sbuf *s, const gs_cl_format_info *f, const uint32_t *values) {
  int any = 0;
  sb_printf(s, "flags=");
  for (int i = 0; i < f->nfields; i++) {
    if (f->fields[i].kind != GS_CL_FLAG || !values[i]) continue;
    sb_printf(s, "%s%s", any ? "|" : "", f->fields[i].name);
    any = 1;
  }
  if (!any) sb_printf(s, "none");
}

size_t gs_cl_format(const gs_cl_format_info *f, const uint32_t *values, char *buf, size_t len) {
  sbuf s = {buf, len, 0};
  int flags_done = 0, first = 1;
  if (len) buf[0] = '\0';
  sb_printf(&s, "%s", f->name);
  for (int i = 0; i < f->nfields; i++) {
    const gs_cl_field_info *fi = &f->fields[i];
    if (fi->kind == GS_CL_FLAG && flags_done) continue;
    sb_printf(&s, first ? "  " : " ");
    first = 0;
    if (fi->kind == GS_CL_FLAG) {
      sb_flags(&s, f, values);
      flags_done = 1;
      continue;
    }
    sb_printf(&s, "%s=", fi->name);
    sb_value(&s, fi, values[i]);
  }
  return s.n;
}

/* ---- text: dump syntax -> values ----------------------------------------- */

typedef struct parser {
  const char *text, *p;
  gs_diag *d;
} parser;

static int parse_error(parser *ps, const char *at, const char *fmt, const char *what) {
  return gs_diag_set(ps->d, GS_EARG, "column %d: %s '%s'", (int)(at - ps->text) + 1, fmt, what);
}

/* Copies the token [a, b) into t (truncated to fit). */
static void token(const char *a, const char *b, char *t, size_t n) {
  size_t k = (size_t)(b - a) < n - 1 ? (size_t)(b - a) : n - 1;
  memcpy(t, a, k);
  t[k] = '\0';
}

static int parse_number(const char *t, int is_signed, uint32_t *v) {
  char *end;
  if (!*t) return -1;
  if (is_signed) {
    long long x = strtoll(t, &end, 0);
    if (*end || x < INT32_MIN || x > UINT32_MAX) return -1;
    *v = (uint32_t)x;
  } else {
    if (t[0] == '-') return -1;
    unsigned long long x = strtoull(t, &end, 0);
    if (*end || x > UINT32_MAX) return -1;
    *v = (uint32_t)x;
  }
  return 0;
}

/* Parses value text t for field fi into *v; -1 if it is not one. */
static int parse_value(const gs_cl_field_info *fi, const char *t, uint32_t *v) {
  char *end;
  switch (fi->kind) {
  case GS_CL_ENUM:
    for (unsigned k = 0; k < fi->nvalues; k++)
      if (fi->values[k] && strcmp(fi->values[k], t) == 0) return *v = k, 0;
    return parse_number(t, 0, v);
  case GS_CL_SINT: return parse_number(t, 1, v);
  case GS_CL_F32:
  case GS_CL_F187:
    if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) return parse_number(t, 0, v);
    if (!*t) return -1;
    *v = gs_cl_f32(strtof(t, &end));
    return *end ? -1 : 0;
  case GS_CL_FIX4: {
    if (!*t) return -1;
    double x = strtod(t, &end) * 16.0;
    if (*end || !(x >= INT32_MIN && x <= INT32_MAX) || x != floor(x)) return -1;
    *v = (uint32_t)(int32_t)x;
    return 0;
  }
  default: return parse_number(t, 0, v);
  }
}

/* Parses the flag set "a|b" (or "none") in [t, end) into values. */
static int parse_flags(parser *ps, const gs_cl_format_info *f, const char *t, const char *end, uint32_t *values) {
  char name[64];
  token(t, end, name, sizeof name);
  if (strcmp(name, "none") == 0) return GS_OK;
  while (t < end) {
    const char *bar = t;
    while (bar < end && *bar != '|') bar++;
    token(t, bar, name, sizeof name);
    int k = (size_t)(bar - t) < sizeof name ? gs_cl_field_index(f, name) : -1;
    if (k < 0 || f->fields[k].kind != GS_CL_FLAG) return parse_error(ps, t, "no such flag", name);
    values[k] = 1;
    t = bar + 1;
  }
  return GS_OK;
}

int gs_cl_parse(const char *text, uint8_t *dst, size_t cap, gs_diag *d) {
  parser ps = {text, text, d};
  uint32_t values[GS_CL_MAX_FIELDS] = {0};
  char name[64], val[64];
  const char *p = text;
  while (*p == ' ' || *p == '\t') p++;
  const char *a = p;
  while (*p && *p != ' ' && *p != '\t') p++;
  token(a, p, name, sizeof name);
  /* a dump's packet line starts with the ID, which must be the name's */
  const char *id_at = NULL;
  uint32_t id = 0;
  if (*a >= '0' && *a <= '9') {
    /* decimal, as the dump prints it: "0x73" or "1e2" is not an ID */
    if ((size_t)(p - a) > 3 || strspn(name, "0123456789") != strlen(name))
      return parse_error(&ps, a, "bad packet ID", name);
    id = (uint32_t)strtoul(name, NULL, 10);
    id_at = a;
    while (*p == ' ' || *p == '\t') p++;
    a = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    token(a, p, name, sizeof name);
  }
  const gs_cl_format_info *f = gs_cl_packet_by_name(name);
  if (!f) f = gs_cl_record_by_name(name);
  if (!f) return parse_error(&ps, a, "unknown packet or record", name);
  if (id_at && (f->id < 0 || (uint32_t)f->id != id)) {
    char idtext[16];
    token(id_at, id_at + strcspn(id_at, " \t"), idtext, sizeof idtext);
    return parse_error(&ps, id_at, f->id < 0 ? "a record has no packet ID, got" : "packet ID does not match the name, got", idtext);
  }
  for (;;) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p || *p == '\n') break;
    a = p;
    const char *eq = NULL;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
      if (*p == '=' && !eq) eq = p;
      p++;
    }
    if (!eq) {
      token(a, p, name, sizeof name);
      return parse_error(&ps, a, "expected field=value, got", name);
    }
    token(a, eq, name, sizeof name);
    token(eq + 1, p, val, sizeof val);
    if (strcmp(name, "flags") == 0) {
      int rc = parse_flags(&ps, f, eq + 1, p, values);
      if (rc < 0) return rc;
      continue;
    }
    int k = (size_t)(eq - a) < sizeof name ? gs_cl_field_index(f, name) : -1;
    if (k < 0 || f->fields[k].kind == GS_CL_FLAG) return parse_error(&ps, a, "no such field", name);
    if ((size_t)(p - eq - 1) >= sizeof val || parse_value(&f->fields[k], val, &values[k]) < 0)
      return parse_error(&ps, eq + 1, "bad value", val);
  }
  return gs_cl_pack(f, values, dst, cap, d);
}

/* ---- reading -------------------------------------------------------------- */

const uint8_t *gs_cl_view_ptr(const gs_cl_view *v, gs_addr a, uint32_t n) {
  if (v->bytes && a >= v->base && (uint64_t)a + n <= (uint64_t)v->base + v->len) return v->bytes + (a - v->base);
  if (v->mem) return gs_mem_ptr(v->mem, a, n);
  return NULL;
}

int gs_cl_decode_record(const gs_cl_view *v, gs_addr a, const gs_cl_format_info *f, uint32_t *values,
                        gs_diag *d) {
  const uint8_t *b = gs_cl_view_ptr(v, a, f->size);
  if (!b) return gs_diag_set(d, GS_EFAULT, "0x%08x: %s (%u bytes) is not in readable memory", a, f->name, f->size);
  gs_cl_unpack(f, b, values);
  return GS_OK;
}

/* Finds the end of the compressed list that follows packet p. */
static int decode_prims_tail(const gs_cl_view *v, const gs_cl_prim_format *fmt, gs_addr limit, gs_cl_packet *p,
                             gs_diag *d) {
  if (!fmt || !fmt->data)
    return gs_diag_set(d, GS_EINVAL, "0x%08x: %s without a Primitive List Format (56) before it", p->addr,
                       p->info->name);
  gs_cl_prim_reader r;
  gs_cl_prim_reader_init(&r, v, fmt, p->tail);
  int rc = gs_cl_prim_skip(&r, d);
  if (rc < 0) return rc;
  if (limit && !r.branched && r.cur > limit)
    return gs_diag_set(d, GS_EINVAL, "0x%08x: %s runs past the end of the list at 0x%08x", p->addr, p->info->name,
                       limit);
  p->fmt = *fmt;
  p->next = r.cur;
  return GS_OK;
}

static uint32_t load_u32(const uint8_t *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Finds the escape word that ends VG inline primitives. The hardware puts
 * it where the next vertex would be; padding words (0xbfff0001) are
 * skipped like vertices here. */
static int decode_vg_tail(const gs_cl_view *v, gs_addr limit, gs_cl_packet *p, gs_diag *d) {
  gs_addr a = p->tail;
  for (;;) {
    const uint8_t *b = gs_cl_view_ptr(v, a, 4);
    if (!b)
      return gs_diag_set(d, GS_EFAULT, "0x%08x: %s: no escape word 0x%08x before unreadable memory at 0x%08x",
                         p->addr, p->info->name, GS_CL_VG_ESCAPE, a);
    a += 4;
    if (load_u32(b) == GS_CL_VG_ESCAPE) break;
  }
  if (limit && a > limit)
    return gs_diag_set(d, GS_EINVAL, "0x%08x: %s runs past the end of the list at 0x%08x", p->addr, p->info->name,
                       limit);
  p->next = a;
  return GS_OK;
}

int gs_cl_decode(const gs_cl_view *v, gs_addr a, const gs_cl_prim_format *fmt, gs_addr limit, gs_cl_packet *p,
                 gs_diag *d) {
  memset(p, 0, sizeof *p);
  p->addr = a;
  const uint8_t *b = gs_cl_view_ptr(v, a, 1);
  if (!b) return gs_diag_set(d, GS_EFAULT, "0x%08x: control list is not in readable memory", a);
  const gs_cl_format_info *f = gs_cl_packet_info(b[0]);
  if (!f) return gs_diag_set(d, GS_EINVAL, "0x%08x: unknown control-list packet ID %u (0x%02x)", a, b[0], b[0]);
  p->info = f;
  if (limit && a < limit && (uint64_t)a + f->size > limit)
    return gs_diag_set(d, GS_EINVAL, "0x%08x: %s (%u bytes) runs past the end of the list at 0x%08x", a, f->name,
                       f->size, limit);
  b = gs_cl_view_ptr(v, a, f->size);
  if (!b)
    return gs_diag_set(d, GS_EFAULT, "0x%08x: %s (%u bytes) is truncated: it runs past readable memory", a, f->name,
                       f->size);
  gs_cl_unpack(f, b, p->values);
  p->tail = p->next = a + f->size;
  if (f->tail == GS_CL_TAIL_PRIMS) return decode_prims_tail(v, fmt, a < limit ? limit : 0, p, d);
  if (f->tail == GS_CL_TAIL_VG) return decode_vg_tail(v, a < limit ? limit : 0, p, d);
  return GS_OK;
}

/* ---- the list walker behind gs_cl_dump ------------------------------------ */

#define DUMP_MAX_DEPTH 64

typedef struct walker {
  const gs_cl_view *v;
  FILE *out;
  const gs_cl_dump_opts *o;
} walker;

static void put_line(walker *w, gs_addr a, int depth, const char *text) {
  fprintf(w->out, "0x%08x  %*s%s\n", a, 2 * depth, "", text);
}

/* One record line; index >= 0 is shown after the name ("NAME[1]"). An
 * unreadable record is a note, not an error: the list may be dumped from a
 * file without the memory it points to. Returns 0 if it was readable. */
static int dump_record(walker *w, gs_addr a, int depth, int rec, int index) {
  const gs_cl_format_info *f = &cl_records[rec];
  uint32_t values[GS_CL_MAX_FIELDS];
  char line[1024], label[64];
  if (gs_cl_decode_record(w->v, a, f, values, NULL) < 0) {
    snprintf(line, sizeof line, "(%s: %u bytes not readable)", f->name, f->size);
    put_line(w, a, depth, line);
    return -1;
  }
  gs_cl_format(f, values, line, sizeof line);
  if (index >= 0) {
    size_t k = strlen(f->name);
    snprintf(label, sizeof label, "%s[%d]", f->name, index);
    fprintf(w->out, "0x%08x  %*s%s%s\n", a, 2 * depth, "", label, line + k);
    return 0;
  }
  put_line(w, a, depth, line);
  return 0;
}

static uint32_t value_named(const gs_cl_packet *p, const char *name) {
  int k = gs_cl_field_index(p->info, name);
  return k >= 0 ? p->values[k] : 0;
}

/* The records a shader-state or clipped-primitive packet points to. */
static void dump_records(walker *w, const gs_cl_packet *p, int depth) {
  gs_addr rec = value_named(p, "record");
  switch (p->info->id) {
  case GS_CL_GL_SHADER_STATE: {
    uint32_t n = value_named(p, "attr_arrays");
    if (n == 0) n = 8;
    if (dump_record(w, rec, depth, GS_CL_REC_GL_SHADER_RECORD, -1) < 0) return;
    for (uint32_t i = 0; i < n; i++)
      dump_record(w, rec + GS_CL_GL_ATTR_OFFSET + 8 * i, depth, GS_CL_REC_GL_ATTRIBUTE_RECORD, (int)i);
    if (value_named(p, "extended"))
      for (uint32_t i = 0; i < n; i++)
        dump_record(w, rec + GS_CL_GL_EXT_STRIDE_OFFSET + 4 * i, depth, GS_CL_REC_GL_EXTENDED_STRIDE, (int)i);
    break;
  }
  case GS_CL_NV_SHADER_STATE: dump_record(w, rec, depth, GS_CL_REC_NV_SHADER_RECORD, -1); break;
  case GS_CL_VG_SHADER_STATE: dump_record(w, rec, depth, GS_CL_REC_VG_SHADER_RECORD, -1); break;
  case GS_CL_CLIPPED_PRIMITIVE: {
    static const char *const flag[3] = {"clip_v0", "clip_v1", "clip_v2"};
    for (int i = 0; i < 3; i++)
      if (value_named(p, flag[i]))
        dump_record(w, rec + GS_CL_CLIPPED_VERTEX_SIZE * (uint32_t)i, depth, GS_CL_REC_CLIPPED_VERTEX, i);
    break;
  }
  default: break;
  }
}

static void sb_xy(sbuf *s, uint32_t xy) {
  sb_printf(s, "(");
  sb_fix4(s, (int16_t)(xy & 0xffff));
  sb_printf(s, ",");
  sb_fix4(s, (int16_t)(xy >> 16));
  sb_printf(s, ")");
}

/* The dump text of one compressed-list item. */
static void prim_item_text(const gs_cl_prim_format *f, const gs_cl_prim_item *it, char *buf, size_t len) {
  static const char *const kind[4] = {"point", "line", "triangle", "rht"};
  sbuf s = {buf, len, 0};
  buf[0] = '\0';
  if (it->kind == GS_CL_ITEM_ESCAPE) {
    sb_printf(&s, "escape");
    return;
  }
  if (it->kind == GS_CL_ITEM_BRANCH) {
    sb_printf(&s, "relative_branch  target=0x%08x", it->target);
    return;
  }
  int n = gs_cl_prim_vertices(f, NULL);
  sb_printf(&s, "%s  coding=%d %s=", kind[f->type & 3], it->coding, f->data == GS_CL_DATA_XY ? "xy" : "indices");
  for (int i = 0; i < n; i++) {
    if (i) sb_printf(&s, ",");
    if (f->data == GS_CL_DATA_XY) sb_xy(&s, it->prim.v[i]);
    else sb_printf(&s, "%u", it->prim.v[i]);
  }
}

/* Lists the items of a compressed list up to its escape or first error. */
static void dump_prims(walker *w, const gs_cl_prim_format *f, gs_addr start, int depth) {
  gs_cl_prim_reader r;
  gs_cl_prim_item it;
  char line[256];
  gs_cl_prim_reader_init(&r, w->v, f, start);
  while (!r.done && gs_cl_prim_read(&r, &it, NULL) == GS_OK) {
    prim_item_text(f, &it, line, sizeof line);
    put_line(w, it.addr, depth, line);
  }
}

/* Lists the XY words of VG inline primitives up to the escape word. */
static void dump_vg_words(walker *w, gs_addr a, gs_addr end, int depth) {
  char line[64];
  for (; a + 4 <= end; a += 4) {
    uint32_t xy = load_u32(gs_cl_view_ptr(w->v, a, 4));
    sbuf s = {line, sizeof line, 0};
    if (xy == GS_CL_VG_ESCAPE) sb_printf(&s, "escape");
    else if (xy == GS_CL_VG_PADDING) sb_printf(&s, "padding");
    else sb_printf(&s, "vertex  xy="), sb_xy(&s, xy);
    put_line(w, a, depth, line);
  }
}

/* The packet line ("ID NAME  fields", the ID in decimal as the Guide's
 * tables give it) and what hangs off it. */
static void dump_packet(walker *w, const gs_cl_packet *p, int depth) {
  char line[1024];
  int k = snprintf(line, sizeof line, "%d ", p->info->id);
  gs_cl_format(p->info, p->values, line + k, sizeof line - (size_t)k);
  put_line(w, p->addr, depth, line);
  if (!w->o->no_records) dump_records(w, p, depth + 1);
  if (p->info->tail == GS_CL_TAIL_PRIMS && !w->o->no_prims) dump_prims(w, &p->fmt, p->tail, depth + 1);
  if (p->info->tail == GS_CL_TAIL_VG && !w->o->no_prims) dump_vg_words(w, p->tail, p->next, depth + 1);
}

/* What the walk does next depends only on this: when it comes back, the list
 * loops. */
typedef struct walk_state {
  gs_addr cur;
  gs_cl_prim_format fmt;
  int depth;
  gs_addr stack[DUMP_MAX_DEPTH];
} walk_state;

static int same_state(const walk_state *a, const walk_state *b) {
  return a->cur == b->cur && a->depth == b->depth && a->fmt.type == b->fmt.type && a->fmt.data == b->fmt.data &&
         memcmp(a->stack, b->stack, (size_t)a->depth * sizeof a->stack[0]) == 0;
}

int gs_cl_dump(const gs_cl_view *v, gs_addr start, gs_addr end, const gs_cl_dump_opts *opts, FILE *out,
               gs_diag *d) {
  gs_cl_dump_opts o = {0};
  if (opts) o = *opts;
  if (o.max_depth <= 0) o.max_depth = 2;
  if (o.max_depth > DUMP_MAX_DEPTH) o.max_depth = DUMP_MAX_DEPTH;
  if (o.max_packets == 0) o.max_packets = 1u << 20;
  walker w = {v, out, &o};
  walk_state s = {start, o.fmt, 0, {0}}, seen = s;
  /* Brent's cycle detection: seen is the state of packet 2^k; a loop of n
   * packets is found once 2^k >= n, within three turns of it. back is the
   * last packet that sent the walk back (a Branch or sub-list call to an
   * earlier address, a compressed list ending before it starts): a loop
   * has one, at its outermost level. */
  uint32_t lap = 1, since = 0;
  const gs_cl_format_info *back = NULL;
  gs_addr back_at = 0, back_to = 0;
  for (uint32_t count = 0;; count++, since++) {
    if (s.depth == 0 && s.cur == end) return GS_OK;
    if (since > 0 && same_state(&s, &seen))
      return gs_diag_set(d, GS_EINVAL,
                         "0x%08x: the list loops: it comes back here every %u packets, through %d %s at 0x%08x "
                         "(which continues at 0x%08x), and never reaches the end 0x%08x",
                         s.cur, since, back ? back->id : 0, back ? back->name : "?", back_at, back_to, end);
    if (since == lap) {
      seen = s;
      lap *= 2;
      since = 0;
    }
    if (count == o.max_packets)
      return gs_diag_set(d, GS_EINVAL, "0x%08x: more than %u packets without reaching the end 0x%08x (a branch loop?)",
                         s.cur, o.max_packets, end);
    gs_cl_packet p;
    int rc = gs_cl_decode(v, s.cur, &s.fmt, s.depth == 0 && s.cur < end ? end : 0, &p, d);
    if (rc < 0) {
      /* Show a broken compressed list up to the bad item: that is where
       * the reader's eye goes next. */
      if (p.info && p.info->tail == GS_CL_TAIL_PRIMS && s.fmt.data) {
        p.fmt = s.fmt;
        dump_packet(&w, &p, s.depth);
      }
      return rc;
    }
    dump_packet(&w, &p, s.depth);
    s.cur = p.next;
    switch (p.info->id) {
    case GS_CL_HALT: return GS_OK;
    case GS_CL_PRIMITIVE_LIST_FORMAT:
      s.fmt.type = (uint8_t)value_named(&p, "prim_type");
      s.fmt.data = (uint8_t)value_named(&p, "data_type");
      break;
    case GS_CL_BRANCH: s.cur = value_named(&p, "address"); break;
    case GS_CL_BRANCH_TO_SUB_LIST:
      if (s.depth >= o.max_depth)
        return gs_diag_set(d, GS_EINVAL, "0x%08x: BRANCH_TO_SUB_LIST nests sub-lists deeper than %d levels",
                           p.addr, o.max_depth);
      s.stack[s.depth++] = p.next;
      s.cur = value_named(&p, "address");
      break;
    case GS_CL_RETURN_FROM_SUB_LIST:
      if (s.depth > 0) s.cur = s.stack[--s.depth];  /* ignored when the stack is empty (RG) */
      break;
    default: break;
    }
    if (s.cur <= p.addr && p.info->id != GS_CL_RETURN_FROM_SUB_LIST) {
      back = p.info;
      back_at = p.addr;
      back_to = s.cur;
    }
  }
}

/* ---- the writer ------------------------------------------------------------
 * With a `more` callback every block keeps CHAIN_RESERVE bytes free, enough
 * for the longest way out of it: the escape of an open compressed list and a
 * Branch (16). A compressed list continues into the next block with a
 * relative branch (130) when the block is in reach (+-1 MB, 32-byte
 * aligned); otherwise the list is ended, a Branch written, and a new
 * Compressed Primitive List (48) opened there. A Return or Halt may use the
 * reserve: nothing follows it. */

#define CHAIN_RESERVE 6u

/* Puts "0x<addr>: " before the message already in d; returns rc. */
static int at_addr(gs_diag *d, int rc, gs_addr a) {
  if (!d) return rc;
  char msg[GS_DIAG_MAX];
  snprintf(msg, sizeof msg, "%s", d->msg);
  return gs_diag_set(d, rc, "0x%08x: %s", a, msg);
}

void gs_cl_writer_init(gs_cl_writer *w, gs_mem *mem, gs_addr start, uint32_t size) {
  memset(w, 0, sizeof *w);
  w->mem = mem;
  w->cur = start;
  w->end = start + size;
}

void gs_cl_writer_chain(gs_cl_writer *w, gs_cl_more_fn more, void *ud) {
  w->more = more;
  w->ud = ud;
}

static int writer_bytes(gs_cl_writer *w, const uint8_t *src, uint32_t n, gs_diag *d) {
  int rc = gs_mem_write(w->mem, w->cur, src, n, d);
  if (rc < 0) return rc;
  w->cur += n;
  return GS_OK;
}

/* Moves the writer to a new block from `more`, linking it from the current
 * one. Sets *restarted when an open compressed list had to be reopened (its
 * previous primitive is then forgotten). */
static int writer_next_block(gs_cl_writer *w, int *restarted, gs_diag *d) {
  gs_addr start = 0;
  uint32_t size = 0;
  int rc = w->more(w->ud, &start, &size, d);
  if (rc < 0) return rc;
  if ((start & 31u) || size < 32u)
    return gs_diag_set(d, GS_EARG, "0x%08x: new control-list block at 0x%08x (%u bytes) is not 32-byte aligned "
                       "with at least 32 bytes", w->cur, start, size);
  *restarted = 0;
  uint8_t b[6];
  if (w->in_list) {
    int64_t off = ((int64_t)start - (int64_t)(w->cur & ~31u)) / 32;
    if (off >= INT16_MIN && off <= INT16_MAX) {
      b[0] = GS_CL_PRIM_BRANCH;
      b[1] = (uint8_t)off;
      b[2] = (uint8_t)((uint32_t)off >> 8);
      if ((rc = writer_bytes(w, b, 3, d)) < 0) return rc;
      w->cur = start;
      w->end = start + size;
      return GS_OK;
    }
    b[0] = GS_CL_PRIM_ESCAPE;  /* out of reach: end the list, branch, reopen */
    if ((rc = writer_bytes(w, b, 1, d)) < 0) return rc;
    *restarted = 1;
  }
  b[0] = GS_CL_BRANCH;
  for (int i = 0; i < 4; i++) b[1 + i] = (uint8_t)(start >> (8 * i));
  if ((rc = writer_bytes(w, b, 5, d)) < 0) return rc;
  w->cur = start;
  w->end = start + size;
  if (*restarted) {
    b[0] = GS_CL_COMPRESSED_PRIMITIVE_LIST;
    if ((rc = writer_bytes(w, b, 1, d)) < 0) return rc;
    w->have_prev = 0;
  }
  return GS_OK;
}

/* Makes room for n bytes (plus the chaining reserve unless `final`). */
static int writer_room(gs_cl_writer *w, uint32_t n, int final, int *restarted, gs_diag *d) {
  uint32_t keep = w->more && !final ? CHAIN_RESERVE : 0;
  *restarted = 0;
  if ((uint64_t)w->cur + n + keep <= w->end) return GS_OK;
  if (!w->more)
    return gs_diag_set(d, GS_ENOMEM, "0x%08x: control list full: %u bytes needed, %u left", w->cur, n,
                       w->end > w->cur ? w->end - w->cur : 0);
  int rc = writer_next_block(w, restarted, d);
  if (rc < 0) return rc;
  if ((uint64_t)w->cur + n + keep > w->end)
    return gs_diag_set(d, GS_EARG, "0x%08x: new control-list block of %u bytes cannot hold %u bytes", w->cur,
                       w->end - w->cur, n + keep);
  return GS_OK;
}

int gs_cl_end_list(gs_cl_writer *w, gs_diag *d) {
  if (!w->in_list) return GS_OK;
  int restarted;
  uint8_t esc = GS_CL_PRIM_ESCAPE;
  int rc = writer_room(w, 1, 1, &restarted, d);
  if (rc < 0) return rc;
  w->in_list = 0;
  return writer_bytes(w, &esc, 1, d);
}

int gs_cl_put(gs_cl_writer *w, const gs_cl_format_info *f, const uint32_t *values, gs_diag *d) {
  static const uint32_t zeros[GS_CL_MAX_FIELDS];
  uint8_t b[256];
  int restarted, rc;
  if (!values) values = zeros;
  if (f->id < 0) return gs_diag_set(d, GS_EARG, "0x%08x: %s is a record, not a packet", w->cur, f->name);
  if (f->tail == GS_CL_TAIL_VG)
    return gs_diag_set(d, GS_EARG, "0x%08x: %s: use gs_cl_put_vg_inline", w->cur, f->name);
  if (f->tail == GS_CL_TAIL_PRIMS && (rc = gs_cl_prim_vertices(&w->fmt, d)) < 0) return at_addr(d, rc, w->cur);
  int n = gs_cl_pack(f, values, b, sizeof b, d);
  if (n < 0) return at_addr(d, n, w->cur);
  if ((rc = gs_cl_end_list(w, d)) < 0) return rc;
  int final = f->id == GS_CL_HALT || f->id == GS_CL_RETURN_FROM_SUB_LIST;
  if ((rc = writer_room(w, (uint32_t)n, final, &restarted, d)) < 0) return rc;
  if ((rc = writer_bytes(w, b, (uint32_t)n, d)) < 0) return rc;
  if (f->id == GS_CL_PRIMITIVE_LIST_FORMAT) {
    w->fmt.type = (uint8_t)values[gs_cl_field_index(f, "prim_type")];
    w->fmt.data = (uint8_t)values[gs_cl_field_index(f, "data_type")];
  }
  if (f->tail == GS_CL_TAIL_PRIMS) {
    w->in_list = 1;
    w->have_prev = 0;
  }
  return GS_OK;
}

int gs_cl_put_id(gs_cl_writer *w, unsigned id, const uint32_t *values, gs_diag *d) {
  const gs_cl_format_info *f = gs_cl_packet_info(id);
  if (!f) return gs_diag_set(d, GS_EARG, "0x%08x: unknown control-list packet ID %u", w->cur, id);
  return gs_cl_put(w, f, values, d);
}

int gs_cl_put_prim(gs_cl_writer *w, const gs_cl_prim *p, gs_diag *d) {
  uint8_t b[GS_CL_PRIM_MAX_BYTES];
  int restarted, rc;
  if (!w->in_list) return gs_diag_set(d, GS_EARG, "0x%08x: no compressed primitive list is open", w->cur);
  int n = gs_cl_prim_encode(&w->fmt, w->have_prev ? &w->prev : NULL, p, b, NULL, d);
  if (n < 0) return at_addr(d, n, w->cur);
  if ((rc = writer_room(w, (uint32_t)n, 0, &restarted, d)) < 0) return rc;
  if (restarted && (n = gs_cl_prim_encode(&w->fmt, NULL, p, b, NULL, d)) < 0) return n;
  if ((rc = writer_bytes(w, b, (uint32_t)n, d)) < 0) return rc;
  w->prev = *p;
  w->have_prev = 1;
  return GS_OK;
}

int gs_cl_put_prims(gs_cl_writer *w, const gs_cl_prim *p, size_t n, gs_diag *d) {
  uint8_t *host = NULL; /* the current block's bytes from host_at on, when one readable run */
  gs_addr host_at = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t b[GS_CL_PRIM_MAX_BYTES];
    int k = w->in_list && host ? gs_cl_prim_encode(&w->fmt, &w->prev, &p[i], b, NULL, d) : 0; /* prev: set */
    if (k < 0) return at_addr(d, k, w->cur);
    /* writer_room's test: it fits without a new block */
    if (k > 0 && (uint64_t)w->cur + (uint32_t)k + (w->more ? CHAIN_RESERVE : 0) <= w->end) {
      memcpy(host + (w->cur - host_at), b, (size_t)k);
      w->cur += (uint32_t)k;
      w->prev = p[i];
      continue;
    }
    int rc = gs_cl_put_prim(w, &p[i], d); /* the first, at a block's end, or any error */
    if (rc < 0) return rc;
    host = w->end > w->cur ? gs_mem_ptr(w->mem, w->cur, w->end - w->cur) : NULL;
    host_at = w->cur;
  }
  return GS_OK;
}

int gs_cl_put_vg_inline(gs_cl_writer *w, unsigned type, unsigned continuation, const uint32_t *xy, size_t n,
                        gs_diag *d) {
  const gs_cl_format_info *f = &cl_packets[CL_POS_VG_INLINE_PRIMITIVES];
  uint32_t values[2] = {type, continuation};
  uint8_t b[4];
  int restarted, rc;
  if (n > (1u << 20)) return gs_diag_set(d, GS_EARG, "0x%08x: %s: %zu vertices is too many", w->cur, f->name, n);
  int k = gs_cl_pack(f, values, b, sizeof b, d);
  if (k < 0) return at_addr(d, k, w->cur);
  if ((rc = gs_cl_end_list(w, d)) < 0) return rc;
  if ((rc = writer_room(w, (uint32_t)k + 4u * (uint32_t)n + 4u, 0, &restarted, d)) < 0) return rc;
  if ((rc = writer_bytes(w, b, (uint32_t)k, d)) < 0) return rc;
  for (size_t i = 0; i <= n; i++) {
    uint32_t word = i < n ? xy[i] : GS_CL_VG_ESCAPE;
    for (int j = 0; j < 4; j++) b[j] = (uint8_t)(word >> (8 * j));
    if ((rc = writer_bytes(w, b, 4, d)) < 0) return rc;
  }
  return GS_OK;
}
