/* render.c — CLE thread 1, the rendering pass (RG §8-9, the
 * rendering list). The thread's walk (cle.c) hands every packet here;
 * this file first *plans*: it keeps the state as the list leaves it and
 * cuts the packets into tile jobs, one per Tile Coordinates (115) record,
 * each with the state at its start. The jobs then run in parallel
 * (core/pool.h), each worker with its own shader units, VPM, tile buffer and error
 * message: per job the tile buffer is cleared (or, when the list before
 * left it uncleared, inherited: such frames run in list order on one
 * worker), loads apply at 115, state and primitives replay — vertex
 * shaders (or NV vertices), PSE setup and rasterisation within the tile
 * and the clip window, early Z, fragment shaders per 4x4 batch with the
 * VC4 payload, tile-buffer tests and writes — and stores write the frame
 * buffer. A job depends only on its packets, its start state and, when it
 * inherits, the job before it, so the frame is the same for any thread
 * count. docs/pipeline.md gives the rules and the choices.
 */
#include <stdlib.h>
#include <string.h>
#include "core/clones.h"
#include "core/pool.h"
#include "core/sort.h"
#include "v3d/cle.h"
#include "v3d/pse.h"
#include "v3d/tlb.h"
#include "v3d/trace.h"

#define RENDER_CHUNK 64        /* primitives whose vertices are shaded together */
#define RENDER_MAX_LOADS 4     /* loads pending before a 115 */
#define RENDER_MAX_WORKERS 64  /* gs_parallel_for's thread limit */
#define CLEAR_Z_DEFAULT 0xFFFFFFu
/* Blocks of a primitive set up before their fragment shaders run. Setup
 * rounds to nearest, shaders in their unit's mode (gs_isa.fp_env), and
 * each switch of the host's floating-point environment costs: a group
 * switches twice, not each block (measured: 8 blocks a group fill 1080p
 * about 5% faster on one thread and 12% on two than a switch per block;
 * 16 halve what each call of the unit costs a batch again, 2% of the fill
 * frame's host instructions). */
#define RENDER_GROUP 16
#if defined(__GNUC__) && !defined(__clang__)
#define GS_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define GS_NO_UNROLL
#endif

/* The tile buffer as the fragment program of a block reaches it
 * (gs_tile_port). */
typedef struct trace_slot trace_slot;
typedef struct render_slot render_slot;
typedef struct port_ctx {
  tlb_port tp;         /* first: the tile buffer's port functions (tlb_port_functions) take ctx as a tlb_port */
  trace_slot *ts;      /* the traced port's record of the batch (trace_port_*) */
  render_slot *slot;   /* the slot whose port this is */
} port_ctx;

/* What the traced tile port saw of a batch, lane by lane, to decide each
 * fragment's fate (GS_TRACE_FRAGMENT) once the batch has run. */
struct trace_slot {
  const gs_trace *t;
  unsigned tile_x, tile_y;
  int lane;                  /* the filter pixel's lane, -1 none, -2 every lane */
  uint16_t shaded;           /* lanes the batch shades */
  uint16_t z_seen, wrote, written, loaded;
  uint32_t cov0[16], cov_before[16], cov_after[16], cov_write[16];
  uint8_t failed[16];        /* bit s: sample s failed stencil; bit 4 + s: depth */
  uint32_t zs_before[16], frag_z[16], out[16][2], loaded_value[16];
  uint8_t nw[16];
};

/* A block of the group: what its fragment shader starts with, besides
 * the PSE's values (cle_worker.batch). */
struct render_slot {
  pse_block blk;
  uint32_t cov[16];    /* MS_FLAGS: the covered samples of each lane, 0 for a lane not covered */
  /* The lanes' pixels, filled only when something reads them: a program
   * that reads them (GS_FRAG_READS_XY), the trace, a stencil test, a batch
   * that is not a block of the tile buffer (prepare_block, port_stencil_setup). */
  uint32_t x[16], y[16];
  tlb_batch lanes;     /* x, y for the tile buffer, worked out once for early Z and the shader's accesses */
  port_ctx pc;
  gs_tile_port port;
  gs_tile_port traced; /* the same port with the trace's records (a traced tile's batches use it) */
};

/* One tile job: its packets and the state it starts from. */
typedef struct cle_job {
  uint8_t x, y;         /* tile coordinates */
  uint32_t first, count; /* its packets in cle_render.pk */
  uint32_t snap;        /* its start state in cle_render.snap */
  bool inherits;        /* starts with the tile buffer the previous job left */
  uint8_t worker;       /* the worker that ran it */
} cle_job;

/* What fragment_linkage's result depends on: whether the fragment
 * program has a header, and then whether a GL record's vertex program has
 * one, and their SPH words. */
typedef struct linkage_key {
  bool fs, vs;
  uint32_t fs_sph[GS_SPH_WORDS], vs_sph[GS_SPH_WORDS];
} linkage_key;

/* A fragment program's linkage (fragment_linkage). */
typedef struct frag_linkage {
  int nmodes;                     /* varyings its SPH maps, or -1: no program header */
  uint8_t modes[PSE_MAX_VARYINGS]; /* their gs_pixel_imap */
  int8_t src[PSE_MAX_VARYINGS];   /* pse_state.src and dflt */
  uint32_t dflt[PSE_MAX_VARYINGS];
} frag_linkage;

/* The last linkage a worker worked out (fragment_linkage), for key. */
typedef struct linkage_memo {
  bool valid;
  linkage_key key;
  frag_linkage link;
} linkage_memo;

/* A rendering worker: everything one host thread needs for a tile. */
typedef struct cle_worker {
  cle_unit unit;        /* shader units, VPM, diag */
  gs_tlb tlb;
  pse_coverage cov;
  render_slot slot[RENDER_GROUP];
  trace_slot ts[RENDER_GROUP]; /* the traced port's records, apart so that the slots stay small */
  pse_batch batch[RENDER_GROUP];
  /* The fragment batches of the group: each points at its slot and batch
   * for good (worker_init); prepare_block sets the mask, draw_prim what a
   * primitive's batches share. */
  gs_frag_io io[RENDER_GROUP];
  pse_prim prim;
  uint32_t vidx[RENDER_CHUNK * 3];  /* sorted distinct vertex indices of a chunk */
  pse_vertex vert[RENDER_CHUNK * 3];/* their shaded vertices */
  cle_vg_draw vg;       /* the XY words of a VG draw in the rendering list */
  gs_v3d_stats stats;   /* counts only */
  gs_addr fault_record; /* shader record of the primitives that failed (gs_v3d_fault_record) */
  linkage_memo linkage; /* the last fragment linkage (fragment_linkage) */
  /* The tile buffer holds nothing but these clear values in this mode: a
   * store cleared both buffers and nothing wrote since, so the next fresh
   * job with the same values need not clear it again (run_job). */
  bool clean;
  uint32_t clean_colour[2], clean_zs;
  int clean_ms, clean_color64;
} cle_worker;

typedef struct cle_render {
  cle_state st;                 /* the state as the walk leaves it */
  gs_cl_packet pending[RENDER_MAX_LOADS]; /* loads waiting for a 115 */
  unsigned npending;
  bool open;                    /* the last job may still grow */
  bool unclean;                 /* the list so far leaves the tile buffer not cleared */
  unsigned last_worker;         /* the worker that ran the last job of the last flush */
  gs_cl_packet *pk;
  uint32_t npk, pk_cap;
  cle_state *snap;
  uint32_t nsnap, snap_cap;
  cle_job *jobs;
  uint32_t njobs, job_cap;
  cle_worker **workers;
  unsigned nworkers;
} cle_render;

/* ---- storage ----------------------------------------------------------------- */

static int grow(void **p, uint32_t *cap, uint32_t n, size_t size) {
  if (n <= *cap) return GS_OK;
  uint32_t c = *cap ? *cap * 2 : 64;
  while (c < n) c *= 2;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return GS_ENOMEM;
  *p = q;
  *cap = c;
  return GS_OK;
}

static cle_render *get_render(cle_run *r) {
  if (!r->render) r->render = calloc(1, sizeof *r->render);
  return r->render;
}

void cle_render_free(cle_run *r) {
  cle_render *rd = r->render;
  if (!rd) return;
  for (unsigned i = 0; i < rd->nworkers; i++) {
    if (!rd->workers[i]) continue;
    cle_unit_free(&rd->workers[i]->unit);
    free(rd->workers[i]->vg.xy);
    free(rd->workers[i]);
  }
  free(rd->workers);
  free(rd->pk);
  free(rd->snap);
  free(rd->jobs);
  free(rd);
  r->render = NULL;
}

gs_cl_prim_format cle_render_fmt(const cle_run *r) {
  gs_cl_prim_format f = {0, 0};
  return r->render ? cle_state_fmt(&r->render->st) : f;
}

/* ---- frames -------------------------------------------------------------------- */

/* Record 113's and 28/29's memory format codes (0 raster, 1 T, 2 LT). */
static int layout_of(uint32_t code, tiling_layout *out) {
  static const tiling_layout by_code[3] = {TILING_RASTER, TILING_T, TILING_LT};
  if (code > 2) return GS_EINVAL;
  *out = by_code[code];
  return GS_OK;
}

/* Store modes 0 sample 0, 1 decimate 4x (113's decimate field and 28's
 * mode field use the same codes); 16x belongs to coverage mode. */
static int decimate_of(uint32_t code, const gs_cl_packet *p, const char *field, unsigned *out, gs_diag *d) {
  if (code == 2)
    return cle_error(d, GS_EINVAL, p->addr, "%s: %s 2 (decimate 16x) is for coverage mode only, which gpusim does "
                     "not model", p->info->name, field);
  if (code > 2) return cle_error(d, GS_EINVAL, p->addr, "%s: %s 3 is reserved", p->info->name, field);
  *out = code == 1 ? TLB_DECIMATE4 : TLB_SAMPLE0;
  return GS_OK;
}

/* The frame a store or load of packet p moves the tile to or from: 113's
 * buffer for 24/25, else p's own address and formats with 113's size. A
 * 64-bit colour buffer is stored as RGBA16F whatever the formats say
 * (113's colour format is for non-HDR buffers); 28 and 29 must then ask
 * for code 0. */
