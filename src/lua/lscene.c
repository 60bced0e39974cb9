/* lscene.c — scenes from Lua: render targets, vertex and index buffers,
 * textures, shaders (assembled, each program given its SPH from the
 * declaration), the frame callback, frames with render state and draw
 * calls, and gpusim.render, which lowers a frame through the driver
 * (include/gpusim/driver.h) into control lists and runs them through the
 * control-list executor (include/gpusim/v3d.h). The manual for script
 * writers is docs/scenes.md.
 *
 * Objects follow liolib's pattern: each userdata is made safe first (no
 * GPU allocation, address 0) with its metatable set, and only then
 * acquires GPU memory, so an error at any point leaks nothing; __gc and
 * __close release it exactly once. A finalizer that runs after the GPU
 * context has closed (the memory is then gone already) does nothing.
 *
 * Per-state scene data (the frame callback, its target, the frame number,
 * the last frame with the objects its lists point to, the driver) lives in
 * the registry, never in C globals. Table arguments are checked field by
 * field, and a field the function does not know is an error: a misspelt
 * `depth_tset` must not pass silently.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/driver.h"
#include "gpusim/luamod.h"
#include "gpusim/qpu.h"
#include "gpusim/sph.h"
#include "gpusim/v3d.h"
#include "core/half.h"
#include "core/bytes.h"
#include "driver/combiner.h"
#include "isa/isa.h"
#include "lua/lgpusim.h"
#include "lua/lsrcmap.h"

#define TARGET_TYPE "gpusim.Target"
#define BUFFER_TYPE "gpusim.Buffer"
#define SHADER_TYPE "gpusim.Shader"
#define FRAME_TYPE "gpusim.Frame"
#define TEXTURE_TYPE "gpusim.Texture"
#define DRIVER_TYPE "gpusim.Driver"
#define DRIVER_KEY "gpusim.driver"  /* registry: the state's driver */
#define SCENE_KEY "gpusim.scene"    /* registry: {fn=, target=, number=, last=} */
/* registry: function(path) -> width, height, RGBA bytes (top row first), or
 * nil, message. The gpusim program installs it (it links stb_image; the
 * module built for a stock lua5.4 does not). */
#define IMAGE_LOADER_KEY "gpusim.load_image"

#define DEFAULT_WIDTH 640
#define DEFAULT_HEIGHT 480

/* ---- small helpers --------------------------------------------------------- */

/* Raises "bad argument #arg to '<fn>' (<fmt...>)" with the script's place. */
static int arg_error(lua_State *L, int arg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *msg = lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  return luaL_argerror(L, arg, msg);
}

/* Checks that the table at idx (argument arg, or its field `parent` when
 * not NULL) has only fields named in `known`. */
static void check_fields_of(lua_State *L, int arg, int idx, const char *parent, const char *const known[]) {
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int ok = 0;
    for (int i = 0; k && known[i]; i++) ok |= strcmp(k, known[i]) == 0;
    if (!ok) {
      luaL_Buffer b;
      luaL_buffinit(L, &b);
      for (int i = 0; known[i]; i++) {
        luaL_addstring(&b, i ? ", " : "");
        luaL_addstring(&b, known[i]);
      }
      luaL_pushresult(&b);
      const char *list = lua_tostring(L, -1);
      const char *name = k ? lua_pushfstring(L, "'%s'", k) : luaL_tolstring(L, -2, NULL);
      if (parent) arg_error(L, arg, "field '%s': unknown field %s (known: %s)", parent, name, list);
      arg_error(L, arg, "unknown field %s (known: %s)", name, list);
    }
  }
}

/* Checks that the table at arg has only fields named in `known`. */
static void check_fields(lua_State *L, int arg, const char *const known[]) {
  check_fields_of(L, arg, arg, NULL, known);
}


/* The integer field `name` of table arg in lo..hi; def when nil, or an
 * error when def < lo (the field is required). */
static lua_Integer int_field(lua_State *L, int arg, const char *name, lua_Integer lo, lua_Integer hi,
                             lua_Integer def) {
  lua_Integer v;
  if (lgs_optfield_int(L, arg, arg, name, lo, hi, &v)) return v;
  if (def < lo) arg_error(L, arg, "field '%s' is required (an integer in %I..%I)", name, (LUAI_UACINT)lo,
                          (LUAI_UACINT)hi);
  return def;
}

/* The number field `name` of table arg; def when nil. */
static double num_field(lua_State *L, int arg, const char *name, double def) {
  int t = lua_getfield(L, arg, name);
  double v = def;
  if (t == LUA_TNUMBER) v = lua_tonumber(L, -1);
  else if (t != LUA_TNIL) arg_error(L, arg, "field '%s' must be a number, got %s", name, luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

/* The boolean field `name` of table arg; def when nil. */
static int bool_field(lua_State *L, int arg, const char *name, int def) {
  int t = lua_getfield(L, arg, name);
  int v = def;
  if (t == LUA_TBOOLEAN) v = lua_toboolean(L, -1);
  else if (t != LUA_TNIL) arg_error(L, arg, "field '%s' must be a boolean, got %s", name, luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

static uint32_t float_bits(double v) {
  float f = (float)v;
  if (v > 3.4028235677973366e38) f = INFINITY;
  if (v < -3.4028235677973366e38) f = -INFINITY;
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

/* Pushes fn as a closure over the context (upvalue 1 of the running
 * closure), as every function of the module is: a method looked up by
 * __index. */
static void push_method(lua_State *L, lua_CFunction fn) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushcclosure(L, fn, 1);
}

/* The GPU memory of the running closure's context. */
static gs_mem *mem_of(lua_State *L) { return gs_gpu_mem(lgs_gpu(L)); }

/* The memory a finalizer may release into, or NULL once the context has
 * closed (its memory, and every allocation in it, is gone). */
static gs_mem *gc_mem(lua_State *L) {
  gs_gpu *g = gs_lua_gpu(L);
  return g ? gs_gpu_mem(g) : NULL;
}

/* Pushes the scene table of the registry, creating it. */
static void push_scene(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, SCENE_KEY) == LUA_TTABLE) return;
  lua_pop(L, 1);
  lua_newtable(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, SCENE_KEY);
}

/* ---- targets ---------------------------------------------------------------- */

typedef struct l_target {
  gs_drv_target t;
} l_target;

static const char *const format_names[] = {"rgba8888", "bgr565", "rgba16f", NULL}; /* gs_drv_format */

static int target_gc(lua_State *L) {
  l_target *t = luaL_checkudata(L, 1, TARGET_TYPE);
  gs_mem *m = gc_mem(L);
  if (m) gs_drv_target_release(m, &t->t);
  t->t.framebuffer = 0;
  return 0;
}

/* gpusim.target{width=, height=, format=, depth=, samples=} -> a render
 * target with its frame buffer; samples 4 renders with 4x multisampling,
 * resolved into the frame buffer. */
static int l_target_new(lua_State *L) {
  static const char *const known[] = {"width", "height", "format", "depth", "samples", NULL};
  gs_mem *m = mem_of(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  check_fields(L, 1, known);
  gs_drv_target t = {0};
  t.width = (uint32_t)int_field(L, 1, "width", 1, GS_DRV_MAX_SIDE, DEFAULT_WIDTH);
  t.height = (uint32_t)int_field(L, 1, "height", 1, GS_DRV_MAX_SIDE, DEFAULT_HEIGHT);
  t.format = (gs_drv_format)lgs_optfield_option(L, 1, 1, "format", GS_DRV_RGBA8888, format_names);
  t.depth = bool_field(L, 1, "depth", 0);
  t.samples = (unsigned)int_field(L, 1, "samples", 1, 4, 1); /* 2 and 3: the driver says why not */
  l_target *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->t = t;
  u->t.framebuffer = 0;
  luaL_setmetatable(L, TARGET_TYPE);
  gs_diag d;
  if (gs_drv_target_alloc(m, &u->t, &d) < 0) return lgs_error(L, "target", d.msg);
  return 1;
}

/* Gives target u the size w × h, reallocating its frame buffer if needed. */
static void target_resize(lua_State *L, l_target *u, uint32_t w, uint32_t h) {
  if (u->t.width == w && u->t.height == h) return;
  gs_mem *m = mem_of(L);
  gs_drv_target nt = u->t;
  nt.width = w;
  nt.height = h;
  gs_diag d;
  if (gs_drv_target_alloc(m, &nt, &d) < 0) lgs_error(L, "render", d.msg);
  gs_drv_target_release(m, &u->t);
  u->t = nt;
}

/* target:pixel(x, y) -> r, g, b, a of the frame buffer, y counted from the
 * bottom row as the hardware does: integers 0..255, or for rgba16f the
 * four halves as floats (exact). */
static int target_pixel(lua_State *L) {
  l_target *u = luaL_checkudata(L, 1, TARGET_TYPE);
  lua_Integer x = luaL_checkinteger(L, 2), y = luaL_checkinteger(L, 3);
  luaL_argcheck(L, x >= 0 && x < (lua_Integer)u->t.width, 2, "x outside the target");
  luaL_argcheck(L, y >= 0 && y < (lua_Integer)u->t.height, 3, "y outside the target");
  unsigned bpp = gs_drv_format_bytes(u->t.format);
  const uint8_t *p = gs_mem_ptr(mem_of(L), u->t.framebuffer + (uint32_t)y * u->t.stride + (uint32_t)x * bpp, bpp);
  if (!p) return luaL_error(L, "target:pixel: the frame buffer has been released");
  unsigned r, g, b, a = 255;
  if (u->t.format == GS_DRV_RGBA16F) {
    for (int c = 0; c < 4; c++) lua_pushnumber(L, gs_half_value(p[2 * c] | (uint32_t)p[2 * c + 1] << 8));
    return 4;
  }
  if (u->t.format == GS_DRV_BGR565) {
    unsigned v = p[0] | (unsigned)p[1] << 8;
    r = (v >> 11) * 255 / 31, g = (v >> 5 & 63) * 255 / 63, b = (v & 31) * 255 / 31;
  } else {
    r = p[0], g = p[1], b = p[2], a = p[3];
  }
  lua_pushinteger(L, r);
  lua_pushinteger(L, g);
  lua_pushinteger(L, b);
  lua_pushinteger(L, a);
  return 4;
}

static int target_index(lua_State *L) {
  l_target *u = luaL_checkudata(L, 1, TARGET_TYPE);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "width") == 0) lua_pushinteger(L, u->t.width);
  else if (strcmp(k, "height") == 0) lua_pushinteger(L, u->t.height);
  else if (strcmp(k, "format") == 0) lua_pushstring(L, format_names[u->t.format]);
  else if (strcmp(k, "depth") == 0) lua_pushboolean(L, u->t.depth);
  else if (strcmp(k, "samples") == 0) lua_pushinteger(L, u->t.samples ? u->t.samples : 1);
  else if (strcmp(k, "framebuffer") == 0) lua_pushinteger(L, u->t.framebuffer);
  else if (strcmp(k, "stride") == 0) lua_pushinteger(L, u->t.stride);
  else if (strcmp(k, "pixel") == 0) push_method(L, target_pixel);
  else lua_pushnil(L);
  return 1;
}

static int target_tostring(lua_State *L) {
  l_target *u = luaL_checkudata(L, 1, TARGET_TYPE);
  lua_pushfstring(L, "gpusim.Target (%dx%d %s%s%s)", (int)u->t.width, (int)u->t.height,
                  format_names[u->t.format], u->t.depth ? " + depth" : "", u->t.samples == 4 ? ", 4 samples" : "");
  return 1;
}

/* ---- buffers ---------------------------------------------------------------- */

typedef enum { ELEM_U, ELEM_S, ELEM_F } elem_kind;
typedef struct elem_type {
  const char *name;
  uint8_t size;
  uint8_t kind;
} elem_type;
static const elem_type elem_types[] = {
  {"u8", 1, ELEM_U}, {"i8", 1, ELEM_S}, {"u16", 2, ELEM_U}, {"i16", 2, ELEM_S},
  {"u32", 4, ELEM_U}, {"i32", 4, ELEM_S}, {"f32", 4, ELEM_F},
};
#define N_ELEM_TYPES (sizeof elem_types / sizeof elem_types[0])

typedef struct l_attr {
  uint8_t type;    /* index in elem_types */
  uint8_t comps;   /* 1..4 */
  uint8_t offset;  /* bytes from the start of a vertex */
} l_attr;

typedef struct l_buffer {
  gs_addr addr;          /* 0 once released */
  uint32_t bytes;
  uint32_t count;        /* vertices or indices */
  uint32_t stride;       /* bytes per vertex or index */
  uint8_t index;         /* an index buffer */
  uint8_t nattrs;        /* vertex buffers: 1..GS_DRV_MAX_ATTRS; index: 1 */
  uint8_t comps;         /* values per vertex */
  l_attr attrs[GS_DRV_MAX_ATTRS];
} l_buffer;

static int buffer_gc(lua_State *L) {
  l_buffer *b = luaL_checkudata(L, 1, BUFFER_TYPE);
  gs_mem *m = gc_mem(L);
  if (m && b->addr) gs_mem_release(m, b->addr, NULL);
  b->addr = 0;
  return 0;
}

/* Parses one attribute format "f32x3" (or "u8": one component) into *a;
 * returns 0 or an error message. */
static const char *parse_attr(const char *s, l_attr *a) {
  const char *x = strchr(s, 'x');
  size_t len = x ? (size_t)(x - s) : strlen(s);
  a->comps = 1;
  if (x) {
    if (x[1] < '1' || x[1] > '4' || x[2]) return "components after 'x' must be 1..4";
    a->comps = (uint8_t)(x[1] - '0');
  }
  for (size_t i = 0; i < N_ELEM_TYPES; i++)
    if (strlen(elem_types[i].name) == len && strncmp(s, elem_types[i].name, len) == 0) {
      a->type = (uint8_t)i;
      return NULL;
    }
  return "unknown element type (known: u8 i8 u16 i16 u32 i32 f32)";
}

/* Reads field 'format' of table arg into *b: "u8"/"u16" make an index
 * buffer; "f32x3" or a list of such strings a vertex buffer whose
 * attributes are packed in order, each aligned to its element size. */
static void parse_format(lua_State *L, int arg, l_buffer *b) {
  int t = lua_getfield(L, arg, "format");
  int top = lua_gettop(L);
  if (t == LUA_TSTRING && !strchr(lua_tostring(L, top), 'x')) {
    const char *s = lua_tostring(L, top);
    if (strcmp(s, "u8") && strcmp(s, "u16"))
      arg_error(L, arg, "field 'format': index type '%s': use u8 or u16 (the VideoCore IV has no 32-bit "
                "indices); vertex formats look like 'f32x3'", s);
    b->index = 1;
    b->nattrs = 1;
    b->comps = 1;
    b->attrs[0].type = strcmp(s, "u8") == 0 ? 0 : 2;
    b->attrs[0].comps = 1;
    b->stride = elem_types[b->attrs[0].type].size;
    lua_pop(L, 1);
    return;
  }
  if (t == LUA_TSTRING) {
    lua_createtable(L, 1, 0);
    lua_pushvalue(L, top);
    lua_rawseti(L, -2, 1);
    lua_replace(L, top);
  } else if (t != LUA_TTABLE) {
    arg_error(L, arg, "field 'format' must be a string ('u16', 'f32x3') or a list of attribute formats, got %s",
              luaL_typename(L, top));
  }
  lua_Integer n = luaL_len(L, top);
  if (n < 1 || n > GS_DRV_MAX_ATTRS) arg_error(L, arg, "field 'format': 1..%d attributes, got %I", GS_DRV_MAX_ATTRS, (LUAI_UACINT)n);
  uint32_t off = 0, align = 1;
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_geti(L, top, i) != LUA_TSTRING)
      arg_error(L, arg, "field 'format': attribute %I must be a string like 'f32x3'", (LUAI_UACINT)i);
    l_attr *a = &b->attrs[i - 1];
    const char *why = parse_attr(lua_tostring(L, -1), a);
    if (why) arg_error(L, arg, "field 'format': attribute %I '%s': %s", (LUAI_UACINT)i, lua_tostring(L, -1), why);
    uint32_t es = elem_types[a->type].size;
    off = (off + es - 1) / es * es;
    a->offset = (uint8_t)off;
    off += es * a->comps;
    if (es > align) align = es;
    b->comps = (uint8_t)(b->comps + a->comps);
    lua_pop(L, 1);
  }
  b->nattrs = (uint8_t)n;
  b->stride = (off + align - 1) / align * align;
  lua_pop(L, 1);
}

