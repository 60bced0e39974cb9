/* progcache.c — a context's prepared programs (progcache.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include "isa/progcache.h"

struct gs_prog_cache {
  const gs_prog_cache_ops *ops;
  mtx_t lock;
  gs_prog_entry **e;
  size_t n, cap;
};

gs_prog_cache *gs_prog_cache_new(const gs_prog_cache_ops *ops) {
  gs_prog_cache *c = calloc(1, sizeof *c);
  if (c && mtx_init(&c->lock, mtx_plain) != thrd_success) {
    free(c);
    return NULL;
  }
  if (c) c->ops = ops;
  return c;
}

static void entry_free(const gs_prog_cache *c, gs_prog_entry *e) {
  free(e->bytes);
  c->ops->destroy(e);
}

void gs_prog_cache_free(gs_prog_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) entry_free(c, c->e[i]);
  free(c->e);
  mtx_destroy(&c->lock);
  free(c);
}

void gs_prog_cache_idle(gs_prog_cache *c) {
  if (!c) return;
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    if (c->e[i]->retired) entry_free(c, c->e[i]);
    else c->e[k++] = c->e[i];
  c->n = k;
}

/* A new entry for the size bytes at code, in the cache; NULL and d. */
static gs_prog_entry *make(gs_prog_cache *c, gs_addr code, const uint8_t *bytes, const gs_program_header *h,
                           gs_diag *d) {
  uint8_t *copy = malloc(h->code_bytes ? h->code_bytes : 1);
  if (!copy) {
    gs_diag_set(d, GS_ENOMEM, "out of memory for a %s program", c->ops->name);
    return NULL;
  }
  memcpy(copy, bytes, h->code_bytes);
  gs_prog_entry *e = c->ops->make(copy, h->code_bytes, h, d);
  if (!e) {
    free(copy);
    return NULL;
  }
  e->code = code, e->size = h->code_bytes, e->bytes = copy, e->retired = 0;
  memcpy(e->sph_words, h->sph_words, sizeof e->sph_words);
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 8;
    gs_prog_entry **ne = realloc(c->e, cap * sizeof *ne);
    if (!ne) {
      entry_free(c, e);
      gs_diag_set(d, GS_ENOMEM, "out of memory for the %s program cache", c->ops->name);
      return NULL;
    }
    c->e = ne, c->cap = cap;
  }
  return c->e[c->n++] = e;
}

static int same_sph(const gs_prog_entry *e, const gs_program_header *h) {
  return !memcmp(e->sph_words, h->sph_words, sizeof e->sph_words);
}

gs_prog_entry *gs_prog_cache_find(gs_prog_cache *c, const gs_mem *m, gs_addr code, const gs_prog_entry *last,
                                  int trusted, gs_diag *d) {
  gs_program_header h;
  int rc = gs_program_header_read(m, code, &h, d);
  if (rc < 0) return NULL;
  if (rc == 0 || h.isa != c->ops->isa) {
    gs_diag_set(d, GS_EINVAL, "0x%08x: no %s program header in front of the code", code, c->ops->name);
    return NULL;
  }
  const uint8_t *bytes = gs_mem_ptr(m, code, h.code_bytes);
  if (!bytes) {
    gs_diag_set(d, GS_EFAULT, "0x%08x: the program's %u bytes of code are outside allocated GPU memory", code,
                h.code_bytes);
    return NULL;
  }
  if (last && last->code == code && last->size == h.code_bytes &&
      (trusted || (!memcmp(last->bytes, bytes, last->size) && same_sph(last, &h))))
    return (gs_prog_entry *)last;
  gs_prog_entry *found = NULL;
  mtx_lock(&c->lock);
  for (size_t i = 0; i < c->n && !found; i++) {
    gs_prog_entry *e = c->e[i];
    if (e->retired || e->code != code) continue;
    if (e->size == h.code_bytes && !memcmp(e->bytes, bytes, e->size) && same_sph(e, &h)) found = e;
    else e->retired = 1; /* the program there changed */
  }
  if (!found) found = make(c, code, bytes, &h, d);
  mtx_unlock(&c->lock);
  if (!found) {
    char msg[sizeof d->msg];
    snprintf(msg, sizeof msg, "%s", d->msg);
    gs_diag_set(d, d->code ? d->code : GS_ENOMEM, "0x%08x: %s", code, msg);
  }
  return found;
}
