/* exec_fast.c — the AGX fast interpreter (exec.h, agx_run_fast) on the lane micro-op layer
 * (src/isa/uop): a decoded program is prepared once into micro-ops over
 * the 32 lanes of a SIMD group, run by the layer's loop (run.h) with the
 * AGX micro-ops below as cases of its switch. It has agx_run_ref's
 * contract (exec.h, EQUIVALENCE): the same state, result and message.
 *
 * THE REGISTER FILE. One 32-lane vector of 32-bit words per 32-bit
 * register (r0..r127 at byte N x 128: the word of rN holds rNl in its low
 * and rNh in its high 16 bits), then vectors of constants (immediates, the
 * uniforms the program reads, the lane numbers), on the C stack of the
 * run. agx_state keeps its r[lane][half] layout: a run transposes in the
 * registers the program reads (or writes in part) and, at its end, out the
 * ones it may write, in the lanes below the highest present one; a
 * register native micro-ops only write whole goes out in the lanes written.
 *
 * WHAT RUNS AS MICRO-OPS. Vector forms computing all 32 lanes: f32 fadd,
 * fmul, ffma on 32-bit registers, uniforms and float immediates with abs,
 * neg and sat (the host's binary32 arithmetic, num.h's exact code for
 * results at or below 2^-126, where the flush is judged before rounding);
 * iadd/isub without sat and bitop on 32-bit values; icmpsel/fcmpsel;
 * ldimm and get_sr of the lane number into registers and halves;
 * if/else/while in both compare forms and pop_exec (r0l in the file, the
 * exec mask a local of the loop); jmp_exec_any/none, stop, trap. Lane by
 * lane in the active lanes through num.h: the other float forms (f16,
 * 16-bit destinations), the special float ops but the derivatives,
 * convert, the other integer forms (16 and 64 bits, sat, imad, the shift
 * group, bit counts); st_var; load; iter, iterproj, ldcf; wait. Everything
 * else is an AGX "generic" micro-op: the registers the instruction names
 * are transposed out to agx_state, agx_exec_insn (the reference's own
 * code) runs it, and the ones it may write come back, so that the
 * semantics of the rest live once.
 *
 * EXACTNESS. The steps and the budget are counted a basic block at a time;
 * a block the budget does not cover runs through the reference from its
 * start. A native instruction cannot fail: what could (a register beyond
 * the declared count, an undefined condition, a uniform past u255, a
 * varying index past the UVS, a refused memory access, a pixel not given)
 * is generic or hands the instruction to the reference before anything is
 * written. A register a load or smpf may
 * write is pending until its wait: a native instruction that reads one is
 * preceded, when the program has such a write, by a check that hands the
 * instruction to the reference if any half it reads is pending. A run
 * whose declared register count is below the halves the native
 * instructions touch, that starts with loads pending, that starts inside a
 * block or whose program has an instruction of a bad length runs through
 * the reference whole. */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include "isa/agx/exec.h"
#include "isa/agx/num.h"
#include "isa/uop/jit.h"
#include "isa/uop/uop.h"

enum {
  AX_REGS = 128,                     /* r0..r127 */
  AX_CONSTS = 96,                    /* constant vectors at most */
  AX_SLOTS = AX_REGS + AX_CONSTS,
  AX_VEC = 4 * AGX_LANES             /* bytes of a vector */
};
_Static_assert(AX_SLOTS * AX_VEC <= 65536, "micro-op operands are 16-bit byte offsets");

/* AGX micro-op kinds; imm is the instruction's index (its ax_par). */
enum {
  AX_BLOCK = GS_UOP_ISA, /* a basic block of b instructions starts: the budget, the steps */
  AX_GENERIC,            /* the instruction through agx_exec_insn */
  AX_PCHECK,             /* the instruction through agx_exec_insn if a half it reads is pending */
  AX_JMP,                /* jmp_exec_any (op 1) / jmp_exec_none (op 0) */
  AX_STOP, AX_TRAP,
  AX_FALL,               /* past the last instruction */
  AX_FADD, AX_FMUL, AX_FFMA,
  AX_IADD, AX_BITOP, AX_MOV,
  AX_ICSEL, AX_FCSEL,
  AX_EXEC,               /* if/else/while (op: 0 if, 1 else, 2 while; side: float compare), pop_exec (op 3) */
  AX_STVAR, AX_WAIT,
  AX_LOAD,               /* load: reads every active lane's elements, then writes them (a = index) */
  AX_LANE,               /* a float operation, funop or convert lane by lane through num.h (ax_par.ls) */
  AX_ILANE,              /* an integer operation of any width lane by lane through num.h (ax_par.ls) */
  AX_ITER,               /* iter, iterproj, ldcf */
  AX_MOVI                /* ldimm: the immediate (ax_par.imm) into d */
};

/* One instruction's fields the micro-ops need. */
typedef struct ax_par {
  uint32_t pc;          /* byte address */
  uint32_t next;        /* first micro-op of the next instruction (its BLOCK when it starts one) */
  long target;          /* a jump: the micro-op of its target's block, -1: not an instruction */
  uint16_t c, e;        /* third and fourth operands (byte offsets) */
  uint32_t ka, kb, kc;  /* float operands: the bits abs keeps */
  uint32_t fa, fb, fc;  /* float operands: the bits neg flips */
  uint8_t cond, sat, shift, neg, tt, nest;
  uint8_t half;         /* destination: 0 the 32-bit register, 1 its low half, 2 its high half */
  uint8_t fw, wo;       /* native, writes a whole register; one only written so (agx_fast.wo) */
  uint8_t ihalf;        /* st_var's index: 0 an immediate (in e), 1 low half of b's register, 2 high */
  uint8_t imm16;        /* load: the index is an immediate (16 bits to extend) */
  struct {              /* AX_LANE's sources: byte offset, 0 the word or 1/2 its low/high half, */
    uint16_t off, off2; /* read as f16 (or a 16-bit integer), abs, neg; AX_ILANE's: the high word's */
    uint8_t sel, h, abs, neg; /* offset of a 64-bit one (bits), sign-extended (sx) */
    uint8_t bits, sx;
  } ls[3];
  uint8_t lop, lcode, lround; /* AX_LANE: the operation, the funop or convert code, the rounding */
  uint32_t imm;         /* AX_MOVI: the value */
  uint32_t sync, nsync; /* generic: registers out (sync[0..nsync)), of which the first nin come back */
  uint32_t nin;
  uint32_t chk, nchk;   /* PCHECK: the halves to test (f->list[chk..]) */
} ax_par;

/* A constant vector: 0 the value, 1 uniform halves value, value + 1, 2 the lane number. */
typedef struct ax_const {
  uint8_t type;
  uint32_t value;
} ax_const;

struct agx_fast {
  agx_program p;
  gs_uop *u;
  uint32_t *first;  /* per instruction (and n: the end), its first micro-op */
  uint8_t *leader;  /* per instruction: a block starts there */
  ax_par *par;
  uint16_t *list;   /* the registers and halves par's sync and chk name */
  size_t nlist;
  ax_const cst[AX_CONSTS];
  unsigned ncst;
  uint16_t used[AX_REGS], nused;       /* registers transposed in at the start */
  uint16_t written[AX_REGS], nwritten; /* and out at the end */
  uint16_t wo[AX_REGS], nwo;           /* registers only written, whole, by native micro-ops: not
                                          transposed in; out in the lanes written (ax_side.wl) */
  uint8_t rowsrc[8];                   /* r0-r7 at a stop: 0 in s only, 1 in the file (transposed
                                          in), 2 in the file in the lanes written (wo) */
  uint32_t rows1, rows2;               /* the r0-r7 of rowsrc 1, of rowsrc 2 (bit N: rN) */
  int wo8;                             /* wo's registers all lie in wo_lo..wo_lo + 7 */
  unsigned wo_lo;
  int invariant;                       /* it reads nothing a group has of its own (invariant()) */
  uint32_t outs;                       /* the registers below r32 of written and wo (bit N: rN) */
  int outs_high;                       /* written or wo have one from r32 up */
  unsigned top;     /* 1 + the highest half a native instruction touches */
  uint32_t end;     /* the byte address past the last instruction */
  int refonly;      /* an instruction of a bad length: the reference runs it all */
  /* native code (agx_run_native, src/isa/uop/jit.h): runs counted until hot, then the code */
  _Atomic unsigned runs;
  struct gs_jit_code *_Atomic jit;
};

/* ---- the lane functions ----------------------------------------------------------- */

/* An f32 operand: subnormals flushed (sign kept), then abs (keep) and neg (flip). */
static inline uint32_t ax_fin(uint32_t x, uint32_t keep, uint32_t flip) {
  uint32_t m = 0x80000000u | (0u - (uint32_t)((x & 0x7f800000u) != 0)); /* branch-free: vectorises */
  return (x & m & keep) ^ flip;
}
static inline uint32_t ax_sat(uint32_t x) {
  uint32_t r = x > 0x3f800000u ? 0x3f800000u : x;
  return (x >> 31) || (x & 0x7fffffffu) > 0x7f800000u ? 0 : r;
}
static inline uint32_t ax_nan(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u ? AGX_F32_NAN : x; }
/* agx_icmp of two 32-bit values (cond defined). */
static inline uint32_t ax_icmp(unsigned cond, uint32_t a, uint32_t b) {
  uint32_t t;
  switch (cond & 7) {
    case 1: t = a < b; break;
    case 2: t = a > b; break;
    case 5: t = (int32_t)a < (int32_t)b; break;
    case 6: t = (int32_t)a > (int32_t)b; break;
    default: t = a == b; break;
  }
  return t ^ ((cond >> 3) & 1);
}
/* agx_fcmp of two flushed, modified f32 values (cond defined). */
static inline uint32_t ax_fcmp(unsigned cond, uint32_t ua, uint32_t ub) {
  float a = gs_lane_f(ua), b = gs_lane_f(ub);
  uint32_t nb = b != b && a == a, t;
  switch (cond & 7) {
    case 1: t = a < b; break;
    case 2: t = a > b; break;
    case 3: t = a < b || nb; break;
    case 5: t = a >= b; break;
    case 6: t = a <= b; break;
    case 7: t = a > b || nb; break;
    default: t = a == b; break;
  }
  return t ^ ((cond >> 3) & 1);
}

/* ---- transposing between agx_state and the file -------------------------------- */

/* What a run keeps beside the file (just after its vectors): the lanes
 * each only-written register was written in, and the lanes a transpose
 * covers, 0..nl-1 (the present and active ones lie below nl: no other lane
 * is ever written, so its words in the file are never looked at). */
typedef struct ax_rq ax_rq;
typedef struct ax_side {
  uint32_t wl[AX_REGS];
  unsigned nl;
  ax_rq *rq;   /* agx_run_rows: the registers a stop leaves as rows, or NULL */
  int touched; /* a register went out to s (agx_run_frame's clean) */
} ax_side;
/* agx_run_rows's request: the registers (bit N: rN) and their rows, and
 * whether the stop filled them (else the run ended in the reference);
 * with keep (agx_run_frame, whose file outlives the run) only the rows
 * the file does not have in lanes 0-15 (part) are filled in rows. */