/* Counts the numbers in the (nested) table at idx; raises for anything
 * else, naming the value's position. */
static uint64_t count_values(lua_State *L, int arg, int idx, int depth, uint64_t n) {
  idx = lua_absindex(L, idx);
  if (depth > 8) arg_error(L, arg, "field 'data' is nested too deeply");
  lua_Integer len = luaL_len(L, idx);
  for (lua_Integer i = 1; i <= len; i++) {
    int t = lua_geti(L, idx, i);
    if (t == LUA_TTABLE) n = count_values(L, arg, -1, depth + 1, n);
    else if (t == LUA_TNUMBER) n++;
    else arg_error(L, arg, "field 'data': value %I is a %s, not a number", (LUAI_UACINT)(n + 1), luaL_typename(L, -1));
    lua_pop(L, 1);
  }
  return n;
}

/* Stores the number on top as element type e at p; k is its position (for
 * messages). */
static void encode_value(lua_State *L, int arg, uint64_t k, const elem_type *e, uint8_t *p) {
  uint32_t bits;
  if (e->kind == ELEM_F) {
    bits = float_bits(lua_tonumber(L, -1));
  } else {
    int isint;
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    lua_Integer lo = e->kind == ELEM_S ? -((lua_Integer)1 << (8 * e->size - 1)) : 0;
    lua_Integer hi = e->kind == ELEM_S ? ((lua_Integer)1 << (8 * e->size - 1)) - 1 : ((lua_Integer)1 << (8 * e->size)) - 1;
    if (!isint || v < lo || v > hi)
      arg_error(L, arg, "field 'data': value %I (%s) does not fit %s (%I..%I)", (LUAI_UACINT)k,
                luaL_tolstring(L, -1, NULL), e->name, (LUAI_UACINT)lo, (LUAI_UACINT)hi);
    bits = (uint32_t)((uint64_t)v & 0xFFFFFFFFu);
  }
  for (unsigned i = 0; i < e->size; i++) p[i] = (uint8_t)(bits >> (8 * i));
}

/* Encodes the (nested) numbers of the table at idx into out, vertex by
 * vertex and attribute by attribute; *k counts the values done. */
static void encode_values(lua_State *L, int arg, int idx, const l_buffer *b, uint8_t *out, uint64_t *k) {
  idx = lua_absindex(L, idx);
  lua_Integer len = luaL_len(L, idx);
  for (lua_Integer i = 1; i <= len; i++) {
    if (lua_geti(L, idx, i) == LUA_TTABLE) {
      encode_values(L, arg, -1, b, out, k);
    } else {
      uint64_t v = *k / b->comps, c = *k % b->comps;
      unsigned a = 0;
      while (c >= b->attrs[a].comps) c -= b->attrs[a++].comps;
      const elem_type *e = &elem_types[b->attrs[a].type];
      encode_value(L, arg, *k + 1, e, out + v * b->stride + b->attrs[a].offset + c * e->size);
      ++*k;
    }
    lua_pop(L, 1);
  }
}

/* Encodes field 'data' of table arg for buffer b into a new scratch
 * userdata (pushed); returns the number of vertices or indices. */
static uint32_t encode_data(lua_State *L, int arg, const l_buffer *b, uint8_t **out) {
  if (lua_getfield(L, arg, "data") != LUA_TTABLE)
    arg_error(L, arg, "field 'data' must be a table of numbers, got %s", luaL_typename(L, -1));
  int data = lua_gettop(L);
  uint64_t n = count_values(L, arg, data, 0, 0);
  if (n % b->comps)
    arg_error(L, arg, "field 'data': %I values are not a whole number of %s of %d values", (LUAI_UACINT)n,
              b->index ? "indices" : "vertices", (int)b->comps);
  uint64_t count = n / b->comps;
  if (count * b->stride > 0x10000000u) arg_error(L, arg, "field 'data': too many values");
  *out = lua_newuserdatauv(L, count ? (size_t)(count * b->stride) : 1, 0);
  memset(*out, 0, count ? (size_t)(count * b->stride) : 1);
  uint64_t k = 0;
  encode_values(L, arg, data, b, *out, &k);
  lua_remove(L, data);
  return (uint32_t)count;
}

/* gpusim.buffer{format=, data=} -> a vertex or index buffer in GPU memory. */
static int l_buffer_new(lua_State *L) {
  static const char *const known[] = {"format", "data", NULL};
  gs_mem *m = mem_of(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  check_fields(L, 1, known);
  l_buffer b;
  memset(&b, 0, sizeof b);
  parse_format(L, 1, &b);
  uint8_t *bytes;
  b.count = encode_data(L, 1, &b, &bytes);
  b.bytes = b.count * b.stride;
  l_buffer *u = lua_newuserdatauv(L, sizeof *u, 0);
  *u = b;
  u->addr = 0;
  luaL_setmetatable(L, BUFFER_TYPE);
  gs_diag d;
  gs_addr a;
  if (gs_mem_alloc(m, b.bytes ? b.bytes : 4, 16, &a, &d) < 0) return lgs_error(L, "buffer", d.msg);
  u->addr = a;
  if (b.bytes && gs_mem_write(m, a, bytes, b.bytes, &d) < 0) return lgs_error(L, "buffer", d.msg);
  return 1;
}

/* buffer:write(data [, first]): replaces elements first.. (0-based) with
 * data, which must fit inside the buffer. */
static int buffer_write(lua_State *L) {
  l_buffer *u = luaL_checkudata(L, 1, BUFFER_TYPE);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_Integer first = luaL_optinteger(L, 3, 0);
  luaL_argcheck(L, first >= 0 && first <= (lua_Integer)u->count, 3, "first element outside the buffer");
  luaL_argcheck(L, u->addr != 0, 1, "the buffer has been released");
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "data");
  int t = lua_gettop(L);
  uint8_t *bytes;
  uint32_t n = encode_data(L, t, u, &bytes);
  if ((uint64_t)first + n > u->count)
    return luaL_argerror(L, 2, lua_pushfstring(L, "%I elements from %I do not fit a buffer of %I",
                                               (LUAI_UACINT)n, (LUAI_UACINT)first, (LUAI_UACINT)u->count));
  gs_diag d;
  if (n && gs_mem_write(mem_of(L), u->addr + (uint32_t)first * u->stride, bytes, n * u->stride, &d) < 0)
    return lgs_error(L, "buffer:write", d.msg);
  return 0;
}

static int buffer_index(lua_State *L) {
  l_buffer *u = luaL_checkudata(L, 1, BUFFER_TYPE);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "address") == 0) lua_pushinteger(L, u->addr);
  else if (strcmp(k, "bytes") == 0) lua_pushinteger(L, u->bytes);
  else if (strcmp(k, "count") == 0) lua_pushinteger(L, u->count);
  else if (strcmp(k, "stride") == 0) lua_pushinteger(L, u->stride);
  else if (strcmp(k, "kind") == 0) lua_pushstring(L, u->index ? "index" : "vertex");
  else if (strcmp(k, "format") == 0) {
    if (u->index) {
      lua_pushstring(L, elem_types[u->attrs[0].type].name);
    } else {
      lua_createtable(L, u->nattrs, 0);
      for (unsigned i = 0; i < u->nattrs; i++) {
        lua_pushfstring(L, "%sx%d", elem_types[u->attrs[i].type].name, (int)u->attrs[i].comps);
        lua_rawseti(L, -2, i + 1);
      }
    }
  } else if (strcmp(k, "offsets") == 0) {
    lua_createtable(L, u->nattrs, 0);
    for (unsigned i = 0; i < u->nattrs; i++) {
      lua_pushinteger(L, u->attrs[i].offset);
      lua_rawseti(L, -2, i + 1);
    }
  } else if (strcmp(k, "write") == 0) {
    push_method(L, buffer_write);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int buffer_tostring(lua_State *L) {
  l_buffer *u = luaL_checkudata(L, 1, BUFFER_TYPE);
  char text[96]; /* lua_pushfstring has no %x */
  snprintf(text, sizeof text, "gpusim.Buffer (%s, %u %s at 0x%08x)", u->index ? "index" : "vertex",
           (unsigned)u->count, u->index ? "indices" : "vertices", (unsigned)u->addr);
  lua_pushstring(L, text);
  return 1;
}

/* ---- textures --------------------------------------------------------------- */

typedef struct l_texture {
  gs_drv_texture t;
} l_texture;

static const char *const filter_names[] = {"linear", "nearest", NULL}; /* gs_drv_filter */
static const char *const wrap_names[] = {"repeat", "clamp", "mirror", NULL}; /* gs_drv_wrap */

static int texture_gc(lua_State *L) {
  l_texture *u = luaL_checkudata(L, 1, TEXTURE_TYPE);
  gs_mem *m = gc_mem(L);
  if (m) gs_drv_texture_release(m, &u->t);
  u->t.base = 0;
  return 0;
}

/* Pushes the texels of field 'data' of table arg (RGBA bytes, row 0 =
 * t = 0) as a scratch userdata for a w × h texture. */
static const uint8_t *texture_data(lua_State *L, int arg, uint32_t w, uint32_t h) {
  l_buffer b;
  memset(&b, 0, sizeof b);
  b.nattrs = 1;
  b.comps = 4;
  b.attrs[0] = (l_attr){0, 4, 0}; /* u8x4 */
  b.stride = 4;
  uint8_t *bytes;
  uint32_t n = encode_data(L, arg, &b, &bytes);
  if (n != w * h)
    arg_error(L, arg, "field 'data': %d texels of 4 bytes for a %dx%d texture of %d", (int)n, (int)w, (int)h,
              (int)(w * h));
  return bytes;
}

/* Replaces the relative path on the top of the stack with the same path
 * taken from the directory of the Lua chunk that called gpusim.texture (the
 * nearest Lua function up the stack, e.g. "scenes/cube.lua" makes
 * "../assets/checker.png" "scenes/../assets/checker.png"), so that a scene
 * finds its files from any working directory. An absolute path, and one
 * from a chunk that is no file (a string, standard input) or sits in the
 * working directory, stay as they are. */
static void relative_to_caller(lua_State *L) {
  const char *path = lua_tostring(L, -1);
  if (path[0] == '/') return;
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "S", &ar);
    if (ar.what[0] == 'C') continue; /* pcall and the like */
    const char *slash = ar.source[0] == '@' ? strrchr(ar.source, '/') : NULL;
    if (!slash) return;
    lua_pushlstring(L, ar.source + 1, (size_t)(slash - ar.source));
    lua_pushstring(L, path);
    lua_concat(L, 2);
    lua_replace(L, -2);
    return;
  }
}

