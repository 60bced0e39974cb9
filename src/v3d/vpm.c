/* vpm.c — the VPM: generic block reads and writes, VCD DMA loads from
 * memory and VDW DMA stores to memory, for any unit's setup state (vpm.h).
 * Facts: RG §7, Tables 32-37; choices where the sources are silent or
 * disagree: docs/v3d-units.md.
 *
 * Every access is a stream of 1-, 2- or 4-byte elements laid out along VPM
 * rows or down a VPM column (vpm_stream); the setup decoders only compute
 * where a stream starts and how far apart its elements are, and one
 * function (stream_word) locates an element for every mode.
 */
#include <stdint.h>
#include <string.h>
#include "v3d/vpm.h"

/* ---- streams -------------------------------------------------------------- */

/* A sequence of elements in the VPM window.
 * Horizontal: byte position p is row p/64, word (p/4)%16, byte p%4 — the
 *   window read as one array of 64-byte rows.
 * Vertical: byte position p is row p/4, word `col`, byte p%4 — one column
 *   read top to bottom, 4 bytes per row. */
typedef struct vpm_stream {
  int horiz;
  unsigned col;    /* column of a vertical stream */
  uint32_t start;  /* byte position of element 0 */
  uint32_t step;   /* bytes from one element to the next */
  uint32_t width;  /* bytes per element: 1, 2 or 4 */
} vpm_stream;

static unsigned window_rows(const gs_vpm_port *p) { return p->rows ? p->rows : VPM_USER_ROWS; }

void vpm_port_set_window(gs_vpm_port *p, unsigned row_base, unsigned rows) {
  p->row_base = (uint16_t)(row_base % VPM_ROWS);
  p->rows = (uint16_t)(rows > VPM_ROWS ? VPM_ROWS : rows);
}

void vpm_port_set_write_window(gs_vpm_port *p, unsigned row_base, unsigned rows) {
  p->wr_row_base = (uint16_t)(row_base % VPM_ROWS);
  p->wr_rows = (uint16_t)(rows > VPM_ROWS ? VPM_ROWS : rows);
}

/* A window of the VPM: the rows a stream's row addresses wrap in. */
typedef struct vpm_window {
  unsigned base, rows;
} vpm_window;

static vpm_window main_window(const gs_vpm_port *p) { return (vpm_window){p->row_base, window_rows(p)}; }

/* The generic-write window: the output segment, when the pipeline set one. */
static vpm_window write_window(const gs_vpm_port *p) {
  return p->wr_rows ? (vpm_window){p->wr_row_base, p->wr_rows} : main_window(p);
}

/* The index in vpm->words of the word holding element k of st, and the bit
 * shift of the element in it. Row addresses wrap inside the window (RG
 * Tables 32-33: "the address wraps beyond Y = 63"). */
static uint32_t stream_word(vpm_window win, const vpm_stream *st, uint32_t k, unsigned *shift) {
  uint32_t pos = st->start + k * st->step;
  uint32_t row = st->horiz ? pos / 64 : pos / 4;
  uint32_t word = st->horiz ? (pos / 4) % 16 : st->col;
  row = (win.base + row % win.rows) % VPM_ROWS;
  *shift = (pos % 4) * 8;
  return row * 16 + word;
}

static uint32_t width_mask(uint32_t width) { return width == 4 ? 0xffffffffu : (1u << (8 * width)) - 1; }

/* Element k of st, zero-extended to 32 bits. */
static uint32_t stream_get(const gs_vpm *vpm, vpm_window win, const vpm_stream *st, uint32_t k) {
  unsigned shift;
  uint32_t w = vpm->words[stream_word(win, st, k, &shift)];
  return (w >> shift) & width_mask(st->width);
}

/* Replaces element k of st with the low bytes of v. */
static void stream_put(gs_vpm *vpm, vpm_window win, const vpm_stream *st, uint32_t k, uint32_t v) {
  unsigned shift;
  uint32_t *w = &vpm->words[stream_word(win, st, k, &shift)];
  uint32_t mask = width_mask(st->width) << shift;
  *w = (*w & ~mask) | ((v << shift) & mask);
}

/* ---- generic block access (RG Tables 32, 33) ------------------------------ */

