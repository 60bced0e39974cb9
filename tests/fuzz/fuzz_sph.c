/* fuzz_sph.c — SPH decoding (src/sph/sph.c) and what reads a decoded
 * header: validation, the listing, stage linkage, the interpolation modes
 * of a fragment shader's varyings and the driver's program header in GPU
 * memory (src/driver/program.c).
 *
 * The input is one or two 80-byte headers (20 little-endian words each;
 * shorter inputs are padded with zeros). Checks, from gs_sph_encode's and
 * gs_sph_dump's contracts in gpusim/sph.h:
 *   - decode fails only for a SphType other than 1 or 2, and then with a
 *     message; else encode(decode(w)) == w, reserved bits included;
 *   - the header read back through a driver program header in GPU memory
 *     (gs_drv_program_sph) decodes to the same fields;
 *   - gs_sph_dump returns the length of the whole listing and writes a
 *     NUL-terminated prefix of it into a short buffer;
 *   - gs_sph_imap / gs_sph_omap / gs_sph_pixel_imap answer within their
 *     ranges for every attribute address, and the buffer maps of the two
 *     headers as consecutive stages lie inside the IMAP / OMAP bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "gpusim/driver.h"
#include "gpusim/mem.h"
#include "gpusim/sph.h"

#define SPH_BYTES (4 * GS_SPH_WORDS)

static gs_mem *mem;

/* Decodes header k of the input; 0 when it decodes. Checks the round trip. */
static int decode(const uint8_t *data, size_t size, int k, gs_sph *s) {
  uint8_t bytes[SPH_BYTES] = {0};
  size_t off = (size_t)k * SPH_BYTES;
  if (size > off) memcpy(bytes, data + off, size - off < SPH_BYTES ? size - off : SPH_BYTES);
  uint32_t w[GS_SPH_WORDS], back[GS_SPH_WORDS];
  for (int i = 0; i < GS_SPH_WORDS; i++) w[i] = fuzz_le32(bytes + 4 * i);
  gs_diag d;
  gs_diag_clear(&d);
  int rc = gs_sph_decode(w, s, &d);
  unsigned type = w[0] & 0x1F;
  if (rc < 0) {
    if (type == GS_SPH_TYPE_VTG || type == GS_SPH_TYPE_PS || rc != GS_EINVAL || !d.msg[0])
      fuzz_fail("decode of SphType %u: %d \"%s\"", type, rc, d.msg);
    return rc;
  }
  if (gs_sph_encode(s, back, &d) < 0) fuzz_fail("a decoded header does not encode: %s", d.msg);
  for (int i = 0; i < GS_SPH_WORDS; i++)
    if (back[i] != w[i]) fuzz_fail("word %d 0x%08x encodes back as 0x%08x", i, w[i], back[i]);

  /* The same header behind a program's driver header in GPU memory. */
  gs_addr block;
  if (gs_mem_alloc(mem, 128, 16, &block, NULL) < 0) fuzz_fail("gs_mem_alloc failed");
  uint8_t *p = gs_mem_ptr(mem, block, 128);
  uint32_t magic = GS_DRV_PROGRAM_MAGIC;
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(magic >> (8 * i));
  memcpy(p + 16, bytes, SPH_BYTES);
  gs_sph again;
  if (gs_drv_program_sph(mem, block + GS_DRV_PROGRAM_HEADER, &again, &d) < 0)
    fuzz_fail("gs_drv_program_sph: %s", d.msg);
  if (memcmp(&again, s, sizeof again) != 0) fuzz_fail("the program header decodes differently");
  gs_mem_release(mem, block, NULL);
  return 0;
}

static void check_one(const gs_sph *s) {
  gs_diag d;
  gs_diag_clear(&d);
  if (gs_sph_validate(s, &d) < 0 && !d.msg[0]) fuzz_fail("validate failed without a message");
  static char full[1 << 16];
  size_t need = gs_sph_dump(s, full, sizeof full);
  if (need >= sizeof full || strlen(full) != need) fuzz_fail("dump: length %zu, text %zu", need, strlen(full));
  char part[37];
  memset(part, 'x', sizeof part);
  if (gs_sph_dump(s, part, sizeof part) != need) fuzz_fail("dump into a short buffer: another length");
  size_t shown = need < sizeof part - 1 ? need : sizeof part - 1;
  if (part[shown] != '\0' || memcmp(part, full, shown) != 0) fuzz_fail("dump into a short buffer: not a prefix");
  for (unsigned a = 0; a < 4 * GS_SPH_ATTR_COUNT + 16; a += 4) {
    unsigned im = gs_sph_imap(s, a), om = gs_sph_omap(s, a);
    gs_pixel_imap pm = gs_sph_pixel_imap(s, a);
    if (im > 3 || om > 1 || (unsigned)pm > 3) fuzz_fail("maps at 0x%03x: imap %u omap %u pixel %d", a, im, om, pm);
    if (pm != GS_PIXEL_IMAP_UNUSED && pm != (gs_pixel_imap)im)
      fuzz_fail("0x%03x: pixel imap %d but imap %u", a, pm, im);
    (void)gs_sph_attr_default(a);
  }
  uint8_t mode[32];
  unsigned n;
  if (gs_sph_varying_modes(s, mode, NULL, &n, &d) == GS_OK) {
    if (n > 32) fuzz_fail("%u varyings", n);
    for (unsigned i = 0; i < 32; i++)
      if (i < n ? mode[i] < 1 || mode[i] > 3 : mode[i] != 0) fuzz_fail("varying %u has mode %u of %u", i, mode[i], n);
  }
}

static void check_link(const gs_sph *prev, const gs_sph *cur) {
  gs_sph_attr_set in, out;
  gs_sph_input_bmap(cur, prev, &in);
  gs_sph_output_bmap(prev, cur, &out);
  for (unsigned a = 0; a < 4 * GS_SPH_ATTR_COUNT; a += 4) {
    if (gs_sph_attr_has(&in, a) && !(gs_sph_imap(cur, a) && gs_sph_omap(prev, a)))
      fuzz_fail("input bmap has 0x%03x without IMAP and OMAP", a);
    if (gs_sph_attr_has(&out, a) && !gs_sph_omap(prev, a)) fuzz_fail("output bmap has 0x%03x without OMAP", a);
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  mem = gs_mem_new(1 << 16);
  return mem ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 2 * SPH_BYTES) return 0;
  gs_sph a, b;
  int ok_a = decode(data, size, 0, &a) == 0;
  int ok_b = size > SPH_BYTES && decode(data, size, 1, &b) == 0;
  if (ok_a) check_one(&a);
  if (ok_b) check_one(&b);
  if (ok_a && ok_b) check_link(&a, &b);
  if (ok_a) {
    gs_sph_attr_set in;
    gs_sph_input_bmap(&a, NULL, &in);
    for (unsigned x = 0; x < 4 * GS_SPH_ATTR_COUNT; x += 4)
      if (gs_sph_attr_has(&in, x) != (gs_sph_imap(&a, x) != 0)) fuzz_fail("bmap of the first stage at 0x%03x", x);
  }
  return 0;
}