/* Loads the image file in field 'file' of table arg through the program's
 * loader; pushes its texels turned over (the image's bottom row becomes
 * row 0, t = 0, so it appears upright) and sets *w, *h. */
static const uint8_t *texture_file(lua_State *L, int arg, uint32_t *w, uint32_t *h) {
  relative_to_caller(L);
  const char *path = lua_tostring(L, -1);
  if (lua_getfield(L, LUA_REGISTRYINDEX, IMAGE_LOADER_KEY) != LUA_TFUNCTION)
    arg_error(L, arg, "field 'file': this gpusim cannot read image files (the gpusim program can; the module "
              "alone cannot): give the texels as data = {...}");
  lua_pushstring(L, path);
  lua_call(L, 1, 3);
  if (lua_isnil(L, -3)) arg_error(L, arg, "field 'file': %s", lua_tostring(L, -2));
  lua_Integer iw = lua_tointeger(L, -3), ih = lua_tointeger(L, -2);
  size_t len;
  const char *px = lua_tolstring(L, -1, &len);
  if (iw < 1 || ih < 1 || iw > GS_DRV_MAX_TEXTURE || ih > GS_DRV_MAX_TEXTURE)
    arg_error(L, arg, "field 'file': '%s' is %Ix%I; textures are 1..%d texels a side", path, (LUAI_UACINT)iw,
              (LUAI_UACINT)ih, GS_DRV_MAX_TEXTURE);
  if (!px || len != (size_t)(iw * ih * 4)) luaL_error(L, "gpusim.texture: the image loader returned %d bytes", (int)len);
  uint8_t *out = lua_newuserdatauv(L, len, 0);
  size_t row = (size_t)iw * 4;
  for (lua_Integer y = 0; y < ih; y++) memcpy(out + (size_t)y * row, px + (size_t)(ih - 1 - y) * row, row);
  *w = (uint32_t)iw;
  *h = (uint32_t)ih;
  return out;
}

/* gpusim.texture{width=, height=, data=} or {file=}, with filter=, wrap=,
 * wrap_s=, wrap_t= -> a texture in GPU memory. */
static int l_texture_new(lua_State *L) {
  static const char *const known[] = {"width", "height", "data", "file", "filter", "wrap", "wrap_s", "wrap_t", NULL};
  gs_mem *m = mem_of(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  check_fields(L, 1, known);
  gs_drv_texture t;
  memset(&t, 0, sizeof t);
  t.filter = (gs_drv_filter)lgs_optfield_option(L, 1, 1, "filter", GS_DRV_LINEAR, filter_names);
  int wrap = lgs_optfield_option(L, 1, 1, "wrap", GS_DRV_REPEAT, wrap_names);
  t.wrap_s = (gs_drv_wrap)lgs_optfield_option(L, 1, 1, "wrap_s", wrap, wrap_names);
  t.wrap_t = (gs_drv_wrap)lgs_optfield_option(L, 1, 1, "wrap_t", wrap, wrap_names);
  const uint8_t *texels;
  int ft = lua_getfield(L, 1, "file");
  if (ft != LUA_TNIL) {
    if (ft != LUA_TSTRING) arg_error(L, 1, "field 'file' must be a path, got %s", luaL_typename(L, -1));
    lua_getfield(L, 1, "data");
    lua_getfield(L, 1, "width");
    if (!lua_isnil(L, -1) || !lua_isnil(L, -2)) arg_error(L, 1, "give either 'file' or 'data' with 'width' and 'height'");
    lua_pop(L, 2);
    texels = texture_file(L, 1, &t.width, &t.height);
  } else {
    t.width = (uint32_t)int_field(L, 1, "width", 1, GS_DRV_MAX_TEXTURE, 0);
    t.height = (uint32_t)int_field(L, 1, "height", 1, GS_DRV_MAX_TEXTURE, 0);
    texels = texture_data(L, 1, t.width, t.height);
  }
  l_texture *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, TEXTURE_TYPE);
  gs_diag d;
  if (gs_drv_texture_alloc(m, &t, texels, &d) < 0) return lgs_error(L, "texture", d.msg);
  u->t = t;
  return 1;
}

static int texture_index(lua_State *L) {
  l_texture *u = luaL_checkudata(L, 1, TEXTURE_TYPE);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "width") == 0) lua_pushinteger(L, u->t.width);
  else if (strcmp(k, "height") == 0) lua_pushinteger(L, u->t.height);
  else if (strcmp(k, "address") == 0) lua_pushinteger(L, u->t.base);
  else if (strcmp(k, "bytes") == 0) lua_pushinteger(L, u->t.bytes);
  else if (strcmp(k, "layout") == 0) lua_pushstring(L, u->t.lt ? "lt" : "t");
  else if (strcmp(k, "filter") == 0) lua_pushstring(L, filter_names[u->t.filter]);
  else if (strcmp(k, "wrap_s") == 0) lua_pushstring(L, wrap_names[u->t.wrap_s]);
  else if (strcmp(k, "wrap_t") == 0) lua_pushstring(L, wrap_names[u->t.wrap_t]);
  else if (strcmp(k, "config") == 0) {
    uint32_t p[2];
    gs_drv_texture_config(&u->t, p);
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, p[0]);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, p[1]);
    lua_rawseti(L, -2, 2);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int texture_tostring(lua_State *L) {
  l_texture *u = luaL_checkudata(L, 1, TEXTURE_TYPE);
  lua_pushfstring(L, "gpusim.Texture (%dx%d %s, %s)", (int)u->t.width, (int)u->t.height,
                  u->t.lt ? "LT" : "T", filter_names[u->t.filter]);
  return 1;
}

/* ---- shaders ---------------------------------------------------------------- */

enum { PROG_VERTEX, PROG_COORDINATE, PROG_FRAGMENT };
static const char *const prog_fields[3] = {"vertex", "coordinate", "fragment"};

typedef struct l_shader {
  gs_drv_program prog[3];  /* by PROG_* */
  gs_drv_shader sh;
  uint8_t ninputs;
  uint8_t input_comps[GS_DRV_MAX_ATTRS];
  uint8_t nvaryings;       /* declared varyings (vectors) */
} l_shader;

static int shader_gc(lua_State *L) {
  l_shader *s = luaL_checkudata(L, 1, SHADER_TYPE);
  gs_mem *m = gc_mem(L);
  for (int i = 0; i < 3; i++)
    if (m) gs_drv_program_release(m, &s->prog[i]);
  memset(s->prog, 0, sizeof s->prog);
  return 0;
}

static const char *const interp_names[] = {"flat", "perspective", "screen", NULL};
static const gs_pixel_imap interp_modes[] = {GS_PIXEL_IMAP_CONSTANT, GS_PIXEL_IMAP_PERSPECTIVE,
                                            GS_PIXEL_IMAP_SCREEN_LINEAR};

/* Reads the list field `name` of table arg ({name=, components=[,
 * interpolation=]} entries) into io[] (generic vector i for entry i) and
 * a normalised copy pushed on the stack. Returns the entry count. */
static int parse_io_list(lua_State *L, int arg, const char *name, int max, int with_interp, gs_sph_io *io,
                         uint8_t *comps) {
  int t = lua_getfield(L, arg, name);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    lua_newtable(L);
    return 0;
  }
  if (t != LUA_TTABLE) arg_error(L, arg, "field '%s' must be a list of tables, got %s", name, luaL_typename(L, -1));
  int list = lua_gettop(L);
  lua_Integer n = luaL_len(L, list);
  if (n > max) arg_error(L, arg, "field '%s': %I entries; at most %d", name, (LUAI_UACINT)n, max);
  lua_createtable(L, (int)n, 0);
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_geti(L, list, i) != LUA_TTABLE)
      arg_error(L, arg, "field '%s': entry %I must be a table {name=, components=}", name, (LUAI_UACINT)i);
    int e = lua_gettop(L);
    lua_Integer c = 0;
    int ct = lua_getfield(L, e, "components");
    int isint = 0;
    c = lua_tointegerx(L, -1, &isint);
    if (ct != LUA_TNUMBER || !isint || c < 1 || c > 4)
      arg_error(L, arg, "field '%s': entry %I: 'components' must be 1..4", name, (LUAI_UACINT)i);
    lua_pop(L, 1);
    if (lua_getfield(L, e, "name") != LUA_TSTRING)
      arg_error(L, arg, "field '%s': entry %I: 'name' must be a string", name, (LUAI_UACINT)i);
    lua_pop(L, 1);
    int mode = 1; /* perspective */
    if (with_interp) {
      int it = lua_getfield(L, e, "interpolation");
      if (it != LUA_TNIL) {
        const char *s = lua_tostring(L, -1);
        mode = -1;
        for (int k = 0; s && interp_names[k]; k++)
          if (strcmp(s, interp_names[k]) == 0) mode = k;
        if (mode < 0)
          arg_error(L, arg, "field '%s': entry %I: 'interpolation' must be 'flat', 'perspective' or 'screen'",
                    name, (LUAI_UACINT)i);
      }
      lua_pop(L, 1);
    }
    io[i - 1] = (gs_sph_io){GS_SPH_ATTR_GENERIC(i - 1), (1u << c) - 1u,
                            with_interp ? interp_modes[mode] : GS_PIXEL_IMAP_UNUSED};
    comps[i - 1] = (uint8_t)c;
    /* normalised entry */
    lua_createtable(L, 0, 3);
    lua_getfield(L, e, "name");
    lua_setfield(L, -2, "name");
    set_int(L, "components", c);
    if (with_interp) {
      lua_pushstring(L, interp_names[mode]);
      lua_setfield(L, -2, "interpolation");
    }
    lua_rawseti(L, -3, i);
    lua_pop(L, 1); /* the entry */
  }
  lua_remove(L, list);
  return (int)n;
}

/* The bit mask of the inputs the coordinate shader reads: field
 * coordinate_inputs (names of inputs) of table arg, or 0 for all. */
static uint8_t parse_cs_inputs(lua_State *L, int arg, int inputs) {
  int t = lua_getfield(L, arg, "coordinate_inputs");
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (t != LUA_TTABLE) arg_error(L, arg, "field 'coordinate_inputs' must be a list of input names");
  uint8_t mask = 0;
  lua_Integer n = luaL_len(L, -1);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, -1, i);
    const char *want = lua_tostring(L, -1);
    int found = -1;
    lua_Integer ni = luaL_len(L, inputs);
    for (lua_Integer k = 1; want && k <= ni && found < 0; k++) {
      lua_geti(L, inputs, k);
      lua_getfield(L, -1, "name");
      if (strcmp(lua_tostring(L, -1), want) == 0) found = (int)k - 1;
      lua_pop(L, 2);
    }
    if (found < 0)
      arg_error(L, arg, "field 'coordinate_inputs': '%s' is not one of the inputs", want ? want : "?");
    mask |= (uint8_t)(1u << found);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (!mask) arg_error(L, arg, "field 'coordinate_inputs' is empty");
  return mask;
}

/* Where `text` sits in the script file `path`: the offset of its only
 * occurrence (a long-string literal holds the text verbatim), or -1 when
 * the file cannot be read or holds it never or more than once. *line and
 * *col (from 1) give the occurrence's start. */
static long literal_in_file(const char *path, const char *text, long *line, long *col) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return -1;
  char *buf = malloc((4u << 20) + 1); /* scripts longer than 4 MB are not searched */
  size_t n = buf ? fread(buf, 1, 4u << 20, fp) : 0;
  int whole = buf && feof(fp);
  fclose(fp);
  long at = -1;
  if (whole && n == strlen((buf[n] = '\0', buf))) {
    const char *hit = strstr(buf, text);
    if (hit && !strstr(hit + 1, text)) {
      at = (long)(hit - buf);
      *line = 1, *col = 1;
      for (const char *c = buf; c < hit; c++) {
        if (*c == '\n') ++*line, *col = 1;
        else ++*col;
      }
    }
  }
  free(buf);
  return at;
}

int lgs_asm_place_of(lua_State *L, const char *name, const char *text, const char *msg, lgs_asm_place *p) {
  size_t nl = strlen(name);
  int used = 0;
  memset(p, 0, sizeof *p);
  if (strncmp(msg, name, nl) != 0 || sscanf(msg + nl, ":%d:%d: %n", &p->line, &p->col, &used) < 2 || !used ||
      p->line < 1 || p->col < 1)
    return 0;
  p->rest = msg + nl + used;
  lua_Debug ar;
  long line, col;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.source[0] == '@' && ar.currentline > 0 &&
      literal_in_file(ar.source + 1, text, &line, &col) >= 0) {
    snprintf(p->script, sizeof p->script, "%s", ar.short_src);
    p->script_line = (int)line + p->line - 1;
    p->script_col = p->line == 1 ? (int)col + p->col - 1 : p->col;
    p->call_line = ar.currentline;
  }
  return 1;
}