static int frame_of(const cle_state *st, const gs_cl_packet *p, tlb_frame *f, gs_diag *d) {
  if (!st->item[CLE_RENDER_CFG].version)
    return cle_error(d, GS_EINVAL, p->addr, "%s before TILE_RENDERING_MODE_CONFIGURATION (113)", p->info->name);
  gs_cl_tile_rendering_mode_configuration c;
  gs_cl_unpack_tile_rendering_mode_configuration(st->item[CLE_RENDER_CFG].values, &c);
  memset(f, 0, sizeof *f);
  f->width = c.width, f->height = c.height;
  uint32_t mem_format = c.memory_format, pixel_format = 0, mode = c.decimate;
  const char *mode_field = "113's decimate";
  f->address = c.address;
  f->format = tlb_format_from_113(c.color_format);
  int general = p->info->id == GS_CL_STORE_TILE_BUFFER_GENERAL || p->info->id == GS_CL_LOAD_TILE_BUFFER_GENERAL;
  if (p->info->id == GS_CL_STORE_TILE_BUFFER_GENERAL) {
    gs_cl_store_tile_buffer_general s;
    gs_cl_unpack_store_tile_buffer_general(p->values, &s);
    f->address = s.address, mem_format = s.format, pixel_format = s.pixel_format;
    mode = s.mode, mode_field = "mode";
  } else if (p->info->id == GS_CL_LOAD_TILE_BUFFER_GENERAL) {
    gs_cl_load_tile_buffer_general s;
    gs_cl_unpack_load_tile_buffer_general(p->values, &s);
    f->address = s.address, mem_format = s.format, pixel_format = s.pixel_format;
    mode = 0;
  }
  int rc = decimate_of(mode, p, mode_field, &f->decimate, d);
  if (rc < 0) return rc;
  if (general) {
    if (pixel_format > 2) return cle_error(d, GS_EINVAL, p->addr, "%s: pixel format 3 is reserved", p->info->name);
    if (c.color64 && pixel_format != 0)
      return cle_error(d, GS_EINVAL, p->addr, "%s: pixel format %u (BGR565) of a 64-bit colour buffer: gpusim "
                       "stores 64-bit colour as RGBA16F only (pixel format 0)", p->info->name, pixel_format);
    f->format = pixel_format; /* 28/29 use the TLB_* order (RG Table 38) */
  }
  if (c.color64) f->format = TLB_RGBA16F;
  if (layout_of(mem_format, &f->layout) < 0)
    return cle_error(d, GS_EINVAL, p->addr, "%s: memory format 3 is reserved", p->info->name);
  return GS_OK;
}

/* Whether 113 (if set) asks for 64-bit colour. */
static int color64_of(const cle_state *st) {
  if (!st->item[CLE_RENDER_CFG].version) return 0;
  gs_cl_tile_rendering_mode_configuration c;
  gs_cl_unpack_tile_rendering_mode_configuration(st->item[CLE_RENDER_CFG].values, &c);
  return (int)c.color64;
}

/* Whether p is a full-resolution dump or reload — 26, 27, or 28/29 with
 * buffer 5 ("full dump", "full reload"), which move the same bytes — and
 * its address: the tile's own, not offset by the tile coordinates
 * (RG Table 38 says so of 26/27; docs/tile-buffer.md why 28/29 follow). */
static int full_resolution(const gs_cl_packet *p, gs_addr *addr) {
  switch (p->info->id) {
  case GS_CL_STORE_FULL_RESOLUTION_TILE_BUFFER: {
    gs_cl_store_full_resolution_tile_buffer s;
    gs_cl_unpack_store_full_resolution_tile_buffer(p->values, &s);
    *addr = s.address;
    return 1;
  }
  case GS_CL_RELOAD_FULL_RESOLUTION_TILE_BUFFER: {
    gs_cl_reload_full_resolution_tile_buffer s;
    gs_cl_unpack_reload_full_resolution_tile_buffer(p->values, &s);
    *addr = s.address;
    return 1;
  }
  case GS_CL_STORE_TILE_BUFFER_GENERAL: {
    gs_cl_store_tile_buffer_general s;
    gs_cl_unpack_store_tile_buffer_general(p->values, &s);
    *addr = s.address;
    return s.buffer == GS_CL_BUFFER_FULL;
  }
  case GS_CL_LOAD_TILE_BUFFER_GENERAL: {
    gs_cl_load_tile_buffer_general s;
    gs_cl_unpack_load_tile_buffer_general(p->values, &s);
    *addr = s.address;
    return s.buffer == GS_CL_BUFFER_FULL;
  }
  default: return 0;
  }
}

/* The buffers a store or load General (28/29) moves: its buffer field, with
 * the full dump's disable bits (bits 1:0 of the address word; bit 2, the VG
 * mask's, has nothing to move: gpusim refuses 113's VG mask buffer). */
static int general_buffers(const gs_cl_packet *p, unsigned buffer, unsigned disable, unsigned *out, gs_diag *d) {
  switch (buffer) {
  case 0: *out = 0; return GS_OK;
  case 1: *out = 1; return GS_OK;
  case 2: case 3: *out = 2; return GS_OK; /* Z only stores the Z/stencil word too (docs/pipeline.md) */
  case GS_CL_BUFFER_FULL: *out = ~disable & 3u; return GS_OK;
  case 4:
    return cle_error(d, GS_EINVAL, p->addr, "%s: buffer 4 (VG mask) is not modelled by gpusim: the reference does "
                     "not document the VG mask's contents or memory format", p->info->name);
  default: return cle_error(d, GS_EINVAL, p->addr, "%s: buffer %u is reserved", p->info->name, buffer);
  }
}

/* Which buffers a store (or load) moves: bit 0 colour, bit 1 Z/stencil. */
static int buffers_of(const gs_cl_packet *p, unsigned *out, gs_diag *d) {
  switch (p->info->id) {
  case GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER:
  case GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF: *out = 1; return GS_OK;
  case GS_CL_STORE_TILE_BUFFER_GENERAL: {
    gs_cl_store_tile_buffer_general s;
    gs_cl_unpack_store_tile_buffer_general(p->values, &s);
    return general_buffers(p, s.buffer, s.disable_color_dump | s.disable_zs_dump << 1, out, d);
  }
  case GS_CL_LOAD_TILE_BUFFER_GENERAL: {
    gs_cl_load_tile_buffer_general s;
    gs_cl_unpack_load_tile_buffer_general(p->values, &s);
    /* 29's disable bits are not limited to the full reload, unlike 28's (RG Table 38). */
    int rc = general_buffers(p, s.buffer, 0, out, d);
    if (rc < 0) return rc;
    *out &= ~(s.disable_color_load | s.disable_zs_load << 1);
    return GS_OK;
  }
  case GS_CL_STORE_FULL_RESOLUTION_TILE_BUFFER: {
    gs_cl_store_full_resolution_tile_buffer s;
    gs_cl_unpack_store_full_resolution_tile_buffer(p->values, &s);
    *out = (s.disable_color_write ? 0u : 1u) | (s.disable_zs_write ? 0u : 2u);
    return GS_OK;
  }
  case GS_CL_RELOAD_FULL_RESOLUTION_TILE_BUFFER: {
    gs_cl_reload_full_resolution_tile_buffer s;
    gs_cl_unpack_reload_full_resolution_tile_buffer(p->values, &s);
    *out = (s.disable_color_read ? 0u : 1u) | (s.disable_zs_read ? 0u : 2u);
    return GS_OK;
  }
  default:
    return cle_error(d, GS_EINVAL, p->addr, "%s: not a tile-buffer store or load", p->info->name);
  }
}

/* Checks, before any tile runs, that the frame of store or load p lies in
 * allocated memory, so that a bad address fails before anything is
 * written. */
static int check_frame(cle_run *r, const cle_state *st, const gs_cl_packet *p, gs_diag *d) {
  unsigned buffers = 0;
  tlb_frame f;
  int rc = buffers_of(p, &buffers, d);
  if (rc < 0 || buffers == 0) return rc;
  gs_addr full;
  if (full_resolution(p, &full)) {
    gs_addr start = (buffers & 1) ? full : full + TLB_FULL_BYTES;
    uint32_t len = ((buffers & 1) ? TLB_FULL_BYTES : 0) + ((buffers & 2) ? tlb_full_zs_bytes(color64_of(st)) : 0);
    if (!gs_mem_ptr(r->g->mem, start, len))
      return cle_error(d, GS_EFAULT, p->addr, "%s: the tile dump at 0x%08x (%u bytes) is outside allocated GPU memory",
                       p->info->name, start, len);
    return GS_OK;
  }
  if ((rc = frame_of(st, p, &f, d)) < 0) return rc;
  for (unsigned b = 1; b <= 2; b++) {
    if (!(buffers & b)) continue;
    unsigned cpp = b == 2 ? 4 : tlb_format_bytes(f.format);
    uint32_t size = tiling_size(f.layout, f.width, f.height, cpp);
    if (!gs_mem_ptr(r->g->mem, f.address, size))
      return cle_error(d, GS_EFAULT, p->addr, "%s: the %ux%u %s buffer at 0x%08x (%u bytes) is outside allocated "
                       "GPU memory", p->info->name, f.width, f.height, b == 2 ? "Z/stencil" : "colour", f.address,
                       size);
  }
  return GS_OK;
}

/* ---- planning ------------------------------------------------------------------ */

static void store_clears(const gs_cl_packet *p, int *colour, int *zs);

/* Whether the tile buffer, after packet p, holds anything but the clear
 * values: draws and loads leave contents, a store that clears both
 * buffers removes them (RG §5). */
static bool leaves_contents(const gs_cl_packet *p, bool before) {
  switch (p->info->id) {
  case GS_CL_LOAD_TILE_BUFFER_GENERAL:
  case GS_CL_RELOAD_FULL_RESOLUTION_TILE_BUFFER:
  case GS_CL_COMPRESSED_PRIMITIVE_LIST:
  case GS_CL_CLIPPED_PRIMITIVE:
  case GS_CL_VERTEX_ARRAY_PRIMITIVES:
  case GS_CL_INDEXED_PRIMITIVE_LIST:
  case GS_CL_VG_COORDINATE_ARRAY_PRIMITIVES:
  case GS_CL_VG_INLINE_PRIMITIVES: return true;
  case GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER:
  case GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF:
  case GS_CL_STORE_FULL_RESOLUTION_TILE_BUFFER:
  case GS_CL_STORE_TILE_BUFFER_GENERAL: {
    int colour, zs;
    store_clears(p, &colour, &zs);
    return colour && zs ? false : before;
  }
  default: return before;
  }
}

static int append_packet(cle_render *rd, const gs_cl_packet *p, gs_diag *d) {
  if (grow((void **)&rd->pk, &rd->pk_cap, rd->npk + 1, sizeof *rd->pk) < 0)
    return gs_diag_set(d, GS_ENOMEM, "rendering: host out of memory");
  rd->pk[rd->npk++] = *p;
  rd->jobs[rd->njobs - 1].count++;
  rd->unclean = leaves_contents(p, rd->unclean);
  return GS_OK;
}

/* Tile Coordinates (115): starts a job, or continues the open one when it
 * is the same tile (a tile rendered in several steps keeps its tile
 * buffer, as the load-store-load sequences of Linux's vc4_render_cl.c need). Pending loads go
 * into the job just before the 115 that executes them. */
