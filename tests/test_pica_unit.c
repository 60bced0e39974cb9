/* test_pica_unit.c — the PICA200 unit in the pipeline (src/isa/pica/unit.c):
 * a SHBIN's vertex shader run through the shader-unit contract
 * (gs_isa.run_vertex) on VPM words, with every output word worked out by
 * hand: the inputs by the SPH's generic components, the uniform stream
 * over the DVLE's constants, float24 loading, the output map's semantics
 * and their varying order (colour, texcoord0, ..., view), the colour
 * fix-up, the divide by W and the viewport in 12.4, the coordinate
 * shader's rows; both interpreters; the errors (a BREAK outside a loop,
 * the budget, the varying count, a PICA200 fragment shader) and the
 * output-map refusals. The SHBINs are the assembler's plain-syntax output
 * with output and constant tables appended by hand from 3dbrew's "SHBIN"
 * layout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "unit_fixture.h"
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "driver/combiner.h"
#include "isa/isa.h"
#include "isa/pica/unit.h"
#include "v3d/v3d.h"
#include "v3d/vpm.h"

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static void put32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}
static uint32_t get32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

typedef struct out_entry { uint16_t type, reg, mask; } out_entry;
typedef struct const_entry { uint8_t type, reg; uint32_t v[4]; } const_entry;

/* The assembler's SHBIN for text (one DVLE, last in the file, its tables
 * empty at +0x40) with an output table and a constant table appended
 * (3dbrew "SHBIN": 8-byte output entries type, register, mask; 20-byte
 * constant entries type at 0, register at 2, four words at 4). */
static uint8_t *shbin(const char *text, const out_entry *o, size_t no, const const_entry *c, size_t nc,
                      size_t *size) {
  gs_isa_binary b = {0};
  gs_diag d = {0};
  if (pica_asm(text, "t.pica", &b, &d) < 0) fail_msg("%s", d.msg);
  size_t e = get32(b.bytes + 8), n = b.size + 8 * no + 20 * nc;
  uint8_t *f = calloc(1, n);
  assert_non_null(f);
  memcpy(f, b.bytes, b.size);
  uint32_t at = (uint32_t)(b.size - e);
  put32(f + e + 0x28, at), put32(f + e + 0x2C, (uint32_t)no);
  for (size_t k = 0; k < no; k++, at += 8) {
    uint8_t *p = f + e + at;
    p[0] = (uint8_t)o[k].type, p[2] = (uint8_t)o[k].reg, p[4] = (uint8_t)o[k].mask;
  }
  put32(f + e + 0x18, at), put32(f + e + 0x1C, (uint32_t)nc);
  for (size_t k = 0; k < nc; k++, at += 20) {
    uint8_t *p = f + e + at;
    p[0] = c[k].type, p[2] = c[k].reg;
    for (int j = 0; j < 4; j++) put32(p + 4 + 4 * j, c[k].v[j]);
  }
  gs_isa_binary_free(&b);
  *size = n;
  return f;
}

static void fixture_init(fixture *f) { fixture_init_isa(f, "pica"); }

/* Loads bytes as a PICA200 program whose SPH has generic inputs of the
 * given masks and, for a vertex shader, position plus generic outputs of
 * the given masks (a coordinate shader: position alone). */
static gs_addr load(fixture *f, const uint8_t *bytes, size_t size, const unsigned *in, size_t nin,
                    const unsigned *out, size_t nout) {
  return fixture_load(f, bytes, size, 0, in, nin, out, nout);
}

static void uniforms(fixture *f, const float *v, uint32_t n) {
  uint32_t w[64];
  for (uint32_t k = 0; k < n; k++) w[k] = fbits(v[k]);
  w[16] = 0x3F800008u; /* c4.x = 1 + 2^-20: float24 keeps 16 fraction bits, so 1.0 */
  fixture_uniforms(f, w, n);
}

