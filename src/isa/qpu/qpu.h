/* qpu.h — internal model of one VideoCore IV QPU: its register array, flags,
 * pipeline latencies and the per-QPU state of the units it talks to.
 *
 * Every operand the interpreters touch lives in one 64-byte-aligned array of
 * 16-lane vectors, reg[], so that predecoded micro-ops name operands by index
 * (no pointers that alias) and the compiler can vectorise each lane loop.
 */
#ifndef GS_QPU_QPU_H
#define GS_QPU_QPU_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "core/fpmode.h"
#include "gpusim/gpu.h"
#include "isa/isa.h"
#include "isa/qpu/table.h"
#include "isa/qpu/unit_io.h"

#define QPU_LANES 16
#define QPU_ALL_LANES 0xFFFFu
#define QPU_MAX 12 /* QPUs of a VideoCore IV (V3D_IDENT1: 3 slices of 4) */

/* A 16-lane vector of 32-bit values. */
typedef union gs_vec {
  uint32_t u[QPU_LANES];
  int32_t i[QPU_LANES];
  float f[QPU_LANES];
} gs_vec;

/* Slots of gs_qpu.reg[]. */
enum {
  QREG_R0 = 0,          /* accumulators r0..r5 at 0..5 */
  QREG_R4 = 4,
  QREG_R5 = 5,
  QREG_RA0 = 8,         /* regfile A at 8..39 */
  QREG_RB0 = 40,        /* regfile B at 40..71 */
  QREG_READ_A = 72,     /* value of an I/O read through raddr_a this instruction */
  QREG_READ_B = 73,     /* value of an I/O read through raddr_b this instruction */
  QREG_UNPACK_A_ADD = 74, /* regfile-A value unpacked for the ADD ALU */
  QREG_UNPACK_A_MUL = 75, /* ... for the MUL ALU */
  QREG_UNPACK_R4 = 76,  /* r4 unpacked (pm=1) */
  QREG_ADD_OUT = 77,    /* ADD ALU result before write-back */
  QREG_MUL_OUT = 78,    /* MUL ALU result before write-back */
  QREG_TMP = 79,        /* scratch for the interpreters */
  QREG_SMALL_IMM0 = 80, /* small immediates 0..47 (constant) at 80..127 */
  QREG_COUNT = 128
};

enum { QPU_IDLE = 0, QPU_RUNNING, QPU_ENDED, QPU_FAILED };

/* Return values of the per-QPU step functions (besides negative errors). */
enum { QPU_STEP_OK = 0, QPU_STEP_STALL = 1, QPU_STEP_END = 2 };

/* A regfile write waiting for its read-after-write latency: written by
 * instruction N, readable from instruction N+2 (RG §3, instruction restrictions). */
typedef struct qpu_pending_write {
  alignas(64) gs_vec v;
  uint32_t bytes;   /* bits of each lane that the write changes (pack) */
  uint16_t lanes;   /* lanes whose condition passed */
  uint8_t reg;      /* slot in reg[] */
} qpu_pending_write;

struct qpu_program; /* prepared program, decode.h */
struct gs_qpu;

/* What a shader stage connects a QPU to: the pipeline's varyings and tile
 * buffer (the QPU does not know the pipeline; the pipeline fills
 * this in). NULL for user programs, which have neither. */
typedef struct qpu_shader_io {
  void *ctx;
  /* The next varying: VP per lane into *vp and C per lane into *c; r5
   * receives C at the end of the reading instruction (RG §6). */
  int (*varying)(void *ctx, struct gs_qpu *q, gs_vec *vp, gs_vec *c);
  /* A write to a tile-buffer register, QPU_W_TLB_STENCIL..QPU_W_TLB_ALPHA_MASK. */
  int (*tlb_write)(void *ctx, struct gs_qpu *q, unsigned addr, const gs_vec *v, uint16_t lanes);
  /* A tile-buffer load signal (loadcv, loadc, ldcend, loadam): the value for r4. */
  int (*tlb_load)(void *ctx, struct gs_qpu *q, unsigned sig, gs_vec *r4);
  /* The batch's tile port, or NULL: the Z and colour writes the gates
   * allow go straight to it (qpu_tlb_port_write), the others to tlb_write. */
  const gs_tile_port *port;
} qpu_shader_io;

/* Fragment payload registers (RG Table 29): read at 41/42 of
 * regfile A/B, written at the same addresses. */
enum { QPU_PAYLOAD_X = 0, QPU_PAYLOAD_Y, QPU_PAYLOAD_MS, QPU_PAYLOAD_REV };

