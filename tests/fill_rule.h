/* fill_rule.h — the rasteriser's coverage rules written out again for the
 * tests, from docs/rasterization.md alone: the oracle test_pse and
 * test_cle check the PSE and whole frames against. Header-only. */
#ifndef GS_TESTS_FILL_RULE_H
#define GS_TESTS_FILL_RULE_H

#include <stdint.h>

/* The 4x multisample points: sample s at (x, y) sixteenths of a pixel
 * from its low corner. */
static const int fill_rule_ms_x[4] = {6, 14, 2, 10}, fill_rule_ms_y[4] = {2, 6, 10, 14};

/* Is the 12.4 point (X, Y) covered by the triangle with absolute 12.4
 * corners x[], y[]? A zero-area triangle covers nothing. Edges of the
 * counter-clockwise triangle own the points on them when they run
 * downwards (left edges) or are horizontal running to larger x (the
 * interior at larger y). */
static inline int fill_rule_covers_at(const int32_t xin[3], const int32_t yin[3], int64_t X, int64_t Y) {
  int32_t x[3] = {xin[0], xin[1], xin[2]}, y[3] = {yin[0], yin[1], yin[2]};
  int64_t area = (int64_t)(x[1] - x[0]) * (y[2] - y[0]) - (int64_t)(x[2] - x[0]) * (y[1] - y[0]);
  if (area == 0) return 0;
  if (area < 0) {
    int32_t t = x[1]; x[1] = x[2]; x[2] = t;
    t = y[1]; y[1] = y[2]; y[2] = t;
  }
  for (int i = 0; i < 3; i++) {
    int j = (i + 1) % 3;
    int64_t e = (int64_t)(x[j] - x[i]) * (Y - y[i]) - (int64_t)(y[j] - y[i]) * (X - x[i]);
    if (e < 0) return 0;
    if (e == 0 && !(y[j] < y[i] || (y[j] == y[i] && x[j] > x[i]))) return 0;
  }
  return 1;
}

/* Is the centre of pixel (px, py) covered? */
static inline int fill_rule_covers(const int32_t x[3], const int32_t y[3], int px, int py) {
  return fill_rule_covers_at(x, y, 16 * (int64_t)px + 8, 16 * (int64_t)py + 8);
}

/* The 4-bit sample mask of pixel (px, py) with 4x multisampling. */
static inline unsigned fill_rule_ms_mask(const int32_t x[3], const int32_t y[3], int px, int py) {
  unsigned m = 0;
  for (int s = 0; s < 4; s++)
    m |= (unsigned)fill_rule_covers_at(x, y, 16 * (int64_t)px + fill_rule_ms_x[s], 16 * (int64_t)py + fill_rule_ms_y[s])
         << s;
  return m;
}

#endif
