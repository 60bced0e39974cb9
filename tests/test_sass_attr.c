/* test_sass_attr.c — ALD, AST, AL2P, IPA and the pixel shader output map
 * (src/isa/sass/attr.h).
 *
 * Expected values are worked out by hand from the published rules, never
 * taken from the code under test:
 *  - NVIDIA's ALD description: its two BMAP tables (".I" and ".O", three
 *    rows each), the BMAP formulas, the default values, the out-of-range
 *    zero, the alignment rule, the Rb rules, .P and .PHYS, its examples;
 *  - NVIDIA's Shader Program Header description (open-gpu-doc): StoreReq,
 *    MrtEnable, OmapTarget / OmapDepth / OmapSampleMask, and the two
 *    NVIDIA-compiled headers of the open kernel modules' headsurface shaders;
 *  - the output registers as nouveau, yuzu and Ryujinx place them, the IPA
 *    modes as nouveau's gm107 emitter names them;
 *  - a triangle's barycentrics, with numbers chosen so that every value is
 *    exact in binary.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include "isa/sass/attr.h"
#include "isa/sass/sass.h"

#define RZ SASS_RZ
#define ONE 0x3F800000u /* 1.0f */
#define FILL 0xDEADBEEFu /* what an unwritten word of a test buffer holds */

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* ---- headers ------------------------------------------------------------------ */

static void vtg(gs_sph *s, gs_sph_stage stage) {
  memset(s, 0, sizeof *s);
  s->sph_type = GS_SPH_TYPE_VTG;
  s->version = 3;
  s->shader_type = stage;
  s->store_req_start = 0xFF; /* no StoreReq range (nouveau's w4 = 0x000FF000) */
  s->store_req_end = 0;
}

static void ps_header(gs_sph *s) {
  memset(s, 0, sizeof *s);
  s->sph_type = GS_SPH_TYPE_PS;
  s->version = 3;
  s->shader_type = GS_SPH_PIXEL;
  s->imap_position[3] = 1;
}

/* One lane's stage: its context, one input and one output vertex (more
 * where a test points io elsewhere), its registers. */
typedef struct fix {
  sass_attr_ctx c;
  sass_attr_buf in, out;
  sass_attr_io io;
  uint32_t r[16];
} fix;

static void fix_init(fix *f, gs_sph_stage stage, const gs_sph *cur, const gs_sph *prev, const gs_sph *next,
                     uint32_t in_fill, uint32_t out_fill) {
  assert_int_equal(sass_attr_ctx_init(&f->c, stage, cur, prev, next, NULL), GS_OK);
  sass_attr_buf_clear(&f->in, in_fill);
  sass_attr_buf_clear(&f->out, out_fill);
  f->io = (sass_attr_io){&f->in, 1, &f->out, 1, NULL, NULL};
  memset(f->r, 0, sizeof f->r);
}

static sass_regs lane_regs(uint32_t *r) {
  sass_regs v = {r, 1};
  return v;
}

static int ald(fix *f, sass_attr_op op, uint8_t oc[4]) { return sass_ald(&f->c, &f->io, lane_regs(f->r), &op, oc); }
static int ast(fix *f, sass_attr_op op, uint8_t oc[4]) { return sass_ast(&f->c, &f->io, lane_regs(f->r), &op, oc); }

/* ALD/AST with a register, Ra, Rb, size, flags and immediate */
static sass_attr_op op_of(unsigned reg, unsigned ra, unsigned rb, unsigned size, unsigned flags, int32_t imm) {
  sass_attr_op op = {(uint8_t)reg, (uint8_t)ra, (uint8_t)rb, (uint8_t)size, (uint8_t)flags, imm};
  return op;
}

static sass_attr_op op_imm(unsigned reg, unsigned size, int32_t imm) { return op_of(reg, RZ, RZ, size, 0, imm); }

/* ALD op must give exactly the one outcome `want`, and register reg value */
static void expect_ald(fix *f, const char *what, sass_attr_op op, unsigned reg, sass_attr_outcome want,
                       uint32_t value) {
  int rc = ald(f, op, NULL);
  if (rc != 1 << want || f->r[reg] != value)
    fail_msg("%s: rc 0x%x R%u 0x%08x, want outcome %u value 0x%08x", what, rc, reg, f->r[reg], want, value);
}

/* ---- the ".I" table: input BMAP = IMAP(this) & OMAP(previous) ------------------------ */

/* One row of the table, made concrete: a GS reading generic 1 .x (0x90) or
 * .w (0x9C) of its input vertex 0 after a VS. */
typedef struct in_row {
  const char *cite;
  unsigned imap_cur, omap_prev; /* the two bits that make the BMAP */
  int written;                  /* the previous stage's write status */
  unsigned addr;
  sass_attr_outcome outcome;
  uint32_t value;
} in_row;

static const in_row in_rows[] = {
    /* Table ".I" row 1: BMAP 0, write status * -> Default. BMAP 0 by each
     * factor, with the word written or not; .x defaults to 0, .w to 1.0. */
    {".I row 1 (IMAP 0, OMAP 1, written)", 0, 1, 1, 0x90, SASS_ATTR_DEFAULT, 0},
    {".I row 1 (IMAP 1, OMAP 0, written)", 1, 0, 1, 0x90, SASS_ATTR_DEFAULT, 0},
    {".I row 1 (IMAP 0, OMAP 0, unwritten)", 0, 0, 0, 0x90, SASS_ATTR_DEFAULT, 0},
    {".I row 1 (IMAP 1, OMAP 0, unwritten, .w)", 1, 0, 0, 0x9C, SASS_ATTR_DEFAULT, ONE},
    {".I row 1 (IMAP 0, OMAP 1, written, .w)", 0, 1, 1, 0x9C, SASS_ATTR_DEFAULT, ONE},
    /* Table ".I" row 2: BMAP 1, not written -> the ISBE leftover */
    {".I row 2 (leftover)", 1, 1, 0, 0x90, SASS_ATTR_LEFTOVER, FILL},
    {".I row 2 (leftover, .w: no default)", 1, 1, 0, 0x9C, SASS_ATTR_LEFTOVER, FILL},
    /* Table ".I" row 3: BMAP 1, written -> the previous stage's output */
    {".I row 3 (stored)", 1, 1, 1, 0x90, SASS_ATTR_STORED, 0x12345678},
    {".I row 3 (stored, .w)", 1, 1, 1, 0x9C, SASS_ATTR_STORED, 0x12345678},
};

static void gs_header(gs_sph *gs) {
  vtg(gs, GS_SPH_GEOMETRY);
  gs->output_topology = GS_SPH_POINTLIST;
  gs->max_output_vertex_count = 1;
}

static void test_input_table(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof in_rows / sizeof in_rows[0]; i++) {
    const in_row *r = &in_rows[i];
    gs_sph vs, gs;
    fix f;
    unsigned comp = (r->addr - 0x90) / 4;
    vtg(&vs, GS_SPH_VERTEX);
    gs_header(&gs);
    gs.imap_generic[1][comp] = (uint8_t)r->imap_cur;
    vs.omap_generic[1][comp] = (uint8_t)r->omap_prev;
    fix_init(&f, GS_SPH_GEOMETRY, &gs, &vs, NULL, FILL, 0);
    if (r->written) sass_attr_buf_store(&f.in, r->addr, 0x12345678);
    expect_ald(&f, r->cite, op_imm(2, 0, (int32_t)r->addr), 2, r->outcome, r->value);
  }
}

/* Table ".I" row 2, its other half: a hardware-generated attribute. The
 * value is the one the pipeline put in the buffer, unwritten by any stage. */
