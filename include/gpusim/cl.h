/* gpusim/cl.h — VideoCore IV control lists: packets, the records they point
 * to, compressed primitive lists; encoder, decoder and readable dump.
 *
 * A control list is a byte stream of packets: a one-byte ID and a fixed
 * little-endian payload (Broadcom's VideoCore IV 3D Architecture Reference
 * Guide, "RG" below: Table 38); three packets are followed by variable
 * data (42: VG inline XY words; 48 and 49: a compressed primitive list, RG
 * Tables 39-43). gpusim describes every packet and every record a
 * packet points to (GL/NV/VG shader state records, attribute records, the
 * clipped primitive record) in one table of fields (src/v3d/cl.h), and
 * everything here is derived from that table. docs/control-lists.md lists
 * the packets and the choices gpusim makes where no source settles them.
 *
 * VALUES. Every field value travels as a uint32_t:
 *   UINT, HEX, ENUM, FLAG  the number (FLAG: 0 or 1);
 *   SINT, FIX4             two's complement (FIX4 counts 1/16 pixel);
 *   F32, F187              the bits of a float (gs_cl_f32 / gs_cl_float);
 *                          F187 keeps only the top 16 bits when packed;
 *   ADDR                   the bus address itself; an address stored in bits
 *                          31:4 of its word must be a multiple of 16.
 * A packet's values are an array in the order of its fields
 * (gs_cl_packet_info(id)->fields).
 *
 * ENCODING.
 *   uint8_t buf[16];
 *   const gs_cl_format_info *tc = gs_cl_packet_by_name("TILE_COORDINATES");
 *   uint32_t v[2] = {3, 2};                       // column, row
 *   int n = gs_cl_pack(tc, v, buf, sizeof buf, &d);  // 3 bytes: 73 03 02
 *   n = gs_cl_parse("TILE_COORDINATES column=3 row=2", buf, sizeof buf, &d);
 * gs_cl_pack fails (GS_EARG, naming packet and field) when a value does not
 * fit its field. Lists are written into GPU memory with a gs_cl_writer,
 * which can chain blocks (Branch, or relative branch inside compressed
 * lists) when one fills, as the PTB and the driver do.
 *
 * DECODING. A gs_cl_view says which bytes are readable: a range of GPU
 * memory (gs_mem), a host buffer placed at a bus address, or both.
 *   gs_cl_packet p;
 *   if (gs_cl_decode(&view, addr, &fmt, 0, &p, &d) < 0) puts(d.msg);
 *   // "0x00100040: unknown control-list packet ID 3 (0x03)"
 * Unknown IDs and malformed compressed lists are GS_EINVAL, packets that
 * run past readable memory GS_EFAULT; every message starts with the bus
 * address. No input crashes or hangs the decoder: loops are cut by budgets.
 *
 * DUMP. One line per packet: address, ID (decimal, as RG Table 38 numbers
 * the packets), name, every field by name, e.g.
 *   0x00100040  112 TILE_BINNING_MODE_CONFIGURATION  tile_alloc=0x00200000 ...
 * FLAG fields are shown together as flags=a|b (flags=none), ENUMs by name,
 * addresses in hex, floats in their shortest exact form, 12.4 values in
 * pixels. gs_cl_dump walks a list between two bus addresses, follows
 * Branch and Branch-to-sub-list/Return (indenting sub-lists), shows the
 * shader records a shader-state packet points to and each primitive of a
 * compressed list (records and primitives have no ID). gs_cl_parse reads
 * a dump line back (without the address; the ID, if given, must be the
 * name's).
 */
#ifndef GPUSIM_CL_H
#define GPUSIM_CL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gpusim/diag.h"
#include "gpusim/mem.h"

/* ---- The table ---------------------------------------------------------- */

enum {
  GS_CL_UINT, GS_CL_HEX, GS_CL_SINT, GS_CL_FIX4, GS_CL_F32, GS_CL_F187, GS_CL_ADDR,
  GS_CL_ENUM, GS_CL_FLAG
};
/* What follows a packet's fixed part. */
enum { GS_CL_TAIL_NONE, GS_CL_TAIL_PRIMS, GS_CL_TAIL_VG };
/* Which CLE thread a packet is for (RG Table 38; Mesa's
 * src/broadcom/cle/v3d_packet_v21.xml marks the binning-only ones). */
enum { GS_CL_MODE_B = 1, GS_CL_MODE_R = 2, GS_CL_MODE_BR = 3 };

