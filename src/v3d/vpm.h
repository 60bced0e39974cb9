/* vpm.h — the vertex pipe memory (VPM) and its DMA engines as seen by the
 * QPUs: generic block reads and writes, VCD DMA loads (memory -> VPM) and
 * VDW DMA stores (VPM -> memory). Facts: reference/vc4.md §2.
 *
 * The VPM is VPM_ROWS rows of 16 32-bit words, shared by all QPUs of a
 * gs_gpu. User programs address rows 0..63 (erratum HW-2253). DMA is modelled
 * as instantaneous, so the busy and wait registers never stall.
 */
#ifndef GS_V3D_VPM_H
#define GS_V3D_VPM_H

#include <stdint.h>

#define VPM_ROWS 192      /* 12 KB, the Raspberry Pi configuration */
#define VPM_USER_ROWS 64  /* rows a user program can address */

typedef struct gs_vpm {
  uint32_t words[VPM_ROWS * 16]; /* row-major: word (y, x) at y*16 + x */
} gs_vpm;

/* Per-QPU VPM state (the setup registers and read FIFO). */
typedef struct qpu_vpm_state {
  /* generic read: */
  uint32_t rd_setup;     /* last generic read setup word */
  uint32_t rd_addr;      /* current ADDR field value */
  uint32_t rd_left;      /* vectors still to read */
  /* generic write: */
  uint32_t wr_setup;
  uint32_t wr_addr;
  /* VCD DMA load setup (A-side 49, ID 1) and extended pitch (ID 9): */
  uint32_t vcd_setup;
  uint32_t vcd_pitch;    /* MPITCHB in bytes */
  /* VDW DMA store setup (B-side 49, ID 2) and stride (ID 3): */
  uint32_t vdw_setup;
  uint32_t vdw_stride;   /* the whole ID-3 word */
  uint32_t row_base;     /* VPM row the QPU's Y=0 maps to (0 for user programs) */
} qpu_vpm_state;

struct gs_gpu;
struct gs_qpu;
union gs_vec;

/* Writes of setup words (element 0) to A-side 49 / B-side 49. */
int vpm_read_setup(struct gs_gpu *g, struct gs_qpu *q, uint32_t word);
int vpm_write_setup(struct gs_gpu *g, struct gs_qpu *q, uint32_t word);
/* Read of VPM_READ (48): the next vector of the current read setup;
 * GS_EHANG if no vector is pending (the hardware would block forever). */
int vpm_read(struct gs_gpu *g, struct gs_qpu *q, union gs_vec *out);
/* Write to VPM_WRITE (48) with the current write setup. */
int vpm_write(struct gs_gpu *g, struct gs_qpu *q, const union gs_vec *v);
/* Writes of the DMA start addresses (element 0): VPM_LD_ADDR (A 50) starts a
 * VCD load, VPM_ST_ADDR (B 50) a VDW store; GS_EFAULT on memory outside the
 * allocations, naming the address. */
int vpm_dma_load(struct gs_gpu *g, struct gs_qpu *q, uint32_t addr);
int vpm_dma_store(struct gs_gpu *g, struct gs_qpu *q, uint32_t addr);

#endif
