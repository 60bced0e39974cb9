/* exec.c — the generic runner of the lane micro-op layer (uop.h): run.h
 * instantiated for 16 and 32 lanes with the escapes called through the
 * machine's function pointer, compiled for plain x86-64 and, on a build
 * without AVX2, again with AVX2, taken at run time on a CPU that has it
 * (core/clones.h's scheme). An ISA whose escapes are hot instantiates run.h
 * itself with its escapes as cases (src/isa/qpu/exec.c). */
#include <stdint.h>
#include "core/clones.h"
#include "isa/uop/uop.h"

#define GS_UOP_PARAMS (gs_uop_machine * m, const gs_uop *prog)
#define GS_UOP_ENTER              \
  char *R = (char *)m->regs;      \
  const gs_uop *u = prog;
#define GS_UOP_COND(c) ((m->masks[(c) >> 1] ^ (0u - ((c) & 1u))) & GS_UOP_ALL)
#define GS_UOP_CONSTS (m->consts)
#define GS_UOP_MASK(i) (m->masks[i])
#define GS_UOP_DEFAULT                    \
  {                                       \
    int rc_ = m->escape(m->ctx, m, u);    \
    if (rc_) return rc_;                  \
  }

#define GS_UOP_N 16
#define GS_UOP_RUN run16_built
#include "isa/uop/run.h"
#undef GS_UOP_RUN
#undef GS_UOP_N
#define GS_UOP_N 32
#define GS_UOP_RUN run32_built
#include "isa/uop/run.h"
#undef GS_UOP_RUN
#undef GS_UOP_N

#if defined(__SSE2__) && !defined(__AVX2__) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define UOP_RUN_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2")
#define GS_UOP_N 16
#define GS_UOP_RUN run16_avx2
#include "isa/uop/run.h"
#undef GS_UOP_RUN
#undef GS_UOP_N
#define GS_UOP_N 32
#define GS_UOP_RUN run32_avx2
#include "isa/uop/run.h"
#undef GS_UOP_RUN
#undef GS_UOP_N
#pragma GCC pop_options
#endif

#if UOP_RUN_AVX2
static _Atomic int portable;
#endif

int gs_uop_portable(int on) {
#if UOP_RUN_AVX2
  if (on >= 0) portable = on != 0;
  return !portable && __builtin_cpu_supports("avx2");
#else
  (void)on;
  return 0;
#endif
}

int gs_uop_run16(gs_uop_machine *m, const gs_uop *prog) {
  m->masks[0] = 0;
#if UOP_RUN_AVX2
  if (!portable && __builtin_cpu_supports("avx2")) return run16_avx2(m, prog);
#endif
  return run16_built(m, prog);
}

int gs_uop_run32(gs_uop_machine *m, const gs_uop *prog) {
  m->masks[0] = 0;
#if UOP_RUN_AVX2
  if (!portable && __builtin_cpu_supports("avx2")) return run32_avx2(m, prog);
#endif
  return run32_built(m, prog);
}