static int tile_coordinates(cle_run *r, cle_render *rd, const gs_cl_packet *p, gs_diag *d) {
  gs_cl_tile_coordinates tc;
  gs_cl_unpack_tile_coordinates(p->values, &tc);
  if (!rd->st.item[CLE_RENDER_CFG].version)
    return cle_error(d, GS_EINVAL, p->addr, "TILE_COORDINATES before TILE_RENDERING_MODE_CONFIGURATION (113)");
  gs_cl_tile_rendering_mode_configuration c;
  gs_cl_unpack_tile_rendering_mode_configuration(rd->st.item[CLE_RENDER_CFG].values, &c);
  unsigned tw, th;
  tlb_tile_size((int)c.ms4x, (int)c.color64, &tw, &th);
  uint32_t tiles_x = (c.width + tw - 1) / tw, tiles_y = (c.height + th - 1) / th;
  if (tc.column >= tiles_x || tc.row >= tiles_y)
    return cle_error(d, GS_EINVAL, p->addr, "TILE_COORDINATES (%u, %u) outside the %ux%u tiles (%ux%u pixels) of the "
                     "%ux%u frame", tc.column, tc.row, tiles_x, tiles_y, tw, th, c.width, c.height);
  cle_job *last = rd->njobs ? &rd->jobs[rd->njobs - 1] : NULL;
  if (!(rd->open && last->x == tc.column && last->y == tc.row)) {
    if (grow((void **)&rd->jobs, &rd->job_cap, rd->njobs + 1, sizeof *rd->jobs) < 0 ||
        grow((void **)&rd->snap, &rd->snap_cap, rd->nsnap + 1, sizeof *rd->snap) < 0)
      return gs_diag_set(d, GS_ENOMEM, "rendering: host out of memory");
    rd->snap[rd->nsnap] = rd->st;
    rd->jobs[rd->njobs++] = (cle_job){(uint8_t)tc.column, (uint8_t)tc.row, rd->npk, 0, rd->nsnap++, rd->unclean, 0};
    rd->open = true;
    r->stats.tiles++;
  }
  for (unsigned i = 0; i < rd->npending; i++) {
    int rc = append_packet(rd, &rd->pending[i], d);
    if (rc < 0) return rc;
  }
  rd->npending = 0;
  return append_packet(rd, p, d);
}

/* Record 113: what gpusim can render. */
static int check_render_config(const gs_cl_packet *p, gs_diag *d) {
  gs_cl_tile_rendering_mode_configuration c;
  gs_cl_unpack_tile_rendering_mode_configuration(p->values, &c);
  if (c.vg_mask)
    return cle_error(d, GS_EINVAL, p->addr, "TILE_RENDERING_MODE_CONFIGURATION: the VG mask buffer (flag bit 8) is not "
                     "modelled by gpusim: the reference does not document its contents, how its 8-bit values combine "
                     "with colour writes, or what a fragment program's alpha-mask writes and loads do with it");
  if (c.coverage_mode)
    return cle_error(d, GS_EINVAL, p->addr, "TILE_RENDERING_MODE_CONFIGURATION: coverage mode (flag bit 9) is not "
                     "modelled by gpusim: the reference gives its 16x sampling, update and read codes (records 96, "
                     "28) but not the sample points nor how coverage accumulates and resolves");
  unsigned decimate;
  int rc = decimate_of(c.decimate, p, "decimate", &decimate, d);
  if (rc < 0) return rc;
  if (c.memory_format > 2)
    return cle_error(d, GS_EINVAL, p->addr, "TILE_RENDERING_MODE_CONFIGURATION: memory format 3 is reserved");
  if (c.color_format > 2)
    return cle_error(d, GS_EINVAL, p->addr, "TILE_RENDERING_MODE_CONFIGURATION: colour format 3 is reserved");
  if (c.width == 0 || c.height == 0 || c.width > 4096 || c.height > 4096)
    return cle_error(d, GS_EINVAL, p->addr, "TILE_RENDERING_MODE_CONFIGURATION: a %ux%u frame (1..4096 pixels a side)",
                     c.width, c.height);
  return GS_OK;
}

int cle_render_packet(cle_run *r, const gs_cl_packet *p) {
  gs_diag *d = gs_gpu_diag(r->g);
  cle_render *rd = get_render(r);
  if (!rd) return gs_diag_set(d, GS_ENOMEM, "rendering: host out of memory");
  int rc, id = p->info->id;
  switch (id) {
  case GS_CL_TILE_COORDINATES: return tile_coordinates(r, rd, p, d);
  case GS_CL_LOAD_TILE_BUFFER_GENERAL:
  case GS_CL_RELOAD_FULL_RESOLUTION_TILE_BUFFER:
    if ((rc = check_frame(r, &rd->st, p, d)) < 0) return rc;
    if (rd->npending == RENDER_MAX_LOADS)
      return cle_error(d, GS_EINVAL, p->addr, "%s: more than %d loads before a TILE_COORDINATES", p->info->name,
                       RENDER_MAX_LOADS);
    rd->pending[rd->npending++] = *p;
    return GS_OK;
  case GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER:
  case GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF:
  case GS_CL_STORE_FULL_RESOLUTION_TILE_BUFFER:
  case GS_CL_STORE_TILE_BUFFER_GENERAL:
    if (!rd->open) return cle_error(d, GS_EINVAL, p->addr, "%s before any TILE_COORDINATES (115)", p->info->name);
    if ((rc = check_frame(r, &rd->st, p, d)) < 0) return rc;
    return append_packet(rd, p, d);
  case GS_CL_COMPRESSED_PRIMITIVE_LIST:
  case GS_CL_CLIPPED_PRIMITIVE:
  case GS_CL_VERTEX_ARRAY_PRIMITIVES:
  case GS_CL_INDEXED_PRIMITIVE_LIST:
  case GS_CL_VG_COORDINATE_ARRAY_PRIMITIVES:
  case GS_CL_VG_INLINE_PRIMITIVES:
    if (!rd->open) return cle_error(d, GS_EINVAL, p->addr, "%s before any TILE_COORDINATES (115)", p->info->name);
    return append_packet(rd, p, d);
  default:
    if (cle_item_of((unsigned)id) < 0)
      return cle_error(d, GS_EINVAL, p->addr, "%s is not a rendering-list packet", p->info->name);
    if (id == GS_CL_TILE_RENDERING_MODE_CONFIGURATION && (rc = check_render_config(p, d)) < 0) return rc;
    cle_state_apply(&rd->st, p);
    return rd->open ? append_packet(rd, p, d) : GS_OK;
  }
}

/* ---- a tile: derived state ----------------------------------------------------- */

/* What the primitives of a tile need, derived from the state records. */
typedef struct tile_ctx {
  cle_run *r;
  cle_worker *w;
  gs_diag *d;
  cle_state st;
  bool dirty;                  /* the state changed since `pse` was derived */
  pse_state pse;
  bool early_z;
  uint32_t full_cover;         /* MS_FLAGS of a covered pixel rasterised at its centre: 1, or 0xF on 4x tiles */
  cle_shader sh;
  uint32_t sh_version;
  const gs_isa *fs_isa;        /* the fragment program's ISA (tc->sh.fs_isa) and the worker's unit for it */
  gs_isa_unit *fs_unit;
  uint32_t fs_reads;           /* what it reads of a batch (gs_isa.fragment_reads), for the primitive being drawn */
  frag_linkage link;           /* its linkage (fragment_linkage) */
  unsigned x, y;               /* tile coordinates */
  gs_cl_packet pending[RENDER_MAX_LOADS];
  unsigned npending;
  unsigned cur_packet;         /* traced: the id of the packet being drawn */
  const gs_trace *trace;       /* the trace, when it wants this tile's events, else NULL */
  uint32_t ordinal;            /* traced: primitives of the tile's lists so far */
  uint32_t cur_index[3];       /* traced: the vertex indices of the primitive being drawn */
  unsigned cur_clipped;
} tile_ctx;

static float f32_of(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* The linkage of the fragment program's varyings, from the SPHs in the
 * program headers. Interpolation: the fragment program's SPH gives each
 * varying's PixelImap (gs_sph_varying_modes); code without a header, as
 * hand-written lists may carry, has only the Flat Shade Flags. Source: in
 * a GL record whose vertex and fragment programs both have headers, the
 * input BMAP decides (IMAP of the fragment program & OMAP of the vertex
 * program): varying i, the fragment program's i-th mapped input component,
 * is the vertex program's row for that component — the rank of the
 * component among the generic components its OMAP maps — or, when the
 * OMAP lacks it, the component's default (0, or 1.0 for a fourth
 * component: gs_sph_attr_default); otherwise varying i is row i. The
 * linkage depends only on the record's kind and the two headers' SPH
 * words, so the worker keeps the last one with those (linkage_memo):
 * each tile's first draw asks again, and working it out takes about 70,000
 * host instructions (the map lookups). Errors in the worker's unit diag. */
static int link_varyings(tile_ctx *tc, const linkage_key *k) {
  gs_diag *d = &tc->w->unit.diag;
  gs_sph fs, vs;
  uint16_t addr[PSE_MAX_VARYINGS];
  unsigned n;
  int rc;
  frag_linkage *l = &tc->link;
  l->nmodes = -1;
  for (int i = 0; i < PSE_MAX_VARYINGS; i++) l->src[i] = (int8_t)i, l->dflt[i] = 0;
  if (!k->fs) return GS_OK;
  if ((rc = gs_sph_decode(k->fs_sph, &fs, d)) < 0) return rc;
  if ((rc = gs_sph_varying_modes(&fs, l->modes, addr, &n, d)) < 0) return rc;
  l->nmodes = (int)n;
  if (!k->vs) return GS_OK;
  if ((rc = gs_sph_decode(k->vs_sph, &vs, d)) < 0) return rc;
  for (unsigned i = 0; i < n; i++) {
    if (!gs_sph_omap(&vs, addr[i])) {
      l->src[i] = -1;
      l->dflt[i] = gs_sph_attr_default(addr[i]);
      continue;
    }
    int row = 0;
    for (unsigned a = GS_SPH_ATTR_GENERIC(0); a < addr[i]; a += 4) row += gs_sph_omap(&vs, a) != 0;
    l->src[i] = (int8_t)row;
  }
  return GS_OK;
}

/* fragment_linkage for tc->sh: from the worker's memo when the record's
 * kind and the SPH words are the memo's, else link_varyings (kept in the
 * memo when it succeeds). */
static int fragment_linkage(tile_ctx *tc) {
  gs_diag *d = &tc->w->unit.diag;
  linkage_memo *m = &tc->w->linkage;
  linkage_key k;
  gs_program_header h;
  memset(&k, 0, sizeof k); /* compared whole, padding too */
  int rc = gs_program_header_read(tc->r->g->mem, tc->sh.fs_code, &h, d);
  if (rc < 0) return rc;
  if ((k.fs = rc > 0)) memcpy(k.fs_sph, h.sph_words, sizeof k.fs_sph);
  if (k.fs && tc->sh.id == GS_CL_GL_SHADER_STATE) {
    if ((rc = gs_program_header_read(tc->r->g->mem, tc->sh.vs.code, &h, d)) < 0) return rc;
    if ((k.vs = rc > 0)) memcpy(k.vs_sph, h.sph_words, sizeof k.vs_sph);
  }
  if (m->valid && !memcmp(&m->key, &k, sizeof k)) {
    tc->link = m->link;
    return GS_OK;
  }
  m->valid = false;
  if ((rc = link_varyings(tc, &k)) < 0) return rc;
  m->key = k, m->link = tc->link, m->valid = true;
  return GS_OK;
}

