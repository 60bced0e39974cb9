/* exec.h — the Apple AGX (G13) reference interpreter: one SIMD group of 32
 * threads (lanes) through decoded instructions (agx.h), one instruction at
 * a time for every active lane, with the numerics of num.h.
 *
 * REGISTERS. Each lane has 256 16-bit halves (r0l r0h .. r127l r127h); a
 * 32-bit register is two halves (low first), a 64-bit pair four. Only the
 * halves below the declared register count (nregs, in halves) may be
 * touched; any other access is an error naming the pc. 256 32-bit uniform
 * registers (512 halves) are shared and read only. Special registers come
 * from get_sr: thread_index_in_simdgroup (52), is_active_thread (63) and
 * the active-thread counts (58, 59) are the group's own; the others are
 * asked of the sr callback (an error without one).
 *
 * CONTROL FLOW, exactly as Dougall Johnson's applegpu models it (checked
 * on an M1) and Mesa's compiler uses it: r0l, the low half of r0, is each
 * lane's nesting counter (0 active; k > 0 inactive, k pops from active),
 * an ordinary register otherwise. The exec mask is recomputed, as
 * exec = (r0l == 0) over the present lanes, only by if/else/while (icmp
 * and fcmp forms) and pop_exec, which update r0l in every present lane,
 * active or not (n the nest field, cond the lane's compare):
 *   if       r0l != 0: r0l += n;  else r0l = cond ? 0 : 1
 *   else     r0l == 0: r0l = n;  r0l == 1: r0l = cond ? 0 : 1;  else kept
 *   while    r0l < n: r0l = cond ? 0 : n;  else kept
 *   pop_exec r0l = max(0, r0l - n)
 * (r0l wraps at 16 bits). Every other instruction acts in the active lanes
 * only: an inactive lane neither reads nor writes (a write to r0l such as
 * mov_imm r0l, 0 changes the counter, not the mask). jmp_exec_any and
 * jmp_exec_none jump the whole group, by a byte offset from their own
 * address, when any / no lane is active. stop ends the group (whatever
 * the mask: what the hardware does with inactive lanes is unpublished;
 * docs/agx-run.md); trap is an error.
 *
 * MEMORY. load/store go through the mem callback, one element at a time;
 * a refused access is an error naming the pc, the lane and the address. A
 * register a load writes is pending until the wait of its group (a or b);
 * reading it before is an error (the hardware would read a stale value).
 *
 * TEXTURES. smpf asks the tex callback once for the active lanes (2D only):
 * each lane's coordinates (s, t) from its 32-bit register pair, the lod
 * operand as a float (0 for auto_lod), the texture and sampler state
 * indices; it returns four channels (f32 bits) a lane. The channels of the
 * mask are written, in order, to the destination run (a 16-bit run gets
 * them rounded to binary16), and are pending until the wait of the
 * instruction's group, exactly as a load's. docs/agx-run.md, "Textures".
 */
#ifndef GS_ISA_AGX_EXEC_H
#define GS_ISA_AGX_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "isa/agx/agx.h"

enum { AGX_LANES = 32, AGX_HALVES = 256, AGX_UHALVES = 512, AGX_UVS_WORDS = 64, AGX_CFS = 256 };

/* Device memory: reads (write = 0) or writes n bytes at address addr from
 * or to buf; returns 0, or nonzero when the access is outside memory. */
typedef int (*agx_mem_fn)(void *ctx, uint64_t addr, void *buf, unsigned n, int write);
/* Special register sr of lane: returns 0 and *v, or nonzero when the
 * caller does not provide it. */
typedef int (*agx_sr_fn)(void *ctx, unsigned lane, unsigned sr, uint32_t *v);

