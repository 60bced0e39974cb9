/* jit.c — native code from the lane micro-op layer (jit.h, docs/uops.md
 * "Native code"): a stream is cut into runs of straight-line micro-ops
 * (below, "runs"), each LLVM IR over <N x i32> SSA values with one check of
 * the step budget at its start, one exponent-255 check at its end and the
 * registers it changed stored once; escapes are calls; a dispatch block
 * enters at a run's start and sends every other micro-op to the generic
 * interpreter up to its run's end. The module is cleaned up by a few of
 * LLVM's function passes and compiled for the host by ORC's LLJIT, on a
 * background thread or at once. */
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
#include <llvm-c/ErrorHandling.h>
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
  /* for the interpreter (slow_run), made with the code: the stream with a
   * sentinel after each run, the stream's number of each of its micro-ops
   * (UINT32_MAX: a sentinel), and where each micro-op of the stream is */
  gs_uop *sp;
  uint32_t *back, *map;
  struct gs_jit_code *next;
};

/* One JIT for the process; everything that touches it holds `lock`. */
static once_flag init_once = ONCE_FLAG_INIT;
static int ready;
static mtx_t lock;
static LLVMOrcLLJITRef jit;
static LLVMOrcJITDylibRef dylib;
static LLVMTargetMachineRef tm; /* the host's, for the optimiser's cost model */
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

/* LLVM ends the process after an error it cannot return (it prints
 * "LLVM ERROR: ..." and exits, or aborts, as the code generator did here):
 * say whose it is and how to run without it. */
static void fatal_llvm(const char *reason) {
  int n = (int)strcspn(reason, "\n"); /* LLVM's reasons may end with a newline */
  fprintf(stderr, "gpusim: native code: LLVM stopped the process: %.*s (GPUSIM_JIT=off runs without native code)\n",
          n, reason);
}

/* The code generator's level: at None (-O0) the ALU chain of gpusim bench
 * compiled in 0.4 s of CPU instead of 0.5 s but ran at half the speed
 * (registers spilled); Less and Default gave the same code and time. */
#define CODEGEN_LEVEL LLVMCodeGenLevelDefault
static void init(void) {
  if (mtx_init(&lock, mtx_plain) != thrd_success || mtx_init(&qlock, mtx_plain) != thrd_success ||
      cnd_init(&qcond) != thrd_success || cnd_init(&qdone) != thrd_success)
    return;
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) return;
  LLVMInstallFatalErrorHandler(fatal_llvm);
  char *triple = LLVMGetDefaultTargetTriple(), *error = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(triple, &target, &error)) {
    fprintf(stderr, "gpusim: native code: %s\n", error);
    LLVMDisposeMessage(error);
    LLVMDisposeMessage(triple);
    return;
  }
  char *cpu = LLVMGetHostCPUName(), *host = LLVMGetHostCPUFeatures();
  /* The host's features without AVX-512: LLVM 15's code generator stops the
   * process ("Do not know how to split this operator's operand!") on some
   * of the layer's 16- and 32-lane vector operations when AVX-512 is on
   * (seen on an AMD EPYC host); the code is AVX2's, as the interpreter's.
   * A later "-avx512f" clears it and every feature that implies it; an
   * x86 feature, which another host's LLVM would not know. */
#if defined(__x86_64__) || defined(__i386__)
  static const char no_avx512[] = ",-avx512f";
#else
  static const char no_avx512[] = "";
#endif
  size_t hn = strlen(host);
  char *features = malloc(hn + sizeof no_avx512);
  if (!features) {
    LLVMDisposeMessage(cpu), LLVMDisposeMessage(host), LLVMDisposeMessage(triple);
    return;
  }
  memcpy(features, host, hn), memcpy(features + hn, no_avx512, sizeof no_avx512);
  LLVMDisposeMessage(host);
  tm = LLVMCreateTargetMachine(target, triple, cpu, features, CODEGEN_LEVEL, LLVMRelocDefault,
                               LLVMCodeModelJITDefault);
  /* the JIT's own, owned by its builder */
  LLVMTargetMachineRef jtm = LLVMCreateTargetMachine(target, triple, cpu, features, CODEGEN_LEVEL, LLVMRelocDefault,
                                                     LLVMCodeModelJITDefault);
  LLVMDisposeMessage(cpu);
  free(features);
  LLVMDisposeMessage(triple);
  if (!tm || !jtm) return;
  LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(b, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(jtm));
  LLVMErrorRef err;
  if ((err = LLVMOrcCreateLLJIT(&jit, b))) {
    report("LLJIT", err);
    return;
  }
  dylib = LLVMOrcLLJITGetMainJITDylib(jit);
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
static void slow_free(gs_jit_code *c);
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
    slow_free(&c);
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
  LLVMBasicBlockRef slow; /* the interpreter from micro-op idx (slow_run) */
  LLVMBasicBlockRef jump; /* on at micro-op *to */
  LLVMTypeRef esc_ty;     /* the escape's */
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