struct ax_rq {
  uint32_t want;
  uint32_t (*rows)[16];
  int keep;
  uint32_t part;
  int done;
};
/* A run's file: the vectors, then what it keeps beside them. */
typedef struct ax_file {
#if defined(__GNUC__)
  __attribute__((aligned(64)))
#endif
  uint32_t v[AX_SLOTS][AGX_LANES];
  ax_side side;
} ax_file;
#define AX_SIDE(R) ((ax_side *)(void *)((R) + AX_SLOTS * AX_VEC))
/* The lanes at or past nl: what a micro-op computes there is never read */
#define AX_DEAD(R) (AX_SIDE(R)->nl >= 32 ? 0u : ~0u << AX_SIDE(R)->nl)

/* (a register's two halves are one little-endian word: agx_reg32's value;
 * 16 lanes, a fragment batch's 4 x 4 pixels, is a loop of its own, which
 * the compiler unrolls) */
static inline void ax_in(const agx_state *s, char *R, unsigned n) {
  uint32_t *v = (uint32_t *)(void *)(R + n * AX_VEC);
  unsigned nl = AX_SIDE(R)->nl;
  if (nl == 16)
    for (unsigned l = 0; l < 16; l++) memcpy(&v[l], &s->r[l][2 * n], 4);
  else
    for (unsigned l = 0; l < nl; l++) memcpy(&v[l], &s->r[l][2 * n], 4);
}
static inline void ax_out(agx_state *s, const char *R, unsigned n) {
  const uint32_t *v = (const uint32_t *)(const void *)(R + n * AX_VEC);
  unsigned nl = AX_SIDE(R)->nl;
  if (nl == 16)
    for (unsigned l = 0; l < 16; l++) memcpy(&s->r[l][2 * n], &v[l], 4);
  else
    for (unsigned l = 0; l < nl; l++) memcpy(&s->r[l][2 * n], &v[l], 4);
}
/* Four registers n..n+3 in or out, four lanes at a time: lane l's four
 * words lie side by side in agx_state (halves 2n..2n+7), so four lanes of
 * four registers are one 4 x 4 transpose of 16-byte rows (moves and
 * shuffles only: every bit as it is). nl is a multiple of 4. */
#if defined(__SSE2__)
static inline void ax_in4(const agx_state *s, char *R, unsigned n, unsigned nl) {
  float *v = (float *)(void *)(R + n * AX_VEC);
  for (unsigned l = 0; l < nl; l += 4) {
    __m128 a = _mm_loadu_ps((const float *)(const void *)&s->r[l][2 * n]);
    __m128 b = _mm_loadu_ps((const float *)(const void *)&s->r[l + 1][2 * n]);
    __m128 c = _mm_loadu_ps((const float *)(const void *)&s->r[l + 2][2 * n]);
    __m128 e = _mm_loadu_ps((const float *)(const void *)&s->r[l + 3][2 * n]);
    _MM_TRANSPOSE4_PS(a, b, c, e);
    _mm_store_ps(v + l, a), _mm_store_ps(v + AGX_LANES + l, b);
    _mm_store_ps(v + 2 * AGX_LANES + l, c), _mm_store_ps(v + 3 * AGX_LANES + l, e);
  }
}
static inline void ax_out4(agx_state *s, const char *R, unsigned n, unsigned nl) {
  const float *v = (const float *)(const void *)(R + n * AX_VEC);
  for (unsigned l = 0; l < nl; l += 4) {
    __m128 a = _mm_load_ps(v + l), b = _mm_load_ps(v + AGX_LANES + l);
    __m128 c = _mm_load_ps(v + 2 * AGX_LANES + l), e = _mm_load_ps(v + 3 * AGX_LANES + l);
    _MM_TRANSPOSE4_PS(a, b, c, e);
    _mm_storeu_ps((float *)(void *)&s->r[l][2 * n], a), _mm_storeu_ps((float *)(void *)&s->r[l + 1][2 * n], b);
    _mm_storeu_ps((float *)(void *)&s->r[l + 2][2 * n], c), _mm_storeu_ps((float *)(void *)&s->r[l + 3][2 * n], e);
  }
}
#endif
/* Whether L[i..i+4) are four consecutive registers that ax_in4/ax_out4 can
 * move over nl lanes. */
static inline int ax_run4(const uint16_t *L, unsigned i, unsigned n, unsigned nl) {
#if defined(__SSE2__)
  return i + 4 <= n && !(nl & 3) && L[i + 1] == L[i] + 1 && L[i + 2] == L[i] + 2 && L[i + 3] == L[i] + 3;
#else
  (void)L, (void)i, (void)n, (void)nl;
  return 0;
#endif
}
/* The registers L[0..n) in from agx_state, or out to it, over the lanes of a transpose. */
static void ax_in_list(const agx_state *s, char *R, const uint16_t *L, unsigned n) {
  unsigned nl = AX_SIDE(R)->nl;
  for (unsigned i = 0; i < n;) {
#if defined(__SSE2__)
    if (ax_run4(L, i, n, nl)) {
      ax_in4(s, R, L[i], nl), i += 4;
      continue;
    }
#endif
    ax_in(s, R, L[i++]);
  }
}
static void ax_out_list(agx_state *s, const char *R, const uint16_t *L, unsigned n) {
  unsigned nl = AX_SIDE(R)->nl;
  for (unsigned i = 0; i < n;) {
#if defined(__SSE2__)
    if (ax_run4(L, i, n, nl)) {
      ax_out4(s, R, L[i], nl), i += 4;
      continue;
    }
#endif
    ax_out(s, R, L[i++]);
  }
}
/* L[0..n) without the registers of skip (bit N: rN) into out; their count. */
static unsigned ax_drop(const uint16_t *L, unsigned n, uint32_t skip, uint16_t *out) {
  unsigned m = 0;
  for (unsigned i = 0; i < n; i++)
    if (L[i] >= 32 || !(skip >> L[i] & 1)) out[m++] = L[i];
  return m;
}
/* The registers the run may have written out to s, but those of skip
 * (bit N: rN), which stay in the file only. */
static void ax_out_keep(agx_state *s, const agx_fast *f, const char *R, uint32_t skip) {
  const uint16_t *W = f->written, *O = f->wo;
  unsigned nw = f->nwritten, no = f->nwo;
  uint16_t w2[AX_REGS], o2[AX_REGS];
  AX_SIDE(R)->touched = 1;
  if (skip) nw = ax_drop(W, nw, skip, w2), W = w2, no = ax_drop(O, no, skip, o2), O = o2;
  ax_out_list(s, R, W, nw);
  unsigned nl = AX_SIDE(R)->nl, nfull = 0;
  uint32_t all = nl >= 32 ? 0xffffffffu : (1u << nl) - 1;
  while (nfull < no && AX_SIDE(R)->wl[O[nfull]] == all) nfull++;
  if (nfull == no) { /* each written in every lane (a fragment program's colour): whole rows */
    ax_out_list(s, R, O, no);
    return;
  }
  nfull = 0;
  uint16_t full[AX_REGS]; /* the ones written in every lane: whole rows */
  for (unsigned i = 0; i < no; i++) {
    unsigned n = O[i];
    const uint32_t *v = (const uint32_t *)(const void *)(R + n * AX_VEC);
    uint32_t m = AX_SIDE(R)->wl[n];
    if (m == all) {
      full[nfull++] = (uint16_t)n;
      continue;
    }
    for (; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctz(m);
      memcpy(&s->r[l][2 * n], &v[l], 4);
    }
  }
  ax_out_list(s, R, full, nfull);
}
static void ax_out_written(agx_state *s, const agx_fast *f, const char *R) { ax_out_keep(s, f, R, 0); }

void agx_rows_of(const agx_state *s, uint32_t want, agx_rows rows) {
  for (unsigned n = 0; n < 8; n++)
    if (want >> n & 1)
      for (unsigned l = 0; l < 16; l++) rows[n][l] = agx_reg32(s, l, n);
}

/* The registers at a stop: for agx_run_rows those it asks for as rows (a
 * row of the file where the file has every lane, each lane from where it
 * is otherwise), the others out to s; else every one out to s. Out of
 * line: inlined into the loop its locals went to the stack. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void ax_out_stop(agx_state *s, const agx_fast *f, const char *R) {
  const ax_side *S = AX_SIDE(R);
  ax_rq *q = S->rq;
  if (!q) {
    ax_out_written(s, f, R);
    return;
  }
  uint32_t want = q->want;
  if (f->outs_high || (f->outs & ~want)) ax_out_keep(s, f, R, want);
  uint32_t whole = 0; /* the rows the file has in lanes 0-15 */
  if (S->nl >= 16) {
    whole = want & f->rows1;
    for (uint32_t w = want & f->rows2; w; w &= w - 1) {
      unsigned n = (unsigned)__builtin_ctz(w);
      whole |= (uint32_t)((S->wl[n] & 0xffffu) == 0xffffu) << n;
    }
  }
  uint32_t below = S->nl >= 32 ? 0xffffffffu : (1u << S->nl) - 1;
  for (uint32_t w = want & ~whole; w; w &= w - 1) { /* each lane from where it is */
    unsigned n = (unsigned)__builtin_ctz(w);
    const uint32_t *v = (const uint32_t *)(const void *)(R + n * AX_VEC);
    uint32_t in = f->rowsrc[n] == 1 ? below : f->rowsrc[n] == 2 ? S->wl[n] & below : 0; /* lanes the file has */
    for (unsigned l = 0; l < 16; l++) q->rows[n][l] = in >> l & 1 ? v[l] : agx_reg32(s, l, n);
  }
  if (!q->keep)
    for (uint32_t w = whole; w; w &= w - 1) {
      unsigned n = (unsigned)__builtin_ctz(w);
      memcpy(q->rows[n], R + n * AX_VEC, sizeof q->rows[n]);
    }
  q->part = want & ~whole, q->done = 1;
}

/* Instruction k through agx_exec_insn: its registers out, its writes
 * back. On an error every register the run may have written goes out
 * (the instruction's own first come back in, with what it wrote). */
static int ax_slow(agx_state *s, const agx_fast *f, size_t k, char *R, uint32_t *exec, uint64_t steps, gs_diag *d) {
  const ax_par *P = &f->par[k];
  const uint16_t *L = P->nsync ? f->list + P->sync : NULL; /* (no list at all when nothing is named) */
  AX_SIDE(R)->touched = 1;
  ax_out_list(s, R, L, P->nsync);
  s->exec = *exec, s->steps = steps, s->pc = P->pc;
  int rc = agx_exec_insn(s, &f->p.insn[k], P->pc, d);
  ax_in_list(s, R, L, P->nin);
  *exec = s->exec;
  if (rc) ax_out_written(s, f, R);
  return rc;
}

/* The rest of the run through the reference from instruction k (the
 * file's registers out first). */
