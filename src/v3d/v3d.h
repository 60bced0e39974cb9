/* v3d.h — the gs_gpu context as the hardware model sees it: memory, QPUs,
 * the shared VPM, semaphores and mutex, the program cache and config. */
#ifndef GS_V3D_V3D_H
#define GS_V3D_V3D_H

#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "isa/qpu/qpu.h"
#include "v3d/vpm.h"

#define GS_MAX_QPUS 12
#define GS_DEFAULT_WATCHDOG (UINT64_C(1) << 28)

struct qpu_cache; /* decode.c */

struct gs_gpu {
  gs_gpu_config cfg;
  gs_diag diag;
  gs_mem *mem;
  gs_vpm vpm;
  uint8_t sem[16];      /* semaphore counts 0..15 */
  int mutex_owner;      /* QPU number holding the mutex, -1 if free */
  struct qpu_cache *cache;
  gs_qpu *qpu[GS_MAX_QPUS];
  gs_addr fault_record; /* gs_v3d_fault_record: set when a draw fails */
};

#endif
