/* progcache.h — a context's prepared programs, for the units whose
 * programs are prepared from their code once (decoded, checked, predecoded)
 * and looked up by address for every batch: the SASS and PICA200 units.
 *
 * An entry is keyed by its code address and holds a copy of the code it
 * was made from and of its header's SPH: a lookup that finds the same
 * bytes and SPH there takes it, one that finds others retires it (kept until gs_prog_cache_idle, since
 * another worker may still run it) and makes a new one. A unit passes the
 * entry of its last batch first, which is taken without a lock when the
 * bytes are the same or the unit trusts its code (gs_isa.trust_code).
 */
#ifndef GS_ISA_PROGCACHE_H
#define GS_ISA_PROGCACHE_H

#include <stdint.h>
#include "isa/isa.h"

/* The first member of every entry an ISA makes. */
typedef struct gs_prog_entry {
  gs_addr code;
  uint32_t size;
  uint8_t *bytes; /* the cache's copy of the code */
  uint32_t sph_words[GS_SPH_WORDS]; /* and of its header's SPH: the same code behind another header (a vertex
                                       program reused as the coordinate shader, memory reused) is another entry */
  int retired;    /* the code at its address changed: freed when idle */
} gs_prog_entry;

typedef struct gs_prog_cache_ops {
  gs_isa_id isa;
  const char *name; /* in messages: "SASS" */
  /* Makes the prepared program of the size bytes of code that have header
   * h: an allocation whose first member is a gs_prog_entry (the cache
   * fills it in), or NULL with the error in d. */
  gs_prog_entry *(*make)(const uint8_t *code, uint32_t size, const gs_program_header *h, gs_diag *d);
  /* Frees what make allocated (not e->bytes). */
  void (*destroy)(gs_prog_entry *e);
} gs_prog_cache_ops;

typedef struct gs_prog_cache gs_prog_cache;

gs_prog_cache *gs_prog_cache_new(const gs_prog_cache_ops *ops);
void gs_prog_cache_free(gs_prog_cache *c);
/* Frees the retired entries: call when no unit runs. */
void gs_prog_cache_idle(gs_prog_cache *c);
/* The prepared program at code: `last` if it is still the code there (or
 * trusted), else the cache's, else made now. Errors in d name the
 * address: no header of the cache's ISA, code outside allocated memory,
 * what make refused. */
gs_prog_entry *gs_prog_cache_find(gs_prog_cache *c, const gs_mem *m, gs_addr code, const gs_prog_entry *last,
                                  int trusted, gs_diag *d);

#endif
