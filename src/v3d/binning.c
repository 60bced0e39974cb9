/* binning.c — CLE thread 0, the binning pass (RG §8-9, the
 * binning list): Tile Binning Mode Configuration (112) sets the tile grid
 * and the tile-allocation memory; state records update the binner's state;
 * each draw (32, 33) has its vertices shaded — in GL mode the VCD fetches
 * the coordinate shader's attributes into the VPM and the coordinate shader
 * runs in batches of 16, in NV mode the pre-shaded vertices are
 * read from memory — then the PTB (ptb.h) assembles, culls, clips and bins
 * the primitives, and this file writes every tile's list into
 * tile-allocation memory with the control-list writer, in the byte format
 * docs/control-lists.md defines ("The tile lists gpusim's PTB writes").
 * Flush (4) ends the lists with Return.
 *
 * A large draw is binned in parallel: its primitives split into
 * contiguous parts, one per thread, each binned into storage of its own
 * (ptb_bin_range); the lists are then written tile by tile, each tile's
 * primitives part after part, which is primitive order, so the bytes in
 * tile-allocation memory are those of binning it whole (docs/binning.md,
 * "Binning in parallel").
 */
#include <stdlib.h>
#include <string.h>
#include "core/pool.h"
#include "v3d/cle.h"
#include "v3d/ptb.h"
#include "v3d/trace.h"
#include "v3d/v3d.h"

#define BIN_MAX_CAP (1u << 27)      /* PTB storage limit per draw */
#define CLIP_RECORD_BYTES (3u * GS_CL_CLIPPED_VERTEX_SIZE)
#define BIN_MAX_PARTS 64            /* gs_parallel_for's thread limit */

/* One part of a draw's primitives and the PTB's storage for it, grown
 * when a part does not fit. */
typedef struct bin_part {
  ptb_bins bins;
  ptb_tile *tiles;
  ptb_prim *prims;
  ptb_clip_record *clips;
  ptb_ref *refs;
  uint32_t tile_cap, prim_cap, clip_cap, ref_cap;
  uint32_t k0, k1;           /* the draw's primitives k0..k1-1 */
  uint32_t clip_base;        /* the draw's number of its clip record 0 */
  ptb_result first;          /* the result of its first (parallel) binning */
} bin_part;

/* A binned primitive of part `part`, copied into its tile's run. */
typedef struct tile_prim {
  ptb_prim p;
  uint32_t part;
} tile_prim;

typedef struct cle_bin {
  cle_state st;
  bool configured, flushed;
  ptb_grid grid;             /* its samples are set per draw (cle_oversample) */
  bool ms;                   /* 112's 4x multisample tiles */
  uint32_t ntiles;
  gs_addr alloc_base;        /* the tile-allocation memory */
  uint32_t alloc_size;
  gs_addr pool_next, pool_end; /* its free part, after the initial blocks */
  uint32_t block_size;
  gs_cl_writer *w;           /* one writer per tile list */
  uint32_t *sent;            /* per tile, per tile-list item: the version last written */
  bin_part part[BIN_MAX_PARTS]; /* the draw's parts, in primitive order */
  unsigned nparts;
  gs_addr *clip_addr;        /* where clip record i of the draw was written (0: not yet) */
  uint32_t clip_addr_cap;
  /* the draw's binned primitives tile by tile (sort_refs) */
  uint32_t *tile_at;         /* tile t's are sorted[tile_at[t] .. tile_at[t + 1]) */
  uint32_t tile_at_cap;
  tile_prim *sorted;
  uint32_t sorted_cap;
  /* the shaded vertices of one draw */
  ptb_vertex *verts;
  uint32_t vert_cap;
  uint8_t *used;             /* bitmap: indices an indexed draw references */
  uint32_t used_cap;
  cle_vg_draw vg;            /* the XY words of a VG draw */
  cle_shader sh;
  uint32_t sh_version;       /* of the shader item sh was decoded from */
  cle_unit unit;             /* runs the coordinate shaders */
  uint32_t draws;
} cle_bin;

/* ---- storage -------------------------------------------------------------- */

static void free_lists(cle_bin *b) {
  free(b->w);
  free(b->sent);
  b->w = NULL, b->sent = NULL;
}

void cle_bin_free(cle_run *r) {
  cle_bin *b = r->bin;
  if (!b) return;
  free_lists(b);
  for (unsigned i = 0; i < BIN_MAX_PARTS; i++) {
    bin_part *pt = &b->part[i];
    free(pt->tiles), free(pt->prims), free(pt->clips), free(pt->refs);
  }
  free(b->clip_addr);
  free(b->tile_at);
  free(b->sorted);
  free(b->verts);
  free(b->used);
  free(b->vg.xy);
  cle_take_report(r, &b->unit);
  cle_unit_free(&b->unit);
  free(b);
  r->bin = NULL;
}

/* Makes *p hold at least n elements of `size` bytes (contents kept). */
static int reserve(void **p, uint32_t *cap, uint32_t n, size_t size) {
  if (n <= *cap) return GS_OK;
  uint32_t c = *cap ? *cap : 64;
  while (c < n) c = c > UINT32_MAX / 2 ? n : c * 2;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return GS_ENOMEM;
  *p = q;
  *cap = c;
  return GS_OK;
}

