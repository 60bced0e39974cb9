/* decode.h — preparing QPU programs for the fast interpreter: each
 * instruction is decoded and validated once and predecoded into micro-ops
 * whose operands are indices into gs_qpu.reg[]; prepared programs are cached
 * per context by code address and content.
 *
 * The fast interpreter handles the common instruction shapes itself and
 * hands every other instruction (rotations, the float16, 8888 and saturating
 * regfile-A packs, semaphores, rare signals) to the reference interpreter, so both always agree on what an
 * instruction means; tests run whole programs through both and compare.
 */
#ifndef GS_QPU_DECODE_H
#define GS_QPU_DECODE_H

#include <stdint.h>
#include "isa/qpu/qpu.h"
#include "isa/uop/uop.h"

typedef struct qpu_cache qpu_cache;

/* Micro-ops: the lane micro-op layer's (src/isa/uop/uop.h) over the 16
 * lanes of gs_qpu.reg[], whose conditions are the QPU's write conditions
 * (never, always, zs, zc, ns, nc, cs, cc: masks Z, N, C), plus the QPU's
 * own kinds below. The ADD and MUL ALUs' operations are the layer's
 * integer and no-NaN float kinds; the byte-vector operations, flags, I/O,
 * signals and control flow are the QPU's.
 *
 * A program is one stream of micro-ops: each instruction's, then UOP_NEXT,
 * which does the end-of-instruction bookkeeping and falls through to the
 * next instruction's, so the run loop dispatches micro-ops only and looks
 * an instruction up by its pc only after a jump (UOP_LEAVE ends the stream:
 * the pc has left the program). */
enum {
  UOP_V8ADDS = GS_UOP_ISA, /* reg[d] = per-byte operation on reg[a], reg[b] (alu.h) */
  UOP_V8SUBS,
  UOP_V8MULD,
  UOP_V8MIN,
  UOP_V8MAX,
  UOP_UNPACK,      /* reg[d] = unpack mode `op` of reg[a] for a float (side 1) or integer consumer (alu.h) */
  UOP_IO_READ,     /* reg[d] = I/O read of address `addr` in file `side` */
  UOP_FLAGS_ADD,   /* new flags from ADD op `op`: result reg[d], operands reg[a], reg[b], lanes cond */
  UOP_FLAGS_MUL,   /* new flags from MUL op `op` */
  UOP_SETF,        /* the new flags take effect (after the instruction's writes) */
  UOP_STAGE,       /* stage bits imm of reg[a] for regfile slot d under cond (read-after-write latency) */
  UOP_IO_WRITE,    /* I/O write of reg[a] to address `addr` on side `side` under cond */
  UOP_TLB_WRITE,   /* the same to a tile-buffer address, straight to the shader's tlb_write */
  UOP_LDTMU,       /* signal ldtmu<side> */
  UOP_SIGNAL,      /* signal `op`: the tile-buffer loads into r4 (loadc, ldcend, loadcv, loadam) */
  UOP_THREND,      /* thread end after two delay slots */
  UOP_BRANCH,      /* branch: condition `cond` (branch codes), see exec.c */
  UOP_MAY_BLOCK,   /* stall unless word `imm` of the program can start (mutex read) */
  UOP_SLOW,        /* the whole instruction: run by the reference interpreter */
  UOP_NEXT,        /* end of an instruction; op QPU_NEXT_END_NOPS: see below */
  UOP_LEAVE,       /* after the last instruction: find the program at the pc */
  UOP_COUNT
};

/* UOP_NEXT's op when its instruction signals a thread end (thrend,
 * ldcend) and the two instructions after it, its delay slots, are in the
 * program with no micro-op but their UOP_NEXT (nops): the fast interpreter
 * may then do all three ends at once (exec_run.h). */
enum { QPU_NEXT_END_NOPS = 1 };

/* Operands name slots of gs_qpu.reg[] by their byte offset, slot *
 * sizeof(gs_vec), as the layer wants (the predecoder works with slot
 * numbers and converts them last; a branch's operands are its fields). */
typedef gs_uop qpu_uop;

typedef struct qpu_pinsn {
  uint32_t first_uop; /* index into program uops */
} qpu_pinsn;

typedef struct qpu_program {
  uint32_t start, end;       /* bus addresses [start, end) */
  uint64_t *words;           /* the code as prepared, to detect changes */
  qpu_pinsn *insns;          /* one per word */
  qpu_uop *uops;             /* the stream, ending in UOP_LEAVE */
  gs_vec *consts;            /* load-immediate values */
  uint32_t nconsts;
  uint64_t wmask[2];         /* regfile slots (gs_qpu.reg) some instruction may write */
  /* native code (exec.c, src/isa/uop/jit.h): runs counted until hot, then the code */
  _Atomic unsigned runs;
  struct gs_jit_code *_Atomic jit;
} qpu_program;

/* The first micro-op of the instruction at pc, which is in p. */
static inline const qpu_uop *qpu_uop_at(const qpu_program *p, uint32_t pc) {
  return p->uops + p->insns[(pc - p->start) >> 3].first_uop;
}

qpu_cache *qpu_cache_new(void);
void qpu_cache_free(qpu_cache *c);

/* Records the error of an instruction fetch at pc that is not 8-byte
 * aligned or not in allocated memory, naming the QPU and pc; when the word
 * before pc is in memory, the message says the program ran past its last
 * instruction without a thread end. Returns GS_EFAULT. Both interpreters
 * use it. */
