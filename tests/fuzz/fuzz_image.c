/* fuzz_image.c — image loading for `gpusim diff`, `gpusim view` and
 * gpusim.texture{file = ...}: gs_image_read_png (src/app/image.c, through
 * stb_image), the comparison and difference image of diff.c, and the
 * texture upload of src/driver/texture.c.
 *
 * The input is the file's bytes (written to a temporary file, since the
 * loader takes a path); files of more than 4 Mpixels (stbi_info) within
 * GS_IMAGE_MAX_SIDE a side are skipped, to keep every input fast. Checks: the loader returns an RGBA8 image of
 * 1..GS_IMAGE_MAX_SIDE a side with stride 4 x width, or GS_EINVAL / GS_EIO
 * / GS_ENOMEM with a message naming the file; an image compares equal to
 * itself (no differing pixel, PSNR infinite) and its difference image with
 * itself is an image of the same size; a binary PGM's first sample comes
 * back grey and opaque; an image of at most
 * GS_DRV_MAX_TEXTURE a side uploads as a texture as gpusim.texture does.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "app/image.h"
#include "fuzz_common.h"
#include "gpusim/driver.h"
#include "gpusim/mem.h"
#include "stb_image.h"

static char path[64];
static gs_mem *mem;

/* Under ASan every allocation starts as 0xbe bytes up to 1 MB (by default
 * only its first 4 KB): a decoder that reads memory it never wrote sees
 * the same bytes in every run, not what earlier inputs left on the heap,
 * so such a finding reproduces when its input runs alone. stb_image 2.27
 * dequantised a JPEG with a table no segment had defined, 16 KB into its
 * decoder: the overflow this showed under libFuzzer did not recur when the
 * file ran by itself, on fresh (zeroed) memory (docs/fuzzing.md). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "max_malloc_fill_size=1048576"; }

static void remove_file(void) {
  if (path[0]) unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *dir = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/gs-fuzz-image-XXXXXX", dir && strlen(dir) < 40 ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("fuzz_image: mkstemp");
    exit(1);
  }
  close(fd);
  atexit(remove_file);
  mem = gs_mem_new(64u << 20);
  return mem ? 0 : -1;
}

/* Images up to 4 Mpixels: a 30-byte file may declare 16384x16384, which
 * the loader accepts (1 GB, seconds) but which would make every such input
 * a timeout. Larger sides the loader must refuse at once, so they run. */
#define MAX_PIXELS (4 << 20)

/* The size the input declares: stbi_info, except for a binary PNM (read
 * roughly here) and a JPEG, which stb
 * must not see before the loader has checked it (a corrupt Huffman table
 * overflows in stb's header parser too): there the first SOF0-SOF2
 * segment's lines and samples per line (ITU-T T.81, B.2.2). */
static int declared_size(const uint8_t *p, size_t n, int *w, int *h) {
  int c;
  size_t i = 0;
  while (i < n && p[i] == 0xFF) i++; /* fill bytes before SOI, as stb reads them */
  if (n >= 2 && p[0] == 'P' && (p[1] == '5' || p[1] == '6')) {
    /* a binary PNM: stb's header parser overflows on long numbers, which
     * the loader refuses; here only the first two numbers' size, roughly */
    long v[2] = {0, 0};
    size_t k = 2;
    for (int j = 0; j < 2; j++) {
      while (k < n && (p[k] < '0' || p[k] > '9')) k++;
      for (; k < n && p[k] >= '0' && p[k] <= '9'; k++) v[j] = v[j] < 100000 ? v[j] * 10 + (p[k] - '0') : v[j];
    }
    *w = (int)v[0];
    *h = (int)v[1];
    return 1;
  }
  if (i == 0 || i >= n || p[i] != 0xD8) return stbi_info_from_memory(p, (int)n, w, h, &c);
  for (; i + 9 <= n; i++)
    if (p[i] == 0xFF && p[i + 1] >= 0xC0 && p[i + 1] <= 0xC2) {
      *h = p[i + 5] << 8 | p[i + 6];
      *w = p[i + 7] << 8 | p[i + 8];
      return 1;
    }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int w, h;
  if (size > 1 << 20 || (declared_size(data, size, &w, &h) && (int64_t)w * h > MAX_PIXELS &&
                          w <= GS_IMAGE_MAX_SIDE && h <= GS_IMAGE_MAX_SIDE))
    return 0;
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) fuzz_fail("cannot write %s", path);
  gs_image img;
  gs_diag d;
  gs_diag_clear(&d);
  int rc = gs_image_read_png(&img, path, &d);
  if (rc != GS_OK) {
    if ((rc != GS_EINVAL && rc != GS_EIO && rc != GS_ENOMEM) || !strstr(d.msg, path))
      fuzz_fail("gs_image_read_png: %d \"%s\"", rc, d.msg);
    if (img.pixels) fuzz_fail("a failed read left pixels");
    return 0;
  }
  if (img.width < 1 || img.height < 1 || img.width > GS_IMAGE_MAX_SIDE || img.height > GS_IMAGE_MAX_SIDE ||
      img.stride != (size_t)img.width * 4)
    fuzz_fail("image %dx%d stride %zu", img.width, img.height, img.stride);
  /* A binary PGM of 8-bit samples ("P5 W H 255", one blank each): its
   * first sample is grey, opaque. */
  char head[32];
  int pw, ph, at = 0;
  memcpy(head, data, size < sizeof head - 1 ? size : sizeof head - 1);
  head[size < sizeof head - 1 ? size : sizeof head - 1] = '\0';
  if (sscanf(head, "P5 %d %d 255%n", &pw, &ph, &at) == 2 && at > 0 && (size_t)at < size &&
      (head[at] == ' ' || head[at] == '\n') && pw == img.width && ph == img.height) {
    const uint8_t *px = gs_image_pixel(&img, 0, 0), v = data[at + 1];
    if (px[0] != v || px[1] != v || px[2] != v || px[3] != 255)
      fuzz_fail("PGM sample %u read as %u,%u,%u,%u", v, px[0], px[1], px[2], px[3]);
  }
  gs_image_diff r;
  if (gs_image_compare(&img, &img, 0, &r, &d) != 0 || r.differing || r.nonzero || r.max_diff ||
      r.pixels != (uint64_t)img.width * (uint64_t)img.height || !isinf(r.psnr))
    fuzz_fail("an image differs from itself: %s", d.msg);
  gs_image diff;
  if (gs_image_diff_render(&img, &img, 0, &diff, &d) != GS_OK) fuzz_fail("diff image: %s", d.msg);
  if (diff.width != img.width || diff.height != img.height) fuzz_fail("diff image of another size");
  gs_image_free(&diff);
  if (img.width <= GS_DRV_MAX_TEXTURE && img.height <= GS_DRV_MAX_TEXTURE) {
    gs_drv_texture t;
    memset(&t, 0, sizeof t);
    t.width = (uint32_t)img.width;
    t.height = (uint32_t)img.height;
    t.filter = (gs_drv_filter)(data[0] & 1);
    t.wrap_s = GS_DRV_CLAMP;
    t.wrap_t = GS_DRV_MIRROR;
    if (gs_drv_texture_alloc(mem, &t, img.pixels, &d) != GS_OK) fuzz_fail("texture upload: %s", d.msg);
    gs_drv_texture_release(mem, &t);
  }
  gs_image_free(&img);
  return 0;
}