/* Lanes of condition c as an i32 (run.h's GS_UOP_COND) */
static LLVMValueRef mask(cg *g, unsigned k) {
  if (k == 0 || g->d->mask_off[k] < 0) return k32(g, 0);
  LLVMValueRef m = load(g, g->mword, at(g, g->state, (uint64_t)g->d->mask_off[k]), g->d->mask_bits / 8);
  return g->d->mask_bits == 32 ? m : LLVMBuildZExt(g->b, m, g->i32, "");
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

/* uop.h's gs_lane_pack_unorm8_nn: b's bytes outside `bytes`, a as an
 * unsigned normalised byte in the others */
static LLVMValueRef pack_unorm8(cg *g, LLVMValueRef a, LLVMValueRef b, uint32_t bytes) {
  LLVMValueRef e = AND(LLVMBuildLShr(g->b, a, splat(g, 23), ""), 255);
  LLVMValueRef x = LLVMBuildMul(g->b, LLVMBuildOr(g->b, AND(a, 0x007fffffu), splat(g, 0x00800000u), ""),
                                splat(g, 255), "");
  LLVMValueRef t = AND(LLVMBuildSub(g->b, splat(g, 149), e, ""), 31);
  LLVMValueRef r = LLVMBuildLShr(g->b, LLVMBuildAdd(g->b, LLVMBuildLShr(g->b, x, t, ""), splat(g, 1), ""),
                                 splat(g, 1), "");
  r = SEL(ICMP(LLVMIntULT, e, splat(g, 118)), splat(g, 0), r);
  r = SEL(ICMP(LLVMIntUGT, e, splat(g, 126)), splat(g, 255), r);
  r = SEL(ICMP(LLVMIntSLT, a, splat(g, 0)), splat(g, 0), r);
  r = AND(LLVMBuildMul(g->b, r, splat(g, 0x01010101u), ""), bytes);
  return LLVMBuildOr(g->b, AND(b, ~bytes), r, "");
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

static void unlikely(cg *g, LLVMValueRef br) {
  LLVMMetadataRef w[3] = {LLVMMDStringInContext2(g->C, "branch_weights", 14),
                          LLVMValueAsMetadata(LLVMConstInt(g->i32, 1, 0)),
                          LLVMValueAsMetadata(LLVMConstInt(g->i32, 4000, 0))};
  LLVMSetMetadata(br, g->prof, LLVMMetadataAsValue(g->C, LLVMMDNodeInContext2(g->C, w, 3)));
}

static LLVMBasicBlockRef block(cg *g) { return LLVMAppendBasicBlockInContext(g->C, g->fn, ""); }

/* What a call's value r means (jit.h): go on at `next` (GS_JIT_NEXT, when
 * given), a jump, or the function's value */
static void on_result(cg *g, LLVMValueRef r, LLVMBasicBlockRef next) {
  LLVMBasicBlockRef ret = block(g);
  LLVMValueRef rsw = LLVMBuildSwitch(g->b, r, ret, 2);
  if (next) LLVMAddCase(rsw, LLVMConstInt(g->i32, (unsigned long long)(int64_t)GS_JIT_NEXT, 1), next);
  LLVMAddCase(rsw, LLVMConstInt(g->i32, (unsigned long long)(int64_t)GS_JIT_JUMP, 1), g->jump);
  LLVMPositionBuilderAtEnd(g->b, ret);
  LLVMBuildRet(g->b, r);
}

/* Micro-op i as the escape: a call, then on at `next`, a jump, or its
 * value returned */
static void call_escape(cg *g, const gs_jit_code *c, uint32_t i, LLVMBasicBlockRef next) {
  LLVMValueRef esc = LLVMConstIntToPtr(LLVMConstInt(g->i64, (uint64_t)(uintptr_t)g->d->escape, 0), g->ptr);
  LLVMValueRef up = LLVMConstIntToPtr(LLVMConstInt(g->i64, (uint64_t)(uintptr_t)&c->prog[i], 0), g->ptr);
  LLVMValueRef args[4] = {g->env, g->regs, up, g->to};
  on_result(g, LLVMBuildCall2(g->b, g->esc_ty, esc, args, 4, ""), next);
}

/* A run of steps and nothing else (an ISA's delay slots: the QPU's nops
 * after a branch or a thread end) whose check failed, mostly because the
 * busy word is set (a branch under way): each step in turn as slow_escape
 * does it, the common case inline and the escape otherwise, then on at
 * `after`. The common case is a busy word of 0 or, with step_down, one
 * that holds nothing but a countdown of 2 to 127 (the QPU's branch delay
 * slots but the last), which the step counts down. Registers and masks
 * are in memory at a run's start, and steps change neither, so nothing is
 * stored or loaded around the calls; the interpreter (slow_run) took about
 * 650 host instructions more for the four steps of the ALU chain's branch
 * in gpusim bench, and the escape about 130 for each of the first three. */
static void emit_steps(cg *g, const gs_jit_code *c, uint32_t i, uint32_t e, LLVMBasicBlockRef after) {
  const gs_jit_desc *d = g->d;
  LLVMValueRef zero = LLVMConstInt(g->i64, 0, 0);
  for (uint32_t j = i; j < e; j++) {
    LLVMBasicBlockRef next = j + 1 < e ? block(g) : after, fast = block(g), call = block(g);
    LLVMValueRef busy = load(g, g->i64, at(g, g->state, d->step_busy), 8);
    LLVMValueRef cnt = load(g, g->i64, at(g, g->state, d->step_count), 8);
    LLVMValueRef stop = load(g, g->i64, at(g, g->env, d->step_stop), 8);
    LLVMValueRef cnt1 = LLVMBuildAdd(g->b, cnt, LLVMConstInt(g->i64, 1, 0), "");
    LLVMValueRef idle = LLVMBuildICmp(g->b, LLVMIntEQ, busy, zero, ""), down = NULL;
    if (d->step_down) { /* the countdown alone, 2 to 127 */
      unsigned sh = 8 * (d->step_down - 1);
      down = LLVMConstInt(g->i64, 1ull << sh, 0);
      LLVMValueRef rest = LLVMBuildAnd(g->b, busy, LLVMConstInt(g->i64, ~(0xffull << sh), 0), "");
      LLVMValueRef cd = LLVMBuildLShr(g->b, busy, LLVMConstInt(g->i64, sh, 0), ""); /* rest 0: the byte */
      LLVMValueRef two_up = LLVMBuildICmp(g->b, LLVMIntULT, LLVMBuildSub(g->b, cd, LLVMConstInt(g->i64, 2, 0), ""),
                                          LLVMConstInt(g->i64, 126, 0), "");
      idle = LLVMBuildOr(g->b, idle, LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, rest, zero, ""), two_up, ""), "");
    }
    LLVMValueRef ok = LLVMBuildAnd(g->b, idle, LLVMBuildICmp(g->b, LLVMIntNE, cnt1, stop, ""), "");
    LLVMBuildCondBr(g->b, ok, fast, call);
    LLVMPositionBuilderAtEnd(g->b, fast);
    if (down) /* busy is 0 or the countdown alone */
      store(g, LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, busy, zero, ""), zero, LLVMBuildSub(g->b, busy, down, ""), ""),
            at(g, g->state, d->step_busy), 8);
    store(g, cnt1, at(g, g->state, d->step_count), 8);
    LLVMValueRef pc = load(g, g->i32, at(g, g->state, d->step_pc), 4);
    store(g, LLVMBuildAdd(g->b, pc, k32(g, d->step_pc_add), ""), at(g, g->state, d->step_pc), 4);
    LLVMBuildBr(g->b, next);
    LLVMPositionBuilderAtEnd(g->b, call);
    call_escape(g, c, j, next);
    if (j + 1 < e) LLVMPositionBuilderAtEnd(g->b, next);
  }
}

