/* isa_qpu.c — the VideoCore IV QPU as a gs_isa (src/isa/isa.h): its
 * context (the cluster of QPUs user programs run on, semaphores, mutex,
 * program cache), its units, and its abi: how a QPU program meets the
 * neutral stage I/O. A QPU program does what it does on the hardware: it
 * reads and writes the VPM itself through its VPM registers, reads the
 * varyings with the varying register (v = VP × W + C, RG §6), finds its
 * pixel in the fragment payload registers (RG Table 29) and writes the tile
 * buffer registers.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "core/clones.h"
#include "gpusim/qpu.h"
#include "isa/debug.h"
#include "isa/qpu/decode.h"
#include "isa/qpu/pred.h"
#include "isa/qpu/link.h"
#include "v3d/v3d.h"

/* ---- assembly ------------------------------------------------------------------ */

static int words_to_bytes(const uint64_t *w, size_t n, uint8_t **out, gs_diag *d) {
  *out = malloc(n ? n * 8 : 1);
  if (!*out) return gs_diag_set(d, GS_ENOMEM, "out of memory");
  gs_put_le64s(*out, w, n);
  return GS_OK;
}

static int assemble(const char *src, const char *file, uint32_t base, gs_isa_binary *out, gs_diag *d) {
  memset(out, 0, sizeof *out);
  uint64_t *words;
  uint32_t *lines;
  size_t n;
  int rc = gs_qpu_asm_lines(src, file, base, &words, &n, &lines, d);
  if (rc < 0) return rc;
  rc = words_to_bytes(words, n, &out->bytes, d);
  out->lines = malloc((n ? n : 1) * sizeof *out->lines);
  if (rc >= 0 && !out->lines) rc = gs_diag_set(d, GS_ENOMEM, "%s: out of memory", file);
  if (rc >= 0) {
    out->size = n * 8;
    out->nlines = n;
    for (size_t i = 0; i < n; i++) out->lines[i] = (gs_isa_line){(uint32_t)(8 * i), lines[i]};
  } else {
    gs_isa_binary_free(out);
  }
  free(words);
  free(lines);
  return rc;
}

static int disassemble(const uint8_t *bytes, size_t size, uint32_t base, char **text, gs_diag *d) {
  if (size % 8)
    return gs_diag_set(d, GS_EINVAL, "%zu bytes is not a whole number of 8-byte QPU instructions", size);
  size_t n = size / 8;
  uint64_t *w = malloc(n ? n * sizeof *w : 1);
  if (!w) return gs_diag_set(d, GS_ENOMEM, "out of memory");
  gs_get_le64s(w, bytes, n);
  int rc = gs_qpu_disasm(w, n, base, text, d);
  free(w);
  return rc;
}

/* What the code does that an SPH gates (isa.h, GS_GATE_*): a VPM DMA start
 * (vr_addr: a load; vw_addr: a global store) or a TMU request (a direct
 * read is a load) needs DoesLoadOrStore; a VDW store DoesGlobalStore; a
 * write to MS_FLAGS OmapSampleMask; a TLB_Z write OmapDepth. */
static unsigned sph_flags(const uint8_t *code, size_t size) {
  unsigned f = 0;
  for (size_t i = 0; i + 8 <= size; i += 8) {
    uint64_t w;
    gs_get_le64s(&w, code + i, 1);
    for (int h = 0; h < 2; h++) {
      if (qpu_is_branch(w) || !qpu_half_writes(w, h)) continue;
      unsigned a = qpu_half_waddr(w, h), side = qpu_half_side(w, h);
      if (a == QPU_W_VPM_ADDR || qpu_waddr_is_tmu(a)) f |= GS_SPH_DOES_LOAD_OR_STORE;
      if (a == QPU_W_VPM_ADDR && side) f |= GS_SPH_DOES_GLOBAL_STORE;
      if (a == QPU_W_MS_REV && !side) f |= GS_SPH_OMAP_SAMPLE_MASK;
      if (a == QPU_W_TLB_Z) f |= GS_SPH_OMAP_DEPTH;
    }
  }
  return f;
}