#define GS_CL_MAX_FIELDS 24   /* fields of the largest packet or record */

typedef struct gs_cl_field_info {
  const char *name;
  uint8_t byte;               /* offset of its little-endian word (see below) */
  uint8_t lo, width;          /* bits lo .. lo+width-1 of that word */
  uint8_t kind;               /* GS_CL_UINT ... */
  uint8_t nvalues;            /* ENUM: number of value codes named */
  const char *const *values;  /* ENUM: names by value, NULL = reserved */
} gs_cl_field_info;

/* A packet (id >= 0; byte offsets count after the ID byte) or a record
 * (id = -1; byte offsets from its start). */
typedef struct gs_cl_format_info {
  const char *name;           /* "TILE_BINNING_MODE_CONFIGURATION" */
  int id;                     /* packet ID, -1 for a record */
  uint8_t size;               /* bytes of the fixed part, ID included */
  uint8_t mode;               /* GS_CL_MODE_*, 0 for records */
  uint8_t tail;               /* GS_CL_TAIL_* */
  uint8_t nfields;
  const gs_cl_field_info *fields;
} gs_cl_format_info;

/* The packet with this ID, NULL if the ID is reserved. */
const gs_cl_format_info *gs_cl_packet_info(unsigned id);
/* The packet or record with this name (exact, upper case), or NULL. */
const gs_cl_format_info *gs_cl_packet_by_name(const char *name);
const gs_cl_format_info *gs_cl_record_by_name(const char *name);
/* All packets in ID order / all records: *n receives the count. */
const gs_cl_format_info *gs_cl_packets(size_t *n);
const gs_cl_format_info *gs_cl_records(size_t *n);
/* Index of the field called name in f, or -1. */
int gs_cl_field_index(const gs_cl_format_info *f, const char *name);

/* Float <-> value conversions for F32 and F187 fields. */
uint32_t gs_cl_f32(float f);
float gs_cl_float(uint32_t bits);

/* ---- Encoding ----------------------------------------------------------- */

/* Packs a packet (ID byte first) or a record from its field values into
 * dst[0 .. size). Bytes no field covers are 0. Returns the fixed size, or
 * GS_EARG when cap is too small or a value does not fit its field (message:
 * "NAME: field=VALUE ..."). A packet with a tail gets only its fixed part. */
int gs_cl_pack(const gs_cl_format_info *f, const uint32_t *values, uint8_t *dst, size_t cap,
               gs_diag *d);

/* As gs_cl_pack, from (name, value) pairs; fields not named are 0, an
 * unknown or repeated name is GS_EARG. */
typedef struct gs_cl_field_value {
  const char *name;
  uint32_t value;
} gs_cl_field_value;
int gs_cl_pack_fields(const gs_cl_format_info *f, const gs_cl_field_value *fv, size_t n,
                      uint8_t *dst, size_t cap, gs_diag *d);

/* Parses one packet or record in dump syntax, "[ID] NAME field=value ...",
 * (flags=a|b, enum names or numbers, floats, 12.4 pixels; fields left out
 * are 0) and packs it. Returns the size or GS_EARG naming the column. */
int gs_cl_parse(const char *text, uint8_t *dst, size_t cap, gs_diag *d);

/* ---- Reading memory ----------------------------------------------------- */

/* Readable bytes: [base, base+len) of `bytes` (when not NULL), else any
 * range inside one allocation of `mem` (when not NULL). */
typedef struct gs_cl_view {
  const gs_mem *mem;
  const uint8_t *bytes;
  gs_addr base;
  uint32_t len;
} gs_cl_view;

/* Host pointer to [a, a+n) if readable in v, else NULL. */
const uint8_t *gs_cl_view_ptr(const gs_cl_view *v, gs_addr a, uint32_t n);

/* ---- Compressed primitive lists (RG Tables 39-43) ------------------------ */

/* Primitive List Format (56) codes, which select the coding tables. */
enum { GS_CL_PRIM_POINTS = 0, GS_CL_PRIM_LINES = 1, GS_CL_PRIM_TRIANGLES = 2, GS_CL_PRIM_RHTS = 3 };
enum { GS_CL_DATA_INDEX16 = 1, GS_CL_DATA_INDEX24 = 2, GS_CL_DATA_XY = 3 };
typedef struct gs_cl_prim_format {
  uint8_t type;   /* GS_CL_PRIM_* */
  uint8_t data;   /* GS_CL_DATA_*; 0 = not known yet */
} gs_cl_prim_format;