int qpu_fetch_fault(gs_gpu *g, const gs_qpu *q, uint32_t pc);
/* GS_OK unless the 8 bytes w fetched at pc start a driver program's header
 * (gpusim/driver.h: GS_DRV_PROGRAM_MAGIC, the code's length, an allocation
 * of exactly the header and the code): headers are never code, so a
 * program that fell into one from the end of its own allocation ran past
 * its last instruction without a thread end, which the error (GS_EFAULT)
 * says. Both interpreters check each program start (fast) or word (reference). */
int qpu_check_fetch(gs_gpu *g, const gs_qpu *q, uint32_t pc, const uint8_t *w);

/* Returns the prepared program starting at pc, preparing (and caching) it if
 * needed; NULL with an error in g if the code at pc cannot be fetched. */
const qpu_program *qpu_prepare(gs_gpu *g, gs_qpu *q, uint32_t pc);
/* The same, but first tries q's hint — the program q last found — without
 * taking the cache's lock (its code is compared with memory), so that
 * rendering threads shading batch after batch of one program do not
 * contend for the lock. */
const qpu_program *qpu_find(gs_gpu *g, gs_qpu *q, uint32_t pc);
/* Frees programs retired because their code changed and forgets every
 * hint. Call only when no QPU runs (end of gs_v3d_run, gs_qpu_run_user). */
void qpu_cache_trim(gs_gpu *g);

/* The reference interpreter: executes the one instruction at q->pc.
 * Returns QPU_STEP_OK, QPU_STEP_STALL (nothing changed; try again later),
 * QPU_STEP_END (thread end retired) or a negative error. exec_ref.c */
int qpu_step_ref(gs_gpu *g, gs_qpu *q);

/* The fast interpreter: executes up to `max` instructions of q, adding the
 * number executed to q->instructions. Same results as qpu_step_ref. exec.c */
int qpu_run_fast(gs_gpu *g, gs_qpu *q, uint32_t max);
/* The same, when the caller has set the host's denormal flushing (and the
 * rounding mode) already, as qpu_fp_env gives: it does not read MXCSR. */
int qpu_run_fast_in_env(gs_gpu *g, gs_qpu *q, uint32_t max);
/* qpu_run_fast (qpu_run_fast_in_env when in_env) that lets a stretch of
 * native code started before `max` instructions run to its end, fewer than
 * GS_JIT_RUN_STEPS instructions past it, which touch nothing but q's
 * registers and flags (the scheduler's quanta: sched.c). */
int qpu_run_fast_over(gs_gpu *g, gs_qpu *q, uint32_t max, int in_env);

/* A fragment batch as the shader's callbacks (isa_qpu.c) see it. */
typedef struct qpu_frag_ctx {
  gs_gpu *g;
  const gs_frag_io *io; /* the batch running */
  unsigned next_vary;
} qpu_frag_ctx;

/* Hands batch b to q: its payload (W, Z, x and y only when the program
 * reads them: ign, b->ignores), and to the shader's callbacks sio (q's,
 * whose ctx is a qpu_frag_ctx) its varyings and tile port, whose batch it
 * begins. */
static inline void qpu_frag_begin(gs_qpu *q, qpu_shader_io *sio, const gs_frag_io *b, uint32_t ign) {
  qpu_frag_ctx *f = sio->ctx;
  f->io = b, f->next_vary = 0;
  sio->port = b->tile;
  b->tile->begin(b->tile->ctx);
  /* whole 64-byte vectors: memcpy of a constant size compiles to a few
   * vector moves, where a lane loop over five arrays does not vectorise */
  if (!(ign & GS_FRAG_READS_W)) memcpy(q->reg[QREG_RA0 + 15].f, b->w, sizeof(gs_vec));
  if (!(ign & GS_FRAG_READS_Z)) memcpy(q->reg[QREG_RB0 + 15].u, b->z, sizeof(gs_vec));
  if (!(ign & GS_FRAG_READS_XY)) {
    memcpy(q->payload[QPU_PAYLOAD_X].u, b->x, sizeof(gs_vec));
    memcpy(q->payload[QPU_PAYLOAD_Y].u, b->y, sizeof(gs_vec));
  }
  memcpy(q->payload[QPU_PAYLOAD_MS].u, b->cov, sizeof(gs_vec));
}

/* Batches of a quiet fragment program (isa_qpu.c, run_fragment) for the
 * fast interpreter alone to run back to back (qpu_run_batches). */
typedef struct qpu_batches {
  const gs_frag_io *io, *last; /* the batch running (begun: qpu_frag_begin), the last */
  uint32_t ign;                /* what the batches do not read (qpu_frag_begin) */
  qpu_shader_io *sio;          /* q's shader_io */
  const gs_qpu *fresh;         /* what each batch after the first restores */
  const uint64_t *restore;     /* from it (qpu_copy_quiet) */
  const qpu_program *p;        /* the program */
  const qpu_uop *start;        /* its first micro-op at the entry, where a batch starts */
} qpu_batches;

/* Runs the batches of b from b->io, which q starts as b->fresh restored
 * (qpu_copy_quiet or a whole copy) and begun, with the fast interpreter
 * alone (as qpu_run_interp_in_env runs one), each from b->start (or where
 * the pc says, when q->prog is no longer b->p: the batch before ran off
 * its end) with a budget of `max` instructions: at a batch's thread end
 * the next one restores (qpu_copy_quiet), begins (qpu_frag_begin) and
 * runs.
 * Returns QPU_STEP_END when the last one has ended, else what the run of
 * b->io, which it leaves begun, returned: QPU_STEP_OK at the budget,
 * QPU_STEP_STALL or an error. exec.c */
int qpu_run_batches(gs_gpu *g, gs_qpu *q, uint32_t max, qpu_batches *b);

#endif
