/* fuzz_pica_asm.c — the PICA200 assembler (src/isa/pica/asm.c) on any text.
 * Checks: it returns a SHBIN that its own reader accepts, with one line
 * entry per program word inside the text, or GS_EASM naming
 * fuzz.pica:LINE:COL; and the SHBIN disassembles (pica_disasm_shbin:
 * directives and program) into text that assembles back to exactly the
 * same bytes (docs/pica.md, "Round trip").
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/isa.h"
#include "isa/pica/pica.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  char *src = malloc(size + 1);
  if (!src) return 0;
  memcpy(src, data, size);
  src[size] = '\0';
  gs_isa_binary b;
  gs_diag d;
  int rc = pica_asm(src, "fuzz.pica", &b, &d);
  if (rc < 0) {
    if (rc != GS_EASM || strncmp(d.msg, "fuzz.pica:", 10) != 0) fuzz_fail("refused with %d: \"%s\"", rc, d.msg);
    free(src);
    return 0;
  }
  pica_shbin sb;
  if (pica_shbin_read(b.bytes, b.size, &sb, &d) < 0) fuzz_fail("its own SHBIN does not read back: %s", d.msg);
  char *text;
  if (pica_disasm_shbin(&sb, &text, &d) < 0) fuzz_fail("its SHBIN does not disassemble: %s", d.msg);
  gs_isa_binary again;
  if (pica_asm(text, "listing.pica", &again, &d) < 0) fuzz_fail("the listing does not assemble: %s", d.msg);
  if (again.size != b.size || memcmp(again.bytes, b.bytes, b.size))
    fuzz_fail("the listing assembles to other bytes:\n%s", text);
  gs_isa_binary_free(&again);
  free(text);
  pica_shbin_free(&sb);
  gs_isa_binary_free(&b);
  free(src);
  return 0;
}
