/* decode.h — preparing QPU programs for the fast interpreter: each
 * instruction is decoded and validated once and predecoded into micro-ops
 * whose operands are indices into gs_qpu.reg[]; prepared programs are cached
 * per context by code address and content. */
#ifndef GS_QPU_DECODE_H
#define GS_QPU_DECODE_H

#include <stdint.h>
#include "isa/qpu/qpu.h"

typedef struct qpu_cache qpu_cache;

qpu_cache *qpu_cache_new(void);
void qpu_cache_free(qpu_cache *c);

/* The reference interpreter: executes the one instruction at q->pc.
 * Returns QPU_STEP_OK, QPU_STEP_STALL (nothing changed; try again later),
 * QPU_STEP_END (thread end retired) or a negative error. exec_ref.c */
int qpu_step_ref(gs_gpu *g, gs_qpu *q);

/* The fast interpreter: executes up to `max` instructions of q, adding the
 * number executed to q->instructions. Same results as qpu_step_ref. exec.c */
int qpu_run_fast(gs_gpu *g, gs_qpu *q, uint32_t max);

#endif