/* Re-derives the PSE and TLB state and the shader after a state change. */
static int derive(tile_ctx *tc, const gs_cl_packet *draw) {
  gs_addr at = draw->addr;
  const cle_item_value *it = tc->st.item;
  gs_cl_tile_rendering_mode_configuration rc113;
  gs_cl_unpack_tile_rendering_mode_configuration(it[CLE_RENDER_CFG].values, &rc113);
  if (!it[CLE_SHADER].version || tc->sh_version != it[CLE_SHADER].version) {
    int rc = cle_shader_decode(&tc->r->view, &tc->r->opt, &it[CLE_SHADER], at, &tc->sh, tc->d);
    if (rc < 0) return rc;
    tc->fs_isa = tc->sh.fs_isa;
    tc->fs_unit = cle_unit_of(tc->r->g, &tc->w->unit, tc->fs_isa);
    if ((rc = tc->fs_unit ? fragment_linkage(tc) : GS_ENOMEM) < 0)
      return gs_diag_set(tc->d, rc, "0x%08x: fragment shader at 0x%08x: %s", at, tc->sh.fs_code, tc->w->unit.diag.msg);
    tc->sh_version = it[CLE_SHADER].version;
  }
  pse_state *ps = &tc->pse;
  pse_state_init(ps, (uint16_t)rc113.width, (uint16_t)rc113.height);
  unsigned samples, tw, th;
  int rc = cle_oversample(&tc->st, rc113.ms4x, draw, &samples, tc->d);
  if (rc < 0) return rc;
  tlb_tile_size((int)rc113.ms4x, (int)rc113.color64, &tw, &th);
  ps->samples = (uint8_t)samples;
  ps->tile_w = (uint8_t)tw, ps->tile_h = (uint8_t)th;
  tc->full_cover = rc113.ms4x ? 0xFu : 1u;
  gs_cl_configuration_bits cfg = {.enable_forward_facing = 1, .enable_reverse_facing = 1, .depth_func = TLB_ALWAYS};
  if (it[CLE_CFG].version) gs_cl_unpack_configuration_bits(it[CLE_CFG].values, &cfg);
  ps->config = (cfg.enable_forward_facing ? PSE_CFG_FORWARD : 0) | (cfg.enable_reverse_facing ? PSE_CFG_REVERSE : 0) |
               (cfg.clockwise ? PSE_CFG_CLOCKWISE : 0) | (cfg.enable_depth_offset ? PSE_CFG_DEPTH_OFFSET : 0);
  tlb_set_depth(&tc->w->tlb, cfg.depth_func, (int)cfg.z_updates);
  tc->early_z = cfg.early_z && !rc113.early_z_disable;
  if (it[CLE_VIEWPORT].version) {
    gs_cl_viewport_offset v;
    gs_cl_unpack_viewport_offset(it[CLE_VIEWPORT].values, &v);
    ps->vp_x = (int16_t)v.x, ps->vp_y = (int16_t)v.y;
  }
  if (it[CLE_CLIP].version) {
    gs_cl_clip_window c;
    gs_cl_unpack_clip_window(it[CLE_CLIP].values, &c);
    ps->clip_left = (uint16_t)c.left, ps->clip_bottom = (uint16_t)c.bottom;
    ps->clip_width = (uint16_t)c.width, ps->clip_height = (uint16_t)c.height;
  }
  if (it[CLE_PSIZE].version) ps->point_size = f32_of(it[CLE_PSIZE].values[0]);
  if (it[CLE_LWIDTH].version) ps->line_width = f32_of(it[CLE_LWIDTH].values[0]);
  if (it[CLE_DOFFSET].version) { /* F187 values are float bits; the PSE takes their top half */
    ps->depth_offset_factor = (uint16_t)(it[CLE_DOFFSET].values[0] >> 16);
    ps->depth_offset_units = (uint16_t)(it[CLE_DOFFSET].values[1] >> 16);
  }
  ps->per_vertex_point_size = tc->sh.point_size;
  ps->nvary = (uint8_t)tc->sh.nvary;
  pse_state_set_flat_flags(ps, it[CLE_FLAT].version ? it[CLE_FLAT].values[0] : 0);
  /* The SPH decides; varyings past those it maps keep the flags' mode. */
  for (int i = 0; i < tc->link.nmodes && i < (int)tc->sh.nvary; i++) ps->interp[i] = tc->link.modes[i];
  memcpy(ps->src, tc->link.src, sizeof ps->src);
  memcpy(ps->dflt, tc->link.dflt, sizeof ps->dflt);
  tc->dirty = false;
  return GS_OK;
}

/* ---- a tile: fragment shading ------------------------------------------------------ */

/* The lanes' pixels of block b. */
static void block_lanes(const pse_block *b, uint32_t x[16], uint32_t y[16]) {
  uint32_t bx = b->x, by = b->y;
  for (int l = 0; l < 16; l++) {
    x[l] = bx + PSE_LANE_DX(l);
    y[l] = by + PSE_LANE_DY(l);
  }
}

/* The tile port's functions, on a slot's port_ctx: begin, the Z write
 * and the colour writes are the tile buffer's (tlb_port_functions), the
 * stencil setup and the colour load these. The stencil test goes lane by
 * lane, by the lanes' pixels (tlb_z_write_batch): the stencil setup fills
 * them, in case prepare_block did not. */
static void port_stencil_setup(void *ctx, uint32_t config) {
  render_slot *s = ((port_ctx *)ctx)->slot;
  block_lanes(&s->blk, s->x, s->y);
  tlb_stencil_setup(s->pc.tp.t, config);
}

static void port_colour_load(void *ctx, uint32_t *rgba) {
  port_ctx *p = ctx;
  tlb_loadc_batch(p->tp.t, p->tp.lanes, rgba, 0xFFFFu);
}

/* ---- a tile: the trace (v3d/trace.h) --------------------------------------------- */

/* The trace's entry points from draw_prim: out of line and cold, so that
 * the loop without a trace keeps its registers. */
#if defined(__GNUC__)
#define TRACE_COLD __attribute__((noinline, cold))
#else
#define TRACE_COLD
#endif

static int trace_wants_lane(const trace_slot *ts, int l) { return ts->lane == -2 || ts->lane == l; }

static void trace_slot_emit(const trace_slot *ts, const port_ctx *p, gs_trace_event *e) {
  e->tile_x = ts->tile_x, e->tile_y = ts->tile_y;
  e->lane = ts->lane;
  e->x = p->tp.lanes->x, e->y = p->tp.lanes->y;
  e->bx = p->tp.lanes->x[0], e->by = p->tp.lanes->y[0];
  gs_trace_emit(ts->t, e);
}

/* The traced tile port: the port's own functions, with a record of what
 * each access did to the lanes the trace follows. */
static void trace_port_begin(void *ctx) {
  trace_slot *ts = ((port_ctx *)ctx)->ts;
  tlb_port_functions(1)->begin(ctx);
  ts->z_seen = ts->wrote = ts->written = ts->loaded = 0;
  memset(ts->nw, 0, sizeof ts->nw);
}

static void trace_port_z_write(void *ctx, const uint32_t *z, uint32_t *cov, uint16_t lanes) {
  port_ctx *p = ctx;
  trace_slot *ts = p->ts;
  uint32_t before[16];
  memcpy(before, cov, sizeof before);
  uint16_t seen = 0;
  for (int l = 0; ts->lane != -1 && l < 16; l++) {
    if (!(lanes >> l & 1) || !trace_wants_lane(ts, l)) continue;
    seen |= (uint16_t)(1u << l);
    ts->cov_before[l] = cov[l];
    ts->frag_z[l] = z[l] & 0xffffffu;
    ts->failed[l] = 0;
    for (unsigned smp = 0; smp < p->tp.t->samples; smp++) {
      uint32_t zs = 0;
      int v = tlb_test_explain(p->tp.t, p->tp.lanes->x[l], p->tp.lanes->y[l], smp, z[l], (int)(p->tp.rev[l] & 1), &zs);
      if (smp == 0) ts->zs_before[l] = zs;
      if (!(cov[l] >> smp & 1)) continue;
      if (v == TLB_FAILS_STENCIL) ts->failed[l] |= (uint8_t)(1u << smp);
      if (v == TLB_FAILS_DEPTH) ts->failed[l] |= (uint8_t)(0x10u << smp);
    }
  }
  tlb_port_functions(1)->z_write(ctx, z, cov, lanes);
  if (!seen) return;
  ts->z_seen |= seen;
  for (int l = 0; l < 16; l++)
    if (seen >> l & 1) ts->cov_after[l] = cov[l];
  gs_trace_event e = {.kind = GS_TRACE_Z_TEST, .mask = lanes, .cov = cov, .cov_before = before, .z = z,
                      .failed = ts->failed, .stored_zs = ts->zs_before};
  trace_slot_emit(ts, p, &e);
}

static void trace_port_colour_write(void *ctx, int all, const uint32_t *rgba, const uint32_t *cov, uint16_t lanes) {
  port_ctx *p = ctx;
  trace_slot *ts = p->ts;
  tlb_port_functions(1)->colour_write(ctx, all, rgba, cov, lanes);
  int any = 0;
  for (int l = 0; ts->lane != -1 && l < 16; l++) {
    if (!(lanes >> l & 1) || !trace_wants_lane(ts, l)) continue;
    any = 1;
    ts->wrote |= (uint16_t)(1u << l);
    ts->cov_write[l] = cov[l];
    if (!cov[l]) continue;
    ts->written |= (uint16_t)(1u << l);
    ts->out[l][ts->nw[l] & 1] = rgba[l];
    ts->nw[l]++;
  }
  if (!any) return;
  gs_trace_event e = {.kind = GS_TRACE_COLOUR_WRITE, .mask = lanes, .rgba = rgba, .cov = cov, .all = (unsigned)all};
  trace_slot_emit(ts, p, &e);
}

static void trace_port_colour_load(void *ctx, uint32_t *rgba) {
  port_ctx *p = ctx;
  trace_slot *ts = p->ts;
  port_colour_load(ctx, rgba);
  if (ts->lane == -1) return;
  for (int l = 0; l < 16; l++) {
    if (!trace_wants_lane(ts, l) || (ts->loaded >> l & 1)) continue;
    ts->loaded |= (uint16_t)(1u << l);
    ts->loaded_value[l] = rgba[l];
  }
  gs_trace_event e = {.kind = GS_TRACE_COLOUR_LOAD, .mask = 0xFFFFu, .rgba = rgba};
  trace_slot_emit(ts, p, &e);
}

/* The MS_FLAGS of a multisampled block: out of line, so that GCC does not
 * merge its stores with the other case's and leave both unvectorised. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void ms_flags(const pse_block *blk, uint32_t cov[16]) {
  for (int l = 0; l < 16; l++) cov[l] = (uint32_t)(blk->samples >> (4 * l)) & 0xFu;
}

/* What prepare_block needs of the tile and the primitive being drawn,
 * read once a group into a local (the slots' stores could alias the fields
 * it comes from, which the compiler would read again for each block). */
