/* unit_io.h — the QPU's register protocols for the VPM and the TMU: the
 * per-QPU state behind the VPM setup registers, the VPM read FIFO, the TMU
 * parameter registers, config uniforms and result FIFOs, over the neutral
 * units of v3d/vpm.h and v3d/tmu.h. Facts: RG §4, §7, Table 14; choices:
 * docs/v3d-units.md.
 *
 * Every function returns GS_OK or a negative error whose message, in
 * qpu_diag(g, q), starts "QPU <n> at pc 0x<pc>: " (qpu_fault).
 */
#ifndef GS_QPU_UNIT_IO_H
#define GS_QPU_UNIT_IO_H

#include <stdalign.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/gpu.h"
#include "v3d/tmu.h"
#include "v3d/vpm.h"

struct gs_qpu;
union gs_vec;

/* ---- VPM (vpm_io.c) ---------------------------------------------------------- */

/* Per-QPU VPM state: the setups and window, and the read FIFO. All-zero (as
 * qpu_reset leaves it) means "no setup written, user-program window, the
 * context's VPM". */
typedef struct qpu_vpm_state {
  gs_vpm_port port;       /* setups and window (v3d/vpm.h) */
  /* the VPM this QPU uses: NULL for the context's; a rendering thread
   * gives its QPU a VPM of its own */
  struct gs_vpm *mem;
  uint32_t rd_carry[16];  /* last vector of the previous read setup, moved
                             to the FIFO when a new setup was accepted */
  uint8_t rd_has_carry;
  uint8_t rd_dropped;     /* a read setup was dropped (queue full) */
  uint32_t rd_dropped_word, rd_dropped_pc;
  uint64_t wr_seen;       /* rows of the output segment written (a vertex or coordinate shader) */
} qpu_vpm_state;

/* Writes of setup words (element 0) to VPMVCD_RD_SETUP (A-side 49) /
 * VPMVCD_WR_SETUP (B-side 49). The top bits select the setup; an unknown
 * selector is GS_EINVAL naming the word. */
int qpu_vpm_read_setup(gs_gpu *g, struct gs_qpu *q, uint32_t word);
int qpu_vpm_write_setup(gs_gpu *g, struct gs_qpu *q, uint32_t word);
/* Read of VPM_READ (48): the next vector of the current read setup;
 * GS_EHANG if no vector is pending (the hardware would block forever). */
int qpu_vpm_read(gs_gpu *g, struct gs_qpu *q, union gs_vec *out);
/* Write to VPM_WRITE (48) with the current write setup. */
int qpu_vpm_write(gs_gpu *g, struct gs_qpu *q, const union gs_vec *v);
/* Writes of the DMA start addresses (element 0): VPM_LD_ADDR (A 50) starts a
 * VCD load, VPM_ST_ADDR (B 50) a VDW store; GS_EFAULT on memory outside the
 * allocations, naming the first bad address, with nothing transferred. */
int qpu_vpm_dma_load(gs_gpu *g, struct gs_qpu *q, uint32_t addr);
int qpu_vpm_dma_store(gs_gpu *g, struct gs_qpu *q, uint32_t addr);

/* The window of the VPM that q addresses, and a separate window for its
 * generic writes (vpm_port_set_window, vpm_port_set_write_window). */
void qpu_vpm_set_window(struct gs_qpu *q, unsigned row_base, unsigned rows);
void qpu_vpm_set_write_window(struct gs_qpu *q, unsigned row_base, unsigned rows);

/* Records d's error with q's "QPU <n> at pc 0x<pc>: " in front (qpu_fault);
 * returns its code. */
int qpu_fault_diag(gs_gpu *g, const struct gs_qpu *q, const gs_diag *d);

/* ---- TMU (tmu_io.c) ------------------------------------------------------------
 * A lookup is performed completely when S is written, and its 16 results
 * queue in request order. A request with only S written is a direct memory
 * read (no uniform); otherwise every parameter write pops one config
 * uniform, in write order, as parameters 0, 1, 2, 3. Lanes not in the S
 * write's lane mask are not looked up and return 0. */

#define QPU_TMU_FIFO_DEPTH 8

enum { QPU_TMU_S = 0, QPU_TMU_T = 1, QPU_TMU_R = 2, QPU_TMU_B = 3 };

typedef struct qpu_tmu_state {
  alignas(64) uint32_t param[4][16]; /* T, R, B values of the open request (S unused) */
  uint8_t written;                   /* bit p set: parameter p written in this request */
  uint8_t nwritten;                  /* parameters written so far in this request */
  uint32_t cfg[4];                   /* config uniforms popped for this request */
  uint8_t head, count;               /* result FIFO */
  alignas(64) uint32_t fifo[QPU_TMU_FIFO_DEPTH][16];
} qpu_tmu_state;

/* Write of TMU<unit> parameter p (QPU_TMU_S..QPU_TMU_B) for the lanes in
 * `lanes`. Writing S performs the lookup and queues the result. Errors:
 * GS_EFAULT (memory outside the allocations, naming the address), GS_EHANG
 * (result FIFO full), GS_EINVAL (a parameter written twice, an unmodelled
 * texture type or mode). */
int qpu_tmu_write(gs_gpu *g, struct gs_qpu *q, int unit, int p, const union gs_vec *v, uint16_t lanes);
/* ldtmu<unit>: pops the oldest result into *out; GS_EHANG if none queued. */
int qpu_tmu_pop(gs_gpu *g, struct gs_qpu *q, int unit, union gs_vec *out);

#endif
