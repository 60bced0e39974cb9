/* gpusim/mem.h — simulated GPU memory.
 *
 * GPU memory is a flat 32-bit bus address space. Only allocated ranges are
 * accessible: every access by a program, DMA engine or texture unit is
 * bounds-checked against the allocations, and one that leaves them is an
 * error naming the address (GS_EFAULT), never a host crash.
 *
 *   gs_mem *m = gs_mem_new(64 << 20);         // up to 64 MiB of allocations
 *   gs_addr a; gs_mem_alloc(m, 4096, 16, &a, NULL);
 *   uint32_t *p = gs_mem_ptr(m, a, 16);       // host view, NULL if out of bounds
 *
 * Allocations never move while allocated; address 0 is never allocated.
 */
#ifndef GPUSIM_MEM_H
#define GPUSIM_MEM_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"

typedef uint32_t gs_addr;
typedef struct gs_mem gs_mem;

#define GS_MEM_BASE 0x00100000u      /* first bus address handed out */
#define GS_MEM_DEFAULT_LIMIT (256u << 20)

/* Creates an empty memory that can hold up to `limit` bytes of allocations.
 * Returns NULL if the host is out of memory. */
gs_mem *gs_mem_new(size_t limit);
void gs_mem_free(gs_mem *m);

/* Allocates `size` bytes (size > 0) aligned to `align` (a power of two, at
 * least 4; 0 means 16) and zero-filled; stores the bus address in *out. */
int gs_mem_alloc(gs_mem *m, uint32_t size, uint32_t align, gs_addr *out, gs_diag *d);

/* Releases the allocation that starts at a. */
int gs_mem_release(gs_mem *m, gs_addr a, gs_diag *d);

/* Returns a host pointer to [a, a+len) if that range lies inside one
 * allocation, else NULL. The pointer stays valid until that allocation is
 * released or the memory is freed. */
void *gs_mem_ptr(const gs_mem *m, gs_addr a, uint32_t len);

/* Copies between host and GPU memory; GS_EFAULT (naming the address) if the
 * range is not inside one allocation. */
int gs_mem_read(const gs_mem *m, gs_addr a, void *dst, uint32_t len, gs_diag *d);
int gs_mem_write(gs_mem *m, gs_addr a, const void *src, uint32_t len, gs_diag *d);

/* Bytes currently allocated. */
size_t gs_mem_used(const gs_mem *m);

#endif