struct agx_state;
/* One smpf's request: the lanes it samples, what each gives. */
typedef struct agx_tex_req {
  const struct agx_state *s; /* the group (its uniforms, for a sampler that reads them) */
  uint32_t pc;               /* the smpf's byte address */
  unsigned ts, ss;           /* texture state tsN, sampler state ssN */
  unsigned dim;              /* dimension code (agx_dim_name: 2 = 2d) */
  unsigned lod_mode;         /* 0 auto_lod; 1, 5 auto_lod_bias; 2, 6 lod_min (the lod itself) */
  uint32_t lanes;            /* the lanes sampled: the active ones */
  uint32_t x[AGX_LANES], y[AGX_LANES]; /* per lane: the coordinates, f32 bits */
  uint32_t lod[AGX_LANES];   /* per lane: the bias or lod, f32 bits (auto_lod: 0) */
} agx_tex_req;
/* Samples q's lanes into out[lane][0..3] (R, G, B, A as f32 bits; the
 * other lanes are not read). Returns 0, or a negative GS_E* code with the
 * reason in d (the interpreter prefixes the pc). */
typedef int (*agx_tex_fn)(void *ctx, const agx_tex_req *q, uint32_t out[][4], gs_diag *d);

typedef struct agx_state {
  uint16_t r[AGX_LANES][AGX_HALVES]; /* r[lane][half] */
  uint16_t u[AGX_UHALVES];           /* uniform halves, read only */
  uint32_t present;                  /* lanes that exist (bit i: lane i) */
  uint32_t exec;                     /* active lanes (a subset of present) */
  unsigned nregs;                    /* declared register count in halves (0 = 256) */
  uint8_t pending[AGX_HALVES];       /* 1 + wait group of an outstanding load into this half, 0 none */
  uint32_t pc;                       /* byte address of the next instruction */
  uint64_t steps;                    /* instructions run */
  int stopped;                       /* 1 after stop */
  /* Vertex outputs: st_var stores a 32-bit word of the lane's unified
   * vertex store (UVS); var_done has the lanes that ran their last st_var
   * (or no_var), after which another is an error. */
  uint32_t uvs[AGX_LANES][AGX_UVS_WORDS];
  uint64_t uvs_written[AGX_LANES];   /* bit i: word i stored */
  uint32_t var_done;
  /* Fragment inputs: coefficient register N is the plane (A, B, C), f32
   * bits, of one varying component over the group's primitive: value =
   * A x + B y + C with x, y the pixel centre relative to its 32 x 32 tile
   * (iter, iterproj, ldcf; the pixel from sr80/sr81). */
  uint32_t cf[AGX_CFS][3];
  /* Fragment outputs, per lane: the samples sample_mask/zs_emit killed
   * and those whose depth/stencil test they triggered (bit i: sample i;
   * 255 means every sample whatever the count), the depth (f32 bits) and
   * stencil zs_emit wrote, and the lanes that ran zs_emit. */
  uint8_t killed[AGX_LANES], tested[AGX_LANES];
  uint32_t depth[AGX_LANES];
  uint16_t stencil[AGX_LANES];
  uint32_t zs_done;
  agx_mem_fn mem;
  void *mem_ctx;
  agx_sr_fn sr;
  void *sr_ctx;
  agx_tex_fn tex; /* smpf's sampler; NULL: smpf is an error */
  void *tex_ctx;
} agx_state;

/* A decoded program: insn[k] at byte address sum of insn[0..k-1].len. */
typedef struct agx_program {
  const agx_instr *insn;
  size_t n;
} agx_program;

/* s zeroed, with lanes 0..lanes-1 present and active, every register 0. */
void agx_state_init(agx_state *s, unsigned lanes);

/* 32-bit register N (halves 2N, 2N+1) of lane, and back. */
uint32_t agx_reg32(const agx_state *s, unsigned lane, unsigned n);
void agx_set_reg32(agx_state *s, unsigned lane, unsigned n, uint32_t v);
/* 32-bit uniform N, and setting it. */
void agx_set_unif32(agx_state *s, unsigned n, uint32_t v);

