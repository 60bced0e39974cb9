/* vpm.h — the vertex pipe memory (VPM) and its DMA engines as seen by the
 * QPUs: generic block reads and writes, VCD DMA loads (memory -> VPM) and
 * VDW DMA stores (VPM -> memory). Facts: RG §7; the choices no
 * source settles: docs/v3d-units.md.
 *
 * The VPM is VPM_ROWS rows of 16 32-bit words, shared by all QPUs of a
 * gs_gpu. A QPU sees a window of it: rows_base.. for `rows` rows (user
 * programs: rows 0..63, erratum HW-2253); every row address it forms wraps
 * inside that window. DMA is modelled as instantaneous, so the busy and wait
 * registers never stall.
 *
 * Every access, generic or DMA, is described as a "stream" of elements of
 * 1, 2 or 4 bytes laid along a VPM row (horizontal) or down a VPM column
 * (vertical); one function turns an element's byte position into a row,
 * word and bit shift, so the modes share one path.
 */
#ifndef GS_V3D_VPM_H
#define GS_V3D_VPM_H

#include <stdint.h>

#define VPM_ROWS 192      /* 12 KB, the Raspberry Pi configuration */
#define VPM_USER_ROWS 64  /* rows a user program can address */

typedef struct gs_vpm {
  uint32_t words[VPM_ROWS * 16]; /* row-major: word (y, x) at y*16 + x */
} gs_vpm;

/* Per-QPU VPM state: the setup registers and the read FIFO. All-zero (as
 * qpu_reset leaves it) means "no setup written, user-program window". */
typedef struct qpu_vpm_state {
  /* generic reads: the active setup, whose ADDR advances by STRIDE */
  uint8_t rd_valid;       /* a generic read setup was accepted */
  uint32_t rd_setup;      /* the active read setup word */
  uint32_t rd_addr;       /* current ADDR field (8 bits) */
  uint32_t rd_left;       /* vectors of the active setup not yet read */
  uint32_t rd_carry[16];  /* last vector of the previous setup, moved to
                             the FIFO when a new setup was accepted */
  uint8_t rd_has_carry;
  uint8_t rd_dropped;     /* a read setup was dropped (queue full) */
  uint32_t rd_dropped_word, rd_dropped_pc;
  /* generic writes: the setup persists for any number of writes */
  uint8_t wr_valid;
  uint32_t wr_setup;
  uint32_t wr_addr;
  /* VCD DMA load setup (A-side 49, ID 1) and extended pitch (ID 9) */
  uint8_t vcd_valid;
  uint32_t vcd_setup;
  uint32_t vcd_pitch;     /* MPITCHB in bytes, 0 until written */
  /* VDW DMA store setup (B-side 49, ID 2) and stride (ID 3) */
  uint8_t vdw_valid;
  uint32_t vdw_setup;
  uint32_t vdw_stride;    /* the whole ID-3 word, 0 until written */
  /* the window of the shared VPM this QPU addresses */
  uint16_t row_base;      /* VPM row the QPU's Y=0 maps to */
  uint16_t rows;          /* rows in the window; 0 means VPM_USER_ROWS */
  /* generic writes of vertex and coordinate shaders go to their batch's
   * output segment; wr_rows 0 means "the same window as everything else" */
  uint16_t wr_row_base, wr_rows;
  /* the VPM this QPU uses: NULL for the context's; a rendering thread
   * gives its QPU a VPM of its own */
  struct gs_vpm *mem;
} qpu_vpm_state;

struct gs_gpu;
struct gs_qpu;
union gs_vec;

/* Writes of setup words (element 0) to A-side 49 / B-side 49. The top bits
 * select the setup; an unknown selector is GS_EINVAL naming the word. */
int vpm_read_setup(struct gs_gpu *g, struct gs_qpu *q, uint32_t word);
int vpm_write_setup(struct gs_gpu *g, struct gs_qpu *q, uint32_t word);
/* Read of VPM_READ (48): the next vector of the current read setup;
 * GS_EHANG if no vector is pending (the hardware would block forever). */
int vpm_read(struct gs_gpu *g, struct gs_qpu *q, union gs_vec *out);
/* Write to VPM_WRITE (48) with the current write setup. */
int vpm_write(struct gs_gpu *g, struct gs_qpu *q, const union gs_vec *v);
/* Writes of the DMA start addresses (element 0): VPM_LD_ADDR (A 50) starts a
 * VCD load, VPM_ST_ADDR (B 50) a VDW store; GS_EFAULT on memory outside the
 * allocations, naming the first bad address, with nothing transferred. */
int vpm_dma_load(struct gs_gpu *g, struct gs_qpu *q, uint32_t addr);
int vpm_dma_store(struct gs_gpu *g, struct gs_qpu *q, uint32_t addr);

/* Sets the window of the shared VPM that q addresses (the pipeline gives
 * vertex and coordinate shaders their segments; user programs keep the
 * default rows 0..63). */
void vpm_set_window(struct gs_qpu *q, unsigned row_base, unsigned rows);
/* Sets a separate window for generic writes (a shader's output segment);
 * rows 0 makes writes use the main window again. Both start at Y = 0 for
 * the shader (RG §7: reads and writes are relocated to the
 * batch's input and output segments). */
void vpm_set_write_window(struct gs_qpu *q, unsigned row_base, unsigned rows);

#endif