static cle_bin *get_bin(cle_run *r) {
  if (!r->bin) {
    r->bin = calloc(1, sizeof *r->bin);
    if (r->bin && cle_unit_init(&r->bin->unit, 0) < 0) {
      free(r->bin);
      r->bin = NULL;
    }
  }
  return r->bin;
}

gs_cl_prim_format cle_bin_fmt(const cle_run *r) {
  gs_cl_prim_format f = {0, 0};
  return r->bin ? cle_state_fmt(&r->bin->st) : f;
}

/* ---- tile-allocation memory ---------------------------------------------------- */

/* Takes n bytes (a multiple of 32) from the pool after the initial blocks. */
static int pool_take(cle_bin *b, uint32_t n, gs_addr *out, gs_diag *d) {
  if (b->pool_end - b->pool_next < n)
    return gs_diag_set(d, GS_ENOMEM, "tile allocation memory at 0x%08x (%u bytes) is full", b->alloc_base,
                       b->alloc_size);
  *out = b->pool_next;
  b->pool_next += n;
  return GS_OK;
}

/* The writers' `more` callback: the next block of the pool. */
static int more_block(void *ud, gs_addr *start, uint32_t *size, gs_diag *d) {
  cle_bin *b = ud;
  *size = b->block_size;
  return pool_take(b, b->block_size, start, d);
}

/* Tile Binning Mode Configuration (112): the grid, the tile-allocation
 * memory and one empty list per tile at tile_alloc + i x initial size. */
static int configure(cle_run *r, cle_bin *b, const gs_cl_packet *p, gs_diag *d) {
  gs_cl_tile_binning_mode_configuration c;
  gs_cl_unpack_tile_binning_mode_configuration(p->values, &c);
  if (c.width_tiles == 0 || c.height_tiles == 0)
    return cle_error(d, GS_EINVAL, p->addr, "TILE_BINNING_MODE_CONFIGURATION: %ux%u tiles", c.width_tiles,
                     c.height_tiles);
  uint32_t initial = 32u << c.initial_block_size, n = c.width_tiles * c.height_tiles;
  uint64_t need = (uint64_t)n * initial;
  if (c.tile_alloc & 31)
    return cle_error(d, GS_EINVAL, p->addr, "tile allocation memory 0x%08x is not 32-byte aligned", c.tile_alloc);
  if (need > c.tile_alloc_size)
    return cle_error(d, GS_EINVAL, p->addr,
                     "tile allocation memory of %u bytes cannot hold the %u-byte initial blocks of %u tiles",
                     c.tile_alloc_size, initial, n);
  if (!gs_mem_ptr(r->g->mem, c.tile_alloc, c.tile_alloc_size))
    return cle_error(d, GS_EFAULT, p->addr, "tile allocation memory 0x%08x (%u bytes) is outside allocated GPU memory",
                     c.tile_alloc, c.tile_alloc_size);
  free_lists(b);
  b->w = calloc(n, sizeof *b->w);
  b->sent = calloc((size_t)n * CLE_TILE_LIST_ITEMS, sizeof *b->sent);
  if (!b->w || !b->sent) return gs_diag_set(d, GS_ENOMEM, "binning: host out of memory");
  ptb_grid_make(&b->grid, c.width_tiles, c.height_tiles, c.ms4x, c.color64);
  b->ms = c.ms4x;
  b->ntiles = n;
  b->alloc_base = c.tile_alloc, b->alloc_size = c.tile_alloc_size;
  uint64_t pool = (need + 255) & ~UINT64_C(255); /* Linux vc4_validate.c's layout (docs/control-lists.md) */
  b->pool_next = pool < c.tile_alloc_size ? c.tile_alloc + (uint32_t)pool : c.tile_alloc + c.tile_alloc_size;
  b->pool_end = c.tile_alloc + c.tile_alloc_size;
  b->block_size = 32u << c.block_size;
  for (uint32_t i = 0; i < n; i++) {
    gs_cl_writer_init(&b->w[i], r->g->mem, c.tile_alloc + i * initial, initial);
    gs_cl_writer_chain(&b->w[i], more_block, b);
  }
  b->configured = true;
  b->flushed = false;
  return GS_OK;
}

/* ---- writing tile lists ---------------------------------------------------------- */

static int tile_error(cle_bin *b, uint32_t t, int rc, gs_diag *d) {
  return cle_prefix(d, rc, "tile (%u, %u) list: ", t % b->grid.tiles_x, t / b->grid.tiles_x);
}

/* Writes the state items tile t's list has not received yet (all of them
 * with `force`), in the documented order; a Primitive List Format is
 * always followed by the shader state, as it only takes effect with one. */
static int write_state(cle_bin *b, uint32_t t, bool force, gs_diag *d) {
  uint32_t *sent = &b->sent[(size_t)t * CLE_TILE_LIST_ITEMS];
  bool fmt_written = false;
  for (int it = 0; it < CLE_TILE_LIST_ITEMS; it++) {
    const cle_item_value *v = &b->st.item[it];
    if (!v->version || !cle_tile_list_item(it, &b->sh)) continue;
    if (!force && sent[it] == v->version && !(it == CLE_SHADER && fmt_written)) continue;
    int rc = gs_cl_put_id(&b->w[t], v->id, v->values, d);
    if (rc < 0) return tile_error(b, t, rc, d);
    sent[it] = v->version;
    if (it == CLE_FMT) fmt_written = true;
  }
  return GS_OK;
}

/* Writes clip record c of part pt into the pool (once) and returns its
 * address: three 32-byte CLIPPED_VERTEX slots. */
