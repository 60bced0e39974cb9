/* ldebug.c — gpusim.debug{x = X, y = Y} or {draw = K, vertex = I}: the
 * time-travel shader debugger (isa/debug.h; docs/debugger.md); with
 * stage = "coordinate", the coordinate shader's run of that vertex (the
 * binning pass's); d:source() and the trace's source column come from the
 * source lines of the state's assemblies (lsrcmap.h).
 *
 * The last frame's control lists run again on one thread with a capture
 * armed on the context (gs_gpu.debug): the invocation that last shaded
 * pixel (X, Y) (X, Y from the image's top-left, as for gpusim.why), or
 * the vertex-stage invocation of draw K (the frame:draw call, from 1)
 * holding the vertex of index I, is recorded on its ISA's reference
 * interpreter; the frame buffer is put back after, and compared whole with
 * the frame's (a capture must not change the image). The debugger object
 * then steps through the recording forward and back.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/driver.h"
#include "gpusim/v3d.h"
#include "isa/debug.h"
#include "lua/lgpusim.h"
#include "lua/lsrcmap.h"
#include "v3d/trace.h"
#include "v3d/v3d.h"

#define DEBUGGER "gpusim.debugger"
#define MAX_BPS 64

typedef struct bp {
  gs_debug_cond c;
  int frame;           /* 1: frame-wide */
} bp;

typedef struct debugger {
  gs_debug_inv *inv;
  unsigned cur;        /* the step shown: state cur (0..inv->steps) */
  uint8_t *st;         /* state cur */
  uint8_t *tmp;        /* scratch states */
  lua_Integer frame;   /* the frame it belongs to */
  bp bps[MAX_BPS];
  unsigned nbps;
  gs_debug_hit *hits;  /* frame-wide hits, when scanned */
  size_t nhits;
  int scanned;         /* hits are those of the frame-wide breakpoints now */
  uint32_t height;
  const lgs_srcmap_entry *src; /* the program's source lines (lsrcmap.h), or NULL */
  size_t src_same;     /* the bytes the code shares with src from its start */
} debugger;

static void debugger_clear(debugger *d) {
  gs_debug_inv_free(d->inv);
  free(d->st);
  free(d->tmp);
  d->inv = NULL, d->st = d->tmp = NULL;
}

static int debugger_gc(lua_State *L) {
  debugger *d = luaL_checkudata(L, 1, DEBUGGER);
  debugger_clear(d);
  free(d->hits);
  d->hits = NULL;
  return 0;
}

static debugger *check(lua_State *L) {
  debugger *d = luaL_checkudata(L, 1, DEBUGGER);
  if (!d->inv) luaL_error(L, "gpusim.debug: this debugger has no invocation (closed)");
  return d;
}

/* ---- running the frame again ---- */

typedef struct draw_find {
  const gs_driver *drv;
  gs_mem *mem;
  uint32_t call;
  gs_debug *dbg;
  int found;
} draw_find;

/* A GS_TRACE_DRAW of the frame:draw call asked for gives the vertex
 * program and uniforms (GL shader record bytes 16 and 20, RG §9.2; the
 * coordinate shader's at 28 and 32) the capture waits for. */
static void on_draw(void *ctx, const gs_trace_event *e) {
  draw_find *f = ctx;
  if (e->kind != GS_TRACE_DRAW || f->found || gs_driver_draw_of_record(f->drv, e->record) != f->call) return;
  const uint8_t *p = gs_mem_ptr(f->mem, e->record + (f->dbg->coordinate ? 28 : 16), 8);
  if (!p) return;
  f->dbg->vs_code = (gs_addr)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
  f->dbg->vs_uniforms = (gs_addr)(p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24);
  f->found = 1;
}

/* Runs the last frame again on one thread with capture dbg armed (and, for
 * a vertex, the draw found by its trace); the frame buffer is restored.
 * Raises the error (naming the frame) when the run fails or makes another
 * image. */