/* ---- the cluster --------------------------------------------------------------- */

gs_qpu *qpu_new(void) {
  gs_qpu *q = aligned_alloc(64, (sizeof(gs_qpu) + 63) & ~(size_t)63); /* 64-byte-aligned vectors */
  if (q) memset(q, 0, sizeof *q);
  return q;
}

qpu_cluster *qpu_cluster_of(gs_gpu *g) { return g->isa_ctx[GS_ISA_QPU]; }

static void context_free(void *ctx) {
  qpu_cluster *c = ctx;
  if (!c) return;
  for (int i = 0; i < QPU_MAX; i++) free(c->qpu[i]);
  qpu_cache_free(c->cache);
  free(c);
}

static void *context_new(gs_gpu *g) {
  if (g->cfg.qpus <= 0 || g->cfg.qpus > QPU_MAX) g->cfg.qpus = QPU_MAX;
  qpu_cluster *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->mutex_owner = -1;
  c->cache = qpu_cache_new();
  int ok = c->cache != NULL;
  for (int i = 0; ok && i < QPU_MAX; i++) {
    ok = (c->qpu[i] = qpu_new()) != NULL;
    if (ok) c->qpu[i]->num = i;
  }
  if (!ok) {
    context_free(c);
    return NULL;
  }
  return c;
}

/* ---- units ------------------------------------------------------------------------ */

/* What a fragment program's words say about its batches (plan_program),
 * kept per prepared program. */
typedef struct frag_plan {
  uint32_t reads; /* GS_FRAG_READS_*: the inputs it reads (gs_isa.fragment_reads) */
  /* Quiet: straight-line code (no branch) that touches no state of the QPU
   * a batch leaves behind but its registers, flags, pc, counters, uniform
   * stream position, busy word and payload: no VPM, TMU, mutex or
   * semaphore, no write to the payload's x, y or REV_FLAG. */
  bool quiet;
  /* For a quiet program: the register slots a batch may read before it
   * writes them in every lane (so it sees the previous batch's value) that
   * a batch of it may change: what each batch restores (qpu_copy_quiet).
   * ra15 and rb15, which the batch reads only as W and Z (reads), are not
   * in it: the renderer hands them over with every batch. */
  uint64_t restore[2];
} frag_plan;

/* The abi's callbacks (below). */
static int fs_varying(void *ctx, gs_qpu *q, gs_vec *vp, gs_vec *c);
static int fs_tlb_write(void *ctx, gs_qpu *q, unsigned addr, const gs_vec *v, uint16_t lanes);
static int fs_tlb_load(void *ctx, gs_qpu *q, unsigned sig, gs_vec *r4);

struct gs_isa_unit {
  gs_qpu *q;       /* the QPU that runs the batches */
  gs_vpm *vpm;     /* the worker's VPM */
  gs_diag *diag;   /* the worker's errors */
  int num;         /* QPU number in messages */
  /* A QPU as qpu_reset leaves it for (code, uniforms), with the unit's
   * diag and VPM: copying it is much cheaper than resetting for every batch
   * of 16 fragments. A fragment run also gives it the fields its batches
   * share (fresh_frag), which a vertex batch must not inherit. */
  gs_qpu *fresh;
  gs_stage_program fresh_prog;
  uint64_t fresh_budget;
  bool fresh_valid, fresh_frag;
  bool q_ready;    /* q's small-immediate slots are set */
  qpu_frag_ctx frag; /* a fragment batch's varyings and tile port (qpu_frag_begin) */
  qpu_shader_io sio;
  /* plan_program's answer for the prepared program reads_prog of cache
   * generation reads_gen (a program is freed only when the generation
   * changes, so the pair names one program's words) */
  const qpu_program *reads_prog;
  unsigned reads_gen;
  frag_plan plan;
  /* A quiet program (frag_plan) that q ran to its end, batch after batch,
   * since it was last restarted whole (restart): the next batch of it need
   * only restore what frag_plan.restore says (qpu_copy_quiet). NULL: q
   * must be restarted whole. */
  const qpu_program *q_quiet;
};