static int clip_record_addr(cle_run *r, cle_bin *b, const bin_part *pt, uint32_t c, gs_addr *out, gs_diag *d) {
  uint32_t in_draw = pt->clip_base + c;
  if (b->clip_addr[in_draw]) {
    *out = b->clip_addr[in_draw];
    return GS_OK;
  }
  uint8_t bytes[CLIP_RECORD_BYTES];
  const ptb_clip_record *rec = &pt->bins.clips[c];
  for (int k = 0; k < 3; k++) {
    gs_cl_clipped_vertex cv = {rec->v[k].xs, rec->v[k].ys, rec->v[k].zs, rec->v[k].inv_wc,
                               rec->v[k].coef[0], rec->v[k].coef[1], rec->v[k].coef[2]};
    int rc = gs_cl_pack_clipped_vertex(bytes + k * GS_CL_CLIPPED_VERTEX_SIZE, GS_CL_CLIPPED_VERTEX_SIZE, &cv, d);
    if (rc < 0) return rc;
  }
  gs_addr a = 0;
  int rc = pool_take(b, CLIP_RECORD_BYTES, &a, d);
  if (rc < 0) return rc;
  if ((rc = gs_mem_write(r->g->mem, a, bytes, CLIP_RECORD_BYTES, d)) < 0) return rc;
  *out = b->clip_addr[in_draw] = a;
  return GS_OK;
}

/* Binned primitive pr as the tile lists hold it: its vertex indices, or
 * for a VG draw (xy not NULL) its vertices' XY words, vertex i being
 * xy[i]. */
static gs_cl_prim list_prim(const ptb_prim *pr, const uint32_t *xy) {
  gs_cl_prim cp = {{pr->index[0], pr->index[1], pr->index[2]}};
  if (xy)
    for (unsigned k = 0; k < pr->nverts; k++) cp.v[k] = xy[pr->index[k]];
  return cp;
}

/* Appends clipped primitive pr of part pt to tile t's list: a Clipped
 * Primitive (49) with a list of its own. */
static int write_clipped(cle_run *r, cle_bin *b, uint32_t t, const bin_part *pt, const ptb_prim *pr,
                         const uint32_t *xy, gs_diag *d) {
  gs_cl_writer *w = &b->w[t];
  gs_cl_prim cp = list_prim(pr, xy);
  gs_cl_clipped_primitive cl;
  int rc;
  if ((rc = clip_record_addr(r, b, pt, pr->clip, &cl.record, d)) < 0) return rc;
  cl.clip_v0 = pr->clip_mask & 1, cl.clip_v1 = pr->clip_mask >> 1 & 1, cl.clip_v2 = pr->clip_mask >> 2 & 1;
  if ((rc = gs_cl_emit_clipped_primitive(w, &cl, d)) < 0) return rc;
  if ((rc = gs_cl_put_prim(w, &cp, d)) < 0) return rc;
  return gs_cl_end_list(w, d);
}

/* Copies the draw's binned primitives into b->sorted tile by tile, each
 * tile's part after part, in primitive order: a counting sort of the
 * parts' references, which come in primitive order with their tiles. The
 * lists are then written from memory read in order, where following each
 * tile's links went through the whole draw's references and primitives,
 * a cache miss each. */
static int sort_refs(cle_bin *b, gs_diag *d) {
  uint64_t total = 0;
  for (unsigned i = 0; i < b->nparts; i++) total += b->part[i].bins.ref_count;
  if (total > UINT32_MAX - 1 ||
      reserve((void **)&b->tile_at, &b->tile_at_cap, b->ntiles + 1, sizeof *b->tile_at) < 0 ||
      reserve((void **)&b->sorted, &b->sorted_cap, (uint32_t)total, sizeof *b->sorted) < 0)
    return gs_diag_set(d, GS_ENOMEM, "binning: host out of memory");
  uint32_t *at = b->tile_at, sum = 0;
  for (uint32_t t = 0; t < b->ntiles; t++) { /* at[t + 1]: where tile t's run starts, for now */
    at[t + 1] = sum;
    for (unsigned i = 0; i < b->nparts; i++) sum += b->part[i].bins.tiles[t].count;
  }
  at[0] = 0;
  for (unsigned i = 0; i < b->nparts; i++) {
    const ptb_bins *bins = &b->part[i].bins;
    for (uint32_t r = 0; r < bins->ref_count; r++) { /* at[t + 1] becomes the end of tile t's run */
      tile_prim *tp = &b->sorted[at[bins->refs[r].tile + 1]++];
      tp->p = bins->prims[bins->refs[r].prim];
      tp->part = i;
    }
  }
  return GS_OK;
}

/* Writes the draw's binned primitives into the tile lists, each tile's
 * list first receiving the state it lacks, then its primitives part after
 * part: in primitive order. */