/* ---- runs ------------------------------------------------------------------ */

/* The stream is cut into runs: an escape alone (a call), or straight-line
 * micro-ops (the neutral kinds and the step) up to the next escape, entry
 * or GS_UOP_END, at most RUN_STEPS steps (without a step kind, RUN_UOPS
 * micro-ops). A run's registers and masks are SSA values, loaded at their
 * first use and stored once at its end, and carried on through phis into
 * the run it falls through to; its steps are counted at its start with one
 * check of the busy word and the budget; the no-NaN operations are the
 * host's, their results checked for exponent 255 (rv_pending) with one
 * branch at the run's end. When either check fails nothing has
 * been stored and the run is interpreted from its start instead
 * (slow_run); so is the rest of a run entered in its middle. RUN_STEPS
 * weighs the checks and stores of each run against the instructions
 * interpreted when a check fails: with the QPU's quanta ending only
 * between runs (step_over), the ALU chain of gpusim bench took 7.6 and 6.6
 * host instructions a QPU instruction in the compiled code at 16 and 32
 * (callgrind) and compiled in about 0.45 and 0.3 s of CPU; at 8 it took
 * 0.7 s (and 11.7 when every operand was checked). */
#define RUN_STEPS GS_JIT_RUN_STEPS
#define RUN_UOPS 64

static int is_escape(const gs_jit_desc *d, const gs_uop *u) { return u->kind >= GS_UOP_ISA && (int)u->kind != d->step_kind; }

/* Marks in start[0..n] where runs begin (start[n] = 1) */
static void cut(const gs_jit_code *c, uint8_t *start) {
  const gs_jit_desc *d = &c->desc;
  uint32_t n = c->n;
  memset(start, 0, (size_t)n + 1);
  start[0] = start[n] = 1;
  for (uint32_t i = 0; i < c->ne; i++)
    if (c->entries[i] < n) start[c->entries[i]] = 1;
  unsigned steps = 0, uops = 0;
  for (uint32_t i = 0; i < n; i++) {
    const gs_uop *u = &c->copy[i];
    if (start[i]) steps = uops = 0;
    if (is_escape(d, u)) {
      start[i] = start[i + 1] = 1;
      continue;
    }
    uops++;
    if ((int)u->kind == d->step_kind) steps++;
    if (u->kind == GS_UOP_END || (d->step_kind >= 0 ? steps == RUN_STEPS : uops == RUN_UOPS)) start[i + 1] = 1;
  }
}

/* The interpreter's copy of the stream for slow_run: each run followed by a
 * sentinel (kind GS_UOP_ISA, imm: the number of the micro-op after the
 * run), a compare into a mask the ISA has not placed made a no-op (the
 * compiled code drops it too). */
