/* fuzz_agx_disasm.c — the AGX decoder and disassembler
 * (src/isa/agx/table.c, disasm.c) on any bytes.
 *
 * The input is up to 4 KiB of instruction bytes. Checks:
 *   - the disassembler lists them, or refuses with a message naming the
 *     byte offset of the instruction it stopped at ("byte offset 0x...");
 *   - a listing assembles back to the same bytes, except where the
 *     original used a long form the assembler does not need, or a
 *     zero-extended memory index Mesa's text does not show: there the
 *     reassembled bytes are no longer and list exactly the same text.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/agx/table.h"
#include "isa/isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || size > 4096) return 0;
  gs_diag d;
  char *text;
  if (agx_disasm(data, size, &text, &d) < 0) {
    if (!strstr(d.msg, "byte offset 0x")) fuzz_fail("refused without naming the offset: %s", d.msg);
    return 0;
  }
  gs_isa_binary b;
  if (agx_asm(text, "listing.s", &b, &d) < 0) fuzz_fail("the listing does not assemble: %s", d.msg);
  if (b.size != size || memcmp(b.bytes, data, size)) {
    if (b.size > size) fuzz_fail("the listing assembles to more bytes (%zu > %zu)", b.size, size);
    if (!agx_same_text(data, size, b.bytes, b.size)) fuzz_fail("the listing assembles to bytes with another text");
  }
  gs_isa_binary_free(&b);
  free(text);
  return 0;
}
