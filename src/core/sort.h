/* sort.h — sorting a short array of 32-bit values (header only).
 *
 *   gs_sort_u32(a, n);   // a[0..n) ascending
 */
#ifndef GS_CORE_SORT_H
#define GS_CORE_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts a[0..n) ascending by insertion. For the renderer's chunks (up to
 * 192 vertex indices, which come nearly sorted) this is about linear, and
 * even reversed it costs no more than qsort, which calls a comparison
 * function for each of its n·log n comparisons. */
static inline void gs_sort_u32(uint32_t *a, size_t n) {
  for (size_t i = 1; i < n; i++) {
    uint32_t v = a[i];
    size_t j = i;
    for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
    a[j] = v;
  }
}

#endif