static int make_slow(gs_jit_code *c, const uint8_t *start) {
  uint32_t n = c->n, runs = 0;
  for (uint32_t i = 0; i < n; i++) runs += start[i];
  c->sp = malloc(((size_t)n + runs) * sizeof *c->sp);
  c->back = malloc(((size_t)n + runs) * sizeof *c->back);
  c->map = malloc((size_t)n * sizeof *c->map);
  if (!c->sp || !c->back || !c->map) return -1;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    gs_uop u = c->copy[i];
    if (gs_uop_writes_mask(u.kind) && (u.d == 0 || u.d >= GS_UOP_MASKS || c->desc.mask_off[u.d] < 0))
      u = (gs_uop){.kind = GS_UOP_MOVE, .cond = 0};
    c->map[i] = k;
    c->back[k] = i;
    c->sp[k++] = u;
    if (start[i + 1] && !is_escape(&c->desc, &c->copy[i])) {
      c->back[k] = UINT32_MAX;
      c->sp[k++] = (gs_uop){.kind = GS_UOP_ISA, .imm = i + 1};
    }
  }
  return 0;
}

static void slow_free(gs_jit_code *c) {
  free(c->sp);
  free(c->back);
  free(c->map);
  c->sp = NULL, c->back = NULL, c->map = NULL;
}

typedef struct slow_ctx {
  gs_jit_code *c;
  char *state, *R;
  void *env;
  int rc;
  uint32_t to;
} slow_ctx;

static void masks_in(const gs_jit_code *c, const char *state, uint32_t *m) {
  for (int k = 1; k < GS_UOP_MASKS; k++) {
    m[k] = 0;
    if (c->desc.mask_off[k] < 0) continue;
    if (c->desc.mask_bits == 32) memcpy(&m[k], state + c->desc.mask_off[k], 4);
    else {
      uint16_t h;
      memcpy(&h, state + c->desc.mask_off[k], 2);
      m[k] = h;
    }
  }
}
static void masks_out(const gs_jit_code *c, char *state, const uint32_t *m) {
  for (int k = 1; k < GS_UOP_MASKS; k++) {
    if (c->desc.mask_off[k] < 0) continue;
    if (c->desc.mask_bits == 32) memcpy(state + c->desc.mask_off[k], &m[k], 4);
    else {
      uint16_t h = (uint16_t)m[k];
      memcpy(state + c->desc.mask_off[k], &h, 2);
    }
  }
}

/* The generic runner's escape in slow_run: the sentinel ends the run, the
 * step is the compiled step's common case or the ISA's escape. */
static int slow_escape(void *ctx, gs_uop_machine *m, const gs_uop *u) {
  slow_ctx *x = ctx;
  gs_jit_code *c = x->c;
  const gs_jit_desc *d = &c->desc;
  uint32_t i = c->back[u - c->sp];
  if (i == UINT32_MAX) {
    x->rc = GS_JIT_JUMP, x->to = u->imm;
    return 1;
  }
  uint64_t busy, count, stop;
  uint32_t pc;
  memcpy(&busy, x->state + d->step_busy, 8);
  memcpy(&count, x->state + d->step_count, 8);
  memcpy(&stop, (char *)x->env + d->step_stop, 8);
  if (busy == 0 && count + 1 != stop) {
    count++;
    memcpy(&pc, x->state + d->step_pc, 4);
    pc += d->step_pc_add;
    memcpy(x->state + d->step_count, &count, 8);
    memcpy(x->state + d->step_pc, &pc, 4);
    return 0;
  }
  masks_out(c, x->state, m->masks);
  int rc = d->escape(x->env, x->R, c->prog + i, &x->to);
  masks_in(c, x->state, m->masks);
  if (rc == GS_JIT_NEXT) return 0;
  x->rc = rc;
  return 1;
}

/* Runs micro-op i up to the end of its run in the generic interpreter:
 * returns GS_JIT_JUMP with *to the micro-op after the run (or where the
 * step jumped), or the value the compiled function returns. */
static int slow_run(gs_jit_code *c, char *state, char *R, const void *consts, void *env, uint32_t i, uint32_t *to) {
  if (i >= c->n) return GS_JIT_EXIT;
  slow_ctx x = {c, state, R, env, 0, 0};
  gs_uop_machine m = {.regs = R, .consts = consts, .escape = slow_escape, .ctx = &x};
  masks_in(c, state, m.masks);
  int rc = c->desc.lanes == 16 ? gs_uop_run16(&m, c->sp + c->map[i]) : gs_uop_run32(&m, c->sp + c->map[i]);
  masks_out(c, state, m.masks);
  if (rc == 0) return 0; /* GS_UOP_END */
  *to = x.to;
  return x.rc;
}

/* ---- a run as straight-line code -------------------------------------------- */

/* The values of the registers and masks inside a run of runs: known
 * values are SSA values (loaded at their first use), carried from a run
 * into the next one through phis when the first falls through into it */
#define RV_VALUES 256
typedef struct run_vals {
  uint32_t nslots, nknown;
  LLVMValueRef *val; /* by register (offset / vector bytes), NULL: in memory */
  uint8_t *dirty;
  uint32_t *known; /* the registers with a value, nknown of them */
  LLVMValueRef mval[GS_UOP_MASKS];
  uint8_t mdirty[GS_UOP_MASKS];
  LLVMValueRef acc; /* the exponent check: max of every checked value << 1 */
  LLVMValueRef busy, cnt, pc, lim, over; /* the step's words (over: step_limit) */
  uint32_t nflag;                   /* the no-NaN operations' results (rv_pending) */
  LLVMValueRef fval[RV_VALUES];
  uint8_t flag[RV_VALUES];
} run_vals;