static int run(fixture *f, gs_stage stage, gs_addr code, unsigned in_rows, unsigned out_rows, unsigned count) {
  return fixture_run(f, stage, code, in_rows, out_rows, count, NULL);
}

/* o0 = the matrix c0-c3 x v0; o2 (texcoord0 .xy) = c94 x v1; o1 (colour)
 * = v2; o3 (view .xyz) = c4 - c5. */
static const char *const transform =
    "dp4 o0.x, c0, v0\n"
    "dp4 o0.y, c1, v0\n"
    "dp4 o0.z, c2, v0\n"
    "dp4 o0.w, c3, v0\n"
    "mul o2, c94, v1\n"
    "mov o1, v2\n"
    "mov r0, c5\n"
    "add o3, c4, -r0\n"
    "end\n";
/* position o0; texcoord0 o2.xy; colour o1; view o3.xyz (listed out of the
 * varying order on purpose) */
static const out_entry transform_outs[] = {{0, 0, 0xF}, {3, 2, 0x3}, {2, 1, 0xF}, {8, 3, 0x7}};
static const const_entry transform_consts[] = {
  {2, 94, {0x3E0000, 0x3D0000, 0, 0}},              /* c94 = (0.5, 0.25, 0, 0) in float24 */
  {2, 5, {0x410000, 0x410000, 0x410000, 0x410000}}, /* c5 = (4, 4, 4, 4): the stream's c5 replaces it */
};
/* c0-c3 rows (2 0 0 1), (0 2 0 -1), (0 0 1 0), (0 0 0.5 1); c4 = (1 + 2^-20
 * (set by uniforms()), 1.5, -2, 0); c5 = (1, 1, 1, 1) */
static const float transform_unif[24] = {2, 0, 0, 1, 0, 2, 0, -1, 0, 0, 1, 0, 0, 0, 0.5f, 1,
                                         0, 1.5f, -2, 0, 1, 1, 1, 1};
static const unsigned in_masks[3] = {0xF, 0x3, 0x7}, vary_masks[3] = {0xF, 0xF, 0x1};

/* Vertex 0: position (1, 0.5, 2, 1), uv (0.5, 1), rgb (-0.5, 2, 0.25);
 * vertex 1: (-1, -1, 0, 1), (2, -4), (0, 0, 1). */
static void put_inputs(fixture *f) {
  static const float v[2][9] = {{1, 0.5f, 2, 1, 0.5f, 1, -0.5f, 2, 0.25f}, {-1, -1, 0, 1, 2, -4, 0, 0, 1}};
  memset(f->vpm.words, 0, 16 * 16 * sizeof(uint32_t));
  for (unsigned l = 0; l < 2; l++)
    for (unsigned k = 0; k < 9; k++) f->vpm.words[k * 16 + l] = fbits(v[l][k]);
}

static size_t const_at; /* where shbin() put the constant table */

static gs_addr load_transform(fixture *f, const unsigned *vary, size_t nvary) {
  size_t size;
  uint8_t *b = shbin(transform, transform_outs, 4, transform_consts, 2, &size);
  const_at = size - 40;
  uniforms(f, transform_unif, 24);
  gs_addr code = load(f, b, size, in_masks, 3, vary, nvary);
  free(b);
  return code;
}

/* Worked by hand. Vertex 0: clip (3, 0, 2, 2): Xs = 3/2 x 2560 = 3840 =
 * 0x0F00 (12.4), Ys = 0, Zs = 2/2 x 0.5 + 0.5 = 1, 1/W = 0.5. Vertex 1:
 * clip (-1, -3, 0, 1): Xs = -2560 = 0xF600, Ys = -3 x 1920 = -5760 =
 * 0xE980, Zs = 0.5, 1/W = 1. Varyings: colour |rgb| saturated, alpha v2.w
 * = 1 (unfilled components of an input are (0, 0, 0, 1)); texcoord0 =
 * (0.5 u, 0.25 v); view = c4 - c5 = (0 (float24), 0.5, -3). */
