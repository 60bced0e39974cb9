/* vpm.h — the vertex pipe memory (VPM) and its DMA engines: generic block
 * reads and writes, VCD DMA loads (memory -> VPM) and VDW DMA stores (VPM ->
 * memory), for any shader unit that uses the VPM. Facts: RG §7; the choices
 * no source settles: docs/v3d-units.md.
 *
 * The VPM is VPM_ROWS rows of 16 32-bit words. A user of the VPM (a shader
 * unit: one gs_vpm_port each) sees a window of it: rows row_base.. for
 * `rows` rows (user programs: rows 0..63, erratum HW-2253); every row
 * address it forms wraps inside that window. DMA is modelled as
 * instantaneous.
 *
 * Every access, generic or DMA, is described as a "stream" of elements of
 * 1, 2 or 4 bytes laid along a VPM row (horizontal) or down a VPM column
 * (vertical); one function turns an element's byte position into a row,
 * word and bit shift, so the modes share one path.
 *
 * The setups are held as the VPM's own setup words (RG Tables 32-37); how
 * a shader unit delivers them (on the VideoCore IV: through its setup
 * registers) is the unit's business. Errors are returned as a negative code with the
 * message in the caller's gs_diag, without naming the unit: the caller
 * prefixes that.
 */
#ifndef GS_V3D_VPM_H
#define GS_V3D_VPM_H

#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/mem.h"

#define VPM_ROWS 192      /* 12 KB, the Raspberry Pi configuration */
#define VPM_USER_ROWS 64  /* rows a user program can address */
#define VPM_VECTOR 16     /* elements of a generic block vector */

typedef struct gs_vpm {
  uint32_t words[VPM_ROWS * 16]; /* row-major: word (y, x) at y*16 + x */
} gs_vpm;

/* The setup state of one VPM user. All-zero means "no setup written,
 * user-program window". */
typedef struct gs_vpm_port {
  /* generic reads: the active setup, whose ADDR advances by STRIDE */
  uint8_t rd_valid;       /* a generic read setup was accepted */
  uint32_t rd_setup;      /* the active read setup word */
  uint32_t rd_addr;       /* current ADDR field (8 bits) */
  uint32_t rd_left;       /* vectors of the active setup not yet read */
  /* generic writes: the setup persists for any number of writes */
  uint8_t wr_valid;
  uint32_t wr_setup;
  uint32_t wr_addr;
  /* VCD DMA load: basic setup (RG Table 36) and extended pitch (Table 37) */
  uint8_t vcd_valid;
  uint32_t vcd_setup;
  uint32_t vcd_pitch;     /* MPITCHB in bytes, 0 until written */
  /* VDW DMA store: basic setup (RG Table 34) and stride setup (Table 35) */
  uint8_t vdw_valid;
  uint32_t vdw_setup;
  uint32_t vdw_stride;    /* the whole stride setup word, 0 until written */
  /* the window of the VPM this user addresses */
  uint16_t row_base;      /* VPM row the user's Y=0 maps to */
  uint16_t rows;          /* rows in the window; 0 means VPM_USER_ROWS */
  /* generic writes of vertex and coordinate shaders go to their batch's
   * output segment; wr_rows 0 means "the same window as everything else" */
  uint16_t wr_row_base, wr_rows;
} gs_vpm_port;

/* Sets the window of the VPM that p addresses (the pipeline gives vertex
 * and coordinate shaders their segments; user programs keep the default
 * rows 0..63). */
void vpm_port_set_window(gs_vpm_port *p, unsigned row_base, unsigned rows);
/* Sets a separate window for generic writes (a shader's output segment);
 * rows 0 makes writes use the main window again. Both start at Y = 0 for
 * the shader (RG §7: reads and writes are relocated to the batch's input
 * and output segments). */
void vpm_port_set_write_window(gs_vpm_port *p, unsigned row_base, unsigned rows);

/* ---- generic block access (RG Tables 32, 33) ---- */

/* GS_OK if `word` is a usable generic setup; GS_EINVAL for SIZE 3
 * (reserved), naming the word and `what` ("read" or "write"). */
int vpm_generic_check(uint32_t word, const char *what, gs_diag *d);
/* Vectors a generic read setup asks for (NUM; 0 means 16). */
uint32_t vpm_generic_num(uint32_t setup);
/* Makes `word` (checked) p's active read setup: NUM vectors from ADDR. */
void vpm_generic_read_start(gs_vpm_port *p, uint32_t word);
/* Makes `word` (checked) p's write setup. */
void vpm_generic_write_start(gs_vpm_port *p, uint32_t word);
/* The vector at p's read ADDR in the mode of its read setup, into out[0..15];
 * ADDR then advances by STRIDE and one vector fewer is left. The caller
 * checks that one is left (rd_left). */
void vpm_block_read(const gs_vpm *vpm, gs_vpm_port *p, uint32_t out[VPM_VECTOR]);
/* Writes in[0..15] at p's write ADDR in the mode of its write setup (into
 * the write window, if one is set); ADDR then advances by STRIDE. The
 * caller checks that a write setup was given (wr_valid). */
void vpm_block_write(gs_vpm *vpm, gs_vpm_port *p, const uint32_t in[VPM_VECTOR]);
/* With a write window set: the first row past the window that the next
 * block write would reach (its rows counted from the window's start, before
 * the wrap), or -1 when every row it writes is inside, and then the rows it
 * writes (below 64) are added to *rows as bits. Without a window: -1. A
 * vertex or coordinate shader that writes past its output segment writes
 * more than the shader state gives it rows for (docs/v3d-units.md). */
int vpm_write_rows(const gs_vpm_port *p, uint64_t *rows);

/* ---- DMA ---- */

/* A VCD DMA load from memory at addr into vpm with p's load setup
 * (vcd_setup, vcd_pitch). GS_EINVAL before any load setup; GS_EFAULT on
 * memory outside the allocations, naming the first bad address, with
 * nothing transferred. */
int vpm_dma_load(const gs_mem *m, gs_vpm *vpm, const gs_vpm_port *p, uint32_t addr, gs_diag *d);
/* A VDW DMA store from vpm to memory at addr with p's store setup
 * (vdw_setup, vdw_stride). GS_EINVAL before any store setup or for a setup
 * with MODEW 1 or LANED; GS_EFAULT as for loads. */
int vpm_dma_store(gs_mem *m, const gs_vpm *vpm, const gs_vpm_port *p, uint32_t addr, gs_diag *d);

#endif
