/* jit.c — native code from the lane micro-op layer (jit.h, docs/uops.md
 * "Native code"): each micro-op of a stream becomes a basic block of LLVM IR
 * over <N x i32> vectors loaded from and stored to the register file, masks
 * are integers in the ISA's state, escapes are calls; a dispatch block
 * enters the stream at an instruction's first micro-op and takes an
 * escape's jumps. The module is optimised (LLVM's O2 pipeline) and compiled
 * for the host by ORC's LLJIT, on a background thread or at once. */
#include "isa/uop/jit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>

static unsigned policy_threshold = 8;
static int policy_sync;
static once_flag policy_once = ONCE_FLAG_INIT;

static void policy_init(void) {
  const char *e = getenv("GPUSIM_JIT");
  if (!e || !*e) return;
  if (!strcmp(e, "off")) policy_threshold = 0;
  else if (!strcmp(e, "sync")) policy_sync = 1;
  else policy_threshold = (unsigned)strtoul(e, NULL, 10);
}
void gs_jit_policy(unsigned threshold, int sync) {
  call_once(&policy_once, policy_init);
  policy_threshold = threshold;
  policy_sync = sync;
}
unsigned gs_jit_threshold(void) {
  call_once(&policy_once, policy_init);
  return policy_threshold && gs_jit_available() ? policy_threshold : 0;
}
int gs_jit_sync(void) {
  call_once(&policy_once, policy_init);
  return policy_sync;
}

#if !GS_JIT

int gs_jit_available(void) { return 0; }
gs_jit_code *gs_jit_compile(const gs_jit_desc *d, const gs_uop *prog, uint32_t n, const uint32_t *entries,
                            uint32_t ne) {
  (void)d, (void)prog, (void)n, (void)entries, (void)ne;
  return NULL;
}
gs_jit_code *gs_jit_submit(const gs_jit_desc *d, const gs_uop *prog, uint32_t n, const uint32_t *entries,
                           uint32_t ne) {
  return gs_jit_compile(d, prog, n, entries, ne);
}
gs_jit_fn gs_jit_entry(gs_jit_code *c) {
  (void)c;
  return NULL;
}
void gs_jit_release(gs_jit_code *c) { (void)c; }
void gs_jit_stats(unsigned *programs, double *seconds) {
  *programs = 0;
  *seconds = 0;
}

#else

#include <stdatomic.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

struct gs_jit_code {
  _Atomic uintptr_t fn;  /* the entry once compiled, else 0 */
  _Atomic int refs;      /* the caller's, and the background job's while queued */
  LLVMOrcResourceTrackerRef rt; /* the code in the JIT (under `lock`) */
  /* the job */
  gs_jit_desc desc;
  const gs_uop *prog; /* the caller's stream (escapes get pointers into it) */
  gs_uop *copy;       /* its copy, compiled in the background */
  uint32_t n, ne;
  uint32_t *entries;
  int queued; /* submitted to the background thread */
  struct gs_jit_code *next;
};

/* One JIT for the process; everything that touches it holds `lock`. */
static once_flag init_once = ONCE_FLAG_INIT;
static int ready;
static mtx_t lock;
static LLVMOrcLLJITRef jit;
static LLVMOrcJITDylibRef dylib;
static LLVMTargetMachineRef tm; /* the host's, for the optimiser's cost model */
static int host_avx;            /* an x86 host with AVX (movmskps on 8 lanes) */
static unsigned serial, compiled;
static double compile_seconds;

/* The background thread's queue. */
static mtx_t qlock;
static cnd_t qcond, qdone;
static gs_jit_code *busy_job; /* the job being compiled */
static gs_jit_code *queue_head, *queue_tail;
static int worker_started;

static void report(const char *what, LLVMErrorRef err) {
  char *msg = LLVMGetErrorMessage(err);
  fprintf(stderr, "gpusim: native code: %s: %s\n", what, msg);
  LLVMDisposeErrorMessage(msg);
}

static void warm_up(void);

static void init(void) {
  if (mtx_init(&lock, mtx_plain) != thrd_success || mtx_init(&qlock, mtx_plain) != thrd_success ||
      cnd_init(&qcond) != thrd_success || cnd_init(&qdone) != thrd_success)
    return;
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) return;
  LLVMOrcJITTargetMachineBuilderRef jtmb;
  LLVMErrorRef err = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (err) {
    report("the host", err);
    return;
  }
  LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(b, jtmb);
  if ((err = LLVMOrcCreateLLJIT(&jit, b))) {
    report("LLJIT", err);
    return;
  }
  dylib = LLVMOrcLLJITGetMainJITDylib(jit);
  char *triple = LLVMGetDefaultTargetTriple(), *error = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(triple, &target, &error)) {
    fprintf(stderr, "gpusim: native code: %s\n", error);
    LLVMDisposeMessage(error);
    LLVMDisposeMessage(triple);
    return;
  }
  char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
  host_avx = !strncmp(triple, "x86_64", 6) && strstr(features, "+avx,") != NULL;
  tm = LLVMCreateTargetMachine(target, triple, cpu, features, LLVMCodeGenLevelDefault, LLVMRelocDefault,
                               LLVMCodeModelJITDefault);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  LLVMDisposeMessage(triple);
  ready = tm != NULL;
  if (ready) warm_up();
}

/* LLVM creates some of its static objects the first time a path of its
 * code runs, and the exit destroys them before the handlers registered
 * earlier: a compilation under way at exit could find them gone. So the
 * first use compiles every kind of micro-op once, for 16 and 32 lanes,
 * and then registers the handler that makes the exit wait for the
 * background thread (stop_worker), whose objects now outlive it. */