static int write_lists(cle_run *r, cle_bin *b, const uint32_t *xy, gs_diag *d) {
  uint32_t clips = 0;
  for (unsigned i = 0; i < b->nparts; i++) b->part[i].clip_base = clips, clips += b->part[i].bins.clip_count;
  if (reserve((void **)&b->clip_addr, &b->clip_addr_cap, clips, sizeof *b->clip_addr) < 0)
    return gs_diag_set(d, GS_ENOMEM, "binning: host out of memory");
  if (clips) memset(b->clip_addr, 0, clips * sizeof *b->clip_addr);
  int rc = sort_refs(b, d);
  if (rc < 0) return rc;
  for (uint32_t t = 0; t < b->ntiles; t++) {
    uint32_t k = b->tile_at[t], end = b->tile_at[t + 1];
    if (k < end && (rc = write_state(b, t, false, d)) < 0) return rc;
    while (k < end) {
      /* a run of unclipped primitives goes into the open compressed list
         (opened if need be) in one call */
      gs_cl_prim run[64];
      size_t n = 0;
      for (; k < end && n < 64 && b->sorted[k].p.clip == PTB_NONE; k++) run[n++] = list_prim(&b->sorted[k].p, xy);
      if (n && !b->w[t].in_list && (rc = gs_cl_put_id(&b->w[t], GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, d)) < 0)
        return tile_error(b, t, rc, d);
      if (n && (rc = gs_cl_put_prims(&b->w[t], run, n, d)) < 0) return tile_error(b, t, rc, d);
      if (!n && (rc = write_clipped(r, b, t, &b->part[b->sorted[k].part], &b->sorted[k].p, xy, d)) < 0)
        return tile_error(b, t, rc, d);
      k += !n;
    }
  }
  return GS_OK;
}

/* Flush (4) and Flush All State (5): end every list with Return. */
static int flush(cle_bin *b, const gs_cl_packet *p, gs_diag *d) {
  if (!b->configured)
    return cle_error(d, GS_EINVAL, p->addr, "%s before TILE_BINNING_MODE_CONFIGURATION (112)", p->info->name);
  if (b->flushed) return cle_error(d, GS_EINVAL, p->addr, "%s: the tile lists were already flushed", p->info->name);
  for (uint32_t t = 0; t < b->ntiles; t++) {
    int rc;
    if (p->info->id == GS_CL_FLUSH_ALL_STATE && (rc = write_state(b, t, true, d)) < 0) return rc;
    if ((rc = gs_cl_end_list(&b->w[t], d)) < 0 || (rc = gs_cl_put_id(&b->w[t], GS_CL_RETURN_FROM_SUB_LIST, NULL, d)) < 0)
      return tile_error(b, t, rc, d);
  }
  b->flushed = true;
  return GS_OK;
}

/* ---- a draw ------------------------------------------------------------------ */

/* Stores the coordinate shader's output for the batch idx[0..n). */
static void take_batch_output(cle_bin *b, const cle_draw *di, const uint32_t *idx, unsigned n) {
  uint32_t rows[8];
  unsigned nrows = b->sh.cs.out_rows;
  for (unsigned i = 0; i < n; i++) {
    for (unsigned k = 0; k < nrows; k++) rows[k] = b->unit.vpm->words[(CLE_VPM_OUT + k) * 16 + i];
    ptb_vertex_unpack(&b->verts[idx[i] - di->lo], rows, b->sh.point_size);
  }
}

/* The words of pre-shaded vertex i of the NV shader record that binning
 * reads, or NULL after an error naming the record and the address. */
static const uint8_t *nv_vertex_ptr(cle_run *r, const cle_bin *b, const gs_cl_packet *p, uint32_t i, unsigned words,
                                    gs_diag *d) {
  uint64_t a = (uint64_t)b->sh.vertex_data + (uint64_t)i * b->sh.vertex_stride;
  const uint8_t *src = a <= UINT32_MAX ? gs_mem_ptr(r->g->mem, (gs_addr)a, words * 4) : NULL;
  if (!src)
    cle_error(d, GS_EFAULT, p->addr, "%s: NV shader record 0x%08x: vertex %u: %u bytes at 0x%08llx (vertex data "
              "0x%08x, stride %u) are outside allocated GPU memory", p->info->name, b->sh.record, i, words * 4,
              (unsigned long long)a, b->sh.vertex_data, b->sh.vertex_stride);
  return src;
}

/* Words of an NV vertex record that binning reads. */
static unsigned nv_words(const cle_bin *b) { return (b->sh.clip_header ? 4 : 0) + 3 + (b->sh.point_size ? 1 : 0); }


/* Unpacks the pre-shaded vertex record at src (RG Table 46). */
static void read_nv_vertex(const cle_bin *b, const uint8_t *src, ptb_vertex *v) {
  unsigned head = b->sh.clip_header ? 4 : 0, words = nv_words(b);
  uint32_t w[8], rows[8] = {0, 0, 0, 0x3f800000u, 0, 0, 0, 0}; /* no header: Xc..Wc = 0, 0, 0, 1 */
  memcpy(w, src, words * 4);
  if (head) memcpy(rows, w, 16);
  memcpy(rows + 4, w + head, (words - head) * 4);
  ptb_vertex_unpack(v, rows, b->sh.point_size);
}

/* Reads pre-shaded vertex i of the NV shader record. */
static int fetch_nv_vertex(cle_run *r, cle_bin *b, const gs_cl_packet *p, uint32_t i, ptb_vertex *v, gs_diag *d) {
  const uint8_t *src = nv_vertex_ptr(r, b, p, i, nv_words(b), d);
  if (!src) return GS_EFAULT;
  read_nv_vertex(b, src, v);
  return GS_OK;
}

/* Checks that vertex i's coordinate-shader attributes (GL) or its
 * pre-shaded record (NV) lie in allocated memory. */
