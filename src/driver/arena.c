/* arena.c — the driver's frame arena (arena.h): first-fit bump allocation
 * over blocks of GPU memory that are kept from frame to frame. */
#include <stdlib.h>
#include <string.h>
#include "driver/arena.h"

void drv_arena_init(drv_arena *a, gs_mem *m) {
  memset(a, 0, sizeof *a);
  a->mem = m;
}

void drv_arena_free(drv_arena *a) {
  for (size_t i = 0; i < a->n; i++) gs_mem_release(a->mem, a->blocks[i].addr, NULL);
  free(a->blocks);
  a->blocks = NULL;
  a->n = a->cap = 0;
}

void drv_arena_reset(drv_arena *a) {
  for (size_t i = 0; i < a->n; i++) a->blocks[i].used = 0;
}

size_t drv_arena_size(const drv_arena *a) {
  size_t s = 0;
  for (size_t i = 0; i < a->n; i++) s += a->blocks[i].size;
  return s;
}

/* Where an allocation of size bytes aligned to align starts in b, or
 * UINT64_MAX if it does not fit. */
static uint64_t fit(const drv_block *b, uint32_t size, uint32_t align) {
  uint64_t start = ((uint64_t)b->addr + b->used + align - 1) & ~(uint64_t)(align - 1);
  if (start + size > (uint64_t)b->addr + b->size) return UINT64_MAX;
  return start;
}

/* Adds a block of at least size bytes; returns its index or a GS_E* code. */
static int add_block(drv_arena *a, uint32_t size, gs_diag *d) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 8;
    drv_block *nb = realloc(a->blocks, cap * sizeof *nb);
    if (!nb) return gs_diag_set(d, GS_ENOMEM, "driver: host out of memory");
    a->blocks = nb;
    a->cap = cap;
  }
  uint32_t bsize = size > DRV_ARENA_BLOCK ? (size + 4095u) & ~4095u : DRV_ARENA_BLOCK;
  gs_addr addr;
  int rc = gs_mem_alloc(a->mem, bsize, 4096, &addr, d);
  if (rc < 0) return rc;
  a->blocks[a->n] = (drv_block){addr, bsize, 0};
  return (int)a->n++;
}

int drv_arena_alloc(drv_arena *a, uint32_t size, uint32_t align, gs_addr *out, gs_diag *d) {
  if (size == 0) size = 4;
  if (size > 0xF0000000u)
    return gs_diag_set(d, GS_ENOMEM, "driver: %u bytes of frame memory asked for at once", size);
  for (size_t i = 0; i < a->n; i++) {
    uint64_t start = fit(&a->blocks[i], size, align);
    if (start != UINT64_MAX) {
      a->blocks[i].used = (uint32_t)(start + size - a->blocks[i].addr);
      void *p = gs_mem_ptr(a->mem, (gs_addr)start, size);
      memset(p, 0, size);
      *out = (gs_addr)start;
      return GS_OK;
    }
  }
  int i = add_block(a, size, d);
  if (i < 0) return i;
  drv_block *b = &a->blocks[i];
  b->used = size;  /* blocks are 4096-aligned: align <= 4096 holds at the start */
  *out = b->addr;
  return GS_OK;
}