/* Runs from the instruction at byte address entry until stop, the end of
 * the program (falling off it is an error: the hardware runs on into
 * whatever follows) or an error (GS_E*, naming the pc): an instruction the
 * interpreter does not run, a register beyond the declared count, a jump
 * into the middle of an instruction or out of the program, a refused
 * memory access, a read before its load's wait, trap, the budget
 * (instructions of the group). */
int agx_run_ref(agx_state *s, const agx_program *p, uint32_t entry, uint64_t budget, gs_diag *d);
/* One instruction of agx_run_ref at s->pc (the caller set s->pc to the
 * entry and stopped to 0 before the first; the rounding mode is the
 * caller's: agx_run_nearest's): 0 it ran, 1 it was stop, or the error
 * agx_run_ref would give. (The shader debugger's step, isa/debug.h.) */
int agx_step_ref(agx_state *s, const agx_program *p, uint64_t budget, gs_diag *d);

/* ---- the fast interpreter ---------------------------------------------------------
 *
 * EQUIVALENCE (what tests/test_agx_exec.c's random programs check, bit for
 * bit): agx_run_fast leaves the state, the result and the message exactly
 * as agx_run_ref would on the same program, state, entry and budget. */
typedef struct agx_fast agx_fast;
/* Prepares p (which must outlive the result) for agx_run_fast. */
int agx_fast_compile(const agx_program *p, agx_fast **out, gs_diag *d);
void agx_fast_free(agx_fast *f);
int agx_run_fast(agx_state *s, const agx_fast *f, uint32_t entry, uint64_t budget, gs_diag *d);
/* agx_run_fast, in native code once f is hot (src/isa/uop/jit.h's policy:
 * gs_jit_threshold() runs of this function, compiled in the background
 * unless gs_jit_sync()) when agx_native_policy is on: the same state,
 * result and message. Without GS_JIT, or with the policy off, agx_run_fast. */
int agx_run_native(agx_state *s, const agx_fast *f, uint32_t entry, uint64_t budget, gs_diag *d);
/* A fragment group's outputs (frag.c's epilog) as rows: rows[N][lane] is
 * 32-bit register rN's word of lane (agx_reg32), for N < 8 and lanes
 * 0..15. */
typedef uint32_t agx_rows[8][16];
/* agx_run_native from byte 0 for a group of at most 16 lanes, in the
 * caller's rounding mode, which must be round to nearest (the AGX unit's
 * gs_isa.fp_env, the environment run_fragment runs in), that on success
 * hands the registers rN named by want (bit N, N < 8; the other bits ask
 * for nothing) back in rows, as
 * agx_rows_of would read them from the state agx_run_native leaves; s->r's
 * halves of those registers are then unspecified (the fast interpreter
 * keeps them out of its transposes back to s). Everything else, and on an
 * error everything, as agx_run_native. */
int agx_run_rows(agx_state *s, const agx_fast *f, uint64_t budget, gs_diag *d, uint32_t want, agx_rows rows);
/* What agx_run_rows finds for each run but the pending halves, the same
 * for every group of a fragment call (the program, s->nregs): 1 when a run
 * of f from byte 0 on s with no half pending goes through the fast
 * interpreter, 0 through the reference whole. */
int agx_rows_fast(const agx_state *s, const agx_fast *f);
/* agx_run_rows for a state with no half pending (a group as frag.c's
 * group_reset leaves it), fast as agx_rows_fast(s, f) said: without its
 * per-run checks. */
int agx_run_rows_clean(agx_state *s, const agx_fast *f, int fast, uint64_t budget, gs_diag *d, uint32_t want,
                       agx_rows rows);
/* The runs of one fragment call (frag.c) in a file kept between them
 * (agx_frame: one a unit), so that what every group of the call shares is
 * set up once (the constant vectors of the program and the uniforms, the
 * native policy) and the registers asked for need not be copied: they are
 * handed back as pointers into the file. agx_frame_new: NULL when out of
 * memory. */