/* One primitive: 1 (point), 2 (line, RHT) or 3 (triangle) vertices, each an
 * index or an XY word (x in bits 15:0, y in 31:16, signed 12.4). */
typedef struct gs_cl_prim {
  uint32_t v[3];
} gs_cl_prim;
#define GS_CL_XY(x, y) ((uint32_t)(uint16_t)(x) | (uint32_t)(uint16_t)(y) << 16)

#define GS_CL_PRIM_MAX_BYTES 13  /* the longest coding (XY triangle, coding 3) */
#define GS_CL_PRIM_ESCAPE 0x80u  /* code 128: end of list */
#define GS_CL_PRIM_ABSOLUTE 0x81u /* code 129: coding 3 */
#define GS_CL_PRIM_BRANCH 0x82u  /* code 130 + s16: relative branch, 3 bytes */

/* Vertices per primitive of format f (1, 2 or 3), or GS_EINVAL for a
 * format with no coding table (XY points or lines, unknown codes). */
int gs_cl_prim_vertices(const gs_cl_prim_format *f, gs_diag *d);

/* Encodes p with the most compact legal coding given the previous
 * primitive of the list (prev; NULL for the first one, which always gets
 * an absolute coding) into out[0 .. GS_CL_PRIM_MAX_BYTES). Returns the byte
 * count; *coding (may be NULL) receives 0..3. GS_EARG when an index or
 * coordinate does not fit the format. */
int gs_cl_prim_encode(const gs_cl_prim_format *f, const gs_cl_prim *prev, const gs_cl_prim *p,
                      uint8_t *out, int *coding, gs_diag *d);

/* One item of a compressed list as read back. */
enum { GS_CL_ITEM_PRIM, GS_CL_ITEM_BRANCH, GS_CL_ITEM_ESCAPE };
typedef struct gs_cl_prim_item {
  uint8_t kind;      /* GS_CL_ITEM_* */
  uint8_t coding;    /* PRIM: 0..3 */
  uint8_t size;      /* bytes it took */
  gs_addr addr;      /* where it starts */
  gs_addr target;    /* BRANCH: where the list continues */
  gs_cl_prim prim;   /* PRIM: the decoded primitive */
} gs_cl_prim_item;

/* Reads a compressed list item by item, following relative branches. */
typedef struct gs_cl_prim_reader {
  const gs_cl_view *view;
  gs_cl_prim_format fmt;
  gs_addr cur;       /* next item; after the escape: the byte after it */
  gs_cl_prim prev;
  int have_prev;     /* prev is valid (relative codings start from 0s) */
  int done;          /* the escape was read */
  int branched;      /* a relative branch was followed */
  uint32_t budget;   /* items left before the list counts as a loop */
  const uint8_t *win; /* readable bytes win_start .. win_start + win_len - 1, */
  gs_addr win_start;  /* kept so that an item inside them needs no look-up */
  uint32_t win_len;
} gs_cl_prim_reader;

void gs_cl_prim_reader_init(gs_cl_prim_reader *r, const gs_cl_view *v, const gs_cl_prim_format *f,
                            gs_addr start);
/* Reads the next item into *it. GS_EINVAL for a reserved code, a format
 * with no coding table or a loop of branches; GS_EFAULT when the list runs
 * past readable memory; GS_EARG after the escape. */
int gs_cl_prim_read(gs_cl_prim_reader *r, gs_cl_prim_item *it, gs_diag *d);

/* Decodes a whole list at start into out[0 .. cap) (*n primitives; more
 * than cap is GS_EARG), *end (may be NULL) = the byte after the escape. */
int gs_cl_prim_decode(const gs_cl_view *v, const gs_cl_prim_format *f, gs_addr start,
                      gs_cl_prim *out, size_t cap, size_t *n, gs_addr *end, gs_diag *d);

/* ---- Packets ------------------------------------------------------------ */

typedef struct gs_cl_packet {
  gs_addr addr;                       /* where the ID byte is */
  const gs_cl_format_info *info;      /* info->id is the packet ID */
  uint32_t values[GS_CL_MAX_FIELDS];  /* by field, as in VALUES above */
  gs_addr tail;                       /* start of the variable part */
  gs_addr next;                       /* where the following packet starts */
  gs_cl_prim_format fmt;              /* PRIMS tails: the format used */
} gs_cl_packet;