static void test_input_hw_generated(void **state) {
  gs_sph vs, tcs, tes;
  fix f;
  (void)state;
  /* VS: VertexId (0x2FC) from the vertex fetcher, IMAP set */
  vtg(&vs, GS_SPH_VERTEX);
  vs.imap_vertex_id = 1;
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, 0, 0);
  f.in.v[0x2FC / 4] = 41;
  expect_ald(&f, "VertexId", op_imm(0, 0, 0x2FC), 0, SASS_ATTR_HW, 41);
  /* without its IMAP bit it is absent: the default 0 */
  vs.imap_vertex_id = 0;
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, 0, 0);
  f.in.v[0x2FC / 4] = 41;
  expect_ald(&f, "VertexId unmapped", op_imm(0, 0, 0x2FC), 0, SASS_ATTR_DEFAULT, 0);
  /* TES: TessCoord u, v (0x2F0, 0x2F4), which no TCS writes (its OMAP has
   * them clear) yet which are present: .64 into R4, R5 */
  vtg(&tcs, GS_SPH_TESSELLATION_INIT);
  vtg(&tes, GS_SPH_TESSELLATION);
  tes.imap_tess_eval_point[0] = tes.imap_tess_eval_point[1] = 1;
  fix_init(&f, GS_SPH_TESSELLATION, &tes, &tcs, NULL, FILL, 0);
  f.in.v[0x2F0 / 4] = fbits(0.25f);
  f.in.v[0x2F4 / 4] = fbits(0.5f);
  expect_ald(&f, "TessCoord", op_imm(4, 1, 0x2F0), 4, SASS_ATTR_HW, fbits(0.25f));
  assert_int_equal(f.r[5], fbits(0.5f));
}

/* ---- the ".O" table: output BMAP = OMAP(this) & (IMAP(next) | ST_REQ) -------------- */

typedef struct out_row {
  const char *cite;
  unsigned omap_cur, imap_next; /* the BMAP's bits */
  unsigned req_start, req_end;  /* StoreReqStart/End (dword indices) */
  int ast;                      /* the stage stored the word (AST) first */
  sass_attr_outcome outcome;
  uint32_t value;
} out_row;

/* A VS reading back generic 2 .y (0xA4, dword 41) before a PS. */
static const out_row out_rows[] = {
    /* Table ".O" row 1: BMAP 0 -> Default, whatever the write status */
    {".O row 1 (OMAP 0, next IMAP 1, AST dropped)", 0, 1, 0xFF, 0, 1, SASS_ATTR_DEFAULT, 0},
    {".O row 1 (OMAP 1, next IMAP 0, no range, stored)", 1, 0, 0xFF, 0, 1, SASS_ATTR_DEFAULT, 0},
    {".O row 1 (OMAP 1, range past it, stored)", 1, 0, 42, 50, 1, SASS_ATTR_DEFAULT, 0},
    {".O row 1 (OMAP 1, range before it, unwritten)", 1, 0, 30, 40, 0, SASS_ATTR_DEFAULT, 0},
    {".O row 1 (OMAP 0, range over it, AST dropped)", 0, 0, 41, 41, 1, SASS_ATTR_DEFAULT, 0},
    /* Table ".O" row 2: BMAP 1, not written -> the ISBE leftover */
    {".O row 2 (next IMAP)", 1, 1, 0xFF, 0, 0, SASS_ATTR_LEFTOVER, FILL},
    {".O row 2 (StoreReq range)", 1, 0, 41, 41, 0, SASS_ATTR_LEFTOVER, FILL},
    /* Table ".O" row 3: BMAP 1, written -> this stage's output */
    {".O row 3 (next IMAP)", 1, 1, 0xFF, 0, 1, SASS_ATTR_STORED, 0xCAFE0001},
    {".O row 3 (StoreReq range 40..41)", 1, 0, 40, 41, 1, SASS_ATTR_STORED, 0xCAFE0001},
    {".O row 3 (StoreReq range 41..60)", 1, 0, 41, 60, 1, SASS_ATTR_STORED, 0xCAFE0001},
};

static void test_output_table(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof out_rows / sizeof out_rows[0]; i++) {
    const out_row *r = &out_rows[i];
    gs_sph vs, ps;
    fix f;
    vtg(&vs, GS_SPH_VERTEX);
    ps_header(&ps);
    vs.omap_generic[2][1] = (uint8_t)r->omap_cur;
    ps.imap_generic[2][1] = (uint8_t)(r->imap_next ? GS_PIXEL_IMAP_PERSPECTIVE : 0);
    vs.store_req_start = r->req_start;
    vs.store_req_end = r->req_end;
    fix_init(&f, GS_SPH_VERTEX, &vs, NULL, &ps, 0, FILL);
    if (r->ast) {
      f.r[1] = 0xCAFE0001;
      assert_true(ast(&f, op_imm(1, 0, 0xA4), NULL) >= 0);
    }
    expect_ald(&f, r->cite, op_of(2, RZ, RZ, 0, SASS_ATTR_O, 0xA4), 2, r->outcome, r->value);
  }
}

/* NVIDIA's SPH description: geometry and pixel shaders ignore the StoreReq
 * range; a TCS and a TES read back like a VS. */
static void test_store_req_stages(void **state) {
  gs_sph s;
  gs_sph_attr_set set;
  (void)state;
  static const gs_sph_stage with[] = {GS_SPH_VERTEX, GS_SPH_TESSELLATION_INIT, GS_SPH_TESSELLATION};
  for (size_t i = 0; i < 3; i++) {
    vtg(&s, with[i]);
    s.omap_generic[0][0] = 1;
    s.store_req_start = s.store_req_end = 32; /* 0x80 */
    gs_sph_output_bmap(&s, NULL, &set);
    assert_true(gs_sph_attr_has(&set, 0x80));
  }
  gs_header(&s);
  s.omap_generic[0][0] = 1;
  s.store_req_start = s.store_req_end = 32;
  gs_sph_output_bmap(&s, NULL, &set);
  assert_false(gs_sph_attr_has(&set, 0x80));
}

/* ---- defaults, vectors, range, alignment --------------------------------------------- */

/* ALD description: a defaulted load gives 0 or 0x3F800000 by address:
 * 1.0 for the fourth component of a vec4 slot (position, generic, colour,
 * texture coordinate), 0 elsewhere. A VS whose IMAP maps nothing. */
static void test_defaults_by_address(void **state) {
  static const struct {
    unsigned addr;
    uint32_t value;
  } rows[] = {
      {0x060, 0},   {0x06C, 0},   /* PrimitiveId, PointSize */
      {0x070, 0},   {0x07C, ONE}, /* position x, w */
      {0x080, 0},   {0x084, 0},   {0x088, 0}, {0x08C, ONE}, /* generic 0 */
      {0x27C, ONE}, {0x278, 0},   /* generic 31 */
      {0x28C, ONE}, {0x2BC, ONE}, {0x2B0, 0}, /* colours */
      {0x2CC, 0},   {0x2DC, 0},   /* clip distances 3 and 7: not vec4 .w */
      {0x2FC, 0},   {0x2F8, 0},   /* VertexId, InstanceId */
      {0x300, 0},   {0x30C, ONE}, {0x39C, ONE}, /* texture coordinates */
      {0x3AC, 0},   {0x3FC, 0},   {0x01C, 0},
  };
  gs_sph vs;
  fix f;
  (void)state;
  vtg(&vs, GS_SPH_VERTEX);
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, FILL, FILL);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    f.r[0] = FILL;
    expect_ald(&f, "default", op_imm(0, 0, (int32_t)rows[i].addr), 0, SASS_ATTR_DEFAULT,
               rows[i].value);
  }
}

/* ALD description: a vector load reads up to four consecutive addresses,
 * and each one that is not enabled gives its own default.
 * ALD.128 of generic 3 with x and z present: (x, 0, z, 1.0). */