static void rv_clear(run_vals *v) {
  for (uint32_t k = 0; k < v->nknown; k++) v->val[v->known[k]] = NULL, v->dirty[v->known[k]] = 0;
  v->nknown = 0;
  memset(v->mval, 0, sizeof v->mval);
  memset(v->mdirty, 0, sizeof v->mdirty);
  v->acc = v->busy = v->cnt = v->pc = v->lim = v->over = NULL;
  v->nflag = 0;
}
static void rv_know(run_vals *v, unsigned s, LLVMValueRef x) {
  if (!v->val[s]) v->known[v->nknown++] = s;
  v->val[s] = x;
}
static LLVMValueRef rv_reg(cg *g, run_vals *v, unsigned off) {
  unsigned s = off / (4u * (unsigned)g->N);
  if (!v->val[s]) rv_know(v, s, load(g, g->vi32, at(g, g->regs, off), 64));
  return v->val[s];
}
static void rv_set(cg *g, run_vals *v, unsigned off, LLVMValueRef x) {
  unsigned s = off / (4u * (unsigned)g->N);
  rv_know(v, s, x);
  v->dirty[s] = 1;
}
static LLVMValueRef rv_mask(cg *g, run_vals *v, unsigned k) {
  if (k == 0 || k >= GS_UOP_MASKS || g->d->mask_off[k] < 0) return k32(g, 0);
  if (!v->mval[k]) v->mval[k] = mask(g, k);
  return v->mval[k];
}
static LLVMValueRef rv_cond(cg *g, run_vals *v, unsigned c) {
  uint32_t all = g->N == 32 ? 0xffffffffu : (1u << g->N) - 1u;
  if (c == 1) return k32(g, all);
  LLVMValueRef m = rv_mask(g, v, c >> 1);
  if (c & 1) m = LLVMBuildXor(g->b, m, k32(g, 0xffffffffu), "");
  return LLVMBuildAnd(g->b, m, k32(g, all), "");
}
/* The exponent-255 check of a run. FADD_NN, FSUB_NN and FMUL_NN are the
 * host's operation, which is the model's unless an operand has exponent
 * 255; and an operand with exponent 255 (an infinity or a NaN) gives the
 * host's operation a result with exponent 255 (an infinity, or a NaN for
 * inf - inf and 0 x inf; a flushed denormal is a zero), so checking the
 * result covers the operands, whoever computed them. A result another of
 * these operations reads in the run is covered in turn by that one's, so
 * only the results no such operation reads are checked, once each, at the
 * run's end (a result that overflowed to an infinity from finite operands
 * is the model's too, and just sends the run to the interpreter). */
static uint8_t *rv_flag(run_vals *v, LLVMValueRef x) {
  for (uint32_t k = 0; k < v->nflag; k++)
    if (v->fval[k] == x) return &v->flag[k];
  return NULL;
}
static void rv_check(cg *g, run_vals *v, LLVMValueRef x) {
  /* exponent 255 is (x << 1) >= 0xff000000 */
  LLVMValueRef t = LLVMBuildShl(g->b, x, splat(g, 1), "");
  if (v->acc) {
    LLVMValueRef args[2] = {v->acc, t};
    LLVMTypeRef vt = g->vi32;
    t = intrinsic(g, "llvm.umax", &vt, 1, args, 2, 0);
  }
  v->acc = t;
}
/* Result x of a no-NaN operation, to be checked unless another reads it */
static void rv_pending(cg *g, run_vals *v, LLVMValueRef x) {
  if (v->nflag == RV_VALUES) { /* too many: checked at once */
    rv_check(g, v, x);
    return;
  }
  v->fval[v->nflag] = x, v->flag[v->nflag++] = 1;
}
/* Operand x of a no-NaN operation: covered by its result */
static void rv_covered(run_vals *v, LLVMValueRef x) {
  uint8_t *f = rv_flag(v, x);
  if (f) *f = 0;
}
static void rv_check_pending(cg *g, run_vals *v) {
  for (uint32_t k = 0; k < v->nflag; k++)
    if (v->flag[k]) rv_check(g, v, v->fval[k]);
  v->nflag = 0;
}