typedef struct agx_frame agx_frame;
agx_frame *agx_frame_new(void);
void agx_frame_free(agx_frame *fr);
/* Readies fr for runs of f (which must outlive them) on groups with s's
 * uniforms, which must not change until the next agx_frame_begin; every
 * group run until then must start with the same registers (frag.c's: 0).
 * A program that reads nothing a group has of its own (no memory,
 * textures, coefficient registers, special registers but the lane number,
 * tile or fragment outputs, varyings, barriers) then leaves the same
 * result in each group with the same present and active lanes: after a
 * run that kept its registers in the file (clean, the rows all there),
 * such a group gets that run's result without running again. */
void agx_frame_begin(agx_frame *fr, const agx_state *s, const agx_fast *f);
/* agx_run_rows_clean(s, f, 1, ...) for fr's f (agx_rows_fast said 1): the
 * same result, message and state, but on success *rows is an array of 8
 * whose element N, for the N of want (N < 8), points at the 16 words of
 * rN, valid until fr's next run or begin. On success *clean says whether
 * the run left s->r as it found it (the registers went no further than
 * the file: frag.c's group_reset need not clear them again); else it is 0. */
int agx_run_frame(agx_state *s, agx_frame *fr, uint64_t budget, gs_diag *d, uint32_t want,
                  const uint32_t *const **rows, int *clean);
/* The registers rN named by want (N < 8) of lanes 0..15 of s, as rows. */
void agx_rows_of(const agx_state *s, uint32_t want, agx_rows rows);
/* Whether agx_run_native compiles: on = 1 or 0 sets it, -1 only asks. Off
 * by default (every AGX micro-op is a call of the escape in the compiled
 * code, slower than the interpreter's loop); the environment variable
 * GPUSIM_JIT_AGX=on turns it on at start. Always 0 without GS_JIT. */
int agx_native_policy(int on);
/* Whether agx_run_fast takes the AVX2 copy of its loop (1) or the build's
 * own (0); on = 1 makes it take the build's own from now on, 0 lets it
 * choose again, -1 only asks. For tests, which check both copies. */
int agx_fast_portable(int on);

/* ---- shared by the interpreters --------------------------------------------- */

/* One instruction other than a jump, stop or trap at byte address pc, in
 * the reference's semantics: the ALU in the active lanes, the exec-stack
 * instructions, memory, wait. Returns 0 or the error (naming pc). */
int agx_exec_insn(agx_state *s, const agx_instr *in, uint32_t pc, gs_diag *d);
/* The run's own errors, as the reference words them: an entry inside an
 * instruction, running off the end, the budget (arg), a bad instruction
 * length (arg), a jump to arg inside an instruction, trap. Returns the code. */
enum { AGX_FAULT_ENTRY, AGX_FAULT_END, AGX_FAULT_BUDGET, AGX_FAULT_LENGTH, AGX_FAULT_JUMP, AGX_FAULT_TRAP };
int agx_fault(gs_diag *d, int kind, uint32_t pc, uint64_t arg);
/* Runs an interpreter's loop, run(s, prog, entry, budget, d), with the
 * host rounding to nearest (num.h's exact code and the fast forms' host
 * arithmetic assume it) and the caller's rounding mode restored after. */
typedef int (*agx_loop_fn)(agx_state *s, const void *prog, uint32_t entry, uint64_t budget, gs_diag *d);
int agx_run_nearest(agx_loop_fn run, agx_state *s, const void *prog, uint32_t entry, uint64_t budget, gs_diag *d);
/* The index of the instruction at byte address target, walking from
 * instruction k at byte address pc; -1 when none starts there. */
long agx_seek(const agx_program *p, size_t k, uint32_t pc, uint32_t target);

/* A flat memory for agx_state.mem: size bytes at data, at GPU addresses
 * base..base+size-1. */
typedef struct agx_flat_mem {
  uint64_t base;
  uint8_t *data;
  size_t size;
} agx_flat_mem;
int agx_flat_mem_access(void *ctx, uint64_t addr, void *buf, unsigned n, int write);

#endif