static void rerun(lua_State *L, const lgs_frame_info *fi, gs_debug *dbg, draw_find *df) {
  gs_gpu *g = lgs_gpu(L);
  const gs_drv_frame *f = &fi->frame;
  size_t size = (size_t)f->stride * f->height;
  uint8_t *fb = gs_mem_ptr(gs_gpu_mem(g), f->framebuffer, (uint32_t)size);
  if (!fb) luaL_error(L, "gpusim.debug: the frame buffer at 0x%08x has been released", f->framebuffer);
  void **box = lgs_newbox(L);
  *box = malloc(size);
  if (!*box) luaL_error(L, "gpusim.debug: host out of memory");
  memcpy(*box, fb, size);
  gs_trace t = {on_draw, df, {-1, -1, 1 << 30, 1 << 30, 0}}; /* binning's draws only: no tile */
  gs_v3d_options o;
  memset(&o, 0, sizeof o);
  o.threads = 1; /* the invocations in rendering order */
  o.unif_streams = f->unif_streams;
  o.n_unif_streams = f->n_unif_streams;
  g->debug = dbg;
  if (df) g->trace = &t;
  int rc = gs_v3d_run(g, f->bin_start, f->bin_end, f->render_start, f->render_end, &o);
  g->debug = NULL;
  g->trace = NULL;
  int same = memcmp(fb, *box, size) == 0;
  memcpy(fb, *box, size);
  lgs_closebox(L, lua_gettop(L));
  lua_pop(L, 1);
  if (rc < 0) {
    gs_debug_inv_free(dbg->inv);
    free(dbg->hits);
    luaL_error(L, "gpusim.debug: running frame %d again failed: %s", (int)fi->number, gs_gpu_error(g));
  }
  if (!same) {
    gs_debug_inv_free(dbg->inv);
    free(dbg->hits);
    luaL_error(L, "gpusim.debug: running frame %d again gave another image: a buffer, texture or program it uses "
               "changed after gpusim.render()", (int)fi->number);
  }
  if (dbg->nomem && !dbg->inv && dbg->mode != GS_DEBUG_SCAN) {
    free(dbg->hits);
    luaL_error(L, "gpusim.debug: the invocation is too long to record (more than 4M steps or 512 MB), or the host "
               "is out of memory");
  }
}

static void last_frame(lua_State *L, lgs_frame_info *fi) {
  if (!lgs_last_frame(L, fi) || !fi->ran)
    luaL_error(L, "gpusim.debug: no frame has been rendered (call gpusim.render() first)");
  lua_pop(L, 1);
}

/* Makes d show invocation inv at step `step`. */
static void adopt(lua_State *L, debugger *d, gs_debug_inv *inv, unsigned step) {
  uint8_t *st = malloc(inv->ops->size), *tmp = malloc(inv->ops->size);
  if (!st || !tmp) {
    free(st), free(tmp);
    gs_debug_inv_free(inv);
    luaL_error(L, "gpusim.debug: host out of memory");
  }
  debugger_clear(d);
  d->inv = inv, d->st = st, d->tmp = tmp;
  d->src = lgs_srcmap_find(L, inv->ops->isa, gs_gpu_mem(lgs_gpu(L)), inv->code, &d->src_same);
  d->cur = step > inv->steps ? inv->steps : step;
  gs_debug_inv_state(inv, d->cur, d->st);
}

/* The message for a pixel no fragment program ran for: what gpusim.why
 * says of it. Pushes it. */
static void push_nothing_shaded(lua_State *L, lua_Integer x, lua_Integer y) {
  luaL_Buffer b;
  lua_pushvalue(L, lua_upvalueindex(1)); /* the context, as gpusim.why has it */
  lua_pushcclosure(L, lgs_why, 1);
  lua_pushinteger(L, x);
  lua_pushinteger(L, y);
  int ok = lua_pcall(L, 2, 1, 0) == LUA_OK;
  int t = lua_gettop(L);
  luaL_buffinit(L, &b);
  lua_pushfstring(L, "gpusim.debug: no fragment program ran for pixel (%d, %d)", (int)x, (int)y);
  luaL_addvalue(&b);
  if (!ok) {
    lua_pushfstring(L, " (and gpusim.why failed: %s)", lua_tostring(L, t));
    luaL_addvalue(&b);
    luaL_pushresult(&b);
    lua_remove(L, t);
    return;
  }
  unsigned n = 0;
  const char *lists[2] = {"fragments", "missed"};
  for (int k = 0; k < 2; k++) {
    lua_getfield(L, t, lists[k]);
    lua_Integer len = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= len; i++) {
      lua_rawgeti(L, -1, i);
      lua_getfield(L, -1, k ? "reason" : "fate");
      lua_getfield(L, -2, "draw");
      lua_getfield(L, -3, "where");
      lua_getfield(L, -4, "early_z");
      lua_pushfstring(L, "%s draw %d (%s) %s%s", n++ ? ";" : ": gpusim why says", (int)lua_tointeger(L, -3),
                      lua_tostring(L, -2) ? lua_tostring(L, -2) : "?", lua_tostring(L, -4) ? lua_tostring(L, -4) : "?",
                      lua_toboolean(L, -1) ? " (early Z, before shading)" : "");
      lua_replace(L, -6);
      lua_pop(L, 4);
      luaL_addvalue(&b);
    }
    lua_pop(L, 1);
  }
  if (!n) luaL_addstring(&b, ": gpusim why says no primitive covers it");
  luaL_pushresult(&b);
  lua_remove(L, t);
}