static int warm_escape(void *env, char *R, const gs_uop *u, uint32_t *to) {
  (void)env, (void)R, (void)u, (void)to;
  return GS_JIT_NEXT;
}
static void stop_worker(void);
static void compile_locked(gs_jit_code *c);
static void warm_up(void) {
  for (int n = 16; n <= 32; n += 16) {
    gs_uop prog[GS_UOP_END + 4];
    uint32_t k = 0, entry = 0;
    for (unsigned kind = 0; kind < GS_UOP_END; kind++)
      prog[k++] = (gs_uop){.kind = (uint8_t)kind, .cond = 3, .d = (uint16_t)(gs_uop_writes_mask(kind) ? 2 : 4 * n),
                           .a = 0, .b = (uint16_t)(8 * n)};
    prog[k++] = (gs_uop){.kind = GS_UOP_ISA};
    prog[k++] = (gs_uop){.kind = GS_UOP_ISA + 1};
    prog[k++] = (gs_uop){.kind = GS_UOP_END};
    gs_jit_code c = {.desc = {.lanes = n, .mask_bits = n, .mask_off = {-1, 0, 4, 8, 12, 16, 20, 24}, .regs_off = 64,
                              .escape = warm_escape, .step_kind = GS_UOP_ISA + 1, .step_busy = 32, .step_count = 40,
                              .step_pc = 48, .step_pc_add = 8, .step_stop = 0},
                     .prog = prog, .copy = prog, .n = k, .ne = 1, .entries = &entry};
    atomic_init(&c.fn, 0);
    atomic_init(&c.refs, 1);
    mtx_lock(&lock);
    compile_locked(&c);
    if (c.rt) {
      LLVMErrorRef err = LLVMOrcResourceTrackerRemove(c.rt);
      if (err) report("freeing code", err);
      LLVMOrcReleaseResourceTracker(c.rt);
    }
    if (atomic_load(&c.fn)) compiled--; /* not a program's */
    mtx_unlock(&lock);
  }
  atexit(stop_worker);
}

int gs_jit_available(void) {
  call_once(&init_once, init);
  return ready;
}

void gs_jit_stats(unsigned *programs, double *seconds) {
  if (!gs_jit_available()) {
    *programs = 0, *seconds = 0;
    return;
  }
  mtx_lock(&lock);
  *programs = compiled;
  *seconds = compile_seconds;
  mtx_unlock(&lock);
}

/* ---- IR ------------------------------------------------------------------- */

typedef struct cg {
  LLVMContextRef C;
  LLVMModuleRef M;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  const gs_jit_desc *d;
  int N;
  LLVMTypeRef i1, i16, i32, i64, ptr, vi32, vf32, vi1, lanes_int, mword;
  LLVMValueRef state, regs, consts, env, to, idx;
  LLVMValueRef dyn, ign; /* "round.dynamic", "fpexcept.ignore" */
  LLVMAttributeRef strictfp;
  LLVMValueRef eu, econt; /* the shared blocks' micro-op and the number after it */
  LLVMBasicBlockRef esc_blk, model_blk;
  unsigned prof; /* the "prof" metadata kind */
} cg;

static LLVMValueRef k32(cg *g, uint32_t v) { return LLVMConstInt(g->i32, v, 0); }
static LLVMValueRef splat(cg *g, uint32_t v) {
  LLVMValueRef e[32];
  for (int i = 0; i < g->N; i++) e[i] = k32(g, v);
  return LLVMConstVector(e, (unsigned)g->N);
}
static LLVMValueRef at(cg *g, LLVMValueRef base, uint64_t off) {
  LLVMValueRef o = LLVMConstInt(g->i64, off, 0);
  return LLVMBuildGEP2(g->b, LLVMInt8TypeInContext(g->C), base, &o, 1, "");
}
static LLVMValueRef load(cg *g, LLVMTypeRef t, LLVMValueRef p, unsigned align) {
  LLVMValueRef v = LLVMBuildLoad2(g->b, t, p, "");
  LLVMSetAlignment(v, align);
  return v;
}
static void store(cg *g, LLVMValueRef v, LLVMValueRef p, unsigned align) {
  LLVMSetAlignment(LLVMBuildStore(g->b, v, p), align);
}
static LLVMValueRef reg(cg *g, unsigned off) { return load(g, g->vi32, at(g, g->regs, off), 64); }
static void set_reg(cg *g, unsigned off, LLVMValueRef v) { store(g, v, at(g, g->regs, off), 64); }

/* Lanes of condition c as an i32 (run.h's GS_UOP_COND) */
static LLVMValueRef mask(cg *g, unsigned k) {
  if (k == 0 || g->d->mask_off[k] < 0) return k32(g, 0);
  LLVMValueRef m = load(g, g->mword, at(g, g->state, (uint64_t)g->d->mask_off[k]), g->d->mask_bits / 8);
  return g->d->mask_bits == 32 ? m : LLVMBuildZExt(g->b, m, g->i32, "");
}
static LLVMValueRef cond(cg *g, unsigned c) {
  uint32_t all = g->N == 32 ? 0xffffffffu : (1u << g->N) - 1u;
  if (c == 1) return k32(g, all);
  LLVMValueRef m = mask(g, c >> 1);
  if (c & 1) m = LLVMBuildXor(g->b, m, k32(g, 0xffffffffu), "");
  return LLVMBuildAnd(g->b, m, k32(g, all), "");
}
static LLVMValueRef lanes(cg *g, LLVMValueRef l) {
  if (g->N != 32) l = LLVMBuildTrunc(g->b, l, g->lanes_int, "");
  return LLVMBuildBitCast(g->b, l, g->vi1, "");
}
static LLVMValueRef lanes_to_int(cg *g, LLVMValueRef v) {
  LLVMValueRef m = LLVMBuildBitCast(g->b, v, g->lanes_int, "");
  return g->N == 32 ? m : LLVMBuildZExt(g->b, m, g->i32, "");
}

