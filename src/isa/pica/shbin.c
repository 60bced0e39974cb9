/* shbin.c — the SHBIN container (pica.h): a DVLB header, one DVLP (program
 * words, operand descriptors), and DVLE executables (entry point, constants,
 * outputs, uniforms), after 3dbrew "SHBIN" and GBATEK "3DS Files - Video
 * Shaders (DVLB and DVOB Format)". */
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "isa/pica/pica.h"

typedef struct rd {
  const uint8_t *p;
  size_t size;
  gs_diag *d;
} rd;

/* 1 if [off, off + n * each) is inside the file. */
static int inside(const rd *r, size_t off, size_t n, size_t each) {
  return off <= r->size && n <= (r->size - off) / (each ? each : 1);
}

static uint32_t u32(const rd *r, size_t off) { return gs_get_le32(r->p + off); }
static uint16_t u16(const rd *r, size_t off) { return (uint16_t)(r->p[off] | r->p[off + 1] << 8); }

static int magic(const rd *r, size_t off, const char *m) {
  if (!inside(r, off, 1, 4)) return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: the file ends before %s", off, m);
  if (memcmp(r->p + off, m, 4))
    return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: expected \"%s\", found %02x %02x %02x %02x", off, m,
                       r->p[off], r->p[off + 1], r->p[off + 2], r->p[off + 3]);
  return GS_OK;
}

/* A table at base + the offset at field, with the count at field + 4. */
static int table(const rd *r, size_t base, size_t field, size_t each, size_t *at, size_t *n, const char *what) {
  *at = base + u32(r, base + field);
  *n = u32(r, base + field + 4);
  if (*at < base || !inside(r, *at, *n, each))
    return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: the %s (%zu entries at 0x%zx) runs past the file (%zu bytes)",
                       base + field, what, *n, *at, r->size);
  return GS_OK;
}

static int read_dvle(const rd *r, const char *file, size_t b, uint32_t ncode, pica_dvle *e) {
  int rc;
  if ((rc = magic(r, b, "DVLE")) < 0) return rc;
  if (!inside(r, b, 1, 0x40)) return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: the DVLE header is cut short", b);
  e->type = r->p[b + 6];
  e->merge_outmaps = r->p[b + 7];
  if (e->type > 1)
    return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: DVLE shader type %u (0 vertex, 1 geometry)", b + 6, e->type);
  e->main = u32(r, b + 8);
  e->end = u32(r, b + 12);
  if (e->main >= ncode || e->end > ncode)
    return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: DVLE main 0x%x / end 0x%x outside the %u program words", b + 8,
                       e->main, e->end, ncode);
  e->in_mask = u16(r, b + 0x10);
  e->out_mask = u16(r, b + 0x12);
  e->gs_mode = r->p[b + 0x14];
  e->gs_fixed_start = r->p[b + 0x15];
  e->gs_variable_num = r->p[b + 0x16];
  e->gs_fixed_num = r->p[b + 0x17];
  size_t at, n, sym, nsym;
  if ((rc = table(r, b, 0x38, 1, &sym, &nsym, "symbol table")) < 0) return rc;
  if ((rc = table(r, b, 0x18, 20, &at, &n, "constant table")) < 0) return rc;
  if (n && !(e->consts = calloc(n, sizeof *e->consts))) return gs_diag_set(r->d, GS_ENOMEM, "shbin: out of memory");
  for (size_t k = 0; k < n; k++, at += 20) {
    pica_const *c = &e->consts[e->nconsts++];
    c->type = r->p[at];
    c->reg = r->p[at + 2];
    static const unsigned limit[3] = {16, 4, 96};
    if (c->type > 2 || c->reg >= limit[c->type] || r->p[at + 3])
      return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: constant of type %u for register %u (bool 0-15, ivec4 0-3, "
                         "vec4 0-95)", at, c->type, u16(r, at + 2));
    for (int i = 0; i < 4; i++) c->v[i] = c->type == 2 ? u32(r, at + 4 + 4 * (size_t)i) : r->p[at + 4 + (size_t)i];
    if (c->type == 0) c->v[1] = c->v[2] = c->v[3] = 0;
  }
  if ((rc = table(r, b, 0x28, 8, &at, &n, "output table")) < 0) return rc;
  if (n && !(e->outputs = calloc(n, sizeof *e->outputs))) return gs_diag_set(r->d, GS_ENOMEM, "shbin: out of memory");
  for (size_t k = 0; k < n; k++, at += 8) {
    pica_output *o = &e->outputs[e->noutputs++];
    o->type = u16(r, at), o->reg = u16(r, at + 2), o->mask = u16(r, at + 4);
    if (o->type > 9 || o->type == 7 || o->reg > 15 || o->mask > 15)
      return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: output of type %u to o%u mask 0x%x (types 0-6, 8, 9; o0-o15)",
                         at, o->type, o->reg, o->mask);
  }
  if ((rc = table(r, b, 0x30, 8, &at, &n, "uniform table")) < 0) return rc;
  if (n && !(e->uniforms = calloc(n, sizeof *e->uniforms))) return gs_diag_set(r->d, GS_ENOMEM, "shbin: out of memory");
  for (size_t k = 0; k < n; k++, at += 8) {
    pica_uniform *u = &e->uniforms[e->nuniforms++];
    size_t name = u32(r, at);
    u->first = u16(r, at + 4), u->last = u16(r, at + 6);
    if (name >= nsym || !memchr(r->p + sym + name, 0, nsym - name))
      return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: uniform name at 0x%zx is not a string of the symbol table", at,
                         name);
    if (u->first > u->last || u->last > 0x87)
      return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: uniform registers 0x%x-0x%x (0x00-0x87)", at, u->first,
                         u->last);
    u->name = file + sym + name;
  }
  return GS_OK;
}