static int ax_bail(agx_state *s, const agx_fast *f, size_t k, const char *R, uint32_t exec, uint64_t steps,
                   uint64_t budget, gs_diag *d) {
  ax_out_written(s, f, R);
  s->exec = exec, s->steps = steps;
  return agx_run_ref(s, &f->p, f->par[k].pc, budget, d);
}

/* ---- the per-lane instructions ------------------------------------------------- */

/* Element value v into half h (16 bits) or the register of half h (32) of lane l. */
static inline void ax_put_elem(char *R, unsigned h, unsigned bits, unsigned l, uint32_t v) {
  uint32_t *w = (uint32_t *)(void *)(R + h / 2 * AX_VEC) + l;
  if (bits == 32) *w = v;
  else if (h & 1) *w = (*w & 0xffffu) | v << 16;
  else *w = (*w & 0xffff0000u) | (v & 0xffffu);
}

/* A load (exec_ref.c's memory()): every active lane's elements read first,
 * then written and the run marked pending. Returns 1, having written
 * nothing, when the reference must run it (no memory, a refused access). */
static int ax_load(agx_state *s, const agx_fast *f, size_t k, unsigned ia, char *R, uint32_t exec) {
  const ax_par *P = &f->par[k];
  const agx_instr *in = &f->p.insn[k];
  const agx_opnd *data = &in->dst;
  unsigned esize = agx_fmt_size(in->format), reg16 = data->bits == 16, ne = 0;
  const uint32_t *bl = (const uint32_t *)(const void *)(R + P->c), *bh = (const uint32_t *)(const void *)(R + P->e);
  const uint32_t *ix = (const uint32_t *)(const void *)(R + ia);
  uint32_t v[AGX_LANES][4];
  if (!s->mem) return 1;
  for (uint32_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    uint64_t b = bl[l] | (uint64_t)bh[l] << 32, i = agx_iext(ix[l], P->imm16 ? 16 : 32, !in->index_zext);
    b &= ~(uint64_t)(esize - 1);
    ne = 0;
    for (unsigned j = 0; j < 4; j++) {
      if (!((in->mask >> j) & 1)) continue;
      uint8_t buf[4] = {0, 0, 0, 0};
      if (s->mem(s->mem_ctx, b + ((i << in->shift) + j) * esize, buf, esize, 0)) return 1;
      uint32_t e = buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24;
      v[l][ne++] = agx_fmt_unpack(in->format, e, (int)reg16);
    }
  }
  ne = (unsigned)__builtin_popcount(in->mask & 15u);
  for (uint32_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    for (unsigned j = 0; j < ne; j++) ax_put_elem(R, data->index + j * (reg16 ? 1 : 2), data->bits, l, v[l][j]);
  }
  for (unsigned j = 0, nh = ne * (reg16 ? 1 : 2); j < nh; j++) s->pending[data->index + j] = (uint8_t)(1 + (in->group & 1));
  return 0;
}

/* An AX_LANE operation in the active lanes into r: the operands as the
 * reference reads them (flushed f32 or kept f16, then abs and neg; convert
 * takes the raw bits), num.h's functions for the result. */
static void ax_lane(const agx_fast *f, size_t k, const char *R, uint32_t exec, uint32_t *r) {
  const ax_par *P = &f->par[k];
  const agx_instr *in = &f->p.insn[k];
  unsigned op = P->lop, half = op == AGX_HADD || op == AGX_HMUL || op == AGX_HFMA;
  unsigned ns = op == AGX_FFMA || op == AGX_HFMA ? 3 : op == AGX_FADD || op == AGX_FMUL || half ? 2 : 1;
  agx_fround fr = half ? AGX_R16 : in->dst.bits == 16 ? AGX_R32_16 : AGX_R32;
  for (uint32_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    uint32_t raw[3] = {0, 0, 0};
    double x[3] = {0, 0, 0};
    for (unsigned i = 0; i < ns; i++) {
      uint32_t w = ((const uint32_t *)(const void *)(R + P->ls[i].off))[l];
      raw[i] = P->ls[i].sel == 2 ? w >> 16 : P->ls[i].sel == 1 ? w & 0xffffu : w;
      x[i] = agx_fmod(P->ls[i].h ? agx_f16_in(raw[i]) : agx_f32_in(raw[i]), P->ls[i].abs, P->ls[i].neg);
    }
    switch (op) {
      case AGX_FADD: case AGX_HADD: r[l] = agx_fadd(x[0], x[1], fr, P->sat); break;
      case AGX_FMUL: case AGX_HMUL: r[l] = agx_fmul(x[0], x[1], fr, P->sat); break;
      case AGX_FFMA: case AGX_HFMA: r[l] = agx_ffma(x[0], x[1], x[2], fr, P->sat); break;
      case AGX_CONVERT: agx_convert(P->lcode, P->lround, raw[0], P->ls[0].h, in->dst.bits == 16, &r[l]); break;
      default: r[l] = agx_funop(P->lcode, x[0], fr, P->sat); break;
    }
  }
}

/* An AX_ILANE operation in the active lanes into r (64 bits: the low word
 * in r, the high in r2): the operands and the arithmetic of exec_ref.c's
 * alu() through num.h. */
static void ax_ilane(const agx_fast *f, size_t k, const char *R, uint32_t exec, uint32_t *r, uint32_t *r2) {
  const ax_par *P = &f->par[k];
  const agx_instr *in = &f->p.insn[k];
  unsigned op = P->lop, db = in->dst.bits;
  unsigned ns = op == AGX_IADD || op == AGX_ISUB ? 2 : op == AGX_IMAD || op == AGX_IMSUB || op == AGX_BFI ||
                op == AGX_BFEIL || op == AGX_EXTR ? 3 : 1;
  for (uint32_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    uint64_t v[3] = {0, 0, 0}, x[3] = {0, 0, 0}, res;
    for (unsigned i = 0; i < ns; i++) {
      uint32_t w = ((const uint32_t *)(const void *)(R + P->ls[i].off))[l];
      v[i] = P->ls[i].sel == 2 ? w >> 16 : P->ls[i].sel == 1 ? w & 0xffffu : w;
      if (P->ls[i].bits == 64) v[i] |= (uint64_t)((const uint32_t *)(const void *)(R + P->ls[i].off2))[l] << 32;
      x[i] = agx_iext(v[i], P->ls[i].bits, P->ls[i].sx);
    }
    switch (op) {
      case AGX_IADD: case AGX_ISUB:
        res = agx_iadd(x[0], x[1], op == AGX_ISUB, P->shift, db, P->sat && P->ls[0].bits <= 32 && P->ls[1].bits <= 32,
                       P->ls[0].sx || P->ls[1].sx);
        break;
      case AGX_IMAD: case AGX_IMSUB:
        res = agx_imad(x[0], x[1], x[2], op == AGX_IMSUB, P->shift, db, P->sat && P->ls[2].bits <= 32,
                       P->ls[0].sx || P->ls[1].sx || P->ls[2].sx);
        break;
      case AGX_BFI: case AGX_BFEIL: case AGX_EXTR: {
        uint32_t d32 = 0;
        agx_shift_op(op == AGX_BFI ? AGX_SH_BFI : op == AGX_BFEIL ? AGX_SH_BFEIL : AGX_SH_EXTR, (uint32_t)v[0],
                     (uint32_t)v[1], (uint32_t)v[2], in->mask_width, &d32);
        res = d32;
        break;
      }
      case AGX_BITREV: {
        uint32_t a = (uint32_t)v[0], rv = 0;
        for (int i = 0; i < 32; i++) rv |= ((a >> i) & 1) << (31 - i);
        res = rv >> (db == 16 ? 16 : 0);
        break;
      }
      case AGX_POPCNT: res = (unsigned)__builtin_popcount((uint32_t)v[0]); break;
      default: res = (uint32_t)v[0] ? 31u - (unsigned)__builtin_clz((uint32_t)v[0]) : 0xffffffffu; break;
    }
    r[l] = (uint32_t)res, r2[l] = (uint32_t)(res >> 32);
  }
}

/* The plane of cf register c at tile-relative (tx, ty), as the reference computes it. */
static inline double ax_plane(const agx_state *s, unsigned c, double tx, double ty) {
  return agx_f32_in(s->cf[c][0]) * tx + agx_f32_in(s->cf[c][1]) * ty + agx_f32_in(s->cf[c][2]);
}

/* iter, iterproj, ldcf (exec_ref.c's interpolate()) in the active lanes:
 * the pixels first (sr80, sr81). Returns 1, having written nothing, when
 * the reference must run it (a pixel not provided). */
static int ax_iter(agx_state *s, const agx_fast *f, size_t k, char *R, uint32_t exec) {
  const agx_instr *in = &f->p.insn[k];
  const agx_opnd *dst = &in->dst;
  unsigned c = in->src[0].index, w = in->src[1].index, n = dst->bits / 16;
  if (in->op == AGX_LDCF) {
    for (unsigned j = 0; j < 3; j++) {
      uint32_t v = dst->bits == 16 ? agx_f32_to_f16(s->cf[c][j]) : s->cf[c][j];
      for (uint32_t m = exec; m; m &= m - 1) ax_put_elem(R, dst->index + j * n, dst->bits, (unsigned)__builtin_ctz(m), v);
    }
    return 0;
  }
  uint32_t px[AGX_LANES], py[AGX_LANES];
  for (uint32_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    if (!s->sr || s->sr(s->sr_ctx, l, 80, &px[l]) || s->sr(s->sr_ctx, l, 81, &py[l])) return 1;
  }
  unsigned count = dst->count ? dst->count : 1;
  agx_fround r = dst->bits == 16 ? AGX_R32_16 : AGX_R32;
  for (uint32_t m = exec; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    double tx = (px[l] & 31) + 0.5, ty = (py[l] & 31) + 0.5;
    double wv = in->op == AGX_ITERPROJ ? ax_plane(s, w, tx, ty) : 1.0;
    for (unsigned j = 0; j < count; j++)
      ax_put_elem(R, dst->index + j * n, dst->bits, l, agx_fresult(ax_plane(s, c + j, tx, ty) / wv, r, 0));
  }
  return 0;
}

/* ---- the loop ------------------------------------------------------------------ */

#define AX_V(off) ((const uint32_t *)(const void *)(R + (off)))
#define AX_P const ax_par *P = &f->par[u->imm]
/* The steps once instruction u->imm has run (the block counted ahead). */
#define AX_STEPS (steps0 + (u->imm - blk) + 1)
/* Leaves the run with rc: the registers out, the mask and the steps. */
#define AX_LEAVE(rc_, steps_)          \
  do {                                 \
    ax_out_written(s, f, R);           \
    s->exec = exec, s->steps = steps_; \
    return rc_;                        \
  } while (0)
/* r_ (32 lanes) to the destination d in the active lanes, as a word or
 * into one half. */