static void test_vector_partial(void **state) {
  gs_sph vs;
  fix f;
  uint8_t oc[4];
  (void)state;
  vtg(&vs, GS_SPH_VERTEX);
  vs.imap_generic[3][0] = vs.imap_generic[3][2] = 1;
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, FILL, 0);
  for (unsigned k = 0; k < 4; k++) sass_attr_buf_store(&f.in, 0xB0 + 4 * k, 11 + k);
  assert_int_equal(ald(&f, op_imm(4, 3, 0xB0), oc), (1 << SASS_ATTR_STORED) | (1 << SASS_ATTR_DEFAULT));
  assert_int_equal(f.r[4], 11);
  assert_int_equal(f.r[5], 0);
  assert_int_equal(f.r[6], 13);
  assert_int_equal(f.r[7], ONE);
  assert_int_equal(oc[0], SASS_ATTR_STORED);
  assert_int_equal(oc[1], SASS_ATTR_DEFAULT);
  assert_int_equal(oc[2], SASS_ATTR_STORED);
  assert_int_equal(oc[3], SASS_ATTR_DEFAULT);
}

/* The alignment rule (low bits are dropped, not faulted), one row per
 * size line of it. Input words hold 0x1000 + address so that the address
 * read shows. */
typedef struct align_row {
  const char *cite;
  unsigned rd, size;
  int32_t imm;
  unsigned first_reg, first_addr;
} align_row;

static const align_row align_rows[] = {
    {".32 forces (Ra+imm) 2 lsb to 00 (0x83 -> 0x80)", 3, 0, 0x83, 3, 0x80},
    {".32 keeps an odd register", 5, 0, 0x84, 5, 0x84},
    {".64 forces Rd[0] to 0 (R3 -> R2) and 3 lsb to 000 (0x8C -> 0x88)", 3, 1, 0x8C, 2, 0x88},
    {".64 aligned already", 4, 1, 0x90, 4, 0x90},
    {".96 forces Rd[1:0] to 00 (R7 -> R4) and 4 lsb to 0000 (0x9C -> 0x90)", 7, 2, 0x9C, 4, 0x90},
    {".128 forces Rd[1:0] to 00 (R6 -> R4) and 4 lsb to 0000 (0x98 -> 0x90)", 6, 3, 0x98, 4, 0x90},
    {".128 at 0x3F4 -> 0x3F0, inside the space", 9, 3, 0x3F4, 8, 0x3F0},
};

static void test_alignment(void **state) {
  gs_sph vs;
  fix f;
  (void)state;
  vtg(&vs, GS_SPH_VERTEX);
  for (unsigned g = 0; g < 32; g++)
    for (unsigned k = 0; k < 4; k++) vs.imap_generic[g][k] = 1;
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, 0, 0);
  for (unsigned a = 0; a < 0x400; a += 4) sass_attr_buf_store(&f.in, a, 0x1000 + a);
  for (size_t i = 0; i < sizeof align_rows / sizeof align_rows[0]; i++) {
    const align_row *r = &align_rows[i];
    for (unsigned k = 0; k < 16; k++) f.r[k] = FILL;
    assert_true(ald(&f, op_imm(r->rd, r->size, r->imm), NULL) >= 0);
    for (unsigned k = 0; k < 16; k++) {
      int in_range = k >= r->first_reg && k <= r->first_reg + r->size;
      uint32_t want = in_range ? 0x1000 + r->first_addr + 4 * (k - r->first_reg) : FILL;
      /* 0x3F0-0x3FC have no IMAP field: BMAP 0, and the default is 0 there */
      if (in_range && r->first_addr + 4 * (k - r->first_reg) >= 0x3C0) want = 0;
      if (f.r[k] != want) fail_msg("%s: R%u = 0x%08x, want 0x%08x", r->cite, k, f.r[k], want);
    }
  }
}

/* ALD description: addresses past the 1024-byte space or below 0 read 0.
 * With the indexed forms, which can leave the space. A TES reading its
 * input with .PHYS (Ra != RZ, imm 0) and its patch with .P (Ra + imm). */
static void test_out_of_range(void **state) {
  gs_sph tcs, tes;
  fix f;
  sass_attr_buf patch;
  (void)state;
  vtg(&tcs, GS_SPH_TESSELLATION_INIT);
  vtg(&tes, GS_SPH_TESSELLATION);
  for (unsigned k = 0; k < 4; k++) tes.imap_generic[0][k] = tcs.omap_generic[0][k] = 1;
  fix_init(&f, GS_SPH_TESSELLATION, &tes, &tcs, NULL, FILL, FILL);
  sass_attr_buf_clear(&patch, FILL);
  for (unsigned a = 0; a < 0x400; a += 4) sass_attr_buf_store(&patch, a, 0x2000 + a);
  sass_attr_buf_store(&f.in, 0x80, 77);
  f.io.patch = &patch;
  static const struct {
    uint32_t ra;
    int32_t imm;
    unsigned flags;
    uint32_t value;
    sass_attr_outcome outcome;
  } rows[] = {
      {0x80, 0, 0, 77, SASS_ATTR_STORED},                 /* .PHYS in range */
      {0x400, 0, 0, 0, SASS_ATTR_OUT_OF_RANGE},           /* 1024: past the last word */
      {0xFFFFFFFCu, 0, 0, 0, SASS_ATTR_OUT_OF_RANGE},     /* -4 */
      {0x3FC, 0, SASS_ATTR_P, 0x23FC, SASS_ATTR_STORED},  /* .P, the last word */
      {0x3F8, 8, SASS_ATTR_P, 0, SASS_ATTR_OUT_OF_RANGE}, /* .P, Ra + imm = 0x400 */
      {4, -8, SASS_ATTR_P, 0, SASS_ATTR_OUT_OF_RANGE},    /* .P, Ra + imm = -4 */
      {0x10, -16, SASS_ATTR_P, 0x2000, SASS_ATTR_STORED}, /* .P, Ra + imm = 0 */
      {0, 1023, SASS_ATTR_P, 0x23FC, SASS_ATTR_STORED},   /* 1023 -> 0x3FC (.32 drops 2 bits) */
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    f.r[1] = rows[i].ra;
    f.r[0] = FILL;
    expect_ald(&f, "range", op_of(0, 1, RZ, 0, rows[i].flags, rows[i].imm), 0, rows[i].outcome,
               rows[i].value);
  }
}

/* ---- Rb, .P, .O, .PHYS -------------------------------------------------------------- */

/* ALD description: a vertex shader's Rb must be RZ, else the hardware
 * raises ILLEGAL_INSTR_ENCODING: ALD and AST, whatever Rb holds (even 0). */
static void test_vs_rb_rule(void **state) {
  gs_sph vs;
  fix f;
  (void)state;
  vtg(&vs, GS_SPH_VERTEX);
  vs.imap_generic[0][0] = vs.omap_generic[0][0] = 1;
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, 0, 0);
  sass_attr_buf_store(&f.in, 0x80, 5);
  sass_attr_op op = op_of(2, RZ, 3, 0, 0, 0x80); /* Rb = R3, which holds 0 */
  f.r[2] = FILL;
  assert_int_equal(ald(&f, op, NULL), SASS_ATTR_E_VERTEX_RB);
  assert_int_equal(f.r[2], FILL); /* nothing loaded */
  assert_int_equal(ast(&f, op, NULL), SASS_ATTR_E_VERTEX_RB);
  assert_false(gs_sph_attr_has(&f.out.written, 0x80));
  assert_non_null(strstr(sass_attr_error_text(SASS_ATTR_E_VERTEX_RB), "ILLEGAL_INSTR_ENCODING"));
  /* the description's VS example, ALD R0, a[16] without a vertex: legal,
   * and a[16] is no attribute a VS has, so it defaults to 0 */
  f.r[0] = FILL;
  expect_ald(&f, "ALD R0, a[16]", op_imm(0, 0, 16), 0, SASS_ATTR_DEFAULT, 0);
}

