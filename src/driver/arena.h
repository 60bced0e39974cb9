/* arena.h — the driver's frame arena: GPU memory allocated through gs_mem in
 * blocks that live as long as the driver and are handed out again for every
 * frame. Control lists, shader records, uniform streams and the tile memory
 * of one frame come from here, so a frame costs no gs_mem calls once the
 * blocks exist, and nothing of a frame outlives the next one.
 */
#ifndef GS_DRIVER_ARENA_H
#define GS_DRIVER_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/mem.h"

#define DRV_ARENA_BLOCK (64u << 10)  /* bytes of an ordinary block */

typedef struct drv_block {
  gs_addr addr;
  uint32_t size, used;
} drv_block;

typedef struct drv_arena {
  gs_mem *mem;
  drv_block *blocks;
  size_t n, cap;
} drv_arena;

void drv_arena_init(drv_arena *a, gs_mem *m);
/* Releases every block. */
void drv_arena_free(drv_arena *a);
/* Makes every block free again (the blocks stay allocated). */
void drv_arena_reset(drv_arena *a);
/* Hands out size bytes aligned to align (a power of two, 4..4096), zeroed.
 * GS_ENOMEM when GPU or host memory is exhausted. */
int drv_arena_alloc(drv_arena *a, uint32_t size, uint32_t align, gs_addr *out, gs_diag *d);
/* Bytes the arena holds in GPU memory. */
size_t drv_arena_size(const drv_arena *a);

#endif