/* Raises the assembler's error "<name>:L:C: error: ..." for the program
 * text of the caller's gpusim.shader call: "file:line: gpusim.shader:
 * <name> line L:C: error: ...", where file:line is the call; when the text
 * is a literal found once in the calling script (a [[long string]]), the
 * place of L:C in the script leads instead and the call follows. */
static void asm_error(lua_State *L, const char *name, const char *text, const char *msg) {
  lgs_asm_place p;
  if (!lgs_asm_place_of(L, name, text, msg, &p)) {
    luaL_error(L, "gpusim.shader: %s", msg);
    return;
  }
  if (p.script[0]) {
    lua_pushfstring(L, "%s:%d:%d: gpusim.shader: %s line %d:%d: %s (gpusim.shader called at line %d)", p.script,
                    p.script_line, p.script_col, name, p.line, p.col, p.rest, p.call_line);
    lua_error(L);
  }
  luaL_error(L, "gpusim.shader: %s line %d:%d: %s", name, p.line, p.col, p.rest);
}

/* Program field p of table arg, assembled with isa or taken as bytes, and
 * loaded:
 *   vertex = "assembly text"
 *   vertex = {source = "assembly text" | binary = bytes [, sph = header]}
 * header: an 80-byte SPH string or a table of SPH fields (gpusim.sph).
 * Without it the program gets sph, the header built from the shader's
 * declarations, with the flags its code needs (gs_isa.sph_flags); with it
 * the pipeline honours exactly that header (its stage must be the
 * program's). The fragment program's source lines go to the user value of
 * the shader at ud. */
/* The instruction set the value at idx names (field `what` of table arg),
 * one whose programs run in scenes; else raises naming the ones there are. */
static const gs_isa *isa_arg(lua_State *L, int arg, int idx, const char *what) {
  idx = lua_absindex(L, idx);
  const char *name = lua_tostring(L, idx);
  const gs_isa *isa = lua_type(L, idx) == LUA_TSTRING ? gs_isa_by_name(name) : NULL;
  if (!isa) {
    luaL_Buffer known; /* 'qpu', ... */
    luaL_buffinit(L, &known);
    for (unsigned i = 0; gs_isa_at(i); i++) {
      if (i) luaL_addstring(&known, ", ");
      lua_pushfstring(L, "'%s'", gs_isa_at(i)->name);
      luaL_addvalue(&known);
    }
    luaL_pushresult(&known);
    if (lua_type(L, idx) == LUA_TSTRING)
      arg_error(L, arg, "field '%s': '%s' is not an instruction set gpusim knows (%s)", what, name, lua_tostring(L, -1));
    arg_error(L, arg, "field '%s' must be the name of an instruction set (%s), got %s", what, lua_tostring(L, -1),
              luaL_typename(L, idx));
  }
  if (!isa->run_vertex) arg_error(L, arg, "field '%s': %s programs do not run in scenes yet", what, isa->title);
  return isa;
}

/* The instruction set of program field prog_fields[p] of table arg: its
 * own `isa` key, else the shader's. */
static const gs_isa *program_isa(lua_State *L, int arg, int p, const gs_isa *isa) {
  int top = lua_gettop(L);
  if (lua_getfield(L, arg, prog_fields[p]) == LUA_TTABLE && lua_getfield(L, -1, "isa") != LUA_TNIL) {
    char what[32];
    snprintf(what, sizeof what, "%s.isa", prog_fields[p]);
    isa = isa_arg(L, arg, -1, what);
  }
  lua_settop(L, top);
  return isa;
}

static void load_program(lua_State *L, int arg, int p, const gs_isa *isa, const gs_sph *sph, l_shader *s, int ud) {
  static const char *const keys[] = {"source", "binary", "sph", "isa", NULL};
  gs_mem *m = mem_of(L);
  int from = p; /* the field the program comes from */
  if (p == PROG_COORDINATE && lua_getfield(L, arg, prog_fields[p]) == LUA_TNIL &&
      program_isa(L, arg, PROG_VERTEX, isa)->transforms_vertices)
    from = PROG_VERTEX; /* a vertex program whose unit's abi writes the shaded vertex serves both passes: it
                           runs as the coordinate shader too, with the coordinate shader's header */
  lua_settop(L, lua_gettop(L) - (p == PROG_COORDINATE));
  isa = program_isa(L, arg, from, isa);
  if (p == PROG_FRAGMENT && isa->vertex_only)
    arg_error(L, arg, "field 'fragment': %s has no fragment programs (its fragment stage is fixed function); give "
              "a fragment program of another instruction set", isa->title);
  int t = lua_getfield(L, arg, prog_fields[from]);
  int field = lua_gettop(L);
  gs_isa_binary *bin = lua_newuserdatauv(L, sizeof *bin, 0); /* freed below or by the box */
  memset(bin, 0, sizeof *bin);
  void **box = lgs_newbox(L), **lines_box = lgs_newbox(L);
  int box_index = lua_gettop(L) - 1;
  gs_diag d;
  gs_diag_clear(&d);
  gs_sph code_sph = *sph;
  int explicit_sph = 0;
  const char *text = NULL;
  size_t text_len = 0;
  char what[48];
  if (t == LUA_TSTRING) {
    text = lua_tolstring(L, field, &text_len);
  } else if (t == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, field)) {
      int k = 0;
      while (keys[k] && !(lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), keys[k]) == 0)) k++;
      if (!keys[k])
        arg_error(L, arg, "field '%s': unknown key %s (source, binary, sph, isa)", prog_fields[p],
                  lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : luaL_typename(L, -2));
      lua_pop(L, 1);
    }
    int ts = lua_getfield(L, field, "source"), tb = lua_getfield(L, field, "binary");
    if ((ts == LUA_TNIL) == (tb == LUA_TNIL))
      arg_error(L, arg, "field '%s': give exactly one of source (assembly text) and binary (bytes)", prog_fields[p]);
    if (ts != LUA_TNIL && ts != LUA_TSTRING) arg_error(L, arg, "field '%s.source' must be assembly text", prog_fields[p]);
    if (tb != LUA_TNIL && tb != LUA_TSTRING) arg_error(L, arg, "field '%s.binary' must be a string of bytes", prog_fields[p]);
    if (ts == LUA_TSTRING) {
      text = lua_tolstring(L, -2, &text_len);
    } else {
      size_t len;
      const char *b = lua_tolstring(L, -1, &len);
      if (len % isa->code_align)
        arg_error(L, arg, "field '%s': binary of %I bytes is not whole %d-byte instructions", prog_fields[p],
                  (LUAI_UACINT)len, (int)isa->code_align);
      if (!(bin->bytes = malloc(len ? len : 1))) luaL_error(L, "gpusim.shader: out of memory");
      *box = bin->bytes;
      memcpy(bin->bytes, b, len);
      bin->size = len;
    }
    if (lua_getfield(L, field, "sph") != LUA_TNIL && from == p) { /* as the coordinate shader: its own header */
      snprintf(what, sizeof what, "gpusim.shader: field '%s.sph'", prog_fields[p]);
      lgs_sph_arg(L, -1, what, &code_sph);
      unsigned want = p == PROG_FRAGMENT ? GS_SPH_TYPE_PS : GS_SPH_TYPE_VTG;
      if (code_sph.sph_type != want)
        arg_error(L, arg, "field '%s.sph': SphType %d, but a %s program needs SphType %d (%s)", prog_fields[p],
                  (int)code_sph.sph_type, prog_fields[p], (int)want, want == GS_SPH_TYPE_PS ? "PS" : "VTG");
      if (gs_sph_validate(&code_sph, &d) < 0) arg_error(L, arg, "field '%s.sph': %s", prog_fields[p], d.msg);
      explicit_sph = 1;
    }
  } else if (t == LUA_TNIL) {
    if (p == PROG_COORDINATE)
      arg_error(L, arg, "field 'coordinate' is required: gpusim does not derive a coordinate shader from the vertex "
                "shader (it writes the 7 PTB rows, the vertex shader the PSE rows)");
    arg_error(L, arg, "field '%s' is required (%s assembly text, or {source = text | binary = string [, sph = ...]})",
              prog_fields[p], isa->title);
  } else {
    arg_error(L, arg, "field '%s' must be %s assembly text or {source = text | binary = string [, sph = ...]}, got %s",
              prog_fields[p], isa->title, luaL_typename(L, field));
  }
  if (text) {
    if (strlen(text) != text_len) arg_error(L, arg, "field '%s': the assembly text contains a NUL byte", prog_fields[p]);
    char name[32];
    snprintf(name, sizeof name, "%s shader", prog_fields[p]);
    int rc = isa->assemble(text, name, 0, bin, &d);
    *box = bin->bytes;
    *lines_box = bin->lines;
    if (rc < 0) asm_error(L, name, text, d.msg);
    lgs_srcmap_note(L, isa, bin, text); /* the debugger's source lines (lsrcmap.h) */
  }
  if (bin->size == 0) arg_error(L, arg, "field '%s': the program has no instructions", prog_fields[p]);
  if (p == PROG_FRAGMENT && bin->nlines) { /* the source line of each instruction, for the linker's messages */
    size_t n = bin->size / isa->code_align;
    uint32_t *keep = lua_newuserdatauv(L, n * 4, 0);
    for (size_t i = 0; i < n; i++) keep[i] = gs_isa_binary_line(bin, (uint32_t)(i * isa->code_align));
    lua_getiuservalue(L, ud, 1);
    lua_rotate(L, -2, 1);
    lua_setfield(L, -2, "fs_lines");
    lua_pop(L, 1);
    s->sh.fs_lines = keep;
  }
  /* The header built from the declarations also says what the code does
   * (gs_isa.sph_flags), so that the SPH's gates allow it; a header given
   * explicitly is taken as it is. */
  if (!explicit_sph && isa->sph_flags) gs_sph_set_flags(&code_sph, isa->sph_flags(bin->bytes, bin->size));
  if (gs_drv_program_load_isa(m, isa->id, bin->bytes, bin->size, &code_sph, &s->prog[p], &d) < 0)
    luaL_error(L, "gpusim.shader: %s program: %s", prog_fields[p], d.msg);
  lua_settop(L, box_index + 1);
  lgs_closebox(L, box_index + 1);
  lgs_closebox(L, box_index);
  lua_settop(L, field - 1);
}

/* Builds an SPH or raises naming the stage. */
static void build_sph(lua_State *L, const gs_sph_decl *decl, const char *stage, gs_sph *out) {
  gs_diag d;
  if (gs_sph_build(decl, out, &d) < 0) luaL_error(L, "gpusim.shader: %s shader SPH: %s", stage, d.msg);
}

/* fragment = {combiners = {...}}: the PICA200's fixed-function fragment
 * stage, which the driver turns into a QPU fragment program for the
 * varyings (src/driver/combiner.h): argument 1 is replaced by a copy whose
 * fragment field is that program, {isa = "qpu", source = text}. */
static void combiner_program(lua_State *L) {
  if (lua_getfield(L, 1, "fragment") != LUA_TTABLE || lua_getfield(L, -1, "combiners") == LUA_TNIL) {
    lua_settop(L, 3);
    return;
  }
  int frag = lua_gettop(L) - 1;
  lua_pushnil(L);
  while (lua_next(L, frag)) {
    lua_pop(L, 1);
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    if (strcmp(k, "combiners") != 0 && strcmp(k, "isa") != 0)
      arg_error(L, 1, "field 'fragment': with combiners, no other key than isa (got %s)",
                lua_type(L, -1) == LUA_TSTRING ? k : luaL_typename(L, -1));
  }
  extern void lgs_combiner_arg(lua_State *L, int idx, const char *fn, gs_tev *t); /* lcombiner.c */
  gs_tev t;
  lgs_combiner_arg(L, -1, "gpusim.shader: field 'fragment.combiners'", &t);
  gs_tev_varying v[GS_TEV_MAX_VARYINGS];
  size_t n = 0;
  lua_getfield(L, 1, "varyings"); /* checked by parse_io_list */
  for (lua_Integer i = 1; lua_istable(L, -1) && i <= luaL_len(L, -1) && n < GS_TEV_MAX_VARYINGS; i++, n++) {
    lua_geti(L, -1, i);
    lua_getfield(L, -1, "name");
    lua_getfield(L, -2, "components");
    v[n].name = lua_tostring(L, -2);
    v[n].components = (unsigned)lua_tointeger(L, -1);
    lua_pop(L, 3);
  }
  char *text;
  gs_diag d;
  if (gs_tev_qpu_source(&t, v, n, &text, &d) < 0) arg_error(L, 1, "field 'fragment.combiners': %s", d.msg);
  lua_newtable(L); /* the copy of argument 1 */
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_settable(L, -4);
  }
  lua_createtable(L, 0, 2);
  lua_pushliteral(L, "qpu");
  lua_setfield(L, -2, "isa");
  lua_pushstring(L, text);
  free(text);
  lua_setfield(L, -2, "source");
  lua_setfield(L, -2, "fragment");
  lua_replace(L, 1);
  lua_settop(L, 3);
}

/* gpusim.shader{isa=, vertex=, coordinate=, fragment=, inputs=, varyings=,
 * coordinate_inputs=} -> a shader: three programs, each with its SPH. */
