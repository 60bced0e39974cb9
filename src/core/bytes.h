/* bytes.h — little-endian words in byte arrays: GPU memory, program
 * headers and instruction streams are little-endian whatever the host is
 * (a 64-bit QPU instruction: its low 32 bits first). */
#ifndef GS_CORE_BYTES_H
#define GS_CORE_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline void gs_put_le32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static inline uint32_t gs_get_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* n 64-bit words to 8n bytes, and back. */
static inline void gs_put_le64s(uint8_t *p, const uint64_t *w, size_t n) {
  for (size_t i = 0; i < n; i++) {
    gs_put_le32(p + 8 * i, (uint32_t)w[i]);
    gs_put_le32(p + 8 * i + 4, (uint32_t)(w[i] >> 32));
  }
}

static inline void gs_get_le64s(uint64_t *w, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) w[i] = gs_get_le32(p + 8 * i) | (uint64_t)gs_get_le32(p + 8 * i + 4) << 32;
}

#endif
