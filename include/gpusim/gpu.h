/* gpusim/gpu.h — the gs_gpu context: one simulated VideoCore IV.
 *
 * A gs_gpu owns GPU memory, the 12 QPUs with their shared units (VPM,
 * semaphores, mutex, TMUs, SFUs), the cache of prepared programs and the
 * last error. There is no global state: everything hangs off a gs_gpu, and
 * two contexts never interfere.
 *
 *   gs_gpu *g = gs_gpu_new(NULL);            // defaults
 *   ... gs_gpu_mem(g), gs_qpu_run_user(g, ...) ...
 *   if (rc < 0) fprintf(stderr, "%s\n", gs_gpu_error(g));
 *   gs_gpu_free(g);
 */
#ifndef GPUSIM_GPU_H
#define GPUSIM_GPU_H

#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/mem.h"

#define GS_VERSION_STRING GS_VERSION

typedef struct gs_gpu gs_gpu;

/* Float rounding of the QPU's fadd/fsub/fmul/itof (docs/determinism.md). */
enum { GS_ROUND_TOWARD_ZERO = 0, GS_ROUND_NEAREST_EVEN = 1 };
/* Which interpreter runs QPU programs. */
enum { GS_INTERP_FAST = 0, GS_INTERP_REFERENCE = 1 };
/* The PICA200 unit's arithmetic in the pipeline: the hardware's float24, or
 * IEEE binary32 as Citra computes (docs/pica-numerics.md). */
enum { GS_PICA_F24 = 0, GS_PICA_F32 = 1 };
/* What a PICA200 vertex starts from in the pipeline: zero temporaries,
 * outputs, a0, aL and flags (deterministic, the default), or what the
 * unit's previous batch left, as the hardware keeps a shader unit's state
 * between invocations (docs/pica-unit.md, "State"). */
enum { GS_PICA_STATE_ZERO = 0, GS_PICA_STATE_PERSIST = 1 };

typedef struct gs_gpu_config {
  size_t mem_limit;         /* bytes of GPU memory; 0 = GS_MEM_DEFAULT_LIMIT */
  uint64_t watchdog;        /* instruction budget per program; 0 = default (1<<28) */
  int qpus;                 /* number of QPUs, 1..12; 0 = 12 */
  int rounding;             /* GS_ROUND_* */
  int interpreter;          /* GS_INTERP_* */
  int pica_float;           /* GS_PICA_F24, GS_PICA_F32 */
  int pica_state;           /* GS_PICA_STATE_* */
} gs_gpu_config;

/* Creates a context; cfg may be NULL for defaults. Returns NULL when the
 * host is out of memory. */
gs_gpu *gs_gpu_new(const gs_gpu_config *cfg);
void gs_gpu_free(gs_gpu *g);

gs_mem *gs_gpu_mem(gs_gpu *g);
gs_gpu_config *gs_gpu_config_of(gs_gpu *g); /* may be changed between runs */

/* The message of the last failure of a call on g ("" if none). */
const char *gs_gpu_error(const gs_gpu *g);
gs_diag *gs_gpu_diag(gs_gpu *g);

#endif