static int l_shader_new(lua_State *L) {
  static const char *const known[] = {"isa", "vertex", "coordinate", "fragment", "inputs", "varyings",
                                      "coordinate_inputs", NULL};
  lgs_gpu(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  check_fields(L, 1, known);
  const gs_isa *isa = gs_isa_by_id(GS_ISA_NONE);
  if (lua_getfield(L, 1, "isa") != LUA_TNIL) isa = isa_arg(L, 1, -1, "isa");
  lua_pop(L, 1);
  gs_sph_io in[GS_DRV_MAX_ATTRS], vary[GS_DRV_MAX_VARYINGS], vs_out[GS_DRV_MAX_VARYINGS + 1];
  uint8_t in_comps[GS_DRV_MAX_ATTRS], vary_comps[GS_DRV_MAX_VARYINGS];
  int nin = parse_io_list(L, 1, "inputs", GS_DRV_MAX_ATTRS, 0, in, in_comps);   /* stack 2 */
  int nvary = parse_io_list(L, 1, "varyings", GS_DRV_MAX_VARYINGS, 1, vary, vary_comps); /* 3 */
  if (nin < 1) arg_error(L, 1, "field 'inputs' must declare at least one vertex attribute");
  unsigned total = 0;
  uint32_t flat = 0;
  for (int i = 0; i < nvary; i++) {
    for (unsigned c = 0; c < vary_comps[i]; c++, total++)
      if (total < 32 && vary[i].interp == GS_PIXEL_IMAP_CONSTANT) flat |= 1u << total;
  }
  if (total > GS_DRV_MAX_VARYINGS)
    arg_error(L, 1, "field 'varyings': %d components; at most %d", (int)total, GS_DRV_MAX_VARYINGS);
  uint8_t cs_mask = parse_cs_inputs(L, 1, 2);
  combiner_program(L);

  gs_sph sph[3];
  gs_sph_decl decl;
  memset(&decl, 0, sizeof decl);
  vs_out[0] = (gs_sph_io){GS_SPH_ATTR_POSITION, 0xF, GS_PIXEL_IMAP_UNUSED};
  for (int i = 0; i < nvary; i++) vs_out[i + 1] = (gs_sph_io){vary[i].attr, vary[i].mask, GS_PIXEL_IMAP_UNUSED};
  decl.stage = GS_SPH_VERTEX;
  decl.inputs = in;
  decl.n_inputs = (size_t)nin;
  decl.outputs = vs_out;
  decl.n_outputs = (size_t)nvary + 1;
  build_sph(L, &decl, "vertex", &sph[PROG_VERTEX]);
  gs_sph_io cs_in[GS_DRV_MAX_ATTRS];
  size_t ncs = 0;
  for (int i = 0; i < nin; i++)
    if (!cs_mask || (cs_mask >> i & 1u)) cs_in[ncs++] = in[i];
  decl.inputs = cs_in;
  decl.n_inputs = ncs;
  decl.n_outputs = 1;
  build_sph(L, &decl, "coordinate", &sph[PROG_COORDINATE]);
  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_PIXEL;
  decl.inputs = vary;
  decl.n_inputs = (size_t)nvary;
  decl.render_targets = 0xF;
  build_sph(L, &decl, "fragment", &sph[PROG_FRAGMENT]);

  l_shader *s = lua_newuserdatauv(L, sizeof *s, 1); /* 4 */
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, SHADER_TYPE);
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "inputs");
  lua_pushvalue(L, 3);
  lua_setfield(L, -2, "varyings");
  lua_setiuservalue(L, 4, 1);
  for (int p = 0; p < 3; p++) load_program(L, 1, p, isa, &sph[p], s, 4);
  s->ninputs = (uint8_t)nin;
  memcpy(s->input_comps, in_comps, (size_t)nin);
  s->nvaryings = (uint8_t)nvary;
  s->sh.vs_code = s->prog[PROG_VERTEX].code;
  s->sh.cs_code = s->prog[PROG_COORDINATE].code;
  s->sh.fs_code = s->prog[PROG_FRAGMENT].code;
  s->sh.nvaryings = total;
  s->sh.flat_varyings = flat;
  s->sh.cs_attrs = cs_mask;
  return 1;
}

static int shader_sph(lua_State *L);
static int shader_variant(lua_State *L);

