/* tmu.h — the texture and memory lookup unit as seen by a QPU: parameter
 * writes (S retires a request), general texture lookups configured by
 * uniforms, direct 32-bit memory reads, and the result FIFO popped by the
 * ldtmu signals. Facts: RG §4; the choices no source settles
 * (filter weights, LOD, lanes outside the write mask): docs/v3d-units.md.
 *
 * A lookup is performed completely when S is written, and its 16 results
 * queue in request order. A request with only S written is a direct
 * memory read (no uniform); otherwise every parameter write pops one config
 * uniform, in write order, as parameters 0, 1, 2, 3. Lanes not in the S
 * write's lane mask are not looked up and return 0.
 */
#ifndef GS_V3D_TMU_H
#define GS_V3D_TMU_H

#include <stdalign.h>
#include <stdint.h>

#define TMU_FIFO_DEPTH 8

enum { TMU_S = 0, TMU_T = 1, TMU_R = 2, TMU_B = 3 };

typedef struct qpu_tmu_state {
  alignas(64) uint32_t param[4][16]; /* T, R, B values of the open request (S unused) */
  uint8_t written;                   /* bit p set: parameter p written in this request */
  uint8_t nwritten;                  /* parameters written so far in this request */
  uint32_t cfg[4];                   /* config uniforms popped for this request */
  uint8_t head, count;               /* result FIFO */
  alignas(64) uint32_t fifo[TMU_FIFO_DEPTH][16];
} qpu_tmu_state;

struct gs_gpu;
struct gs_qpu;
union gs_vec;

/* Write of TMU<unit> parameter p (TMU_S..TMU_B) for the lanes in `lanes`.
 * Writing S performs the lookup and queues the result. Errors: GS_EFAULT
 * (memory outside the allocations, naming the address), GS_EHANG (result
 * FIFO full), GS_EINVAL (a parameter written twice, an unmodelled texture
 * type or mode). */
int tmu_write(struct gs_gpu *g, struct gs_qpu *q, int unit, int p, const union gs_vec *v, uint16_t lanes);
/* ldtmu<unit>: pops the oldest result into *out; GS_EHANG if none queued. */
int tmu_pop(struct gs_gpu *g, struct gs_qpu *q, int unit, union gs_vec *out);

#endif