/* Decodes the packet at a. fmt is the current Primitive List Format (needed
 * to find the end of a compressed list, 48 and 49; may be NULL otherwise).
 * limit, when not 0, is the end of the list: a packet whose fixed part
 * runs past it is GS_EINVAL. */
int gs_cl_decode(const gs_cl_view *v, gs_addr a, const gs_cl_prim_format *fmt, gs_addr limit,
                 gs_cl_packet *p, gs_diag *d);

/* Decodes a record (f: id -1) at a into values[f->nfields]. */
int gs_cl_decode_record(const gs_cl_view *v, gs_addr a, const gs_cl_format_info *f,
                        uint32_t *values, gs_diag *d);

/* Unpacks field values from the bytes of a packet (ID byte first) or a
 * record; the caller guarantees f->size bytes. */
void gs_cl_unpack(const gs_cl_format_info *f, const uint8_t *src, uint32_t *values);

/* Formats "NAME  field=value ..." (no address) into buf, always
 * NUL-terminated. Returns the length it needed (as snprintf). */
size_t gs_cl_format(const gs_cl_format_info *f, const uint32_t *values, char *buf, size_t len);

/* ---- Whole lists -------------------------------------------------------- */

typedef struct gs_cl_dump_opts {
  int max_depth;          /* sub-list nesting allowed; 0 = 2 (RG) */
  uint32_t max_packets;   /* budget against branch loops; 0 = 1 << 20 */
  gs_cl_prim_format fmt;  /* format before any 56 packet; data 0 = none */
  int no_records;         /* 1: do not show shader records */
  int no_prims;           /* 1: do not show each compressed primitive */
} gs_cl_dump_opts;

/* Dumps the list that runs from start until the address end is reached
 * (as the CLE runs until CTnCA = CTnEA), following branches, to out; opts
 * may be NULL. A Halt stops it. On an error the lines so far are written
 * and the error (naming the address) is returned. */
int gs_cl_dump(const gs_cl_view *v, gs_addr start, gs_addr end, const gs_cl_dump_opts *opts,
               FILE *out, gs_diag *d);

/* ---- Writing lists into GPU memory -------------------------------------- */

/* Gives the writer a new block when the current one is full: *start (32-B
 * aligned) and *size (at least 32 bytes). */
typedef int (*gs_cl_more_fn)(void *ud, gs_addr *start, uint32_t *size, gs_diag *d);

typedef struct gs_cl_writer {
  gs_mem *mem;
  gs_addr cur, end;        /* free space of the current block */
  gs_cl_more_fn more;      /* NULL: a full block is an error */
  void *ud;
  gs_cl_prim_format fmt;   /* from the last Primitive List Format written */
  int in_list;             /* a compressed list (48/49) is open */
  int have_prev;
  gs_cl_prim prev;
} gs_cl_writer;

/* Starts writing at start, with size bytes available there. */
void gs_cl_writer_init(gs_cl_writer *w, gs_mem *mem, gs_addr start, uint32_t size);
/* Lets the writer chain to new blocks: Branch (16) between packets,
 * relative branch (130) inside compressed lists (or, when the new block is
 * beyond its +-1 MB reach, escape + Branch + a new 48). Each block then
 * keeps 6 bytes free for that; only Return and Halt may use them
 * (docs/control-lists.md, "The tile lists gpusim's PTB writes"). */
void gs_cl_writer_chain(gs_cl_writer *w, gs_cl_more_fn more, void *ud);

/* Appends a packet (values by field; NULL for none). Writing 56 sets the
 * primitive format; writing 48 or 49 opens a compressed list with it;
 * writing any packet while a list is open closes the list first. Errors
 * name the address: a full block without `more`, a bad value. */
int gs_cl_put(gs_cl_writer *w, const gs_cl_format_info *f, const uint32_t *values, gs_diag *d);
int gs_cl_put_id(gs_cl_writer *w, unsigned id, const uint32_t *values, gs_diag *d);
/* Appends one primitive to the open compressed list (most compact coding). */
int gs_cl_put_prim(gs_cl_writer *w, const gs_cl_prim *p, gs_diag *d);
/* Ends the open compressed list with its escape (no-op when none is open). */
int gs_cl_end_list(gs_cl_writer *w, gs_diag *d);
/* Appends VG Inline Primitives (42): type/continuation, n XY words and the
 * escape word. */
int gs_cl_put_vg_inline(gs_cl_writer *w, unsigned type, unsigned continuation,
                        const uint32_t *xy, size_t n, gs_diag *d);

#endif