static int shader_index(lua_State *L) {
  l_shader *s = luaL_checkudata(L, 1, SHADER_TYPE);
  const char *k = luaL_checkstring(L, 2);
  for (int p = 0; p < 3; p++) {
    char name[32];
    snprintf(name, sizeof name, "%s_code", prog_fields[p]);
    if (strcmp(k, name) == 0) {
      lua_pushinteger(L, s->prog[p].code);
      return 1;
    }
  }
  if (strcmp(k, "varying_components") == 0) lua_pushinteger(L, s->sh.nvaryings);
  else if (strcmp(k, "flat_varyings") == 0) lua_pushinteger(L, s->sh.flat_varyings);
  else if (strcmp(k, "inputs") == 0 || strcmp(k, "varyings") == 0) {
    lua_getiuservalue(L, 1, 1);
    lua_getfield(L, -1, k);
  } else if (strcmp(k, "sph") == 0) {
    push_method(L, shader_sph);
  } else if (strcmp(k, "variant") == 0) {
    push_method(L, shader_variant);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

/* shader:sph(stage) -> the 20 SPH words of program stage ("vertex",
 * "coordinate" or "fragment"), as the pipeline reads them. */
static int shader_sph(lua_State *L) {
  l_shader *s = luaL_checkudata(L, 1, SHADER_TYPE);
  int p = luaL_checkoption(L, 2, NULL, prog_fields);
  gs_sph sph;
  uint32_t w[GS_SPH_WORDS];
  gs_diag d;
  if (gs_drv_program_sph(mem_of(L), s->prog[p].code, &sph, &d) < 0 || gs_sph_encode(&sph, w, &d) < 0)
    return lgs_error(L, "shader:sph", d.msg);
  lua_createtable(L, GS_SPH_WORDS, 0);
  for (int i = 0; i < GS_SPH_WORDS; i++) {
    lua_pushinteger(L, w[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int shader_tostring(lua_State *L) {
  l_shader *s = luaL_checkudata(L, 1, SHADER_TYPE);
  lua_pushfstring(L, "gpusim.Shader (qpu, %d inputs, %d varying components)", (int)s->ninputs,
                  (int)s->sh.nvaryings);
  return 1;
}

/* ---- the driver of the state ------------------------------------------------- */

typedef struct l_driver {
  gs_driver *drv;
} l_driver;

static int driver_gc(lua_State *L) {
  l_driver *u = luaL_checkudata(L, 1, DRIVER_TYPE);
  /* After the context has closed, the driver's GPU blocks are gone with
   * it; only then is the host part left to the process (never in practice:
   * the context is finalised last, being created first). */
  if (u->drv && gc_mem(L)) gs_driver_free(u->drv);
  u->drv = NULL;
  return 0;
}

/* The driver of L's context, created on first use. */
static gs_driver *get_driver(lua_State *L) {
  gs_mem *m = mem_of(L);
  if (lua_getfield(L, LUA_REGISTRYINDEX, DRIVER_KEY) == LUA_TUSERDATA) {
    l_driver *u = luaL_checkudata(L, -1, DRIVER_TYPE);
    lua_pop(L, 1);
    return u->drv;
  }
  lua_pop(L, 1);
  l_driver *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->drv = NULL;
  luaL_setmetatable(L, DRIVER_TYPE);
  u->drv = gs_driver_new(m);
  if (!u->drv) luaL_error(L, "gpusim: cannot create the driver: host out of memory");
  lua_setfield(L, LUA_REGISTRYINDEX, DRIVER_KEY);
  return u->drv;
}

/* ---- frames ------------------------------------------------------------------ */

typedef struct l_frame {
  int open;               /* draws allowed: the frame callback is running */
  double time;
  lua_Integer number;
  gs_drv_state state;
  gs_drv_clear clear;
  gs_driver *drv;
  int ran;                /* gpusim.render ran its lists (gpusim.why may run them again) */
  unsigned threads;
  gs_drv_frame out;       /* the lists, as gs_driver_end_frame (and a grown pool) left them */
} l_frame;
/* user values: 1 the target, 2 the objects the frame's lists point to,
 * 3 where each draw call was made ("file:line:", by call number), 4 each
 * draw call's blend (bit 0), colour mask (bits 4:1) and bit 5 set, for
 * gpusim.why */

/* Checks that arg 1 is a frame whose callback is running. */
static l_frame *check_open_frame(lua_State *L, const char *method) {
  l_frame *f = luaL_checkudata(L, 1, FRAME_TYPE);
  if (!f->open) luaL_error(L, "frame:%s: the frame is over (draw inside the frame callback)", method);
  return f;
}

/* Keeps the value at idx alive as long as the frame's lists exist. */
static void frame_ref(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  lua_getiuservalue(L, 1, 2);
  lua_pushvalue(L, idx);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

static uint32_t unit_byte(double v) {
  if (!(v > 0.0)) return 0;
  if (v >= 1.0) return 255;
  return (uint32_t)lrint(v * 255.0);
}

/* frame:clear{color={r, g, b[, a]}, depth=, stencil=}: the values every
 * tile starts from (0..1 floats; alpha defaults to 1). */
static int frame_clear(lua_State *L) {
  static const char *const known[] = {"color", "depth", "stencil", NULL};
  l_frame *f = check_open_frame(L, "clear");
  luaL_checktype(L, 2, LUA_TTABLE);
  check_fields(L, 2, known);
  int t = lua_getfield(L, 2, "color");
  if (t == LUA_TTABLE) {
    lua_Integer n = luaL_len(L, -1);
    if (n < 3 || n > 4) arg_error(L, 2, "field 'color' must be {r, g, b} or {r, g, b, a} in 0..1");
    uint32_t word = 0xff000000u;
    for (lua_Integer i = 1; i <= n; i++) {
      if (lua_geti(L, -1, i) != LUA_TNUMBER) arg_error(L, 2, "field 'color': component %I is not a number", (LUAI_UACINT)i);
      int shift = 8 * (int)(i - 1);
      word = (word & ~(0xffu << shift)) | unit_byte(lua_tonumber(L, -1)) << shift;
      lua_pop(L, 1);
    }
    f->clear.color = word;
  } else if (t != LUA_TNIL) {
    arg_error(L, 2, "field 'color' must be a table {r, g, b[, a}}, got %s", luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  double depth = num_field(L, 2, "depth", f->clear.depth);
  if (!(depth >= 0.0 && depth <= 1.0)) arg_error(L, 2, "field 'depth' must be in 0..1");
  f->clear.depth = (float)depth;
  f->clear.stencil = (uint8_t)int_field(L, 2, "stencil", 0, 255, f->clear.stencil);
  return 0;
}

/* Reads the rectangle field `name` {x, y, width, height} of table arg. */
static gs_drv_rect rect_field(lua_State *L, int arg, const char *name) {
  gs_drv_rect r = {0, 0, 0, 0};
  if (lua_type(L, -1) != LUA_TTABLE || luaL_len(L, -1) != 4)
    arg_error(L, arg, "field '%s' must be {x, y, width, height} in pixels, or false", name);
  lua_Integer v[4];
  for (int i = 0; i < 4; i++) {
    int isint = 0;
    lua_geti(L, -1, i + 1);
    v[i] = lua_tointegerx(L, -1, &isint);
    lua_Integer lo = i < 2 ? -65536 : 1, hi = i < 2 ? 65536 : 65536;
    if (!isint || v[i] < lo || v[i] > hi)
      arg_error(L, arg, "field '%s': %s must be an integer in %I..%I", name,
                (const char *[]){"x", "y", "width", "height"}[i], (LUAI_UACINT)lo, (LUAI_UACINT)hi);
    lua_pop(L, 1);
  }
  r.x = (int32_t)v[0];
  r.y = (int32_t)v[1];
  r.width = (uint32_t)v[2];
  r.height = (uint32_t)v[3];
  return r;
}

static const char *const depth_func_names[] = {"never", "less", "equal", "lequal", "greater",
                                               "notequal", "gequal", "always", NULL};

/* ---- blending and stencil (docs/blending.md) ---- */

static const char *const blend_equation_names[] = {"add", "subtract", "reverse_subtract", "min", "max",
                                                   NULL}; /* gs_drv_blend_equation */
static const char *const blend_factor_names[] = {
  "zero", "one", "src_color", "one_minus_src_color", "dst_color", "one_minus_dst_color", "src_alpha",
  "one_minus_src_alpha", "dst_alpha", "one_minus_dst_alpha", "constant_color", "one_minus_constant_color",
  "constant_alpha", "one_minus_constant_alpha", "src_alpha_saturate", NULL}; /* gs_drv_blend_factor */
static const char *const stencil_op_names[] = {"zero", "keep", "replace", "incr", "decr", "invert",
                                               "incr_wrap", "decr_wrap", NULL}; /* gs_drv_stencil_op */

/* Named blends: one equation and one pair of factors for all four bytes. */
static const char *const blend_preset_names[] = {"replace", "alpha", "premultiplied", "add", "multiply",
                                                 "screen", "min", "max", NULL};
static const uint8_t blend_presets[][3] = {
  {GS_DRV_BLEND_ADD, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ZERO},
  {GS_DRV_BLEND_ADD, GS_DRV_FACTOR_SRC_ALPHA, GS_DRV_FACTOR_ONE_MINUS_SRC_ALPHA},
  {GS_DRV_BLEND_ADD, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ONE_MINUS_SRC_ALPHA},
  {GS_DRV_BLEND_ADD, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ONE},
  {GS_DRV_BLEND_ADD, GS_DRV_FACTOR_DST_COLOR, GS_DRV_FACTOR_ZERO},
  {GS_DRV_BLEND_ADD, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ONE_MINUS_SRC_COLOR},
  {GS_DRV_BLEND_MIN, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ONE},
  {GS_DRV_BLEND_MAX, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ONE},
};

/* The option field `name` of the table at idx (field `parent` of argument
 * arg): its index in lst, or def when nil. */
static int sub_option(lua_State *L, int arg, int idx, const char *parent, const char *name, int def,
                      const char *const lst[]) {
  if (lua_getfield(L, idx, name) == LUA_TNIL) {
    lua_pop(L, 1);
    return def;
  }
  char what[64];
  snprintf(what, sizeof what, "%s.%s", parent, name);
  return lgs_option_value(L, arg, what, lst);
}

/* The integer field `name` 0..255 of the table at idx (in `parent`), or def. */
static uint8_t sub_byte(lua_State *L, int arg, int idx, const char *parent, const char *name, uint8_t def) {
  int t = lua_getfield(L, idx, name), isint = 0;
  lua_Integer v = lua_tointegerx(L, -1, &isint);
  if (t == LUA_TNIL) v = def;
  else if (!isint || v < 0 || v > 255)
    arg_error(L, arg, "field '%s.%s' must be an integer in 0..255, got %s", parent, name,
              luaL_tolstring(L, -1, NULL));
  lua_pop(L, 1);
  return (uint8_t)v;
}

/* blend = {equation=, src=, dst=, alpha_equation=, src_alpha=, dst_alpha=,
 * color=} at idx: fields left out are add, one, zero, the colour ones for
 * alpha, and a constant colour of 0. */
static gs_drv_blend blend_table(lua_State *L, int arg, int idx) {
  static const char *const known[] = {"equation", "src", "dst", "alpha_equation", "src_alpha", "dst_alpha",
                                      "color", NULL};
  check_fields_of(L, arg, idx, "blend", known);
  gs_drv_blend b = {true, GS_DRV_BLEND_ADD, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ZERO, GS_DRV_BLEND_ADD,
                    GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ZERO, 0};
  b.equation = (gs_drv_blend_equation)sub_option(L, arg, idx, "blend", "equation", 0, blend_equation_names);
  b.src = (gs_drv_blend_factor)sub_option(L, arg, idx, "blend", "src", b.src, blend_factor_names);
  b.dst = (gs_drv_blend_factor)sub_option(L, arg, idx, "blend", "dst", b.dst, blend_factor_names);
  b.alpha_equation =
      (gs_drv_blend_equation)sub_option(L, arg, idx, "blend", "alpha_equation", b.equation, blend_equation_names);
  b.src_alpha = (gs_drv_blend_factor)sub_option(L, arg, idx, "blend", "src_alpha", b.src, blend_factor_names);
  b.dst_alpha = (gs_drv_blend_factor)sub_option(L, arg, idx, "blend", "dst_alpha", b.dst, blend_factor_names);
  int t = lua_getfield(L, idx, "color");
  if (t != LUA_TNIL) {
    if (t != LUA_TTABLE || luaL_len(L, -1) != 4)
      arg_error(L, arg, "field 'blend.color' must be {r, g, b, a} in 0..1");
    for (int i = 0; i < 4; i++) {
      if (lua_geti(L, -1, i + 1) != LUA_TNUMBER)
        arg_error(L, arg, "field 'blend.color': component %d is not a number", i + 1);
      double v = lua_tonumber(L, -1);
      if (!(v >= 0.0 && v <= 1.0)) arg_error(L, arg, "field 'blend.color': component %d must be in 0..1", i + 1);
      b.color |= unit_byte(v) << (8 * i);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return b;
}

/* The blend field of table arg into *b (false, a preset name or a table). */
static void blend_field(lua_State *L, int arg, gs_drv_blend *b) {
  int t = lua_getfield(L, arg, "blend");
  if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
    b->enable = false;
  } else if (t == LUA_TSTRING) {
    lua_pushvalue(L, -1);
    int p = lgs_option_value(L, arg, "blend", blend_preset_names);
    *b = (gs_drv_blend){true, blend_presets[p][0], blend_presets[p][1], blend_presets[p][2],
                        blend_presets[p][0], blend_presets[p][1], blend_presets[p][2], 0};
  } else if (t == LUA_TTABLE) {
    *b = blend_table(L, arg, lua_gettop(L));
  } else if (t != LUA_TNIL) {
    arg_error(L, arg, "field 'blend' must be false, a name ('alpha', 'add', ...) or a table, got %s",
              luaL_typename(L, -1));
  }
  lua_pop(L, 1);
}

/* One face {func=, ref=, mask=, write_mask=, fail=, zfail=, zpass=} at idx
 * (field `what`), fields left out taken from def. */
static gs_drv_stencil_face stencil_face(lua_State *L, int arg, int idx, const char *what,
                                        const gs_drv_stencil_face *def, int with_back) {
  static const char *const known[] = {"func", "ref", "mask", "write_mask", "fail", "zfail", "zpass", "back", NULL};
  static const char *const face_known[] = {"func", "ref", "mask", "write_mask", "fail", "zfail", "zpass", NULL};
  check_fields_of(L, arg, idx, what, with_back ? known : face_known);
  gs_drv_stencil_face f = *def;
  f.func = (uint8_t)sub_option(L, arg, idx, what, "func", f.func, depth_func_names);
  f.ref = sub_byte(L, arg, idx, what, "ref", f.ref);
  f.mask = sub_byte(L, arg, idx, what, "mask", f.mask);
  f.write_mask = sub_byte(L, arg, idx, what, "write_mask", f.write_mask);
  f.fail = (uint8_t)sub_option(L, arg, idx, what, "fail", f.fail, stencil_op_names);
  f.zfail = (uint8_t)sub_option(L, arg, idx, what, "zfail", f.zfail, stencil_op_names);
  f.zpass = (uint8_t)sub_option(L, arg, idx, what, "zpass", f.zpass, stencil_op_names);
  return f;
}

/* The stencil field of table arg into *s: false, or a table whose `back`
 * (if any) gives the back face, its fields left out taken from the front. */
static void stencil_field(lua_State *L, int arg, gs_drv_stencil *s) {
  int t = lua_getfield(L, arg, "stencil");
  if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
    s->enable = false;
  } else if (t == LUA_TTABLE) {
    int idx = lua_gettop(L);
    const gs_drv_stencil_face def = {GS_DRV_ALWAYS, 0, 0xff, 0xff, GS_DRV_STENCIL_KEEP, GS_DRV_STENCIL_KEEP,
                                     GS_DRV_STENCIL_KEEP};
    s->enable = true;
    s->front = stencil_face(L, arg, idx, "stencil", &def, 1);
    s->back = s->front;
    int bt = lua_getfield(L, idx, "back");
    if (bt == LUA_TTABLE) s->back = stencil_face(L, arg, idx + 1, "stencil.back", &s->front, 0);
    else if (bt != LUA_TNIL) arg_error(L, arg, "field 'stencil.back' must be a table, got %s", luaL_typename(L, -1));
    lua_pop(L, 1);
  } else if (t != LUA_TNIL) {
    arg_error(L, arg, "field 'stencil' must be false or a table, got %s", luaL_typename(L, -1));
  }
  lua_pop(L, 1);
}

/* The color_mask field {r, g, b, a} (booleans) of table arg into *mask. */
static void color_mask_field(lua_State *L, int arg, uint8_t *mask) {
  int t = lua_getfield(L, arg, "color_mask");
  if (t == LUA_TTABLE && luaL_len(L, -1) == 4) {
    uint8_t m = 0;
    for (int i = 0; i < 4; i++) {
      if (lua_geti(L, -1, i + 1) != LUA_TBOOLEAN)
        arg_error(L, arg, "field 'color_mask': entry %d must be a boolean", i + 1);
      m |= (uint8_t)(lua_toboolean(L, -1) << i);
      lua_pop(L, 1);
    }
    *mask = m;
  } else if (t != LUA_TNIL) {
    arg_error(L, arg, "field 'color_mask' must be {r, g, b, a} booleans");
  }
  lua_pop(L, 1);
}
static const char *const cull_names[] = {"none", "front", "back", "both", NULL};
static const char *const front_names[] = {"ccw", "cw", NULL};

/* frame:state{...}: changes the render state of the draws that follow;
 * fields left out keep their value (docs/scenes.md lists them). */
static int frame_state(lua_State *L) {
  static const char *const known[] = {"depth_test", "depth_write", "cull", "front", "viewport", "depth_range",
                                      "scissor", "point_size", "line_width", "blend", "color_mask", "stencil",
                                      NULL};
  l_frame *f = check_open_frame(L, "state");
  luaL_checktype(L, 2, LUA_TTABLE);
  check_fields(L, 2, known);
  gs_drv_state s = f->state;
  int t = lua_getfield(L, 2, "depth_test");
  if (t == LUA_TBOOLEAN) {
    s.depth_test = lua_toboolean(L, -1);
  } else if (t != LUA_TNIL) {
    lua_pop(L, 1);
    s.depth_func = (gs_drv_depth_func)lgs_optfield_option(L, 2, 2, "depth_test", s.depth_func, depth_func_names);
    s.depth_test = true;
    lua_pushnil(L);
  }
  lua_pop(L, 1);
  s.depth_write = bool_field(L, 2, "depth_write", s.depth_write);
  s.cull = (gs_drv_cull)lgs_optfield_option(L, 2, 2, "cull", s.cull, cull_names);
  s.front_cw = lgs_optfield_option(L, 2, 2, "front", s.front_cw, front_names);
  t = lua_getfield(L, 2, "viewport");
  if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) s.viewport = (gs_drv_rect){0, 0, 0, 0};
  else if (t != LUA_TNIL) s.viewport = rect_field(L, 2, "viewport");
  lua_pop(L, 1);
  t = lua_getfield(L, 2, "scissor");
  if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) s.scissor = false;
  else if (t != LUA_TNIL) s.scissor = true, s.scissor_rect = rect_field(L, 2, "scissor");
  lua_pop(L, 1);
  t = lua_getfield(L, 2, "depth_range");
  if (t != LUA_TNIL) {
    if (t != LUA_TTABLE || luaL_len(L, -1) != 2) arg_error(L, 2, "field 'depth_range' must be {near, far}");
    lua_geti(L, -1, 1);
    lua_geti(L, -2, 2);
    if (!lua_isnumber(L, -2) || !lua_isnumber(L, -1)) arg_error(L, 2, "field 'depth_range' must be {near, far}");
    s.depth_near = (float)lua_tonumber(L, -2);
    s.depth_far = (float)lua_tonumber(L, -1);
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  s.point_size = (float)num_field(L, 2, "point_size", s.point_size);
  s.line_width = (float)num_field(L, 2, "line_width", s.line_width);
  if (!(s.point_size > 0.0f && s.point_size <= 2048.0f)) arg_error(L, 2, "field 'point_size' must be in (0, 2048]");
  if (!(s.line_width > 0.0f && s.line_width <= 2048.0f)) arg_error(L, 2, "field 'line_width' must be in (0, 2048]");
  blend_field(L, 2, &s.blend);
  color_mask_field(L, 2, &s.color_mask);
  stencil_field(L, 2, &s.stencil);
  f->state = s;
  return 0;
}

/* shader:variant{blend =, color_mask =, stencil =} -> the disassembly of
 * the fragment program as the driver links it for that state (the fields
 * as in frame:state, left out: off), so a scene can show what blending and
 * stencil add (docs/blending.md). The program's own text when the state
 * needs no variant. */
static int shader_variant(lua_State *L) {
  static const char *const known[] = {"blend", "color_mask", "stencil", "samples", NULL};
  l_shader *s = luaL_checkudata(L, 1, SHADER_TYPE);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  check_fields(L, 2, known);
  gs_drv_state st;
  gs_drv_state_init(&st);
  blend_field(L, 2, &st.blend);
  color_mask_field(L, 2, &st.color_mask);
  stencil_field(L, 2, &st.stencil);
  lua_Integer samples = int_field(L, 2, "samples", 1, 4, 1);
  if (samples != 1 && samples != 4) arg_error(L, 2, "field 'samples' must be 1 or 4");
  const gs_drv_program *p = &s->prog[PROG_FRAGMENT];
  if (!p->code) return luaL_error(L, "shader:variant: the shader has been released");
  void **code = lgs_newbox(L), **linked = lgs_newbox(L), **text = lgs_newbox(L);
  gs_diag d;
  if (!(*code = malloc(p->size))) return luaL_error(L, "shader:variant: out of memory");
  if (gs_mem_read(mem_of(L), p->code, *code, p->size, &d) < 0) return lgs_error(L, "shader:variant", d.msg);
  const gs_isa *isa = gs_isa_by_id(p->isa); /* its linker and disassembler */
  uint8_t *out = NULL;
  size_t nout = p->size;
  gs_drv_fs_link_info info = {s->sh.fs_threaded, (unsigned)samples, s->sh.fs_lines};
  if (isa->link_fragment && isa->link_fragment(*code, p->size, &st, &info, &out, &nout, &d) < 0)
    return lgs_error(L, "shader:variant", d.msg);
  *linked = out;
  char *txt;
  if (isa->disassemble(out ? out : *code, nout, 0, &txt, &d) < 0) return lgs_error(L, "shader:variant", d.msg);
  *text = txt;
  lua_pushstring(L, txt);
  return 1;
}

/* ---- uniforms ---------------------------------------------------------------- */

static const char *const uniform_names[GS_DRV_U_KIND_COUNT] = {
  NULL, "viewport_x_scale", "viewport_y_scale", "viewport_z_scale", "viewport_z_offset"};

/* Converts the uniform value at idx (a number, a driver value's name,
 * {u32 = n}, a buffer or target, or a list of these) appending to u[*n]
 * (u == NULL: only counts). `what` names the list for messages. */
static void put_uniform(lua_State *L, int arg, const char *what, int idx, gs_drv_uniform *u, size_t *n, int depth) {
  idx = lua_absindex(L, idx);
  size_t k = *n;
  gs_drv_uniform v = {GS_DRV_U_CONSTANT, 0};
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    v.value = float_bits(lua_tonumber(L, idx));
    break;
  case LUA_TSTRING: {
    const char *s = lua_tostring(L, idx);
    for (int i = 1; i < GS_DRV_U_KIND_COUNT && v.kind == GS_DRV_U_CONSTANT; i++)
      if (strcmp(s, uniform_names[i]) == 0) v.kind = (uint32_t)i;
    if (v.kind == GS_DRV_U_CONSTANT)
      arg_error(L, arg, "field 'uniforms'%s: uniform %d: unknown driver value '%s' (known: viewport_x_scale, "
                "viewport_y_scale, viewport_z_scale, viewport_z_offset)", what, (int)k + 1, s);
    break;
  }
  case LUA_TUSERDATA: {
    l_buffer *b = luaL_testudata(L, idx, BUFFER_TYPE);
    l_target *t = luaL_testudata(L, idx, TARGET_TYPE);
    l_texture *x = luaL_testudata(L, idx, TEXTURE_TYPE);
    if (!b && !t && !x) arg_error(L, arg, "field 'uniforms'%s: uniform %d: a %s is not a uniform", what, (int)k + 1, luaL_typename(L, idx));
    frame_ref(L, idx);
    if (x) { /* its two TMU config parameters */
      uint32_t p[2];
      gs_drv_texture_config(&x->t, p);
      if (u) u[k] = (gs_drv_uniform){GS_DRV_U_CONSTANT, p[0]}, u[k + 1] = (gs_drv_uniform){GS_DRV_U_CONSTANT, p[1]};
      *n = k + 2;
      return;
    }
    v.value = b ? b->addr : t->t.framebuffer;
    break;
  }
  case LUA_TTABLE: {
    if (lua_getfield(L, idx, "u32") != LUA_TNIL) {
      int isint = 0;
      lua_Integer w = lua_tointegerx(L, -1, &isint);
      if (!isint || w < -0x80000000LL || w > 0xFFFFFFFFLL)
        arg_error(L, arg, "field 'uniforms'%s: uniform %d: u32 must be an integer in -2^31..2^32-1", what, (int)k + 1);
      v.value = (uint32_t)((uint64_t)w & 0xFFFFFFFFu);
      lua_pop(L, 1);
      break;
    }
    lua_pop(L, 1);
    if (depth > 8) arg_error(L, arg, "field 'uniforms'%s is nested too deeply", what);
    lua_Integer len = luaL_len(L, idx);
    for (lua_Integer i = 1; i <= len; i++) {
      lua_geti(L, idx, i);
      put_uniform(L, arg, what, -1, u, n, depth + 1);
      lua_pop(L, 1);
    }
    return;
  }
  default:
    arg_error(L, arg, "field 'uniforms'%s: uniform %d: a %s is not a uniform", what, (int)k + 1, luaL_typename(L, idx));
  }
  if (u) u[k] = v;
  *n = k + 1;
}

/* Converts the uniform list at idx into a scratch userdata (pushed). */
static gs_drv_uniforms read_uniforms(lua_State *L, int arg, const char *what, int idx) {
  size_t n = 0;
  idx = lua_absindex(L, idx);
  if (lua_isnil(L, idx)) {
    lua_pushnil(L);
    return (gs_drv_uniforms){NULL, 0};
  }
  if (!lua_istable(L, idx)) arg_error(L, arg, "field 'uniforms'%s must be a list", what);
  put_uniform(L, arg, what, idx, NULL, &n, 0);
  gs_drv_uniform *u = lua_newuserdatauv(L, (n ? n : 1) * sizeof *u, 0);
  n = 0;
  put_uniform(L, arg, what, idx, u, &n, 0);
  return (gs_drv_uniforms){u, n};
}

/* Reads field 'uniforms' of the draw table arg into u[3] (scratch pushed):
 * a list for every stage, or {vertex=, coordinate=, fragment=} (the
 * coordinate shader takes the vertex list when it has none). */
static void draw_uniforms(lua_State *L, int arg, gs_drv_uniforms u[3]) {
  int t = lua_getfield(L, arg, "uniforms");
  int top = lua_gettop(L);
  memset(u, 0, 3 * sizeof *u);
  if (t == LUA_TNIL) return;
  if (t != LUA_TTABLE) arg_error(L, arg, "field 'uniforms' must be a list, got %s", luaL_typename(L, top));
  int staged = 0;
  for (int p = 0; p < 3; p++) {
    staged |= lua_getfield(L, top, prog_fields[p]) != LUA_TNIL;
    lua_pop(L, 1);
  }
  if (!staged) {
    u[0] = u[1] = u[2] = read_uniforms(L, arg, "", top);
    return;
  }
  static const char *const labels[3] = {".vertex", ".coordinate", ".fragment"};
  for (int p = 0; p < 3; p++) {
    lua_getfield(L, top, prog_fields[p]);
    u[p] = read_uniforms(L, arg, labels[p], -1);
  }
  if (!u[GS_DRV_STAGE_COORDINATE].n) u[GS_DRV_STAGE_COORDINATE] = u[GS_DRV_STAGE_VERTEX];
}

/* ---- draws ------------------------------------------------------------------- */

static const char *const mode_names[] = {"points", "lines", "line_loop", "line_strip", "triangles", "strip",
                                         "fan", "triangle_strip", "triangle_fan", NULL};
static const gs_drv_mode mode_codes[] = {GS_DRV_POINTS, GS_DRV_LINES, GS_DRV_LINE_LOOP, GS_DRV_LINE_STRIP,
                                         GS_DRV_TRIANGLES, GS_DRV_TRIANGLE_STRIP, GS_DRV_TRIANGLE_FAN,
                                         GS_DRV_TRIANGLE_STRIP, GS_DRV_TRIANGLE_FAN};

/* The userdata of type tname in field `name` of table arg (pushed), or an
 * error naming the field; NULL (nothing pushed) for nil when optional. */
static void *object_field(lua_State *L, int arg, const char *name, const char *tname, const char *what, int optional) {
  int t = lua_getfield(L, arg, name);
  void *p = luaL_testudata(L, -1, tname);
  if (!p) {
    if (t == LUA_TNIL && optional) {
      lua_pop(L, 1);
      return NULL;
    }
    arg_error(L, arg, "field '%s' must be %s, got %s", name, what, luaL_typename(L, -1));
  }
  return p;
}

#define WARNED_KEY "gpusim.warned" /* registry: {["file:line:"] = true} of the warnings printed */

/* Prints "gpusim: warning: <where> frame:draw: ..." on stderr for a draw
 * whose count vertices of mode m make no primitive, once per place in the
 * script (a scene draws every frame). */
static void warn_no_primitive(lua_State *L, gs_drv_mode m, uint32_t count) {
  static const char *const mode[] = {"points", "lines", "line_loop", "line_strip", "triangles", "triangle_strip",
                                     "triangle_fan"};
  static const char *const prim[] = {"a point", "a line", "a line loop", "a line strip", "a triangle",
                                     "a triangle strip", "a triangle fan"};
  luaL_where(L, 1);
  if (lua_getfield(L, LUA_REGISTRYINDEX, WARNED_KEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, WARNED_KEY);
  }
  lua_pushvalue(L, -2);
  if (lua_rawget(L, -2) == LUA_TNIL) {
    fprintf(stderr, "gpusim: warning: %sframe:draw: %u %s of %s %s no primitive (%s takes %u); the draw "
            "draws nothing\n", lua_tostring(L, -3), (unsigned)count, count == 1 ? "vertex" : "vertices", mode[m],
            count == 1 ? "makes" : "make", prim[m], gs_drv_mode_vertices(m));
    fflush(stderr);
    lua_pushvalue(L, -3);
    lua_pushboolean(L, 1);
    lua_rawset(L, -4);
  }
  lua_pop(L, 3);
}

/* frame:draw{mode=, vertices=, indices=, first=, count=, shader=,
 * uniforms=}: one draw call with the frame's current state. */
static int frame_draw(lua_State *L) {
  static const char *const known[] = {"mode", "vertices", "indices", "first", "count", "shader", "uniforms", NULL};
  l_frame *f = check_open_frame(L, "draw");
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  check_fields(L, 2, known);
  gs_drv_draw dr;
  memset(&dr, 0, sizeof dr);
  dr.mode = mode_codes[lgs_optfield_option(L, 2, 2, "mode", 4, mode_names)];
  l_buffer *vb = object_field(L, 2, "vertices", BUFFER_TYPE, "a vertex buffer (gpusim.buffer)", 0); /* 3 */
  if (vb->index) arg_error(L, 2, "field 'vertices' is an index buffer; give it as 'indices'");
  l_shader *sh = object_field(L, 2, "shader", SHADER_TYPE, "a shader (gpusim.shader)", 0);        /* 4 */
  l_buffer *ib = object_field(L, 2, "indices", BUFFER_TYPE, "an index buffer (gpusim.buffer)", 1); /* 5? */
  if (ib && !ib->index) arg_error(L, 2, "field 'indices' is a vertex buffer; give an index buffer (format 'u8' or 'u16')");
  if (vb->nattrs != sh->ninputs)
    arg_error(L, 2, "the shader declares %d inputs, the vertex buffer has %d attributes", (int)sh->ninputs,
              (int)vb->nattrs);
  if (!vb->addr || (ib && !ib->addr) || !sh->prog[0].code) arg_error(L, 2, "an object of this draw has been released");
  uint32_t avail = ib ? ib->count : vb->count;
  lua_Integer first = int_field(L, 2, "first", 0, avail, 0);
  lua_Integer count = int_field(L, 2, "count", 0, avail - first, avail - first);
  gs_drv_attr attrs[GS_DRV_MAX_ATTRS];
  for (unsigned i = 0; i < vb->nattrs; i++) {
    const l_attr *a = &vb->attrs[i];
    attrs[i] = (gs_drv_attr){vb->addr + a->offset, elem_types[a->type].size * a->comps, vb->stride};
  }
  dr.shader = &sh->sh;
  dr.attrs = attrs;
  dr.nattrs = vb->nattrs;
  dr.indices = ib ? ib->addr : 0;
  dr.index_size = ib ? ib->stride : 0;
  dr.first = (uint32_t)first;
  dr.count = (uint32_t)count;
  dr.state = &f->state;
  draw_uniforms(L, 2, dr.uniforms);
  gs_diag d;
  if (gs_driver_draw(f->drv, &dr, &d) < 0) return luaL_error(L, "frame:draw: %s", d.msg);
  if (dr.count && !gs_drv_primitives(dr.mode, dr.count)) warn_no_primitive(L, dr.mode, dr.count);
  lua_getiuservalue(L, 1, 3);
  luaL_where(L, 1);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  lua_getiuservalue(L, 1, 4);
  lua_pushinteger(L, (f->state.blend.enable ? 1 : 0) | (lua_Integer)(f->state.color_mask & 0xFu) << 1 | 32);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -3));
  lua_pop(L, 2);
  lua_getfield(L, 2, "vertices");
  frame_ref(L, -1);
  lua_getfield(L, 2, "shader");
  frame_ref(L, -1);
  lua_getfield(L, 2, "indices");
  if (!lua_isnil(L, -1)) frame_ref(L, -1);
  return 0;
}

static int frame_index(lua_State *L) {
  l_frame *f = luaL_checkudata(L, 1, FRAME_TYPE);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "time") == 0) lua_pushnumber(L, f->time);
  else if (strcmp(k, "number") == 0) lua_pushinteger(L, f->number);
  else if (strcmp(k, "target") == 0) lua_getiuservalue(L, 1, 1);
  else if (strcmp(k, "width") == 0 || strcmp(k, "height") == 0) {
    lua_getiuservalue(L, 1, 1);
    lua_getfield(L, -1, k);
  } else if (strcmp(k, "draw") == 0) push_method(L, frame_draw);
  else if (strcmp(k, "clear") == 0) push_method(L, frame_clear);
  else if (strcmp(k, "state") == 0) push_method(L, frame_state);
  else lua_pushnil(L);
  return 1;
}

static int frame_tostring(lua_State *L) {
  l_frame *f = luaL_checkudata(L, 1, FRAME_TYPE);
  lua_pushfstring(L, "gpusim.Frame (%I, t = %f%s)", (LUAI_UACINT)f->number, f->time, f->open ? "" : ", over");
  return 1;
}

/* ---- gpusim.frame and gpusim.render ------------------------------------------ */

/* gpusim.frame(fn [, target]): fn(frame, t) draws each frame into target
 * (default: a 640×480 RGBA8888 target made at the first render).
 * gpusim.frame() returns the callback and its target (nil if none): how
 * the gpusim program learns that a script has frames to render. */
static int l_frame_set(lua_State *L) {
  if (lua_isnone(L, 1)) {
    push_scene(L);
    lua_getfield(L, -1, "fn");
    lua_getfield(L, -2, "target");
    return 2;
  }
  luaL_checktype(L, 1, LUA_TFUNCTION);
  if (!lua_isnoneornil(L, 2)) luaL_checkudata(L, 2, TARGET_TYPE);
  push_scene(L);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "fn");
  if (!lua_isnoneornil(L, 2)) {
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, "target");
  }
  return 0;
}

/* Pushes the render target of gpusim.render: the option's, the scene's, or
 * a new default one that becomes the scene's. */
static l_target *render_target(lua_State *L, int opts, int scene) {
  if (opts && lua_getfield(L, opts, "target") != LUA_TNIL) {
    l_target *t = luaL_testudata(L, -1, TARGET_TYPE);
    if (!t) arg_error(L, 1, "field 'target' must be a gpusim.target, got %s", luaL_typename(L, -1));
    return t;
  }
  if (opts) lua_pop(L, 1);
  if (lua_getfield(L, scene, "target") == LUA_TUSERDATA) return luaL_checkudata(L, -1, TARGET_TYPE);
  lua_pop(L, 1);
  gs_mem *m = mem_of(L);
  l_target *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, TARGET_TYPE);
  u->t.width = DEFAULT_WIDTH;
  u->t.height = DEFAULT_HEIGHT;
  gs_diag d;
  if (gs_drv_target_alloc(m, &u->t, &d) < 0) lgs_error(L, "render", d.msg);
  lua_pushvalue(L, -1);
  lua_setfield(L, scene, "target");
  return u;
}