/* A GS picks the vertex with Rb (the description's GS example, ALD R0,
 * a[R1], R5); the corrupted-Rb rules: in range, valid (2a); out of range,
 * 0 (3); PRIMITIVE_ID ignores Rb. */
static void test_gs_vertex_handle(void **state) {
  gs_sph vs, gs;
  fix f;
  sass_attr_buf in[3], prim;
  (void)state;
  vtg(&vs, GS_SPH_VERTEX);
  gs_header(&gs);
  gs.imap_generic[0][0] = vs.omap_generic[0][0] = 1;
  gs.imap_primitive_id = 1;
  fix_init(&f, GS_SPH_GEOMETRY, &gs, &vs, NULL, 0, 0);
  for (unsigned v = 0; v < 3; v++) {
    sass_attr_buf_clear(&in[v], FILL);
    sass_attr_buf_store(&in[v], 0x80, 100 + v);
  }
  sass_attr_buf_clear(&prim, 0);
  prim.v[0x60 / 4] = 9; /* the primitive's id, hardware-generated */
  f.io.in = in;
  f.io.nin = 3;
  f.io.prim = &prim;
  sass_attr_op op = op_of(0, 1, 5, 0, 0, 0); /* ALD R0, a[R1], R5 */
  f.r[1] = 0x80;
  for (uint32_t v = 0; v < 3; v++) {
    f.r[5] = v;
    expect_ald(&f, "vertex", op, 0, SASS_ATTR_STORED, 100 + v);
  }
  f.r[5] = 3; /* out of range: 0 */
  f.r[0] = FILL;
  expect_ald(&f, "vertex 3", op, 0, SASS_ATTR_BAD_VERTEX, 0);
  f.r[5] = 0xFFFFFFFFu;
  expect_ald(&f, "vertex -1", op, 0, SASS_ATTR_BAD_VERTEX, 0);
  /* PrimitiveId: Rb ignored even when out of range */
  expect_ald(&f, "PrimitiveId", op_of(0, RZ, 5, 0, 0, 0x60), 0, SASS_ATTR_HW, 9);
  /* Rb = RZ is vertex 0 */
  expect_ald(&f, "Rb = RZ", op_imm(0, 0, 0x80), 0, SASS_ATTR_STORED, 100);
}

/* .P: per-patch space, no IMAP/OMAP so no defaulting, Rb ignored; only in
 * tessellation stages (the description's example ALD.P R0, a[R1+4], R5). */
static void test_patch(void **state) {
  gs_sph vs, gs, tcs, tes;
  fix f;
  sass_attr_buf patch;
  (void)state;
  vtg(&vs, GS_SPH_VERTEX);
  vtg(&tcs, GS_SPH_TESSELLATION_INIT);
  vtg(&tes, GS_SPH_TESSELLATION);
  gs_header(&gs);
  sass_attr_buf_clear(&patch, FILL);
  sass_attr_buf_store(&patch, 0x24, 0x5A5A);
  sass_attr_op ld = op_of(0, 1, 5, 0, SASS_ATTR_P, 4); /* ALD.P R0, a[R1+4], R5 */
  /* TES reads: written word, then an unwritten one (its leftover, no default) */
  fix_init(&f, GS_SPH_TESSELLATION, &tes, &tcs, NULL, 0, 0);
  f.io.patch = &patch;
  f.r[1] = 0x20;
  f.r[5] = 7; /* no such vertex: ignored */
  expect_ald(&f, "TES a[0x24]", ld, 0, SASS_ATTR_STORED, 0x5A5A);
  f.r[1] = 0x28; /* a[0x2C]: .w of a vec4 slot, still no default */
  expect_ald(&f, "TES a[0x2C]", ld, 0, SASS_ATTR_LEFTOVER, FILL);
  /* a TES may not store patch words */
  assert_int_equal(ast(&f, ld, NULL), SASS_ATTR_E_PATCH);
  /* a TCS stores and reads them; Rb ignored */
  fix_init(&f, GS_SPH_TESSELLATION_INIT, &tcs, &vs, &tes, 0, 0);
  f.io.patch = &patch;
  f.r[0] = 0x77;
  f.r[1] = 0x2C;
  f.r[5] = 7;
  assert_int_equal(ast(&f, ld, NULL), 1 << SASS_ATTR_WRITTEN);
  assert_int_equal(patch.v[0x30 / 4], 0x77);
  assert_true(gs_sph_attr_has(&patch.written, 0x30));
  f.r[0] = 0;
  expect_ald(&f, "TCS a[0x30]", ld, 0, SASS_ATTR_STORED, 0x77);
  /* .P outside tessellation: an error, nothing moved */
  ld.rb = RZ;
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, 0, 0);
  f.io.patch = &patch;
  assert_int_equal(ald(&f, ld, NULL), SASS_ATTR_E_PATCH);
  assert_int_equal(ast(&f, ld, NULL), SASS_ATTR_E_PATCH);
  fix_init(&f, GS_SPH_GEOMETRY, &gs, &vs, NULL, 0, 0);
  f.io.patch = &patch;
  assert_int_equal(ald(&f, ld, NULL), SASS_ATTR_E_PATCH);
  assert_int_equal(patch.v[0x30 / 4], 0x77);
}

/* ALD description: .O only in the vertex (VSa, VSb) and tessellation (TI,
 * TS) stages; the SPH description: no ALD.O in a GS. */
static void test_output_read_stages(void **state) {
  gs_sph s;
  fix f;
  (void)state;
  sass_attr_op op = op_of(0, RZ, RZ, 0, SASS_ATTR_O, 0x80);
  static const gs_sph_stage ok[] = {GS_SPH_VERTEX, GS_SPH_TESSELLATION_INIT, GS_SPH_TESSELLATION};
  for (size_t i = 0; i < 3; i++) {
    vtg(&s, ok[i]);
    fix_init(&f, ok[i], &s, NULL, NULL, 0, 0);
    assert_int_equal(ald(&f, op, NULL), 1 << SASS_ATTR_DEFAULT);
  }
  gs_header(&s);
  fix_init(&f, GS_SPH_GEOMETRY, &s, NULL, NULL, 0, 0);
  assert_int_equal(ald(&f, op, NULL), SASS_ATTR_E_OUTPUT);
  op.flags = 0; /* ALD.I is fine */
  assert_int_equal(ald(&f, op, NULL), 1 << SASS_ATTR_DEFAULT);
  /* a PS has no ALD/AST at all */
  ps_header(&s);
  fix_init(&f, GS_SPH_PIXEL, &s, NULL, NULL, 0, 0);
  assert_int_equal(ald(&f, op, NULL), SASS_ATTR_E_STAGE);
  assert_int_equal(ast(&f, op, NULL), SASS_ATTR_E_STAGE);
}

/* .PHYS is the encoding without .P, Ra != RZ and a zero immediate; with
 * Ra != RZ the immediate must be zero. The description's AL2P example:
 *   AL2P.I.64 R0, R1, 12 ; ALD.I.PHYS.64 R2, a[R0]
 * with R1 = 0x84: AL2P gives 0x90 (identity), ALD loads generic 1 .x .y. */
