/* combiner.c — the PICA200 texture combiners as a QPU fragment program
 * (combiner.h, docs/pica-combiners.md).
 *
 * What the program computes, per pixel, is the combiner model Citra's
 * software rasteriser implements (its rasterizer's texture-environment loop)
 * and 3dbrew's TEXENV registers describe:
 *
 *   previous = (0, 0, 0, 0); buffer = (0, 0, 0, 0); next = buffer_color
 *   for each stage i:
 *     argument k = operand k applied to source k (rgb and alpha halves apart)
 *     out = clamp(scale * func(arguments), 0, 1), per half
 *     (dot3_rgba: the rgb result in alpha too)
 *     buffer = next
 *     if i < 4: next.rgb = out.rgb if update_rgb; next.a = out.a if update_alpha
 *     previous = out
 *   colour = previous
 *
 * so a stage reading previous_buffer sees the output of the stage two before
 * it (the buffer is one stage late). Registers of the generated program:
 * ra0-ra3 the primary colour, ra4-ra7 texture0, ra8-ra11 texture1, ra20-ra23
 * texture2, ra24-ra29 the texture coordinates, ra16-ra19 previous, rb0-rb3
 * the stage's output, rb4-rb7 the buffer, rb8-rb11 next; r0-r2 the
 * arguments, r3 the result. ra15 and r5 are the varyings' W and C.
 */
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "driver/combiner.h"

static const gs_tev_half pass = {{GS_TEV_PREVIOUS, GS_TEV_PREVIOUS, GS_TEV_PREVIOUS}, {0, 0, 0}, GS_TEV_REPLACE, 1};

void gs_tev_init(gs_tev *t) {
  memset(t, 0, sizeof *t);
  for (int i = 0; i < GS_TEV_STAGES; i++) t->stage[i].rgb = t->stage[i].alpha = pass;
}

/* ---- text -------------------------------------------------------------------------- */

typedef struct buf {
  char *p;
  size_t len, cap;
  int oom;
} buf;