static LLVMValueRef intrinsic(cg *g, const char *name, LLVMTypeRef *types, unsigned nt, LLVMValueRef *args,
                              unsigned na, int strict) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->M, id, types, nt);
  LLVMTypeRef ft = LLVMIntrinsicGetType(g->C, id, types, nt);
  LLVMValueRef call = LLVMBuildCall2(g->b, ft, f, args, na, "");
  if (strict) LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, g->strictfp);
  return call;
}
static LLVMValueRef md(cg *g, const char *s) {
  return LLVMMetadataAsValue(g->C, LLVMMDStringInContext2(g->C, s, strlen(s)));
}
static LLVMValueRef as_f(cg *g, LLVMValueRef v) { return LLVMBuildBitCast(g->b, v, g->vf32, ""); }
static LLVMValueRef as_i(cg *g, LLVMValueRef v) { return LLVMBuildBitCast(g->b, v, g->vi32, ""); }

/* a op b in the host's environment: "fadd", "fsub", "fmul" */
static LLVMValueRef fop(cg *g, const char *op, LLVMValueRef a, LLVMValueRef b) {
  char name[64];
  snprintf(name, sizeof name, "llvm.experimental.constrained.%s", op);
  LLVMValueRef args[4] = {as_f(g, a), as_f(g, b), g->dyn, g->ign};
  return as_i(g, intrinsic(g, name, &g->vf32, 1, args, 4, 1));
}
/* IEEE compare of the floats in a and b: "olt", "oeq", "oge", "ogt" */
static LLVMValueRef fcmp(cg *g, const char *pred, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[4] = {as_f(g, a), as_f(g, b), md(g, pred), g->ign};
  return intrinsic(g, "llvm.experimental.constrained.fcmp", &g->vf32, 1, args, 4, 1);
}
static LLVMValueRef ftoi(cg *g, LLVMValueRef a) {
  LLVMTypeRef t[2] = {g->vi32, g->vf32};
  LLVMValueRef args[2] = {as_f(g, a), g->ign};
  return intrinsic(g, "llvm.experimental.constrained.fptosi", t, 2, args, 2, 1);
}
static LLVMValueRef itof(cg *g, LLVMValueRef a) {
  LLVMTypeRef t[2] = {g->vf32, g->vi32};
  LLVMValueRef args[3] = {a, g->dyn, g->ign};
  return as_i(g, intrinsic(g, "llvm.experimental.constrained.sitofp", t, 2, args, 3, 1));
}

#define AND(x, v) LLVMBuildAnd(g->b, x, splat(g, v), "")
#define ICMP(p, x, y) LLVMBuildICmp(g->b, p, x, y, "")
#define SEL(c, x, y) LLVMBuildSelect(g->b, c, x, y, "")
#define EXP 0x7f800000u
#define SIGN 0x80000000u

/* uop.h's gs_lane_nn_in, gs_lane_is_nan, gs_lane_nan_default on all lanes */
static LLVMValueRef nn_in(cg *g, LLVMValueRef x) {
  LLVMValueRef e = AND(x, EXP);
  return SEL(ICMP(LLVMIntEQ, e, splat(g, 0)), AND(x, SIGN),
             SEL(ICMP(LLVMIntEQ, e, splat(g, EXP)), AND(x, 0xff800000u), x));
}
static LLVMValueRef is_nan(cg *g, LLVMValueRef x) { return ICMP(LLVMIntUGT, AND(x, 0x7fffffffu), splat(g, EXP)); }
static LLVMValueRef nan_default(cg *g, LLVMValueRef r) { return SEL(is_nan(g, r), splat(g, 0x7fc00000u), r); }

/* The no-NaN model's lane loop for FADD_NN, FSUB_NN, FMUL_NN when an
 * operand has exponent 255: out of line, as in run.h, and the same lane
 * functions, so the same bits (and a tenth of the code to compile). */
static void model(int n, char *R, const gs_uop *u) {
  uint32_t x[32], y[32], r[32];
  memcpy(x, R + u->a, 4 * (size_t)n);
  memcpy(y, R + u->b, 4 * (size_t)n);
  for (int i = 0; i < n; i++)
    r[i] = u->kind == GS_UOP_FADD_NN   ? gs_lane_fadd_nn(x[i], y[i])
           : u->kind == GS_UOP_FSUB_NN ? gs_lane_fsub_nn(x[i], y[i])
                                       : gs_lane_fmul_nn(x[i], y[i]);
  memcpy(R + u->d, r, 4 * (size_t)n);
}
static void model16(char *R, const gs_uop *u) { model(16, R, u); }
static void model32(char *R, const gs_uop *u) { model(32, R, u); }

static LLVMValueRef fmin_max(cg *g, LLVMValueRef a, LLVMValueRef b, int max) {
  /* gs_lane_fmin / gs_lane_fmax */
  LLVMValueRef first = fcmp(g, max ? "ogt" : "olt", a, b), second = fcmp(g, max ? "ogt" : "olt", b, a);
  LLVMValueRef neg = ICMP(LLVMIntSLT, a, splat(g, 0));
  LLVMValueRef tie = max ? SEL(neg, b, a) : SEL(neg, a, b);
  LLVMValueRef r = SEL(first, a, SEL(second, b, tie));
  r = SEL(is_nan(g, b), a, r);
  r = SEL(is_nan(g, a), b, r);
  return nan_default(g, r);
}

static LLVMValueRef in_int_range(cg *g, LLVMValueRef x) {
  return LLVMBuildAnd(g->b, fcmp(g, "oge", x, splat(g, 0xcf000000u)), fcmp(g, "olt", x, splat(g, 0x4f000000u)), "");
}