static void unit_free(gs_isa_unit *u) {
  if (!u) return;
  free(u->q);
  free(u->fresh);
  free(u);
}

static gs_isa_unit *unit_new(gs_gpu *g, int num, struct gs_vpm *vpm, gs_diag *diag) {
  (void)g;
  gs_isa_unit *u = calloc(1, sizeof *u);
  if (!u) return NULL;
  u->num = num, u->vpm = vpm, u->diag = diag;
  u->q = qpu_new();
  u->fresh = qpu_new();
  u->sio = (qpu_shader_io){&u->frag, fs_varying, fs_tlb_write, fs_tlb_load, NULL};
  if (!u->q || !u->fresh) {
    unit_free(u);
    return NULL;
  }
  return u;
}

static uint64_t watchdog(const gs_gpu *g) { return g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG; }

/* Makes u->fresh the state programs of p start from: as qpu_reset leaves
 * it, with the uniform stream ending at p->unif_end, its errors in u->diag
 * and its VPM u->vpm. frag: for a fragment run, which then sets its own
 * fields in it. */
static void fresh_for(gs_gpu *g, gs_isa_unit *u, const gs_stage_program *p, bool frag) {
  uint64_t budget = watchdog(g);
  if (u->fresh_valid && u->fresh_frag == frag && memcmp(&u->fresh_prog, p, sizeof *p) == 0 &&
      u->fresh_budget == budget)
    return;
  gs_qpu *f = u->fresh;
  qpu_reset(f, u->num, p->code, p->uniforms, budget);
  f->unif_end = p->unif_end;
  f->diag = u->diag;
  f->vpm.mem = u->vpm;
  f->entry = p->code;
  u->fresh_prog = *p, u->fresh_budget = budget;
  u->fresh_valid = true, u->fresh_frag = frag;
  u->q_quiet = NULL;
}

/* Leaves u->q as u->fresh. */
static gs_qpu *restart(gs_isa_unit *u) {
  u->q_quiet = NULL;
  if (u->q_ready) {
    qpu_copy_state(u->q, u->fresh);
  } else {
    uint8_t trust = u->q->hint_trust; /* qpu_trust_code's setting, which qpu_copy_state keeps too */
    memcpy(u->q, u->fresh, sizeof *u->q);
    qpu_trust_code(u->q, trust);
    u->q_ready = true;
  }
  return u->q;
}

/* Leaves u->q exactly as qpu_reset would for p, with the uniform stream
 * ending at p->unif_end, its errors in u->diag and its VPM u->vpm; the
 * callers set gates, stage and report. */
static gs_qpu *unit_reset(gs_gpu *g, gs_isa_unit *u, const gs_stage_program *p) {
  fresh_for(g, u, p, false);
  gs_qpu *q = restart(u);
  q->entry = p->code; /* before `busy`: qpu_copy_state may leave the last run's */
  return q;
}

static int prepare(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  gs_stage_program p = {code, 0, 0};
  gs_qpu *q = unit_reset(g, u, &p);
  return qpu_find(g, q, code) ? GS_OK : qpu_diag(g, q)->code;
}

static void trust_code(gs_isa_unit *u, int on) { qpu_trust_code(u->q, on); }

/* ---- the abi: vertex and coordinate stages ------------------------------------------ */

static int run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *io) {
  gs_qpu *q = unit_reset(g, u, &io->prog);
  q->vpm.mem = io->vpm;
  q->gates = io->gates, q->report = io->report;
  q->stage = io->stage == GS_STAGE_COORDINATE ? "coordinate shader" : "vertex shader";
  qpu_vpm_set_window(q, io->in_row, io->in_rows);
  qpu_vpm_set_write_window(q, io->out_row, io->out_rows);
  q->vpm.wr_seen = 0;
  int rc = g->debug && gs_debug_wants_vertex(g, io) ? qpu_debug_run(g, q, 0) : qpu_run_to_end(g, q);
  if (rc >= 0 && io->out_rows && io->out_rows <= 64) {
    uint64_t all = io->out_rows == 64 ? ~(uint64_t)0 : ((uint64_t)1 << io->out_rows) - 1;
    uint64_t missing = all & ~q->vpm.wr_seen;
    if (missing) { /* the PSE or the binner reads those rows: 0, where the chip has a stale batch's words */
      unsigned row = 0;
      while (!(missing >> row & 1)) row++;
      qpu_exception(q, "row %u of its %u-row output segment was never written (it reads 0)%s", row, io->out_rows,
                    io->stage == GS_STAGE_COORDINATE ? ""
                    : row >= 3 ? ": does the program write every varying the shader declares?" : "");
    }
  }
  return rc;
}