static void check_vertex_rows(const fixture *f) {
  static const float want[2][9] = {{0.5f, 1, 0.25f, 1, 0.25f, 0.25f, 0, 0.5f, -3},
                                   {0, 0, 1, 1, 1, -1, 0, 0.5f, -3}};
  assert_int_equal(out(f, 0, 0), 0x00000F00u);
  assert_true(outf(f, 1, 0) == 1.0f && outf(f, 2, 0) == 0.5f);
  assert_int_equal(out(f, 0, 1), 0xE980F600u);
  assert_true(outf(f, 1, 1) == 0.5f && outf(f, 2, 1) == 1.0f);
  for (unsigned l = 0; l < 2; l++)
    for (unsigned k = 0; k < 9; k++)
      if (out(f, 3 + k, l) != fbits(want[l][k]))
        fail_msg("vertex %u varying %u: 0x%08x, want %g", l, k, out(f, 3 + k, l), (double)want[l][k]);
  for (unsigned r = 0; r < 12; r++) assert_int_equal(out(f, r, 2), 0); /* lane 2 ran no vertex */
}

static void test_vertex_and_coordinate(void **state) {
  (void)state;
  for (int interp = 0; interp < 2; interp++) {
    fixture f;
    fixture_init(&f);
    gs_gpu_config_of(f.g)->interpreter = interp ? GS_INTERP_REFERENCE : GS_INTERP_FAST;
    gs_addr code = load_transform(&f, vary_masks, 3);
    assert_int_equal(f.isa->prepare(f.g, f.u, code), GS_OK);
    put_inputs(&f);
    if (run(&f, GS_STAGE_VERTEX, code, 9, 12, 2) < 0) fail_msg("%s", f.d.msg);
    check_vertex_rows(&f);
    /* the same program as the coordinate shader, with the coordinate
     * shader's SPH (position input alone): Xc Yc Zc Wc, Ys|Xs, Zs, 1/Wc */
    size_t size;
    uint8_t *b = shbin(transform, transform_outs, 4, transform_consts, 2, &size);
    gs_addr cs = load(&f, b, size, in_masks, 1, NULL, 0);
    free(b);
    if (run(&f, GS_STAGE_COORDINATE, cs, 4, 7, 2) < 0) fail_msg("%s", f.d.msg);
    static const float clip[2][4] = {{3, 0, 2, 2}, {-1, -3, 0, 1}};
    for (unsigned l = 0; l < 2; l++)
      for (unsigned c = 0; c < 4; c++) assert_true(outf(&f, c, l) == clip[l][c]);
    assert_int_equal(out(&f, 4, 0), 0x00000F00u);
    assert_true(outf(&f, 5, 0) == 1.0f && outf(&f, 6, 0) == 0.5f);
    assert_int_equal(out(&f, 4, 1), 0xE980F600u);
    assert_true(outf(&f, 5, 1) == 0.5f && outf(&f, 6, 1) == 1.0f);
    assert_int_equal(out(&f, 7, 0), 0); /* nothing past the 7 rows */
    fixture_free(&f);
  }
}

/* gs_gpu_config.pica_float = GS_PICA_F32: binary32 keeps c4.x = 1 + 2^-20,
 * so view.x = 2^-20 (0x35800000) where float24 gives 0; the rest as above. */
static void test_f32_mode(void **state) {
  (void)state;
  fixture f;
  fixture_init(&f);
  gs_gpu_config_of(f.g)->pica_float = GS_PICA_F32;
  gs_addr code = load_transform(&f, vary_masks, 3);
  put_inputs(&f);
  assert_int_equal(run(&f, GS_STAGE_VERTEX, code, 9, 12, 2), GS_OK);
  assert_int_equal(out(&f, 9, 0), 0x35800000u);
  assert_int_equal(out(&f, 0, 0), 0x00000F00u);
  assert_true(outf(&f, 10, 0) == 0.5f && outf(&f, 3, 0) == 0.5f);
  gs_gpu_config_of(f.g)->pica_float = GS_PICA_F24; /* the same program, the mode changed between runs */
  put_inputs(&f);
  assert_int_equal(run(&f, GS_STAGE_VERTEX, code, 9, 12, 2), GS_OK);
  assert_int_equal(out(&f, 9, 0), 0);
  fixture_free(&f);
}