enum { SIZE_8 = 0, SIZE_16 = 1, SIZE_32 = 2 };

static unsigned generic_size(uint32_t setup) { return (setup >> 8) & 3; }
static uint32_t generic_stride(uint32_t setup) {
  uint32_t stride = (setup >> 12) & 63;
  return stride ? stride : 64;
}
uint32_t vpm_generic_num(uint32_t setup) {
  uint32_t num = (setup >> 20) & 15;
  return num ? num : 16;
}

/* The 16-element vector at ADDR `addr` in the mode of `setup`. ADDR holds a
 * 6-bit 32-bit-vector address (Y if horizontal, {Y[5:4], X} if vertical)
 * above 1 (16-bit) or 2 (8-bit) sub-vector select bits. A laned sub-vector
 * takes half-word/byte `sel` of 16 consecutive 32-bit locations; a packed
 * one takes 16 consecutive half-words/bytes starting at block `sel` (32 or
 * 16 bytes) of the 32-bit vector (RG Figures 8 and 9). */
static vpm_stream generic_stream(uint32_t setup, uint32_t addr) {
  unsigned size = generic_size(setup);
  int horiz = (setup >> 11) & 1;
  int laned = (setup >> 10) & 1;
  uint32_t width = 1u << size;
  unsigned sel_bits = 2 - size;
  uint32_t sel = addr & ((1u << sel_bits) - 1);
  uint32_t vec = (addr >> sel_bits) & 63;
  vpm_stream st = {horiz, vec & 15, 0, 4, width};
  uint32_t sub = 0;
  if (size != SIZE_32) {
    sub = laned ? sel * width : sel * 16 * width;
    st.step = laned ? 4 : width;
  }
  st.start = (horiz ? vec * 64 : (vec & 0x30) * 4) + sub;
  return st;
}

int vpm_generic_check(uint32_t word, const char *what, gs_diag *d) {
  if (generic_size(word) == 3)
    return gs_diag_set(d, GS_EINVAL, "VPM %s setup 0x%08x has SIZE 3, which is reserved", what, word);
  return GS_OK;
}

void vpm_generic_read_start(gs_vpm_port *p, uint32_t word) {
  p->rd_valid = 1;
  p->rd_setup = word;
  p->rd_addr = word & 0xff;
  p->rd_left = vpm_generic_num(word);
}

void vpm_generic_write_start(gs_vpm_port *p, uint32_t word) {
  p->wr_valid = 1;
  p->wr_setup = word;
  p->wr_addr = word & 0xff;
}

void vpm_block_read(const gs_vpm *vpm, gs_vpm_port *p, uint32_t out[VPM_VECTOR]) {
  vpm_stream st = generic_stream(p->rd_setup, p->rd_addr);
  vpm_window win = main_window(p);
  for (uint32_t e = 0; e < VPM_VECTOR; e++) out[e] = stream_get(vpm, win, &st, e);
  p->rd_addr = (p->rd_addr + generic_stride(p->rd_setup)) & 0xff;
  p->rd_left--;
}

void vpm_block_write(gs_vpm *vpm, gs_vpm_port *p, const uint32_t in[VPM_VECTOR]) {
  vpm_stream st = generic_stream(p->wr_setup, p->wr_addr);
  vpm_window win = write_window(p);
  for (uint32_t e = 0; e < VPM_VECTOR; e++) stream_put(vpm, win, &st, e, in[e]);
  p->wr_addr = (p->wr_addr + generic_stride(p->wr_setup)) & 0xff;
}

int vpm_write_rows(const gs_vpm_port *p, uint64_t *rows) {
  if (!p->wr_rows) return -1;
  /* an element's row grows with its position, so the rows written are
   * those from element 0's to element 15's */
  vpm_stream st = generic_stream(p->wr_setup, p->wr_addr);
  uint32_t last = st.start + (VPM_VECTOR - 1) * st.step, unit = st.horiz ? 64 : 4;
  uint32_t lo = st.start / unit, hi = last / unit;
  if (hi >= p->wr_rows) return (int)(lo >= p->wr_rows ? lo : p->wr_rows);
  for (uint32_t r = lo; r <= hi && r < 64; r++) *rows |= (uint64_t)1 << r;
  return -1;
}