typedef struct block_plan {
  tlb_grid grid;
  uint32_t full;  /* tc->full_cover */
  bool ms;        /* multisample coverage (ms_flags) */
  bool early_z;
  bool setup;     /* the program reads W or varyings (tc->fs_reads) */
  bool xy;        /* the lanes' pixels are read (prepare_group) */
  bool blocks;    /* every block is one of the tile buffer's (prepare_group) */
} block_plan;

/* Gets block blk of w->prim ready for its fragment shader, in the setup's
 * floating-point environment (round to nearest, set by draw_prim): its
 * MS_FLAGS, early Z, the PSE's values — Z always (early Z, the trace and a
 * depth write without OmapDepth take it), W and the varyings only for a
 * program that reads one of them (tc->fs_reads), the lanes' pixels when
 * they are read (bp->xy) or for a batch the tile buffer takes lane by lane
 * (render_slot.x). Returns whether any lane is left to shade. */
static GS_CLONE_INLINE int prepare_block(cle_worker *w, const block_plan *bp, const pse_block *blk, render_slot *s,
                                          pse_batch *b, gs_frag_io *io) {
  uint16_t mask = blk->mask;
  if (bp->ms)
    ms_flags(blk, s->cov);
  else {
    /* full where the lane's bit is set: an AND and a compare a lane, which
     * vectorise (a shift by the lane number does not) */
    static const uint32_t lane_bit[16] = {1u << 0, 1u << 1, 1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
                                          1u << 8, 1u << 9, 1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15};
    uint32_t full = bp->full, m = mask;
    /* kept a loop: unrolled first, GCC's straight-line vectoriser finds it
     * not worth it and leaves 16 scalar selects */
    GS_NO_UNROLL
    for (int l = 0; l < 16; l++) s->cov[l] = full & (0u - (uint32_t)((m & lane_bit[l]) != 0));
  }
  /* lanes.x, .y are s->x, s->y for good (worker_init) */
  if (bp->blocks)
    s->lanes.base = tlb_block_base(&bp->grid, blk->x, blk->y), s->lanes.block = 1, s->lanes.early = 0;
  else
    tlb_batch_at(&bp->grid, blk->x, blk->y, &s->lanes);
  if (bp->xy || !s->lanes.block) block_lanes(blk, s->x, s->y);
  if (bp->early_z) { /* the weights early Z computed serve the batch too */
    uint32_t z[16];
    pse_weights wt;
    pse_block_depth_keep(&w->prim, blk, &wt, z);
    tlb_early_z_batch(&w->tlb, &s->lanes, z, s->cov, mask);
    mask = 0;
    for (int l = 0; l < 16; l++) mask |= (uint16_t)((s->cov[l] != 0) << l);
    if (!mask) return 0;
    if (bp->setup) pse_batch_setup_kept(&w->prim, blk, &wt, z, b);
    else memcpy(b->z, z, sizeof b->z);
  } else if (bp->setup)
    pse_batch_setup_nearest(&w->prim, blk, b);
  else if (!pse_depth_flat(&w->prim, b->z)) /* a flat Z without the call */
    pse_block_depth_nearest(&w->prim, blk, b->z);
  s->blk = *blk;
  io->mask = mask;
  return 1;
}

/* prepare_block for the blocks first..end) of w->cov, into the slots from
 * 0 on; returns how many slots it filled. xy: the lanes' pixels are read
 * (the program reads them, or the trace). The rasteriser's blocks are
 * aligned 4×4 blocks inside its tile (pse_rasterize_tile), so when that is
 * the tile buffer's tile (derive sets both sizes from one record,
 * run_job both origins from the job's tile) every batch is a block of the
 * tile buffer, and only where its planes start is left to work out. */
static GS_CLONE_INLINE int prepare_group(tile_ctx *tc, int first, int end, int xy) {
  cle_worker *w = tc->w;
  const pse_prim *p = &w->prim;
  const tlb_grid g = tlb_grid_of(&w->tlb);
  const block_plan bp = {.grid = g, .full = tc->full_cover, .ms = p->samples == PSE_MS_SAMPLES,
                         .early_z = tc->early_z, .xy = xy,
                         .setup = (tc->fs_reads & (GS_FRAG_READS_W | GS_FRAG_READS_VARYINGS)) != 0,
                         .blocks = p->tile_w == g.width && p->tile_h == g.height && g.x0 == tc->x * g.width &&
                                   g.y0 == tc->y * g.height};
  render_slot *s = w->slot;
  pse_batch *b = w->batch;
  gs_frag_io *io = w->io;
  for (int i = first; i < end; i++) {
    int k = prepare_block(w, &bp, &w->cov.block[i], s, b, io);
    s += k, b += k, io += k;
  }
  return (int)(s - w->slot);
}

/* Sets what the fragment batches io[first..n) share, for the primitive in
 * w->prim. */
