/* mem.c — simulated GPU memory: one host reservation, bounds-checked
 * allocations kept in an array sorted by bus address. */
#include <stdlib.h>
#include <string.h>
#include "gpusim/mem.h"

typedef struct mem_block {
  gs_addr start;
  uint32_t size;
} mem_block;

struct gs_mem {
  uint8_t *bytes;     /* host storage for [GS_MEM_BASE, GS_MEM_BASE + limit) */
  size_t limit;
  mem_block *blocks;  /* sorted by start, non-overlapping */
  size_t nblocks, cap;
  size_t used;
  /* Bytes from here to the limit have never been part of an allocation:
   * they are still calloc's zeros, and their pages need not have been
   * touched, so an allocation there is zero-filled without writing it. */
  size_t fresh;
};

gs_mem *gs_mem_new(size_t limit) {
  gs_mem *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  if (limit == 0) limit = GS_MEM_DEFAULT_LIMIT;
  if (limit > 0xF0000000u - GS_MEM_BASE) limit = 0xF0000000u - GS_MEM_BASE;
  m->limit = limit;
  m->bytes = calloc(1, limit); /* untouched pages cost nothing */
  if (!m->bytes) {
    free(m);
    return NULL;
  }
  return m;
}

void gs_mem_free(gs_mem *m) {
  if (!m) return;
  free(m->bytes);
  free(m->blocks);
  free(m);
}

/* Index of the first block whose start is > a. */
static size_t upper_bound(const gs_mem *m, gs_addr a) {
  size_t lo = 0, hi = m->nblocks;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (m->blocks[mid].start <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int gs_mem_alloc(gs_mem *m, uint32_t size, uint32_t align, gs_addr *out, gs_diag *d) {
  if (align == 0) align = 16;
  if (size == 0) return gs_diag_set(d, GS_EARG, "mem.alloc: size must be positive");
  if (align < 4 || (align & (align - 1)) || align > (1u << 24))
    return gs_diag_set(d, GS_EARG, "mem.alloc: alignment %u is not a power of two in 4..16M", align);
  /* First fit: the gap before each block, then the space after the last. */
  uint64_t prev_end = GS_MEM_BASE;
  size_t i;
  uint64_t start = 0;
  for (i = 0; i <= m->nblocks; i++) {
    start = (prev_end + align - 1) & ~(uint64_t)(align - 1);
    uint64_t gap_end = i < m->nblocks ? m->blocks[i].start : GS_MEM_BASE + (uint64_t)m->limit;
    if (start + size <= gap_end) break;
    if (i < m->nblocks) prev_end = (uint64_t)m->blocks[i].start + m->blocks[i].size;
  }
  if (i > m->nblocks)
    return gs_diag_set(d, GS_ENOMEM, "mem.alloc: cannot allocate %u bytes: GPU memory limit of %zu bytes reached (%zu in use)",
                       size, m->limit, m->used);
  if (m->nblocks == m->cap) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    mem_block *nb = realloc(m->blocks, ncap * sizeof *nb);
    if (!nb) return gs_diag_set(d, GS_ENOMEM, "mem.alloc: host out of memory");
    m->blocks = nb;
    m->cap = ncap;
  }
  memmove(&m->blocks[i + 1], &m->blocks[i], (m->nblocks - i) * sizeof *m->blocks);
  m->blocks[i].start = (gs_addr)start;
  m->blocks[i].size = size;
  m->nblocks++;
  m->used += size;
  size_t off = start - GS_MEM_BASE, end = off + size;
  if (off < m->fresh) memset(m->bytes + off, 0, (end < m->fresh ? end : m->fresh) - off);
  if (end > m->fresh) m->fresh = end;
  *out = (gs_addr)start;
  return GS_OK;
}

int gs_mem_release(gs_mem *m, gs_addr a, gs_diag *d) {
  size_t i = upper_bound(m, a);
  if (i == 0 || m->blocks[i - 1].start != a)
    return gs_diag_set(d, GS_EARG, "mem.free: 0x%08x is not the start of an allocation", a);
  m->used -= m->blocks[i - 1].size;
  memmove(&m->blocks[i - 1], &m->blocks[i], (m->nblocks - i) * sizeof *m->blocks);
  m->nblocks--;
  return GS_OK;
}

void *gs_mem_ptr(const gs_mem *m, gs_addr a, uint32_t len) {
  size_t i = upper_bound(m, a);
  if (i == 0) return NULL;
  const mem_block *b = &m->blocks[i - 1];
  if ((uint64_t)a + len > (uint64_t)b->start + b->size) return NULL;
  return m->bytes + (a - GS_MEM_BASE);
}

int gs_mem_read(const gs_mem *m, gs_addr a, void *dst, uint32_t len, gs_diag *d) {
  const void *p = gs_mem_ptr(m, a, len);
  if (!p) return gs_diag_set(d, GS_EFAULT, "read of %u bytes at 0x%08x is outside allocated GPU memory", len, a);
  memcpy(dst, p, len);
  return GS_OK;
}

int gs_mem_write(gs_mem *m, gs_addr a, const void *src, uint32_t len, gs_diag *d) {
  void *p = gs_mem_ptr(m, a, len);
  if (!p) return gs_diag_set(d, GS_EFAULT, "write of %u bytes at 0x%08x is outside allocated GPU memory", len, a);
  memcpy(p, src, len);
  return GS_OK;
}

size_t gs_mem_used(const gs_mem *m) { return m->used; }