typedef struct gs_qpu {
  alignas(64) gs_vec reg[QREG_COUNT];
  /* Regfile writes of the previous instruction, committed at the end of
   * the current one; writes of the current one are staged in `next`. */
  qpu_pending_write pend[2], next[2];
  /* What the program's SPH lets it do (GS_GATE_*, isa/isa.h; qpu_reset:
   * everything), and where its exceptions go (qpu_exception). Set after
   * each reset or copy; qpu_copy_state copies them only with pend[]. */
  uint32_t gates;
  uint32_t entry;                 /* the program's first instruction, for messages */
  const char *stage;              /* "vertex shader", ...; NULL for user programs */
  struct gs_isa_report *report;   /* NULL: exceptions are only dropped */
  /* What the end of an instruction has to do besides moving the pc, in
   * one word so that the fast interpreter tests all of it with one load
   * (`busy` is zero when there is nothing): staged regfile writes, the
   * SFU and r5 latencies, branch and thread-end delay slots. */
  union {
    struct {
      uint8_t npend, nnext;
      /* SFU result: lands in r4 when sfu_delay counts down to 0 (readable
       * by the third instruction after the SFU write). */
      int8_t sfu_delay;
      /* r5 after a varying read: C lands at the end of the reading instruction. */
      int8_t r5_pending;
      int8_t branch_delay; /* >0: delay-slot instructions left before the jump */
      int8_t end_delay;    /* >0: delay-slot instructions left before thread end */
      uint8_t unused_[2];  /* zero: part of `busy` */
    };
    uint64_t busy;
  };
  alignas(64) gs_vec sfu_result;
  alignas(64) gs_vec r5_next;

  uint16_t zf, nf, cf;   /* flags, one bit per lane */

  uint32_t pc;           /* bus address of the next instruction */
  uint32_t branch_target;
  int8_t state;          /* QPU_IDLE / RUNNING / ENDED / FAILED */
  int8_t host_interrupt;
  int num;               /* QPU number 0..11 */
  uint32_t unif_addr;    /* address of the next uniform */
  uint32_t unif_base;    /* start of the uniform stream (for unif_addr_rel) */
  /* End of the stream the driver wrote for this shader (a read at or past
   * it is an error naming the QPU and pc), or 0: no limit, as on the
   * hardware, which reads on into whatever memory follows. Only the
   * pipeline sets it, from gs_v3d_options.unif_streams; a write to the
   * uniforms address (not relative to the stream) clears it. */
  uint32_t unif_end;
  uint64_t instructions; /* executed so far */
  uint64_t budget;       /* watchdog limit */

  const struct qpu_program *prog; /* prepared code containing pc */
  /* The program qpu_find found last, and the cache generation it belongs
   * to; qpu_copy_state keeps the destination's. */
  const struct qpu_program *hint;
  unsigned hint_gen;
  /* hint_trust: set by qpu_trust_code. hint_checked: the hint's code was
   * compared with memory while trusting, so qpu_find takes it as it is. */
  uint8_t hint_trust, hint_checked;
  /* Register slots that may differ from the state this QPU was last
   * reset or copied to (bit i: reg[i]): the write masks of the programs
   * the fast interpreter ran, or all after a reference-interpreter step.
   * qpu_copy_state copies only these and QPU_ALWAYS_DIRTY. */
  uint64_t dirty[2];

  const qpu_shader_io *shader_io; /* NULL for user programs */
  gs_diag *diag;                  /* where errors go; NULL: the context's (gs_gpu_diag) */
  alignas(64) gs_vec payload[4];  /* QPU_PAYLOAD_*: x, y, MS flags, reverse flag */

  qpu_vpm_state vpm;     /* VPM / VCD / VDW setups and read FIFO of this QPU (unit_io.h) */
  qpu_tmu_state tmu[2];  /* TMU request and result FIFOs (unit_io.h); last (qpu_copy_state) */
} gs_qpu;

/* A tile-buffer write the program's gates allow, a Z write (OmapDepth)
 * or a colour write (a target), passed to the port t with the coverage of
 * the MS_FLAGS payload, which the Z write updates for the colour writes
 * after it (RG §5): 1; any other write: 0, nothing done. Both the shader's
 * tlb_write (isa_qpu.c) and the fast interpreter's tile-buffer micro-op
 * (exec_run.h) take this path. */
static inline int qpu_tlb_port_write(const gs_tile_port *t, gs_qpu *q, unsigned addr, const gs_vec *v,
                                     uint16_t lanes) {
  if (addr == QPU_W_TLB_Z && (q->gates & GS_GATE_DEPTH)) {
    t->z_write(t->ctx, v->u, q->payload[QPU_PAYLOAD_MS].u, lanes);
    return 1;
  }
  if ((addr == QPU_W_TLB_COLOUR_ALL || addr == QPU_W_TLB_COLOUR_MS) && (q->gates & GS_GATE_COLOUR)) {
    t->colour_write(t->ctx, addr == QPU_W_TLB_COLOUR_ALL, v->u, q->payload[QPU_PAYLOAD_MS].u, lanes);
    return 1;
  }
  return 0;
}