static void ensure_meta(lua_State *L);

static const char *stage_name(gs_stage s) {
  return s == GS_STAGE_FRAGMENT ? "fragment" : s == GS_STAGE_COORDINATE ? "coordinate" : "vertex";
}

/* gpusim.debug{x = X, y = Y} | {draw = K, vertex = I [, stage = "vertex" | "coordinate"]} */
int lgs_debug(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lgs_frame_info fi;
  last_frame(L, &fi);
  const gs_drv_frame *f = &fi.frame;
  lua_Integer x = -1, y = -1, draw = -1, vertex = -1;
  lgs_optfield_int(L, 1, 1, "x", -0x7fffffff, 0x7fffffff, &x);
  lgs_optfield_int(L, 1, 1, "y", -0x7fffffff, 0x7fffffff, &y);
  lgs_optfield_int(L, 1, 1, "draw", 1, 0x7fffffff, &draw);
  lgs_optfield_int(L, 1, 1, "vertex", 0, 0x7fffffff, &vertex);
  int by_pixel = x != -1 || y != -1;
  if (by_pixel == (draw != -1 || vertex != -1) || (by_pixel && (x == -1 || y == -1)) ||
      (!by_pixel && (draw == -1 || vertex == -1)))
    return luaL_error(L, "gpusim.debug: expected {x = X, y = Y} (a pixel) or {draw = K, vertex = I} (a vertex)");
  gs_debug dbg;
  memset(&dbg, 0, sizeof dbg);
  if (lua_getfield(L, 1, "stage") != LUA_TNIL) {
    const char *st = lua_tostring(L, -1);
    if (lua_type(L, -1) != LUA_TSTRING || (strcmp(st, "vertex") && strcmp(st, "coordinate")))
      return luaL_error(L, "gpusim.debug: stage must be \"vertex\" or \"coordinate\" (got %s)",
                        lua_type(L, -1) == LUA_TSTRING ? st : luaL_typename(L, -1));
    if (by_pixel)
      return luaL_error(L, "gpusim.debug: stage goes with {draw = K, vertex = I}: a pixel's invocation is a "
                        "fragment program's");
    dbg.coordinate = strcmp(st, "coordinate") == 0;
  }
  lua_pop(L, 1);
  draw_find df = {fi.drv, gs_gpu_mem(lgs_gpu(L)), (uint32_t)draw, &dbg, 0};
  if (by_pixel) {
    if (x < 0 || y < 0 || x >= (lua_Integer)f->width || y >= (lua_Integer)f->height)
      return luaL_error(L, "gpusim.debug: pixel (%d, %d) is outside the %dx%d image (x 0..%d, y 0..%d from the "
                        "top-left)", (int)x, (int)y, (int)f->width, (int)f->height, (int)f->width - 1,
                        (int)f->height - 1);
    dbg.mode = GS_DEBUG_PIXEL;
    dbg.x = (int32_t)x, dbg.y = (int32_t)(f->height - 1 - (uint32_t)y);
  } else {
    dbg.mode = GS_DEBUG_VERTEX;
    dbg.vertex = (uint32_t)vertex;
    dbg.vs_code = 0xffffffffu; /* none until its draw is binned */
  }
  debugger *d = lua_newuserdatauv(L, sizeof *d, 0);
  memset(d, 0, sizeof *d);
  ensure_meta(L);
  luaL_setmetatable(L, DEBUGGER);
  rerun(L, &fi, &dbg, by_pixel ? NULL : &df);
  if (!dbg.inv) {
    if (by_pixel) {
      push_nothing_shaded(L, x, y);
      return lua_error(L);
    }
    if (!df.found)
      return luaL_error(L, "gpusim.debug: frame %d has no draw %d (its draws are numbered from 1 in the order "
                        "frame:draw made them)", (int)fi.number, (int)draw);
    return luaL_error(L, "gpusim.debug: draw %d's %s shader never ran a vertex of index %d (its vertices are "
                      "the indices its primitives use)", (int)draw, dbg.coordinate ? "coordinate" : "vertex",
                      (int)vertex);
  }
  d->frame = fi.number;
  d->height = f->height;
  adopt(L, d, dbg.inv, 0);
  return 1;
}