static void share_batches(tile_ctx *tc, int first, int n) {
  cle_worker *w = tc->w;
  static const uint32_t rev_lanes[2][16] = {{0}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
  uint32_t rev = w->prim.reverse;
  for (int k = first; k < n; k++) {
    gs_frag_io *io = &w->io[k];
    io->prog = (gs_stage_program){tc->sh.fs_code, tc->sh.fs_uniforms, tc->sh.fs_unif_end};
    io->gates = tc->sh.fs_gates, io->report = &w->unit.report;
    io->reverse = rev, io->nin = w->prim.nfifo, io->imap = w->prim.imap;
    io->colour64 = (unsigned)w->tlb.color64;
    io->ignores = GS_FRAG_READS_ALL & ~tc->fs_reads;
    w->slot[k].pc.tp.rev = rev_lanes[rev & 1u];
  }
}

/* Runs the fragment shaders of the n prepared blocks, in their unit's
 * floating-point environment (gs_isa.fp_env, set by draw_prim). */
static GS_CLONE_INLINE int shade_blocks(tile_ctx *tc, int n, gs_addr at) {
  cle_worker *w = tc->w;
  unsigned ran = 0;
  int rc = tc->fs_isa->run_fragment(tc->r->g, tc->fs_unit, w->io, (unsigned)n, &ran);
  w->stats.fs_batches += ran;
  for (unsigned k = 0; k < ran; k++) w->stats.fragments += (uint64_t)__builtin_popcount(w->io[k].mask);
  if (rc < 0) {
    const pse_block *blk = &w->slot[ran].blk;
    return cle_prefix(tc->d, rc, "0x%08x: fragment shader at 0x%08x (uniforms 0x%08x), block (%u, %u): ", at,
                      tc->sh.fs_code, tc->sh.fs_uniforms, blk->x, blk->y);
  }
  return GS_OK;
}

/* The trace's GS_TRACE_TILE_PRIM event: the primitive being drawn, set up
 * with result pr (pse_result). */
static TRACE_COLD void trace_tile_prim(const tile_ctx *tc, int pr, unsigned n, gs_addr at) {
  gs_trace_event e = {.kind = GS_TRACE_TILE_PRIM, .addr = at, .packet = tc->cur_packet, .record = tc->sh.record,
                      .prim = tc->ordinal - 1, .nverts = n, .tile_x = tc->x, .tile_y = tc->y, .setup = pr,
                      .clipped = tc->cur_clipped, .fs_isa = tc->fs_isa, .fs_code = tc->sh.fs_code,
                      .fs_uniforms = tc->sh.fs_uniforms, .lane = -1};
  if (tc->sh.id == GS_CL_GL_SHADER_STATE) e.vs_isa = tc->sh.vs.isa, e.vs_code = tc->sh.vs.code;
  for (unsigned k = 0; k < 3; k++) e.index[k] = tc->cur_index[k];
  gs_trace_emit(tc->trace, &e);
}

/* The fragment event of lane l of a batch, with its fate. */
static void trace_fragment(const tile_ctx *tc, const trace_slot *ts, const uint32_t *x, const uint32_t *y, int l,
                           gs_trace_fate fate, int early) {
  gs_trace_event e = {.kind = GS_TRACE_FRAGMENT, .record = tc->sh.record, .prim = tc->ordinal - 1,
                      .tile_x = tc->x, .tile_y = tc->y, .bx = x[0], .by = y[0], .lane = l, .x = x,
                      .y = y, .fate = fate, .early = (unsigned)early, .fs_isa = tc->fs_isa,
                      .fs_code = tc->sh.fs_code, .fs_uniforms = tc->sh.fs_uniforms,
                      .read_tile = ts->loaded >> l & 1, .loaded = ts->loaded_value[l],
                      .zs_before = ts->zs_before[l], .frag_z = ts->frag_z[l], .samples = ts->cov0[l],
                      .z_tested = early || (ts->z_seen >> l & 1)};
  if (fate == GS_FATE_WRITTEN && tc->w->tlb.color64) { /* the last RG16F and BA16F words */
    e.noutput = 2;
    e.output[0] = ts->out[l][0], e.output[1] = ts->out[l][1];
  } else if (fate == GS_FATE_WRITTEN) { /* the last word */
    e.noutput = 1;
    e.output[0] = ts->out[l][(ts->nw[l] - 1u) & 1u];
  }
  gs_trace_emit(tc->trace, &e);
}

/* Block blk of the group, which prepare_block put into slot k, or (k < 0)
 * dropped whole by early Z: the BLOCK event, the fragments early Z dropped,
 * and for a batch that runs, its slot's record for the traced port and the
 * SHADE event. Runs in the setup's rounding (round to nearest), before the
 * group's shaders, so the tile buffer is as early Z saw it. */
static void trace_block(tile_ctx *tc, const pse_block *blk, int k) {
  cle_worker *w = tc->w;
  trace_slot scratch = {0}, *ts = k >= 0 ? &w->ts[k] : &scratch;
  uint32_t bx[16], by[16], none[16] = {0};
  block_lanes(blk, bx, by);
  ts->lane = -1;
  if (!gs_trace_wants_record(tc->trace, tc->sh.record)) return;
  int lane = gs_trace_lane(tc->trace, bx, by);
  if (lane == -1) return;
  uint16_t left = k >= 0 ? w->io[k].mask : 0;
  const uint32_t *cov = k >= 0 ? w->slot[k].cov : none;
  gs_trace_event e = {.kind = GS_TRACE_BLOCK, .record = tc->sh.record, .prim = tc->ordinal - 1, .tile_x = tc->x,
                      .tile_y = tc->y, .bx = blk->x, .by = blk->y, .mask = blk->mask, .early_z_mask = left,
                      .lane = lane, .x = bx, .y = by, .cov = cov};
  gs_trace_emit(tc->trace, &e);
  ts->t = tc->trace, ts->tile_x = tc->x, ts->tile_y = tc->y;
  ts->lane = lane;
  ts->loaded = 0;
  uint16_t dropped = blk->mask & (uint16_t)~left;
  if (dropped) { /* early Z: fragments that never reach a shader */
    uint32_t z[16];
    pse_block_depth_nearest(&w->prim, blk, z);
    for (int l = 0; l < 16; l++) {
      if (!(dropped >> l & 1) || !trace_wants_lane(ts, l)) continue;
      ts->frag_z[l] = z[l];
      ts->cov0[l] = 0;
      tlb_test_explain(&w->tlb, bx[l], by[l], 0, z[l], 0, &ts->zs_before[l]);
      trace_fragment(tc, ts, bx, by, l, GS_FATE_DEPTH_FAILED, 1);
    }
  }
  if (k < 0) return;
  ts->shaded = left;
  for (int l = 0; l < 16; l++) ts->cov0[l] = cov[l], ts->frag_z[l] = w->batch[k].z[l];
  gs_trace_event sh = {.kind = GS_TRACE_SHADE, .record = tc->sh.record, .prim = tc->ordinal - 1, .tile_x = tc->x,
                       .tile_y = tc->y, .bx = blk->x, .by = blk->y, .mask = left, .lane = lane, .x = bx, .y = by,
                       .cov = cov, .fs_isa = tc->fs_isa, .fs_code = tc->sh.fs_code, .fs_uniforms = tc->sh.fs_uniforms};
  gs_trace_emit(tc->trace, &sh);
}

/* The group's blocks first..end) after prepare_block put `ready` of them
 * into slots 0..ready) in order (each slot keeps its block): trace_block
 * for each. Out of draw_prim's loop, so that the loop has no trace test. */
static TRACE_COLD void trace_group(tile_ctx *tc, int first, int end, int ready) {
  const cle_worker *w = tc->w;
  for (int i = first, k = 0; i < end; i++) {
    const pse_block *blk = &w->cov.block[i];
    int got = k < ready && w->slot[k].blk.x == blk->x && w->slot[k].blk.y == blk->y;
    trace_block(tc, blk, got ? k++ : -1);
  }
}

/* After the batches of slots 0..n) ran: each followed fragment's fate from
 * what the traced port saw, in the order the tile buffer decides it: the
 * Z write's tests (a sample mask that removed every sample before it),
 * then the colour writes. */
static TRACE_COLD void trace_fates(tile_ctx *tc, int n) {
  for (int k = 0; k < n; k++) {
    const render_slot *s = &tc->w->slot[k];
    const trace_slot *ts = &tc->w->ts[k];
    if (ts->lane == -1) continue;
    for (int l = 0; l < 16; l++) {
      if (!(ts->shaded >> l & 1) || !trace_wants_lane(ts, l)) continue;
      gs_trace_fate fate;
      if ((ts->z_seen >> l & 1) && !ts->cov_before[l]) fate = GS_FATE_SAMPLE_MASKED;
      else if ((ts->z_seen >> l & 1) && !ts->cov_after[l])
        fate = (ts->failed[l] & 0x0Fu) && !(ts->failed[l] & 0xF0u) ? GS_FATE_STENCIL_FAILED : GS_FATE_DEPTH_FAILED;
      else if (ts->written >> l & 1) fate = GS_FATE_WRITTEN;
      else if (ts->wrote >> l & 1) fate = GS_FATE_SAMPLE_MASKED;
      else fate = GS_FATE_DISCARDED;
      trace_fragment(tc, ts, s->x, s->y, l, fate, 0);
    }
  }
}

/* Sets up primitive v[0..n) and shades every block it covers in the tile:
 * RENDER_GROUP blocks prepared with the host rounding to nearest, then
 * their shaders run in their unit's environment, and so on. Both environments
 * are built once here and written at each switch; the calls inside trust
 * them rather than read the environment, which waits for the floating-point
 * work in flight (core/fpmode.h). Early Z reads only a block's own pixels,
 * which no other block of the primitive writes, so it may run before the
 * shaders of the blocks ahead of it. The primitive's setup keeps the
 * caller's environment, which is restored at the end. */
GS_CLONES static int draw_prim(tile_ctx *tc, const pse_vertex *const *v, unsigned n, gs_addr at) {
  cle_worker *w = tc->w;
  pse_result pr = n == 3 ? pse_setup_triangle(&tc->pse, v[0], v[1], v[2], &w->prim)
                  : n == 2 ? pse_setup_line(&tc->pse, v[0], v[1], &w->prim)
                           : pse_setup_point(&tc->pse, v[0], &w->prim);
  if (tc->trace && gs_trace_wants_record(tc->trace, tc->sh.record)) trace_tile_prim(tc, (int)pr, n, at);
  if (pr != PSE_DRAW) return GS_OK;
  w->stats.prims_drawn++;
  int nb = pse_rasterize_tile(&w->prim, (int)tc->x, (int)tc->y, &w->cov);
  gs_fp_env caller = gs_fp_env_get();
  gs_fp_env setup_env = gs_fp_env_with(caller, GS_FP_NEAREST, 0);
  gs_fp_env unit_env = tc->fs_isa->fp_env(tc->r->g, caller);
  int rc = GS_OK;
  /* Between here and the end nothing but the fragment shaders can write
   * memory (tile stores and the host come between primitives), so the
   * shader's code is compared with memory once, not once per batch. */
  tc->fs_isa->trust_code(tc->fs_unit, 1);
  tc->fs_reads = tc->fs_isa->fragment_reads && nb ? tc->fs_isa->fragment_reads(tc->r->g, tc->fs_unit, tc->sh.fs_code)
                                                  : GS_FRAG_READS_ALL;
  int shared = 0; /* batches that have the primitive's shared fields */
  const int traced = tc->trace != NULL; /* read once: the stores below could alias tc */
  const int xy = traced || (tc->fs_reads & GS_FRAG_READS_XY);
  for (int first = 0; first < nb && rc >= 0; first += RENDER_GROUP) {
    int end = nb - first < RENDER_GROUP ? nb : first + RENDER_GROUP;
    gs_fp_env_set(setup_env);
    int ready = prepare_group(tc, first, end, xy);
    if (traced) trace_group(tc, first, end, ready);
    if (!ready) continue;
    if (ready > shared) share_batches(tc, shared, ready), shared = ready;
    gs_fp_env_set(unit_env);
    rc = shade_blocks(tc, ready, at);
    if (traced && rc >= 0) trace_fates(tc, ready);
  }
  gs_fp_env_set(caller);
  tc->fs_isa->trust_code(tc->fs_unit, 0);
  return rc;
}

/* ---- a tile: vertices -------------------------------------------------------------- */

/* Position of index i in the chunk's sorted distinct indices: *next (the
 * one after the last found: the chunks of a list mostly come in order)
 * or found by bisection; *next becomes the one after it. */
static unsigned vertex_slot(const cle_worker *w, unsigned n, uint32_t i, unsigned *next) {
  unsigned lo = *next, hi = n;
  if (lo < n && w->vidx[lo] == i) return *next = lo + 1, lo;
  lo = 0;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (w->vidx[mid] < i) lo = mid + 1;
    else hi = mid;
  }
  *next = lo + 1;
  return lo;
}

/* Reads pre-shaded NV vertex i (RG Table 46) into *v: from span, the
 * records of the chunk's first vertex first (cle_nv_span), or else looked
 * up alone. */
static int fetch_nv(tile_ctx *tc, const uint8_t *span, uint32_t i, pse_vertex *v, gs_addr at) {
  const cle_shader *sh = &tc->sh;
  unsigned head = sh->clip_header ? 4 : 0, words = 3 + (sh->point_size ? 1 : 0) + sh->nvary;
  uint64_t a = (uint64_t)sh->vertex_data + (uint64_t)i * sh->vertex_stride + 4 * head;
  const uint8_t *src = span ? span + (size_t)(i - tc->w->vidx[0]) * sh->vertex_stride + 4 * head
                       : a <= UINT32_MAX ? gs_mem_ptr(tc->r->g->mem, (gs_addr)a, words * 4)
                                         : NULL;
  if (!src)
    return cle_error(tc->d, GS_EFAULT, at, "NV shader record 0x%08x: vertex %u: %u bytes at 0x%08llx (vertex data "
                     "0x%08x, stride %u) are outside allocated GPU memory", sh->record, i, words * 4,
                     (unsigned long long)a, sh->vertex_data, sh->vertex_stride);
  uint32_t buf[4 + PSE_MAX_VARYINGS];
  memcpy(buf, src, words * 4);
  pse_vertex_unpack(buf, 1, sh->point_size, (int)sh->nvary, v);
  return GS_OK;
}

/* Shades (GL), fetches (NV) or unpacks (VG: XY words) the n distinct
 * vertices in w->vidx. */
static int shade_chunk(tile_ctx *tc, unsigned n, gs_addr at) {
  cle_worker *w = tc->w;
  const cle_shader *sh = &tc->sh;
  w->stats.vs_vertices += n;
  if (sh->vg) {
    for (unsigned k = 0; k < n; k++) {
      const uint32_t rows[3] = {w->vidx[k], CLE_VG_ZS, CLE_VG_INV_WC};
      pse_vertex_unpack(rows, 1, false, 0, &w->vert[k]);
    }
    return GS_OK;
  }
  if (sh->id == GS_CL_NV_SHADER_STATE) {
    unsigned bytes = 4 * ((sh->clip_header ? 4 : 0) + 3 + (sh->point_size ? 1 : 0) + sh->nvary);
    const uint8_t *span = n ? cle_nv_span(tc->r->g->mem, sh, w->vidx[0], w->vidx[n - 1], bytes) : NULL;
#if defined(__GNUC__)
    /* a tile's vertices lie anywhere in the draw's: ask for them all
       first, so that their cache misses overlap */
    for (unsigned k = 0; span && k < n; k++)
      __builtin_prefetch(span + (size_t)(w->vidx[k] - w->vidx[0]) * sh->vertex_stride);
#endif
    for (unsigned k = 0; k < n; k++) {
      int rc = fetch_nv(tc, span, w->vidx[k], &w->vert[k], at);
      if (rc < 0) return rc;
    }
    return GS_OK;
  }
  for (unsigned k = 0; k < n; k += 16) {
    unsigned m = n - k < 16 ? n - k : 16;
    int rc = cle_shade_batch(tc->r->g, &w->unit, &sh->vs, &tc->st, GS_STAGE_VERTEX, &w->vidx[k], m);
    if (rc < 0) return cle_prefix(tc->d, rc, "0x%08x: ", at);
    for (unsigned i = 0; i < m; i++)
      pse_vertex_unpack(&w->unit.vpm->words[CLE_VPM_OUT * 16 + i], 16, sh->point_size, (int)sh->nvary,
                        &w->vert[k + i]);
  }
  return GS_OK;
}

/* A clipped primitive's record (49): which vertices it replaces. */
typedef struct clip_info {
  gs_addr record;
  unsigned mask;
} clip_info;

/* Builds vertex k of a clipped primitive from its record: Xs, Ys, Zs and
 * 1/Wc as stored; varyings as the record's weights of the original
 * vertices' (perspective-correct, docs/binning.md), flat ones from the
 * original provoking vertex. */
