/* core/clones.h — GS_CLONES: compile a hot lane loop for plain x86-64 and
 * with AVX2 (which brings AVX, SSE4.2 and POPCNT with it) and let the
 * program take the one for its CPU when it starts (GCC's target_clones,
 * resolved by the dynamic loader). The default build thus runs on any
 * x86-64 CPU and still uses AVX2 where there is AVX2 (docs/pipeline.md,
 * "Speed"); GS_NATIVE's -march=native needs no clones, nor do other
 * compilers and hosts.
 *
 * The AVX2 copy adds instruction sets but keeps the build's -march: GCC
 * inlines a plain static helper only into a function of the same -march,
 * and with "arch=x86-64-v3" the lane loops' helpers became calls.
 *
 * Both copies compute the same bits: they are the same C, compiled with the
 * same -ffp-contract=off (no FMA contraction) and rounding options, and
 * differ only in the vector width and the instructions used. */
#ifndef GS_CORE_CLONES_H
#define GS_CORE_CLONES_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__AVX2__)
#define GS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GS_CLONES
#endif

/* GS_CLONE_INLINE: a static helper of the lane loops that is inlined into
 * each copy. With two copies calling it, GCC's heuristics would keep a
 * larger helper as one out-of-line plain x86-64 function, called from the
 * AVX2 copy too. */
#if defined(__GNUC__)
#define GS_CLONE_INLINE inline __attribute__((always_inline))
#else
#define GS_CLONE_INLINE inline
#endif

#endif
