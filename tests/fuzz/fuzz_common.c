/* fuzz_common.c — helpers of the fuzz targets (fuzz_common.h). */
#include "fuzz_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "gpusim/qpu.h"

void fuzz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("fuzz: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

uint32_t fuzz_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rs = 1;

void fuzz_seed(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t k = 0; k < size; k++) h = (h ^ data[k]) * 1099511628211ull;
  rs = h | 1;
}

uint32_t fuzz_rnd(void) {
  rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
  return (uint32_t)(rs >> 16);
}

void fuzz_qpu_roundtrip(const uint64_t *words, size_t n, uint32_t base) {
  gs_diag d;
  for (size_t i = 0; i < n; i++) {
    char text[1024];
    uint64_t back = 0;
    gs_qpu_disasm_word(words[i], text, sizeof text);
    if (gs_qpu_asm_word(text, base + 8 * (uint32_t)i, &back, &d) < 0)
      fuzz_fail("word %zu 0x%016llx disassembles to \"%s\", which does not assemble: %s", i,
                (unsigned long long)words[i], text, d.msg);
    if (back != words[i])
      fuzz_fail("word %zu 0x%016llx disassembles to \"%s\", which assembles to 0x%016llx", i,
                (unsigned long long)words[i], text, (unsigned long long)back);
  }
  char *listing = NULL;
  if (gs_qpu_disasm(words, n, base, &listing, &d) < 0) fuzz_fail("gs_qpu_disasm: %s", d.msg);
  uint64_t *again = NULL;
  size_t m = 0;
  if (gs_qpu_asm(listing, "listing", base, &again, &m, &d) < 0)
    fuzz_fail("the listing of %zu words does not assemble: %s\n%s", n, d.msg, listing);
  if (m != n) fuzz_fail("the listing of %zu words assembles to %zu words:\n%s", n, m, listing);
  for (size_t i = 0; i < n; i++)
    if (again[i] != words[i])
      fuzz_fail("word %zu of the listing: 0x%016llx assembles back to 0x%016llx:\n%s", i,
                (unsigned long long)words[i], (unsigned long long)again[i], listing);
  free(again);
  free(listing);
}