static int clipped_vertex(tile_ctx *tc, const clip_info *ci, unsigned k, const pse_vertex *const *orig, unsigned n,
                          pse_vertex *out, gs_addr at) {
  uint32_t vals[GS_CL_MAX_FIELDS];
  int rc = gs_cl_decode_record(&tc->r->view, ci->record + k * GS_CL_CLIPPED_VERTEX_SIZE,
                               gs_cl_record_info(GS_CL_REC_CLIPPED_VERTEX), vals, tc->d);
  if (rc < 0) return cle_prefix(tc->d, rc, "0x%08x: CLIPPED_PRIMITIVE: ", at);
  gs_cl_clipped_vertex cv;
  gs_cl_unpack_clipped_vertex(vals, &cv);
  *out = *orig[k];
  out->xs = (int16_t)cv.xs, out->ys = (int16_t)cv.ys;
  out->zs = cv.zs, out->inv_wc = cv.inv_wc;
  const double coef[3] = {cv.coeff0, cv.coeff1, n == 3 ? cv.coeff2 : 0.0};
  const pse_vertex *provoking = orig[tc->pse.provoking_first ? 0 : n - 1];
  for (unsigned i = 0; i < tc->sh.nvary; i++) {
    if (tc->pse.interp[i] == PSE_INTERP_CONSTANT) {
      out->vary[i] = provoking->vary[i];
      continue;
    }
    double s = 0.0;
    for (unsigned j = 0; j < n; j++) s += coef[j] * (double)orig[j]->vary[i];
    out->vary[i] = (float)s;
  }
  return GS_OK;
}

/* Draws prims[0..n) of nv vertices each: shades their distinct vertices
 * together, then sets up and rasterises each in order. */
static int draw_chunk(tile_ctx *tc, const gs_cl_prim *prims, unsigned n, unsigned nv, const clip_info *ci,
                      gs_addr at) {
  cle_worker *w = tc->w;
  unsigned m = 0;
  for (unsigned p = 0; p < n; p++)
    for (unsigned k = 0; k < nv; k++) w->vidx[m++] = prims[p].v[k];
  gs_sort_u32(w->vidx, m);
  unsigned distinct = 0;
  for (unsigned k = 0; k < m; k++)
    if (distinct == 0 || w->vidx[distinct - 1] != w->vidx[k]) w->vidx[distinct++] = w->vidx[k];
  int rc = shade_chunk(tc, distinct, at);
  if (rc < 0) return rc;
  unsigned next = 0;
  for (unsigned p = 0; p < n; p++) {
    const pse_vertex *v[3];
    pse_vertex clipped[3];
    for (unsigned k = 0; k < nv; k++) v[k] = &w->vert[vertex_slot(w, distinct, prims[p].v[k], &next)];
    if (tc->trace) {
      tc->ordinal++;
      for (unsigned k = 0; k < 3; k++) tc->cur_index[k] = k < nv ? prims[p].v[k] : 0;
      tc->cur_clipped = ci != NULL;
    }
    if (ci) {
      const pse_vertex *orig[3] = {v[0], v[1], v[2]};
      for (unsigned k = 0; k < nv; k++) {
        if (!(ci->mask >> k & 1)) continue;
        if ((rc = clipped_vertex(tc, ci, k, orig, nv, &clipped[k], at)) < 0) return rc;
        v[k] = &clipped[k];
      }
    }
    if ((rc = draw_prim(tc, v, nv, at)) < 0) return rc;
  }
  return GS_OK;
}

/* Compressed Primitive List (48) or Clipped Primitive (49): reads the
 * compressed list in chunks and draws them. */
static int draw_compressed(tile_ctx *tc, const gs_cl_packet *p) {
  gs_cl_prim_format fmt = cle_state_fmt(&tc->st);
  int nv = gs_cl_prim_vertices(&fmt, tc->d);
  if (nv < 0) return cle_prefix(tc->d, nv, "0x%08x: %s: ", p->addr, p->info->name);
  if (fmt.type == GS_CL_PRIM_RHTS)
    return cle_error(tc->d, GS_EINVAL, p->addr, "%s: a list of RHTs (PRIMITIVE_LIST_FORMAT type 3) is not modelled by "
                     "gpusim: the reference does not document which pixels an RHT covers", p->info->name);
  if ((fmt.data == GS_CL_DATA_XY) != tc->sh.vg)
    return cle_error(tc->d, GS_EINVAL, p->addr, "%s: a list of %s under %s: XY lists go with a VG shader state (66 "
                     "or 67), index lists with GL or NV", p->info->name, fmt.data == GS_CL_DATA_XY ? "XY coordinates"
                     : "indices", gs_cl_packet_info(tc->sh.id)->name);
  clip_info ci, *cip = NULL;
  if (p->info->id == GS_CL_CLIPPED_PRIMITIVE) {
    gs_cl_clipped_primitive c;
    gs_cl_unpack_clipped_primitive(p->values, &c);
    ci = (clip_info){c.record, c.clip_v0 | c.clip_v1 << 1 | c.clip_v2 << 2};
    cip = &ci;
  }
  gs_cl_prim_reader rdr;
  gs_cl_prim_reader_init(&rdr, &tc->r->view, &fmt, p->tail);
  gs_cl_prim chunk[RENDER_CHUNK];
  while (!rdr.done) {
    unsigned n;
    int rc = gs_cl_prim_read_prims(&rdr, chunk, RENDER_CHUNK, &n, tc->d);
    if (rc < 0) return rc;
    if (n && (rc = draw_chunk(tc, chunk, n, (unsigned)nv, cip, p->addr)) < 0) return rc;
  }
  return GS_OK;
}

/* Draws the primitives of draw d in chunks, vertex k of each being
 * ptb_assemble's index, or with xy the XY word it indexes. */
static int draw_assembled(tile_ctx *tc, const ptb_draw *d, const uint32_t *xy, gs_addr at) {
  unsigned nv = ptb_mode_vertices(d->mode);
  uint32_t total = ptb_prim_count(d->mode, d->count);
  gs_cl_prim chunk[RENDER_CHUNK];
  unsigned n = 0;
  for (uint32_t k = 0; k < total; k++) {
    ptb_assemble(d, k, chunk[n].v);
    if (xy)
      for (unsigned i = 0; i < nv; i++) chunk[n].v[i] = xy[chunk[n].v[i]];
    if (++n == RENDER_CHUNK || k + 1 == total) {
      int rc = draw_chunk(tc, chunk, n, nv, NULL, at);
      if (rc < 0) return rc;
      n = 0;
    }
  }
  return GS_OK;
}

/* A draw record inside a tile, drawn into this tile directly, without
 * binning: Vertex Array Primitives (33) or Indexed Primitive List (32)
 * under a GL or NV shader state, VG Coordinate Array (41) or VG Inline
 * Primitives (42) under a VG one. */
static int draw_direct(tile_ctx *tc, const gs_cl_packet *p) {
  bool vg = p->info->id == GS_CL_VG_COORDINATE_ARRAY_PRIMITIVES || p->info->id == GS_CL_VG_INLINE_PRIMITIVES;
  if (vg != tc->sh.vg)
    return cle_error(tc->d, GS_EINVAL, p->addr, "%s under %s: VG primitives go with a VG shader state (66 or 67), "
                     "GL and NV draws with GL or NV", p->info->name, gs_cl_packet_info(tc->sh.id)->name);
  if (vg) {
    int rc = cle_read_vg(&tc->r->view, p, &tc->w->vg, tc->d);
    return rc < 0 ? rc : draw_assembled(tc, &tc->w->vg.draw, tc->w->vg.xy, p->addr);
  }
  cle_draw dr;
  int rc = cle_read_draw(tc->r->g, p, &dr, tc->d);
  return rc < 0 ? rc : draw_assembled(tc, &dr.draw, NULL, p->addr);
}

/* ---- a tile: loads and stores ------------------------------------------------------ */

/* Moves the buffers store or load p names between the tile buffer and
 * memory: a full-resolution dump (26/27) or a frame buffer (24/25/28/29). */
static int move_buffers(tile_ctx *tc, const gs_cl_packet *p, int to_memory) {
  unsigned buffers = 0;
  tlb_frame f;
  gs_mem *mem = tc->r->g->mem;
  gs_tlb *t = &tc->w->tlb;
  gs_addr full;
  int rc = buffers_of(p, &buffers, tc->d);
  if (rc >= 0 && full_resolution(p, &full)) {
    rc = to_memory ? tlb_store_full(t, mem, full, buffers & 1, buffers & 2, tc->d)
                   : tlb_load_full(t, mem, full, buffers & 1, buffers & 2, tc->d);
  } else {
    if (rc >= 0 && buffers) rc = frame_of(&tc->st, p, &f, tc->d);
    if (rc >= 0 && (buffers & 1))
      rc = to_memory ? tlb_store_colour(t, mem, &f, tc->d) : tlb_load_colour(t, mem, &f, tc->d);
    if (rc >= 0 && (buffers & 2)) rc = to_memory ? tlb_store_zs(t, mem, &f, tc->d) : tlb_load_zs(t, mem, &f, tc->d);
  }
  return rc < 0 ? cle_prefix(tc->d, rc, "0x%08x: %s: ", p->addr, p->info->name) : GS_OK;
}

/* Which buffers store p clears after writing (RG §5): both,
 * unless a 26 or 28 says otherwise. */
static void store_clears(const gs_cl_packet *p, int *colour, int *zs) {
  *colour = *zs = 1;
  if (p->info->id == GS_CL_STORE_FULL_RESOLUTION_TILE_BUFFER) {
    gs_cl_store_full_resolution_tile_buffer s;
    gs_cl_unpack_store_full_resolution_tile_buffer(p->values, &s);
    *colour = *zs = !s.disable_clear;
  }
  if (p->info->id == GS_CL_STORE_TILE_BUFFER_GENERAL) {
    gs_cl_store_tile_buffer_general s;
    gs_cl_unpack_store_tile_buffer_general(p->values, &s);
    *colour = !s.disable_color_clear, *zs = !s.disable_zs_clear;
  }
}

/* A store (24, 25, 26, 28): writes the buffers, then clears what the store
 * does not keep. */
static int store(tile_ctx *tc, const gs_cl_packet *p) {
  int rc = move_buffers(tc, p, 1);
  if (rc < 0) return rc;
  int colour, zs;
  store_clears(p, &colour, &zs);
  gs_tlb *t = &tc->w->tlb;
  tlb_clear(t, colour, zs);
  cle_worker *w = tc->w;
  w->clean = colour && zs;
  w->clean_colour[0] = t->clear_colour[0], w->clean_colour[1] = t->clear_colour[1], w->clean_zs = t->clear_zs;
  w->clean_ms = t->ms, w->clean_color64 = t->color64;
  return GS_OK;
}

/* Whether w's tile buffer already holds what clearing both buffers would
 * write now (the values and mode of tlb_set_clear and tlb_init_for_clear). */
static bool clean_as_cleared(const cle_worker *w) {
  const gs_tlb *t = &w->tlb;
  return w->clean && w->clean_colour[0] == t->clear_colour[0] && w->clean_colour[1] == t->clear_colour[1] &&
         w->clean_zs == t->clear_zs && w->clean_ms == t->ms && w->clean_color64 == t->color64;
}