#define AX_PUT(r_)                                                                          \
  do {                                                                                      \
    uint32_t o_[AGX_LANES];                                                                 \
    if (P->wo) AX_SIDE(R)->wl[u->d / AX_VEC] |= exec;                                       \
    if (P->half == 0 && (exec | dead) == 0xffffffffu) { /* (lanes past nl: never looked at) */ \
      memcpy(R + u->d, r_, sizeof o_);                                                      \
      break;                                                                                \
    }                                                                                       \
    memcpy(o_, R + u->d, sizeof o_);                                                        \
    if (P->half == 0) {                                                                     \
      for (int i_ = 0; i_ < AGX_LANES; i_++) o_[i_] = (exec >> i_ & 1) ? r_[i_] : o_[i_];   \
    } else {                                                                                \
      unsigned sh_ = P->half == 2 ? 16 : 0;                                                 \
      uint32_t m_ = 0xffffu << sh_;                                                         \
      for (int i_ = 0; i_ < AGX_LANES; i_++)                                                \
        o_[i_] = (exec >> i_ & 1) ? (o_[i_] & ~m_) | ((r_[i_] << sh_) & m_) : o_[i_];       \
    }                                                                                       \
    memcpy(R + u->d, o_, sizeof o_);                                                        \
  } while (0)
/* The f32 operations: operands flushed and modified, the host's binary32
 * result, num.h's exact one for the lanes at or below 2^-126. */
#define AX_FLOAT(compute, exact)                                                                      \
  do {                                                                                             \
    AX_P;                                                                                          \
    const uint32_t *A_ = AX_V(u->a), *B_ = AX_V(u->b), *C_ = AX_V(P->c);                           \
    uint32_t x[AGX_LANES], y[AGX_LANES], z[AGX_LANES], r_[AGX_LANES], tiny_ = 0;                   \
    (void)z;                                                                                       \
    uint32_t ka_ = P->ka, fa_ = P->fa, kb_ = P->kb, fb_ = P->fb, kc_ = P->kc, fc_ = P->fc;        \
    for (int i = 0; i < AGX_LANES; i++) x[i] = ax_fin(A_[i], ka_, fa_);                            \
    for (int i = 0; i < AGX_LANES; i++) y[i] = ax_fin(B_[i], kb_, fb_);                            \
    for (int i = 0; i < AGX_LANES; i++) z[i] = ax_fin(C_[i], kc_, fc_);                            \
    compute;                                                                                       \
    for (int i = 0; i < AGX_LANES; i++) tiny_ |= (uint32_t)((r_[i] & 0x7fffffffu) <= 0x00800000u); \
    if (tiny_)                                                                                     \
      for (int i = 0; i < AGX_LANES; i++)                                                          \
        if ((exec >> i & 1) && (r_[i] & 0x7fffffffu) <= 0x00800000u) r_[i] = (exact);              \
    if (P->sat)                                                                                    \
      for (int i = 0; i < AGX_LANES; i++) r_[i] = ax_sat(ax_nan(r_[i]));                           \
    else                                                                                           \
      for (int i = 0; i < AGX_LANES; i++) r_[i] = ax_nan(r_[i]);                                   \
    AX_PUT(r_);                                                                                    \
  } while (0)
/* The fused multiply-add of every lane, exact either way: 8 lanes an
 * instruction (AX_FMA_VEC, for the copy of the loop compiled with FMA:
 * GCC leaves fmaf's loop scalar), or the C library's fmaf. */
#define AX_FMA_VEC(r_, x, y, z)                                                                            \
  for (int k_ = 0; k_ < AGX_LANES / 8; k_++)                                                             \
    _mm256_storeu_ps((float *)(void *)(r_ + 8 * k_),                                                     \
                     _mm256_fmadd_ps(_mm256_loadu_ps((const float *)(const void *)(x + 8 * k_)),         \
                                     _mm256_loadu_ps((const float *)(const void *)(y + 8 * k_)),         \
                                     _mm256_loadu_ps((const float *)(const void *)(z + 8 * k_))))
#define AX_FMA_LIBM(r_, x, y, z) \
  for (int i = 0; i < AGX_LANES; i++) r_[i] = gs_lane_u(fmaf(gs_lane_f(x[i]), gs_lane_f(y[i]), gs_lane_f(z[i])))
#define AX_FX(i) ((double)gs_lane_f(x[i]))
#define AX_FY(i) ((double)gs_lane_f(y[i]))
#define AX_FZ(i) ((double)gs_lane_f(z[i]))
/* d = expr of a, b (and c = P->c, e = P->e) in every lane, written in the active ones */
#define AX_INT(expr)                                                                   \
  do {                                                                                 \
    const uint32_t *A_ = AX_V(u->a), *B_ = AX_V(u->b), *C_ = AX_V(P->c), *E_ = AX_V(P->e); \
    uint32_t r_[AGX_LANES];                                                            \
    for (int i = 0; i < AGX_LANES; i++) {                                              \
      uint32_t a = A_[i], b = B_[i], c = C_[i], e = E_[i];                             \
      (void)b, (void)c, (void)e;                                                       \
      r_[i] = (expr);                                                                  \
    }                                                                                  \
    AX_PUT(r_);                                                                        \
  } while (0)

#define GS_UOP_N 32 /* AGX_LANES */
#define GS_UOP_PARAMS (agx_state * s, const agx_fast *f, size_t k0, uint64_t budget, gs_diag *d, char *R)
#define GS_UOP_ENTER                                       \
  const gs_uop *u = f->u + f->first[k0] - 1; /* its BLOCK */ \
  uint32_t exec = s->exec;                                 \
  uint64_t steps = s->steps, steps0 = steps;               \
  uint32_t blk = (uint32_t)k0;                             \
  const uint32_t dead = AX_DEAD(R);                        \
  int rc;
#define GS_UOP_COND(c) (((c) & 1) ? 0xffffffffu : 0u) /* the neutral kinds are not used */
#define GS_UOP_CONSTS ((const void *)R) /* GS_UOP_CONST is not used */
#define GS_UOP_ISA_CASES "isa/agx/exec_fast_run.h"

#include "isa/uop/run_clones.h"

#if GS_UOP_RUN_AVX2
static _Atomic int portable;
#endif

int agx_fast_portable(int on) {
#if GS_UOP_RUN_AVX2
  if (on >= 0) portable = on != 0;
  return !portable && GS_UOP_RUN_AVX2_CPU();
#else
  (void)on;
  return 0;
#endif
}

static int ax_run(agx_state *s, const agx_fast *f, size_t k, uint64_t budget, gs_diag *d, char *R) {
#if GS_UOP_RUN_AVX2
  if (!portable && GS_UOP_RUN_AVX2_CPU()) return run_avx2(s, f, k, budget, d, R);
#endif
  return run_built(s, f, k, budget, d, R);
}

/* The instruction at byte address entry, or -1 (0: the first, at once). */
static long ax_seek(const agx_fast *f, uint32_t entry) {
  return entry ? agx_seek(&f->p, 0, 0, entry) : f->p.n ? 0 : -1;
}

#if GS_JIT
/* Native code (src/isa/uop/jit.h, docs/uops.md "Native code"): a program
 * agx_run_native ran gs_jit_threshold() times is compiled, in the
 * background unless gs_jit_sync(); until then the interpreter above runs
 * it (and always agx_run_fast, the shader debugger's runs and provenance).
 * Every AGX micro-op is a call of the escape below, the cases of
 * exec_fast_run.h as they are, with the loop's locals in ax_env; so the
 * compiled stream is the interpreter's without its dispatch. */
typedef struct ax_env {
  agx_state *s;
  const agx_fast *f;
  uint64_t budget;
  gs_diag *d;
  uint32_t exec, blk;
  uint64_t steps, steps0;
  int ran; /* an escape ran: the file and the state are no longer the run's start */
} ax_env;

/* The escape, once for the build's instruction set and once for AVX2 and
 * FMA like the loop (the same bits): a case that goes on returns
 * GS_JIT_NEXT, one that moves u (`continue`) GS_JIT_JUMP to its micro-op, one
 * that ends the run its value. */
#define AX_ESCAPE(name)                                                        \
  static int name(void *env, char *R, const gs_uop *u, uint32_t *to) {         \
    ax_env *E_ = env;                                                          \
    agx_state *s = E_->s;                                                      \
    const agx_fast *f = E_->f;                                                 \
    const uint64_t budget = E_->budget;                                        \
    gs_diag *d = E_->d;                                                        \
    uint32_t exec = E_->exec, blk = E_->blk;                                   \
    uint64_t steps = E_->steps, steps0 = E_->steps0;                           \
    const uint32_t dead = AX_DEAD(R);                                          \
    int rc;                                                                    \
    E_->ran = 1;                                                               \
    for (int first_ = 1;; first_ = 0) {                                        \
      if (!first_) {                                                           \
        E_->exec = exec, E_->blk = blk, E_->steps = steps, E_->steps0 = steps0; \
        *to = (uint32_t)(u - f->u);                                            \
        return GS_JIT_JUMP;                                                    \
      }                                                                        \
      switch (u->kind) {
#define AX_ESCAPE_END                                                      \
  default:                                                                 \
    break;                                                                 \
    }                                                                      \
    E_->exec = exec, E_->blk = blk, E_->steps = steps, E_->steps0 = steps0; \
    (void)budget, (void)d, (void)rc, (void)dead;                           \
    return GS_JIT_NEXT;                                                    \
    }                                                                      \
    }
AX_ESCAPE(ax_escape_built)
#include "isa/agx/exec_fast_run.h"
AX_ESCAPE_END
#if GS_UOP_RUN_AVX2
#pragma GCC push_options
#pragma GCC target("avx2,fma")
AX_ESCAPE(ax_escape_avx2)
#include "isa/agx/exec_fast_run.h"
AX_ESCAPE_END
#pragma GCC pop_options
#endif

/* Whether agx_run_native compiles (agx_native_policy): every AGX
 * micro-op is an escape call, which costs more than the interpreter's
 * dispatch (docs/uops.md, "AGX on the layer"), so by default only when
 * GPUSIM_JIT_AGX=on. */
static _Atomic int native_on = -1;
int agx_native_policy(int on) {
  if (on >= 0) atomic_store(&native_on, on != 0);
  int v = atomic_load(&native_on);
  if (v < 0) {
    const char *e = getenv("GPUSIM_JIT_AGX");
    v = e && !strcmp(e, "on");
    atomic_store(&native_on, v);
  }
  return v;
}

/* f's code when it is ready; counts the run and submits f at the
 * threshold's; NULL: interpret. */