static void test_al2p_phys(void **state) {
  gs_sph vs;
  fix f;
  (void)state;
  assert_int_equal(sass_al2p(0x84, 12), 0x90);
  assert_int_equal(sass_al2p(0x90, -16), 0x80);
  vtg(&vs, GS_SPH_VERTEX);
  vs.imap_generic[1][0] = vs.imap_generic[1][1] = 1;
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, 0, 0);
  sass_attr_buf_store(&f.in, 0x90, 21);
  sass_attr_buf_store(&f.in, 0x94, 22);
  f.r[1] = 0x84;
  f.r[0] = sass_al2p(f.r[1], 12);
  sass_attr_op op = op_of(2, 0, RZ, 1, 0, 0); /* ALD.PHYS.64 R2, a[R0] */
  expect_ald(&f, "ALD.PHYS.64", op, 2, SASS_ATTR_STORED, 21);
  assert_int_equal(f.r[3], 22);
  /* Ra != RZ with a non-zero immediate, without .P */
  op.imm = 4;
  assert_int_equal(ald(&f, op, NULL), SASS_ATTR_E_PHYS);
  assert_int_equal(ast(&f, op, NULL), SASS_ATTR_E_PHYS);
  assert_int_equal(sass_attr_check(&f.c, &op, 0), SASS_ATTR_E_PHYS);
}

/* ---- AST ------------------------------------------------------------------------------ */

/* OMAP'd words are stored, the rest dropped; the NVIDIA headsurface VS's
 * stores (open kernel modules, decoded): AST.64 a[0x300], R8 (texcoord 0 .st,
 * OMAP'd) and AST a[0x78] (position.z, which its OMAP leaves out). */
static const uint32_t nvidia_vs[20] = {0x02000461, 0, 0, 0, 0, 0, 0x00000003, 0x0000000b, 0, 0,
                                       0, 0, 0, 0x0000b000, 0, 0, 0, 0, 0x03330000, 0};

static void test_ast_omap(void **state) {
  gs_sph vs;
  fix f;
  uint8_t oc[4];
  (void)state;
  assert_int_equal(gs_sph_decode(nvidia_vs, &vs, NULL), GS_OK);
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, 0, FILL);
  f.r[8] = 0x3F000000;
  f.r[9] = 0x3E800000;
  assert_int_equal(ast(&f, op_imm(8, 1, 0x300), NULL), 1 << SASS_ATTR_WRITTEN); /* AST.64 a[0x300], R8 */
  assert_int_equal(f.out.v[0x300 / 4], 0x3F000000);
  assert_int_equal(f.out.v[0x304 / 4], 0x3E800000);
  f.r[6] = 0x40400000;
  assert_int_equal(ast(&f, op_imm(6, 0, 0x78), NULL), 1 << SASS_ATTR_DROPPED); /* position.z */
  assert_int_equal(f.out.v[0x78 / 4], FILL);
  assert_false(gs_sph_attr_has(&f.out.written, 0x78));
  /* AST.128 over texcoord 2 .strq: s, t stored, r, q dropped */
  f.r[12] = 1, f.r[13] = 2, f.r[14] = 3, f.r[15] = 4;
  assert_int_equal(ast(&f, op_imm(12, 3, 0x320), oc), (1 << SASS_ATTR_WRITTEN) | (1 << SASS_ATTR_DROPPED));
  assert_int_equal(oc[0], SASS_ATTR_WRITTEN);
  assert_int_equal(oc[1], SASS_ATTR_WRITTEN);
  assert_int_equal(oc[2], SASS_ATTR_DROPPED);
  assert_int_equal(oc[3], SASS_ATTR_DROPPED);
  assert_int_equal(f.out.v[0x324 / 4], 2);
  assert_int_equal(f.out.v[0x328 / 4], FILL);
  /* the same alignment as ALD: .64 from R9 at 0x30C stores R8, R9 at 0x308,
   * 0x30C, which texcoord 0 .rq are not: dropped */
  assert_int_equal(ast(&f, op_imm(9, 1, 0x30C), NULL), 1 << SASS_ATTR_DROPPED);
  /* RZ as the source stores 0: AST a[0x70], RZ */
  assert_int_equal(ast(&f, op_imm(RZ, 0, 0x70), NULL), 1 << SASS_ATTR_WRITTEN);
  assert_int_equal(f.out.v[0x70 / 4], 0);
  /* the VS's loads: ALD.64 R8, a[0x100] (generic 8 .xy) and ALD R12,
   * a[0x10c] (generic 8 .w), from the vertex fetcher */
  sass_attr_buf_store(&f.in, 0x100, 0x11);
  sass_attr_buf_store(&f.in, 0x104, 0x12);
  sass_attr_buf_store(&f.in, 0x10C, 0x14);
  expect_ald(&f, "ALD.64 R8, a[0x100]", op_imm(8, 1, 0x100), 8, SASS_ATTR_STORED, 0x11);
  assert_int_equal(f.r[9], 0x12);
  expect_ald(&f, "ALD R12, a[0x10c]", op_imm(12, 0, 0x10C), 12, SASS_ATTR_STORED, 0x14);
}

/* A TCS writes the output vertex Rb picks; past the patch's vertices the
 * store is dropped. */
static void test_ast_vertices(void **state) {
  gs_sph tcs;
  fix f;
  sass_attr_buf out[3];
  (void)state;
  vtg(&tcs, GS_SPH_TESSELLATION_INIT);
  tcs.omap_generic[0][0] = 1;
  fix_init(&f, GS_SPH_TESSELLATION_INIT, &tcs, NULL, NULL, 0, 0);
  for (unsigned v = 0; v < 3; v++) sass_attr_buf_clear(&out[v], 0);
  f.io.out = out;
  f.io.nout = 3;
  sass_attr_op st = op_of(0, RZ, 4, 0, 0, 0x80);
  f.r[0] = 55;
  f.r[4] = 2;
  assert_int_equal(ast(&f, st, NULL), 1 << SASS_ATTR_WRITTEN);
  assert_int_equal(out[2].v[0x80 / 4], 55);
  assert_int_equal(out[0].v[0x80 / 4], 0);
  f.r[4] = 3;
  assert_int_equal(ast(&f, st, NULL), 1 << SASS_ATTR_BAD_VERTEX);
  /* ALD.O reads it back from vertex 2 (StoreReq range 32..32: 0x80) */
  tcs.store_req_start = tcs.store_req_end = 32;
  assert_int_equal(sass_attr_ctx_init(&f.c, GS_SPH_TESSELLATION_INIT, &tcs, NULL, NULL, NULL), GS_OK);
  f.r[4] = 2;
  expect_ald(&f, "ALD.O vertex 2", op_of(1, RZ, 4, 0, SASS_ATTR_O, 0x80), 1, SASS_ATTR_STORED, 55);
}

/* RZ as a destination: nothing written; a register-major warp view. */
static void test_registers(void **state) {
  gs_sph vs;
  fix f;
  static uint32_t warp[256 * 32];
  uint8_t oc[4];
  (void)state;
  vtg(&vs, GS_SPH_VERTEX);
  for (unsigned k = 0; k < 4; k++) vs.imap_generic[0][k] = 1;
  fix_init(&f, GS_SPH_VERTEX, &vs, NULL, NULL, 0, 0);
  for (unsigned k = 0; k < 4; k++) sass_attr_buf_store(&f.in, 0x80 + 4 * k, 10 + k);
  for (size_t i = 0; i < sizeof warp / sizeof warp[0]; i++) warp[i] = FILL;
  /* lane 5 of 32, register r at warp[r * 32 + 5] */
  sass_regs view = {warp + 5, 32};
  sass_attr_op op = op_imm(RZ, 3, 0x80); /* .128 from R255 -> R252..R255 */
  assert_int_equal(sass_ald(&f.c, &f.io, view, &op, oc), (1 << SASS_ATTR_STORED) | (1 << SASS_ATTR_NO_REG));
  assert_int_equal(warp[252 * 32 + 5], 10);
  assert_int_equal(warp[254 * 32 + 5], 12);
  assert_int_equal(warp[255 * 32 + 5], FILL); /* RZ untouched */
  assert_int_equal(warp[252 * 32 + 4], FILL); /* other lanes untouched */
  assert_int_equal(oc[3], SASS_ATTR_NO_REG);
  op = op_imm(RZ, 0, 0x80);
  assert_int_equal(sass_ald(&f.c, &f.io, view, &op, oc), 1 << SASS_ATTR_NO_REG);
  /* Ra read through the view: .PHYS with R7 = 0x88 */
  warp[7 * 32 + 5] = 0x88;
  op = op_of(3, 7, RZ, 0, 0, 0);
  assert_int_equal(sass_ald(&f.c, &f.io, view, &op, oc), 1 << SASS_ATTR_STORED);
  assert_int_equal(warp[3 * 32 + 5], 12);
}