/* The loads pending at a 115 execute now. */
static int run_loads(tile_ctx *tc) {
  if (tc->npending) tc->w->clean = false;
  for (unsigned i = 0; i < tc->npending; i++) {
    int rc = move_buffers(tc, &tc->pending[i], 0);
    if (rc < 0) return rc;
  }
  tc->npending = 0;
  return GS_OK;
}

/* Applies the Clear Colors record to the tile buffer's clear values. */
static void set_clear_values(tile_ctx *tc) {
  gs_cl_clear_colors c = {0, 0, CLEAR_Z_DEFAULT, 0, 0};
  if (tc->st.item[CLE_CLEAR].version) gs_cl_unpack_clear_colors(tc->st.item[CLE_CLEAR].values, &c);
  tlb_set_clear(&tc->w->tlb, c.color0, c.color1, c.zs, (uint8_t)c.stencil);
}

/* ---- a tile job ---------------------------------------------------------------------- */

static int run_packet(tile_ctx *tc, const gs_cl_packet *p) {
  switch (p->info->id) {
  case GS_CL_TILE_COORDINATES: return run_loads(tc);
  case GS_CL_LOAD_TILE_BUFFER_GENERAL:
  case GS_CL_RELOAD_FULL_RESOLUTION_TILE_BUFFER:
    tc->pending[tc->npending++] = *p; /* at most RENDER_MAX_LOADS: the planner counted */
    return GS_OK;
  case GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER:
  case GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF:
  case GS_CL_STORE_FULL_RESOLUTION_TILE_BUFFER:
  case GS_CL_STORE_TILE_BUFFER_GENERAL: return store(tc, p);
  case GS_CL_COMPRESSED_PRIMITIVE_LIST:
  case GS_CL_CLIPPED_PRIMITIVE:
  case GS_CL_VERTEX_ARRAY_PRIMITIVES:
  case GS_CL_INDEXED_PRIMITIVE_LIST:
  case GS_CL_VG_COORDINATE_ARRAY_PRIMITIVES:
  case GS_CL_VG_INLINE_PRIMITIVES: {
    int direct = p->info->tail != GS_CL_TAIL_PRIMS; /* not 48 or 49 */
    tc->cur_packet = (unsigned)p->info->id;
    tc->w->clean = false;
    int rc = tc->dirty ? derive(tc, p) : GS_OK;
    if (rc >= 0) rc = direct ? draw_direct(tc, p) : draw_compressed(tc, p);
    if (rc < 0) tc->w->fault_record = cle_state_record(&tc->st);
    return rc;
  }
  default:
    if (cle_state_apply(&tc->st, p)) {
      tc->dirty = true;
      if (p->info->id == GS_CL_CLEAR_COLORS) set_clear_values(tc);
    }
    return GS_OK;
  }
}

/* Renders job j on worker w. */
static int run_job(cle_run *r, cle_worker *w, const cle_job *j, tile_ctx *tc) {
  cle_render *rd = r->render;
  memset(tc, 0, sizeof *tc);
  tc->r = r, tc->w = w, tc->d = &w->unit.diag;
  tc->st = rd->snap[j->snap];
  tc->dirty = true;
  tc->x = j->x, tc->y = j->y;
  gs_cl_tile_rendering_mode_configuration c; /* set: a job starts at a 115, which needs 113 */
  gs_cl_unpack_tile_rendering_mode_configuration(tc->st.item[CLE_RENDER_CFG].values, &c);
  /* A buffer of another mode (113 changed its flags) cannot carry over. */
  bool fresh = !j->inherits || w->tlb.ms != (int)c.ms4x || w->tlb.color64 != (int)c.color64;
  if (fresh) tlb_init_for_clear(&w->tlb, (int)c.ms4x, (int)c.color64); /* cleared below */
  set_clear_values(tc);
  if (fresh && !clean_as_cleared(w)) tlb_clear(&w->tlb, 1, 1);
  tlb_begin_tile(&w->tlb, j->x, j->y);
  const gs_trace *t = r->g->trace;
  if (t && gs_trace_wants_tile(t, j->x, j->y, w->tlb.width, w->tlb.height)) {
    tc->trace = t; /* this tile's batches go through the traced port */
    for (int k = 0; k < RENDER_GROUP; k++) w->io[k].tile = &w->slot[k].traced;
  }
  int rc = GS_OK;
  for (uint32_t k = 0; k < j->count && rc >= 0; k++) rc = run_packet(tc, &rd->pk[j->first + k]);
  for (int k = 0; tc->trace && k < RENDER_GROUP; k++) w->io[k].tile = &w->slot[k].port;
  return rc;
}

typedef struct wave_ctx {
  cle_run *r;
  uint32_t base;  /* first job of the wave */
} wave_ctx;

static int job_fn(void *ctx, unsigned index, unsigned worker) {
  wave_ctx *wc = ctx;
  cle_render *rd = wc->r->render;
  cle_worker *w = rd->workers[worker];
  cle_job *j = &rd->jobs[wc->base + index];
  j->worker = (uint8_t)worker;
  tile_ctx tc;
  gs_diag_clear(&w->unit.diag);
  w->fault_record = 0;
  int rc = run_job(wc->r, w, j, &tc);
  if (rc < 0) return cle_prefix(&w->unit.diag, rc, "tile (%u, %u): ", j->x, j->y);
  return GS_OK;
}


/* Points each fragment batch of w at its slot's and batch's arrays and
 * tile port, once: the worker does not move. */
static void worker_init(cle_worker *w) {
  const tlb_port_fns *f = tlb_port_functions(1);
  for (int k = 0; k < RENDER_GROUP; k++) {
    render_slot *s = &w->slot[k];
    pse_batch *b = &w->batch[k];
    s->pc = (port_ctx){{&w->tlb, &s->lanes, NULL}, &w->ts[k], s};
    s->lanes.x = s->x, s->lanes.y = s->y;
    s->port = (gs_tile_port){&s->pc, f->begin, port_stencil_setup, f->z_write, f->colour_write, port_colour_load};
    s->traced = (gs_tile_port){&s->pc, trace_port_begin, port_stencil_setup, trace_port_z_write,
                               trace_port_colour_write, trace_port_colour_load};
    w->ts[k].lane = -1;
    w->io[k] = (gs_frag_io){.lanes = 16, .x = s->x, .y = s->y, .cov = s->cov, .z = b->z, .w = b->w,
                            .plane = (const float (*)[16])b->vp, .offset = b->c, .tile = &s->port};
  }
}

/* Makes sure there are at least n workers (each about 100 KB). Every
 * worker's units are unit 0: a shader reading its unit number, and an error
 * message, must not depend on which host thread rendered the tile. */
static int make_workers(cle_render *rd, unsigned n, gs_diag *d) {
  if (n <= rd->nworkers) return GS_OK;
  cle_worker **w = realloc(rd->workers, n * sizeof *w);
  if (!w) return gs_diag_set(d, GS_ENOMEM, "rendering: host out of memory");
  rd->workers = w;
  for (; rd->nworkers < n; rd->nworkers++) {
    unsigned i = rd->nworkers;
    w[i] = calloc(1, sizeof *w[i]);
    if (!w[i] || cle_unit_init(&w[i]->unit, 0) < 0) {
      free(w[i]);
      return gs_diag_set(d, GS_ENOMEM, "rendering: host out of memory");
    }
    worker_init(w[i]);
  }
  return GS_OK;
}

/* The end of the wave that starts at job i: jobs of one wave render
 * different tiles, so they can run in any order; a tile's second job
 * waits for the next wave. */
static uint32_t wave_end(const cle_render *rd, uint32_t i, uint32_t n, uint8_t *seen) {
  uint32_t j = i;
  for (; j < n; j++) {
    unsigned t = (unsigned)rd->jobs[j].y * 256u + rd->jobs[j].x;
    if (seen[t / 8] >> (t % 8) & 1) break;
    seen[t / 8] |= (uint8_t)(1u << (t % 8));
  }
  for (uint32_t k = i; k < j; k++) {
    unsigned t = (unsigned)rd->jobs[k].y * 256u + rd->jobs[k].x;
    seen[t / 8] &= (uint8_t)~(1u << (t % 8));
  }
  return j;
}

int cle_render_flush(cle_run *r, bool ended) {
  cle_render *rd = r->render;
  gs_diag *d = gs_gpu_diag(r->g);
  if (!rd || rd->njobs == 0) return GS_OK;
  /* While the thread waits inside a tile, that job may still grow. */
  uint32_t n = rd->njobs;
  bool keep_open = rd->open && !ended;
  if (keep_open) n--;
  unsigned threads = r->opt.threads < RENDER_MAX_WORKERS ? r->opt.threads : RENDER_MAX_WORKERS;
  if (threads > n) threads = n ? n : 1;
  /* A job that inherits the tile buffer must run after the job before
   * it, on the same buffer: such lists render in list order on worker 0. */
  bool in_order = false;
  for (uint32_t i = 0; i < n && !in_order; i++) in_order = rd->jobs[i].inherits;
  if (in_order) threads = 1;
  int rc = make_workers(rd, threads > rd->last_worker ? threads : rd->last_worker + 1, d);
  if (rc < 0) return rc;
  if (in_order && rd->jobs[0].inherits && rd->last_worker != 0) {
    rd->workers[0]->tlb = rd->workers[rd->last_worker]->tlb;
    rd->workers[0]->clean = false;
  }
  uint8_t *seen = calloc(256 * 256 / 8, 1);
  if (!seen) return gs_diag_set(d, GS_ENOMEM, "rendering: host out of memory");
  for (uint32_t i = 0; i < n && rc >= 0;) {
    uint32_t j = wave_end(rd, i, n, seen);
    wave_ctx wc = {r, i};
    unsigned fw = 0;
    rc = gs_parallel_for(threads, j - i, job_fn, &wc, &fw);
    if (rc < 0) {
      gs_diag_set(d, rc, "%s", rd->workers[fw]->unit.diag.msg);
      r->g->fault_record = rd->workers[fw]->fault_record;
    }
    i = j;
  }
  free(seen);
  for (unsigned i = 0; i < rd->nworkers; i++) {
    gs_v3d_stats *s = &rd->workers[i]->stats;
    r->stats.vs_vertices += s->vs_vertices, r->stats.prims_drawn += s->prims_drawn;
    r->stats.fs_batches += s->fs_batches, r->stats.fragments += s->fragments;
    memset(s, 0, sizeof *s);
    cle_take_report(r, &rd->workers[i]->unit);
  }
  if (rc < 0) return rc;
  if (n) rd->last_worker = rd->jobs[n - 1].worker;
  /* Forget the rendered jobs; keep the open one. */
  if (keep_open) {
    cle_job j = rd->jobs[n];
    memmove(rd->pk, rd->pk + j.first, j.count * sizeof *rd->pk);
    rd->snap[0] = rd->snap[j.snap];
    rd->jobs[0] = (cle_job){j.x, j.y, 0, j.count, 0, j.inherits, 0};
    rd->njobs = rd->nsnap = 1;
    rd->npk = j.count;
  } else {
    rd->njobs = rd->nsnap = rd->npk = 0;
    rd->open = false;
  }
  return GS_OK;
}