/* ---- stepping ---- */

static lua_Integer opt_count(lua_State *L) {
  lua_Integer n = luaL_optinteger(L, 2, 1);
  luaL_argcheck(L, n >= 0, 2, "expected a count >= 0");
  return n;
}

static void go(debugger *d, unsigned step) {
  d->cur = step > d->inv->steps ? d->inv->steps : step;
  gs_debug_inv_state(d->inv, d->cur, d->st);
}

static int l_step(lua_State *L) {
  debugger *d = check(L);
  lua_Integer n = opt_count(L);
  unsigned from = d->cur;
  go(d, n > (lua_Integer)(d->inv->steps - d->cur) ? d->inv->steps : d->cur + (unsigned)n);
  lua_pushinteger(L, d->cur - from);
  return 1;
}

static int l_back(lua_State *L) {
  debugger *d = check(L);
  lua_Integer n = opt_count(L);
  unsigned from = d->cur;
  go(d, n > (lua_Integer)d->cur ? 0 : d->cur - (unsigned)n);
  lua_pushinteger(L, from - d->cur);
  return 1;
}

/* The pc of lane in st as the user's program counts it: less the code
 * linked in front of it (AGX's vertex prolog), negative in that code. */
static lua_Integer user_pc(const gs_debug_inv *inv, const void *st, unsigned lane) {
  return (lua_Integer)inv->ops->pc(st, lane) - (lua_Integer)inv->prolog;
}

/* The pc of lane in st into buf as trace and d:line() show it: "0x0004",
 * or "prolog+0x0010" for an instruction of the linked prolog. */
static void pc_label(const gs_debug_inv *inv, const void *st, unsigned lane, char *buf, size_t n) {
  lua_Integer pc = user_pc(inv, st, lane);
  if (pc < 0) snprintf(buf, n, "prolog+0x%04x", (unsigned)(pc + (lua_Integer)inv->prolog));
  else snprintf(buf, n, "0x%04x", (unsigned)pc);
}

static int l_pc(lua_State *L) {
  debugger *d = check(L);
  lua_pushinteger(L, user_pc(d->inv, d->st, (unsigned)d->inv->lane));
  return 1;
}

static int l_line(lua_State *L) {
  debugger *d = check(L);
  const char *s = d->inv->lines[d->cur];
  if (!*s) {
    lua_pushnil(L);
  } else if (user_pc(d->inv, d->st, (unsigned)d->inv->lane) < 0) {
    char at[32];
    pc_label(d->inv, d->st, (unsigned)d->inv->lane, at, sizeof at);
    lua_pushfstring(L, "%s: %s", at, s);
  } else {
    lua_pushstring(L, s);
  }
  return 1;
}

/* The source row of the instruction lane runs next in st (NULL: no map,
 * the prolog, the end). */
static const lgs_src_row *source_row(const debugger *d, const void *st, unsigned lane) {
  if (!d->src || d->inv->ops->ended(st, lane)) return NULL;
  return lgs_srcmap_row(d->src, d->src_same, d->inv->code, (int64_t)user_pc(d->inv, st, lane));
}

/* d:source(): file, line and text of the next instruction's source line,
 * or nil (docs/debugger.md, "Source lines"). */
static int l_source(lua_State *L) {
  debugger *d = check(L);
  const lgs_src_row *r = source_row(d, d->st, (unsigned)d->inv->lane);
  if (!r) {
    lua_pushnil(L);
    return 1;
  }
  lua_pushstring(L, r->file ? r->file : "<asm>");
  lua_pushinteger(L, r->line);
  lua_pushstring(L, r->text);
  return 3;
}

static unsigned opt_lane(lua_State *L, int arg, const debugger *d) {
  lua_Integer l = luaL_optinteger(L, arg, d->inv->lane);
  if (l < 0 || l >= (lua_Integer)d->inv->ops->lanes)
    luaL_error(L, "gpusim.debug: lane %d: %s has lanes 0..%d", (int)l, d->inv->ops->isa, (int)d->inv->ops->lanes - 1);
  return (unsigned)l;
}

