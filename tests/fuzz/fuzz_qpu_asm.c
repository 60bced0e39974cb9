/* fuzz_qpu_asm.c — the QPU assembler (src/isa/qpu/asm.c) on any text.
 *
 * The input is assembly source (a NUL is appended; an embedded NUL ends
 * it early, as it would for any C string). Whatever the text, the
 * assembler must return: words, or GS_EASM with a message naming
 * "fuzz.s:LINE:COL". When it assembles, the words must come back exactly
 * through the disassembler (fuzz_qpu_roundtrip), and each word has a
 * source line within the text.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "gpusim/qpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0; /* long enough for any real program */
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = '\0';
  size_t lines = 1;
  for (size_t i = 0; i < size && src[i]; i++) lines += src[i] == '\n';
  const uint32_t base = 0x00100000u;
  uint64_t *words = NULL;
  uint32_t *line_of = NULL;
  size_t n = 0;
  gs_diag d;
  int rc = gs_qpu_asm_lines(src, "fuzz.s", base, &words, &n, &line_of, &d);
  if (rc == GS_OK) {
    for (size_t i = 0; i < n; i++)
      if (line_of[i] < 1 || line_of[i] > lines)
        fuzz_fail("word %zu has source line %u of %zu", i, line_of[i], lines);
    fuzz_qpu_roundtrip(words, n, base);
  } else if (rc != GS_EASM || strncmp(d.msg, "fuzz.s:", 7) != 0) {
    fuzz_fail("gs_qpu_asm_lines returned %d: \"%s\" (want GS_EASM naming fuzz.s:LINE:COL)", rc, d.msg);
  }
  free(words);
  free(line_of);
  free(src);
  return 0;
}