/* The cache keys a program by address and content: a changed constant
 * (c94.x 0.5 -> 1.0) in the SHBIN at the same address is read again. */
static void test_cache(void **state) {
  (void)state;
  fixture f;
  fixture_init(&f);
  gs_addr code = load_transform(&f, vary_masks, 3);
  put_inputs(&f);
  assert_int_equal(run(&f, GS_STAGE_VERTEX, code, 9, 12, 2), GS_OK);
  assert_true(outf(&f, 7, 0) == 0.25f); /* texcoord0 u = 0.5 x 0.5 */
  uint8_t *c94x = gs_mem_ptr(gs_gpu_mem(f.g), code + (uint32_t)const_at + 4, 4);
  assert_int_equal(get32(c94x), 0x3E0000);
  put32(c94x, 0x3F0000);
  put_inputs(&f);
  assert_int_equal(run(&f, GS_STAGE_VERTEX, code, 9, 12, 2), GS_OK);
  assert_true(outf(&f, 7, 0) == 0.5f);
  f.isa->idle(f.g); /* releases the retired program */
  fixture_free(&f);
}

static void expect(const fixture *f, int rc, int want, const char *const *parts) {
  if (rc != want) fail_msg("rc %d, want %d: %s", rc, want, f->d.msg);
  for (; *parts; parts++)
    if (!strstr(f->d.msg, *parts)) fail_msg("no '%s' in: %s", *parts, f->d.msg);
}

static gs_addr load_text(fixture *f, const char *text) {
  static const out_entry pos[] = {{0, 0, 0xF}};
  size_t size;
  uint8_t *b = shbin(text, pos, 1, NULL, 0, &size);
  gs_addr code = load(f, b, size, in_masks, 1, NULL, 0);
  free(b);
  return code;
}

/* Errors name the unit, the stage, the program, the lane and the word
 * address; a runaway program stops at the budget. */
static void test_errors(void **state) {
  (void)state;
  for (int interp = 0; interp < 2; interp++) {
    fixture f;
    fixture_init(&f);
    gs_gpu_config_of(f.g)->interpreter = interp ? GS_INTERP_REFERENCE : GS_INTERP_FAST;
    uniforms(&f, transform_unif, 24);
    put_inputs(&f);
    gs_addr brk = load_text(&f, "nop\nbreak\nend\n");
    char prog[16];
    snprintf(prog, sizeof prog, "0x%08x", brk);
    const char *hang[] = {"PICA200 unit 2", "vertex shader", prog, "lane 0", "BREAK at 0x001", NULL};
    expect(&f, run(&f, GS_STAGE_VERTEX, brk, 4, 3, 2), GS_EHANG, hang);
    gs_gpu_config_of(f.g)->watchdog = 1000;
    gs_addr loop = load_text(&f, "nop\njmpu !b0, 0x000\nend\n"); /* b0 is false: back to 0 for ever */
    const char *budget[] = {"PICA200 unit 2", "coordinate shader", "budget of 1000", NULL};
    expect(&f, run(&f, GS_STAGE_COORDINATE, loop, 4, 7, 2), GS_EWATCHDOG, budget);
    fixture_free(&f);
  }
  /* the output map's varyings against the SPH's; a PICA200 fragment shader */
  fixture f;
  fixture_init(&f);
  gs_addr code = load_transform(&f, vary_masks, 1); /* the SPH declares 4 varying components */
  put_inputs(&f);
  const char *count[] = {"gives 9 varying", "declares 4", NULL};
  expect(&f, run(&f, GS_STAGE_VERTEX, code, 9, 7, 2), GS_EINVAL, count);
  assert_int_equal(run(&f, GS_STAGE_COORDINATE, code, 9, 7, 2), GS_OK); /* no varyings there */
  gs_frag_io fio;
  memset(&fio, 0, sizeof fio);
  fio.prog.code = code;
  unsigned ran = 7;
  const char *frag[] = {"fragment shader", "fixed function", NULL};
  expect(&f, f.isa->run_fragment(f.g, f.u, &fio, 1, &ran), GS_EINVAL, frag);
  assert_int_equal(ran, 0);
  /* no header in front of the code */
  const char *raw[] = {"no PICA200 program header", NULL};
  expect(&f, f.isa->prepare(f.g, f.u, f.unif + 16), GS_EINVAL, raw);
  fixture_free(&f);
}

