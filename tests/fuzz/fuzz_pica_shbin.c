/* fuzz_pica_shbin.c — the SHBIN reader, the decoder and the disassembler of
 * the PICA200 (src/isa/pica/shbin.c, decode.c, disasm.c) on any file.
 * Checks: the reader accepts a file or refuses it naming a byte offset
 * ("0x..."), never reading outside it (the sanitizers watch); every word of
 * an accepted program decodes or is refused with a message; and when the
 * SHBIN disassembles (pica_disasm_shbin: directives, then the program), the
 * listing assembles into as many words, and the
 * assembler's output is a fixed point: its own listing assembles back to
 * the same bytes (the first pass may differ from the file: the assembler
 * shares operand descriptors on the components an instruction reads, as
 * picasso does, so descriptor numbers and unread selector letters change).
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/isa.h"
#include "isa/pica/pica.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  pica_shbin sb;
  gs_diag d;
  if (pica_shbin_read(data, size, &sb, &d) < 0) {
    if (!strstr(d.msg, "0x")) fuzz_fail("refused without naming an offset: \"%s\"", d.msg);
    return 0;
  }
  for (size_t k = 0; k < sb.ncode; k++) {
    pica_insn in;
    if (pica_decode(sb.code[k], (uint32_t)k, sb.opdesc, sb.nopdesc, &in, &d) < 0 && !d.msg[0])
      fuzz_fail("word %zu refused without a message", k);
  }
  char *text;
  /* a vertex DVLE of more than 512 words is refused by the assembler */
  if (pica_disasm_shbin(&sb, &text, &d) == 0 && (sb.dvle[0].type || sb.ncode <= 512)) {
    gs_isa_binary b, b2;
    if (pica_asm(text, "listing.pica", &b, &d) < 0) fuzz_fail("the listing does not assemble: %s\n%s", d.msg, text);
    pica_shbin again;
    char *text2;
    if (pica_shbin_read(b.bytes, b.size, &again, &d) < 0) fuzz_fail("the reassembled SHBIN does not read: %s", d.msg);
    if (again.ncode != sb.ncode) fuzz_fail("%zu words reassemble into %zu", sb.ncode, again.ncode);
    if (pica_disasm_shbin(&again, &text2, &d) < 0) fuzz_fail("the reassembled SHBIN does not disassemble: %s", d.msg);
    /* the assembler's output is a fixed point: its listing gives it back */
    if (pica_asm(text2, "listing2.pica", &b2, &d) < 0) fuzz_fail("the second listing does not assemble: %s", d.msg);
    if (b2.size != b.size || memcmp(b2.bytes, b.bytes, b.size))
      fuzz_fail("the listing of the assembler's output assembles to other bytes:\n%s", text2);
    gs_isa_binary_free(&b2);
    free(text2);
    pica_shbin_free(&again);
    gs_isa_binary_free(&b);
  }
  free(text);
  pica_shbin_free(&sb);
  return 0;
}