/* Pushes the table gpusim.render returns for frame f. */
static void push_frame_result(lua_State *L, const gs_drv_frame *f, int target, const l_frame *fr) {
  lua_createtable(L, 0, 20);
  set_int(L, "bin_start", f->bin_start);
  set_int(L, "bin_end", f->bin_end);
  set_int(L, "render_start", f->render_start);
  set_int(L, "render_end", f->render_end);
  set_int(L, "framebuffer", f->framebuffer);
  set_int(L, "width", f->width);
  set_int(L, "height", f->height);
  set_int(L, "stride", f->stride);
  lua_pushstring(L, format_names[f->format]);
  lua_setfield(L, -2, "format");
  set_int(L, "tiles_x", f->tiles_x);
  set_int(L, "tiles_y", f->tiles_y);
  set_int(L, "tile_alloc", f->tile_alloc);
  set_int(L, "tile_alloc_size", f->tile_alloc_size);
  set_int(L, "tsda", f->tsda);
  set_int(L, "draws", f->draws);
  set_int(L, "number", fr->number);
  lua_pushnumber(L, fr->time);
  lua_setfield(L, -2, "time");
  lua_pushvalue(L, target);
  lua_setfield(L, -2, "target");
}

/* Runs frame f's lists through the executor with `threads` host threads
 * (0: all cores), handing it the fragment shaders' interpolation modes;
 * pushes the run's statistics as a table. A binning pass that runs out of
 * tile allocation memory gets a doubled pool and runs again, as the kernel
 * hands the binner overspill memory (*f then describes the new memory). */
