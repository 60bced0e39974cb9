/* embed.c — the gpusim C library in a program of your own: assembles a QPU
 * program, loads it into simulated GPU memory and runs it on a QPU, then
 * prints the 16 words it stored.
 *
 * With gpusim installed (README, "Installing"):
 *
 *   cc -std=c11 embed.c $(pkg-config --cflags --libs gpusim) -o embed
 *   ./embed 100        # prints 100 101 ... 115
 *
 * (PKG_CONFIG_PATH=P/lib/pkgconfig for a prefix P other than /usr/local.)
 *
 * The program writes the first uniform plus the element number (0..15) of
 * each lane to the VPM and stores that row to the address in the second
 * uniform with a VDW DMA (docs/qpu.md, docs/v3d-units.md). */
#include <stdio.h>
#include <stdlib.h>
#include <gpusim/gpu.h>
#include <gpusim/mem.h>
#include <gpusim/qpu.h>

static const char program[] =
    "    mov r0, unif            # r0 = the first uniform, in all 16 lanes\n"
    "    add r0, r0, elem_num    # plus the element number 0..15\n"
    "    ldi vw_setup, 0x1a00    # VPM write: horizontal, 32-bit, row 0\n"
    "    mov vpm, r0\n"
    "    ldi vw_setup, 0x80904000  # VDW store: 1 row of 16 words from VPM row 0\n"
    "    mov vw_addr, unif       # start the DMA to the address in the next uniform\n"
    "    mov -, vw_wait          # wait for it\n"
    "    nop ; nop ; thrend\n"
    "    nop\n"
    "    nop\n";

int main(int argc, char **argv) {
  uint32_t base = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 100;
  gs_diag d;
  uint64_t *words;
  size_t n;
  if (gs_qpu_asm(program, "embed.s", 0, &words, &n, &d) < 0) {
    fprintf(stderr, "embed: %s\n", d.msg);
    return 1;
  }
  gs_gpu *g = gs_gpu_new(NULL);
  if (!g) {
    fprintf(stderr, "embed: out of memory\n");
    return 1;
  }
  gs_mem *m = gs_gpu_mem(g);
  gs_addr code, unif, out;
  int rc = 0;
  if (gs_mem_alloc(m, (uint32_t)(n * 8), 8, &code, &d) < 0 || gs_mem_write(m, code, words, (uint32_t)(n * 8), &d) < 0 ||
      gs_mem_alloc(m, 64, 16, &out, &d) < 0 || gs_mem_alloc(m, 8, 4, &unif, &d) < 0 ||
      gs_mem_write(m, unif, (uint32_t[]){base, out}, 8, &d) < 0) {
    fprintf(stderr, "embed: %s\n", d.msg);
    rc = 1;
  } else {
    gs_qpu_program p = {code, unif};
    gs_qpu_status st;
    uint32_t result[16];
    if (gs_qpu_run_user(g, &p, 1, &st) < 0) {
      fprintf(stderr, "embed: %s\n", gs_gpu_error(g));
      rc = 1;
    } else if (gs_mem_read(m, out, result, sizeof result, &d) < 0) {
      fprintf(stderr, "embed: %s\n", d.msg);
      rc = 1;
    } else {
      for (int i = 0; i < 16; i++) printf("%u%c", (unsigned)result[i], i < 15 ? ' ' : '\n');
      printf("%llu instructions on QPU %d\n", (unsigned long long)st.instructions, st.qpu);
    }
  }
  gs_gpu_free(g);
  free(words);
  return rc;
}