static void test_ctx_errors(void **state) {
  gs_sph vs, ps;
  sass_attr_ctx c;
  gs_diag d;
  (void)state;
  vtg(&vs, GS_SPH_VERTEX);
  assert_int_equal(sass_attr_ctx_init(&c, GS_SPH_GEOMETRY, &vs, NULL, NULL, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "ShaderType"));
  ps_header(&ps);
  assert_int_equal(sass_attr_ctx_init(&c, GS_SPH_VERTEX, &ps, NULL, NULL, &d), GS_EINVAL);
  ps.shader_type = GS_SPH_VERTEX; /* a PS layout claiming to be a VS */
  assert_int_equal(sass_attr_ctx_init(&c, GS_SPH_VERTEX, &ps, NULL, NULL, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "SphType"));
}

/* ---- IPA ------------------------------------------------------------------------------- */

/* A triangle with clip w (1, 2, 4) and per-vertex values a = (2, 4, 8),
 * sampled at three lanes:
 *   lane 0: λ = (1/4, 1/4, 1/2)
 *     Σλ/w = 1/4 + 1/8 + 1/8 = 1/2, so W = 2;
 *     Perspective: Σλ a/w = 1/2 + 1/2 + 1 = 2 (IPA.PASS), correct a = 2 / (1/2) = 4;
 *     ScreenLinear: Σλ a = 1/2 + 1 + 4 = 5.5;
 *   lane 1: λ = (0, 1, 0), vertex 1: Σλ/w = 1/2, W = 2; a/w = 2, a = 4; linear 4;
 *   lane 2: λ = (0, 0, 1), vertex 2: Σλ/w = 1/4, W = 4; a/w = 2, a = 8; linear 8.
 *   Constant (the last vertex provokes): 8 everywhere.
 * The pipeline's form (isa.h: value = plane × W + offset, offset = a0 = 2):
 *   Perspective plane = Σλ (a_i − a0)/w_i: lane 0 0 + 1/4·2/2 + 1/2·6/4 = 1,
 *     lane 1 2/2 = 1, lane 2 6/4 = 1.5;
 *   ScreenLinear plane = Σλ (a_i − a0) / W: lane 0 3.5/2 = 1.75, lane 1 2/2 = 1,
 *     lane 2 6/4 = 1.5;
 *   Constant: plane 0, offset 8.
 * The PS maps generic 0 .x Perspective, .y ScreenLinear, .z Constant, and
 * generic 1 .w Perspective with a VS that did not write it (the pipeline
 * gives plane 0 and offset 1.0, the default). */
