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
  if ((rc = table(r, b, 0x20, 16, &at, &n, "label table")) < 0) return rc;
  if (n && !(e->labels = calloc(n, sizeof *e->labels))) return gs_diag_set(r->d, GS_ENOMEM, "shbin: out of memory");
  for (size_t k = 0; k < n; k++, at += 16) {
    pica_label *l = &e->labels[e->nlabels++];
    size_t name = u32(r, at + 12);
    l->id = r->p[at], l->addr = u32(r, at + 4), l->size = u32(r, at + 8);
    if (name >= nsym || !memchr(r->p + sym + name, 0, nsym - name))
      return gs_diag_set(r->d, GS_EINVAL, "shbin: 0x%zx: label name at 0x%zx is not a string of the symbol table", at,
                         name);
    l->name = file + sym + name;
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

const char *pica_dvle_name(const pica_dvle *e) {
  for (size_t k = 0; k < e->nlabels; k++)
    if (e->labels[k].addr == e->main) return e->labels[k].name;
  return NULL;
}

void pica_shbin_free(pica_shbin *s) {
  for (size_t k = 0; s->dvle && k < s->ndvle; k++) {
    free(s->dvle[k].consts);
    free(s->dvle[k].outputs);
    free(s->dvle[k].uniforms);
    free(s->dvle[k].labels);
  }
  free(s->dvle);
  free(s->code);
  free(s->opdesc);
  free(s->file);
  memset(s, 0, sizeof *s);
}

/* ---- writing ------------------------------------------------------------------ */

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }

/* The bytes of DVLE e's tables after its 0x40-byte header; sym: symbol
 * table size. */
static size_t dvle_size(const pica_dvle *e, size_t *sym) {
  size_t n = 0;
  for (size_t k = 0; k < e->nuniforms; k++) n += strlen(e->uniforms[k].name) + 1;
  for (size_t k = 0; k < e->nlabels; k++) n += strlen(e->labels[k].name) + 1;
  *sym = n;
  size_t size = 0x40 + 20 * e->nconsts + 8 * e->noutputs + 8 * e->nuniforms + n;
  return ((size + 3) & ~(size_t)3) + 16 * e->nlabels;
}

int pica_shbin_write(const pica_shbin *s, uint8_t **bytes, size_t *size, gs_diag *d) {
  *bytes = NULL, *size = 0;
  size_t head = 8 + 4 * s->ndvle, dvlp = 0x28 + 4 * s->ncode + 8 * s->nopdesc, total = head + dvlp, sym;
  for (size_t k = 0; k < s->ndvle; k++) total += dvle_size(&s->dvle[k], &sym);
  uint8_t *f = calloc(1, total);
  if (!f) return gs_diag_set(d, GS_ENOMEM, "shbin: out of memory writing %zu bytes", total);
  memcpy(f, "DVLB", 4), gs_put_le32(f + 4, (uint32_t)s->ndvle);
  uint8_t *p = f + head;
  memcpy(p, "DVLP", 4);
  gs_put_le32(p + 0x08, 0x28), gs_put_le32(p + 0x0C, (uint32_t)s->ncode);
  gs_put_le32(p + 0x10, (uint32_t)(0x28 + 4 * s->ncode)), gs_put_le32(p + 0x14, (uint32_t)s->nopdesc);
  gs_put_le32(p + 0x18, (uint32_t)dvlp);
  for (size_t k = 0; k < s->ncode; k++) gs_put_le32(p + 0x28 + 4 * k, s->code[k]);
  for (size_t k = 0; k < s->nopdesc; k++) gs_put_le32(p + 0x28 + 4 * s->ncode + 8 * k, s->opdesc[k]);
  size_t off = head + dvlp;
  for (size_t k = 0; k < s->ndvle; k++) {
    const pica_dvle *e = &s->dvle[k];
    size_t esize = dvle_size(e, &sym), at = 0x40;
    uint8_t *b = f + off;
    gs_put_le32(f + 8 + 4 * k, (uint32_t)off);
    memcpy(b, "DVLE", 4), put16(b + 4, 0x1002), b[6] = e->type, b[7] = e->merge_outmaps;
    gs_put_le32(b + 8, e->main), gs_put_le32(b + 12, e->end);
    put16(b + 0x10, e->in_mask), put16(b + 0x12, e->out_mask);
    b[0x14] = e->gs_mode, b[0x15] = e->gs_fixed_start, b[0x16] = e->gs_variable_num, b[0x17] = e->gs_fixed_num;
    gs_put_le32(b + 0x18, (uint32_t)at), gs_put_le32(b + 0x1C, (uint32_t)e->nconsts);
    for (size_t i = 0; i < e->nconsts; i++, at += 20) {
      const pica_const *c = &e->consts[i];
      put16(b + at, c->type), put16(b + at + 2, c->reg);
      if (c->type == 2)
        for (int j = 0; j < 4; j++) gs_put_le32(b + at + 4 + 4 * j, c->v[j]);
      else if (c->type == 1)
        for (int j = 0; j < 4; j++) b[at + 4 + j] = (uint8_t)c->v[j];
      else gs_put_le32(b + at + 4, c->v[0]);
    }
    gs_put_le32(b + 0x20, (uint32_t)at); /* an empty label table sits here (picasso) */
    gs_put_le32(b + 0x28, (uint32_t)at), gs_put_le32(b + 0x2C, (uint32_t)e->noutputs);
    for (size_t i = 0; i < e->noutputs; i++, at += 8)
      put16(b + at, e->outputs[i].type), put16(b + at + 2, e->outputs[i].reg), put16(b + at + 4, e->outputs[i].mask);
    size_t symat = at + 8 * e->nuniforms, name = 0;
    gs_put_le32(b + 0x30, (uint32_t)at), gs_put_le32(b + 0x34, (uint32_t)e->nuniforms);
    gs_put_le32(b + 0x38, (uint32_t)symat), gs_put_le32(b + 0x3C, (uint32_t)sym);
    for (size_t i = 0; i < e->nuniforms; i++, at += 8) {
      const pica_uniform *u = &e->uniforms[i];
      size_t l = strlen(u->name) + 1;
      gs_put_le32(b + at, (uint32_t)name), put16(b + at + 4, u->first), put16(b + at + 6, u->last);
      memcpy(b + symat + name, u->name, l);
      name += l;
    }
    size_t lat = (symat + sym + 3) & ~(size_t)3;
    if (e->nlabels) gs_put_le32(b + 0x20, (uint32_t)lat), gs_put_le32(b + 0x24, (uint32_t)e->nlabels);
    for (size_t i = 0; i < e->nlabels; i++, lat += 16) {
      const pica_label *l = &e->labels[i];
      size_t len = strlen(l->name) + 1;
      b[lat] = l->id, gs_put_le32(b + lat + 4, l->addr), gs_put_le32(b + lat + 8, l->size);
      gs_put_le32(b + lat + 12, (uint32_t)name);
      memcpy(b + symat + name, l->name, len);
      name += len;
    }
    off += esize;
  }
  *bytes = f, *size = total;
  return GS_OK;
}