/* A SHBIN whose first executable is a geometry shader (picasso's model of
 * two files): the unit runs the first vertex shader, DVLE 1, and names it
 * in its errors. */
static void test_first_vertex_dvle(void **state) {
  (void)state;
  const pica_asm_src src[2] = {
    {".gsh\n.entry gmain\n.out - position o0\n.proc gmain\n    setemit 0\n    mov o0, v0\n    emit\n"
     "    end\n.end\n", "gs.pica"},
    {".out opos position\n.proc main\n    mov opos, -v0\n    break\n    end\n.end\n", "vs.pica"},
  };
  gs_isa_binary b = {0};
  gs_diag d = {0};
  if (pica_asm_files(src, 2, 0, &b, &d) < 0) fail_msg("%s", d.msg);
  fixture f;
  fixture_init(&f);
  uniforms(&f, transform_unif, 24);
  put_inputs(&f);
  gs_addr code = load(&f, b.bytes, b.size, in_masks, 1, NULL, 0);
  const char *msg[] = {"(DVLE 1, main at word 0x", "BREAK at 0x", NULL};
  expect(&f, run(&f, GS_STAGE_COORDINATE, code, 4, 7, 2), GS_EHANG, msg);
  fixture_free(&f);
  gs_isa_binary_free(&b);
}

static int outmap(const out_entry *o, size_t n, pica_outmap *m, gs_diag *d) {
  pica_output out[16];
  for (size_t k = 0; k < n; k++) out[k] = (pica_output){o[k].type, o[k].reg, o[k].mask};
  pica_dvle dv;
  memset(&dv, 0, sizeof dv);
  dv.outputs = out, dv.noutputs = n;
  return pica_outmap_build(&dv, m, d);
}

/* 3dbrew's output semantics: the k-th component in an entry's mask carries
 * the k-th semantic of its type; the varyings come in gpusim's order
 * whatever the table's; and the refusals. */