/* ---- the abi: the fragment stage ------------------------------------------------------ */


static int fs_varying(void *ctx, gs_qpu *q, gs_vec *vp, gs_vec *c) {
  qpu_frag_ctx *f = ctx;
  if (f->next_vary >= f->io->nin)
    return qpu_fault(f->g, q, GS_EHANG, "varying read %u, but the primitive sets up only %u (the read would wait "
                     "forever)", f->next_vary + 1, f->io->nin);
  unsigned k = f->next_vary++;
  float off = f->io->offset[k];
  for (int i = 0; i < QPU_LANES; i++) {
    vp->f[i] = f->io->plane[k][i];
    c->f[i] = off;
  }
  return GS_OK;
}

#if defined(__GNUC__)
#define QPU_COLD __attribute__((noinline, cold))
#else
#define QPU_COLD
#endif

/* The TLB register writes fs_tlb_write does not pass straight on: a Z
 * write without OmapDepth, a colour write without a target, stencil setup
 * and the VG alpha mask. Out of line, so that the common ones need no
 * stack frame. */
static QPU_COLD int fs_tlb_write_other(qpu_frag_ctx *f, gs_qpu *q, unsigned addr, const gs_vec *v, uint16_t lanes) {
  const gs_tile_port *t = f->io->tile;
  switch (addr) {
  case QPU_W_TLB_STENCIL: t->stencil_setup(t->ctx, v->u[0]); return GS_OK;
  case QPU_W_TLB_Z: /* the rasterised Z, whatever the program wrote */
    for (int i = 0; i < QPU_LANES; i++)
      if ((lanes >> i & 1) && v->u[i] != f->io->z[i]) {
        qpu_exception(q, "a TLB_Z write of 0x%06x in lane %d, not the rasterised Z 0x%06x, but the program's SPH has "
                      "OmapDepth 0: the rasterised Z is tested", v->u[i], i, f->io->z[i]);
        break;
      }
    t->z_write(t->ctx, f->io->z, q->payload[QPU_PAYLOAD_MS].u, lanes);
    return GS_OK;
  case QPU_W_TLB_COLOUR_MS:
  case QPU_W_TLB_COLOUR_ALL:
    qpu_exception(q, "a colour write, but the program's SPH maps no component of OmapTarget[0]: dropped");
    return GS_OK;
  default:
    return qpu_fault(f->g, q, GS_EINVAL, "write to the VG alpha mask (register 47): not modelled by gpusim, as "
                     "113's VG mask buffer is not (docs/pipeline.md)");
  }
}

/* A TLB register write; coverage is the MS_FLAGS payload, which a Z write
 * updates for the colour writes after it (RG §5). The Z and colour writes
 * the program's gates allow, which come with every batch, go straight to
 * the port. */
static int fs_tlb_write(void *ctx, gs_qpu *q, unsigned addr, const gs_vec *v, uint16_t lanes) {
  qpu_frag_ctx *f = ctx;
  if (qpu_tlb_port_write(f->io->tile, q, addr, v, lanes)) return GS_OK;
  return fs_tlb_write_other(f, q, addr, v, lanes);
}

static int fs_tlb_load(void *ctx, gs_qpu *q, unsigned sig, gs_vec *r4) {
  qpu_frag_ctx *f = ctx;
  if (sig == QPU_SIG_LOADC || sig == QPU_SIG_LDCEND) {
    f->io->tile->colour_load(f->io->tile->ctx, r4->u);
    return GS_OK;
  }
  return qpu_fault(f->g, q, GS_EINVAL, "%s: coverage and alpha-mask loads (signals 7 and 12) are not modelled by "
                   "gpusim, as coverage mode and the VG mask buffer are not (docs/pipeline.md)",
                   sig == QPU_SIG_LOADCV ? "loadcv" : "loadam");
}