static void put(buf *b, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = b->oom ? 0 : vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (b->oom || n < 0) {
      b->oom = 1;
      return;
    }
    if (b->p && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
    char *q = realloc(b->p, cap);
    if (!q) {
      b->oom = 1;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
}

/* ---- the configuration ------------------------------------------------------------- */

static const char *const src_names[16] = {
  "primary_color", "fragment_primary_color", "fragment_secondary_color", "texture0", "texture1", "texture2",
  "texture3", NULL, NULL, NULL, NULL, NULL, NULL, "previous_buffer", "constant", "previous"};
static const char *const func_names[GS_TEV_FUNCS] = {
  "replace", "modulate", "add", "add_signed", "interpolate", "subtract", "dot3_rgb", "dot3_rgba",
  "multiply_add", "add_multiply"};

/* Arguments a function reads. */
static unsigned func_args(unsigned f) {
  return f == GS_TEV_REPLACE ? 1 : f == GS_TEV_INTERPOLATE || f == GS_TEV_MULTIPLY_ADD || f == GS_TEV_ADD_MULTIPLY ? 3 : 2;
}

/* The source component operand op selects for result channel c (0-2 rgb,
 * 3 alpha), and whether it is inverted (one minus). -1: no such operand. */
static int operand_channel(unsigned op, int alpha_half, unsigned c, int *inv) {
  *inv = (int)(op & 1u);
  if (alpha_half) return op <= 7 ? (int)(op >> 1 == 0 ? 3 : (op >> 1) - 1) : -1;
  switch (op >> 1) {
  case 0: return (int)c;  /* rgb */
  case 1: return 3;       /* aaa */
  case 2: return 0;       /* rrr */
  case 4: return 1;       /* ggg */
  case 6: return 2;       /* bbb */
  default: return -1;
  }
}

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static int identity(const gs_tev_half *h) {
  return h->func == GS_TEV_REPLACE && h->src[0] == GS_TEV_PREVIOUS && h->op[0] == 0 && h->scale == 1;
}

/* ---- generation ---------------------------------------------------------------------- */

typedef struct gen {
  buf b;
  const gs_tev *t;
  int colour_comps;       /* components of the colour varying, -1: none */
  int have_tc[3];         /* texture coordinates k present */
  int stage;              /* being generated, for messages */
  gs_diag *d;
} gen;

static const int tex_reg[3] = {4, 8, 20};

/* Loads argument k of half h for channel c into r<k>. */
static int load_arg(gen *g, const gs_tev_stage *s, const gs_tev_half *h, int alpha_half, unsigned k, unsigned c) {
  int inv, ch = operand_channel(h->op[k], alpha_half, c, &inv);
  unsigned src = h->src[k];
  if (ch < 0)
    return gs_diag_set(g->d, GS_EARG, "combiner stage %d: %s operand %u is %u; %s", g->stage,
                       alpha_half ? "alpha" : "rgb", k + 1, h->op[k],
                       alpha_half ? "0-7" : "0, 1, 2, 3, 4, 5, 8, 9, 12 or 13");
  if (src > 15 || !src_names[src])
    return gs_diag_set(g->d, GS_EARG, "combiner stage %d: %s source %u is %u, not a source", g->stage,
                       alpha_half ? "alpha" : "rgb", k + 1, src);
  char ins[48];
  switch (src) {
  case GS_TEV_PRIMARY_COLOR:
    if (g->colour_comps <= ch)
      return gs_diag_set(g->d, GS_EARG,
                         "combiner stage %d: %s source %u reads primary_color.%c, but the varyings carry %s", g->stage,
                         alpha_half ? "alpha" : "rgb", k + 1, "rgba"[ch],
                         g->colour_comps < 0 ? "no colour" : g->colour_comps == 1 ? "only its red" : "fewer components");
    /* fall through */
  case GS_TEV_TEXTURE0:
  case GS_TEV_TEXTURE1:
  case GS_TEV_TEXTURE2:
  case GS_TEV_PREVIOUS: {
    int reg = src == GS_TEV_PRIMARY_COLOR ? 0 : src == GS_TEV_PREVIOUS ? 16 : tex_reg[src - GS_TEV_TEXTURE0];
    snprintf(ins, sizeof ins, inv ? "fsub r%u, 1.0, ra%d" : "mov r%u, ra%d", k, reg + ch);
    break;
  }
  case GS_TEV_PREVIOUS_BUFFER: /* regfile B: no small immediate beside it */
    snprintf(ins, sizeof ins, "mov r%u, rb%d", k, 4 + ch);
    if (inv) {
      put(&g->b, "%s\n    ", ins);
      snprintf(ins, sizeof ins, "fsub r%u, 1.0, r%u", k, k);
    }
    break;
  case GS_TEV_CONSTANT: {
    float v = inv ? 1.0f - s->constant[ch] : s->constant[ch];
    snprintf(ins, sizeof ins, "ldi r%u, 0x%08x", k, float_bits(v)); /* %g would print 1.0 as an integer */
    break;
  }
  default:
    return gs_diag_set(g->d, GS_EARG, "combiner stage %d: %s source %u is %s, which gpusim does not model (%s)",
                       g->stage, alpha_half ? "alpha" : "rgb", k + 1, src_names[src],
                       src == GS_TEV_TEXTURE3 ? "the procedural texture unit" : "fragment lighting");
  }
  if (src == GS_TEV_CONSTANT)
    put(&g->b, "%-28s# %s%s.%c = %.9g\n", ins, inv ? "1 - " : "", src_names[src], "rgba"[ch],
        (double)(inv ? 1.0f - s->constant[ch] : s->constant[ch]));
  else
    put(&g->b, "%-28s# %s%s.%c\n", ins, inv ? "1 - " : "", src_names[src], "rgba"[ch]);
  return GS_OK;
}

static int uses_src(const gs_tev *t, unsigned src) {
  for (int i = 0; i < GS_TEV_STAGES; i++) {
    const gs_tev_half *hs[2] = {&t->stage[i].rgb, &t->stage[i].alpha};
    for (int a = 0; a < 2; a++) {
      if (identity(hs[a])) continue;
      unsigned n = func_args(hs[a]->func);
      for (unsigned k = 0; k < n; k++)
        if (hs[a]->src[k] == src) return 1;
    }
  }
  return 0;
}

/* Whether half h replaces channel c with a constant (or one minus it) that
 * the clamp leaves as it is: +0 or a normal float up to 1 (a denormal would
 * be flushed to 0 by fmax, -0 made +0); *v is then the channel's value. */
static int replaced_constant(const gs_tev_stage *s, const gs_tev_half *h, int alpha_half, unsigned c, float *v) {
  int inv, ch = operand_channel(h->op[0], alpha_half, c, &inv);
  if (h->func != GS_TEV_REPLACE || h->src[0] != GS_TEV_CONSTANT || h->scale != 1 || ch < 0) return 0;
  *v = inv ? 1.0f - s->constant[ch] : s->constant[ch];
  return float_bits(*v) == 0 || (*v >= FLT_MIN && *v <= 1.0f);
}

/* Whether the combiners' output is one colour for every fragment: no stage
 * reads a texture, the primary colour or the buffer, and the last stage that
 * changes rgb and the last that changes alpha (no dot3_rgba anywhere) each
 * replace with constants the clamp leaves as they are, or no stage changes
 * them (previous stays 0). *packed is then the colour as the pack makes it:
 * round(v x 255), halves up (exact in double), R in the low byte. */
static int constant_output(const gs_tev *t, uint32_t *packed) {
  if (uses_src(t, GS_TEV_TEXTURE0) || uses_src(t, GS_TEV_TEXTURE1) || uses_src(t, GS_TEV_TEXTURE2) ||
      uses_src(t, GS_TEV_PRIMARY_COLOR) || uses_src(t, GS_TEV_PREVIOUS_BUFFER))
    return 0;
  int last[2] = {-1, -1};
  for (int i = 0; i < GS_TEV_STAGES; i++) {
    if (t->stage[i].rgb.func == GS_TEV_DOT3_RGBA) return 0;
    if (!identity(&t->stage[i].rgb)) last[0] = i;
    if (!identity(&t->stage[i].alpha)) last[1] = i;
  }
  *packed = 0;
  for (unsigned c = 0; c < 4; c++) {
    int a = c == 3, i = last[a];
    float v = 0.0f;
    if (i >= 0 && !replaced_constant(&t->stage[i], a ? &t->stage[i].alpha : &t->stage[i].rgb, a, c, &v)) return 0;
    *packed |= (uint32_t)((double)v * 255.0 + 0.5) << (8 * c); /* v >= 0: truncation is floor */
  }
  return 1;
}

/* Computes channel c (0-3) of half h into r3, scaled and clamped. */
static int channel(gen *g, const gs_tev_stage *s, const gs_tev_half *h, int alpha_half, unsigned c) {
  unsigned n = func_args(h->func);
  if (h->func == GS_TEV_DOT3_RGB || h->func == GS_TEV_DOT3_RGBA) {
    /* 4 ((a.r - 1/2)(b.r - 1/2) + (a.g - 1/2)(b.g - 1/2) + (a.b - 1/2)(b.b - 1/2)) */
    for (unsigned ch = 0; ch < 3; ch++) {
      for (unsigned k = 0; k < 2; k++) {
        put(&g->b, "    ");
        if (load_arg(g, s, h, alpha_half, k, ch) < 0) return GS_EARG;
        put(&g->b, "    fsub r%u, r%u, 0.5\n", k, k);
      }
      put(&g->b, ch ? "    fmul r2, r0, r1\n    fadd r3, r3, r2\n" : "    fmul r3, r0, r1\n");
    }
    put(&g->b, "    fmul r3, r3, 4.0\n");
  } else {
    /* Replacing with a constant that the clamp leaves as it is (+0, or a
     * normal float up to 1; a denormal would be flushed to 0 by fmax) needs
     * neither the move nor the clamp: the constant itself, bit for bit. */
    float v;
    if (replaced_constant(s, h, alpha_half, c, &v)) {
      char ins[32];
      snprintf(ins, sizeof ins, "ldi r3, 0x%08x", float_bits(v));
      put(&g->b, "    %-28s# the constant %.9g, already in [0, 1]\n", ins, (double)v);
      return GS_OK;
    }
    for (unsigned k = 0; k < n; k++) {
      put(&g->b, "    ");
      if (load_arg(g, s, h, alpha_half, k, c) < 0) return GS_EARG;
    }
    switch (h->func) {
    case GS_TEV_REPLACE: put(&g->b, "    mov r3, r0\n"); break;
    case GS_TEV_MODULATE: put(&g->b, "    fmul r3, r0, r1\n"); break;
    case GS_TEV_ADD: put(&g->b, "    fadd r3, r0, r1\n"); break;
    case GS_TEV_ADD_SIGNED: put(&g->b, "    fadd r3, r0, r1\n    fsub r3, r3, 0.5\n"); break;
    case GS_TEV_INTERPOLATE: /* a c + b (1 - c) */
      put(&g->b, "    fmul r3, r0, r2\n    fsub r2, 1.0, r2\n    fmul r1, r1, r2\n    fadd r3, r3, r1\n");
      break;
    case GS_TEV_SUBTRACT: put(&g->b, "    fsub r3, r0, r1\n"); break;
    case GS_TEV_MULTIPLY_ADD: put(&g->b, "    fmul r3, r0, r1\n    fadd r3, r3, r2\n"); break;
    case GS_TEV_ADD_MULTIPLY: /* min(a + b, 1) c */
      put(&g->b, "    fadd r3, r0, r1\n    fmin r3, r3, 1.0\n    fmul r3, r3, r2\n");
      break;
    default:
      return gs_diag_set(g->d, GS_EARG, "combiner stage %d: %s function %u; 0-9", g->stage,
                         alpha_half ? "alpha" : "rgb", h->func);
    }
  }
  if (h->scale == 2 || h->scale == 4) put(&g->b, "    fmul r3, r3, %u.0\n", h->scale);
  else if (h->scale != 1)
    return gs_diag_set(g->d, GS_EARG, "combiner stage %d: %s scale %u; 1, 2 or 4", g->stage,
                       alpha_half ? "alpha" : "rgb", h->scale);
  put(&g->b, "    fmax r3, r3, 0\n    fmin r3, r3, 1.0\n");
  return GS_OK;
}

int gs_tev_qpu_source(const gs_tev *t, const gs_tev_varying *v, size_t n, char **text, gs_diag *d) {
  *text = NULL;
  gen g;
  memset(&g, 0, sizeof g);
  g.t = t;
  g.d = d;
  g.colour_comps = -1;
  int need_tex[3];
  for (int k = 0; k < 3; k++) need_tex[k] = uses_src(t, GS_TEV_TEXTURE0 + (unsigned)k);
  int need_colour = uses_src(t, GS_TEV_PRIMARY_COLOR), need_buffer = uses_src(t, GS_TEV_PREVIOUS_BUFFER);

  put(&g.b, "# PICA200 texture combiners as a QPU fragment program (gpusim driver, docs/pica-combiners.md)\n");
  if (t->depth) put(&g.b, "    mov tlb_z, rb15             # the rasterised depth, for the depth test\n");
  put(&g.b, "    mov ra16, 0                 # previous = (0, 0, 0, 0)\n    mov ra17, 0\n    mov ra18, 0\n"
            "    mov ra19, 0\n");
  if (need_colour) put(&g.b, "    mov ra0, 0                  # colour components not given read 0\n"
                             "    mov ra1, 0\n    mov ra2, 0\n    mov ra3, 0\n");
  /* The varyings, in order, as far as the last one needed. */
  size_t last = 0;
  for (size_t i = 0; i < n; i++) {
    const char *nm = v[i].name;
    if ((strcmp(nm, "color") == 0 && need_colour) ||
        (strncmp(nm, "texcoord", 8) == 0 && nm[8] >= '0' && nm[8] <= '2' && !nm[9] && need_tex[nm[8] - '0']))
      last = i + 1;
  }
  for (size_t i = 0; i < n; i++) {
    const char *nm = v[i].name;
    if (strcmp(nm, "color") == 0) g.colour_comps = (int)v[i].components;
    if (strncmp(nm, "texcoord", 8) == 0 && nm[8] >= '0' && nm[8] <= '2' && !nm[9] && v[i].components >= 2)
      g.have_tc[nm[8] - '0'] = 1;
    if (i >= last) continue;
    for (unsigned c = 0; c < v[i].components; c++) {
      int reg = -1;
      if (strcmp(nm, "color") == 0) reg = (int)c;
      else if (strncmp(nm, "texcoord", 8) == 0 && nm[8] >= '0' && nm[8] <= '2' && !nm[9] && c < 2)
        reg = 24 + 2 * (nm[8] - '0') + (int)c;
      put(&g.b, "    fmul r0, vary, ra15         # %s.%c: vary x W%s\n", nm, "xyzw"[c], reg < 0 ? ", unused" : "");
      if (reg >= 0) {
        char ins[32];
        snprintf(ins, sizeof ins, "fadd ra%d, r0, r5", reg);
        put(&g.b, "    %-28s#   + C\n", ins);
      }
    }
  }
  put(&g.b, "    nop\n");
  for (int k = 0; k < 3; k++) {
    if (!need_tex[k]) continue;
    if (!g.have_tc[k]) {
      free(g.b.p);
      return gs_diag_set(d, GS_EARG,
                         "combiner: a stage reads texture%d, but no varying 'texcoord%d' with two components gives its "
                         "coordinates",
                         k, k);
    }
    put(&g.b,
        "    mov tmu0_t, ra%d            # texture%d at (u, v) = (ra%d, ra%d); its config is the next uniforms\n"
        "    mov tmu0_s, ra%d\n    nop ; nop ; ldtmu0\n",
        25 + 2 * k, k, 24 + 2 * k, 25 + 2 * k, 24 + 2 * k);
    for (int c = 0; c < 4; c++) {
      char ins[32];
      snprintf(ins, sizeof ins, "fmul ra%d, r4.8%c, 1.0", tex_reg[k] + c, "abcd"[c]);
      put(&g.b, "    %-28s# texture%d.%c\n", ins, k, "rgba"[c]);
    }
  }
  if (need_buffer) {
    put(&g.b, "    mov rb4, 0                  # buffer = (0, 0, 0, 0), next = the buffer colour\n"
              "    mov rb5, 0\n    mov rb6, 0\n    mov rb7, 0\n");
    for (int c = 0; c < 4; c++) {
      char ins[32];
      snprintf(ins, sizeof ins, "ldi rb%d, 0x%08x", 8 + c, float_bits(t->buffer_color[c]));
      put(&g.b, "    %-28s# %.9g\n", ins, (double)t->buffer_color[c]);
    }
  }
  for (int i = 0; i < GS_TEV_STAGES; i++) {
    const gs_tev_stage *s = &t->stage[i];
    g.stage = i;
    int id_rgb = identity(&s->rgb), dot4 = s->rgb.func == GS_TEV_DOT3_RGBA;
    int id_alpha = identity(&s->alpha) && !dot4;
    if (!dot4 && (s->alpha.func == GS_TEV_DOT3_RGB || s->alpha.func == GS_TEV_DOT3_RGBA)) {
      free(g.b.p);
      return gs_diag_set(d, GS_EARG, "combiner stage %d: alpha function %s; the dot products are rgb functions (dot3_rgba "
                         "as the rgb function gives alpha too)", i, func_names[s->alpha.func]);
    }
    if (s->rgb.func < GS_TEV_FUNCS && s->alpha.func < GS_TEV_FUNCS)
      put(&g.b, "    # stage %d: rgb %s, alpha %s\n", i, id_rgb ? "passes previous on" : func_names[s->rgb.func],
          dot4 ? "the dot product" : id_alpha ? "passes previous on" : func_names[s->alpha.func]);
    int rc = GS_OK;
    if (!id_rgb) {
      if (s->rgb.func == GS_TEV_DOT3_RGB || dot4) {
        rc = channel(&g, s, &s->rgb, 0, 0);
        for (int c = 0; rc == GS_OK && c < 3 + dot4; c++) put(&g.b, "    mov rb%d, r3\n", c);
      } else {
        for (unsigned c = 0; rc == GS_OK && c < 3; c++)
          if ((rc = channel(&g, s, &s->rgb, 0, c)) == GS_OK) put(&g.b, "    mov rb%u, r3\n", c);
      }
    }
    if (rc == GS_OK && !id_alpha && !dot4 && (rc = channel(&g, s, &s->alpha, 1, 3)) == GS_OK)
      put(&g.b, "    mov rb3, r3\n");
    if (rc < 0) {
      free(g.b.p);
      return rc;
    }
    /* A stage that passes previous on and keeps no buffer emits nothing,
     * not even the two nops that keep a register's write and its next
     * read apart. */
    if (id_rgb && id_alpha && !dot4 && !need_buffer) continue;
    put(&g.b, "    nop\n");
    for (int c = 0; c < 4; c++)
      if (c < 3 ? !id_rgb : !id_alpha || dot4) put(&g.b, "    mov ra%d, rb%d\n", 16 + c, c);
    if (need_buffer) {
      put(&g.b, "    mov rb4, rb8                # buffer = next\n    mov rb5, rb9\n    mov rb6, rb10\n"
                "    mov rb7, rb11\n");
      if (i < 4 && s->update_rgb)
        put(&g.b, "    mov rb8, ra16               # next.rgb = this stage's\n    mov rb9, ra17\n"
                  "    mov rb10, ra18\n");
      if (i < 4 && s->update_alpha) put(&g.b, "    mov rb11, ra19              # next.a = this stage's\n");
    }
    put(&g.b, "    nop\n");
  }
  put(&g.b, "    fmul r3.8a, ra16, 1.0       # the colour, packed to bytes R G B A\n"
            "    fmul r3.8b, ra17, 1.0\n    fmul r3.8c, ra18, 1.0\n    fmul r3.8d, ra19, 1.0\n"
            "    mov tlb_colour_all, r3\n    thrend\n    nop\n    sbdone\n");
  /* Checked whole above, a configuration whose output is one colour runs
   * as the colour itself, packed here as the program would pack it. */
  uint32_t packed;
  if (!g.b.oom && constant_output(t, &packed)) {
    free(g.b.p);
    memset(&g.b, 0, sizeof g.b);
    put(&g.b, "# PICA200 texture combiners as a QPU fragment program (gpusim driver, docs/pica-combiners.md)\n");
    if (t->depth) put(&g.b, "    mov tlb_z, rb15             # the rasterised depth, for the depth test\n");
    put(&g.b, "    ldi r3, 0x%08x          # the combiners' output is one colour, packed to bytes R G B A\n"
              "    mov tlb_colour_all, r3\n    thrend\n    nop\n    sbdone\n", packed);
  }
  if (g.b.oom) {
    free(g.b.p);
    return gs_diag_set(d, GS_ENOMEM, "combiner: out of memory");
  }
  *text = g.b.p;
  return GS_OK;
}
