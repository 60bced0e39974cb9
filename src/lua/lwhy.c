/* lwhy.c — gpusim.why(x, y [, {threads = N}]): the provenance of pixel
 * (x, y) of the last frame gpusim.render ran (x, y from the image's
 * top-left, as a PNG viewer shows it). The frame's control lists are
 * still in GPU memory until the next frame begins, and a run is
 * deterministic, so they run again with the trace hook (v3d/trace.h)
 * following that one pixel (v3d/provenance.h); the target's frame buffer
 * is put back as it was afterwards. The table it returns is described in
 * docs/provenance.md: fragments[] in rendering order, each with its
 * source and fate, missed[] with the reasons, final.
 */
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "core/half.h"
#include "gpusim/cl.h"
#include "gpusim/driver.h"
#include "gpusim/v3d.h"
#include "lua/lgpusim.h"
#include "lua/lwhy.h"
#include "v3d/provenance.h"
#include "v3d/v3d.h"

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

/* Pushes a colour as {r, g, b, a}: bytes of a TLB word (R in bits 7:0), or
 * with words = 2 the four halves of an RGBA16F pair as numbers. */
static void push_colour(lua_State *L, const uint32_t *w, unsigned words) {
  lua_createtable(L, 4, 0);
  for (int c = 0; c < 4; c++) {
    if (words == 2) lua_pushnumber(L, gs_half_value(w[c / 2] >> (16 * (c & 1)) & 0xffffu));
    else lua_pushinteger(L, w[0] >> (8 * c) & 0xffu);
    lua_rawseti(L, -2, c + 1);
  }
}

/* The frame buffer's pixel (x, y) (row y from the first row in memory) at
 * p as the words push_colour takes; the number of words. */
static unsigned pixel_words(const gs_drv_frame *f, const uint8_t *fb, uint32_t x, uint32_t y, uint32_t w[2]) {
  const uint8_t *p = fb + (size_t)y * f->stride + (size_t)x * gs_drv_format_bytes(f->format);
  if (f->format == GS_DRV_RGBA16F) {
    memcpy(w, p, 8);
    return 2;
  }
  if (f->format == GS_DRV_BGR565) {
    unsigned v = p[0] | (unsigned)p[1] << 8;
    w[0] = ((v >> 11) * 255 / 31) | ((v >> 5 & 63) * 255 / 63) << 8 | ((v & 31) * 255 / 31) << 16 | 0xff000000u;
    return 1;
  }
  memcpy(w, p, 4);
  return 1;
}

static void push_packet(lua_State *L, const char *k, gs_addr addr, unsigned id) {
  lua_createtable(L, 0, 2);
  set_int(L, "address", addr);
  const gs_cl_format_info *info = gs_cl_packet_info(id);
  lua_pushstring(L, info ? info->name : "?");
  lua_setfield(L, -2, "name");
  lua_setfield(L, -2, k);
}

/* Sets the fields that say where primitive src came from: draw (the
 * frame:draw call, from 1), where ("file:line"), primitive, vertices,
 * packet. Returns the draw call's state bits (uservalue 4), 0 if unknown. */
static lua_Integer push_source_prim(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov_prim *src) {
  uint32_t call = gs_driver_draw_of_record(fi->drv, src->record);
  lua_Integer bits = 0;
  if (call) {
    set_int(L, "draw", call);
    lua_getiuservalue(L, frame, 3);
    lua_rawgeti(L, -1, call);
    size_t n = 0;
    const char *w = lua_tolstring(L, -1, &n);
    if (w && n && w[n - 1] == ':') n--; /* "file:line:" */
    if (w && n && w[n - 1] == ' ') n--;
    if (w && n && w[n - 1] == ':') n--;
    lua_pushlstring(L, w ? w : "", n);
    lua_setfield(L, -4, "where");
    lua_pop(L, 2);
    lua_getiuservalue(L, frame, 4);
    lua_rawgeti(L, -1, call);
    bits = lua_tointeger(L, -1);
    lua_pop(L, 2);
  }
  set_int(L, "record", src->record);
  if (src->known) {
    set_int(L, "primitive", src->prim);
    push_packet(L, "packet", src->packet, src->packet_id);
  }
  lua_createtable(L, (int)src->nverts, 0);
  for (unsigned k = 0; k < src->nverts; k++) {
    lua_pushinteger(L, src->index[k]);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "vertices");
  return bits;
}

