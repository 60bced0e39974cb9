/* unorm8.h — a fragment colour channel to the 8 bits of an RGBA8888 tile
 * buffer, as the units whose programs leave colour in float registers
 * convert it (SASS, AGX): v in [0, 1] × 255, rounded to nearest; below 0
 * and NaN 0, from 1 up 255.
 *
 * v is clamped to [0, 1] first (NaN to 0), so the conversion has no
 * branches: clamped, v × 255 + 0.5 lies in [0.5, 255.5] and truncates to
 * the byte of the plain form. With SSE2 four channels go side by side:
 * maxps(v, 0) is v > 0 ? v : 0 (NaN too: maxps gives its second operand
 * when unordered), minps(v, 1) is v < 1 ? v : 1, then the same IEEE
 * multiply and add in the same MXCSR as the scalar form, and cvttps2dq the
 * same truncation. */
#ifndef GS_ISA_UNORM8_H
#define GS_ISA_UNORM8_H

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* One channel, f32 bits in. */
static inline uint32_t gs_unorm8(uint32_t bits) {
  float v;
  memcpy(&v, &bits, 4);
  v = v > 0 ? v : 0.0f;
  v = v < 1 ? v : 1.0f;
  return (uint32_t)(int32_t)(v * 255.0f + 0.5f);
}

#if defined(__SSE2__)
/* Four channels: 0..255 in each 32-bit lane. */
static inline __m128i gs_unorm8_ps(__m128 v) {
  v = _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), _mm_set1_ps(1.0f));
  return _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(v, _mm_set1_ps(255.0f)), _mm_set1_ps(0.5f)));
}
#endif

/* One pixel: its R, G, B, A (f32, in a row at rgba) as an RGBA8888 word, R
 * in the low byte. */
static inline uint32_t gs_unorm8_pixel(const void *rgba) {
#if defined(__SSE2__)
  __m128i i = gs_unorm8_ps(_mm_loadu_ps((const float *)rgba));
  i = _mm_packs_epi32(i, i); /* bytes of 0..255: no saturation */
  return (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(i, i));
#else
  uint32_t c[4];
  memcpy(c, rgba, sizeof c);
  return gs_unorm8(c[0]) | gs_unorm8(c[1]) << 8 | gs_unorm8(c[2]) << 16 | gs_unorm8(c[3]) << 24;
#endif
}

/* 16 pixels: channel k of lane l at c[k][l] (f32 bits), out[l] RGBA8888. */
static inline void gs_unorm8_rows(const uint32_t *const c[4], uint32_t out[16]) {
#if defined(__SSE2__)
  for (unsigned l = 0; l < 16; l += 4) {
    __m128i w = _mm_setzero_si128();
    for (unsigned k = 0; k < 4; k++) {
      __m128i b = gs_unorm8_ps(_mm_loadu_ps((const float *)(const void *)(c[k] + l)));
      w = _mm_or_si128(w, _mm_sll_epi32(b, _mm_cvtsi32_si128((int)(8 * k))));
    }
    _mm_storeu_si128((__m128i *)(void *)(out + l), w);
  }
#else
  for (unsigned l = 0; l < 16; l++)
    out[l] = gs_unorm8(c[0][l]) | gs_unorm8(c[1][l]) << 8 | gs_unorm8(c[2][l]) << 16 | gs_unorm8(c[3][l]) << 24;
#endif
}

/* GS_UNORM8_AVX2: gs_unorm8_rows_avx2 exists, gs_unorm8_rows eight lanes
 * at a time for a CPU with AVX2 (gs_unorm8_rows_best asks the CPU):
 * the same maxps, minps, multiply, add and truncation, 256 bits wide, in
 * a build that is not AVX2 already (core/clones.h's conditions). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(__AVX2__)
#include <immintrin.h>
#define GS_UNORM8_AVX2 1
__attribute__((target("avx2"))) static inline void gs_unorm8_rows_avx2(const uint32_t *const c[4], uint32_t out[16]) {
  for (unsigned l = 0; l < 16; l += 8) {
    __m256i w = _mm256_setzero_si256();
    for (unsigned k = 0; k < 4; k++) {
      __m256 v = _mm256_loadu_ps((const float *)(const void *)(c[k] + l));
      v = _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));
      __m256i b = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(v, _mm256_set1_ps(255.0f)), _mm256_set1_ps(0.5f)));
      w = _mm256_or_si256(w, _mm256_sll_epi32(b, _mm_cvtsi32_si128((int)(8 * k))));
    }
    _mm256_storeu_si256((__m256i *)(void *)(out + l), w);
  }
}
#else
#define GS_UNORM8_AVX2 0
#endif

/* gs_unorm8_rows, with AVX2 where the CPU has it (one test of the CPU's
 * feature word: cheap enough per call). */
static inline void gs_unorm8_rows_best(const uint32_t *const c[4], uint32_t out[16]) {
#if GS_UNORM8_AVX2
  if (__builtin_cpu_supports("avx2")) {
    gs_unorm8_rows_avx2(c, out);
    return;
  }
#endif
  gs_unorm8_rows(c, out);
}

#endif