static gs_jit_fn ax_native(const agx_fast *cf) {
  agx_fast *f = (agx_fast *)(uintptr_t)cf; /* (only its atomics change) */
  gs_jit_code *c = atomic_load_explicit(&f->jit, memory_order_acquire);
  if (c) return gs_jit_entry(c);
  if (!agx_native_policy(-1)) return NULL;
  if (!gs_jit_count_run(&f->runs)) return NULL;
  /* entries: every instruction's first micro-op and its block's, where
   * the runs start and the jumps and checks go on */
  uint32_t n = (uint32_t)f->p.n, *entries = malloc((2 * (size_t)n + 1) * sizeof *entries), ne = 0;
  if (!entries) return NULL;
  for (uint32_t k = 0; k < n; k++) {
    if (f->leader[k]) entries[ne++] = f->first[k] - 1;
    entries[ne++] = f->first[k];
  }
  gs_jit_desc desc = {.lanes = AGX_LANES, .mask_bits = 32, .mask_off = {-1, -1, -1, -1, -1, -1, -1, -1},
                      .regs_off = -1, .escape = ax_escape_built, .step_kind = -1};
#if GS_UOP_RUN_AVX2
  if (!portable && GS_UOP_RUN_AVX2_CPU()) desc.escape = ax_escape_avx2;
#endif
  c = gs_jit_sync() ? gs_jit_compile(&desc, f->u, f->first[n] + 1, entries, ne)
                    : gs_jit_submit(&desc, f->u, f->first[n] + 1, entries, ne);
  free(entries);
  if (!c) return NULL;
  atomic_store_explicit(&f->jit, c, memory_order_release);
  return gs_jit_entry(c);
}
#endif

#if !GS_JIT
int agx_native_policy(int on) {
  (void)on;
  return 0;
}
#endif

/* The run from instruction k, the file set up: native code when native
 * and f's is ready, else the interpreter. */
static int ax_go(agx_state *s, const agx_fast *f, size_t k, uint64_t budget, gs_diag *d, char *R, int native) {
#if GS_JIT
  gs_jit_fn fn = native ? ax_native(f) : NULL;
  if (fn) {
    ax_env e = {s, f, budget, d, s->exec, (uint32_t)k, s->steps, s->steps, 0};
    int rc = fn(s, R, NULL, &e, f->first[k] - 1);
    if (rc != GS_JIT_EXIT) return rc;
    if (e.ran) /* (every micro-op a jump or check goes on at is an entry) */
      return gs_diag_set(d, GS_EINVAL, "pc 0x%04x: the AGX program's native code stopped without a result "
                         "(an internal error of gpusim)", f->par[k].pc);
  }
#else
  (void)native;
#endif
  return ax_run(s, f, k, budget, d, R);
}

/* The constant vectors of f's file R, from s's uniforms. */
static void ax_consts(const agx_state *s, const agx_fast *f, char *R) {
  for (unsigned i = 0; i < f->ncst; i++) {
    uint32_t *v = (uint32_t *)(void *)(R + (AX_REGS + i) * AX_VEC), c = f->cst[i].value;
    if (f->cst[i].type == 1) c = s->u[c] | (uint32_t)s->u[c + 1] << 16;
    for (unsigned l = 0; l < AGX_LANES; l++) v[l] = f->cst[i].type == 2 ? l : c;
  }
}

/* The run from instruction k in file R, its constant vectors set up. */
static int ax_loop_file(agx_state *s, const agx_fast *f, size_t k, uint64_t budget, gs_diag *d, int native, char *R,
                        ax_rq *rq) {
  ax_side *S = AX_SIDE(R);
  uint32_t lanes = s->present | s->exec;
  S->nl = lanes ? 32u - (unsigned)__builtin_clz(lanes) : 0;
  S->rq = rq, S->touched = 0;
  if (f->wo8) { /* (the others' wl is never read) */
    memset(&S->wl[f->wo_lo], 0, 8 * sizeof S->wl[0]);
  } else {
    const uint16_t *wo = f->wo;
    for (unsigned i = 0, n = f->nwo; i < n; i++) S->wl[wo[i]] = 0;
  }
  if (f->nused) ax_in_list(s, R, f->used, f->nused);
  return ax_go(s, f, k, budget, d, R, native);
}

static int ax_loop_any(agx_state *s, const agx_fast *f, uint32_t entry, uint64_t budget, gs_diag *d, int native,
                       ax_rq *rq) {
  long k = ax_seek(f, entry);
  s->stopped = 0;
  s->pc = entry;
  if (k < 0) return agx_fault(d, AGX_FAULT_ENTRY, entry, 0);
  ax_file file;
  char *R = (char *)file.v;
  ax_consts(s, f, R);
  return ax_loop_file(s, f, (size_t)k, budget, d, native, R, rq);
}
static int ax_loop(agx_state *s, const void *prog, uint32_t entry, uint64_t budget, gs_diag *d) {
  return ax_loop_any(s, prog, entry, budget, d, 0, NULL);
}
static int ax_loop_native(agx_state *s, const void *prog, uint32_t entry, uint64_t budget, gs_diag *d) {
  return ax_loop_any(s, prog, entry, budget, d, 1, NULL);
}

/* Whether a run of f from entry with no half pending goes through the
 * reference whole (exec_fast.c's first comment). */
static int ax_whole_clean(const agx_state *s, const agx_fast *f, uint32_t entry) {
  unsigned lim = s->nregs ? s->nregs : AGX_HALVES;
  if (f->refonly || f->top > lim) return 1;
  long k = ax_seek(f, entry);
  return k >= 0 && !f->leader[k];
}
/* Whether a run of f from entry goes through the reference whole. */
static int ax_whole(const agx_state *s, const agx_fast *f, uint32_t entry) {
  uint8_t any = 0;
  for (unsigned h = 0; h < AGX_HALVES; h++) any |= s->pending[h];
  return any != 0 || ax_whole_clean(s, f, entry);
}

static int ax_start(agx_state *s, const agx_fast *f, uint32_t entry, uint64_t budget, gs_diag *d, int native) {
  if (ax_whole(s, f, entry)) return agx_run_ref(s, &f->p, entry, budget, d);
  return agx_run_nearest(native ? ax_loop_native : ax_loop, s, f, entry, budget, d);
}

int agx_rows_fast(const agx_state *s, const agx_fast *f) { return !ax_whole_clean(s, f, 0); }

int agx_run_rows_clean(agx_state *s, const agx_fast *f, int fast, uint64_t budget, gs_diag *d, uint32_t want,
                       agx_rows rows) {
  ax_rq q = {want & 0xffu, rows, 0, 0, 0}; /* (r0-r7: a register past them would be neither row nor state) */
  int rc = fast ? ax_loop_any(s, f, 0, budget, d, 1, &q) : agx_run_ref(s, &f->p, 0, budget, d);
  if (rc == GS_OK && !q.done) agx_rows_of(s, want, rows); /* (the reference ran to the stop) */
  return rc;
}

/* A group's run agx_run_frame may hand back again (f->invariant): how
 * the group started (its lanes, the budget, the registers asked for) and
 * what the run left besides the rows in the file. */
typedef struct ax_replay {
  int valid;
  uint32_t present, exec, want;
  uint64_t budget;
  uint32_t pc, exec_out; /* after the run */
  uint64_t steps;
} ax_replay;

struct agx_frame {
  ax_file file;
  agx_rows buf;                /* rows the file does not have in lanes 0-15 */
  const uint32_t *inf[8];      /* the rows of the file */
  const uint32_t *mixed[8];    /* those with buf's where the file does not have them */
  const agx_fast *f;
  int native;                  /* agx_native_policy's answer at agx_frame_begin */
  ax_replay rp;
};

agx_frame *agx_frame_new(void) {
  size_t size = (sizeof(agx_frame) + 63) / 64 * 64;
  agx_frame *fr = aligned_alloc(64, size);
  if (!fr) return NULL;
  memset(fr, 0, size);
  for (unsigned n = 0; n < 8; n++) fr->inf[n] = fr->file.v[n];
  return fr;
}
void agx_frame_free(agx_frame *fr) { free(fr); }

void agx_frame_begin(agx_frame *fr, const agx_state *s, const agx_fast *f) {
  fr->f = f, fr->native = agx_native_policy(-1), fr->rp.valid = 0;
  ax_consts(s, f, (char *)fr->file.v);
}

/* agx_run_frame when the recorded run cannot be handed back. */
static int ax_run_frame(agx_state *s, agx_frame *fr, uint64_t budget, gs_diag *d, uint32_t want,
                        const uint32_t *const **rows, int *clean) {
  const agx_fast *f = fr->f;
  ax_rq q = {want & 0xffu, fr->buf, 1, 0, 0};
  char *R = (char *)fr->file.v;
  ax_replay *rp = &fr->rp;
  rp->valid = 0, *clean = 0;
  uint32_t present = s->present, exec = s->exec;
  uint64_t steps = s->steps;
  s->stopped = 0, s->pc = 0;
  if (!f->p.n) return agx_fault(d, AGX_FAULT_ENTRY, 0, 0);
  int rc = ax_loop_file(s, f, 0, budget, d, fr->native, R, &q);
  if (rc != GS_OK) return rc;
  if (f->invariant && q.done && !q.part && !AX_SIDE(R)->touched && steps == 0)
    *rp = (ax_replay){1, present, exec, q.want, budget, s->pc, s->exec, s->steps};
  if (!q.done) { /* (the reference ran to the stop) */
    agx_rows_of(s, q.want, fr->buf);
    q.part = q.want;
  }
  *rows = fr->inf;
  if (q.part) {
    for (unsigned n = 0; n < 8; n++) fr->mixed[n] = q.part >> n & 1 ? fr->buf[n] : fr->inf[n];
    *rows = fr->mixed;
  }
  *clean = q.done && !AX_SIDE(R)->touched;
  return rc;
}

int agx_run_frame(agx_state *s, agx_frame *fr, uint64_t budget, gs_diag *d, uint32_t want,
                  const uint32_t *const **rows, int *clean) {
  const ax_replay *rp = &fr->rp;
  if (!rp->valid || s->present != rp->present || s->exec != rp->exec || s->steps || (want & 0xffu) != rp->want ||
      budget != rp->budget)
    return ax_run_frame(s, fr, budget, d, want, rows, clean);
  /* the recorded run again: it read nothing that differs (agx_frame_begin) */
  s->stopped = 1, s->pc = rp->pc, s->steps = rp->steps, s->exec = rp->exec_out;
  *rows = fr->inf, *clean = 1;
  return GS_OK;
}

int agx_run_rows(agx_state *s, const agx_fast *f, uint64_t budget, gs_diag *d, uint32_t want, agx_rows rows) {
  return agx_run_rows_clean(s, f, !ax_whole(s, f, 0), budget, d, want, rows);
}

int agx_run_fast(agx_state *s, const agx_fast *f, uint32_t entry, uint64_t budget, gs_diag *d) {
  return ax_start(s, f, entry, budget, d, 0);
}
int agx_run_native(agx_state *s, const agx_fast *f, uint32_t entry, uint64_t budget, gs_diag *d) {
  return ax_start(s, f, entry, budget, d, 1);
}

/* ---- preparing a program ------------------------------------------------------- */

typedef struct ax_build {
  agx_fast *f;
  size_t cap;       /* micro-ops */
  size_t nu;
  size_t lcap;      /* list */
  uint8_t used[AX_REGS], written[AX_REGS]; /* transposed in; out */
  uint8_t whole[AX_REGS];                  /* written whole by a native micro-op */
  int loads;
  int err;
} ax_build;

