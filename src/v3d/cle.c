/* cle.c — the control-list executor: the two CLE threads (binning thread 0,
 * rendering thread 1) walking their lists as CT0/CT1 do, with Branch,
 * Branch-to-sub-list/Return, Halt, the semaphores between the threads and
 * a packet budget against loops (RG §9); the state records
 * both threads keep; shader-record decoding; running a vertex or
 * coordinate shader batch (VCD fetch into the VPM input segment, the
 * program's run on its instruction set's unit, output segment). Thread 0's packets go to binning.c, thread
 * 1's to render.c. docs/pipeline.md describes the flow.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/pool.h"
#include "v3d/cle.h"
#include "v3d/trace.h"

#define CLE_DEFAULT_PACKETS (1u << 24)
#define CLE_DEFAULT_DEPTH 2
#define CLE_MAX_DEPTH 16
#define CLE_MAX_SEMAPHORE 7 /* CTnCS.CTSEMA is 3 bits (RG Table 48) */

/* ---- messages ------------------------------------------------------------ */

int cle_error(gs_diag *d, int code, gs_addr at, const char *fmt, ...) {
  char msg[GS_DIAG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return gs_diag_set(d, code, "0x%08x: %s", at, msg);
}

int cle_prefix(gs_diag *d, int code, const char *fmt, ...) {
  char pre[GS_DIAG_MAX], old[GS_DIAG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  snprintf(old, sizeof old, "%s", d->msg);
  return gs_diag_set(d, code, "%s%s", pre, old);
}

/* ---- state records --------------------------------------------------------- */

int cle_item_of(unsigned id) {
  switch (id) {
  case GS_CL_PRIMITIVE_LIST_FORMAT: return CLE_FMT;
  case GS_CL_CONFIGURATION_BITS: return CLE_CFG;
  case GS_CL_FLAT_SHADE_FLAGS: return CLE_FLAT;
  case GS_CL_POINT_SIZE: return CLE_PSIZE;
  case GS_CL_LINE_WIDTH: return CLE_LWIDTH;
  case GS_CL_RHT_X_BOUNDARY: return CLE_RHT;
  case GS_CL_DEPTH_OFFSET: return CLE_DOFFSET;
  case GS_CL_CLIP_WINDOW: return CLE_CLIP;
  case GS_CL_VIEWPORT_OFFSET: return CLE_VIEWPORT;
  case GS_CL_GL_SHADER_STATE:
  case GS_CL_NV_SHADER_STATE:
  case GS_CL_VG_SHADER_STATE:
  case GS_CL_VG_INLINE_SHADER_RECORD: return CLE_SHADER;
  case GS_CL_Z_MIN_MAX_CLIPPING_PLANES: return CLE_ZPLANES;
  case GS_CL_CLIPPER_XY_SCALING: return CLE_XYSCALE;
  case GS_CL_CLIPPER_Z_SCALE_AND_OFFSET: return CLE_ZSCALE;
  case GS_CL_TILE_RENDERING_MODE_CONFIGURATION: return CLE_RENDER_CFG;
  case GS_CL_CLEAR_COLORS: return CLE_CLEAR;
  default: return -1;
  }
}

bool cle_state_set(cle_state *s, int it, unsigned id, const uint32_t *values) {
  cle_item_value *v = &s->item[it];
  const gs_cl_format_info *f = gs_cl_packet_info(id);
  size_t n = f ? f->nfields : 0;
  if (v->version && v->id == id && memcmp(v->values, values, n * sizeof *values) == 0) return false;
  memset(v->values, 0, sizeof v->values);
  memcpy(v->values, values, n * sizeof *values);
  v->id = (uint8_t)id;
  v->version = ++s->clock;
  return true;
}

bool cle_state_apply(cle_state *s, const gs_cl_packet *p) {
  int it = cle_item_of((unsigned)p->info->id);
  return it >= 0 && cle_state_set(s, it, (unsigned)p->info->id, p->values);
}

gs_cl_prim_format cle_state_fmt(const cle_state *s) {
  gs_cl_prim_format f = {0, 0};
  const cle_item_value *v = &s->item[CLE_FMT];
  if (v->version) {
    gs_cl_primitive_list_format p;
    gs_cl_unpack_primitive_list_format(v->values, &p);
    f.type = (uint8_t)p.prim_type;
    f.data = (uint8_t)p.data_type;
  }
  return f;
}

int cle_oversample(const cle_state *s, bool ms_tiles, const gs_cl_packet *draw, unsigned *samples, gs_diag *d) {
  *samples = 1;
  if (!s->item[CLE_CFG].version) return GS_OK;
  gs_cl_configuration_bits c;
  gs_cl_unpack_configuration_bits(s->item[CLE_CFG].values, &c);
  switch (c.oversample) {
  case 0: return GS_OK;
  case 1:
    if (!ms_tiles)
      return cle_error(d, GS_EINVAL, draw->addr, "%s: CONFIGURATION_BITS' rasteriser oversample 4x without 4x "
                       "multisample tiles (bit 0 of records 112/113) is not modelled by gpusim", draw->info->name);
    *samples = 4;
    return GS_OK;
  case 2:
    return cle_error(d, GS_EINVAL, draw->addr, "%s: CONFIGURATION_BITS' rasteriser oversample 16x belongs to coverage "
                     "mode, which is not modelled by gpusim", draw->info->name);
  default:
    return cle_error(d, GS_EINVAL, draw->addr, "%s: CONFIGURATION_BITS' rasteriser oversample 3 is reserved",
                     draw->info->name);
  }
}

/* ---- shader records ------------------------------------------------------ */

/* Rows of a VPM input segment holding `total` bytes per vertex and every
 * attribute (offset + size) of p; at least 1. */
static unsigned input_rows(const cle_program *p, unsigned total) {
  unsigned bytes = total;
  for (unsigned i = 0; i < p->nattrs; i++)
    if (p->attrs[i].vpm_offset + p->attrs[i].size > bytes) bytes = p->attrs[i].vpm_offset + p->attrs[i].size;
  unsigned rows = (bytes + 3) / 4;
  return rows ? rows : 1;
}

/* Checks a shader's code (8-byte) and uniforms (4-byte) alignment. */
static int check_code(gs_diag *d, gs_addr at, const char *rec, const char *which, gs_addr code, gs_addr unif) {
  if (code & 7)
    return cle_error(d, GS_EINVAL, at, "%s: %s code address 0x%08x is not 8-byte aligned", rec, which, code);
  if (unif & 3)
    return cle_error(d, GS_EINVAL, at, "%s: %s uniforms address 0x%08x is not 4-byte aligned", rec, which, unif);
  return GS_OK;
}

/* Reads record r at a, prefixing a fault with the packet address. */
static int read_record(const gs_cl_view *v, gs_addr at, gs_addr a, int r, uint32_t *values, gs_diag *d) {
  int rc = gs_cl_decode_record(v, a, gs_cl_record_info(r), values, d);
  if (rc < 0) return cle_prefix(d, rc, "0x%08x: shader state: ", at);
  return GS_OK;
}

gs_addr cle_state_record(const cle_state *s) {
  const cle_item_value *it = &s->item[CLE_SHADER];
  if (!it->version) return 0;
  if (it->id == GS_CL_GL_SHADER_STATE) {
    gs_cl_gl_shader_state st;
    gs_cl_unpack_gl_shader_state(it->values, &st);
    return st.record;
  }
  if (it->id == GS_CL_NV_SHADER_STATE || it->id == GS_CL_VG_SHADER_STATE) {
    gs_cl_nv_shader_state st; /* 65 and 66 have the same one field */
    gs_cl_unpack_nv_shader_state(it->values, &st);
    return st.record;
  }
  return 0; /* 67 points to no record */
}

gs_addr gs_v3d_fault_record(const gs_gpu *g) { return g->fault_record; }

/* The fragment shader every kind of shader state names: its varyings,
 * code and uniforms, checked (errors name `record` at packet `at`). */
static int fragment_shader(cle_shader *sh, gs_diag *d, gs_addr at, const char *record, unsigned nvary, gs_addr code,
                           gs_addr uniforms) {
  sh->nvary = nvary;
  sh->fs_code = code, sh->fs_uniforms = uniforms;
  return check_code(d, at, record, "fragment shader", code, uniforms);
}

static int decode_gl(const gs_cl_view *v, const cle_item_value *it, gs_addr at, cle_shader *sh, gs_diag *d) {
  gs_cl_gl_shader_state st;
  gs_cl_gl_shader_record rec;
  uint32_t vals[GS_CL_MAX_FIELDS];
  gs_cl_unpack_gl_shader_state(it->values, &st);
  sh->record = st.record;
  int rc = read_record(v, at, st.record, GS_CL_REC_GL_SHADER_RECORD, vals, d);
  if (rc < 0) return rc;
  gs_cl_unpack_gl_shader_record(vals, &rec);
  sh->point_size = rec.point_size, sh->clipping = rec.clipping;
  sh->vs.code = rec.vs_code, sh->vs.uniforms = rec.vs_uniforms, sh->vs.record = st.record;
  sh->cs.code = rec.cs_code, sh->cs.uniforms = rec.cs_uniforms, sh->cs.record = st.record;
  unsigned n = st.attr_arrays ? st.attr_arrays : 8;
  for (unsigned i = 0; i < n; i++) {
    gs_cl_gl_attribute_record a;
    if ((rc = read_record(v, at, st.record + GS_CL_GL_ATTR_OFFSET + 8 * i, GS_CL_REC_GL_ATTRIBUTE_RECORD, vals, d)) < 0)
      return rc;
    gs_cl_unpack_gl_attribute_record(vals, &a);
    uint32_t stride = a.stride;
    if (st.extended) {
      gs_cl_gl_extended_stride x;
      if ((rc = read_record(v, at, st.record + GS_CL_GL_EXT_STRIDE_OFFSET + 4 * i, GS_CL_REC_GL_EXTENDED_STRIDE,
                            vals, d)) < 0)
        return rc;
      gs_cl_unpack_gl_extended_stride(vals, &x);
      stride = (x.stride_word & ~0xffu) | a.stride; /* Linux vc4_validate.c's reading (RG Table 45) */
    }
    if (rec.vs_attr_select >> i & 1)
      sh->vs.attrs[sh->vs.nattrs++] = (vcd_attr){a.base, a.bytes_minus_1 + 1, stride, a.vs_vpm_offset, i};
    if (rec.cs_attr_select >> i & 1)
      sh->cs.attrs[sh->cs.nattrs++] = (vcd_attr){a.base, a.bytes_minus_1 + 1, stride, a.cs_vpm_offset, i};
  }
  sh->vs.in_rows = input_rows(&sh->vs, rec.vs_attr_size);
  sh->cs.in_rows = input_rows(&sh->cs, rec.cs_attr_size);
  sh->vs.point_size = sh->cs.point_size = sh->point_size;
  sh->vs.out_rows = 3 + (sh->point_size ? 1 : 0) + rec.fs_varyings;
  sh->cs.out_rows = 7 + (sh->point_size ? 1 : 0);
  if ((rc = check_code(d, at, "GL_SHADER_RECORD", "vertex shader", rec.vs_code, rec.vs_uniforms)) < 0) return rc;
  if ((rc = check_code(d, at, "GL_SHADER_RECORD", "coordinate shader", rec.cs_code, rec.cs_uniforms)) < 0)
    return rc;
  return fragment_shader(sh, d, at, "GL_SHADER_RECORD", rec.fs_varyings, rec.fs_code, rec.fs_uniforms);
}

static int decode_nv(const gs_cl_view *v, const cle_item_value *it, gs_addr at, cle_shader *sh, gs_diag *d) {
  gs_cl_nv_shader_state st;
  gs_cl_nv_shader_record rec;
  uint32_t vals[GS_CL_MAX_FIELDS];
  gs_cl_unpack_nv_shader_state(it->values, &st);
  sh->record = st.record;
  int rc = read_record(v, at, st.record, GS_CL_REC_NV_SHADER_RECORD, vals, d);
  if (rc < 0) return rc;
  gs_cl_unpack_nv_shader_record(vals, &rec);
  sh->point_size = rec.point_size, sh->clipping = rec.clipping, sh->clip_header = rec.clip_header;
  sh->vertex_data = rec.vertex_data, sh->vertex_stride = rec.vertex_stride;
  return fragment_shader(sh, d, at, "NV_SHADER_RECORD", rec.fs_varyings, rec.fs_code, rec.fs_uniforms);
}

/* VG Shader State (66): the record of RG Table 47. */
static int decode_vg(const gs_cl_view *v, const cle_item_value *it, gs_addr at, cle_shader *sh, gs_diag *d) {
  gs_cl_vg_shader_state st;
  gs_cl_vg_shader_record rec;
  uint32_t vals[GS_CL_MAX_FIELDS];
  gs_cl_unpack_vg_shader_state(it->values, &st);
  sh->record = st.record;
  int rc = read_record(v, at, st.record, GS_CL_REC_VG_SHADER_RECORD, vals, d);
  if (rc < 0) return rc;
  gs_cl_unpack_vg_shader_record(vals, &rec);
  return fragment_shader(sh, d, at, "VG_SHADER_RECORD", rec.fs_varyings, rec.fs_code, rec.fs_uniforms);
}

/* VG Inline Shader Record (67): the fragment shader in the packet itself. */
static int decode_vg_inline(const cle_item_value *it, gs_addr at, cle_shader *sh, gs_diag *d) {
  gs_cl_vg_inline_shader_record st;
  gs_cl_unpack_vg_inline_shader_record(it->values, &st);
  if (st.threading > 1)
    return cle_error(d, GS_EINVAL, at, "VG_INLINE_SHADER_RECORD: threading code %u is reserved (0 dual, 1 single)",
                     st.threading);
  return fragment_shader(sh, d, at, "VG_INLINE_SHADER_RECORD", 0, st.fs_code, st.fs_uniforms);
}

/* The end of the driver-written uniform stream that starts at a (o's list
 * is sorted by address), or 0 when no stream starts there. */
static gs_addr unif_end_of(const gs_v3d_options *o, gs_addr a) {
  size_t lo = 0, hi = o->n_unif_streams;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (o->unif_streams[mid].addr < a) lo = mid + 1;
    else hi = mid;
  }
  if (lo == o->n_unif_streams || o->unif_streams[lo].addr != a) return 0;
  uint64_t end = (uint64_t)a + 4u * (uint64_t)o->unif_streams[lo].words;
  return end > 0xFFFFFFFFu ? 0 : (gs_addr)end;
}

/* The instruction set of the program at code and what its SPH lets it do
 * (everything without a header), from its header. Errors name the draw,
 * the program and the header. */
static int program_info(const gs_mem *m, gs_addr at, const char *what, gs_addr code, const gs_isa **isa,
                        uint32_t *gates, gs_diag *d) {
  gs_program_header h;
  gs_sph sph;
  gs_diag sd;
  int rc = gs_program_header_read(m, code, &h, &sd), has_header = rc > 0;
  *gates = GS_GATE_ALL;
  *isa = gs_isa_by_id(has_header ? h.isa : GS_ISA_NONE); /* the read checked the id */
  if (has_header && (rc = gs_sph_decode(h.sph_words, &sph, &sd)) >= 0) *gates = gs_sph_gates(&sph);
  if (rc < 0) return cle_error(d, rc, at, "%s at 0x%08x: %s", what, code, sd.msg);
  if (!(*isa)->run_vertex)
    return cle_error(d, GS_EINVAL, at, "%s at 0x%08x: %s programs have no shader unit in gpusim's pipeline yet",
                     what, code, (*isa)->title);
  return GS_OK;
}

int cle_shader_decode(const gs_cl_view *v, const gs_v3d_options *o, const cle_item_value *it, gs_addr at,
                      cle_shader *sh, gs_diag *d) {
  memset(sh, 0, sizeof *sh);
  if (!it->version) return cle_error(d, GS_EINVAL, at, "a draw before any shader state (64, 65, 66 or 67)");
  sh->id = it->id;
  sh->vg = it->id == GS_CL_VG_SHADER_STATE || it->id == GS_CL_VG_INLINE_SHADER_RECORD;
  int rc;
  switch (it->id) {
  case GS_CL_GL_SHADER_STATE: rc = decode_gl(v, it, at, sh, d); break;
  case GS_CL_NV_SHADER_STATE: rc = decode_nv(v, it, at, sh, d); break;
  case GS_CL_VG_SHADER_STATE: rc = decode_vg(v, it, at, sh, d); break;
  default: rc = decode_vg_inline(it, at, sh, d); break;
  }
  if (rc < 0) return rc;
  if (sh->nvary > 32)
    return cle_error(d, GS_EINVAL, at, "the shader record at 0x%08x declares %u varyings; at most 32", sh->record,
                     sh->nvary);
  if (sh->vg && sh->nvary)
    return cle_error(d, GS_EINVAL, at, "VG_SHADER_RECORD at 0x%08x declares %u fragment-shader varyings: VG vertices "
                     "are bare XY words (RG Table 47) and the Guide does not document where varying values "
                     "would come from", sh->record, sh->nvary);
  if ((rc = program_info(v->mem, at, "fragment shader", sh->fs_code, &sh->fs_isa, &sh->fs_gates, d)) < 0) return rc;
  if (sh->id == GS_CL_GL_SHADER_STATE &&
      ((rc = program_info(v->mem, at, "vertex shader", sh->vs.code, &sh->vs.isa, &sh->vs.gates, d)) < 0 ||
       (rc = program_info(v->mem, at, "coordinate shader", sh->cs.code, &sh->cs.isa, &sh->cs.gates, d)) < 0))
    return rc;
  if (o->n_unif_streams) {
    sh->fs_unif_end = unif_end_of(o, sh->fs_uniforms);
    if (sh->id == GS_CL_GL_SHADER_STATE) {
      sh->vs.unif_end = unif_end_of(o, sh->vs.uniforms);
      sh->cs.unif_end = unif_end_of(o, sh->cs.uniforms);
    }
  }
  return GS_OK;
}

/* ---- draw records --------------------------------------------------------- */

/* Reads record 32 or 33 into *di; checks the index list. */
const uint8_t *cle_nv_span(gs_mem *m, const cle_shader *sh, uint32_t lo, uint32_t hi, uint32_t bytes) {
  uint64_t a = (uint64_t)sh->vertex_data + (uint64_t)lo * sh->vertex_stride;
  uint64_t len = (uint64_t)(hi - lo) * sh->vertex_stride + bytes;
  if (a > UINT32_MAX || len > UINT32_MAX) return NULL;
  return gs_mem_ptr(m, (gs_addr)a, (uint32_t)len);
}

int cle_read_draw(gs_gpu *g, const gs_cl_packet *p, cle_draw *di, gs_diag *d) {
  memset(di, 0, sizeof *di);
  if (p->info->id == GS_CL_VERTEX_ARRAY_PRIMITIVES) {
    gs_cl_vertex_array_primitives va;
    gs_cl_unpack_vertex_array_primitives(p->values, &va);
    di->draw.mode = (ptb_mode)va.mode;
    di->draw.count = va.length;
    di->draw.first = va.first_index;
    di->lo = va.first_index;
    if (va.length > CLE_MAX_DRAW_VERTICES || (uint64_t)va.first_index + va.length > UINT32_MAX)
      return cle_error(d, GS_EINVAL, p->addr, "VERTEX_ARRAY_PRIMITIVES: %u vertices from %u: at most %u per draw",
                       va.length, va.first_index, CLE_MAX_DRAW_VERTICES);
    di->hi = va.length ? va.first_index + va.length - 1 : va.first_index;
  } else {
    gs_cl_indexed_primitive_list ip;
    gs_cl_unpack_indexed_primitive_list(p->values, &ip);
    if (ip.index_type > 1)
      return cle_error(d, GS_EINVAL, p->addr, "INDEXED_PRIMITIVE_LIST: index type %u (0 8-bit, 1 16-bit)",
                       ip.index_type);
    unsigned size = ip.index_type ? 2 : 1;
    if (ip.length > CLE_MAX_DRAW_VERTICES)
      return cle_error(d, GS_EINVAL, p->addr, "INDEXED_PRIMITIVE_LIST: %u indices: at most %u per draw", ip.length,
                       CLE_MAX_DRAW_VERTICES);
    const uint8_t *idx = ip.length ? gs_mem_ptr(g->mem, ip.address, ip.length * size) : NULL;
    if (ip.length && !idx)
      return cle_error(d, GS_EFAULT, p->addr, "INDEXED_PRIMITIVE_LIST: the %u indices at 0x%08x are outside allocated "
                       "GPU memory", ip.length, ip.address);
    di->indexed = true;
    di->draw.mode = (ptb_mode)ip.mode;
    di->draw.index_type = size == 2 ? PTB_INDEX_16 : PTB_INDEX_8;
    di->draw.indices = idx;
    di->draw.count = ip.length;
    di->lo = UINT32_MAX;
    for (uint32_t i = 0; i < ip.length; i++) {
      uint32_t v = size == 2 ? (uint32_t)idx[2 * i] | (uint32_t)idx[2 * i + 1] << 8 : idx[i];
      if (v > ip.max_index)
        return cle_error(d, GS_EINVAL, p->addr, "INDEXED_PRIMITIVE_LIST: index %u at 0x%08x exceeds max_index %u", v,
                         ip.address + i * size, ip.max_index);
      di->lo = v < di->lo ? v : di->lo;
      di->hi = v > di->hi ? v : di->hi;
    }
    if (!ip.length) di->lo = 0;
  }
  if (di->draw.mode > PTB_TRIANGLE_FAN)
    return cle_error(d, GS_EINVAL, p->addr, "%s: primitive mode %u (0..6)", p->info->name, (unsigned)di->draw.mode);
  return GS_OK;
}

/* Vertices of `prims` VG primitives of mode m: three per triangle, the
 * first two and one per triangle for strips and fans; 0 for none. */
static uint64_t vg_vertices(ptb_mode m, uint32_t prims) {
  if (prims == 0) return 0;
  return m == PTB_TRIANGLES ? 3 * (uint64_t)prims : (uint64_t)prims + 2;
}

/* Checks 41/42's type and continuation bits: triangles, strips and fans
 * are GL's modes 4..6; the rest is not documented enough to draw. */
static int vg_mode(const gs_cl_packet *p, uint32_t type, uint32_t continuation, ptb_mode *m, gs_diag *d) {
  if (type == 1 || type == 3)
    return cle_error(d, GS_EINVAL, p->addr, "%s: type %u (%s) is not modelled by gpusim: the reference names "
                     "rectangle-height triangles (RHTs) and their X boundary record (100) but does not document which "
                     "pixels an RHT covers", p->info->name, type, type == 1 ? "RHTs" : "RHT strip");
  if (type < 4 || type > 6)
    return cle_error(d, GS_EINVAL, p->addr, "%s: type %u is reserved (4 triangles, 5 strip, 6 fan)", p->info->name,
                     type);
  if (continuation)
    return cle_error(d, GS_EINVAL, p->addr, "%s: continuation bits 0x%x: the reference does not document what they "
                     "continue", p->info->name, continuation);
  *m = (ptb_mode)type;
  return GS_OK;
}

/* Makes vd->xy hold n words. */
static int vg_reserve(cle_vg_draw *vd, uint64_t n, const gs_cl_packet *p, gs_diag *d) {
  if (n > CLE_MAX_DRAW_VERTICES)
    return cle_error(d, GS_EINVAL, p->addr, "%s: %llu vertices: at most %u per draw", p->info->name,
                     (unsigned long long)n, CLE_MAX_DRAW_VERTICES);
  if (n <= vd->cap) return GS_OK;
  uint32_t *q = realloc(vd->xy, (size_t)n * sizeof *q);
  if (!q) return gs_diag_set(d, GS_ENOMEM, "host out of memory");
  vd->xy = q, vd->cap = (uint32_t)n;
  return GS_OK;
}

static uint32_t le32(const uint8_t *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int cle_read_vg(const gs_cl_view *v, const gs_cl_packet *p, cle_vg_draw *vd, gs_diag *d) {
  memset(&vd->draw, 0, sizeof vd->draw);
  uint32_t n = 0;
  int rc;
  if (p->info->id == GS_CL_VG_COORDINATE_ARRAY_PRIMITIVES) {
    gs_cl_vg_coordinate_array_primitives va;
    gs_cl_unpack_vg_coordinate_array_primitives(p->values, &va);
    if ((rc = vg_mode(p, va.type, va.continuation, &vd->draw.mode, d)) < 0) return rc;
    uint64_t words = vg_vertices(vd->draw.mode, va.length);
    if ((rc = vg_reserve(vd, words, p, d)) < 0) return rc;
    const uint8_t *src = words ? gs_cl_view_ptr(v, va.address, (uint32_t)words * 4) : NULL;
    if (words && !src)
      return cle_error(d, GS_EFAULT, p->addr, "%s: the %llu XY words at 0x%08x are outside allocated GPU memory",
                       p->info->name, (unsigned long long)words, va.address);
    for (n = 0; n < words; n++) vd->xy[n] = le32(src + 4 * n);
  } else {
    gs_cl_vg_inline_primitives vi;
    gs_cl_unpack_vg_inline_primitives(p->values, &vi);
    if ((rc = vg_mode(p, vi.type, vi.continuation, &vd->draw.mode, d)) < 0) return rc;
    /* The decoder found the escape: the words run from the tail to it. */
    if ((rc = vg_reserve(vd, (p->next - p->tail) / 4, p, d)) < 0) return rc;
    for (gs_addr a = p->tail; a + 4 < p->next; a += 4) {
      uint32_t w = le32(gs_cl_view_ptr(v, a, 4));
      if (w != GS_CL_VG_PADDING) vd->xy[n++] = w;
    }
  }
  vd->draw.index_type = PTB_INDEX_NONE;
  vd->draw.count = n; /* vertex i is XY word i; an incomplete last triangle is dropped as for 33 */
  return GS_OK;
}

/* ---- shading a batch ---------------------------------------------------------- */

void cle_take_report(cle_run *r, cle_unit *u) {
  gs_isa_report into = {r->stats.exceptions, {0}};
  memcpy(into.first, r->stats.exception, sizeof into.first);
  gs_isa_report_merge(&into, &u->report);
  r->stats.exceptions = into.exceptions;
  memcpy(r->stats.exception, into.first, sizeof r->stats.exception);
}

int cle_unit_init(cle_unit *u, int num) {
  memset(u, 0, sizeof *u);
  u->num = num;
  u->vpm = calloc(1, sizeof *u->vpm);
  return u->vpm ? GS_OK : GS_ENOMEM;
}

void cle_unit_free(cle_unit *u) {
  for (unsigned id = 0; id < GS_ISA_IDS; id++)
    if (u->unit[id]) gs_isa_by_id(id)->unit_free(u->unit[id]);
  free(u->vpm);
  memset(u, 0, sizeof *u);
}

gs_isa_unit *cle_unit_of(gs_gpu *g, cle_unit *u, const gs_isa *isa) {
  if (!u->unit[isa->id] && !(u->unit[isa->id] = isa->unit_new(g, u->num, u->vpm, &u->diag)))
    gs_diag_set(&u->diag, GS_ENOMEM, "out of memory for a %s unit", isa->title);
  return u->unit[isa->id];
}

void cle_viewport(const cle_state *s, float vp[4]) {
  const cle_item_value *it = s->item;
  vp[0] = vp[1] = 0, vp[2] = vp[3] = 0.5f;
  if (it[CLE_XYSCALE].version) {
    gs_cl_clipper_xy_scaling x;
    gs_cl_unpack_clipper_xy_scaling(it[CLE_XYSCALE].values, &x);
    vp[0] = x.half_width, vp[1] = x.half_height;
  }
  if (it[CLE_ZSCALE].version) {
    gs_cl_clipper_z_scale_and_offset z;
    gs_cl_unpack_clipper_z_scale_and_offset(it[CLE_ZSCALE].values, &z);
    vp[2] = z.scale, vp[3] = z.offset;
  }
}

bool cle_tile_list_item(int it, const cle_shader *sh) {
  if (it != CLE_XYSCALE && it != CLE_ZSCALE) return true;
  return sh->id == GS_CL_GL_SHADER_STATE && sh->vs.isa && sh->vs.isa->transforms_vertices;
}

int cle_shade_batch(gs_gpu *g, cle_unit *u, const cle_program *p, const cle_state *st, gs_stage stage,
                    const uint32_t *idx, unsigned n) {
  const char *what = stage == GS_STAGE_COORDINATE ? "coordinate shader" : "vertex shader";
  /* Both segments start zeroed, so what a shader reads or leaves unwritten
   * never depends on earlier batches (or on the thread count). */
  memset(&u->vpm->words[CLE_VPM_IN * 16], 0, p->in_rows * 16 * sizeof(uint32_t));
  memset(&u->vpm->words[CLE_VPM_OUT * 16], 0, p->out_rows * 16 * sizeof(uint32_t));
  int rc = p->isa->fetches_attributes ? GS_OK : vcd_fetch(g, u->vpm, CLE_VPM_IN, p->attrs, p->nattrs, idx, n, &u->diag);
  if (rc < 0) return cle_prefix(&u->diag, rc, "%s attribute fetch (GL shader record 0x%08x): ", what, p->record);
  gs_isa_unit *iu = cle_unit_of(g, u, p->isa);
  gs_vertex_io io = {stage,       {p->code, p->uniforms, p->unif_end}, p->gates, &u->report, u->vpm, CLE_VPM_IN,
                     p->in_rows, CLE_VPM_OUT, p->out_rows, n, {0}, p->point_size, idx, p->attrs, p->nattrs};
  if (p->isa->transforms_vertices) cle_viewport(st, io.viewport); /* only such units read it */
  rc = iu ? p->isa->run_vertex(g, iu, &io) : GS_ENOMEM;
  if (rc < 0) return cle_prefix(&u->diag, rc, "%s at 0x%08x (uniforms 0x%08x): ", what, p->code, p->uniforms);
  return GS_OK;
}

/* ---- the two threads ---------------------------------------------------------- */

enum { TH_RUNNING, TH_BLOCKED, TH_ENDED };

typedef struct cle_thread {
  int index;                      /* 0 binning, 1 rendering */
  gs_addr cur, end;               /* CTnCA, CTnEA */
  gs_addr stack[CLE_MAX_DEPTH];   /* return addresses of open sub-lists */
  int depth;
  uint64_t packets;
  unsigned sem;                   /* increments the other thread made */
  int status;
} cle_thread;

static const char *const thread_names[2] = {"binning", "rendering"};

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The GS_TRACE_PACKET event of packet p of thread `list`. */
static void trace_packet(const gs_trace *t, unsigned list, const gs_cl_packet *p) {
  gs_trace_event e = {.kind = GS_TRACE_PACKET, .list = list, .addr = p->addr, .packet = (unsigned)p->info->id,
                      .lane = -1};
  gs_trace_emit(t, &e);
}

/* Executes the control-flow packets itself; hands the others to the
 * thread's unit. Returns GS_OK (p handled, th->cur set) or an error. */
static int exec_packet(cle_run *r, cle_thread *th, cle_thread *other, const gs_cl_packet *p, gs_diag *d) {
  gs_cl_branch br;
  if (r->g->trace) trace_packet(r->g->trace, th->index, p);
  th->cur = p->next;
  switch (p->info->id) {
  case GS_CL_HALT:
    th->status = TH_ENDED;
    return GS_OK;
  case GS_CL_NOP:
    return GS_OK;
  case GS_CL_BRANCH:
    gs_cl_unpack_branch(p->values, &br);
    th->cur = br.address;
    return GS_OK;
  case GS_CL_BRANCH_TO_SUB_LIST:
    if (th->depth >= r->opt.max_depth)
      return cle_error(d, GS_EINVAL, p->addr, "BRANCH_TO_SUB_LIST nests sub-lists deeper than %d levels",
                       r->opt.max_depth);
    gs_cl_unpack_branch(p->values, &br);
    th->stack[th->depth++] = p->next;
    th->cur = br.address;
    return GS_OK;
  case GS_CL_RETURN_FROM_SUB_LIST:
    if (th->depth > 0) th->cur = th->stack[--th->depth]; /* ignored with no sub-list open (RG) */
    return GS_OK;
  case GS_CL_INCREMENT_SEMAPHORE:
    if (other->sem >= CLE_MAX_SEMAPHORE)
      return cle_error(d, GS_EINVAL, p->addr, "INCREMENT_SEMAPHORE: the %s thread's semaphore already counts %d "
                       "(the 3-bit counter would overflow)", thread_names[other->index], CLE_MAX_SEMAPHORE);
    other->sem++;
    return GS_OK;
  case GS_CL_WAIT_ON_SEMAPHORE:
    if (th->sem == 0) {
      th->cur = p->addr; /* blocked: the packet runs again when resumed */
      th->status = TH_BLOCKED;
      return GS_OK;
    }
    th->sem--;
    return GS_OK;
  default:
    return th->index ? cle_render_packet(r, p) : cle_bin_packet(r, p);
  }
}

/* Runs thread th until it ends, halts or waits on its semaphore. */
static int run_thread(cle_run *r, cle_thread *th, cle_thread *other, gs_diag *d) {
  unsigned mode = th->index ? GS_CL_MODE_R : GS_CL_MODE_B;
  th->status = TH_RUNNING;
  while (th->status == TH_RUNNING) {
    if (th->depth == 0 && th->cur == th->end) {
      th->status = TH_ENDED;
      break;
    }
    if (th->packets >= r->opt.max_packets)
      return cle_error(d, GS_EINVAL, th->cur, "more than %u packets without reaching the end 0x%08x (a loop?)",
                       r->opt.max_packets, th->end);
    const uint8_t *b = gs_cl_view_ptr(&r->view, th->cur, 1);
    const gs_cl_format_info *f = b ? gs_cl_packet_info(b[0]) : NULL;
    if (f && !(f->mode & mode))
      return cle_error(d, GS_EINVAL, th->cur, "%s (%d) is a %s-list packet", f->name, f->id,
                       f->mode == GS_CL_MODE_B ? "binning" : "rendering");
    gs_cl_prim_format fmt = th->index ? cle_render_fmt(r) : cle_bin_fmt(r);
    gs_cl_packet p;
    int rc = gs_cl_decode(&r->view, th->cur, &fmt, th->depth == 0 && th->cur < th->end ? th->end : 0, &p, d);
    if (rc < 0) return rc;
    gs_addr here = th->cur;
    if ((rc = exec_packet(r, th, other, &p, d)) < 0) return rc;
    if (th->status != TH_BLOCKED || th->cur != here) {
      th->packets++;
      r->stats.packets[th->index]++;
    }
  }
  return GS_OK;
}

/* Runs both threads to their ends, thread 0 first; a thread that waits
 * on its semaphore lets the other run. Tiles recorded by thread 1 are
 * rendered whenever it stops, before thread 0 continues. */
static int run_threads(cle_run *r, cle_thread th[2], gs_diag *d) {
  for (;;) {
    int progress = 0;
    for (int t = 0; t < 2; t++) {
      if (th[t].status == TH_ENDED) continue;
      uint64_t before = th[t].packets;
      double t0 = now_seconds();
      int rc = run_thread(r, &th[t], &th[1 - t], d);
      if (rc >= 0 && t == 1) rc = cle_render_flush(r, th[1].status == TH_ENDED);
      if (rc >= 0 && t == 0 && th[0].status == TH_ENDED) rc = cle_bin_end(r);
      double dt = now_seconds() - t0;
      if (t == 0) r->stats.bin_seconds += dt;
      else r->stats.render_seconds += dt;
      if (rc < 0) return cle_prefix(d, rc, "%s list: ", thread_names[t]);
      if (th[t].packets != before || th[t].status == TH_ENDED) progress = 1;
    }
    if (th[0].status == TH_ENDED && th[1].status == TH_ENDED) return GS_OK;
    if (!progress) {
      if (th[0].status == TH_BLOCKED && th[1].status == TH_BLOCKED)
        return gs_diag_set(d, GS_EDEADLOCK,
                           "both control-list threads wait on their semaphores: binning at 0x%08x, rendering at "
                           "0x%08x",
                           th[0].cur, th[1].cur);
      int t = th[0].status == TH_BLOCKED ? 0 : 1;
      return gs_diag_set(d, GS_EDEADLOCK,
                         "%s list: 0x%08x: WAIT_ON_SEMAPHORE waits forever: the %s thread has ended without "
                         "incrementing it",
                         thread_names[t], th[t].cur, thread_names[1 - t]);
    }
  }
}

int gs_v3d_run_stats(gs_gpu *g, gs_addr bin_start, gs_addr bin_end, gs_addr render_start, gs_addr render_end,
                     const gs_v3d_options *opt, gs_v3d_stats *stats) {
  gs_diag *d = gs_gpu_diag(g);
  gs_diag_clear(d);
  g->fault_record = 0;
  cle_run r;
  memset(&r, 0, sizeof r);
  r.g = g;
  r.view.mem = g->mem;
  if (opt) r.opt = *opt;
  if (r.opt.threads == 0) r.opt.threads = gs_cpu_count();
  if (r.opt.max_packets == 0) r.opt.max_packets = CLE_DEFAULT_PACKETS;
  if (r.opt.max_depth <= 0) r.opt.max_depth = CLE_DEFAULT_DEPTH;
  if (r.opt.max_depth > CLE_MAX_DEPTH) r.opt.max_depth = CLE_MAX_DEPTH;
  if (r.opt.n_unif_streams && !r.opt.unif_streams)
    return gs_diag_set(d, GS_EARG, "v3d.run: %u unif_streams entries but no array", r.opt.n_unif_streams);
  for (unsigned i = 1; i < r.opt.n_unif_streams; i++)
    if (r.opt.unif_streams[i].addr <= r.opt.unif_streams[i - 1].addr)
      return gs_diag_set(d, GS_EARG, "v3d.run: unif_streams are not sorted by address (entry %u, 0x%08x)", i,
                         r.opt.unif_streams[i].addr);
  cle_thread th[2];
  memset(th, 0, sizeof th);
  th[0] = (cle_thread){.index = 0, .cur = bin_start, .end = bin_end};
  th[1] = (cle_thread){.index = 1, .cur = render_start, .end = render_end};
  int rc = run_threads(&r, th, d);
  cle_bin_free(&r);
  cle_render_free(&r);
  for (unsigned i = 0; gs_isa_at(i); i++) /* no unit runs now */
    if (gs_isa_at(i)->idle) gs_isa_at(i)->idle(g);
  if (stats) *stats = r.stats;
  return rc;
}

int gs_v3d_run(gs_gpu *g, gs_addr bin_start, gs_addr bin_end, gs_addr render_start, gs_addr render_end,
               const gs_v3d_options *opt) {
  return gs_v3d_run_stats(g, bin_start, bin_end, render_start, render_end, opt, NULL);
}
