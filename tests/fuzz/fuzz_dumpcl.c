/* fuzz_dumpcl.c — `gpusim dump-cl` (gs_cl_dump, src/v3d/cl.c) and the
 * packet codec behind it: the decoder, the dump text and its parser
 * gs_cl_parse.
 *
 * Input: byte 0 options (bit 0 --no-prims, bit 1 --no-records, bits 3:2
 * sub-list depth - 1, bit 4 text mode), byte 1 the primitive list format in
 * force before any packet 56 (bits 1:0 type, bits 3:2 data), bytes 2-5
 * the bus address the list is loaded at (little-endian), then the list.
 *
 * Binary mode: the list is dumped as `gpusim dump-cl` does (to /dev/null);
 * a failure must name the address ("0x..."), a list that loops the jump
 * that sends it back, and a loop of relative branches in a compressed list
 * must be found within as many items as the list has bytes. Then packets are decoded one
 * after another from the start, and every record is decoded at the start:
 * each one's dump text (gs_cl_format) must parse back (gs_cl_parse) to the
 * same field values.
 * Text mode: every line of the rest is parsed as a packet or record; what
 * parses must format and parse again to the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "gpusim/cl.h"

static FILE *devnull;

/* f's values formatted and parsed again must be the same values. */
static void roundtrip(const gs_cl_format_info *f, const uint32_t *values, gs_addr at) {
  char text[4096];
  size_t need = gs_cl_format(f, values, text, sizeof text);
  if (need >= sizeof text) fuzz_fail("0x%08x %s: %zu characters", at, f->name, need);
  uint8_t bytes[256];
  gs_diag d;
  int n = gs_cl_parse(text, bytes, sizeof bytes, &d);
  if (n != f->size) fuzz_fail("0x%08x: \"%s\" does not parse back (%d): %s", at, text, n, d.msg);
  uint32_t again[GS_CL_MAX_FIELDS];
  gs_cl_unpack(f, bytes, again);
  for (int i = 0; i < f->nfields; i++)
    if (again[i] != values[i])
      fuzz_fail("0x%08x: \"%s\": field %s 0x%08x parses back as 0x%08x", at, text, f->fields[i].name, values[i],
                again[i]);
}

static void text_mode(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) return;
  memcpy(s, data, size);
  s[size] = '\0';
  for (char *line = s, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    uint8_t bytes[256];
    gs_diag d;
    int n = gs_cl_parse(line, bytes, sizeof bytes, &d);
    if (n < 0) {
      if (!d.msg[0]) fuzz_fail("gs_cl_parse failed without a message");
      continue;
    }
    /* The name is the first word after the packet's ID, if given: a
     * packet, else a record. */
    char name[64];
    const char *at = line + strspn(line, " \t");
    if (*at >= '0' && *at <= '9') {
      at += strspn(at, "0123456789");
      at += strspn(at, " \t");
    }
    size_t len = strcspn(at, " \t\r");
    if (len >= sizeof name) fuzz_fail("\"%s\" parsed with a name of %zu characters", line, len);
    memcpy(name, at, len);
    name[len] = '\0';
    const gs_cl_format_info *f = gs_cl_packet_by_name(name);
    if (!f) f = gs_cl_record_by_name(name);
    if (!f) fuzz_fail("\"%s\" parsed but names no packet or record", line);
    if (n != f->size) fuzz_fail("\"%s\": %d bytes, %s has %d", line, n, f->name, f->size);
    uint32_t values[GS_CL_MAX_FIELDS];
    gs_cl_unpack(f, bytes, values);
    roundtrip(f, values, 0);
  }
  free(s);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  devnull = fopen("/dev/null", "w");
  return devnull ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 6 || size > 1 << 16) return 0;
  if (data[0] & 0x10) {
    text_mode(data + 6, size - 6);
    return 0;
  }
  gs_cl_dump_opts o;
  memset(&o, 0, sizeof o);
  o.no_prims = data[0] & 1;
  o.no_records = data[0] >> 1 & 1;
  o.max_depth = (data[0] >> 2 & 3) + 1;
  o.max_packets = 1u << 14;
  o.fmt.type = data[1] & 3;
  o.fmt.data = data[1] >> 2 & 3;
  gs_addr base = fuzz_le32(data + 2);
  const uint8_t *list = data + 6;
  uint32_t len = (uint32_t)(size - 6);
  if ((uint64_t)base + len > 0xFFFFFFFFull) base = 0xFFFFFFFFu - len;
  gs_cl_view v = {NULL, list, base, len};
  gs_diag d;
  gs_diag_clear(&d);
  if (gs_cl_dump(&v, base, base + len, &o, devnull, &d) < 0 && strncmp(d.msg, "0x", 2) != 0)
    fuzz_fail("dump error without an address: \"%s\"", d.msg);
  /* A list that loops has a packet that sends the walk back (a Branch, a
   * sub-list call to an earlier address, a compressed list ending before
   * it starts), and the error names it. */
  if (strstr(d.msg, "the list loops") && strstr(d.msg, "through 0 ? at"))
    fuzz_fail("a loop without a jump back: \"%s\"", d.msg);
  /* A loop of relative branches in a compressed list is found within as
   * many items as there are readable bytes (each item takes one at least). */
  const char *loop = strstr(d.msg, "compressed list longer than ");
  if (loop && strtoul(loop + strlen("compressed list longer than "), NULL, 10) > len)
    fuzz_fail("a loop of %u bytes found only after: %s", len, d.msg);

  /* Packet after packet from the start, as long as they decode. */
  gs_cl_prim_format fmt = o.fmt;
  gs_addr a = base;
  for (int k = 0; k < 4096 && a < base + len; k++) {
    gs_cl_packet p;
    if (gs_cl_decode(&v, a, &fmt, base + len, &p, &d) < 0) {
      if (strncmp(d.msg, "0x", 2) != 0) fuzz_fail("decode error without an address: \"%s\"", d.msg);
      break;
    }
    if (p.addr != a) fuzz_fail("0x%08x: %s decoded at 0x%08x", a, p.info->name, p.addr);
    roundtrip(p.info, p.values, a);
    if (p.info->tail == GS_CL_TAIL_PRIMS) fmt = p.fmt;
    if (p.info->id == 56) {
      fmt.type = (uint8_t)p.values[gs_cl_field_index(p.info, "prim_type")];
      fmt.data = (uint8_t)p.values[gs_cl_field_index(p.info, "data_type")];
    }
    a = p.next;
  }
  /* Every record, at the start. */
  size_t nrec;
  const gs_cl_format_info *recs = gs_cl_records(&nrec);
  for (size_t i = 0; i < nrec; i++) {
    uint32_t values[GS_CL_MAX_FIELDS];
    if (gs_cl_decode_record(&v, base, &recs[i], values, &d) == GS_OK) roundtrip(&recs[i], values, base);
  }
  return 0;
}