/* Raises the executor's error: when it came from a draw, prefixed with the
 * frame:draw call that made it (the frame userdata is at index frame). */
static void run_error(lua_State *L, gs_driver *drv, int frame) {
  gs_gpu *g = lgs_gpu(L);
  uint32_t call = gs_driver_draw_of_record(drv, gs_v3d_fault_record(g));
  if (!call) lgs_error(L, "render", gs_gpu_error(g));
  const l_frame *fr = lua_touserdata(L, frame);
  lua_getiuservalue(L, frame, 3);
  lua_rawgeti(L, -1, call);
  luaL_error(L, "gpusim.render: %sframe:draw (draw %d of frame %d): %s", lua_tostring(L, -1), (int)call,
             (int)fr->number, gs_gpu_error(g));
}

static void run_frame(lua_State *L, gs_driver *drv, gs_drv_frame *f, unsigned threads, int frame) {
  gs_gpu *g = lgs_gpu(L);
  gs_v3d_options o;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  o.unif_streams = f->unif_streams;
  o.n_unif_streams = f->n_unif_streams;
  gs_v3d_stats st;
  int rc;
  while ((rc = gs_v3d_run_stats(g, f->bin_start, f->bin_end, f->render_start, f->render_end, &o, &st)) ==
             GS_ENOMEM && strstr(gs_gpu_error(g), "tile allocation memory")) {
    gs_diag d;
    if (gs_driver_grow_tile_memory(drv, f, &d) < 0) lgs_error(L, "render", d.msg);
  }
  if (rc < 0) run_error(L, drv, frame);
  if (st.exceptions) /* a program broke its SPH's gates: the picture is not what its code asks for */
    fprintf(stderr, "gpusim: warning: frame %d: %llu shader exception%s (the picture is not what the programs ask "
            "for: an operation their SPH does not allow, an input read outside its buffer, or an output never written), e.g. "
            "%s\n", (int)((const l_frame *)lua_touserdata(L, frame))->number,
            (unsigned long long)st.exceptions, st.exceptions == 1 ? "" : "s", st.exception);
  lua_createtable(L, 0, 11);
  set_int(L, "tiles", (lua_Integer)st.tiles);
  set_int(L, "cs_vertices", (lua_Integer)st.cs_vertices);
  set_int(L, "prims_binned", (lua_Integer)st.prims_binned);
  set_int(L, "tile_refs", (lua_Integer)st.tile_refs);
  set_int(L, "vs_vertices", (lua_Integer)st.vs_vertices);
  set_int(L, "prims_drawn", (lua_Integer)st.prims_drawn);
  set_int(L, "fs_batches", (lua_Integer)st.fs_batches);
  set_int(L, "fragments", (lua_Integer)st.fragments);
  set_int(L, "exceptions", (lua_Integer)st.exceptions);
  if (st.exceptions) {
    lua_pushstring(L, st.exception);
    lua_setfield(L, -2, "exception");
  }
  lua_pushnumber(L, st.bin_seconds);
  lua_setfield(L, -2, "bin_seconds");
  lua_pushnumber(L, st.render_seconds);
  lua_setfield(L, -2, "render_seconds");
}

/* gpusim.render([{time=, target=, width=, height=, run=, threads=,
 * tile_pool=}]) ->
 * frame table: runs the frame callback, lowers its draws into control
 * lists and (unless run = false) runs them, so the image is in the
 * target's frame buffer (docs/scenes.md). width and height resize the
 * target. */
static int l_render(lua_State *L) {
  static const char *const known[] = {"time", "target", "width", "height", "run", "threads", "tile_pool", NULL};
  lgs_gpu(L);
  int opts = 0;
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    check_fields(L, 1, known);
    opts = 1;
  }
  lua_settop(L, 1);
  push_scene(L); /* 2 */
  if (lua_getfield(L, 2, "fn") != LUA_TFUNCTION) /* 3 */
    return luaL_error(L, "gpusim.render: no frame callback: the script must call "
                         "gpusim.frame(function(frame, t) ... end)");
  lua_getfield(L, 2, "number"); /* 4 */
  lua_Integer number = lua_tointeger(L, 4);
  l_target *t = render_target(L, opts, 2); /* 5 */
  if (opts) {
    lua_Integer w = int_field(L, 1, "width", 1, GS_DRV_MAX_SIDE, t->t.width);
    lua_Integer h = int_field(L, 1, "height", 1, GS_DRV_MAX_SIDE, t->t.height);
    target_resize(L, t, (uint32_t)w, (uint32_t)h);
  }
  double time = opts ? num_field(L, 1, "time", (double)number / 60.0) : (double)number / 60.0;
  gs_driver *drv = get_driver(L);
  gs_diag d;
  if (gs_driver_begin_frame(drv, &t->t, &d) < 0) return lgs_error(L, "render", d.msg);
  l_frame *f = lua_newuserdatauv(L, sizeof *f, 4); /* 6 */
  memset(f, 0, sizeof *f);
  luaL_setmetatable(L, FRAME_TYPE);
  lua_pushvalue(L, 5);
  lua_setiuservalue(L, 6, 1);
  lua_newtable(L);
  lua_setiuservalue(L, 6, 2);
  lua_newtable(L);
  lua_setiuservalue(L, 6, 3);
  lua_newtable(L);
  lua_setiuservalue(L, 6, 4);
  f->time = time;
  f->number = number;
  f->drv = drv;
  f->clear = (gs_drv_clear){0xff000000u, 1.0f, 0};
  gs_drv_state_init(&f->state);
  f->open = 1;
  lua_pushvalue(L, 3);
  lua_pushvalue(L, 6);
  lua_pushnumber(L, time);
  int rc = lua_pcall(L, 2, 0, 0);
  f->open = 0;
  if (rc != LUA_OK) return lua_error(L);
  gs_driver_set_clear(drv, &f->clear);
  gs_driver_set_tile_pool(drv, opts ? (uint32_t)int_field(L, 1, "tile_pool", 0, GS_DRV_MAX_TILE_POOL, 0) : 0);
  gs_drv_frame out;
  if (gs_driver_end_frame(drv, &out, &d) < 0) return lgs_error(L, "render", d.msg);
  lua_pushvalue(L, 6);
  lua_setfield(L, 2, "last"); /* keeps what the lists point to alive */
  lua_pushinteger(L, number + 1);
  lua_setfield(L, 2, "number");
  if (!opts || bool_field(L, 1, "run", 1)) {
    unsigned threads = opts ? (unsigned)int_field(L, 1, "threads", 0, 1024, 0) : 0;
    run_frame(L, drv, &out, threads, 6);
    f->out = out, f->ran = 1, f->threads = threads;
    push_frame_result(L, &out, 5, f);
    lua_rotate(L, -2, 1);
    lua_setfield(L, -2, "stats");
  } else {
    push_frame_result(L, &out, 5, f);
  }
  return 1;
}

/* For gpusim.why (lwhy.c): the last frame gpusim.render made. */
int lgs_last_frame(lua_State *L, lgs_frame_info *out) {
  push_scene(L);
  lua_getfield(L, -1, "last");
  l_frame *f = luaL_testudata(L, -1, FRAME_TYPE);
  lua_remove(L, -2);
  if (!f) return lua_pop(L, 1), 0;
  out->frame = f->out, out->ran = f->ran, out->threads = f->threads, out->number = f->number;
  out->drv = f->drv;
  return 1;
}

/* ---- registration ------------------------------------------------------------ */

static const luaL_Reg scene_funcs[] = {
  {"target", l_target_new},
  {"buffer", l_buffer_new},
  {"shader", l_shader_new},
  {"texture", l_texture_new},
  {"frame", l_frame_set},
  {"render", l_render},
  {"why", lgs_why},
  {"why_all", lgs_why_all_lua},
  {"debug", lgs_debug},
  {NULL, NULL}
};

static const luaL_Reg target_meta[] = {
  {"__gc", target_gc}, {"__close", target_gc}, {"__index", target_index}, {"__tostring", target_tostring}, {NULL, NULL}};
static const luaL_Reg buffer_meta[] = {
  {"__gc", buffer_gc}, {"__close", buffer_gc}, {"__index", buffer_index}, {"__tostring", buffer_tostring}, {NULL, NULL}};
static const luaL_Reg shader_meta[] = {
  {"__gc", shader_gc}, {"__close", shader_gc}, {"__index", shader_index}, {"__tostring", shader_tostring}, {NULL, NULL}};
static const luaL_Reg texture_meta[] = {
  {"__gc", texture_gc}, {"__close", texture_gc}, {"__index", texture_index}, {"__tostring", texture_tostring}, {NULL, NULL}};
static const luaL_Reg frame_meta[] = {
  {"__index", frame_index}, {"__tostring", frame_tostring}, {NULL, NULL}};
static const luaL_Reg driver_meta[] = {
  {"__gc", driver_gc}, {"__close", driver_gc}, {NULL, NULL}};

/* Creates the metatable tname with metamethods l, each a closure over the
 * context at index ctx. */
static void new_metatable(lua_State *L, int ctx, const char *tname, const luaL_Reg *l) {
  if (luaL_newmetatable(L, tname)) {
    lua_pushvalue(L, ctx);
    luaL_setfuncs(L, l, 1);
  }
  lua_pop(L, 1);
}

/* Adds gpusim.target, buffer, shader, texture, frame and render to the module table
 * on top of the stack; ctx is the index of the context userdata. */
void lgs_open_scene(lua_State *L, int ctx);
void lgs_open_scene(lua_State *L, int ctx) {
  new_metatable(L, ctx, TARGET_TYPE, target_meta);
  new_metatable(L, ctx, BUFFER_TYPE, buffer_meta);
  new_metatable(L, ctx, SHADER_TYPE, shader_meta);
  new_metatable(L, ctx, TEXTURE_TYPE, texture_meta);
  new_metatable(L, ctx, FRAME_TYPE, frame_meta);
  new_metatable(L, ctx, DRIVER_TYPE, driver_meta);
  lua_pushvalue(L, ctx);
  luaL_setfuncs(L, scene_funcs, 1);
}