static void test_outmap(void **state) {
  (void)state;
  pica_outmap m;
  gs_diag d = {0};
  /* colour in o2's y and w only (r, g), view in o6, texcoord1 in o5.zw,
   * position o0, texcoord0w in o1.w, normalquat o3, texcoord2 o4.xy,
   * texcoord0 o1.xy, and a dummy output (no semantic) in o9 */
  static const out_entry all[] = {{2, 2, 0xA}, {8, 6, 0x7}, {5, 5, 0xC}, {0, 0, 0xF}, {4, 1, 0x8},
                                  {1, 3, 0xF}, {6, 4, 0x3}, {3, 1, 0x3}, {9, 9, 0xF}};
  if (outmap(all, 9, &m, &d) < 0) fail_msg("%s", d.msg);
  static const uint8_t order[] = {0x08, 0x09, 0x0C, 0x0D, 0x10, 0x0E, 0x0F, 0x16, 0x17,
                                  0x04, 0x05, 0x06, 0x07, 0x12, 0x13, 0x14};
  assert_int_equal(m.nvary, sizeof order);
  assert_memory_equal(m.vary, order, sizeof order);
  assert_int_equal(m.src[0x08], 2 * 4 + 1); /* colour r: o2.y */
  assert_int_equal(m.src[0x09], 2 * 4 + 3); /* colour g: o2.w */
  assert_int_equal(m.src[0x0A], 0xff);      /* b, a: none */
  assert_int_equal(m.src[0x0E], 5 * 4 + 2); /* texcoord1 u: o5.z */
  assert_int_equal(m.src[0x10], 1 * 4 + 3); /* texcoord0 w: o1.w */
  assert_int_equal(m.src[0x14], 6 * 4 + 2); /* view z: o6.z */
  assert_int_equal(m.src[0x03], 0 * 4 + 3);
  /* texcoord0 in .yzw: u v from y z, w carries nothing */
  static const out_entry tc[] = {{0, 0, 0xF}, {3, 1, 0xE}};
  if (outmap(tc, 2, &m, &d) < 0) fail_msg("%s", d.msg);
  assert_int_equal(m.nvary, 2);
  assert_int_equal(m.src[0x0C], 1 * 4 + 1);
  assert_int_equal(m.src[0x0D], 1 * 4 + 2);
  assert_int_equal(m.src[0x0E], 0xff);
  static const struct { out_entry o[8]; size_t n; const char *msg; } bad[] = {
    {{{0, 0, 0xF}, {2, 1, 0xF}, {2, 2, 0x1}}, 3, "component 0 of color is already o1.x"},
    {{{2, 1, 0xF}}, 1, "no position"},
    {{{0, 0, 0xF}, {7, 1, 0xF}}, 2, "type 7 is not an output semantic"},
    {{{0, 0, 0xF}, {1, 1, 0xF}, {2, 2, 0xF}, {3, 3, 0x3}, {4, 4, 0x1}, {5, 5, 0x3}, {6, 6, 0x3}, {8, 7, 0x7}}, 8,
     "semantics to 8 registers"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    assert_int_equal(outmap(bad[k].o, bad[k].n, &m, &d), GS_EINVAL);
    if (!strstr(d.msg, bad[k].msg)) fail_msg("case %zu: no '%s' in: %s", k, bad[k].msg, d.msg);
  }
}

/* The PICA200's bench_fragment, the fill frame's fragment stage (gpusim bench,
 * src/v3d/cle_bench.c), is the QPU program the driver makes of a combiner
 * stage replacing with the constant colour (0.6, 0.4, 0.2, 1) with the
 * depth written: both assemble to the same code. */
static void test_bench_fragment(void **state) {
  (void)state;
  gs_tev t;
  gs_tev_init(&t);
  t.stage[0].rgb.src[0] = t.stage[0].alpha.src[0] = GS_TEV_CONSTANT;
  const float c[4] = {0.6f, 0.4f, 0.2f, 1.0f};
  memcpy(t.stage[0].constant, c, sizeof c);
  t.depth = 1;
  char *text = NULL;
  gs_diag d = {0};
  assert_int_equal(gs_tev_qpu_source(&t, NULL, 0, &text, &d), GS_OK);
  const gs_isa *qpu = gs_isa_by_id(GS_ISA_QPU), *pica = gs_isa_by_id(GS_ISA_PICA);
  assert_non_null(pica->bench_fragment);
  gs_isa_binary a, b;
  assert_int_equal(qpu->assemble(text, "combiners.s", 0, &a, &d), GS_OK);
  assert_int_equal(qpu->assemble(pica->bench_fragment, "bench_fs.s", 0, &b, &d), GS_OK);
  assert_int_equal(a.size, b.size);
  assert_memory_equal(a.bytes, b.bytes, a.size);
  gs_isa_binary_free(&a);
  gs_isa_binary_free(&b);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bench_fragment),
    cmocka_unit_test(test_vertex_and_coordinate),
    cmocka_unit_test(test_cache),
    cmocka_unit_test(test_f32_mode),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_outmap),
    cmocka_unit_test(test_first_vertex_dvle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