/* ---- DMA ------------------------------------------------------------------- */

/* Element width in bytes and the byte/half-word select encoded by MODEW
 * (RG Tables 34 and 36: 0 32-bit, 2-3 16-bit, 4-7 8-bit). */
static uint32_t modew_width(unsigned modew) { return modew >= 4 ? 1 : modew >= 2 ? 2 : 4; }
static uint32_t modew_sel(unsigned modew) { return modew >= 4 ? (modew & 3) : modew >= 2 ? (modew & 1) : 0; }

/* A 2-D DMA block: rows × len elements of `width` bytes; memory row r
 * starts at addr + r * pitch; VPM row r is stream vpm[r] (at most 128). */
typedef struct dma_block {
  uint32_t addr, pitch, rows, len, width;
  vpm_stream vpm[128];
} dma_block;

static uint32_t mem_element_addr(const dma_block *b, uint32_t r, uint32_t i) {
  return b->addr + r * b->pitch + i * b->width;
}

/* The first byte of [a, a+len) outside allocated GPU memory, or -1 if all
 * are inside (possibly in two adjacent allocations). */
static int64_t first_bad_byte(const gs_mem *m, uint32_t a, uint32_t len) {
  if (a <= UINT32_MAX - (len - 1) && gs_mem_ptr(m, a, len)) return -1;
  for (uint32_t k = 0; k < len; k++)
    if (!gs_mem_ptr(m, a + k, 1)) return (uint32_t)(a + k);
  return -1;
}

/* GS_OK if every memory byte of b is inside allocated GPU memory; else the
 * error, naming the first bad address in transfer order. Checked before
 * anything moves so that a failing DMA leaves memory and VPM untouched. */
static int dma_check(const gs_mem *m, const dma_block *b, const char *what, gs_diag *d) {
  for (uint32_t r = 0; r < b->rows; r++)
    for (uint32_t i = 0; i < b->len; i++) {
      int64_t bad = first_bad_byte(m, mem_element_addr(b, r, i), b->width);
      if (bad >= 0)
        return gs_diag_set(d, GS_EFAULT,
                         "%s 0x%08x (memory row %u of %u, element %u) is outside allocated GPU memory", what,
                         (uint32_t)bad, r, b->rows, i);
    }
  return GS_OK;
}

/* Little-endian element access byte by byte (an element may straddle two
 * adjacent allocations; dma_check has vouched for every byte). */
static uint32_t mem_load(const gs_mem *m, uint32_t a, uint32_t width) {
  uint32_t v = 0;
  for (uint32_t k = 0; k < width; k++) v |= (uint32_t)*(const uint8_t *)gs_mem_ptr(m, a + k, 1) << (8 * k);
  return v;
}
static void mem_store(gs_mem *m, uint32_t a, uint32_t width, uint32_t v) {
  for (uint32_t k = 0; k < width; k++) *(uint8_t *)gs_mem_ptr(m, a + k, 1) = (uint8_t)(v >> (8 * k));
}

/* VCD DMA load (RG Table 36). The VPM start of memory row r is the address
 * {Y, sel} + r*VPITCH, where sel is the byte (8-bit) or half-word (16-bit)
 * select: for horizontal blocks that names row Y, word X, byte offset sel
 * and the elements follow packed along the row; for vertical blocks the
 * elements follow packed down column X. */
static void vcd_block(const gs_vpm_port *s, uint32_t addr, dma_block *b) {
  uint32_t w = s->vcd_setup;
  unsigned modew = (w >> 28) & 7, mpitch = (w >> 24) & 15;
  uint32_t vpitch = (w >> 12) & 15, y = (w >> 4) & 127, x = w & 15;
  int vert = (w >> 11) & 1;
  b->addr = addr;
  b->width = modew_width(modew);
  b->pitch = mpitch ? 8u << mpitch : s->vcd_pitch;
  b->len = (w >> 20) & 15 ? (w >> 20) & 15 : 16;
  b->rows = (w >> 16) & 15 ? (w >> 16) & 15 : 16;
  if (!vpitch) vpitch = 16;
  uint32_t per_word = 4 / b->width; /* sub-vector selects per 32-bit word */
  for (uint32_t r = 0; r < b->rows; r++) {
    uint32_t a = y * per_word + modew_sel(modew) + r * vpitch;
    vpm_stream *st = &b->vpm[r];
    st->horiz = !vert;
    st->col = x;
    st->step = st->width = b->width;
    st->start = vert ? a * b->width : (a / per_word) * 64 + x * 4 + (a % per_word) * b->width;
  }
}

