/* fuzz_pica_shbin.c — the SHBIN reader, the decoder and the disassembler of
 * the PICA200 (src/isa/pica/shbin.c, decode.c, disasm.c) on any file.
 * Checks: the reader accepts a file or refuses it naming a byte offset
 * ("0x..."), never reading outside it (the sanitizers watch); every word of
 * an accepted program decodes or is refused with a message; and when the
 * program disassembles, the listing assembles into a program whose listing
 * has the same instructions (the assembler shares operand descriptors, so
 * descriptor numbers and the words' DESC fields may differ).
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/isa.h"
#include "isa/pica/pica.h"

/* Whether two listings have the same instructions: each line up to its
 * "; ADDR: WORD" comment, trailing blanks dropped (the words may differ
 * where the assembler shares or renumbers operand descriptors). */
static int same_instructions(const char *a, const char *b) {
  for (;;) {
    size_t la = strcspn(a, ";\n"), lb = strcspn(b, ";\n");
    size_t ta = la, tb = lb;
    while (ta && a[ta - 1] == ' ') ta--;
    while (tb && b[tb - 1] == ' ') tb--;
    if (ta != tb || memcmp(a, b, ta) != 0) return 0;
    a += strcspn(a, "\n"), b += strcspn(b, "\n");
    if (!*a || !*b) return !*a && !*b;
    a++, b++;
  }
}

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
  if (pica_disasm(sb.code, sb.ncode, sb.opdesc, sb.nopdesc, &text, &d) == 0) {
    gs_isa_binary b;
    if (pica_asm(text, "listing.pica", &b, &d) < 0) fuzz_fail("the listing does not assemble: %s", d.msg);
    pica_shbin again;
    char *text2;
    if (pica_shbin_read(b.bytes, b.size, &again, &d) < 0) fuzz_fail("the reassembled SHBIN does not read: %s", d.msg);
    if (pica_disasm(again.code, again.ncode, again.opdesc, again.nopdesc, &text2, &d) < 0)
      fuzz_fail("the reassembled program does not disassemble: %s", d.msg);
    if (!same_instructions(text, text2)) fuzz_fail("the listing changes through the assembler:\n%s\n--\n%s", text, text2);
    free(text2);
    pica_shbin_free(&again);
    gs_isa_binary_free(&b);
    free(text);
  }
  pica_shbin_free(&sb);
  return 0;
}