/* Sets pl from the prepared words of p, once per prepared program.
 * reads (gs_isa.fragment_reads): ra15 (W), rb15 (Z), the payload's x or y
 * (address 41 of either file), the varying register (35), from the read
 * addresses of every instruction (a read port performs its read whether or
 * not an ALU input selects it). A branch may leave the program, so a
 * program with one reads everything and is not quiet. restore: walking the
 * straight-line code in order, a slot is read before it is written when an
 * instruction reads it (its read addresses, and the accumulators its ALU
 * inputs select: qpu_acc_reads) before an earlier one wrote it whole in
 * every lane: r0-r3 and r5 as qpu_acc_full_writes says, readable by the
 * next instruction; a physical register by an unconditional write without
 * a pack, readable two instructions later (RG §3); r4, filled late by the
 * SFU and the signals, never counts as written. Of those, the slots the
 * program may write (its write mask) and r4 and r5 (which the SFU, the
 * signals and the varyings fill), less ra15 and rb15. */
static void plan_program(const qpu_program *p, frag_plan *pl) {
  uint32_t n = (p->end - p->start) / 8, r = 0;
  bool quiet = true;
  uint64_t read[2] = {0, 0};
  uint32_t from[QREG_READ_A]; /* the instruction from which slot s holds a value this batch wrote */
  for (unsigned s = 0; s < QREG_READ_A; s++) from[s] = UINT32_MAX;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t w = p->words[i];
    if (qpu_is_branch(w)) r = GS_FRAG_READS_ALL, quiet = false;
    unsigned a = qpu_raddr(w, 0), b = qpu_raddr(w, 1);
    if (a == 15) r |= GS_FRAG_READS_W;
    if (b == 15) r |= GS_FRAG_READS_Z;
    if (a == QPU_R_XY_COORD || b == QPU_R_XY_COORD) r |= GS_FRAG_READS_XY;
    if (a == QPU_R_VARY || b == QPU_R_VARY) r |= GS_FRAG_READS_VARYINGS;
    unsigned sig = qpu_signal(w);
    if (qpu_is_semaphore(w) || sig == QPU_SIG_LDTMU0 || sig == QPU_SIG_LDTMU1 || a == QPU_R_VPM || b == QPU_R_VPM ||
        qpu_reads_mutex(w))
      quiet = false;
    /* what it reads */
    unsigned slots[8], ns = 0;
    if (a < 32) slots[ns++] = QREG_RA0 + a;
    if (b < 32) slots[ns++] = QREG_RB0 + b;
    for (unsigned k = 0, acc = qpu_acc_reads(w); k < 6; k++)
      if (acc >> k & 1) slots[ns++] = QREG_R0 + k;
    for (unsigned k = 0; k < ns; k++)
      if (from[slots[k]] > i) read[slots[k] / 64] |= 1ull << (slots[k] % 64);
    /* what it writes */
    for (unsigned k = 0, acc = qpu_acc_full_writes(w) & 0x2fu; k < 6; k++)
      if ((acc >> k & 1) && from[QREG_R0 + k] > i + 1) from[QREG_R0 + k] = i + 1;
    for (int h = 0; h < 2; h++) {
      if (!qpu_half_writes(w, h)) continue;
      unsigned wa = qpu_half_waddr(w, h), side = qpu_half_side(w, h);
      if (wa == QPU_W_QUAD_XY || (wa == QPU_W_MS_REV && side) || (wa >= QPU_W_VPM && wa <= QPU_W_MUTEX_RELEASE) ||
          qpu_waddr_is_tmu(wa))
        quiet = false;
      unsigned s = (side ? QREG_RB0 : QREG_RA0) + wa;
      if (wa < 32 && qpu_half_cond(w, h) == 1 && !qpu_get(w, QPU_F_PACK) && from[s] > i + 2) from[s] = i + 2;
    }
  }
  uint64_t may[2] = {p->wmask[0] | 1ull << QREG_R4 | 1ull << QREG_R5, p->wmask[1]};
  pl->reads = r;
  pl->quiet = quiet;
  pl->restore[0] = read[0] & may[0] & ~(1ull << (QREG_RA0 + 15) | 1ull << (QREG_RB0 + 15));
  pl->restore[1] = read[1] & may[1];
}