int pica_shbin_read(const uint8_t *bytes, size_t size, pica_shbin *out, gs_diag *d) {
  memset(out, 0, sizeof *out);
  rd r = {bytes, size, d};
  int rc;
  if ((rc = magic(&r, 0, "DVLB")) < 0) return rc;
  size_t ndvle = inside(&r, 4, 1, 4) ? u32(&r, 4) : 0;
  if (!ndvle || !inside(&r, 8, ndvle, 4))
    return gs_diag_set(d, GS_EINVAL, "shbin: 0x4: %zu DVLE entries do not fit the file (%zu bytes)", ndvle, size);
  size_t p = 8 + 4 * ndvle, code, ncode, od, nod;
  if ((rc = magic(&r, p, "DVLP")) < 0) return rc;
  if (!inside(&r, p, 1, 0x28)) return gs_diag_set(d, GS_EINVAL, "shbin: 0x%zx: the DVLP header is cut short", p);
  if ((rc = table(&r, p, 0x08, 4, &code, &ncode, "program")) < 0) return rc;
  if ((rc = table(&r, p, 0x10, 8, &od, &nod, "operand descriptor table")) < 0) return rc;
  if (ncode > 4096 || nod > 128)
    return gs_diag_set(d, GS_EINVAL, "shbin: 0x%zx: %zu program words and %zu descriptors (at most 4096 and 128)",
                       p + 0x0C, ncode, nod);
  if (!(out->file = malloc(size)) || !(out->code = calloc(ncode + 1, 4)) || !(out->opdesc = calloc(nod + 1, 4)) ||
      !(out->dvle = calloc(ndvle, sizeof *out->dvle))) {
    pica_shbin_free(out);
    return gs_diag_set(d, GS_ENOMEM, "shbin: out of memory reading %zu bytes", size);
  }
  memcpy(out->file, bytes, size);
  out->size = size;
  out->ncode = ncode, out->nopdesc = nod;
  for (size_t k = 0; k < ncode; k++) out->code[k] = u32(&r, code + 4 * k);
  for (size_t k = 0; k < nod; k++) out->opdesc[k] = u32(&r, od + 8 * k);
  for (size_t k = 0; k < ndvle; k++) {
    size_t b = u32(&r, 8 + 4 * k);
    out->ndvle++;
    if ((rc = read_dvle(&r, (const char *)out->file, b, (uint32_t)ncode, &out->dvle[k])) < 0) {
      pica_shbin_free(out);
      return rc;
    }
  }
  return GS_OK;
}

void pica_shbin_free(pica_shbin *s) {
  for (size_t k = 0; s->dvle && k < s->ndvle; k++) {
    free(s->dvle[k].consts);
    free(s->dvle[k].outputs);
    free(s->dvle[k].uniforms);
  }
  free(s->dvle);
  free(s->code);
  free(s->opdesc);
  free(s->file);
  memset(s, 0, sizeof *s);
}
