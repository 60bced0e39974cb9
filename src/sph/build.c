/* build.c — an SPH from a program's declaration (gpusim/sph.h,
 * gs_sph_build). Programs of ISAs without a header of their own (QPU,
 * PICA200, AGX) get theirs here, so the pipeline links every stage the same
 * way (docs/sph.md).
 *
 * The choices (SassVersion 0, the StoreReq "no range" encoding, PositionW
 * always mapped in a PS, DoesLoadOrStore with local memory) are those of the
 * headers NVIDIA's compiler (its Maxwell shaders in open-gpu-kernel-modules)
 * and nouveau (nvc0_program.c) write.
 */
#include <string.h>
#include "gpusim/sph.h"
#include "sph/table.h"

static const char *const stage_names[] = {
    "", "vertex", "tessellation init", "tessellation", "geometry", "pixel"};

/* Enters one component (address 4k) of a declared vector into the IMAP or
 * OMAP of *s. `what`/`index` name the declaration in messages. */
static int declare_component(gs_sph *s, int map, const gs_sph_io *io, unsigned k,
                             const char *what, size_t index, gs_diag *d) {
  int layout = sph_layout(s->sph_type);
  unsigned elem, want;
  uint32_t have;
  char name[64];
  const sph_field *f = sph_find_map(layout, map, k, &elem);
  if (!f)
    return gs_diag_set(d, GS_EARG, "SPH build: %s %zu: a %s shader has no %s entry for the "
                       "component at 0x%03x", what, index, stage_names[s->shader_type],
                       map == SPH_MAP_IMAP ? "IMAP" : "OMAP", 4 * k);
  sph_element_name(f, layout, elem, name, sizeof name);
  if (f->at[layout].width == 2) { /* a PS input with a PixelImap */
    if (io->interp < GS_PIXEL_IMAP_CONSTANT || io->interp > GS_PIXEL_IMAP_SCREEN_LINEAR)
      return gs_diag_set(d, GS_EARG, "SPH build: %s %zu (0x%03x, %s): a pixel shader input needs "
                         "an interpolation mode: Constant, Perspective or ScreenLinear", what,
                         index, 4 * k, name);
    want = (unsigned)io->interp;
  } else {
    if (io->interp != GS_PIXEL_IMAP_UNUSED)
      return gs_diag_set(d, GS_EARG, "SPH build: %s %zu (0x%03x, %s) takes no interpolation mode",
                         what, index, 4 * k, name);
    want = 1;
  }
  have = sph_field_get(s, f, elem);
  if (have && have != want)
    return gs_diag_set(d, GS_EARG, "SPH build: %s %zu (0x%03x, %s) is declared twice with "
                       "different interpolation modes", what, index, 4 * k, name);
  sph_field_set(s, f, elem, want);
  return GS_OK;
}

/* Enters every declared vector of a list into the IMAP or OMAP of *s. */
static int declare_list(gs_sph *s, int map, const gs_sph_io *list, size_t n, const char *what,
                        gs_diag *d) {
  size_t i;
  for (i = 0; i < n; i++) {
    const gs_sph_io *io = &list[i];
    unsigned c;
    int rc;
    if (io->mask & ~0xFu)
      return gs_diag_set(d, GS_EARG, "SPH build: %s %zu: component mask 0x%x is not within 0xf",
                         what, i, io->mask);
    if (io->attr & 3)
      return gs_diag_set(d, GS_EARG, "SPH build: %s %zu: attribute address 0x%03x is not a "
                         "multiple of 4", what, i, io->attr);
    for (c = 0; c < 4; c++) {
      unsigned k = io->attr / 4 + c;
      if (!(io->mask >> c & 1)) continue;
      if (k >= GS_SPH_ATTR_COUNT)
        return gs_diag_set(d, GS_EARG, "SPH build: %s %zu: component at 0x%x is beyond the "
                           "attribute space (0x000-0x3FC)", what, i, 4 * k);
      if ((rc = declare_component(s, map, io, k, what, i, d)) < 0) return rc;
    }
  }
  return GS_OK;
}