static gs_uop *emit(ax_build *b, unsigned kind, size_t k) {
  if (b->nu == b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 64;
    gs_uop *u = realloc(b->f->u, cap * sizeof *u);
    if (!u) {
      b->err = 1;
      static gs_uop sink;
      return &sink;
    }
    b->f->u = u, b->cap = cap;
  }
  gs_uop *u = &b->f->u[b->nu++];
  memset(u, 0, sizeof *u);
  u->kind = (uint8_t)kind, u->imm = (uint32_t)k;
  return u;
}

static void push(ax_build *b, uint16_t v) {
  if (b->f->nlist == b->lcap) {
    size_t cap = b->lcap ? 2 * b->lcap : 64;
    uint16_t *l = realloc(b->f->list, cap * sizeof *l);
    if (!l) {
      b->err = 1;
      return;
    }
    b->f->list = l, b->lcap = cap;
  }
  b->f->list[b->f->nlist++] = v;
}

/* The halves operand o names: [*lo, *hi). Masked runs (load, store,
 * smpf, the tile ops) are taken as four elements, whatever the decoded
 * count. */
static int span(const agx_instr *in, const agx_opnd *o, unsigned *lo, unsigned *hi) {
  if (o->kind != AGX_K_REG) return 0;
  unsigned n = o->bits / 16 ? o->bits / 16 : 1, c = o->count ? o->count : 1;
  switch (in->op) {
    case AGX_LOAD: case AGX_STORE: case AGX_SMPF: case AGX_LD_TILE: case AGX_ST_TILE: case AGX_ZS_EMIT:
      c = c < 4 ? 4 : c;
      break;
    case AGX_LDCF: c = c < 3 ? 3 : c; break;
    default: break;
  }
  *lo = o->index, *hi = o->index + n * c;
  if (*hi > AGX_HALVES) *hi = AGX_HALVES;
  return 1;
}

/* The halves a native instruction's operand o names, exactly as the
 * reference reads or writes them (a load's data run: its mask's elements;
 * its base a 64-bit pair; its index 32 bits). */
static int span_exact(const agx_instr *in, const agx_opnd *o, unsigned *lo, unsigned *hi) {
  if (o->kind != AGX_K_REG) return 0;
  unsigned n = o->bits / 16 ? o->bits / 16 : 1, c = o->count ? o->count : 1;
  if (in->op == AGX_LOAD) {
    if (o == &in->dst) c = (unsigned)__builtin_popcount(in->mask & 15u);
    else if (o == &in->src[1]) n = 4, c = 1;
    else if (o == &in->src[2]) n = 2, c = 1;
  } else if (in->op == AGX_LDCF && o == &in->dst) {
    c = 3;
  }
  *lo = o->index, *hi = o->index + n * c;
  if (*hi > AGX_HALVES) *hi = AGX_HALVES;
  return 1;
}

/* Whether instruction in reads nothing but registers, uniforms,
 * immediates, the lane number and the exec mask, and changes nothing but
 * registers, the mask and the run (agx_run_frame's replay): the ALU, the
 * exec stack, jumps, stop, trap, wait; not memory, textures, tile or
 * fragment outputs, varyings, coefficient registers, other special
 * registers, barriers. */
static int invariant(const agx_instr *in) {
  if (in->op == AGX_GET_SR) return in->src[0].kind == AGX_K_SR && in->src[0].index == 52;
  if (in->op == AGX_OP_NONE || in->op > AGX_WAIT) return 0; /* (agx.h's order: the ALU up to wait) */
  for (int i = 0; i < 4; i++)
    if (in->src[i].kind >= AGX_K_CF) return 0;
  return in->dst.kind < AGX_K_CF;
}

/* Native instructions that may hand themselves to agx_exec_insn (so that
 * every register they name is kept in the file and in the state alike). */
static int may_slow(unsigned op) {
  return op == AGX_ST_VAR || op == AGX_LOAD || op == AGX_ITER || op == AGX_ITERPROJ || op == AGX_LDCF;
}

static int stack_op(unsigned op) {
  return op == AGX_IF_ICMP || op == AGX_ELSE_ICMP || op == AGX_WHILE_ICMP || op == AGX_IF_FCMP ||
         op == AGX_ELSE_FCMP || op == AGX_WHILE_FCMP || op == AGX_POP_EXEC;
}

/* A constant vector's byte offset; -1 when there is no room. */
static int cst(ax_build *b, unsigned type, uint32_t value) {
  agx_fast *f = b->f;
  for (unsigned i = 0; i < f->ncst; i++)
    if (f->cst[i].type == type && f->cst[i].value == value) return (AX_REGS + (int)i) * AX_VEC;
  if (f->ncst == AX_CONSTS) return -1;
  f->cst[f->ncst].type = (uint8_t)type, f->cst[f->ncst].value = value;
  return (AX_REGS + (int)f->ncst++) * AX_VEC;
}

/* A 32-bit integer source (a register, a uniform, an immediate): its byte
 * offset, or -1. */
static int isrc(ax_build *b, const agx_opnd *o) {
  switch (o->kind) {
    case AGX_K_REG: return o->bits == 32 && o->index + 2 <= AGX_HALVES && !(o->index & 1) ? o->index / 2 * AX_VEC : -1;
    case AGX_K_UNIF: return o->bits == 32 && o->index + 2 <= AGX_UHALVES ? cst(b, 1, o->index) : -1;
    case AGX_K_IMM: return cst(b, 0, o->value);
    default: return -1;
  }
}
/* A 32-bit float source (a register, a uniform, a float immediate). */
static int fsrc(ax_build *b, const agx_opnd *o) {
  if (o->kind == AGX_K_FIMM) return cst(b, 0, gs_lane_u(agx_minifloat(o->value)));
  return o->kind == AGX_K_IMM ? -1 : isrc(b, o);
}
static void fmods(const agx_opnd *o, uint32_t *keep, uint32_t *flip) {
  *keep = o->abs ? 0x7fffffffu : 0xffffffffu, *flip = o->neg ? 0x80000000u : 0;
}
/* The destination: a 32-bit register (half 0) or a 16-bit half (1 low, 2 high). */
static int dst(const agx_opnd *o, int allow16, uint8_t *half) {
  if (o->kind != AGX_K_REG) return -1;
  if (o->bits == 32 && !(o->index & 1) && o->index + 2 <= AGX_HALVES) return *half = 0, o->index / 2 * AX_VEC;
  if (allow16 && o->bits == 16 && o->index < AGX_HALVES) return *half = (uint8_t)(1 + (o->index & 1)), o->index / 2 * AX_VEC;
  return -1;
}

/* The funop codes of agx.h's AGX_FLOOR..AGX_RINT, in order (num.h). */
static const uint8_t ax_funop[] = {AGX_FU_FLOOR, AGX_FU_SRSQRT, AGX_FU_DFDX, AGX_FU_DFDY, AGX_FU_RCP,
                                   AGX_FU_RSQRT, AGX_FU_SIN_PT_1, AGX_FU_LOG2, AGX_FU_EXP2, AGX_FU_SIN_PT_2,
                                   AGX_FU_CEIL, AGX_FU_TRUNC, AGX_FU_RINT};

/* Source i of an AX_LANE micro-op: a 16- or 32-bit register or uniform, a
 * float immediate (fl) or an integer one (!fl). 0, or -1 when it is none. */
static int lane_src(ax_build *b, ax_par *P, int i, const agx_opnd *o, int fl) {
  int off;
  P->ls[i].abs = o->abs, P->ls[i].neg = o->neg, P->ls[i].sel = 0, P->ls[i].h = 0;
  if (o->kind == AGX_K_FIMM && fl) {
    off = cst(b, 0, gs_lane_u(agx_minifloat(o->value)));
  } else if (o->kind == AGX_K_IMM && !fl) {
    off = cst(b, 0, o->value);
  } else if ((o->kind == AGX_K_REG || o->kind == AGX_K_UNIF) && o->bits == 16) {
    if (o->kind == AGX_K_REG) off = o->index < AGX_HALVES ? o->index / 2 * AX_VEC : -1;
    else off = o->index + 2 <= AGX_UHALVES ? cst(b, 1, o->index) : -1;
    P->ls[i].sel = (uint8_t)(o->kind == AGX_K_REG ? 1 + (o->index & 1) : 1), P->ls[i].h = 1;
  } else if ((o->kind == AGX_K_REG || o->kind == AGX_K_UNIF) && o->bits == 32) {
    off = isrc(b, o);
  } else {
    return -1;
  }
  if (off < 0) return -1;
  P->ls[i].off = (uint16_t)off;
  return 0;
}

/* Source i of an AX_ILANE micro-op: a 16-, 32- or 64-bit register or
 * uniform, or an immediate (32 bits). 0, or -1 when it is none. */
static int ilane_src(ax_build *b, ax_par *P, int i, const agx_opnd *o) {
  int off = -1, off2 = 0;
  P->ls[i].sel = 0, P->ls[i].bits = 32, P->ls[i].sx = o->sx;
  if (o->kind == AGX_K_IMM) {
    off = cst(b, 0, o->value);
  } else if (o->kind == AGX_K_REG || o->kind == AGX_K_UNIF) {
    int reg = o->kind == AGX_K_REG;
    unsigned lim = reg ? AGX_HALVES : AGX_UHALVES;
    P->ls[i].bits = o->bits;
    if (o->bits == 16 && o->index + 2u - reg <= lim) {
      off = reg ? o->index / 2 * AX_VEC : cst(b, 1, o->index);
      P->ls[i].sel = (uint8_t)(reg ? 1 + (o->index & 1) : 1);
    } else if (o->bits == 32 && o->index + 2u <= lim && !(reg && (o->index & 1))) {
      off = isrc(b, o);
    } else if (o->bits == 64 && o->index + 4u <= lim && !(reg && (o->index & 1))) {
      off = reg ? o->index / 2 * AX_VEC : cst(b, 1, o->index);
      off2 = reg ? off + AX_VEC : cst(b, 1, o->index + 2u);
    }
  }
  if (off < 0 || off2 < 0) return -1;
  P->ls[i].off = (uint16_t)off, P->ls[i].off2 = (uint16_t)off2;
  return 0;
}

/* Instruction k as one AX_ILANE micro-op (iadd/isub/imad/imsub of any
 * width with sat, sx and shift; bfi, bfeil, extr; bitrev, popcnt, ffs);
 * 0 when its operands do not allow. */