/* Result of a neutral arithmetic kind from a and b (registers' values) */
static LLVMValueRef arith(cg *g, unsigned k, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef s31 = AND(b, 31);
  LLVMTypeRef vt = g->vi32;
  switch (k) {
  case GS_UOP_FMIN_NN:
  case GS_UOP_FMAX_NN: {
    a = nn_in(g, a), b = nn_in(g, b);
    return SEL(fcmp(g, k == GS_UOP_FMIN_NN ? "olt" : "ogt", a, b), a, b);
  }
  case GS_UOP_FMINABS_NN:
  case GS_UOP_FMAXABS_NN:
    a = AND(nn_in(g, a), 0x7fffffffu), b = AND(nn_in(g, b), 0x7fffffffu);
    return SEL(ICMP(k == GS_UOP_FMINABS_NN ? LLVMIntULT : LLVMIntUGT, a, b), a, b);
  case GS_UOP_FTOI_NN: {
    LLVMValueRef x = nn_in(g, a);
    return ftoi(g, SEL(in_int_range(g, x), x, splat(g, 0)));
  }
  case GS_UOP_FADD: return nan_default(g, fop(g, "fadd", a, b));
  case GS_UOP_FSUB: return nan_default(g, fop(g, "fsub", a, b));
  case GS_UOP_FMUL: return nan_default(g, fop(g, "fmul", a, b));
  case GS_UOP_FMIN: return fmin_max(g, a, b, 0);
  case GS_UOP_FMAX: return fmin_max(g, a, b, 1);
  case GS_UOP_FTOI_SAT: {
    LLVMValueRef r = ftoi(g, SEL(in_int_range(g, a), a, splat(g, 0)));
    r = SEL(fcmp(g, "oge", a, splat(g, 0x4f000000u)), splat(g, 0x7fffffffu), r);
    return SEL(fcmp(g, "olt", a, splat(g, 0xcf000000u)), splat(g, 0x80000000u), r);
  }
  case GS_UOP_ITOF: return itof(g, a);
  case GS_UOP_IADD: return LLVMBuildAdd(g->b, a, b, "");
  case GS_UOP_ISUB: return LLVMBuildSub(g->b, a, b, "");
  case GS_UOP_SHR: return LLVMBuildLShr(g->b, a, s31, "");
  case GS_UOP_ASR: return LLVMBuildAShr(g->b, a, s31, "");
  case GS_UOP_ROR: {
    LLVMValueRef args[3] = {a, a, b};
    return intrinsic(g, "llvm.fshr", &vt, 1, args, 3, 0);
  }
  case GS_UOP_SHL: return LLVMBuildShl(g->b, a, s31, "");
  case GS_UOP_SHR_SAT: return SEL(ICMP(LLVMIntUGT, b, splat(g, 31)), splat(g, 0), LLVMBuildLShr(g->b, a, s31, ""));
  case GS_UOP_SHL_SAT: return SEL(ICMP(LLVMIntUGT, b, splat(g, 31)), splat(g, 0), LLVMBuildShl(g->b, a, s31, ""));
  case GS_UOP_ASR_SAT:
    return LLVMBuildAShr(g->b, a, SEL(ICMP(LLVMIntUGT, b, splat(g, 31)), splat(g, 31), b), "");
  case GS_UOP_IMIN: return SEL(ICMP(LLVMIntSLT, a, b), a, b);
  case GS_UOP_IMAX: return SEL(ICMP(LLVMIntSGT, a, b), a, b);
  case GS_UOP_UMIN: return SEL(ICMP(LLVMIntULT, a, b), a, b);
  case GS_UOP_UMAX: return SEL(ICMP(LLVMIntUGT, a, b), a, b);
  case GS_UOP_AND: return LLVMBuildAnd(g->b, a, b, "");
  case GS_UOP_OR: return LLVMBuildOr(g->b, a, b, "");
  case GS_UOP_XOR: return LLVMBuildXor(g->b, a, b, "");
  case GS_UOP_NOT: return LLVMBuildXor(g->b, a, splat(g, 0xffffffffu), "");
  case GS_UOP_CLZ: {
    LLVMValueRef args[2] = {a, LLVMConstInt(g->i1, 0, 0)};
    return intrinsic(g, "llvm.ctlz", &vt, 1, args, 2, 0);
  }
  case GS_UOP_MUL24: return LLVMBuildMul(g->b, AND(a, 0xffffffu), AND(b, 0xffffffu), "");
  default: return LLVMBuildMul(g->b, a, b, ""); /* MUL32 */
  }
}

/* Compare kinds: <N x i1> */
static LLVMValueRef compare(cg *g, unsigned k, LLVMValueRef a, LLVMValueRef b) {
  switch (k) {
  case GS_UOP_CMP_IEQ: return ICMP(LLVMIntEQ, a, b);
  case GS_UOP_CMP_INE: return ICMP(LLVMIntNE, a, b);
  case GS_UOP_CMP_ILT: return ICMP(LLVMIntSLT, a, b);
  case GS_UOP_CMP_ULT: return ICMP(LLVMIntULT, a, b);
  case GS_UOP_CMP_FEQ: return fcmp(g, "oeq", a, b);
  default: return fcmp(g, "olt", a, b);
  }
}

/* Whether any lane of v has bit 31 set: on x86 with AVX the halves or-ed
 * down to 8 lanes and one movmskps (LLVM's generic reduction takes its
 * instruction selector several times as long) */
