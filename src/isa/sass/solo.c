/* solo.c — one SASS program run alone (solo.h). */
#include <stdlib.h>
#include <string.h>
#include "isa/sass/num.h"
#include "isa/sass/solo.h"
#include "isa/sass/table.h"
#include "v3d/v3d.h"

int sass_program_init(sass_program *p, const uint8_t *code, size_t size, const gs_sph *sph, gs_diag *d) {
  memset(p, 0, sizeof *p);
  if (size == 0) return gs_diag_set(d, GS_EINVAL, "a SASS program needs at least one 32-byte group of code");
  int rc = sass_decode_program(code, size, &p->insn, &p->n, d);
  if (rc < 0) return rc;
  p->size = (uint32_t)size;
  if (sph) p->sph = *sph, p->has_sph = 1;

  return GS_OK;
}

void sass_program_free(sass_program *p) {
  free(p->insn);
  memset(p, 0, sizeof *p);
}

/* The gates of the program (all for a program without an SPH). */
static uint32_t gates_of(const sass_program *p) { return p->has_sph ? gs_sph_gates(&p->sph) : GS_GATE_ALL; }

/* Runs s's warp through the interpreter s asks for. */
static int run_warp(sass_solo *s, const sass_io *io, const char *what, gs_diag *d) {
  uint64_t budget = s->budget ? s->budget : GS_DEFAULT_WATCHDOG;
  if (s->interpreter == GS_INTERP_REFERENCE) return sass_run_ref(&s->warp, s->prog, io, budget, what, d);
  sass_fast *f = sass_prepare_fast(s->prog, d);
  if (!f) return d->code;
  int rc = sass_run_fast(&s->warp, f, io, budget, what, d);
  sass_fast_free(f);
  return rc;
}

static int run_vertex(sass_solo *s, sass_io *io, gs_diag *d) {
  const gs_sph *sph = &s->prog->sph;
  sass_attr_ctx ac;
  sass_attr_io lane_attr[SASS_LANES];
  int rc = sass_attr_ctx_init(&ac, (gs_sph_stage)sph->shader_type, sph, NULL, NULL, d);
  if (rc < 0) return rc;
  for (unsigned l = 0; l < s->lanes; l++) {
    sass_attr_buf_clear(&s->lane[l].out, 0);
    lane_attr[l] = (sass_attr_io){&s->lane[l].in, 1, &s->lane[l].out, 1, NULL, NULL};
  }
  io->attr = &ac;
  io->lane_attr = lane_attr;
  uint32_t local_size = sph->shader_local_memory_low_size;
  uint8_t *local = local_size ? calloc(SASS_LANES, local_size) : NULL;
  if (local_size && !local) return gs_diag_set(d, GS_ENOMEM, "out of memory for %u bytes of local memory per lane", local_size);
  sass_warp_start(&s->warp, sass_program_nregs(s->prog), s->lanes == 32 ? 0xffffffffu : (1u << s->lanes) - 1, 8, local, local_size);
  rc = run_warp(s, io, "vertex program", d);
  free(local);
  s->warp.local = NULL;
  return rc;
}