static int check_vertex(cle_run *r, const cle_bin *b, const gs_cl_packet *p, uint32_t i, gs_diag *d) {
  if (b->sh.id == GS_CL_NV_SHADER_STATE) return nv_vertex_ptr(r, b, p, i, nv_words(b), d) ? GS_OK : GS_EFAULT;
  for (unsigned k = 0; k < b->sh.cs.nattrs; k++) {
    const vcd_attr *at = &b->sh.cs.attrs[k];
    uint64_t a = (uint64_t)at->address + (uint64_t)i * at->stride;
    if (a > UINT32_MAX || !gs_mem_ptr(r->g->mem, (gs_addr)a, at->size))
      return cle_error(d, GS_EFAULT, p->addr, "%s: GL shader record 0x%08x: coordinate shader attribute %u of vertex "
                       "%u: %u bytes at 0x%08llx (array 0x%08x, stride %u) are outside allocated GPU memory",
                       p->info->name, b->sh.record, at->index, i, at->size, (unsigned long long)a, at->address,
                       at->stride);
  }
  return GS_OK;
}

/* Marks the vertices an indexed draw uses (bit i - lo of b->used). */
static int mark_used(cle_bin *b, const cle_draw *di, gs_diag *d) {
  uint32_t n = di->hi - di->lo + 1;
  if (reserve((void **)&b->used, &b->used_cap, n / 8 + 1, 1) < 0)
    return gs_diag_set(d, GS_ENOMEM, "binning: host out of memory");
  memset(b->used, 0, n / 8 + 1);
  for (uint32_t k = 0; k < di->draw.count; k++) {
    uint32_t v = di->draw.index_type == PTB_INDEX_16
                     ? (uint32_t)di->draw.indices[2 * k] | (uint32_t)di->draw.indices[2 * k + 1] << 8
                     : di->draw.indices[k];
    b->used[(v - di->lo) / 8] |= (uint8_t)(1u << ((v - di->lo) % 8));
  }
  return GS_OK;
}

static bool is_used(const cle_bin *b, const cle_draw *di, uint32_t k) {
  return !di->indexed || (b->used[k / 8] >> (k % 8) & 1);
}

/* Checks every vertex the draw uses before anything is allocated or
 * shaded: a bogus draw fails at once, naming the first bad vertex. */
static int check_vertices(cle_run *r, cle_bin *b, const gs_cl_packet *p, const cle_draw *di, gs_diag *d) {
  if (b->sh.id == GS_CL_NV_SHADER_STATE && cle_nv_span(r->g->mem, &b->sh, di->lo, di->hi, 4u * nv_words(b)))
    return GS_OK; /* all of them */
  for (uint32_t k = 0; k <= di->hi - di->lo; k++) {
    if (!is_used(b, di, k)) continue;
    int rc = check_vertex(r, b, p, di->lo + k, d);
    if (rc < 0) return rc;
  }
  return GS_OK;
}

/* Runs the coordinate shader on a batch and keeps its output. */
static int shade_batch(cle_run *r, cle_bin *b, const gs_cl_packet *p, const cle_draw *di, const uint32_t *batch,
                       unsigned nb, gs_diag *d) {
  int rc = cle_shade_batch(r->g, &b->unit, &b->sh.cs, &b->st, GS_STAGE_COORDINATE, batch, nb);
  if (rc < 0) return gs_diag_set(d, rc, "0x%08x: %s: %s", p->addr, p->info->name, b->unit.diag.msg);
  take_batch_output(b, di, batch, nb);
  return GS_OK;
}

/* Shades (GL) or fetches (NV) every vertex the draw uses into verts[i - lo]. */
static int shade_vertices(cle_run *r, cle_bin *b, const gs_cl_packet *p, const cle_draw *di, gs_diag *d) {
  uint32_t n = di->hi - di->lo + 1;
  int rc;
  if (di->indexed && (rc = mark_used(b, di, d)) < 0) return rc;
  if ((rc = check_vertices(r, b, p, di, d)) < 0) return rc;
  if (reserve((void **)&b->verts, &b->vert_cap, n, sizeof *b->verts) < 0)
    return gs_diag_set(d, GS_ENOMEM, "binning: host out of memory");
  if (di->indexed) memset(b->verts, 0, n * sizeof *b->verts); /* else every one is written below */
  uint32_t batch[16];
  unsigned nb = 0;
  const uint8_t *span =
      b->sh.id == GS_CL_NV_SHADER_STATE ? cle_nv_span(r->g->mem, &b->sh, di->lo, di->hi, 4u * nv_words(b)) : NULL;
  for (uint32_t k = 0; k < n; k++) {
    if (!is_used(b, di, k)) continue;
    r->stats.cs_vertices++;
    if (span) {
      read_nv_vertex(b, span + (size_t)k * b->sh.vertex_stride, &b->verts[k]);
      continue;
    }
    if (b->sh.id == GS_CL_NV_SHADER_STATE) {
      if ((rc = fetch_nv_vertex(r, b, p, di->lo + k, &b->verts[k], d)) < 0) return rc;
      continue;
    }
    batch[nb++] = di->lo + k;
    if (nb == 16 && (rc = shade_batch(r, b, p, di, batch, nb, d)) < 0) return rc;
    if (nb == 16) nb = 0;
  }
  if (nb && (rc = shade_batch(r, b, p, di, batch, nb, d)) < 0) return rc;
  return GS_OK;
}