static int lane_int(ax_build *b, size_t k) {
  const agx_instr *in = &b->f->p.insn[k];
  ax_par *P = &b->f->par[k];
  unsigned op = in->op, ns = op == AGX_IADD || op == AGX_ISUB ? 2 : op == AGX_IMAD || op == AGX_IMSUB ||
                                op == AGX_BFI || op == AGX_BFEIL || op == AGX_EXTR ? 3 : 1;
  const agx_opnd *o = &in->dst;
  if (o->kind != AGX_K_REG || (o->bits != 16 && o->bits != 32 && o->bits != 64) ||
      (o->bits != 16 && (o->index & 1)) || o->index + o->bits / 16 > AGX_HALVES)
    return 0;
  P->half = o->bits == 16 ? (uint8_t)(1 + (o->index & 1)) : o->bits == 64 ? 3 : 0;
  for (unsigned i = 0; i < ns; i++)
    if (ilane_src(b, P, (int)i, &in->src[i]) < 0) return 0;
  P->lop = (uint8_t)op, P->sat = in->sat, P->shift = in->shift;
  emit(b, AX_ILANE, k)->d = (uint16_t)(o->index / 2 * AX_VEC);
  return 1;
}

/* Instruction k as one AX_LANE micro-op (the float operations, funops
 * other than the derivatives, convert); 0 when its operands do not allow. */
static int lane_float(ax_build *b, size_t k) {
  const agx_instr *in = &b->f->p.insn[k];
  ax_par *P = &b->f->par[k];
  unsigned ns = in->op == AGX_FFMA || in->op == AGX_HFMA ? 3
              : in->op == AGX_FADD || in->op == AGX_FMUL || in->op == AGX_HADD || in->op == AGX_HMUL ? 2 : 1;
  uint32_t t;
  int d = dst(&in->dst, 1, &P->half);
  if (d < 0) return 0;
  if (in->op == AGX_CONVERT && agx_convert(in->mode, in->round, 0, 0, 0, &t) < 0) return 0;
  for (unsigned i = 0; i < ns; i++)
    if (lane_src(b, P, (int)i, &in->src[i], in->op != AGX_CONVERT) < 0) return 0;
  P->lop = in->op, P->sat = in->sat, P->lround = in->round;
  P->lcode = in->op >= AGX_FLOOR && in->op <= AGX_RINT ? ax_funop[in->op - AGX_FLOOR] : in->mode;
  emit(b, AX_LANE, k)->d = (uint16_t)d;
  return 1;
}

/* Lowers instruction k to native micro-ops; 0 when it is not one of
 * those, so that it runs generic. */
static int native(ax_build *b, size_t k) {
  agx_fast *f = b->f;
  const agx_instr *in = &f->p.insn[k];
  ax_par *P = &f->par[k];
  const agx_opnd *s0 = &in->src[0], *s1 = &in->src[1], *s2 = &in->src[2], *s3 = &in->src[3];
  int d = -1, a = -1, bb = -1, c = -1, e = -1;
  unsigned kind;
  switch (in->op) {
    case AGX_FADD: case AGX_FMUL: case AGX_FFMA:
      d = dst(&in->dst, 0, &P->half), a = fsrc(b, s0), bb = fsrc(b, s1);
      c = in->op == AGX_FFMA ? fsrc(b, s2) : a, e = a;
      fmods(s0, &P->ka, &P->fa), fmods(s1, &P->kb, &P->fb);
      if (in->op == AGX_FFMA) fmods(s2, &P->kc, &P->fc);
      else P->kc = 0xffffffffu;
      P->sat = in->sat;
      kind = in->op == AGX_FADD ? AX_FADD : in->op == AGX_FMUL ? AX_FMUL : AX_FFMA;
      break;
    case AGX_IADD: case AGX_ISUB:
      if (in->sat) return lane_int(b, k);
      d = dst(&in->dst, 0, &P->half), a = isrc(b, s0), bb = isrc(b, s1), c = e = a;
      P->neg = in->op == AGX_ISUB, P->shift = in->shift;
      kind = AX_IADD;
      break;
    case AGX_BITOP:
      d = dst(&in->dst, 0, &P->half), a = isrc(b, s0), bb = isrc(b, s1), c = e = a;
      P->tt = in->tt;
      kind = AX_BITOP;
      break;
    case AGX_LDIMM: /* the value from ax_par: no constant vector to fill at each run */
      if (s0->kind != AGX_K_IMM || (d = dst(&in->dst, 1, &P->half)) < 0) return 0;
      P->imm = in->dst.bits == 16 ? s0->value & 0xffff : s0->value;
      {
        gs_uop *u = emit(b, AX_MOVI, k);
        u->d = (uint16_t)d, u->a = (uint16_t)P->imm, u->b = (uint16_t)(P->imm >> 16), u->op = P->half;
      }
      return 1;
    case AGX_GET_SR:
      if (s0->kind != AGX_K_SR || s0->index != 52) return 0;
      d = dst(&in->dst, 1, &P->half), a = bb = c = e = cst(b, 2, 0);
      kind = AX_MOV;
      break;
    case AGX_ICMPSEL: case AGX_FCMPSEL: {
      int fl = in->op == AGX_FCMPSEL;
      if (fl ? (in->cond & 7) == 4 : (in->cond & 3) == 3) return 0;
      d = dst(&in->dst, 0, &P->half);
      a = fl ? fsrc(b, s0) : isrc(b, s0), bb = fl ? fsrc(b, s1) : isrc(b, s1);
      c = isrc(b, s2), e = isrc(b, s3);
      if (fl) fmods(s0, &P->ka, &P->fa), fmods(s1, &P->kb, &P->fb);
      P->cond = in->cond;
      kind = fl ? AX_FCSEL : AX_ICSEL;
      break;
    }
    case AGX_IF_ICMP: case AGX_ELSE_ICMP: case AGX_WHILE_ICMP: case AGX_IF_FCMP: case AGX_ELSE_FCMP:
    case AGX_WHILE_FCMP: case AGX_POP_EXEC: {
      int fl = in->op == AGX_IF_FCMP || in->op == AGX_ELSE_FCMP || in->op == AGX_WHILE_FCMP;
      d = 0;
      if (in->op == AGX_POP_EXEC) {
        a = bb = c = e = 0;
      } else {
        if (fl ? (in->cond & 7) == 4 : (in->cond & 3) == 3) return 0;
        a = fl ? fsrc(b, s0) : isrc(b, s0), bb = fl ? fsrc(b, s1) : isrc(b, s1), c = e = a;
        if (fl) fmods(s0, &P->ka, &P->fa), fmods(s1, &P->kb, &P->fb);
      }
      P->cond = in->cond, P->nest = in->nest & 3;
      kind = AX_EXEC;
      gs_uop *u = NULL;
      if (d < 0 || a < 0 || bb < 0) return 0;
      u = emit(b, kind, k);
      u->op = (uint8_t)(in->op == AGX_POP_EXEC ? 3
                        : (in->op == AGX_IF_ICMP || in->op == AGX_IF_FCMP) ? 0
                        : (in->op == AGX_ELSE_ICMP || in->op == AGX_ELSE_FCMP) ? 1 : 2);
      u->side = (uint8_t)fl, u->d = 0, u->a = (uint16_t)a, u->b = (uint16_t)bb;
      return 1;
    }
    case AGX_ST_VAR:
      d = a = isrc(b, s0);
      if (s1->kind == AGX_K_IMM) {
        if (s1->value >= AGX_UVS_WORDS) return 0;
        bb = a, P->ihalf = 0, P->e = (uint16_t)s1->value;
      } else if (s1->kind == AGX_K_REG && s1->bits == 16 && s1->index < AGX_HALVES) {
        bb = s1->index / 2 * AX_VEC, P->ihalf = (uint8_t)(1 + (s1->index & 1));
      } else {
        return 0;
      }
      c = e = a;
      if (a < 0 || bb < 0) return 0;
      {
        gs_uop *u = emit(b, AX_STVAR, k);
        u->a = (uint16_t)a, u->b = (uint16_t)bb, u->side = in->last;
      }
      return 1;
    case AGX_WAIT:
      emit(b, AX_WAIT, k)->op = in->group & 1;
      return 1;
    case AGX_HADD: case AGX_HMUL: case AGX_HFMA: case AGX_FLOOR: case AGX_SRSQRT: case AGX_RCP: case AGX_RSQRT:
    case AGX_SIN_PT_1: case AGX_LOG2: case AGX_EXP2: case AGX_SIN_PT_2: case AGX_CEIL: case AGX_TRUNC: case AGX_RINT:
    case AGX_CONVERT:
      return lane_float(b, k);
    case AGX_IMAD: case AGX_IMSUB: case AGX_BFI: case AGX_BFEIL: case AGX_EXTR: case AGX_BITREV:
    case AGX_POPCNT: case AGX_FFS:
      return lane_int(b, k);
    case AGX_LOAD: {
      const agx_opnd *dt = &in->dst;
      if (!agx_fmt_size(in->format) || dt->kind != AGX_K_REG || (dt->bits != 16 && dt->bits != 32) ||
          (dt->bits == 32 && (dt->index & 1)))
        return 0;
      if (s1->kind == AGX_K_UNIF && s1->index + 4 <= AGX_UHALVES) {
        c = cst(b, 1, s1->index), e = cst(b, 1, s1->index + 2u);
      } else if (s1->kind == AGX_K_REG && !(s1->index & 1) && s1->index + 4 <= AGX_HALVES) {
        c = s1->index / 2 * AX_VEC, e = c + AX_VEC;
      } else {
        return 0;
      }
      if (s2->kind == AGX_K_REG && !(s2->index & 1) && s2->index + 2 <= AGX_HALVES) a = s2->index / 2 * AX_VEC;
      else if (s2->kind == AGX_K_IMM) a = cst(b, 0, s2->value), P->imm16 = 1;
      else return 0;
      if (a < 0 || c < 0 || e < 0) return 0;
      P->c = (uint16_t)c, P->e = (uint16_t)e;
      emit(b, AX_LOAD, k)->a = (uint16_t)a;
      return 1;
    }
    case AGX_ITER: case AGX_ITERPROJ: case AGX_LDCF: {
      const agx_opnd *dt = &in->dst;
      unsigned count = in->op == AGX_LDCF ? 3 : dt->count ? dt->count : 1;
      if (in->op != AGX_LDCF && in->interp != AGX_INTERP_CENTER && in->interp != AGX_INTERP_CENTROID) return 0;
      if (dt->kind != AGX_K_REG || (dt->bits != 16 && dt->bits != 32) || (dt->bits == 32 && (dt->index & 1)) ||
          dt->index + count * (dt->bits / 16) > AGX_HALVES)
        return 0;
      if (s0->kind != AGX_K_CF || s0->index + (in->op == AGX_LDCF ? 1 : count) > AGX_CFS) return 0;
      if (in->op == AGX_ITERPROJ && s1->index >= AGX_CFS) return 0;
      emit(b, AX_ITER, k);
      return 1;
    }
    default:
      return 0;
  }
  if (d < 0 || a < 0 || bb < 0 || c < 0 || e < 0) {
    if (kind == AX_FADD || kind == AX_FMUL || kind == AX_FFMA) return lane_float(b, k);
    if (kind == AX_IADD) return lane_int(b, k);
    return 0;
  }
  P->c = (uint16_t)c, P->e = (uint16_t)e;
  gs_uop *u = emit(b, kind, k);
  u->d = (uint16_t)d, u->a = (uint16_t)a, u->b = (uint16_t)bb;
  return 1;
}