/* The plan of p, which qpu_find just returned for u->q. */
static const frag_plan *plan_of(gs_isa_unit *u, const qpu_program *p) {
  if (p != u->reads_prog || u->q->hint_gen != u->reads_gen) {
    plan_program(p, &u->plan);
    u->reads_prog = p, u->reads_gen = u->q->hint_gen;
  }
  return &u->plan;
}

/* gs_isa.fragment_reads: plan_program's reads. */
static uint32_t fragment_reads(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  if (g->debug) return GS_FRAG_READS_ALL;
  u->q->diag = u->diag; /* an error (the run reports it again) stays the worker's */
  const qpu_program *p = qpu_find(g, u->q, code);
  return p ? plan_of(u, p)->reads : GS_FRAG_READS_ALL;
}

/* The fragment payload: W in ra15, Z in rb15, x, y, MS_FLAGS and REV_FLAG
 * in the payload registers (RG Table 29), W, Z, x and y only when the
 * program reads them (io->ignores; qpu_copy_state leaves ra15 and rb15 as
 * reset, 0, for one that does not). What the batches share (the program,
 * its gates, the facing, the callbacks) goes into u->fresh once, so that
 * each batch's copy of it brings them; each batch then gets its own
 * payload.
 *
 * A quiet program (frag_plan) with the fast interpreter and without the
 * step debugger is found once a call, with its plan, and each batch after
 * its first whole restart only restores what the plan says
 * (qpu_copy_quiet) and runs from the program's first micro-op; while
 * exec.c has no native code for it and counts no more runs
 * (qpu_interpreted), the interpreter alone runs the call's batches back
 * to back (qpu_run_batches). A quiet program writes no memory, so the
 * code found at the call's start stays the code.
 *
 * Any other program restarts whole for each batch. After the first batch,
 * u->fresh then also brings the program it found (and the registers it may
 * write, which finding it adds to dirty), so that the others do not look it
 * up again while the code is trusted (trust_code, on around a primitive's
 * batches) and no batch's VDW store has written memory since it was
 * compared (hint_checked). */