/* Emits micro-op u of a run */
static void emit_fast(cg *g, run_vals *v, const gs_uop *u) {
  unsigned k = u->kind;
  switch (k) {
  case GS_UOP_FADD_NN:
  case GS_UOP_FSUB_NN:
  case GS_UOP_FMUL_NN: {
    /* with no operand of exponent 255, the host's operation with
     * denormals flushed is the model's (run.h's GS_UOP_FLOAT_NN) */
    LLVMValueRef a = rv_reg(g, v, u->a), b = rv_reg(g, v, u->b);
    rv_covered(v, a);
    rv_covered(v, b);
    LLVMValueRef r = fop(g, k == GS_UOP_FADD_NN ? "fadd" : k == GS_UOP_FSUB_NN ? "fsub" : "fmul", a, b);
    rv_pending(g, v, r);
    rv_set(g, v, u->d, r);
    return;
  }
  case GS_UOP_SELECT: {
    LLVMValueRef l = lanes(g, rv_cond(g, v, u->cond));
    rv_set(g, v, u->d, SEL(l, rv_reg(g, v, u->a), rv_reg(g, v, u->b)));
    return;
  }
  case GS_UOP_MOVE:
    if (u->cond == 0) return;
    if (u->cond == 1) rv_set(g, v, u->d, rv_reg(g, v, u->a));
    else {
      LLVMValueRef l = lanes(g, rv_cond(g, v, u->cond)), a = rv_reg(g, v, u->a);
      rv_set(g, v, u->d, SEL(l, a, rv_reg(g, v, u->d)));
    }
    return;
  case GS_UOP_CONST:
    rv_set(g, v, u->d, load(g, g->vi32, at(g, g->consts, (uint64_t)u->imm * 4u * (unsigned)g->N), 4));
    return;
  case GS_UOP_PACK_UNORM8_NN:
    rv_set(g, v, u->d, pack_unorm8(g, rv_reg(g, v, u->a), rv_reg(g, v, u->b), u->imm));
    return;
  default:
    if (gs_uop_writes_mask(k)) {
      if (u->d == 0 || u->d >= GS_UOP_MASKS || g->d->mask_off[u->d] < 0) return; /* nowhere to keep it */
      LLVMValueRef m = lanes_to_int(g, compare(g, k, rv_reg(g, v, u->a), rv_reg(g, v, u->b)));
      LLVMValueRef l = rv_cond(g, v, u->cond), old = rv_mask(g, v, u->d);
      v->mval[u->d] = LLVMBuildOr(g->b, LLVMBuildAnd(g->b, old, LLVMBuildXor(g->b, l, k32(g, 0xffffffffu), ""), ""),
                                  LLVMBuildAnd(g->b, m, l, ""), "");
      v->mdirty[u->d] = 1;
    } else if (gs_uop_writes_reg(k)) {
      rv_set(g, v, u->d, arith(g, k, rv_reg(g, v, u->a), rv_reg(g, v, u->b)));
    }
    return; /* the step: counted at the run's start */
  }
}

/* Stores the registers and masks the run changed (the values in `vals`,
 * by register, when given: a snapshot) */
static void rv_store(cg *g, run_vals *v, LLVMValueRef *vals, LLVMValueRef *mvals) {
  unsigned bytes = 4u * (unsigned)g->N;
  for (uint32_t k = 0; k < v->nknown; k++) {
    uint32_t s = v->known[k];
    LLVMValueRef x = vals ? vals[k] : v->dirty[s] ? v->val[s] : NULL;
    if (x) store(g, x, at(g, g->regs, (uint64_t)s * bytes), 64);
  }
  for (int k = 1; k < GS_UOP_MASKS; k++) {
    LLVMValueRef r = mvals ? mvals[k] : v->mdirty[k] ? v->mval[k] : NULL;
    if (!r) continue;
    if (g->d->mask_bits != 32) r = LLVMBuildTrunc(g->b, r, g->mword, "");
    store(g, r, at(g, g->state, (uint64_t)g->d->mask_off[k]), (unsigned)g->d->mask_bits / 8);
  }
}

/* The values a run carries into the next: phis in block `join` of the
 * values in `from` and of loads in `stub` (the dispatch's way in) */
static void rv_join(cg *g, run_vals *v, LLVMBasicBlockRef from, LLVMBasicBlockRef stub, LLVMBasicBlockRef join) {
  unsigned bytes = 4u * (unsigned)g->N;
  LLVMValueRef loaded[GS_UOP_MASKS + 4] = {0};
  LLVMPositionBuilderAtEnd(g->b, join);
  for (uint32_t k = 0; k < v->nknown; k++) {
    uint32_t s = v->known[k];
    LLVMValueRef phi = LLVMBuildPhi(g->b, g->vi32, "");
    LLVMPositionBuilderAtEnd(g->b, stub);
    LLVMValueRef x = load(g, g->vi32, at(g, g->regs, (uint64_t)s * bytes), 64);
    LLVMAddIncoming(phi, &v->val[s], &from, 1);
    LLVMAddIncoming(phi, &x, &stub, 1);
    v->val[s] = phi, v->dirty[s] = 0;
    LLVMPositionBuilderAtEnd(g->b, join);
  }
  LLVMPositionBuilderAtEnd(g->b, stub);
  for (int k = 1; k < GS_UOP_MASKS; k++) loaded[k] = v->mval[k] ? mask(g, (unsigned)k) : NULL;
  const gs_jit_desc *d = g->d;
  if (v->cnt) {
    loaded[0] = load(g, g->i64, at(g, g->state, d->step_busy), 8);
    loaded[GS_UOP_MASKS] = load(g, g->i64, at(g, g->state, d->step_count), 8);
    loaded[GS_UOP_MASKS + 1] = load(g, g->i32, at(g, g->state, d->step_pc), 4);
    loaded[GS_UOP_MASKS + 2] = load(g, g->i64, at(g, g->env, d->step_stop), 8);
    if (v->over) loaded[GS_UOP_MASKS + 3] = load(g, g->i64, at(g, g->env, d->step_limit), 8);
  }
  LLVMBuildBr(g->b, join);
  LLVMPositionBuilderAtEnd(g->b, join);
  LLVMValueRef *mine[GS_UOP_MASKS + 4] = {&v->busy, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &v->cnt, &v->pc, &v->lim, &v->over};
  for (int k = 1; k < GS_UOP_MASKS; k++) mine[k] = &v->mval[k];
  for (int k = 0; k < GS_UOP_MASKS + 4; k++) {
    if (!mine[k] || !*mine[k] || (k == 0 && !v->cnt)) continue;
    LLVMValueRef phi = LLVMBuildPhi(g->b, LLVMTypeOf(*mine[k]), "");
    LLVMAddIncoming(phi, mine[k], &from, 1);
    LLVMAddIncoming(phi, &loaded[k], &stub, 1);
    *mine[k] = phi;
  }
  memset(v->mdirty, 0, sizeof v->mdirty);
  v->acc = NULL;
  v->nflag = 0;
}

