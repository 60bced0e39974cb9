/* vpm.c — PLACEHOLDER, replaced by the VPM model. */
#include "isa/qpu/qpu.h"
#include "v3d/v3d.h"
int vpm_read_setup(gs_gpu *g, gs_qpu *q, uint32_t w) { (void)w; return qpu_fault(g, q, GS_EINVAL, "VPM not built yet"); }
int vpm_write_setup(gs_gpu *g, gs_qpu *q, uint32_t w) { (void)w; return qpu_fault(g, q, GS_EINVAL, "VPM not built yet"); }
int vpm_read(gs_gpu *g, gs_qpu *q, gs_vec *o) { (void)o; return qpu_fault(g, q, GS_EINVAL, "VPM not built yet"); }
int vpm_write(gs_gpu *g, gs_qpu *q, const gs_vec *v) { (void)v; return qpu_fault(g, q, GS_EINVAL, "VPM not built yet"); }
int vpm_dma_load(gs_gpu *g, gs_qpu *q, uint32_t a) { (void)a; return qpu_fault(g, q, GS_EINVAL, "VPM not built yet"); }
int vpm_dma_store(gs_gpu *g, gs_qpu *q, uint32_t a) { (void)a; return qpu_fault(g, q, GS_EINVAL, "VPM not built yet"); }