static int l_reg(lua_State *L) {
  debugger *d = check(L);
  const char *name = luaL_checkstring(L, 2);
  unsigned lane = opt_lane(L, 3, d);
  uint32_t v;
  if (gs_debug_reg(d->inv->ops, d->st, name, lane, &v) < 0) {
    char a[32], b[32];
    d->inv->ops->reg_name(0, a, sizeof a);
    d->inv->ops->reg_name(d->inv->ops->nregs - 1, b, sizeof b);
    return luaL_error(L, "gpusim.debug: %s has no register '%s' (its registers: %s .. %s; d:registers() lists "
                      "them)", d->inv->ops->isa, name, a, b);
  }
  float f;
  memcpy(&f, &v, 4);
  lua_pushinteger(L, v);
  lua_pushnumber(L, f);
  return 2;
}

static int l_registers(lua_State *L) {
  debugger *d = check(L);
  lua_createtable(L, (int)d->inv->ops->nregs, 0);
  char buf[32];
  for (unsigned i = 0; i < d->inv->ops->nregs; i++) {
    d->inv->ops->reg_name(i, buf, sizeof buf);
    lua_pushstring(L, buf);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int l_lane(lua_State *L) {
  lua_pushinteger(L, check(L)->inv->lane);
  return 1;
}

static int l_at(lua_State *L) {
  lua_pushinteger(L, check(L)->cur);
  return 1;
}

static int l_length(lua_State *L) {
  lua_pushinteger(L, check(L)->inv->steps);
  return 1;
}

static int l_hash(lua_State *L) {
  debugger *d = check(L);
  char buf[20];
  snprintf(buf, sizeof buf, "%016llx", (unsigned long long)gs_debug_hash(d->inv->ops, d->st));
  lua_pushstring(L, buf);
  return 1;
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static int l_info(lua_State *L) {
  debugger *d = check(L);
  const gs_debug_inv *inv = d->inv;
  lua_createtable(L, 0, 12);
  lua_pushstring(L, inv->ops->isa);
  lua_setfield(L, -2, "isa");
  lua_pushstring(L, stage_name(inv->stage));
  lua_setfield(L, -2, "stage");
  set_int(L, "program", inv->code);
  set_int(L, "uniforms", inv->uniforms);
  set_int(L, "lane", inv->lane);
  set_int(L, "lanes", inv->lanes);
  set_int(L, "steps", inv->steps);
  set_int(L, "frame", d->frame);
  if (inv->stage == GS_STAGE_FRAGMENT) {
    set_int(L, "invocation", inv->ordinal);
    set_int(L, "x", inv->x[inv->lane]);
    set_int(L, "y", (lua_Integer)d->height - 1 - inv->y[inv->lane]);
  } else {
    set_int(L, "invocation", inv->vordinal);
    set_int(L, "vertex", inv->index[inv->lane]);
  }
  if (inv->error) {
    lua_pushstring(L, inv->message);
    lua_setfield(L, -2, "error");
  }
  return 1;
}

/* ---- breakpoints ---- */

static int l_breakpoint(lua_State *L) {
  debugger *d = check(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (d->nbps >= MAX_BPS) return luaL_error(L, "gpusim.debug: at most %d breakpoints", MAX_BPS);
  bp b;
  memset(&b, 0, sizeof b);
  b.c.lane = -1;
  lua_getfield(L, 2, "frame");
  b.frame = lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (lua_getfield(L, 2, "pc") != LUA_TNIL) {
    if (!lua_isinteger(L, -1)) return luaL_error(L, "gpusim.debug: breakpoint: pc must be an integer");
    b.c.is_pc = 1;
    b.c.pc = (uint32_t)lua_tointeger(L, -1); /* the user's program's: fires() adds a prolog's size */
    lua_pop(L, 1);
  } else {
    lua_pop(L, 1);
    lua_getfield(L, 2, "reg");
    const char *name = lua_tostring(L, -1);
    if (!name) return luaL_error(L, "gpusim.debug: breakpoint: expected {pc = P} or {reg = NAME, op = OP, value = V}");
    uint32_t v;
    if (gs_debug_reg(d->inv->ops, d->st, name, 0, &v) < 0 && !b.frame)
      return luaL_error(L, "gpusim.debug: breakpoint: %s has no register '%s'", d->inv->ops->isa, name);
    snprintf(b.c.reg, sizeof b.c.reg, "%s", name);
    lua_pop(L, 1);
    static const char *const ops[] = {"<", "<=", ">", ">=", "==", "~=", "!=", NULL};
    lua_getfield(L, 2, "op");
    const char *op = lua_tostring(L, -1);
    int k = -1;
    for (int i = 0; op && ops[i]; i++)
      if (strcmp(op, ops[i]) == 0) k = i;
    if (k < 0) return luaL_error(L, "gpusim.debug: breakpoint: op must be one of < <= > >= == ~= (got %s)", op ? op : "none");
    b.c.op = k == 6 ? GS_DEBUG_NE : (gs_debug_op)k;
    lua_pop(L, 1);
    lua_getfield(L, 2, "value");
    if (!lua_isnumber(L, -1)) return luaL_error(L, "gpusim.debug: breakpoint: value must be a number");
    int is_float = !lua_isinteger(L, -1);
    b.c.value = lua_tonumber(L, -1);
    lua_pop(L, 1);
    static const char *const types[] = {"i32", "u32", "f32", NULL};
    lua_getfield(L, 2, "as");
    const char *as = lua_tostring(L, -1);
    b.c.type = is_float ? GS_DEBUG_F32 : GS_DEBUG_I32;
    if (as) {
      int t = -1;
      for (int i = 0; types[i]; i++)
        if (strcmp(as, types[i]) == 0) t = i;
      if (t < 0) return luaL_error(L, "gpusim.debug: breakpoint: as must be i32, u32 or f32 (got %s)", as);
      b.c.type = (gs_debug_type)t;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 2, "lane") != LUA_TNIL) b.c.lane = (int)opt_lane(L, -1, d);
    lua_pop(L, 1);
  }
  d->bps[d->nbps++] = b;
  if (b.frame) d->scanned = 0;
  lua_pushinteger(L, d->nbps);
  return 1;
}

static int l_clear(lua_State *L) {
  debugger *d = check(L);
  d->nbps = 0;
  d->scanned = 0;
  return 0;
}

/* Whether a breakpoint fires at state s (in st) of d's invocation, with
 * prev the state before (NULL at step 0): a pc breakpoint where the pc is
 * its pc; a condition where it holds and did not at the step before. */
static int fires(const debugger *d, const void *st, const void *prev) {
  const gs_debug_inv *inv = d->inv;
  for (unsigned i = 0; i < d->nbps; i++) {
    gs_debug_cond pc = d->bps[i].c;
    const gs_debug_cond *c = &pc;
    if (c->is_pc) pc.pc += inv->prolog; /* the ISA's pc, past a prolog linked in front of the program */
    if (gs_debug_cond_holds(inv->ops, st, inv->lane, c) <= 0) continue;
    if (c->is_pc || !prev || gs_debug_cond_holds(inv->ops, prev, inv->lane, c) <= 0) return 1;
  }
  return 0;
}

/* The first step after (dir 1) or before (dir -1) d->cur where a
 * breakpoint fires, or -1. */
static long find_local(debugger *d, int dir) {
  const gs_debug_inv *inv = d->inv;
  size_t size = inv->ops->size;
  uint8_t *prev = d->tmp, *st = malloc(size);
  if (!st) return -1;
  long found = -1;
  for (long s = (long)d->cur + dir; s >= 0 && s <= (long)inv->steps; s += dir) {
    gs_debug_inv_state(inv, (unsigned)s, st);
    if (s > 0) gs_debug_inv_state(inv, (unsigned)s - 1, prev);
    if (fires(d, st, s > 0 ? prev : NULL)) {
      found = s;
      break;
    }
  }
  free(st);
  return found;
}

/* The frame-wide breakpoints' hits, by running the frame again. */
static void scan(lua_State *L, debugger *d) {
  if (d->scanned) return;
  lgs_frame_info fi;
  last_frame(L, &fi);
  if (fi.number != d->frame)
    luaL_error(L, "gpusim.debug: frame %d has been rendered since this debugger opened frame %d", (int)fi.number,
               (int)d->frame);
  gs_debug_cond conds[MAX_BPS];
  unsigned n = 0;
  for (unsigned i = 0; i < d->nbps; i++)
    if (d->bps[i].frame) conds[n++] = d->bps[i].c;
  gs_debug dbg;
  memset(&dbg, 0, sizeof dbg);
  dbg.mode = GS_DEBUG_SCAN;
  dbg.scan_stage = d->inv->stage == GS_STAGE_FRAGMENT ? GS_STAGE_FRAGMENT : GS_STAGE_VERTEX;
  dbg.coordinate = d->inv->stage == GS_STAGE_COORDINATE;
  dbg.conds = conds, dbg.nconds = n;
  rerun(L, &fi, &dbg, NULL);
  free(d->hits);
  d->hits = dbg.hits, d->nhits = dbg.nhits;
  d->scanned = 1;
}

/* Opens invocation `ordinal` of the frame's invocations of stage (fragment,
 * vertex or coordinate) at step `step`, lane `lane`. */
static void open_ordinal(lua_State *L, debugger *d, gs_stage stage, unsigned ordinal, unsigned step, int lane) {
  lgs_frame_info fi;
  last_frame(L, &fi);
  gs_debug dbg;
  memset(&dbg, 0, sizeof dbg);
  dbg.mode = stage == GS_STAGE_FRAGMENT ? GS_DEBUG_ORDINAL : GS_DEBUG_VORDINAL;
  dbg.coordinate = stage == GS_STAGE_COORDINATE;
  dbg.target = ordinal;
  rerun(L, &fi, &dbg, NULL);
  if (!dbg.inv)
    luaL_error(L, "gpusim.debug: frame %d has no %s invocation %d", (int)fi.number, stage_name(stage), (int)ordinal);
  if (lane >= 0) dbg.inv->lane = lane;
  adopt(L, d, dbg.inv, step);
}

static int has_frame_bps(const debugger *d) {
  for (unsigned i = 0; i < d->nbps; i++)
    if (d->bps[i].frame) return 1;
  return 0;
}

/* d:continue() / d:reverse(): true at a hit, false at the end (start). */
static int resume(lua_State *L, int dir) {
  debugger *d = check(L);
  long s = find_local(d, dir);
  if (s >= 0) {
    go(d, (unsigned)s);
    lua_pushboolean(L, 1);
    return 1;
  }
  if (has_frame_bps(d)) {
    scan(L, d);
    int frag = d->inv->stage == GS_STAGE_FRAGMENT;
    long here = frag ? (long)d->inv->ordinal : (long)d->inv->vordinal;
    const gs_debug_hit *best = NULL;
    for (size_t i = 0; i < d->nhits; i++) {
      const gs_debug_hit *h = &d->hits[i];
      if (dir > 0 ? (long)h->ordinal > here : (long)h->ordinal < here) {
        if (dir > 0) {
          best = h;
          break;
        }
        best = h; /* the last before */
      }
    }
    if (best) {
      unsigned o = best->ordinal, step = best->step;
      int lane = best->lane;
      open_ordinal(L, d, d->inv->stage, o, step, lane);
      lua_pushboolean(L, 1);
      return 1;
    }
  }
  go(d, dir > 0 ? d->inv->steps : 0);
  lua_pushboolean(L, 0);
  return 1;
}

static int l_continue(lua_State *L) { return resume(L, 1); }
static int l_reverse(lua_State *L) { return resume(L, -1); }

/* d:hits(): the frame-wide breakpoints' hits {invocation, step, x, y}. */
static int l_hits(lua_State *L) {
  debugger *d = check(L);
  scan(L, d);
  lua_createtable(L, (int)d->nhits, 0);
  for (size_t i = 0; i < d->nhits; i++) {
    lua_createtable(L, 0, 5);
    set_int(L, "invocation", d->hits[i].ordinal);
    set_int(L, "step", d->hits[i].step);
    set_int(L, "lane", d->hits[i].lane);
    if (d->inv->stage == GS_STAGE_FRAGMENT) {
      set_int(L, "x", d->hits[i].x);
      set_int(L, "y", (lua_Integer)d->height - 1 - d->hits[i].y);
    } else {
      set_int(L, "vertex", d->hits[i].index);
    }
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* ---- the lane trace ---- */

/* Appends " name=0x... (float)" to row (size n). */
static void add_value(char *row, size_t n, const char *name, uint32_t v) {
  size_t len = strlen(row);
  float f;
  memcpy(&f, &v, 4);
  if (v > 0xffff && isfinite(f)) snprintf(row + len, n - len, " %s=0x%08x (%.9g)", name, v, (double)f);
  else snprintf(row + len, n - len, " %s=0x%08x", name, v);
}

/* d:trace(): the lane's trace as text, one line a step: the step, the pc,
 * the instruction, and the registers it changed (the lane's and the
 * group's) with their values. */
static int l_trace(lua_State *L) {
  debugger *d = check(L);
  const gs_debug_inv *inv = d->inv;
  const gs_debug_ops *ops = inv->ops;
  unsigned lane = (unsigned)(lua_isnoneornil(L, 2) ? inv->lane : (int)opt_lane(L, 2, d));
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char buf[256];
  if (inv->stage == GS_STAGE_FRAGMENT)
    snprintf(buf, sizeof buf, "%s fragment shader 0x%08x (uniforms 0x%08x), pixel (%u, %u): lane %u of lanes 0x%x, "
             "%u steps\n", ops->isa, inv->code, inv->uniforms, inv->x[lane], d->height - 1 - inv->y[lane], lane,
             inv->lanes, inv->steps);
  else
    snprintf(buf, sizeof buf, "%s %s shader 0x%08x (uniforms 0x%08x), vertex %u: lane %u of lanes 0x%x, %u steps\n",
             ops->isa, stage_name(inv->stage), inv->code, inv->uniforms, inv->index[lane], lane, inv->lanes, inv->steps);
  luaL_addstring(&b, buf);
  size_t size = ops->size;
  uint8_t *a = malloc(size), *c = malloc(size);
  if (!a || !c) {
    free(a), free(c);
    return luaL_error(L, "gpusim.debug: host out of memory");
  }
  /* the source column: as wide as its widest place, none without a map;
   * with it, the pcs padded to the widest (a prolog's are longer) */
  int width = 0, pcw = 0;
  char place[GS_DEBUG_LINE], at[32];
  for (unsigned s = 0; d->src && s < inv->steps; s++) {
    gs_debug_inv_state(inv, s, a);
    pc_label(inv, a, lane, at, sizeof at);
    if ((int)strlen(at) > pcw) pcw = (int)strlen(at);
    const lgs_src_row *r = source_row(d, a, lane);
    if (!r) continue;
    lgs_src_place(r, place, sizeof place);
    if ((int)strlen(place) > width) width = (int)strlen(place);
  }
  gs_debug_inv_state(inv, 0, a);
  char name[32];
  for (unsigned s = 0; s < inv->steps; s++) {
    gs_debug_inv_state(inv, s + 1, c);
    int was_ended = ops->ended(a, lane);
    char row[1024];
    pc_label(inv, a, lane, at, sizeof at);
    const lgs_src_row *r = width ? source_row(d, a, lane) : NULL;
    place[0] = '\0';
    if (r) lgs_src_place(r, place, sizeof place);
    if (width)
      snprintf(row, sizeof row, "%5u  %-*s  %-*s  %-40s", s, pcw, at, width, place,
               was_ended ? "(lane ended)" : inv->lines[s]);
    else
      snprintf(row, sizeof row, "%5u  %s  %-40s", s, at, was_ended ? "(lane ended)" : inv->lines[s]);
    for (unsigned i = 0; i < ops->nregs; i++) {
      int per_lane = ops->reg_name(i, name, sizeof name);
      uint32_t v0 = ops->reg_value(a, i, per_lane ? lane : 0), v1 = ops->reg_value(c, i, per_lane ? lane : 0);
      if (v0 != v1) add_value(row, sizeof row, name, v1);
    }
    size_t len = strlen(row);
    while (len && row[len - 1] == ' ') row[--len] = '\0';
    luaL_addstring(&b, row);
    luaL_addchar(&b, '\n');
    uint8_t *t = a;
    a = c, c = t;
  }
  if (inv->error) {
    luaL_addstring(&b, "error: ");
    luaL_addstring(&b, inv->message);
    luaL_addchar(&b, '\n');
  } else {
    luaL_addstring(&b, "end\n");
  }
  free(a), free(c);
  luaL_pushresult(&b);
  return 1;
}

static int l_tostring(lua_State *L) {
  debugger *d = luaL_checkudata(L, 1, DEBUGGER);
  if (!d->inv) lua_pushstring(L, "gpusim.debugger (closed)");
  else lua_pushfstring(L, "gpusim.debugger (%s, step %d of %d)", d->inv->ops->isa, (int)d->cur, (int)d->inv->steps);
  return 1;
}

static const luaL_Reg methods[] = {
  {"step", l_step}, {"back", l_back}, {"pc", l_pc}, {"line", l_line}, {"source", l_source}, {"reg", l_reg},
  {"registers", l_registers}, {"lane", l_lane}, {"at", l_at}, {"length", l_length}, {"hash", l_hash},
  {"info", l_info}, {"breakpoint", l_breakpoint}, {"clear", l_clear}, {"continue", l_continue},
  {"reverse", l_reverse}, {"hits", l_hits}, {"trace", l_trace}, {NULL, NULL}};

static void ensure_meta(lua_State *L) {
  if (luaL_newmetatable(L, DEBUGGER)) {
    luaL_newlibtable(L, methods);
    lua_pushvalue(L, lua_upvalueindex(1)); /* the context (lgs_gpu), for the methods that run the frame again */
    luaL_setfuncs(L, methods, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, debugger_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, debugger_gc);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, l_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
}
