/* fuzz_agx_asm.c — the AGX assembler (src/isa/agx/asm.c) on any text.
 *
 * The input is assembly source (a NUL is appended; an embedded NUL ends
 * it early). Whatever the text, the assembler must return: code, or
 * GS_EASM with a message naming "fuzz.s:LINE:COL". When it assembles,
 * every line-table entry names an instruction offset and a line within the
 * text, and the code disassembles and reassembles to itself (or, where the
 * text asked for a long form with ".long", to the short form of the same
 * text).
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/agx/table.h"
#include "isa/isa.h"

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
  int rc = agx_asm(src, "fuzz.s", &b, &d);
  if (rc == GS_OK) {
    for (size_t i = 0; i < b.nlines; i++)
      if (b.lines[i].line < 1 || b.lines[i].line > lines || b.lines[i].offset >= b.size ||
          (i && b.lines[i].offset <= b.lines[i - 1].offset))
        fuzz_fail("line entry %zu: offset 0x%x line %u of %zu", i, b.lines[i].offset, b.lines[i].line, lines);
    if (b.size) {
      char *text;
      if (agx_disasm(b.bytes, b.size, &text, &d) < 0) fuzz_fail("the disassembler refused the code: %s", d.msg);
      gs_isa_binary b2;
      if (agx_asm(text, "listing.s", &b2, &d) < 0) fuzz_fail("the listing does not assemble: %s", d.msg);
      /* ".long" forms come back short, with the same text */
      if ((b2.size != b.size || memcmp(b2.bytes, b.bytes, b.size)) &&
          (b2.size > b.size || !agx_same_text(b.bytes, b.size, b2.bytes, b2.size)))
        fuzz_fail("the listing assembles to other code");
      gs_isa_binary_free(&b2);
      free(text);
    }
    gs_isa_binary_free(&b);
  } else if (rc != GS_EASM || strncmp(d.msg, "fuzz.s:", 7) != 0) {
    fuzz_fail("agx_asm returned %d: \"%s\" (want GS_EASM naming fuzz.s:LINE:COL)", rc, d.msg);
  }
  free(src);
  return 0;
}
