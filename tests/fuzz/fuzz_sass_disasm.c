/* fuzz_sass_disasm.c — the SASS decoder and disassembler
 * (src/isa/sass/decode.c, disasm.c) on any code.
 *
 * The input is up to 256 groups of 32 bytes (a control word and three
 * instructions, little-endian; a last partial group is dropped). Checks:
 *   - every instruction decodes, or is refused with a message that starts
 *     with its offset ("0x0028: ");
 *   - the listing assembles back to exactly the code, control words
 *     included; the only code it may refuse has bit 63 of a control word
 *     set, and the message names that word's offset.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/isa.h"
#include "isa/sass/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t n = size / 32;
  if (n == 0 || n > 256) return 0;
  size = n * 32;
  gs_diag d;
  for (size_t g = 0; g < n; g++)
    for (unsigned j = 0; j < 3; j++) {
      uint32_t pc = (uint32_t)(32 * g + 8 + 8 * j);
      uint64_t w = (uint64_t)fuzz_le32(data + pc) | (uint64_t)fuzz_le32(data + pc + 4) << 32;
      sass_insn in;
      char want[16];
      snprintf(want, sizeof want, "0x%04x: ", pc);
      if (sass_decode(w, 0, pc, &in, &d) < 0 && strncmp(d.msg, want, strlen(want)) != 0)
        fuzz_fail("0x%016llx at 0x%04x refused with \"%s\"", (unsigned long long)w, pc, d.msg);
    }
  char *text;
  if (sass_disasm(data, size, &text, &d) < 0) {
    for (size_t g = 0; g < n; g++)
      if (data[32 * g + 7] & 0x80) return 0; /* bit 63 of a control word */
    fuzz_fail("the disassembler refused the code: %s", d.msg);
  }
  gs_isa_binary b;
  if (sass_asm(text, "listing.s", &b, &d) < 0) fuzz_fail("the listing does not assemble: %s", d.msg);
  if (b.size != size || memcmp(b.bytes, data, size)) fuzz_fail("the listing assembles to other code");
  gs_isa_binary_free(&b);
  free(text);
  return 0;
}
