/* run_clones.h — run.h instantiated twice, the way core/clones.h clones a
 * single function: `run_built` for the instruction set the build targets
 * and, on an x86-64 GCC build without AVX2, `run_avx2` compiled for AVX2
 * and FMA (both part of x86-64-v3), with GS_UOP_RUN_AVX2 defined to 1 and
 * GS_UOP_RUN_AVX2_CPU() true on a CPU that has both, where the caller takes
 * it. Both copies compute the same bits: the same IEEE operations,
 * -ffp-contract=off (so FMA is used only where the code asks for a fused
 * multiply-add, fmaf, which is exact either way). The includer defines
 * what run.h asks for except GS_UOP_RUN. No include guard: one inclusion
 * per interpreter. */
#define GS_UOP_RUN run_built
#include "isa/uop/run.h"
#undef GS_UOP_RUN

#if defined(__SSE2__) && !defined(__AVX2__) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GS_UOP_RUN_AVX2 1
#define GS_UOP_RUN_AVX2_CPU() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define GS_UOP_RUN run_avx2
#include "isa/uop/run.h"
#undef GS_UOP_RUN
#pragma GCC pop_options
#endif
