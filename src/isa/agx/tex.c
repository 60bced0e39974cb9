/* tex.c — the Apple AGX unit's texture sampler: what smpf's texture state
 * tsN and sampler state ssN mean in gpusim, and the lookup through the
 * neutral sampler (v3d/tmu.h) that every instruction set uses.
 * docs/agx-unit.md, "Textures", is the chapter.
 *
 * On the hardware tsN and ssN are registers loaded from descriptors in
 * memory (a texture descriptor of 24 bytes and a sampler descriptor apart:
 * the Texture and Sampler structures of Mesa's src/asahi/genxml/cmdbuf.xml;
 * the operand kinds of applegpu's texture_sample). gpusim models neither
 * descriptor format:
 *
 *   tsN is the texture whose VideoCore IV TMU config words (parameters 0
 *   and 1, Broadcom's VideoCore IV 3D Architecture Reference Guide, Tables
 *   15-16) are words 2N and 2N + 1 of the draw's fragment uniform stream
 *   (uniform registers u(8 + 2N), u(9 + 2N) while N <= 123) — a scene's
 *   uniform list puts them where it lists the texture, as for the SASS
 *   unit's texture handles;
 *   ss0 is the sampler those words describe (their filters and wraps); any
 *   other ssN is refused by name.
 *
 * The texels come back as the neutral sampler's RGBA8888 words, each byte
 * b as the float b / 255 (R, G, B, A). The LOD given to the sampler is the
 * smpf's lod operand for lod_min, its bias for auto_lod_bias (the neutral
 * sampler computes no LOD from derivatives: the automatic part is 0) and
 * 0 for auto_lod: level 0 through the magnification filter, as the QPU and
 * SASS programs of the same scene sample. */
#include <string.h>
#include "core/bytes.h"
#include "isa/agx/unit_int.h"
#include "isa/uop/uop.h"
#include "v3d/tmu.h"

static int sample(void *ctx, const agx_tex_req *q, uint32_t out[][4], gs_diag *d) {
  const agx_tex_ctx *c = ctx;
  const gs_stage_program *p = &c->prog;
  if (q->ss != 0)
    return gs_diag_set(d, GS_EINVAL, "sampler state ss%u is not modelled: gpusim has ss0 only, the filters and "
                       "wraps of the texture's own config words (docs/agx-unit.md, Textures)", q->ss);
  uint64_t at = (uint64_t)p->uniforms + 8u * q->ts;
  if ((p->unif_end && at + 8 > p->unif_end) || at + 8 > UINT32_MAX)
    return gs_diag_set(d, GS_EFAULT, "texture state ts%u: its config words, words %u and %u of the fragment uniform "
                       "stream, are past the stream's end (%u words)", q->ts, 2 * q->ts, 2 * q->ts + 1,
                       p->unif_end > p->uniforms ? (unsigned)((p->unif_end - p->uniforms) / 4) : 0u);
  const uint8_t *w = gs_mem_ptr(c->g->mem, (gs_addr)at, 8);
  if (!w)
    return gs_diag_set(d, GS_EFAULT, "texture state ts%u: its config words at 0x%08llx are outside allocated GPU "
                       "memory", q->ts, (unsigned long long)at);
  uint32_t cfg[2] = {gs_get_le32(w), gs_get_le32(w + 4)}, texel[AGX_LANES];
  tmu_texture tex;
  tmu_lanes l = {AGX_LANES, q->lanes, q->x, q->y, q->lod, 0};
  int rc = tmu_texture_decode(cfg, 2, 0, &tex, d);
  if (rc >= 0) rc = tmu_sample(c->g->mem, &tex, 0, &l, texel, d);
  if (rc < 0) return rc;
  for (uint32_t m = q->lanes; m; m &= m - 1) {
    unsigned ln = (unsigned)__builtin_ctz(m);
    for (unsigned k = 0; k < 4; k++) out[ln][k] = gs_lane_u((float)((texel[ln] >> (8 * k)) & 0xffu) / 255.0f);
  }
  return GS_OK;
}

void agx_tex_attach(agx_state *s, agx_tex_ctx *c, gs_gpu *g, const gs_stage_program *p) {
  c->g = g, c->prog = *p;
  s->tex = sample, s->tex_ctx = c;
}
