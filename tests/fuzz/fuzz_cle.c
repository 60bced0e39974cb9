/* fuzz_cle.c — the control-list executor (src/v3d/cle.c) with the binning
 * pass (coordinate shaders, the PTB) and the rendering pass (vertex and
 * fragment shaders, the PSE, the tile buffer) on random lists over random
 * GPU memory.
 *
 * Input: a 16-byte header, then a memory image. The header holds four
 * little-endian 32-bit numbers: the binning list's start and length and
 * the rendering list's start and length, the starts as offsets into the
 * image (all modulo IMAGE_BYTES). The image is loaded at GS_MEM_BASE into
 * one allocation of IMAGE_BYTES (zeros after the input), the only GPU
 * memory there is. GS_FUZZ_VERBOSE=1 prints each run's result. The seeds
 * (tests/fuzz/corpus/cle/) are real frames saved by mkcorpus.lua, so that
 * their addresses point into the image.
 *
 * Bounds, so that an input runs in milliseconds: 512 KB of GPU memory,
 * 2048 packets per CLE thread, a watchdog of 1024 instructions per shader,
 * one host thread. The run must return GS_OK or an error with a message;
 * a crash, a sanitizer report, a leak or a hang is a bug.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "gpusim/v3d.h"

#define HEADER 16
#define IMAGE_BYTES (256u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < HEADER || size - HEADER > IMAGE_BYTES) return 0;
  gs_gpu_config cfg = {512u << 10, 1024, 0, GS_ROUND_TOWARD_ZERO, GS_INTERP_FAST, GS_PICA_F24, GS_PICA_STATE_ZERO};
  gs_gpu *g = gs_gpu_new(&cfg);
  if (!g) fuzz_fail("gs_gpu_new failed");
  gs_mem *m = gs_gpu_mem(g);
  gs_addr a;
  if (gs_mem_alloc(m, IMAGE_BYTES, 4096, &a, NULL) < 0 || a != GS_MEM_BASE) fuzz_fail("gs_mem_alloc failed");
  memcpy(gs_mem_ptr(m, a, IMAGE_BYTES), data + HEADER, size - HEADER);
  gs_addr bin = a + fuzz_le32(data) % IMAGE_BYTES, render = a + fuzz_le32(data + 8) % IMAGE_BYTES;
  gs_v3d_options o;
  memset(&o, 0, sizeof o);
  o.threads = 1;
  o.max_packets = 2048;
  int rc = gs_v3d_run(g, bin, bin + fuzz_le32(data + 4) % IMAGE_BYTES, render,
                      render + fuzz_le32(data + 12) % IMAGE_BYTES, &o);
  if (rc < 0 && gs_gpu_error(g)[0] == '\0') fuzz_fail("error %d without a message", rc);
  if (getenv("GS_FUZZ_VERBOSE")) fprintf(stderr, "fuzz_cle: %d %s\n", rc, gs_gpu_error(g));
  gs_gpu_free(g);
  return 0;
}
