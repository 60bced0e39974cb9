/* fuzz_qpu_disasm.c — the QPU disassembler (src/isa/qpu/disasm.c) and the
 * decoders behind the two interpreters (decode.c for the fast one,
 * exec_ref.c's own field reads for the reference one) on any words.
 *
 * The input is up to 256 little-endian 64-bit words (a last partial word
 * is dropped). Checks:
 *   - every word's text, and the listing of all of them, assembles back
 *     to exactly the words (fuzz_qpu_roundtrip);
 *   - the words run as two user programs on two QPUs (uniforms: the same
 *     words; a zeroed 4 KB data block after them), once with the fast
 *     interpreter and once with the reference interpreter, under a
 *     watchdog of 4096 instructions: both return the same result code, the
 *     same per-program status, and leave GPU memory the same.
 * An invalid word must give an error naming the QPU and pc, never a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "gpusim/qpu.h"

#define MAX_WORDS 256
#define DATA_BYTES 4096

typedef struct outcome {
  int rc;
  gs_qpu_status st[2];
  uint8_t mem[MAX_WORDS * 8 * 2 + DATA_BYTES];
  char msg[GS_DIAG_MAX];
} outcome;

static void run(const uint8_t *bytes, size_t n, int interpreter, outcome *o) {
  memset(o, 0, sizeof *o);
  gs_gpu_config cfg = {1u << 20, 4096, 2, GS_ROUND_TOWARD_ZERO, interpreter, GS_PICA_F24, GS_PICA_STATE_ZERO};
  gs_gpu *g = gs_gpu_new(&cfg);
  if (!g) fuzz_fail("gs_gpu_new failed");
  gs_mem *m = gs_gpu_mem(g);
  uint32_t size = (uint32_t)(n * 8 * 2 + DATA_BYTES);
  gs_addr a;
  if (gs_mem_alloc(m, size, 4096, &a, NULL) < 0) fuzz_fail("gs_mem_alloc failed");
  uint8_t *p = gs_mem_ptr(m, a, size);
  memcpy(p, bytes, n * 8);
  memcpy(p + n * 8, bytes, n * 8);
  gs_qpu_program progs[2] = {{a, a + (uint32_t)(n * 8)}, {a, a + (uint32_t)(n * 8) + 4}};
  o->rc = gs_qpu_run_user(g, progs, 2, o->st);
  memcpy(o->mem, p, size);
  snprintf(o->msg, sizeof o->msg, "%s", gs_gpu_error(g));
  gs_gpu_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t n = size / 8;
  if (n == 0 || n > MAX_WORDS) return 0;
  uint64_t *words = malloc(n * sizeof *words);
  if (!words) return 0;
  for (size_t i = 0; i < n; i++)
    words[i] = (uint64_t)fuzz_le32(data + 8 * i) | (uint64_t)fuzz_le32(data + 8 * i + 4) << 32;
  fuzz_qpu_roundtrip(words, n, 0x00100000u);

  static outcome fast, ref;
  run(data, n, GS_INTERP_FAST, &fast);
  run(data, n, GS_INTERP_REFERENCE, &ref);
  if (fast.rc != ref.rc)
    fuzz_fail("fast interpreter %d (%s), reference %d (%s)", fast.rc, fast.msg, ref.rc, ref.msg);
  if (fast.rc == GS_OK) {
    for (int i = 0; i < 2; i++)
      if (fast.st[i].ended != ref.st[i].ended || fast.st[i].host_interrupt != ref.st[i].host_interrupt ||
          fast.st[i].qpu != ref.st[i].qpu || fast.st[i].instructions != ref.st[i].instructions)
        fuzz_fail("program %d: fast ended %d irq %d qpu %d %llu instructions, reference %d %d %d %llu", i,
                  fast.st[i].ended, fast.st[i].host_interrupt, fast.st[i].qpu,
                  (unsigned long long)fast.st[i].instructions, ref.st[i].ended, ref.st[i].host_interrupt,
                  ref.st[i].qpu, (unsigned long long)ref.st[i].instructions);
    if (memcmp(fast.mem, ref.mem, n * 8 * 2 + DATA_BYTES) != 0)
      fuzz_fail("the fast and the reference interpreter leave different GPU memory");
  } else if (fast.msg[0] == '\0') {
    fuzz_fail("error %d without a message", fast.rc);
  }
  free(words);
  return 0;
}