/* The halves a native instruction reads from registers. */
static unsigned reads(const agx_instr *in, uint16_t out[16]) {
  unsigned n = 0;
  for (int i = 0; i < 4; i++) {
    const agx_opnd *o = &in->src[i];
    unsigned lo, hi;
    if (!span_exact(in, o, &lo, &hi)) continue;
    for (unsigned h = lo; h < hi && n < 16; h++) out[n++] = (uint16_t)h;
  }
  return n;
}

/* The halves that may be pending, per wait group, before each instruction
 * (pend[k][g], bit h of the 256), for a run that starts with none pending
 * at any instruction: a may-analysis over the program's flow (a load,
 * smpf or ld_tile adds the halves its result run may cover to its group; a
 * wait clears its group; a jump goes on at its target and the next
 * instruction, stop and trap nowhere) iterated to its fixed point. */
typedef uint64_t ax_pend[2][4];
static void pending_flow(const agx_program *p, const ax_par *par, ax_pend *pend) {
  size_t n = p->n;
  memset(pend, 0, (n + 1) * sizeof *pend);
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t k = 0; k < n; k++) {
      const agx_instr *in = &p->insn[k];
      ax_pend o;
      memcpy(o, pend[k], sizeof o);
      unsigned lo, hi, g = in->group & 1;
      if ((in->op == AGX_LOAD || in->op == AGX_SMPF || in->op == AGX_LD_TILE) && span(in, &in->dst, &lo, &hi))
        for (unsigned h = lo; h < hi; h++) o[g][h / 64] |= UINT64_C(1) << (h % 64);
      if (in->op == AGX_WAIT) memset(o[g], 0, sizeof o[g]);
      size_t next[2] = {k + 1, (size_t)-1};
      if (in->op == AGX_STOP || in->op == AGX_TRAP) next[0] = (size_t)-1;
      if ((in->op == AGX_JMP_ANY || in->op == AGX_JMP_NONE) && par[k].target >= 0) next[1] = (size_t)par[k].target;
      for (int j = 0; j < 2; j++) {
        if (next[j] == (size_t)-1 || next[j] > n) continue;
        for (int gg = 0; gg < 2; gg++)
          for (int w = 0; w < 4; w++)
            if (o[gg][w] & ~pend[next[j]][gg][w]) pend[next[j]][gg][w] |= o[gg][w], changed = 1;
      }
    }
  }
}

int agx_fast_compile(const agx_program *p, agx_fast **out, gs_diag *d) {
  ax_build b;
  memset(&b, 0, sizeof b);
  agx_fast *f = b.f = calloc(1, sizeof *f);
  size_t n = p->n;
  if (f) {
    f->first = malloc((n + 1) * sizeof *f->first), f->leader = calloc(n + 1, 1);
    f->par = calloc(n + 1, sizeof *f->par);
  }
  if (!f || !f->first || !f->leader || !f->par) {
    agx_fast_free(f);
    return gs_diag_set(d, GS_ENOMEM, "AGX shader: out of memory preparing the program");
  }
  f->p = *p;
  uint32_t a = 0;
  for (size_t k = 0; k < n; k++) {
    const agx_instr *in = &p->insn[k];
    f->par[k].pc = a, a += in->len;
    if (in->len < 2 || in->len > AGX_MAX_BYTES || (in->len & 1)) f->refonly = 1;
  }
  f->end = a;
  f->invariant = !f->refonly;
  for (size_t k = 0; k < n; k++) f->invariant &= invariant(&p->insn[k]);
  /* leaders: the first instruction, jump targets, what follows a jump,
   * stop or trap */
  if (n) f->leader[0] = 1;
  for (size_t k = 0; k < n; k++) {
    const agx_instr *in = &p->insn[k];
    f->par[k].target = -1;
    if (in->op == AGX_JMP_ANY || in->op == AGX_JMP_NONE) {
      long t = agx_seek(p, k, f->par[k].pc, f->par[k].pc + (uint32_t)in->offset);
      f->par[k].target = t;
      if (t >= 0) f->leader[t] = 1;
    }
    if (in->op == AGX_JMP_ANY || in->op == AGX_JMP_NONE || in->op == AGX_STOP || in->op == AGX_TRAP) f->leader[k + 1] = 1;
    if (in->op == AGX_LOAD || in->op == AGX_SMPF || in->op == AGX_LD_TILE) b.loads = 1;
  }
  ax_pend *pend = NULL;
  if (b.loads && !(pend = malloc((n + 1) * sizeof *pend))) b.err = 1;
  if (pend) pending_flow(p, f->par, pend);
  for (size_t k = 0; k < n; k++) {
    const agx_instr *in = &p->insn[k];
    ax_par *P = &f->par[k];
    if (f->leader[k]) {
      size_t m = k + 1;
      while (m < n && !f->leader[m]) m++;
      gs_uop *u = emit(&b, AX_BLOCK, k); /* the count in a and b */
      u->a = (uint16_t)((m - k) & 0xffff), u->b = (uint16_t)((m - k) >> 16);
    }
    f->first[k] = (uint32_t)b.nu;
    if (in->op == AGX_JMP_ANY || in->op == AGX_JMP_NONE) {
      emit(&b, AX_JMP, k)->op = in->op == AGX_JMP_ANY;
      continue;
    }
    if (in->op == AGX_STOP || in->op == AGX_TRAP) {
      emit(&b, in->op == AGX_STOP ? AX_STOP : AX_TRAP, k);
      continue;
    }
    /* the registers it names, for agx_exec_insn: out before, the ones it
     * may write back after */
    uint8_t touch[AX_REGS], wr[AX_REGS];
    memset(touch, 0, sizeof touch), memset(wr, 0, sizeof wr);
    unsigned lo, hi;
    for (int i = 0; i < 4; i++)
      if (span(in, &in->src[i], &lo, &hi))
        for (unsigned h = lo; h < hi; h++) touch[h / 2] = 1;
    if (span(in, &in->dst, &lo, &hi))
      for (unsigned h = lo; h < hi; h++) touch[h / 2] = wr[h / 2] = 1;
    if (stack_op(in->op)) touch[0] = wr[0] = 1;
    P->sync = (uint32_t)f->nlist;
    for (unsigned r = 0; r < AX_REGS; r++)
      if (wr[r]) push(&b, (uint16_t)r), P->nin++;
    for (unsigned r = 0; r < AX_REGS; r++)
      if (touch[r] && !wr[r]) push(&b, (uint16_t)r);
    P->nsync = (uint32_t)f->nlist - P->sync;
    /* a check of the halves it reads that a load may have left pending */
    uint16_t rh[16];
    unsigned nr = reads(in, rh), chk = (unsigned)f->nlist, nchk = 0;
    size_t at = b.nu;
    if (pend)
      for (unsigned i = 0; i < nr; i++)
        if ((pend[k][0][rh[i] / 64] | pend[k][1][rh[i] / 64]) >> (rh[i] % 64) & 1) push(&b, rh[i]), nchk++;
    if (nchk) emit(&b, AX_PCHECK, k);
    P->chk = chk, P->nchk = nchk;
    if (native(&b, k)) {
      if (span_exact(in, &in->dst, &lo, &hi) && hi > f->top) f->top = hi;
      for (int i = 0; i < 4; i++)
        if (span_exact(in, &in->src[i], &lo, &hi)) {
          if (hi > f->top) f->top = hi;
          for (unsigned h = lo; h < hi; h++) b.used[h / 2] = 1;
        }
      if (stack_op(in->op)) {
        if (f->top < 1) f->top = 1;
        b.used[0] = b.written[0] = 1;
      } else if (nchk || may_slow(in->op) || in->dst.bits == 64) { /* may go through agx_exec_insn, or a pair */
        for (unsigned r = 0; r < AX_REGS; r++) b.used[r] |= touch[r], b.written[r] |= wr[r];
      } else if (in->dst.kind == AGX_K_REG) {
        unsigned r = in->dst.index / 2;
        if (P->half) b.used[r] = b.written[r] = 1;
        else b.whole[r] = 1, P->fw = 1;
      }
      continue;
    }
    /* generic: drop the check and anything emitted */
    b.nu = at, f->nlist = chk, P->nchk = 0;
    for (unsigned r = 0; r < AX_REGS; r++) b.used[r] |= touch[r], b.written[r] |= wr[r];
    emit(&b, AX_GENERIC, k);
  }
  free(pend);
  f->first[n] = (uint32_t)b.nu;
  emit(&b, AX_FALL, n);
  for (size_t k = 0; k < n; k++) {
    f->par[k].next = f->first[k + 1] - (k + 1 < n && f->leader[k + 1]); /* its BLOCK, if any */
    if (f->par[k].target >= 0) f->par[k].target = (long)f->first[f->par[k].target] - 1; /* its BLOCK */
  }
  for (unsigned r = 0; r < AX_REGS; r++) {
    if (b.used[r]) f->used[f->nused++] = (uint16_t)r;
    if (b.used[r] && (b.written[r] || b.whole[r])) f->written[f->nwritten++] = (uint16_t)r;
    if (!b.used[r] && b.whole[r]) f->wo[f->nwo++] = (uint16_t)r;
  }
  for (size_t k = 0; k < n; k++) f->par[k].wo = f->par[k].fw && !b.used[p->insn[k].dst.index / 2];
  for (size_t i = 0; i < b.nu; i++)
    if (f->u[i].kind == AX_MOVI) f->u[i].side = f->par[f->u[i].imm].wo;
  if (f->nwo) { /* (wo is in increasing order) */
    f->wo_lo = f->wo[0] > AX_REGS - 8 ? AX_REGS - 8 : f->wo[0];
    f->wo8 = f->wo[f->nwo - 1] < f->wo_lo + 8;
  }
  for (unsigned r = 0; r < 8; r++) {
    f->rowsrc[r] = b.used[r] ? 1 : b.whole[r] ? 2 : 0;
    f->rows1 |= (uint32_t)(f->rowsrc[r] == 1) << r, f->rows2 |= (uint32_t)(f->rowsrc[r] == 2) << r;
  }
  for (unsigned i = 0; i < f->nwritten; i++)
    if (f->written[i] < 32) f->outs |= 1u << f->written[i];
    else f->outs_high = 1;
  for (unsigned i = 0; i < f->nwo; i++)
    if (f->wo[i] < 32) f->outs |= 1u << f->wo[i];
    else f->outs_high = 1;
  if (b.err) {
    agx_fast_free(f);
    return gs_diag_set(d, GS_ENOMEM, "AGX shader: out of memory preparing the program");
  }
  *out = f;
  return GS_OK;
}

void agx_fast_free(agx_fast *f) {
  if (!f) return;
  gs_jit_release(f->jit); /* (no thread runs f any more) */
  free(f->u), free(f->first), free(f->leader), free(f->par), free(f->list), free(f);
}