static float f32_of(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* The PTB's view of the binning state records and the shader record. */
static void make_ptb_state(const cle_state *s, const cle_shader *sh, ptb_state *ps) {
  ptb_state_init(ps);
  const cle_item_value *it = s->item;
  if (it[CLE_CFG].version) {
    gs_cl_configuration_bits c;
    gs_cl_unpack_configuration_bits(it[CLE_CFG].values, &c);
    ps->enable_forward = c.enable_forward_facing, ps->enable_reverse = c.enable_reverse_facing;
    ps->clockwise = c.clockwise;
  }
  if (it[CLE_PSIZE].version) ps->point_size = f32_of(it[CLE_PSIZE].values[0]);
  if (it[CLE_LWIDTH].version) ps->line_width = f32_of(it[CLE_LWIDTH].values[0]);
  if (it[CLE_CLIP].version) {
    gs_cl_clip_window c;
    gs_cl_unpack_clip_window(it[CLE_CLIP].values, &c);
    ps->clip_left = (uint16_t)c.left, ps->clip_bottom = (uint16_t)c.bottom;
    ps->clip_width = (uint16_t)c.width, ps->clip_height = (uint16_t)c.height;
  }
  if (it[CLE_VIEWPORT].version) {
    gs_cl_viewport_offset v;
    gs_cl_unpack_viewport_offset(it[CLE_VIEWPORT].values, &v);
    ps->viewport_x = (int16_t)v.x, ps->viewport_y = (int16_t)v.y;
  }
  if (it[CLE_ZPLANES].version) {
    gs_cl_z_min_max_clipping_planes z;
    gs_cl_unpack_z_min_max_clipping_planes(it[CLE_ZPLANES].values, &z);
    ps->z_min = z.min_zw, ps->z_max = z.max_zw;
  }
  float vp[4];
  cle_viewport(s, vp);
  ps->xy_scale_x = vp[0], ps->xy_scale_y = vp[1], ps->z_scale = vp[2], ps->z_offset = vp[3];
  /* NV vertices without the clip header carry no Xc..Wc to clip with. */
  ps->clip_enable = sh->clipping && (sh->id == GS_CL_GL_SHADER_STATE || sh->clip_header);
  ps->per_vertex_point_size = sh->point_size;
}

/* Makes part pt's storage hold at least the tile lists and the given
 * numbers of primitives, tile references and clip records. */
static int part_reserve(cle_bin *b, bin_part *pt, uint32_t prims, uint32_t refs, uint32_t clips, gs_diag *d) {
  if (reserve((void **)&pt->tiles, &pt->tile_cap, b->ntiles, sizeof *pt->tiles) < 0 ||
      reserve((void **)&pt->prims, &pt->prim_cap, prims, sizeof *pt->prims) < 0 ||
      reserve((void **)&pt->refs, &pt->ref_cap, refs, sizeof *pt->refs) < 0 ||
      reserve((void **)&pt->clips, &pt->clip_cap, clips, sizeof *pt->clips) < 0)
    return gs_diag_set(d, GS_ENOMEM, "binning: host out of memory");
  return GS_OK;
}

/* Bins part pt's primitives into its storage as it is. */
static ptb_result part_bin(const cle_bin *b, bin_part *pt, const ptb_state *ps, const ptb_vertices *vs,
                           const cle_draw *di) {
  ptb_buffers buf = {pt->tiles, b->ntiles, pt->prims, pt->prim_cap, pt->clips, pt->clip_cap, pt->refs, pt->ref_cap};
  ptb_result pr = ptb_bins_init(&pt->bins, &b->grid, &buf);
  if (pr == PTB_OK) pr = ptb_bin_range(&pt->bins, ps, vs, &di->draw, pt->k0, pt->k1, NULL);
  return pr;
}

/* Finishes part pt after its first binning (pt->first) with storage large
 * enough for it: the PTB stores a part whole or reports which array is
 * full; the part is then binned again with that array doubled (nothing of
 * it has been written yet). */
static int part_with_storage(cle_bin *b, bin_part *pt, const ptb_state *ps, const ptb_vertices *vs,
                             const cle_draw *di, const gs_cl_packet *p, const gs_trace *trace, gs_diag *d) {
  ptb_result pr = pt->first;
  for (;;) {
    if (pr == PTB_OK && trace) {
      /* Once more with the trace on, in storage that now fits: the events
       * come once, from the binning that counts, and it bins the same. */
      ptb_state traced = *ps;
      traced.trace = trace;
      traced.trace_record = b->sh.record;
      pr = part_bin(b, pt, &traced, vs, di);
    }
    if (pr == PTB_OK) return GS_OK;
    uint32_t prims = pt->prim_cap, refs = pt->ref_cap, clips = pt->clip_cap;
    uint32_t *grow = pr == PTB_ERR_PRIMS_FULL ? &prims : pr == PTB_ERR_REFS_FULL ? &refs
                     : pr == PTB_ERR_CLIPS_FULL ? &clips : NULL;
    if (!grow) return cle_error(d, GS_EINVAL, p->addr, "%s: PTB: %s", p->info->name, ptb_result_string(pr));
    if (*grow >= BIN_MAX_CAP)
      return cle_error(d, GS_ENOMEM, p->addr, "%s: the draw needs more than %u PTB entries (%s)", p->info->name,
                       BIN_MAX_CAP, ptb_result_string(pr));
    *grow *= 2;
    int rc = part_reserve(b, pt, prims, refs, clips, d);
    if (rc < 0) return rc;
    pr = part_bin(b, pt, ps, vs, di);
  }
}

typedef struct bin_job {
  cle_bin *b;
  const ptb_state *ps;
  const ptb_vertices *vs;
  const cle_draw *di;
} bin_job;

static int bin_job_fn(void *ctx, unsigned index, unsigned worker) {
  (void)worker;
  bin_job *j = ctx;
  j->b->part[index].first = part_bin(j->b, &j->b->part[index], j->ps, j->vs, j->di);
  return GS_OK;
}

/* Bins draw di: in one part, or, with several threads and at least
 * ptb_split_min primitives a part, in up to a part per thread binned in
 * parallel with the storage they start with; then, part by part in order,
 * each is finished (grown and binned again if it did not fit, or its error
 * reported: the first primitive's that fails, as binning the draw whole
 * gives). A trace bins in one part, so that its events come in order. */
static int bin_parts(cle_run *r, cle_bin *b, const ptb_state *ps, const ptb_vertices *vs, const cle_draw *di,
                     const gs_cl_packet *p, gs_diag *d) {
  uint32_t total = ptb_prim_count(di->draw.mode, di->draw.count);
  uint32_t split = ptb_split_min ? ptb_split_min : 1;
  unsigned n = r->g->trace ? 1 : r->opt.threads;
  n = n < BIN_MAX_PARTS ? n : BIN_MAX_PARTS;
  n = n < total / split ? n : total / split;
  n = n ? n : 1;
  b->nparts = n;
  for (unsigned i = 0; i < n; i++) {
    bin_part *pt = &b->part[i];
    pt->k0 = (uint32_t)((uint64_t)total * i / n), pt->k1 = (uint32_t)((uint64_t)total * (i + 1) / n);
    uint32_t prims = pt->k1 - pt->k0;
    int rc = part_reserve(b, pt, prims + prims / 4 + 16, 2 * prims + b->ntiles, 16, d);
    if (rc < 0) return rc;
  }
  bin_job j = {b, ps, vs, di};
  if (n == 1 || gs_parallel_for(n, n, bin_job_fn, &j, NULL) < 0)
    for (unsigned i = 0; i < n; i++) bin_job_fn(&j, i, 0);
  for (unsigned i = 0; i < n; i++) {
    int rc = part_with_storage(b, &b->part[i], ps, vs, di, p, r->g->trace, d);
    if (rc < 0) return rc;
  }
  return GS_OK;
}

/* The GS_TRACE_DRAW event of draw packet p (before its primitives). */
static void trace_draw(const gs_trace *t, const cle_bin *b, const gs_cl_packet *p, const cle_draw *di) {
  if (!gs_trace_wants_record(t, b->sh.record)) return;
  gs_trace_event e = {.kind = GS_TRACE_DRAW, .addr = p->addr, .packet = (unsigned)p->info->id,
                      .record = b->sh.record, .draw = di->draw.tag, .prim = ptb_prim_count(di->draw.mode, di->draw.count),
                      .nverts = ptb_mode_vertices(di->draw.mode), .lane = -1};
  gs_trace_emit(t, &e);
}

/* Checks that a draw may come now and decodes the shader state in force,
 * which must be VG for VG draws (41, 42) and GL or NV for the others. */
static int begin_draw(cle_run *r, cle_bin *b, const gs_cl_packet *p, bool vg, gs_diag *d) {
  if (!b->configured)
    return cle_error(d, GS_EINVAL, p->addr, "%s before TILE_BINNING_MODE_CONFIGURATION (112)", p->info->name);
  if (b->flushed) return cle_error(d, GS_EINVAL, p->addr, "%s after FLUSH: the tile lists are closed", p->info->name);
  const cle_item_value *shader = &b->st.item[CLE_SHADER];
  int rc;
  if (!shader->version || b->sh_version != shader->version) {
    if ((rc = cle_shader_decode(&r->view, &r->opt, shader, p->addr, &b->sh, d)) < 0) return rc;
    b->sh_version = shader->version;
  }
  if (b->sh.vg != vg)
    return cle_error(d, GS_EINVAL, p->addr, "%s under %s: %s", p->info->name, gs_cl_packet_info(b->sh.id)->name,
                     vg ? "VG primitives need a VG shader state (66 or 67)"
                        : "a VG shader state has no vertex shader for GL or NV vertices");
  return GS_OK;
}

/* Bins draw di over the vertices vs and writes it into the tile lists in
 * list format fmt (VG draws: xy holds vertex i's XY word). */
static int bin_and_write(cle_run *r, cle_bin *b, const gs_cl_packet *p, const cle_draw *di, const ptb_vertices *vs,
                         const uint32_t fmt[2], const uint32_t *xy, gs_diag *d) {
  ptb_state ps;
  make_ptb_state(&b->st, &b->sh, &ps);
  int rc = bin_parts(r, b, &ps, vs, di, p, d);
  if (rc < 0) return rc;
  cle_state_set(&b->st, CLE_FMT, GS_CL_PRIMITIVE_LIST_FORMAT, fmt);
  for (unsigned i = 0; i < b->nparts; i++) {
    r->stats.prims_binned += b->part[i].bins.stats.binned;
    r->stats.tile_refs += b->part[i].bins.stats.tile_refs;
  }
  if ((rc = write_lists(r, b, xy, d)) < 0) return cle_prefix(d, rc, "0x%08x: %s: ", p->addr, p->info->name);
  return GS_OK;
}

/* Vertex Array Primitives (33) and Indexed Primitive List (32). */
static int bin_draw(cle_run *r, cle_bin *b, const gs_cl_packet *p, gs_diag *d) {
  int rc = begin_draw(r, b, p, false, d);
  if (rc < 0) return rc;
  cle_draw di;
  if ((rc = cle_read_draw(r->g, p, &di, d)) < 0) return rc;
  di.draw.tag = b->draws++;
  if (r->g->trace) trace_draw(r->g->trace, b, p, &di);
  if (ptb_prim_count(di.draw.mode, di.draw.count) == 0) return GS_OK;
  if ((rc = cle_oversample(&b->st, b->ms, p, &b->grid.samples, d)) < 0) return rc;
  if ((rc = shade_vertices(r, b, p, &di, d)) < 0) return rc;
  ptb_vertices vs = {b->verts, di.lo, di.hi - di.lo + 1};
  /* The tile lists' primitive format: this draw's kind and index width. */
  unsigned nv = ptb_mode_vertices(di.draw.mode);
  uint32_t fmt[2] = {nv == 1 ? GS_CL_PRIM_POINTS : nv == 2 ? GS_CL_PRIM_LINES : GS_CL_PRIM_TRIANGLES,
                     di.hi < 65536 ? GS_CL_DATA_INDEX16 : GS_CL_DATA_INDEX24};
  return bin_and_write(r, b, p, &di, &vs, fmt, NULL, d);
}

/* VG Coordinate Array Primitives (41) and VG Inline Primitives (42): no
 * shader runs; each XY word is a screen vertex with Zs 0.5 and 1/Wc 1
 * (RG Table 47), binned as GL's triangles are, into XY tile lists. */
static int bin_vg_draw(cle_run *r, cle_bin *b, const gs_cl_packet *p, gs_diag *d) {
  int rc = begin_draw(r, b, p, true, d);
  if (rc < 0) return rc;
  cle_draw di;
  memset(&di, 0, sizeof di);
  if ((rc = cle_read_vg(&r->view, p, &b->vg, d)) < 0) return rc;
  di.draw = b->vg.draw;
  di.draw.tag = b->draws++;
  if (r->g->trace) trace_draw(r->g->trace, b, p, &di);
  if (ptb_prim_count(di.draw.mode, di.draw.count) == 0) return GS_OK;
  if ((rc = cle_oversample(&b->st, b->ms, p, &b->grid.samples, d)) < 0) return rc;
  if (reserve((void **)&b->verts, &b->vert_cap, di.draw.count, sizeof *b->verts) < 0)
    return gs_diag_set(d, GS_ENOMEM, "binning: host out of memory");
  r->stats.cs_vertices += di.draw.count;
  for (uint32_t i = 0; i < di.draw.count; i++) {
    const uint32_t rows[7] = {0, 0, 0, CLE_VG_INV_WC, b->vg.xy[i], CLE_VG_ZS, CLE_VG_INV_WC};
    ptb_vertex_unpack(&b->verts[i], rows, false);
  }
  ptb_vertices vs = {b->verts, 0, di.draw.count};
  static const uint32_t fmt[2] = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_XY};
  return bin_and_write(r, b, p, &di, &vs, fmt, b->vg.xy, d);
}