/* The parts of a declaration only one kind of stage may have. */
static int check_stage_parts(const gs_sph_decl *decl, gs_diag *d) {
  const unsigned ps_flags = GS_SPH_KILLS_PIXELS | GS_SPH_MRT_ENABLE | GS_SPH_OMAP_DEPTH |
                            GS_SPH_OMAP_SAMPLE_MASK;
  if (decl->stage == GS_SPH_PIXEL) {
    if (decl->n_outputs)
      return gs_diag_set(d, GS_EARG, "SPH build: a pixel shader declares render targets, depth "
                         "and sample mask, not attribute outputs");
    return GS_OK;
  }
  if (decl->flags & ps_flags)
    return gs_diag_set(d, GS_EARG, "SPH build: KillsPixels, MrtEnable, OmapDepth and "
                       "OmapSampleMask belong to pixel shaders, not to a %s shader",
                       stage_names[decl->stage]);
  if (decl->render_targets)
    return gs_diag_set(d, GS_EARG, "SPH build: render targets belong to pixel shaders, not to a "
                       "%s shader", stage_names[decl->stage]);
  return GS_OK;
}

void gs_sph_set_flags(gs_sph *s, unsigned flags) {
  if (flags & GS_SPH_DOES_GLOBAL_STORE) s->does_global_store = 1;
  if (flags & GS_SPH_DOES_LOAD_OR_STORE) s->does_load_or_store = 1;
  if (flags & GS_SPH_DOES_FP64) s->does_fp64 = 1;
  if (s->sph_type != GS_SPH_TYPE_PS) return;
  if (flags & GS_SPH_MRT_ENABLE) s->mrt_enable = 1;
  if (flags & GS_SPH_KILLS_PIXELS) s->kills_pixels = 1;
  if (flags & GS_SPH_OMAP_DEPTH) s->omap_depth = 1;
  if (flags & GS_SPH_OMAP_SAMPLE_MASK) s->omap_sample_mask = 1;
}

/* Words 0-4 from the stage, the flags and the numbers of the declaration. */
static void build_common(const gs_sph_decl *decl, gs_sph *s) {
  gs_sph_stage st = decl->stage;
  s->sph_type = st == GS_SPH_PIXEL ? GS_SPH_TYPE_PS : GS_SPH_TYPE_VTG;
  s->version = GS_SPH_VERSION;
  s->shader_type = (uint32_t)st;
  /* local memory without loads and stores would be dropped (NVIDIA's SPH
   * description) */
  gs_sph_set_flags(s, decl->flags | (decl->local_memory_size ? GS_SPH_DOES_LOAD_OR_STORE : 0));
  s->stream_out_mask = decl->stream_out_mask;
  s->shader_local_memory_low_size = decl->local_memory_size;
  s->per_patch_attribute_count = decl->per_patch_attribute_count;
  s->threads_per_input_primitive = decl->threads_per_input_primitive;
  s->shader_local_memory_crs_size = decl->crs_size;
  s->output_topology = decl->output_topology;
  s->max_output_vertex_count = decl->max_output_vertex_count;
  if (st == GS_SPH_VERTEX || st == GS_SPH_TESSELLATION_INIT || st == GS_SPH_TESSELLATION) {
    s->store_req_start = 0xFF; /* Start > End: no attribute can be read back */
    s->store_req_end = 0;
  }
}

/* The outputs of a PS: render targets, depth, sample mask. */
static void build_ps_outputs(const gs_sph_decl *decl, gs_sph *s) {
  unsigned b;
  for (b = 0; b < 32; b++)
    if (decl->render_targets >> b & 1) s->omap_target[b / 4][b % 4] = 1;
  s->imap_position[3] = 1; /* required: the hardware traps without it */
}

int gs_sph_build(const gs_sph_decl *decl, gs_sph *out, gs_diag *d) {
  int rc;
  memset(out, 0, sizeof *out);
  if (!decl || decl->stage < GS_SPH_VERTEX || decl->stage > GS_SPH_PIXEL)
    return gs_diag_set(d, GS_EARG, "SPH build: stage %d is not 1 (vertex) to 5 (pixel)",
                       decl ? (int)decl->stage : -1);
  if ((decl->n_inputs && !decl->inputs) || (decl->n_outputs && !decl->outputs))
    return gs_diag_set(d, GS_EARG, "SPH build: a list with a count has no entries (NULL)");
  if ((rc = check_stage_parts(decl, d)) < 0) return rc;
  build_common(decl, out);
  if ((rc = declare_list(out, SPH_MAP_IMAP, decl->inputs, decl->n_inputs, "input", d)) < 0 ||
      (rc = declare_list(out, SPH_MAP_OMAP, decl->outputs, decl->n_outputs, "output", d)) < 0)
    goto fail;
  if (decl->stage == GS_SPH_PIXEL) build_ps_outputs(decl, out);
  if ((rc = gs_sph_validate(out, d)) < 0) goto fail;
  return GS_OK;
fail:
  memset(out, 0, sizeof *out);
  return rc;
}