int vpm_dma_load(const gs_mem *m, gs_vpm *vpm, const gs_vpm_port *p, uint32_t addr, gs_diag *d) {
  dma_block b;
  int rc;
  if (!p->vcd_valid)
    return gs_diag_set(d, GS_EINVAL, "VCD DMA load from 0x%08x started before any DMA load setup", addr);
  vcd_block(p, addr, &b);
  if ((rc = dma_check(m, &b, "VCD load from", d)) < 0) return rc;
  vpm_window win = main_window(p);
  for (uint32_t r = 0; r < b.rows; r++)
    for (uint32_t i = 0; i < b.len; i++)
      stream_put(vpm, win, &b.vpm[r], i, mem_load(m, mem_element_addr(&b, r, i), b.width));
  return GS_OK;
}

/* VDW DMA store (RG Tables 34, 35). Memory row u holds DEPTH elements
 * packed from the VPM starting at VPMBASE plus the byte/half-word offset of
 * MODEW; with BLOCKMODE 0 row u comes from VPM row Y+u (horizontal) or
 * column X+u (vertical, carrying into the next 16-row block past column
 * 15); with BLOCKMODE 1 the rows follow one another in the VPM. Memory rows
 * are STRIDE bytes apart, end to start. */
static int vdw_block(const gs_vpm_port *s, uint32_t addr, dma_block *b, gs_diag *d) {
  uint32_t w = s->vdw_setup;
  unsigned modew = w & 7;
  if (modew == 1) return gs_diag_set(d, GS_EINVAL, "VDW setup 0x%08x: MODEW 1 is unused", w);
  if (w & 0x8000) return gs_diag_set(d, GS_EINVAL, "VDW setup 0x%08x sets LANED (bit 15), which must be 0", w);
  int horiz = (w >> 14) & 1, blockmode = (s->vdw_stride >> 16) & 1;
  uint32_t y = (w >> 7) & 127, x = (w >> 3) & 15;
  b->addr = addr;
  b->width = modew_width(modew);
  b->rows = (w >> 23) & 127 ? (w >> 23) & 127 : 128;
  b->len = (w >> 16) & 127 ? (w >> 16) & 127 : 128;
  b->pitch = b->len * b->width + (s->vdw_stride & 0xffff);
  uint32_t offset = modew_sel(modew) * b->width;
  for (uint32_t u = 0; u < b->rows; u++) {
    vpm_stream *st = &b->vpm[u];
    st->horiz = horiz;
    st->col = x;
    st->step = st->width = b->width;
    if (blockmode) {
      st->start = (horiz ? y * 64 + x * 4 : y * 4) + offset + u * b->len * b->width;
    } else if (horiz) {
      st->start = (y + u) * 64 + x * 4 + offset;
    } else {
      uint32_t col = x + u;
      st->col = col % 16;
      st->start = (y + col / 16 * 16) * 4 + offset;
    }
  }
  return GS_OK;
}

int vpm_dma_store(gs_mem *m, const gs_vpm *vpm, const gs_vpm_port *p, uint32_t addr, gs_diag *d) {
  dma_block b;
  int rc;
  if (!p->vdw_valid)
    return gs_diag_set(d, GS_EINVAL, "VDW DMA store to 0x%08x started before any DMA store setup", addr);
  if ((rc = vdw_block(p, addr, &b, d)) < 0) return rc;
  if ((rc = dma_check(m, &b, "VDW store to", d)) < 0) return rc;
  vpm_window win = main_window(p);
  for (uint32_t u = 0; u < b.rows; u++)
    for (uint32_t i = 0; i < b.len; i++)
      mem_store(m, mem_element_addr(&b, u, i), b.width, stream_get(vpm, win, &b.vpm[u], i));
  return GS_OK;
}