/* The module with function `name` for the job */
static LLVMModuleRef build(LLVMContextRef C, gs_jit_code *c, const char *name) {
  cg G = {0}, *g = &G;
  g->C = C;
  g->d = &c->desc;
  g->N = c->desc.lanes;
  uint32_t n = c->n;
  uint8_t *start = malloc((size_t)n + 1);
  LLVMBasicBlockRef *blk = calloc((size_t)n + 1, sizeof *blk);
  run_vals v = {.nslots = 65536u / (4u * (unsigned)g->N) + 1};
  v.val = malloc(v.nslots * sizeof *v.val);
  v.val = v.val ? memset(v.val, 0, v.nslots * sizeof *v.val) : NULL;
  v.dirty = calloc(v.nslots, 1);
  v.known = malloc(v.nslots * sizeof *v.known);
  if (!start || !blk || !v.val || !v.dirty || !v.known) goto oom;
  cut(c, start);
  if (make_slow(c, start) < 0) goto oom;

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
  g->esc_ty = LLVMFunctionType(g->i32, eparams, 4, 0);
  LLVMTypeRef sparams[7] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i32, g->ptr};
  LLVMTypeRef slow_ty = LLVMFunctionType(g->i32, sparams, 7, 0);
  g->dyn = md(g, "round.dynamic");
  g->ign = md(g, "fpexcept.ignore");
  g->b = LLVMCreateBuilderInContext(C);

  LLVMBasicBlockRef entry = block(g), dispatch = block(g), exit = block(g), slow = block(g);
  g->slow = slow, g->jump = block(g);
  for (uint32_t i = 0; i < n; i++)
    if (start[i]) blk[i] = block(g);
  blk[n] = exit; /* running off the end: the interpreter decides */

  LLVMPositionBuilderAtEnd(g->b, entry);
  g->state = LLVMGetParam(g->fn, 0);
  g->regs = c->desc.regs_off >= 0 ? at(g, g->state, (uint64_t)c->desc.regs_off) : LLVMGetParam(g->fn, 1);
  g->consts = LLVMGetParam(g->fn, 2);
  g->env = LLVMGetParam(g->fn, 3);
  g->to = LLVMBuildAlloca(g->b, g->i32, "to");
  g->idx = LLVMBuildAlloca(g->b, g->i32, "idx");
  store(g, LLVMGetParam(g->fn, 4), g->idx, 4);
  LLVMBuildBr(g->b, dispatch);

  /* every run's first micro-op; any other is interpreted up to its run's end */
  LLVMPositionBuilderAtEnd(g->b, dispatch);
  LLVMValueRef sw = LLVMBuildSwitch(g->b, load(g, g->i32, g->idx, 4), slow, n);
  for (uint32_t i = 0; i < n; i++)
    if (start[i]) LLVMAddCase(sw, k32(g, i), blk[i]);

  LLVMPositionBuilderAtEnd(g->b, exit);
  LLVMBuildRet(g->b, LLVMConstInt(g->i32, (unsigned long long)(int64_t)GS_JIT_EXIT, 1));

  /* the interpreter: on at the micro-op it says, or its value returned */
  LLVMPositionBuilderAtEnd(g->b, slow);
  {
    LLVMValueRef args[7] = {LLVMConstIntToPtr(LLVMConstInt(g->i64, (uint64_t)(uintptr_t)c, 0), g->ptr), g->state,
                            g->regs, g->consts, g->env, load(g, g->i32, g->idx, 4), g->to};
    LLVMValueRef f = LLVMConstIntToPtr(LLVMConstInt(g->i64, (uint64_t)(uintptr_t)slow_run, 0), g->ptr);
    LLVMValueRef call = LLVMBuildCall2(g->b, slow_ty, f, args, 7, "");
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, g->strictfp);
    on_result(g, call, NULL);
  }
  /* a jump: on at micro-op *to */
  LLVMPositionBuilderAtEnd(g->b, g->jump);
  store(g, load(g, g->i32, g->to, 4), g->idx, 4);
  LLVMBuildBr(g->b, dispatch);

  const gs_jit_desc *d = &c->desc;
  LLVMBasicBlockRef fall = NULL; /* the end of a run that falls through into the next */
  for (uint32_t i = 0; i < n;) {
    uint32_t e = i + 1;
    while (!start[e]) e++;
    LLVMPositionBuilderAtEnd(g->b, blk[i]);
    const gs_uop *u = &c->copy[i];
    if (is_escape(d, u)) {
      /* a call: on, a jump, or its value returned */
      call_escape(g, c, i, blk[e]);
      i = e;
      continue;
    }
    /* a run: the budget for its steps, its micro-ops, the exponent check */
    if (fall) { /* the run before falls through into this one: its values go on */
      LLVMBasicBlockRef join = block(g);
      LLVMPositionBuilderAtEnd(g->b, fall);
      LLVMBuildBr(g->b, join);
      rv_join(g, &v, fall, blk[i], join);
    } else {
      rv_clear(&v);
    }
    fall = NULL;
    uint32_t steps = 0;
    for (uint32_t j = i; j < e; j++) steps += (int)c->copy[j].kind == d->step_kind;
    LLVMBasicBlockRef to_slow = block(g);
    /* a run of whole instructions may pass the stop (jit.h, step_over) */
    int over = steps && d->step_over && (int)c->copy[e - 1].kind == d->step_kind;
    if (steps) {
      if (!v.cnt) {
        v.busy = load(g, g->i64, at(g, g->state, d->step_busy), 8);
        v.cnt = load(g, g->i64, at(g, g->state, d->step_count), 8);
        v.pc = load(g, g->i32, at(g, g->state, d->step_pc), 4);
        v.lim = load(g, g->i64, at(g, g->env, d->step_stop), 8);
      }
      if (over && !v.over) v.over = load(g, g->i64, at(g, g->env, d->step_limit), 8);
      /* a step reaches the stop unless stop - count - 1 >= steps (or, for
       * a run that may pass it, unless count < stop and count + steps <=
       * the limit); then, or with the step's other work to do, the
       * interpreter runs it */
      LLVMValueRef bad = LLVMBuildICmp(g->b, LLVMIntNE, v.busy, LLVMConstInt(g->i64, 0, 0), ""), past;
      if (over) {
        LLVMValueRef end = LLVMBuildAdd(g->b, v.cnt, LLVMConstInt(g->i64, steps, 0), "");
        past = LLVMBuildOr(g->b, LLVMBuildICmp(g->b, LLVMIntUGE, v.cnt, v.lim, ""),
                           LLVMBuildICmp(g->b, LLVMIntUGT, end, v.over, ""), "");
      } else {
        LLVMValueRef room = LLVMBuildSub(g->b, LLVMBuildSub(g->b, v.lim, v.cnt, ""), LLVMConstInt(g->i64, 1, 0), "");
        past = LLVMBuildICmp(g->b, LLVMIntULT, room, LLVMConstInt(g->i64, steps, 0), "");
      }
      bad = LLVMBuildOr(g->b, bad, past, "");
      LLVMBasicBlockRef go = block(g);
      unlikely(g, LLVMBuildCondBr(g->b, bad, to_slow, go));
      LLVMPositionBuilderAtEnd(g->b, go);
    }
    for (uint32_t j = i; j < e; j++) emit_fast(g, &v, &c->copy[j]);
    rv_check_pending(g, &v);
    if (v.acc) {
      LLVMValueRef bad = lanes_to_int(g, ICMP(LLVMIntUGE, v.acc, splat(g, 0xff000000u)));
      LLVMBasicBlockRef go = block(g);
      unlikely(g, LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntNE, bad, k32(g, 0), ""), to_slow, go));
      LLVMPositionBuilderAtEnd(g->b, go);
    }
    rv_store(g, &v, NULL, NULL);
    for (uint32_t k = 0; k < v.nknown; k++) v.dirty[v.known[k]] = 0;
    memset(v.mdirty, 0, sizeof v.mdirty);
    if (steps) {
      v.cnt = LLVMBuildAdd(g->b, v.cnt, LLVMConstInt(g->i64, steps, 0), "");
      v.pc = LLVMBuildAdd(g->b, v.pc, k32(g, steps * d->step_pc_add), "");
      v.busy = LLVMConstInt(g->i64, 0, 0);
      store(g, v.cnt, at(g, g->state, d->step_count), 8);
      store(g, v.pc, at(g, g->state, d->step_pc), 4);
    }
    if (over) { /* past the stop: return */
      LLVMBasicBlockRef out = block(g), go = block(g);
      unlikely(g, LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntUGE, v.cnt, v.lim, ""), out, go));
      LLVMPositionBuilderAtEnd(g->b, out);
      LLVMBuildRet(g->b, LLVMConstInt(g->i32, (unsigned long long)(int64_t)GS_JIT_EXIT, 1));
      LLVMPositionBuilderAtEnd(g->b, go);
    }
    if (c->copy[e - 1].kind == GS_UOP_END) LLVMBuildRet(g->b, k32(g, 0));
    else if (e < n && !is_escape(d, &c->copy[e])) fall = LLVMGetInsertBlock(g->b);
    else LLVMBuildBr(g->b, blk[e]);
    LLVMPositionBuilderAtEnd(g->b, to_slow);
    if (steps == e - i) {
      emit_steps(g, c, i, e, blk[e]);
    } else {
      store(g, k32(g, i), g->idx, 4);
      LLVMBuildBr(g->b, g->slow);
    }
    i = e;
  }
  LLVMDisposeBuilder(g->b);
  free(start);
  free(blk);
  free(v.val), free(v.dirty), free(v.known);
  return g->M;
oom:
  free(start);
  free(blk);
  free(v.val), free(v.dirty), free(v.known);
  return NULL;
}

/* The clean-up: the dispatch's variables into SSA values (sroa), common
 * subexpressions (early-cse), dead stores, empty blocks. The runs are SSA
 * already; LLVM's O2 pipeline took several times as long for no better
 * code. */
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
  slow_free(c);
  free(c);
}

#endif