static LLVMValueRef any_sign(cg *g, LLVMValueRef v) {
  if (!host_avx) {
    LLVMTypeRef vt = g->vi32;
    LLVMValueRef r = intrinsic(g, "llvm.vector.reduce.or", &vt, 1, &v, 1, 0);
    return LLVMBuildICmp(g->b, LLVMIntSLT, r, k32(g, 0), "");
  }
  LLVMValueRef acc = NULL;
  for (int c = 0; c < g->N / 8; c++) {
    LLVMValueRef idx[8];
    for (int i = 0; i < 8; i++) idx[i] = k32(g, (uint32_t)(8 * c + i));
    LLVMValueRef part = LLVMBuildShuffleVector(g->b, v, LLVMGetPoison(g->vi32), LLVMConstVector(idx, 8), "");
    acc = acc ? LLVMBuildOr(g->b, acc, part, "") : part;
  }
  LLVMValueRef f = LLVMBuildBitCast(g->b, acc, LLVMVectorType(LLVMFloatTypeInContext(g->C), 8), "");
  LLVMTypeRef ft = LLVMFunctionType(g->i32, (LLVMTypeRef[]){LLVMVectorType(LLVMFloatTypeInContext(g->C), 8)}, 1, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(g->M, "llvm.x86.avx.movmsk.ps.256");
  if (!fn) fn = LLVMAddFunction(g->M, "llvm.x86.avx.movmsk.ps.256", ft);
  LLVMValueRef r = LLVMBuildCall2(g->b, ft, fn, &f, 1, "");
  return LLVMBuildICmp(g->b, LLVMIntNE, r, k32(g, 0), "");
}

static void unlikely(cg *g, LLVMValueRef br) {
  LLVMMetadataRef w[3] = {LLVMMDStringInContext2(g->C, "branch_weights", 14),
                          LLVMValueAsMetadata(LLVMConstInt(g->i32, 1, 0)),
                          LLVMValueAsMetadata(LLVMConstInt(g->i32, 4000, 0))};
  LLVMSetMetadata(br, g->prof, LLVMMetadataAsValue(g->C, LLVMMDNodeInContext2(g->C, w, 3)));
}

static LLVMBasicBlockRef block(cg *g) { return LLVMAppendBasicBlockInContext(g->C, g->fn, ""); }
static int terminated(cg *g) { return LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(g->b)) != NULL; }

/* Micro-op `orig` (the caller's pointer) and the number of the one after
 * it, for the shared blocks that call the escape or the model's loop and
 * then go on through the dispatch block. */
static void leave_for(cg *g, const gs_uop *orig, uint32_t cont) {
  store(g, LLVMConstInt(g->i64, (uint64_t)(uintptr_t)orig, 0), g->eu, 8);
  store(g, k32(g, cont), g->econt, 4);
}

/* Emits micro-op i into the current block. Blocks start only where the
 * dispatch block may enter: the entries, and the micro-op after each one
 * that may leave for a shared block (an escape, the step, a no-NaN float
 * operation), so a run of plain micro-ops is one block. */
static void emit_uop(cg *g, uint32_t i, const gs_uop *u, const gs_uop *orig, LLVMBasicBlockRef next) {
  unsigned k = u->kind;
  const gs_jit_desc *d = g->d;
  if ((int)k == d->step_kind) {
    /* busy, or the counter reaching the stop: the escape does all of it */
    LLVMValueRef cp = at(g, g->state, d->step_count), pp = at(g, g->state, d->step_pc);
    LLVMValueRef busy = load(g, g->i64, at(g, g->state, d->step_busy), 8);
    LLVMValueRef c = load(g, g->i64, cp, 8), pc = load(g, g->i32, pp, 4);
    LLVMValueRef c1 = LLVMBuildAdd(g->b, c, LLVMConstInt(g->i64, 1, 0), "");
    LLVMValueRef lim = load(g, g->i64, at(g, g->env, d->step_stop), 8);
    LLVMValueRef slow = LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, busy, LLVMConstInt(g->i64, 0, 0), ""),
                                    LLVMBuildICmp(g->b, LLVMIntEQ, c1, lim, ""), "");
    store(g, SEL(slow, c, c1), cp, 8);
    store(g, SEL(slow, pc, LLVMBuildAdd(g->b, pc, k32(g, d->step_pc_add), "")), pp, 4);
    leave_for(g, orig, i + 1);
    unlikely(g, LLVMBuildCondBr(g->b, slow, g->esc_blk, next));
    return;
  }
  if (k >= GS_UOP_ISA) {
    leave_for(g, orig, i + 1);
    LLVMBuildBr(g->b, g->esc_blk);
    return;
  }
  switch (k) {
  case GS_UOP_END: LLVMBuildRet(g->b, k32(g, 0)); return;
  case GS_UOP_FADD_NN:
  case GS_UOP_FSUB_NN:
  case GS_UOP_FMUL_NN: {
    /* run.h's GS_UOP_FLOAT_NN: the host's operation unless an operand has
     * exponent 255, then the model's lane loop. Exponent 255 is the only
     * one that carries into bit 31. With such an operand, d keeps its value
     * and the shared block runs the loop on the operands in place. */
    LLVMValueRef a = reg(g, u->a), b = reg(g, u->b);
    LLVMValueRef sp = LLVMBuildOr(g->b, LLVMBuildAdd(g->b, AND(a, EXP), splat(g, 0x00800000u), ""),
                                  LLVMBuildAdd(g->b, AND(b, EXP), splat(g, 0x00800000u), ""), "");
    LLVMValueRef any = any_sign(g, sp);
    LLVMValueRef r = fop(g, k == GS_UOP_FADD_NN ? "fadd" : k == GS_UOP_FSUB_NN ? "fsub" : "fmul", a, b);
    set_reg(g, u->d, SEL(any, reg(g, u->d), r));
    leave_for(g, orig, i + 1);
    unlikely(g, LLVMBuildCondBr(g->b, any, g->model_blk, next));
    return;
  }
  case GS_UOP_SELECT: {
    LLVMValueRef l = lanes(g, cond(g, u->cond));
    set_reg(g, u->d, SEL(l, reg(g, u->a), reg(g, u->b)));
    return;
  }
  case GS_UOP_MOVE:
    if (u->cond == 0) return;
    if (u->cond == 1) set_reg(g, u->d, reg(g, u->a));
    else {
      LLVMValueRef l = lanes(g, cond(g, u->cond)), a = reg(g, u->a);
      set_reg(g, u->d, SEL(l, a, reg(g, u->d)));
    }
    return;
  case GS_UOP_CONST:
    set_reg(g, u->d, load(g, g->vi32, at(g, g->consts, (uint64_t)u->imm * 4u * (unsigned)g->N), 4));
    return;
  default:
    if (gs_uop_writes_mask(k)) {
      LLVMValueRef m = lanes_to_int(g, compare(g, k, reg(g, u->a), reg(g, u->b)));
      LLVMValueRef l = cond(g, u->cond), old = mask(g, u->d);
      LLVMValueRef r = LLVMBuildOr(g->b, LLVMBuildAnd(g->b, old, LLVMBuildXor(g->b, l, k32(g, 0xffffffffu), ""), ""),
                                   LLVMBuildAnd(g->b, m, l, ""), "");
      if (u->d < GS_UOP_MASKS && d->mask_off[u->d] >= 0) {
        if (d->mask_bits != 32) r = LLVMBuildTrunc(g->b, r, g->mword, "");
        store(g, r, at(g, g->state, (uint64_t)d->mask_off[u->d]), (unsigned)d->mask_bits / 8);
      }
    } else {
      set_reg(g, u->d, arith(g, k, reg(g, u->a), reg(g, u->b)));
    }
    return;
  }
}

