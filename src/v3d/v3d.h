/* v3d.h — the gs_gpu context as the hardware model sees it: memory, the
 * shared VPM, config, the last error, and the state each instruction set
 * keeps per context (its shader units, program cache and shared resources:
 * src/isa/isa.h), which the hardware model never looks into. */
#ifndef GS_V3D_V3D_H
#define GS_V3D_V3D_H

#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "isa/isa.h"
#include "v3d/vpm.h"

#define GS_DEFAULT_WATCHDOG (UINT64_C(1) << 28)

struct gs_gpu {
  gs_gpu_config cfg;
  gs_diag diag;
  gs_mem *mem;
  gs_vpm vpm;
  void *isa_ctx[GS_ISA_IDS]; /* gs_isa.context_new's, by gs_isa_id */
  gs_addr fault_record;      /* gs_v3d_fault_record: set when a draw fails */
  const struct gs_trace *trace; /* the trace subscriber (v3d/trace.h), or NULL */
  struct gs_debug *debug;       /* a shader-debugger capture armed (isa/debug.h), or NULL */
};

#endif