GS_CLONES static int run_fragment(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *io, unsigned n, unsigned *ran) {
  fresh_for(g, u, &io->prog, true);
  gs_qpu *f = u->fresh;
  const char *stage = "fragment shader";
  f->gates = io->gates, f->report = io->report, f->stage = stage;
  f->shader_io = &u->sio;
  uint32_t rev = io->reverse;
  for (int l = 0; l < QPU_LANES; l++) f->payload[QPU_PAYLOAD_REV].u[l] = rev;
  u->frag.g = g;
  gs_qpu *q = u->q;
  /* before `busy`: qpu_copy_state brings these from u->fresh only after a
   * regfile write, and leaves q's otherwise */
  q->gates = io->gates, q->report = io->report, q->stage = stage, q->entry = io->prog.code;
  const uint32_t ign = io->ignores;
  const qpu_program *p = NULL; /* the quiet program, found once */
  const qpu_uop *start = NULL;  /* its first micro-op at the entry */
  const frag_plan *plan = NULL;
  uint32_t chunk = 0;
  bool interpreted = false;
  if (!g->debug && g->cfg.interpreter != GS_INTERP_REFERENCE) {
    q->diag = u->diag; /* an error (the first batch reports it again) stays the worker's */
    p = qpu_find(g, q, io->prog.code);
    plan = p ? plan_of(u, p) : NULL;
    if (!plan || !plan->quiet || (ign & plan->reads & (GS_FRAG_READS_W | GS_FRAG_READS_Z | GS_FRAG_READS_XY)))
      p = NULL, plan = NULL;
    if (u->q_quiet != p) u->q_quiet = NULL;
    if (p) {
      interpreted = qpu_interpreted(p);
      start = qpu_uop_at(p, io->prog.code);
      uint64_t c = f->budget < UINT32_MAX ? f->budget : UINT32_MAX;
      chunk = (uint32_t)(c - c % QPU_QUANTUM);
      /* what a whole restart would bring and the batches keep */
      q->shader_io = &u->sio;
      q->payload[QPU_PAYLOAD_REV] = f->payload[QPU_PAYLOAD_REV];
    }
  }
  int rc = GS_OK;
  unsigned i = 0;
  qpu_batches bs = {NULL, io + n - 1, ign, &u->sio, f, plan ? plan->restore : NULL, p, start};
  for (; i < n && rc >= 0; i++) {
    const gs_frag_io *b = &io[i];
    if (p && u->q_quiet == p) {
      qpu_copy_quiet(q, f, plan->restore);
    } else {
      q = restart(u);
      if (p) { /* as the interpreter's first look at the pc would */
        q->prog = p;
        q->dirty[0] |= p->wmask[0], q->dirty[1] |= p->wmask[1];
      }
    }
    qpu_frag_begin(q, &u->sio, b, ign);
    if (p) {
      /* the interpreter runs this batch and those after it to their ends
       * (qpu_run_batches) in quanta of QPU_QUANTUM instructions, as
       * qpu_run_to_end_in_env would, the first `chunk` (a multiple of the
       * quantum no larger than the budget, or 0) at once since none of
       * them can end in the watchdog; a stall, or the rest of a longer
       * run, go on through qpu_run_to_end_in_env where the batch stopped */
      rc = QPU_STEP_OK;
      if (chunk && interpreted) {
        bs.io = b;
        rc = qpu_run_batches(g, q, chunk, &bs);
        i = (unsigned)(bs.io - io);
      }
      if (rc == QPU_STEP_END) q->state = QPU_ENDED, rc = GS_OK;
      else if (rc >= 0) rc = qpu_run_to_end_in_env(g, q);
      u->q_quiet = rc >= 0 ? p : NULL;
      continue;
    }
    rc = g->debug && gs_debug_wants_fragment(g, b, 1) ? qpu_debug_run(g, q, 1) : qpu_run_to_end_in_env(g, q);
    const qpu_program *fp = q->prog;
    if (!q->hint_checked) /* a VDW store may have written code: find it again (qpu_trust_code) */
      f->prog = NULL;
    else if (!f->prog && rc >= 0 && !g->debug && fp && fp == q->hint && io->prog.code >= fp->start &&
             io->prog.code < fp->end) {
      f->prog = fp;
      f->dirty[0] |= fp->wmask[0], f->dirty[1] |= fp->wmask[1];
    }
  }
  f->prog = NULL; /* found again by the next call, which may follow a change of the code */
  q->shader_io = NULL; /* (u->fresh keeps them: fresh_frag) */
  u->sio.port = NULL;
  *ran = rc < 0 ? i - 1 : n;
  return rc;
}

const gs_isa gs_isa_qpu = {
    .name = "qpu",
    .id = GS_ISA_QPU,
    .title = "VideoCore IV QPU",
    .lanes = QPU_LANES,
    .code_align = 8,
    .bench_fragment = "    mov tlb_z, rb15\n"
                      "    ldi r0, 0xff336699\n"
                      "    mov tlb_colour_all, r0\n"
                      "    thrend\n"
                      "    nop\n"
                      "    nop\n",
    .assemble = assemble,
    .disassemble = disassemble,
    .context_new = context_new,
    .context_free = context_free,
    .unit_new = unit_new,
    .unit_free = unit_free,
    .prepare = prepare,
    .trust_code = trust_code,
    .fp_env = qpu_fp_env,
    .idle = qpu_cache_trim,
    .run_vertex = run_vertex,
    .run_fragment = run_fragment,
    .sph_flags = sph_flags,
    .link_fragment = qpu_link_fragment,
    .fragment_reads = fragment_reads,
};