static int run_pixel(sass_solo *s, sass_io *io, gs_diag *d) {
  const gs_sph *sph = &s->prog->sph;
  sass_ipa_map map;
  uint8_t mode[32];
  uint16_t addr[32];
  unsigned nin = 0;
  int rc;
  if ((rc = sass_ipa_map_init(&map, sph, d)) < 0 || (rc = gs_sph_varying_modes(sph, mode, addr, &nin, d)) < 0 ||
      (rc = sass_ps_out_init(&s->out_map, sph, 1, d)) < 0)
    return rc;
  /* two blocks of 16 lanes, as the pipeline hands them */
  struct block {
    uint32_t x[16], y[16], cov[16], z[16];
    float w[16], plane[32][16], offset[32];
    gs_frag_io io;
  } *b = calloc(2, sizeof *b);
  if (!b) return gs_diag_set(d, GS_ENOMEM, "out of memory");
  for (unsigned l = 0; l < s->lanes; l++) {
    struct block *k = &b[l / 16];
    const sass_solo_lane *ln = &s->lane[l];
    unsigned i = l % 16;
    float w = ln->w != 0 ? ln->w : 1.0f;
    k->x[i] = ln->x, k->y[i] = ln->y, k->cov[i] = 1;
    double z = ln->z < 0 ? 0 : ln->z > 1 ? 1 : ln->z;
    k->z[i] = (uint32_t)(z * 16777215.0 + 0.5);
    k->w[i] = w;
    for (unsigned c = 0; c < nin; c++) {
      float v = ln->value[addr[c] / 4];
      if (mode[c] == GS_PIXEL_IMAP_CONSTANT) k->plane[c][i] = 0, k->offset[c] = s->lane[0].value[addr[c] / 4];
      else k->plane[c][i] = v / w; /* plane × W = the value */
    }
  }
  for (unsigned j = 0; j < 2; j++) {
    b[j].io = (gs_frag_io){{0, 0, 0}, gates_of(s->prog), &s->report, 16, 0, s->lane[16 * j].back ? 1u : 0u,
                           b[j].x, b[j].y, b[j].cov, b[j].z, b[j].w, nin, (const float (*)[16])b[j].plane,
                           b[j].offset, mode, NULL, 0, 0};
    io->frag[j] = &b[j].io;
  }
  io->ipa = &map;
  sass_warp_start(&s->warp, sass_program_nregs(s->prog), s->lanes == 32 ? 0xffffffffu : (1u << s->lanes) - 1, 8, NULL, 0);
  rc = run_warp(s, io, "pixel program", d);
  if (rc == 0) {
    const sass_ps_out *o = &s->out_map;
    for (unsigned l = 0; l < s->lanes; l++) {
      sass_solo_lane *ln = &s->lane[l];
      ln->killed = (int)((s->warp.killed >> l) & 1);
      for (unsigned t = 0; t < 8; t++)
        for (unsigned c = 0; c < 4; c++)
          ln->colour[t][c] = o->target_reg[t] != SASS_PS_NONE && (o->target_mask[t] >> c & 1)
                                 ? s->warp.r[(o->target_reg[t] + c) & 255][l] : 0;
      ln->sample_mask = o->sample_mask_reg != SASS_PS_NONE ? s->warp.r[o->sample_mask_reg][l] : 1;
      ln->depth = o->depth_reg != SASS_PS_NONE ? s->warp.r[o->depth_reg][l] : gs_lane_u(ln->z);
    }
  }
  free(b);
  return rc;
}

int sass_solo_run(sass_solo *s, gs_diag *d) {
  if (!s->prog || !s->prog->has_sph) return gs_diag_set(d, GS_EARG, "a SASS program runs with its SPH");
  if (s->lanes < 1 || s->lanes > SASS_LANES) return gs_diag_set(d, GS_EARG, "%u lanes: a warp has 1 to 32", s->lanes);
  sass_io io;
  memset(&io, 0, sizeof io);
  io.gates = gates_of(s->prog);
  io.report = &s->report;
  for (unsigned k = 0; k < SASS_CBANKS; k++) io.cb[k] = s->cb[k], io.cb_size[k] = s->cb_size[k];
  gs_fp_env caller = gs_fp_env_get();
  gs_fp_env_set(sass_num_env(caller));
  int rc;
  if (s->prog->sph.shader_type == GS_SPH_PIXEL) {
    io.stage = GS_STAGE_FRAGMENT;
    rc = run_pixel(s, &io, d);
  } else if (s->prog->sph.shader_type == GS_SPH_VERTEX) {
    io.stage = GS_STAGE_VERTEX;
    rc = run_vertex(s, &io, d);
  } else {
    rc = gs_diag_set(d, GS_EARG, "the SPH's ShaderType is %u: gpusim runs vertex (1) and pixel (5) programs",
                     s->prog->sph.shader_type);
  }
  gs_fp_env_set(caller);
  return rc;
}
