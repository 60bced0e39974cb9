/* tmu.h — the texture and memory lookup unit as seen by a QPU: parameter
 * writes (S retires a request), general texture lookups configured by
 * uniforms, direct 32-bit memory reads, and the result FIFO popped by the
 * ldtmu signals. Facts: reference/vc4.md §5.
 *
 * Lookups are performed when S is written; results queue in request order.
 */
#ifndef GS_V3D_TMU_H
#define GS_V3D_TMU_H

#include <stdalign.h>
#include <stdint.h>

#define TMU_FIFO_DEPTH 8

typedef struct qpu_tmu_state {
  alignas(64) uint32_t param[4][16]; /* written S (unused), T, R, B values */
  uint8_t written;                   /* bit p set: parameter p written in this request */
  uint8_t nwritten;                  /* parameters written so far in this request */
  uint32_t cfg[4];                   /* config uniforms popped for this request */
  uint8_t head, count;               /* result FIFO */
  alignas(64) uint32_t fifo[TMU_FIFO_DEPTH][16];
} qpu_tmu_state;

struct gs_gpu;
struct gs_qpu;
union gs_vec;

/* Write of TMU<unit> parameter p (0 S, 1 T, 2 R, 3 B) for the lanes in
 * `lanes`. Writing S performs the lookup and queues the result. */
int tmu_write(struct gs_gpu *g, struct gs_qpu *q, int unit, int p, const union gs_vec *v, uint16_t lanes);
/* ldtmu<unit>: pops the oldest result into *out; GS_EHANG if none queued. */
int tmu_pop(struct gs_gpu *g, struct gs_qpu *q, int unit, union gs_vec *out);

#endif