/* Whether micro-op u may leave its block (emit_uop) */
static int leaves(const gs_jit_desc *d, const gs_uop *u) {
  return u->kind >= GS_UOP_ISA || (int)u->kind == d->step_kind || u->kind == GS_UOP_FADD_NN ||
         u->kind == GS_UOP_FSUB_NN || u->kind == GS_UOP_FMUL_NN;
}

/* The module with function `name` for the job */
static LLVMModuleRef build(LLVMContextRef C, const gs_jit_code *c, const char *name) {
  cg G = {0}, *g = &G;
  g->C = C;
  g->d = &c->desc;
  g->N = c->desc.lanes;
  g->M = LLVMModuleCreateWithNameInContext(name, C);
  LLVMSetTarget(g->M, LLVMOrcLLJITGetTripleString(jit));
  LLVMSetDataLayout(g->M, LLVMOrcLLJITGetDataLayoutStr(jit));
  g->i1 = LLVMInt1TypeInContext(C);
  g->i16 = LLVMInt16TypeInContext(C);
  g->i32 = LLVMInt32TypeInContext(C);
  g->i64 = LLVMInt64TypeInContext(C);
  g->ptr = LLVMPointerTypeInContext(C, 0);
  g->vi32 = LLVMVectorType(g->i32, (unsigned)g->N);
  g->vf32 = LLVMVectorType(LLVMFloatTypeInContext(C), (unsigned)g->N);
  g->vi1 = LLVMVectorType(g->i1, (unsigned)g->N);
  g->lanes_int = LLVMIntTypeInContext(C, (unsigned)g->N);
  g->mword = LLVMIntTypeInContext(C, (unsigned)c->desc.mask_bits);
  g->prof = LLVMGetMDKindIDInContext(C, "prof", 4);
  unsigned sfp = LLVMGetEnumAttributeKindForName("strictfp", 8);
  g->strictfp = LLVMCreateEnumAttribute(C, sfp, 0);
  LLVMTypeRef params[5] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i32};
  g->fn = LLVMAddFunction(g->M, name, LLVMFunctionType(g->i32, params, 5, 0));
  LLVMAddAttributeAtIndex(g->fn, LLVMAttributeFunctionIndex, g->strictfp);
  LLVMTypeRef eparams[4] = {g->ptr, g->ptr, g->ptr, g->ptr};
  LLVMTypeRef esc_ty = LLVMFunctionType(g->i32, eparams, 4, 0);
  LLVMTypeRef model_ty = LLVMFunctionType(LLVMVoidTypeInContext(C), eparams, 2, 0);
  g->dyn = md(g, "round.dynamic");
  g->ign = md(g, "fpexcept.ignore");
  g->b = LLVMCreateBuilderInContext(C);

  uint32_t n = c->n;
  LLVMBasicBlockRef *blk = calloc((size_t)n + 1, sizeof *blk);
  if (!blk) {
    LLVMDisposeBuilder(g->b);
    LLVMDisposeModule(g->M);
    return NULL;
  }
  LLVMBasicBlockRef entry = block(g), dispatch = block(g), exit = block(g);
  g->esc_blk = block(g), g->model_blk = block(g);
  for (uint32_t i = 0; i < c->ne; i++)
    if (c->entries[i] < n) blk[c->entries[i]] = exit; /* marked; made below */
  for (uint32_t i = 0; i < n; i++)
    if (leaves(g->d, &c->copy[i])) blk[i + 1] = exit;
  for (uint32_t i = 0; i < n; i++)
    if (blk[i]) blk[i] = block(g);
  blk[n] = exit; /* running off the end: the interpreter decides */

  LLVMPositionBuilderAtEnd(g->b, entry);
  g->state = LLVMGetParam(g->fn, 0);
  g->regs = c->desc.regs_off >= 0 ? at(g, g->state, (uint64_t)c->desc.regs_off) : LLVMGetParam(g->fn, 1);
  g->consts = LLVMGetParam(g->fn, 2);
  g->env = LLVMGetParam(g->fn, 3);
  g->to = LLVMBuildAlloca(g->b, g->i32, "to");
  g->idx = LLVMBuildAlloca(g->b, g->i32, "idx");
  g->eu = LLVMBuildAlloca(g->b, g->i64, "eu");
  g->econt = LLVMBuildAlloca(g->b, g->i32, "econt");
  store(g, LLVMGetParam(g->fn, 4), g->idx, 4);
  LLVMBuildBr(g->b, dispatch);

  LLVMPositionBuilderAtEnd(g->b, dispatch);
  LLVMValueRef sw = LLVMBuildSwitch(g->b, load(g, g->i32, g->idx, 4), exit, c->ne);
  for (uint32_t i = 0; i < n; i++)
    if (blk[i]) LLVMAddCase(sw, k32(g, i), blk[i]);

  LLVMPositionBuilderAtEnd(g->b, exit);
  LLVMBuildRet(g->b, LLVMConstInt(g->i32, (unsigned long long)(int64_t)GS_JIT_EXIT, 1));

  /* the escape: on, a jump, or its value returned */
  LLVMPositionBuilderAtEnd(g->b, g->esc_blk);
  LLVMValueRef up = LLVMBuildIntToPtr(g->b, load(g, g->i64, g->eu, 8), g->ptr, "");
  store(g, load(g, g->i32, g->econt, 4), g->idx, 4);
  LLVMValueRef esc = LLVMConstIntToPtr(LLVMConstInt(g->i64, (uint64_t)(uintptr_t)c->desc.escape, 0), g->ptr);
  LLVMValueRef args[4] = {g->env, g->regs, up, g->to};
  LLVMValueRef r = LLVMBuildCall2(g->b, esc_ty, esc, args, 4, "");
  LLVMBasicBlockRef ret = block(g), jump = block(g);
  LLVMValueRef rsw = LLVMBuildSwitch(g->b, r, ret, 2);
  LLVMAddCase(rsw, LLVMConstInt(g->i32, (unsigned long long)(int64_t)GS_JIT_NEXT, 1), dispatch);
  LLVMAddCase(rsw, LLVMConstInt(g->i32, (unsigned long long)(int64_t)GS_JIT_JUMP, 1), jump);
  LLVMPositionBuilderAtEnd(g->b, ret);
  LLVMBuildRet(g->b, r);
  LLVMPositionBuilderAtEnd(g->b, jump);
  store(g, load(g, g->i32, g->to, 4), g->idx, 4);
  LLVMBuildBr(g->b, dispatch);

  /* the no-NaN model's lane loop */
  LLVMPositionBuilderAtEnd(g->b, g->model_blk);
  up = LLVMBuildIntToPtr(g->b, load(g, g->i64, g->eu, 8), g->ptr, "");
  LLVMValueRef margs[2] = {g->regs, up};
  LLVMValueRef mf = LLVMConstIntToPtr(LLVMConstInt(g->i64, (uint64_t)(uintptr_t)(g->N == 16 ? model16 : model32), 0), g->ptr);
  LLVMAddCallSiteAttribute(LLVMBuildCall2(g->b, model_ty, mf, margs, 2, ""), LLVMAttributeFunctionIndex, g->strictfp);
  store(g, load(g, g->i32, g->econt, 4), g->idx, 4);
  LLVMBuildBr(g->b, dispatch);

  LLVMPositionBuilderAtEnd(g->b, exit); /* terminated: the first micro-op opens its block */
  for (uint32_t i = 0; i < n; i++) {
    if (blk[i] && i) {
      if (!terminated(g)) LLVMBuildBr(g->b, blk[i]);
      LLVMPositionBuilderAtEnd(g->b, blk[i]);
    } else if (blk[i]) {
      LLVMPositionBuilderAtEnd(g->b, blk[i]);
    } else if (terminated(g)) {
      LLVMPositionBuilderAtEnd(g->b, block(g)); /* not reachable */
    }
    emit_uop(g, i, &c->copy[i], &c->prog[i], blk[i + 1] ? blk[i + 1] : exit);
  }
  if (!terminated(g)) LLVMBuildBr(g->b, exit);
  free(blk);
  LLVMDisposeBuilder(g->b);
  return g->M;
}