/* Where end_delay sits in the busy word, for a test of "nothing but a
 * thread end's delay slots" (exec.c's finish_busy): the byte order decides. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define QPU_BUSY_END_SHIFT_OK 1
#define QPU_BUSY_END_SHIFT (8 * (offsetof(gs_qpu, end_delay) - offsetof(gs_qpu, busy)))
/* the busy word with nothing but end_delay = n */
#define qpu_busy_end(n) ((uint64_t)(n) << QPU_BUSY_END_SHIFT)
#else
#define QPU_BUSY_END_SHIFT_OK 0
#endif

/* What the QPUs of one context share (the QPU's gs_isa context, isa_qpu.c):
 * the QPUs that run user programs, the semaphores and the mutex (RG §3), the
 * program cache (decode.c). */
typedef struct qpu_cluster {
  uint8_t sem[16];      /* semaphore counts 0..15 */
  int mutex_owner;      /* QPU number holding the mutex, -1 if free */
  struct qpu_cache *cache;
  gs_qpu *qpu[QPU_MAX];
} qpu_cluster;

/* The cluster of context g. */
qpu_cluster *qpu_cluster_of(gs_gpu *g);

/* A QPU with all-zero state (64-byte aligned), or NULL. free() releases it. */
gs_qpu *qpu_new(void);

/* ---- I/O (io.c): reads and writes of the registers at addresses 32..63 ---
 * These are shared by both interpreters. They return GS_OK, QPU_STEP_STALL
 * or a negative error (the message, naming the QPU and pc, is in g). */

/* True if the instruction word w cannot start now (semaphore, mutex). */
int qpu_io_would_block(gs_gpu *g, gs_qpu *q, uint64_t w);
/* Performs the read of address addr (>= 32) of regfile `file` (0 A, 1 B). */
int qpu_io_read(gs_gpu *g, gs_qpu *q, int file, unsigned addr, gs_vec *out);
/* Performs a write to address addr (>= 32; accumulators excluded) through
 * the `side` port (0 A, 1 B) for the lanes in `lanes`. */
int qpu_io_write(gs_gpu *g, gs_qpu *q, int side, unsigned addr, const gs_vec *v, uint16_t lanes);
/* Semaphore instruction (sig 14, type 4). */
int qpu_io_semaphore(gs_gpu *g, gs_qpu *q, uint64_t w);
/* Signals that touch units: ldtmu0/1 (r4 <- result), TLB loads. */
int qpu_io_signal(gs_gpu *g, gs_qpu *q, unsigned sig);
/* Pops the next uniform. */
int qpu_uniform_pop(gs_gpu *g, gs_qpu *q, uint32_t *out);

/* Where q's errors go: its own diag (a rendering thread's) or the context's. */
static inline gs_diag *qpu_diag(gs_gpu *g, const gs_qpu *q) { return q->diag ? q->diag : gs_gpu_diag(g); }

/* Records an error "QPU <n> at pc 0x<pc>: <message>" in qpu_diag(g, q);
 * returns code. */