static const float tri_plane[4][16] = {
    {1.0f, 1.0f, 1.5f}, {1.75f, 1.0f, 1.5f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
static const float tri_offset[4] = {2.0f, 2.0f, 8.0f, 1.0f};
static const uint8_t tri_imap[4] = {GS_PIXEL_IMAP_PERSPECTIVE, GS_PIXEL_IMAP_SCREEN_LINEAR,
                                    GS_PIXEL_IMAP_CONSTANT, GS_PIXEL_IMAP_PERSPECTIVE};
static const float tri_w[16] = {2.0f, 2.0f, 4.0f};
static const uint32_t tri_x[16] = {3, 4, 5}, tri_y[16] = {5, 6, 7};
static const uint32_t tri_z[16] = {0x800000, 0, 0xFFFFFF};

static void tri_ps(gs_sph *ps) {
  ps_header(ps);
  ps->imap_generic[0][0] = GS_PIXEL_IMAP_PERSPECTIVE;
  ps->imap_generic[0][1] = GS_PIXEL_IMAP_SCREEN_LINEAR;
  ps->imap_generic[0][2] = GS_PIXEL_IMAP_CONSTANT;
  ps->imap_generic[1][3] = GS_PIXEL_IMAP_PERSPECTIVE;
  ps->omap_target[0][0] = 1;
}

static gs_frag_io tri_io(void) {
  gs_frag_io io;
  memset(&io, 0, sizeof io);
  io.lanes = 16;
  io.mask = 7;
  io.x = tri_x;
  io.y = tri_y;
  io.z = tri_z;
  io.w = tri_w;
  io.nin = 4;
  io.plane = tri_plane;
  io.offset = tri_offset;
  io.imap = tri_imap;
  return io;
}

static uint32_t ipa(const sass_ipa_map *m, const gs_frag_io *io, unsigned lane, unsigned addr, unsigned mode,
                    float rb, int sat) {
  sass_ipa_op op = {(uint16_t)addr, (uint8_t)mode, (uint8_t)sat, 0};
  return sass_ipa(m, io, lane, NULL, &op, fbits(rb));
}

/* The triangle's PS map. */
static void tri_map(sass_ipa_map *m) {
  gs_sph ps;
  tri_ps(&ps);
  assert_int_equal(sass_ipa_map_init(m, &ps, NULL), GS_OK);
}

static void test_ipa_map(void **state) {
  gs_sph vs;
  sass_ipa_map m;
  gs_diag d;
  (void)state;
  tri_map(&m);
  /* generic g component c at 0x080 + 16g + 4c, in the pipeline's order */
  assert_int_equal(m.k[0x80 / 4], 0);
  assert_int_equal(m.k[0x84 / 4], 1);
  assert_int_equal(m.k[0x88 / 4], 2);
  assert_int_equal(m.k[0x9C / 4], 3);
  assert_int_equal(m.k[0x8C / 4], SASS_IPA_NONE);
  assert_int_equal(m.k[0x90 / 4], SASS_IPA_NONE);
  assert_int_equal(m.k[0x300 / 4], SASS_IPA_NONE);
  vtg(&vs, GS_SPH_VERTEX);
  assert_int_equal(sass_ipa_map_init(&m, &vs, &d), GS_EARG);
}

/* The trap and the compiler's pattern: IPA.PASS of a Perspective component
 * is the undivided Σλ a/w; IPA.PASS Rw, a[0x7c]; MUFU.RCP Rw, Rw; IPA Rd,
 * a[attr], Rw is the perspective-correct value. */
static void test_ipa_perspective(void **state) {
  sass_ipa_map m;
  gs_frag_io io = tri_io();
  (void)state;
  tri_map(&m);
  static const float pass[3] = {2.0f, 2.0f, 2.0f}, pw[3] = {0.5f, 0.5f, 0.25f}, correct[3] = {4.0f, 4.0f, 8.0f};
  for (unsigned lane = 0; lane < 3; lane++) {
    assert_int_equal(ipa(&m, &io, lane, 0x80, SASS_IPA_PASS, 0, 0), fbits(pass[lane]));
    uint32_t w = ipa(&m, &io, lane, 0x7C, SASS_IPA_PASS, 0, 0);
    assert_int_equal(w, fbits(pw[lane]));
    float rcp;
    memcpy(&rcp, &w, sizeof rcp);
    rcp = 1.0f / rcp; /* MUFU.RCP of a power of two: exact */
    assert_int_equal(ipa(&m, &io, lane, 0x80, SASS_IPA_MULTIPLY, rcp, 0), fbits(correct[lane]));
  }
  /* the unwritten .w of generic 1: Perspective with plane 0 and offset 1:
   * Σλ a/w = 1/W, and × W gives the default 1.0 */
  assert_int_equal(ipa(&m, &io, 0, 0x9C, SASS_IPA_PASS, 0, 0), fbits(0.5f));
  assert_int_equal(ipa(&m, &io, 0, 0x9C, SASS_IPA_MULTIPLY, 2.0f, 0), ONE);
}

/* IPA results on the triangle, worked out above. */
typedef struct ipa_row {
  const char *what;
  unsigned lane, addr, mode;
  float rb;
  int sat;
  uint32_t want;
} ipa_row;

#define P_ SASS_IPA_PASS
#define M_ SASS_IPA_MULTIPLY
#define C_ SASS_IPA_CONSTANT
static const ipa_row ipa_rows[] = {
    /* ScreenLinear: P = Σλ a (noperspective: IPA.PASS) */
    {"linear lane 0", 0, 0x84, P_, 0, 0, 0x40B00000 /* 5.5 */},
    {"linear lane 1", 1, 0x84, P_, 0, 0, 0x40800000 /* 4 */},
    {"linear lane 2", 2, 0x84, P_, 0, 0, 0x41000000 /* 8 */},
    /* MULTIPLY: P × Rb */
    {"linear x 3", 0, 0x84, M_, 3.0f, 0, 0x41840000 /* 16.5 */},
    {"linear x -0.5", 0, 0x84, M_, -0.5f, 0, 0xC0300000 /* -2.75 */},
    /* a Constant component in CONSTANT mode: the provoking vertex's 8 */
    {"flat lane 0", 0, 0x88, C_, 123.0f, 0, 0x41000000},
    {"flat lane 1", 1, 0x88, C_, 123.0f, 0, 0x41000000},
    {"flat lane 2", 2, 0x88, C_, 123.0f, 0, 0x41000000},
    /* .SAT: clamp to [0, 1]; NaN (via Rb), negatives and -0 give +0 */
    {"sat 5.5", 0, 0x84, P_, 0, 1, ONE},
    {"sat 5.5 x 0.125", 0, 0x84, M_, 0.125f, 1, 0x3F300000 /* 0.6875 */},
    {"sat -5.5", 0, 0x84, M_, -1.0f, 1, 0},
    {"sat NaN", 0, 0x84, M_, NAN, 1, 0},
    {"sat -0", 0, 0x84, M_, -0.0f, 1, 0},
    {"-0 without sat", 0, 0x84, M_, -0.0f, 0, 0x80000000u},
    /* not delivered: the default, whatever the mode */
    {"generic 0 .w Unused", 0, 0x8C, M_, 5.0f, 0, ONE},
    {"generic 1 .x Unused", 0, 0x90, M_, 5.0f, 0, 0},
    {"texcoord 0 .q", 0, 0x30C, P_, 0, 0, ONE},
    {"point sprite s", 0, 0x2E0, P_, 0, 0, 0},
    {"0x400: beyond the space", 0, 0x400, P_, 0, 0, 0},
    {"0xFFFF (.IDX)", 0, 0xFFFF, P_, 0, 0, 0},
    /* the pixel centre: lanes at (3, 5) and (5, 7) */
    {"x lane 0", 0, 0x70, P_, 0, 0, 0x40600000 /* 3.5 */},
    {"y lane 0", 0, 0x74, P_, 0, 0, 0x40B00000 /* 5.5 */},
    {"x lane 2", 2, 0x70, P_, 0, 0, 0x40B00000 /* 5.5 */},
    {"y lane 2 x 2", 2, 0x74, M_, 2.0f, 0, 0x41700000 /* 15 */},
    /* Z = 24-bit Z / (2^24 - 1): 0x800000 gives 0.5 + 0.5/(2^24 - 1), a
     * little over half an ulp (2^-25) above 0.5, so it rounds up */
    {"z lane 0", 0, 0x78, P_, 0, 0, 0x3F000001},
    {"z lane 1", 1, 0x78, P_, 0, 0, 0},
    {"z lane 2", 2, 0x78, P_, 0, 0, ONE},
    {"1/W lane 2", 2, 0x7C, P_, 0, 0, 0x3E800000 /* 0.25 */},
    /* FrontFacing: nouveau turns the sign bit into +-1.0, yuzu reads all
     * ones; an integer, so mode and .SAT leave it */
    {"front facing", 0, 0x3FC, C_, 0, 0, 0xFFFFFFFFu},
    {"front facing, x 2 .SAT", 0, 0x3FC, M_, 2.0f, 1, 0xFFFFFFFFu},
};
#undef P_
#undef M_
#undef C_

static void test_ipa_values(void **state) {
  sass_ipa_map m;
  gs_frag_io io = tri_io();
  (void)state;
  tri_map(&m);
  for (size_t i = 0; i < sizeof ipa_rows / sizeof ipa_rows[0]; i++) {
    const ipa_row *r = &ipa_rows[i];
    uint32_t got = ipa(&m, &io, r->lane, r->addr, r->mode, r->rb, r->sat);
    if (got != r->want) fail_msg("%s: 0x%08x, want 0x%08x", r->what, got, r->want);
  }
}

/* SC: flat shading on is CONSTANT (no multiply), off is MULTIPLY. */
static void test_ipa_sc(void **state) {
  sass_ipa_map m;
  gs_frag_io io = tri_io();
  sass_ipa_op op = {0x88, SASS_IPA_SC, 0, 1};
  (void)state;
  tri_map(&m);
  assert_int_equal(sass_ipa(&m, &io, 0, NULL, &op, fbits(3.0f)), fbits(8.0f));
  op.flat_shade = 0;
  assert_int_equal(sass_ipa(&m, &io, 0, NULL, &op, fbits(3.0f)), fbits(24.0f));
  op.addr = 0x80;
  assert_int_equal(sass_ipa(&m, &io, 0, NULL, &op, fbits(2.0f)), fbits(4.0f));
}

/* A pipeline input whose own PixelImap is Unused reads the default; a
 * back-facing primitive reads FrontFacing 0; PrimitiveId and Layer come
 * from sass_frag_sys (0 without). */
static void test_ipa_lane_state(void **state) {
  static const uint8_t unused_imap[4] = {0, 0, 0, 0};
  sass_ipa_map m;
  gs_frag_io io = tri_io();
  sass_frag_sys sys = {7, 2};
  sass_ipa_op op = {0x060, SASS_IPA_CONSTANT, 0, 0};
  (void)state;
  tri_map(&m);
  assert_int_equal(sass_ipa(&m, &io, 0, &sys, &op, 0), 7);
  op.addr = 0x064;
  assert_int_equal(sass_ipa(&m, &io, 0, &sys, &op, 0), 2);
  assert_int_equal(sass_ipa(&m, &io, 0, NULL, &op, 0), 0);
  io.reverse = 1;
  assert_int_equal(ipa(&m, &io, 0, 0x3FC, SASS_IPA_CONSTANT, 0, 0), 0);
  io.imap = unused_imap;
  assert_int_equal(ipa(&m, &io, 0, 0x80, SASS_IPA_PASS, 0, 0), 0);
  assert_int_equal(ipa(&m, &io, 0, 0x9C, SASS_IPA_PASS, 0, 0), ONE);
}

/* ---- pixel shader outputs --------------------------------------------------------------- */

static const uint32_t nvidia_ps[20] = {0x00001462, 0, 0, 0, 0, 0x80000000, 0, 0, 0, 0,
                                       0, 0, 0, 0, 0, 0x000a0a00, 0, 0, 0x00000007, 0};

static void targets(gs_sph *ps, uint32_t nibbles) {
  for (unsigned i = 0; i < 8; i++)
    for (unsigned c = 0; c < 4; c++) ps->omap_target[i][c] = (uint8_t)(nibbles >> (4 * i + c) & 1);
}

static void test_ps_out_nvidia(void **state) {
  gs_sph ps;
  sass_ps_out o;
  (void)state;
  /* headsurface PS: OmapTarget = 0x7 (RT0 RGB), MrtEnable 0, KillsPixels 0:
   * its colour in R0..R2 (the code's last FADDs write R0, R1, R2) */
  assert_int_equal(gs_sph_decode(nvidia_ps, &ps, NULL), GS_OK);
  assert_int_equal(sass_ps_out_init(&o, &ps, 1, NULL), GS_OK);
  assert_int_equal(o.nrt, 1);
  assert_int_equal(o.rt_reg[0], 0);
  assert_int_equal(o.rt_mask[0], 0x7);
  for (unsigned i = 1; i < 8; i++) assert_int_equal(o.rt_reg[i], SASS_PS_NONE);
  assert_int_equal(o.mrt, 0);
  for (unsigned i = 0; i < 8; i++) {
    assert_int_equal(o.target_reg[i], 0); /* output 0 to every enabled target */
    assert_int_equal(o.target_mask[i], 0x7);
  }
  assert_int_equal(o.depth_reg, SASS_PS_NONE);
  assert_int_equal(o.sample_mask_reg, SASS_PS_NONE);
  assert_int_equal(o.kills_pixels, 0);
  assert_int_equal(o.nregs, 4);
}

typedef struct out_case {
  const char *what;
  uint32_t nibbles;
  int mrt_sph, mrt_state, depth, sample_mask, kill;
  uint8_t nrt, rt_reg[8], target_reg[8], depth_reg, sample_mask_reg, nregs;
} out_case;

#define N_ SASS_PS_NONE
static const out_case out_cases[] = {
    {"one RT, RGBA", 0xF, 1, 1, 0, 0, 0, 1,
     {0, N_, N_, N_, N_, N_, N_, N_}, {0, N_, N_, N_, N_, N_, N_, N_}, N_, N_, 4},
    {"RT0 and RT2, MRT on: RT2 in R4..R7", 0xF0F, 1, 1, 0, 0, 0, 2,
     {0, N_, 4, N_, N_, N_, N_, N_}, {0, N_, 4, N_, N_, N_, N_, N_}, N_, N_, 8},
    {"RT0 and RT2, MrtEnable 0: output 0 everywhere", 0xF0F, 0, 1, 0, 0, 0, 2,
     {0, N_, 4, N_, N_, N_, N_, N_}, {0, 0, 0, 0, 0, 0, 0, 0}, N_, N_, 8},
    {"RT0 and RT2, SetCtMrtEnable 0", 0xF0F, 1, 0, 0, 0, 0, 2,
     {0, N_, 4, N_, N_, N_, N_, N_}, {0, 0, 0, 0, 0, 0, 0, 0}, N_, N_, 8},
    {"one RT and depth: R(4N+1) = R5", 0xF, 1, 1, 1, 0, 1, 1,
     {0, N_, N_, N_, N_, N_, N_, N_}, {0, N_, N_, N_, N_, N_, N_, N_}, 5, N_, 6},
    {"RT0 RGB, RT1 R (partial RTs take 4), mask R8, depth R9", 0x17, 1, 1, 1, 1, 0, 2,
     {0, 4, N_, N_, N_, N_, N_, N_}, {0, 4, N_, N_, N_, N_, N_, N_}, 9, 8, 10},
    {"sample mask only: R(4N) = R4", 0x8, 1, 1, 0, 1, 0, 1,
     {0, N_, N_, N_, N_, N_, N_, N_}, {0, N_, N_, N_, N_, N_, N_, N_}, N_, 4, 5},
    {"depth only, no colour: R1", 0, 1, 1, 1, 0, 0, 0,
     {N_, N_, N_, N_, N_, N_, N_, N_}, {N_, N_, N_, N_, N_, N_, N_, N_}, 1, N_, 2},
    {"RT1 and RT7 only: R0, R4; MRT off gives target 0's (none)", 0x10000010, 0, 0, 0, 0, 0, 2,
     {N_, 0, N_, N_, N_, N_, N_, 4}, {N_, N_, N_, N_, N_, N_, N_, N_}, N_, N_, 8},
    {"eight RTs, depth R33", 0xFFFFFFFF, 1, 1, 1, 1, 0, 8,
     {0, 4, 8, 12, 16, 20, 24, 28}, {0, 4, 8, 12, 16, 20, 24, 28}, 33, 32, 34},
};
#undef N_

static void test_ps_out_cases(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof out_cases / sizeof out_cases[0]; i++) {
    const out_case *e = &out_cases[i];
    gs_sph ps;
    sass_ps_out o;
    ps_header(&ps);
    targets(&ps, e->nibbles);
    ps.mrt_enable = (uint32_t)e->mrt_sph;
    ps.omap_depth = (uint32_t)e->depth;
    ps.omap_sample_mask = (uint32_t)e->sample_mask;
    ps.kills_pixels = (uint32_t)e->kill;
    assert_int_equal(sass_ps_out_init(&o, &ps, e->mrt_state, NULL), GS_OK);
    if (o.nrt != e->nrt || memcmp(o.rt_reg, e->rt_reg, 8) || memcmp(o.target_reg, e->target_reg, 8) ||
        o.depth_reg != e->depth_reg || o.sample_mask_reg != e->sample_mask_reg || o.nregs != e->nregs ||
        o.kills_pixels != e->kill || o.mrt != (e->mrt_sph && e->mrt_state))
      fail_msg("%s: N %u depth R%u mask R%u nregs %u rt_reg %u,%u,%u target_reg %u,%u,%u", e->what, o.nrt,
               o.depth_reg, o.sample_mask_reg, o.nregs, o.rt_reg[0], o.rt_reg[1], o.rt_reg[2], o.target_reg[0],
               o.target_reg[1], o.target_reg[2]);
    for (unsigned t = 0; t < 8; t++)
      assert_int_equal(o.rt_mask[t], e->nibbles >> (4 * t) & 0xF);
  }
  gs_sph vs;
  sass_ps_out o;
  gs_diag d;
  vtg(&vs, GS_SPH_VERTEX);
  assert_int_equal(sass_ps_out_init(&o, &vs, 1, &d), GS_EARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_input_table),
      cmocka_unit_test(test_input_hw_generated),
      cmocka_unit_test(test_output_table),
      cmocka_unit_test(test_store_req_stages),
      cmocka_unit_test(test_defaults_by_address),
      cmocka_unit_test(test_vector_partial),
      cmocka_unit_test(test_alignment),
      cmocka_unit_test(test_out_of_range),
      cmocka_unit_test(test_vs_rb_rule),
      cmocka_unit_test(test_gs_vertex_handle),
      cmocka_unit_test(test_patch),
      cmocka_unit_test(test_output_read_stages),
      cmocka_unit_test(test_al2p_phys),
      cmocka_unit_test(test_ast_omap),
      cmocka_unit_test(test_ast_vertices),
      cmocka_unit_test(test_registers),
      cmocka_unit_test(test_ctx_errors),
      cmocka_unit_test(test_ipa_map),
      cmocka_unit_test(test_ipa_perspective),
      cmocka_unit_test(test_ipa_values),
      cmocka_unit_test(test_ipa_sc),
      cmocka_unit_test(test_ipa_lane_state),
      cmocka_unit_test(test_ps_out_nvidia),
      cmocka_unit_test(test_ps_out_cases),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