/* The optimisation: registers kept in host registers from one micro-op to
 * the next (early-cse forwards stores to loads along the dominator tree),
 * dead stores dropped. LLVM's O2 pipeline took ten times as long to
 * compile the ALU chain of gpusim bench, for no gain in the code. */
#define PASSES "function(sroa,early-cse<memssa>,dse,simplifycfg)"

/* Compiles job c into the JIT and publishes its entry; holds `lock`. */
static void compile_locked(gs_jit_code *c) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char name[32];
  snprintf(name, sizeof name, "gs_jit_%u", serial++);
  LLVMOrcThreadSafeContextRef ts = LLVMOrcCreateNewThreadSafeContext();
  LLVMModuleRef M = build(LLVMOrcThreadSafeContextGetContext(ts), c, name);
  if (!M) {
    LLVMOrcDisposeThreadSafeContext(ts);
    return;
  }
  char *msg = NULL;
  if (LLVMVerifyModule(M, LLVMReturnStatusAction, &msg)) {
    fprintf(stderr, "gpusim: native code: invalid IR: %s\n", msg);
    LLVMDisposeMessage(msg);
    LLVMDisposeModule(M);
    LLVMOrcDisposeThreadSafeContext(ts);
    return;
  }
  LLVMDisposeMessage(msg);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(M, PASSES, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (err) {
    report("optimising", err);
    LLVMDisposeModule(M);
    LLVMOrcDisposeThreadSafeContext(ts);
    return;
  }
  const char *dump = getenv("GPUSIM_JIT_DUMP"); /* the optimised IR, for reading (docs/uops.md) */
  if (dump) LLVMPrintModuleToFile(M, dump, NULL);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(M, ts);
  LLVMOrcDisposeThreadSafeContext(ts);
  c->rt = LLVMOrcJITDylibCreateResourceTracker(dylib);
  if ((err = LLVMOrcLLJITAddLLVMIRModuleWithRT(jit, c->rt, tsm))) {
    report("adding the module", err);
    LLVMOrcDisposeThreadSafeModule(tsm);
    return;
  }
  LLVMOrcExecutorAddress addr = 0;
  if ((err = LLVMOrcLLJITLookup(jit, &addr, name))) {
    report("compiling", err);
    return;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  compiled++;
  compile_seconds += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  atomic_store_explicit(&c->fn, (uintptr_t)addr, memory_order_release);
}

static gs_jit_code *job_new(const gs_jit_desc *d, const gs_uop *prog, uint32_t n, const uint32_t *entries,
                            uint32_t ne) {
  if (!gs_jit_available() || n == 0) return NULL;
  gs_jit_code *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->copy = malloc((size_t)n * sizeof *c->copy);
  c->entries = malloc(((size_t)ne + 1) * sizeof *c->entries);
  if (!c->copy || !c->entries) {
    free(c->copy);
    free(c->entries);
    free(c);
    return NULL;
  }
  memcpy(c->copy, prog, (size_t)n * sizeof *prog);
  memcpy(c->entries, entries, (size_t)ne * sizeof *entries);
  c->desc = *d;
  c->prog = prog;
  c->n = n;
  c->ne = ne;
  atomic_init(&c->fn, 0);
  atomic_init(&c->refs, 1);
  return c;
}

/* The job's inputs are not needed once compiled. */
static void job_done(gs_jit_code *c) {
  free(c->copy);
  free(c->entries);
  c->copy = NULL, c->entries = NULL;
}

gs_jit_code *gs_jit_compile(const gs_jit_desc *d, const gs_uop *prog, uint32_t n, const uint32_t *entries,
                            uint32_t ne) {
  gs_jit_code *c = job_new(d, prog, n, entries, ne);
  if (!c) return NULL;
  mtx_lock(&lock);
  compile_locked(c);
  mtx_unlock(&lock);
  job_done(c);
  if (!atomic_load(&c->fn)) {
    gs_jit_release(c);
    return NULL;
  }
  return c;
}

/* The background thread must not be inside LLVM while the process exits
 * (LLVM's static objects are destroyed then): freeing a program waits for
 * its compilation if it is under way (gs_jit_release), and at exit the
 * thread takes no new job and the exit waits for the one under way. */
static int exiting;
static void stop_worker(void) {
  mtx_lock(&qlock);
  exiting = 1;
  while (busy_job) cnd_wait(&qdone, &qlock);
  mtx_unlock(&qlock);
}

static int worker(void *arg) {
  (void)arg;
  for (;;) {
    mtx_lock(&qlock);
    while (!queue_head) cnd_wait(&qcond, &qlock);
    gs_jit_code *c = queue_head;
    queue_head = c->next;
    if (!queue_head) queue_tail = NULL;
    int go = !exiting && atomic_load(&c->refs) > 1; /* someone still wants it */
    if (go) busy_job = c;
    mtx_unlock(&qlock);
    if (go) {
      mtx_lock(&lock);
      compile_locked(c);
      mtx_unlock(&lock);
      mtx_lock(&qlock);
      busy_job = NULL;
      cnd_broadcast(&qdone);
      mtx_unlock(&qlock);
    }
    job_done(c);
    gs_jit_release(c);
  }
  return 0;
}

gs_jit_code *gs_jit_submit(const gs_jit_desc *d, const gs_uop *prog, uint32_t n, const uint32_t *entries,
                           uint32_t ne) {
  gs_jit_code *c = job_new(d, prog, n, entries, ne);
  if (!c) return NULL;
  atomic_store(&c->refs, 2); /* the caller's and the job's */
  c->queued = 1;
  mtx_lock(&qlock);
  if (!worker_started) {
    thrd_t t;
    if (thrd_create(&t, worker, NULL) != thrd_success) {
      mtx_unlock(&qlock);
      job_done(c);
      free(c);
      return NULL;
    }
    thrd_detach(t);
    worker_started = 1;
  }
  if (queue_tail) queue_tail->next = c;
  else queue_head = c;
  queue_tail = c;
  cnd_signal(&qcond);
  mtx_unlock(&qlock);
  return c;
}

gs_jit_fn gs_jit_entry(gs_jit_code *c) {
  if (!c) return NULL;
  uintptr_t f = atomic_load_explicit(&c->fn, memory_order_acquire);
  return f ? (gs_jit_fn)f : NULL;
}

void gs_jit_release(gs_jit_code *c) {
  if (!c) return;
  if (c->queued) {
    mtx_lock(&qlock);
    while (busy_job == c) cnd_wait(&qdone, &qlock);
    int last = atomic_fetch_sub(&c->refs, 1) == 1;
    mtx_unlock(&qlock);
    if (!last) return;
  } else if (atomic_fetch_sub(&c->refs, 1) != 1) {
    return;
  }
  if (c->rt) {
    mtx_lock(&lock);
    LLVMErrorRef err = LLVMOrcResourceTrackerRemove(c->rt);
    if (err) report("freeing code", err);
    LLVMOrcReleaseResourceTracker(c->rt);
    mtx_unlock(&lock);
  }
  job_done(c);
  free(c);
}

#endif