int qpu_fault(gs_gpu *g, const gs_qpu *q, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Records an exception (a broken SPH gate: the operation is dropped) in
 * q->report: "<stage> at 0x<entry>, QPU <n> pc 0x<pc>: <message>". */
void qpu_exception(const gs_qpu *q, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Resets q to start a program at code with uniforms. */
void qpu_reset(gs_qpu *q, int num, uint32_t code, uint32_t uniforms, uint64_t budget);

/* Runs the program q was reset to, alone, until thread end (shaders: the
 * caller resets q, then sets shader_io, payload and registers). A stall is a
 * deadlock error, a runaway program a watchdog error. sched.c */
int qpu_run_to_end(gs_gpu *g, gs_qpu *q);

/* The host floating-point environment qpu_run_to_end runs a shader in,
 * from `base` (core/fpmode.h): the rounding mode g asks for, and with the
 * fast interpreter denormals flushed. sched.c */
gs_fp_env qpu_fp_env(const gs_gpu *g, gs_fp_env base);
/* qpu_run_to_end for a caller that has set qpu_fp_env itself (gs_fp_env_set)
 * around many shaders: the run neither reads nor writes the environment,
 * which is what costs when a shader is short. Same results. */
int qpu_run_to_end_in_env(gs_gpu *g, gs_qpu *q);
/* With on, finding the program again (qpu_find, decode.h) compares the
 * code of q's hint with memory once, and then takes the hint without
 * comparing (about 100 host instructions a call, most of a batch's lookup)
 * until qpu_trust_code is called again or q stores to memory itself
 * (qpu_vpm_dma_store). decode.c The caller vouches that no
 * one else writes the code meanwhile: the renderer, for the fragment
 * shading of one primitive, during which only the fragment shaders can
 * write memory (another tile's thread writing this one's code would make
 * the image depend on timing anyway). qpu_copy_state keeps the setting. */
void qpu_trust_code(gs_qpu *q, int on);

/* Makes dst behave as src, where src is a state fresh from
 * qpu_reset (all registers zero) and dst was last reset, or wholly copied
 * from such a state, or made by this function: only the registers dst may
 * have changed since (dst->dirty and QPU_ALWAYS_DIRTY0) are copied, and the
 * small-immediate slots never are; nor are TMU result FIFO entries, which
 * nothing reads once the FIFO is empty; nor are staged regfile writes when
 * dst wrote no regfile register. A renderer resets a QPU for every batch
 * of 16 fragments; this copies a few hundred bytes of registers instead of
 * 5 KB. */
void qpu_copy_state(gs_qpu *dst, const gs_qpu *src);

/* Makes dst start a batch of a quiet fragment program (isa_qpu.c) as a
 * whole qpu_copy_state from src would, as far as the program can tell,
 * where src is the fresh state dst was last wholly copied from, or one
 * that differs from it only in the scalars below, and dst has since run
 * only batches of that program to their ends: the register slots in
 * restore (those a batch may read before writing them), the busy word and
 * the scalars from the flags to the budget (flags, pc, state, uniform
 * stream, instruction count). The rest a quiet program changes is never
 * read before it is set again (the staged writes, the SFU and r5 results
 * behind a zero busy word) or set by the renderer for each batch (the
 * payload, ra15 and rb15); dirty keeps counting every slot that differs. */
static inline void qpu_copy_quiet(gs_qpu *dst, const gs_qpu *src, const uint64_t restore[2]);

/* The scheduler's quantum: a QPU runs this many instructions at a time
 * (sched.c), and a lone shader's watchdog is checked after each. */
#define QPU_QUANTUM 256

/* The fast interpreter alone, never native code, for a caller that knows
 * that exec.c leaves q's program to it (qpu_interpreted): as
 * qpu_run_fast_in_env. exec.c */
int qpu_run_interp_in_env(gs_gpu *g, gs_qpu *q, uint32_t max);
/* Whether exec.c runs p through the interpreter for good: no native code
 * for it, and no run of it left to count towards compiling it. */
int qpu_interpreted(const struct qpu_program *p);

/* dst's register slots in mask (bit i: reg[i]) from src. */
static inline void qpu_copy_slots(gs_qpu *dst, const gs_qpu *src, const uint64_t mask[2]) {
  for (int h = 0; h < 2; h++)
    for (uint64_t m = mask[h]; m; m &= m - 1) {
      unsigned slot = (unsigned)(64 * h + __builtin_ctzll(m));
      dst->reg[slot] = src->reg[slot];
    }
}

_Static_assert(offsetof(gs_qpu, zf) < offsetof(gs_qpu, budget) && offsetof(gs_qpu, budget) < offsetof(gs_qpu, prog),
               "qpu_copy_quiet's scalars run from zf to the budget");

/* (inline: a few moves for the fill program, once a batch) */
static inline void qpu_copy_quiet(gs_qpu *dst, const gs_qpu *src, const uint64_t restore[2]) {
  qpu_copy_slots(dst, src, restore);
  dst->busy = src->busy;
  memcpy(&dst->zf, &src->zf, offsetof(gs_qpu, prog) - offsetof(gs_qpu, zf));
}

/* Slots qpu_copy_state always copies: r4 and r5 (written by the SFU, TMU,
 * TLB loads, varyings and r5quad/r5rep, not tracked), ra15 and rb15 (the
 * renderer writes the W and Z payload there directly). The rest a program
 * may write is in its write mask (decode.c: regfile and accumulator
 * destinations, and the slots the fast interpreter's micro-ops write). */
#define QPU_ALWAYS_DIRTY0 \
  (1ull << QREG_R4 | 1ull << QREG_R5 | 1ull << (QREG_RA0 + 15) | 1ull << (QREG_RB0 + 15))

/* Commits staged regfile writes at the end of an instruction and counts the
 * SFU latency down; shared by both interpreters. */
void qpu_retire(gs_qpu *q);

#endif