/* ---- the thread's packets ---------------------------------------------------- */

int cle_bin_packet(cle_run *r, const gs_cl_packet *p) {
  gs_diag *d = gs_gpu_diag(r->g);
  cle_bin *b = get_bin(r);
  if (!b) return gs_diag_set(d, GS_ENOMEM, "binning: host out of memory");
  switch (p->info->id) {
  case GS_CL_TILE_BINNING_MODE_CONFIGURATION: return configure(r, b, p, d);
  case GS_CL_START_TILE_BINNING:
    /* Every state item reaches a tile list before its first primitive
     * anyway, so the start only checks the configuration came first. */
    if (!b->configured)
      return cle_error(d, GS_EINVAL, p->addr, "START_TILE_BINNING before TILE_BINNING_MODE_CONFIGURATION (112)");
    return GS_OK;
  case GS_CL_FLUSH:
  case GS_CL_FLUSH_ALL_STATE: return flush(b, p, d);
  case GS_CL_VERTEX_ARRAY_PRIMITIVES:
  case GS_CL_INDEXED_PRIMITIVE_LIST: {
    int rc = bin_draw(r, b, p, d);
    if (rc < 0) r->g->fault_record = cle_state_record(&b->st);
    return rc;
  }
  case GS_CL_VG_COORDINATE_ARRAY_PRIMITIVES:
  case GS_CL_VG_INLINE_PRIMITIVES: {
    int rc = bin_vg_draw(r, b, p, d);
    if (rc < 0) r->g->fault_record = cle_state_record(&b->st);
    return rc;
  }
  default:
    if (cle_item_of((unsigned)p->info->id) >= 0) {
      cle_state_apply(&b->st, p);
      return GS_OK;
    }
    return cle_error(d, GS_EINVAL, p->addr, "%s is not a binning-list packet", p->info->name);
  }
}

int cle_bin_end(cle_run *r) {
  cle_bin *b = r->bin;
  if (b && b->configured && !b->flushed)
    return gs_diag_set(gs_gpu_diag(r->g), GS_EINVAL,
                       "the list ended without FLUSH (4): the tile lists have no Return and cannot be rendered");
  return GS_OK;
}
