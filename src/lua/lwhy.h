/* lwhy.h — the pieces of gpusim.why (lwhy.c) that gpusim.why_all
 * (lwhyall.c) and gpusim report (src/app/report.c) share: running the last
 * frame again with a trace, and its answers as Lua tables
 * (docs/provenance.md gives the schema). */
#ifndef GS_LUA_LWHY_H
#define GS_LUA_LWHY_H

#include <stdint.h>
#include <lua.h>
#include "gpusim/gpu.h"
#include "lua/lgpusim.h"
#include "v3d/provenance.h"

/* Runs the last frame's lists (fi) again with trace t and `threads` host
 * threads, the frame buffer put back from a copy. The run's error (< 0),
 * 1 when the run made another image than the frame buffer held (the
 * frame's inputs changed since), else 0. Raises a Lua error when the frame
 * buffer is gone or the host is out of memory. */
int lgs_why_rerun(lua_State *L, gs_gpu *g, const lgs_frame_info *fi, gs_trace *t, unsigned threads);
/* Frame f's pixel (x, y) (pipeline rows) as colour words (two for
 * RGBA16F): 1, or 0 when the frame buffer is gone. */
int lgs_why_final(gs_gpu *g, const gs_drv_frame *f, uint32_t x, uint32_t y, uint32_t final[2]);
/* Push one entry of fragments[] or missed[]; frame is the index of the
 * frame lgs_last_frame pushed. */
void lgs_why_push_fragment(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov_fragment *fr);
void lgs_why_push_missed(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov_missed *m);
/* Pushes the whole answer for pixel (x, y) from the image's top-left. */
void lgs_why_push_answer(lua_State *L, int frame, const lgs_frame_info *fi, const gs_prov *prov, lua_Integer x,
                         lua_Integer y, const uint32_t final[2]);

/* gpusim.why_all's collector for the last frame: runs it once with the
 * trace following every pixel and `threads` host threads (< 0: the
 * render's), and pushes the object that owns the answers (lwhyall.c),
 * a userdata whose block starts with the gs_provall returned (so
 * lua_touserdata of it is that pointer too). Raises a Lua error as
 * gpusim.why does. */
gs_provall *lgs_why_all(lua_State *L, int threads);

#endif
