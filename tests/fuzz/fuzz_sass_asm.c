/* fuzz_sass_asm.c — the SASS assembler (src/isa/sass/asm.c) on any text.
 *
 * The input is assembly source (a NUL is appended; an embedded NUL ends
 * it early). Whatever the text, the assembler must return: code, or
 * GS_EASM with a message naming "fuzz.s:LINE:COL". When it assembles, the
 * code is whole 32-byte groups, every line-table entry names an
 * instruction offset and a line within the text, and the code comes back
 * exactly through the disassembler and the assembler again.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/isa.h"
#include "isa/sass/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = '\0';
  size_t lines = 1;
  for (size_t i = 0; i < size && src[i]; i++) lines += src[i] == '\n';
  gs_isa_binary b;
  gs_diag d;
  int rc = sass_asm(src, "fuzz.s", &b, &d);
  if (rc == GS_OK) {
    if (b.size % 32) fuzz_fail("%zu bytes of code", b.size);
    for (size_t i = 0; i < b.nlines; i++)
      if (b.lines[i].line < 1 || b.lines[i].line > lines || b.lines[i].offset % 32 == 0 || b.lines[i].offset >= b.size)
        fuzz_fail("line entry %zu: offset 0x%x line %u of %zu", i, b.lines[i].offset, b.lines[i].line, lines);
    char *text;
    if (sass_disasm(b.bytes, b.size, &text, &d) < 0) fuzz_fail("the disassembler refused the code: %s", d.msg);
    gs_isa_binary b2;
    if (sass_asm(text, "listing.s", &b2, &d) < 0) fuzz_fail("the listing does not assemble: %s", d.msg);
    if (b2.size != b.size || memcmp(b2.bytes, b.bytes, b.size)) fuzz_fail("the listing assembles to other code");
    gs_isa_binary_free(&b2);
    free(text);
    gs_isa_binary_free(&b);
  } else if (rc != GS_EASM || strncmp(d.msg, "fuzz.s:", 7) != 0) {
    fuzz_fail("sass_asm returned %d: \"%s\" (want GS_EASM naming fuzz.s:LINE:COL)", rc, d.msg);
  }
  free(src);
  return 0;
}