/* The fate a scene's reader knows: the tile buffer's, with the draw's
 * colour mask and blend state saying what a read of the tile's colour
 * was for (the driver links both into the fragment program). */
static const char *fate_name(const gs_prov_fragment *fr, lua_Integer bits) {
  unsigned mask = (unsigned)(bits >> 1) & 0xFu;
  int blend = (int)(bits & 1);
  if ((fr->fate == GS_FATE_WRITTEN || fr->fate == GS_FATE_DISCARDED) && bits && mask == 0) return "colour_masked";
  if (fr->fate == GS_FATE_WRITTEN) return fr->read_tile && blend ? "blended" : "written";
  return gs_trace_fate_name(fr->fate);
}

static void push_fragment(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov_fragment *fr) {
  lua_createtable(L, 0, 16);
  lua_Integer bits = push_source_prim(L, frame, fi, &fr->src);
  push_packet(L, "tile_packet", fr->tile_packet, fr->tile_packet_id);
  lua_createtable(L, 0, 2);
  set_int(L, "x", fr->tile_x);
  set_int(L, "y", fr->tile_y);
  lua_setfield(L, -2, "tile");
  lua_createtable(L, 0, 5);
  lua_pushstring(L, fr->isa ? fr->isa : "qpu");
  lua_setfield(L, -2, "isa");
  set_int(L, "program", fr->program);
  set_int(L, "uniforms", fr->uniforms);
  if (fr->vertex_isa) {
    lua_pushstring(L, fr->vertex_isa);
    lua_setfield(L, -2, "vertex_isa");
    set_int(L, "vertex_program", fr->vertex_program);
  }
  lua_setfield(L, -2, "source");
  set_int(L, "lane", fr->lane);
  set_int(L, "depth", fr->z);
  if (fr->z_tested) { /* the tile buffer's depth and stencil when the fragment was tested */
    set_int(L, "stored_depth", fr->zs_before >> 8);
    set_int(L, "stored_stencil", fr->zs_before & 0xffu);
  }
  if (fr->noutput) {
    push_colour(L, fr->output, fr->noutput);
    lua_setfield(L, -2, "output");
  }
  if (fr->read_tile) {
    push_colour(L, &fr->loaded, 1);
    lua_setfield(L, -2, "tile_colour");
  }
  lua_pushboolean(L, (int)fr->clipped);
  lua_setfield(L, -2, "clipped");
  lua_pushboolean(L, (int)fr->early);
  lua_setfield(L, -2, "early_z");
  lua_pushstring(L, fate_name(fr, bits));
  lua_setfield(L, -2, "fate");
}

static void push_missed(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov_missed *m) {
  lua_createtable(L, 0, 8);
  push_source_prim(L, frame, fi, &m->src);
  lua_pushstring(L, gs_prov_reason_name(m->reason));
  lua_setfield(L, -2, "reason");
}

/* Runs the last frame's lists again with trace t; the frame buffer is
 * restored from a copy. Returns the run's error, 1 when the traced run
 * made another image than the frame buffer held (the frame's inputs
 * changed since, or the trace changed what the pipeline computes), else
 * 0. */
int lgs_why_rerun(lua_State *L, gs_gpu *g, const lgs_frame_info *fi, gs_trace *t, unsigned threads) {
  const gs_drv_frame *f = &fi->frame;
  size_t size = (size_t)f->stride * f->height;
  uint8_t *fb = gs_mem_ptr(gs_gpu_mem(g), f->framebuffer, (uint32_t)size);
  if (!fb) return luaL_error(L, "gpusim.why: the frame buffer at 0x%08x has been released", f->framebuffer);
  void **box = lgs_newbox(L);
  *box = malloc(size);
  if (!*box) return luaL_error(L, "gpusim.why: host out of memory");
  memcpy(*box, fb, size);
  gs_v3d_options o;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  o.unif_streams = f->unif_streams;
  o.n_unif_streams = f->n_unif_streams;
  g->trace = t;
  int rc = gs_v3d_run(g, f->bin_start, f->bin_end, f->render_start, f->render_end, &o);
  g->trace = NULL;
  int same = memcmp(fb, *box, size) == 0; /* the whole frame: tracing changes nothing */
  memcpy(fb, *box, size);
  lgs_closebox(L, lua_gettop(L));
  lua_pop(L, 1);
  if (rc >= 0 && !same) return 1; /* the inputs changed since the frame was rendered */
  return rc < 0 ? rc : 0;
}

int lgs_why(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  lua_Integer x = luaL_checkinteger(L, 1), y = luaL_checkinteger(L, 2);
  lua_Integer threads = -1;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lgs_optfield_int(L, 3, 3, "threads", 0, 1024, &threads);
  }
  lua_settop(L, 3);
  lgs_frame_info fi;
  if (!lgs_last_frame(L, &fi) || !fi.ran)
    return luaL_error(L, "gpusim.why: no frame has been rendered (call gpusim.render() first)");
  int frame = lua_gettop(L);
  const gs_drv_frame *f = &fi.frame;
  if (x < 0 || y < 0 || x >= (lua_Integer)f->width || y >= (lua_Integer)f->height)
    return luaL_error(L, "gpusim.why: pixel (%d, %d) is outside the %dx%d image (x 0..%d, y 0..%d from the top-left)",
                      (int)x, (int)y, (int)f->width, (int)f->height, (int)f->width - 1, (int)f->height - 1);
  gs_prov prov;
  gs_prov_init(&prov, (int32_t)x, (int32_t)(f->height - 1 - (uint32_t)y));
  uint32_t final[2] = {0, 0};
  if (!lgs_why_final(g, f, (uint32_t)prov.x, (uint32_t)prov.y, final))
    return luaL_error(L, "gpusim.why: the frame buffer at 0x%08x has been released", f->framebuffer);
  gs_trace t = {gs_prov_event, &prov, {0, 0, 0, 0, 0}};
  gs_trace_filter_pixel(&t.filter, prov.x, prov.y);
  int rc = lgs_why_rerun(L, g, &fi, &t, threads >= 0 ? (unsigned)threads : fi.threads);
  if (rc != 0) {
    gs_prov_free(&prov);
    if (rc > 0)
      return luaL_error(L, "gpusim.why: running frame %d again gave another image: a buffer, texture or program it "
                        "uses changed after gpusim.render()", (int)fi.number);
    return luaL_error(L, "gpusim.why: running frame %d again failed: %s", (int)fi.number, gs_gpu_error(g));
  }
  gs_prov_finish(&prov);
  if (prov.nomem) {
    gs_prov_free(&prov);
    return luaL_error(L, "gpusim.why: host out of memory");
  }
  lgs_why_push_answer(L, frame, &fi, &prov, x, y, final);
  gs_prov_free(&prov);
  return 1;
}

/* The frame buffer's pixel (x, y) (pipeline rows) of frame f as the words
 * of a colour: 1, or 0 when the frame buffer is gone. */
int lgs_why_final(gs_gpu *g, const gs_drv_frame *f, uint32_t x, uint32_t y, uint32_t final[2]) {
  size_t size = (size_t)f->stride * f->height;
  const uint8_t *fb = gs_mem_ptr(gs_gpu_mem(g), f->framebuffer, (uint32_t)size);
  if (!fb) return 0;
  pixel_words(f, fb, x, y, final);
  return 1;
}

void lgs_why_push_fragment(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov_fragment *fr) {
  push_fragment(L, frame, fi, fr);
}

void lgs_why_push_missed(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov_missed *m) {
  push_missed(L, frame, fi, m);
}

/* Pushes gpusim.why's answer for pixel (x, y) (from the top-left) of the
 * frame at index frame: prov after gs_prov_finish, final its colour words. */
void lgs_why_push_answer(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov *prov, lua_Integer x,
                         lua_Integer y, const uint32_t final[2]) {
  const gs_drv_frame *f = &fi->frame;
  lua_createtable(L, 0, 10);
  set_int(L, "x", x);
  set_int(L, "y", y);
  set_int(L, "frame", fi->number);
  set_int(L, "width", f->width);
  set_int(L, "height", f->height);
  lua_createtable(L, (int)prov->nfragments, 0);
  for (unsigned i = 0; i < prov->nfragments; i++) {
    push_fragment(L, frame, fi, &prov->fragments[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "fragments");
  lua_createtable(L, (int)prov->nmissed, 0);
  for (unsigned i = 0; i < prov->nmissed; i++) {
    push_missed(L, frame, fi, &prov->missed[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "missed");
  push_colour(L, final, f->format == GS_DRV_RGBA16F ? 2 : 1);
  lua_setfield(L, -2, "final");
}
