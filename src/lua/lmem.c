/* lmem.c — gpusim.mem: allocating GPU memory and moving typed values and
 * bytes between Lua and it. The conversion rules are in the manual at the
 * top of include/gpusim/luamod.h.
 *
 * Values are encoded into a scratch userdata first and copied into GPU
 * memory in one bounds-checked gs_mem_write, so a rejected value leaves
 * memory untouched; reads copy out first for the same reason (a Lua
 * finalizer run while the result table grows may free the allocation).
 * Byte order is spelt out with shifts: GPU memory is little-endian whatever
 * the host is.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include "gpusim/mem.h"
#include "lua/lgpusim.h"

typedef enum { ELEM_UNSIGNED, ELEM_SIGNED, ELEM_FLOAT } elem_kind;

typedef struct elem_type {
  const char *name;
  unsigned size; /* bytes */
  elem_kind kind;
} elem_type;

static const elem_type elem_types[] = {
  {"u8", 1, ELEM_UNSIGNED},  {"u16", 2, ELEM_UNSIGNED}, {"u32", 4, ELEM_UNSIGNED},
  {"i8", 1, ELEM_SIGNED},    {"i16", 2, ELEM_SIGNED},   {"i32", 4, ELEM_SIGNED},
  {"f32", 4, ELEM_FLOAT},
};
#define N_ELEM_TYPES (sizeof elem_types / sizeof elem_types[0])

/* Checks that argument arg names an element type; the error lists them. */
static const elem_type *check_type(lua_State *L, int arg) {
  const char *name = luaL_checkstring(L, arg);
  for (size_t i = 0; i < N_ELEM_TYPES; i++)
    if (strcmp(name, elem_types[i].name) == 0) return &elem_types[i];
  return (luaL_argerror(L, arg,
                        lua_pushfstring(L, "unknown type '%s'; known: u8, u16, u32, i8, i16, i32, f32",
                                        name)),
          NULL);
}

static void store_le(uint8_t *p, uint32_t v, unsigned size) {
  for (unsigned k = 0; k < size; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t load_le(const uint8_t *p, unsigned size) {
  uint32_t v = 0;
  for (unsigned k = 0; k < size; k++) v |= (uint32_t)p[k] << (8 * k);
  return v;
}

/* The binary32 nearest to d under round-to-nearest-even, without the
 * undefined behaviour of converting an out-of-range double to float. */
static float to_f32(double d) {
  /* FLT_MAX plus half an ulp: from here on the nearest float is infinity. */
  const double overflow = 0x1.ffffffp127;
  if (d >= overflow) return INFINITY;
  if (d <= -overflow) return -INFINITY;
  return (float)d;
}

/* Raises the argument error "value at index i <what>" (just "value <what>"
 * for a single value, i == 0). */
static void bad_value(lua_State *L, int arg, lua_Integer i, const char *what) {
  if (i) luaL_argerror(L, arg, lua_pushfstring(L, "value at index %I %s", (LUAI_UACINT)i, what));
  luaL_argerror(L, arg, lua_pushfstring(L, "value %s", what));
}

/* Encodes the value at stack index idx as type t into p; i is its index in
 * argument arg (0 for a single value), for messages. */
static void encode(lua_State *L, int arg, lua_Integer i, int idx, const elem_type *t, uint8_t *p) {
  idx = lua_absindex(L, idx);
  if (t->kind == ELEM_FLOAT) {
    int isnum = 0;
    double d = (double)lua_tonumberx(L, idx, &isnum);
    if (!isnum) bad_value(L, arg, i, lua_pushfstring(L, "is not a number but a %s", luaL_typename(L, idx)));
    float f = to_f32(d);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    store_le(p, bits, 4);
    return;
  }
  int isint = 0;
  lua_Integer v = lua_tointegerx(L, idx, &isint);
  if (!isint)
    bad_value(L, arg, i, lua_pushfstring(L, "is not an integer: %s", luaL_tolstring(L, idx, NULL)));
  lua_Integer lo = -((lua_Integer)1 << (8 * t->size - 1));
  lua_Integer hi = ((lua_Integer)1 << (8 * t->size)) - 1;
  if (v < lo || v > hi)
    bad_value(L, arg, i,
              lua_pushfstring(L, "does not fit %s: %I is outside %I..%I", t->name, (LUAI_UACINT)v,
                              (LUAI_UACINT)lo, (LUAI_UACINT)hi));
  store_le(p, (uint32_t)((uint64_t)v & 0xFFFFFFFFu), t->size);
}

/* Pushes the value of type t stored at p. */
static void decode(lua_State *L, const elem_type *t, const uint8_t *p) {
  uint32_t bits = load_le(p, t->size);
  switch (t->kind) {
  case ELEM_UNSIGNED:
    lua_pushinteger(L, (lua_Integer)bits);
    break;
  case ELEM_SIGNED: {
    int64_t sign = INT64_C(1) << (8 * t->size - 1);
    lua_pushinteger(L, (lua_Integer)(((int64_t)bits ^ sign) - sign));
    break;
  }
  case ELEM_FLOAT: {
    float f;
    memcpy(&f, &bits, 4);
    lua_pushnumber(L, (lua_Number)f);
    break;
  }
  }
}

/* Checks that argument arg is a count of elements of `size` bytes whose
 * total fits the 32-bit bus; returns the count. */
static uint32_t check_count(lua_State *L, int arg, lua_Integer n, unsigned size) {
  luaL_argcheck(L, n >= 0 && n <= (lua_Integer)(0xFFFFFFFFu / size), arg,
                "count out of range (the total must fit 32-bit GPU memory)");
  return (uint32_t)n;
}

/* Raises the error of function fn for a read of len bytes at a unless they
 * lie inside one allocation; checked before the host buffer for a read is
 * allocated, so a huge count fails with the address, not out of memory. */
static void check_readable(lua_State *L, gs_gpu *g, const char *fn, gs_addr a, uint32_t len) {
  if (len && !gs_mem_ptr(gs_gpu_mem(g), a, len)) {
    char msg[128]; /* lua_pushfstring has no %u or %08x */
    snprintf(msg, sizeof msg, "read of %u bytes at 0x%08x is outside allocated GPU memory", (unsigned)len,
             (unsigned)a);
    lgs_error(L, fn, msg);
  }
}

/* gpusim.mem.alloc(bytes [, align]) -> bus address */
static int l_alloc(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  lua_Integer size = luaL_checkinteger(L, 1);
  luaL_argcheck(L, size >= 1 && size <= 0xFFFFFFFF, 1, "size must be in 1..0xffffffff bytes");
  lua_Integer align = luaL_optinteger(L, 2, 16);
  luaL_argcheck(L, align >= 4 && align <= (1 << 24) && (align & (align - 1)) == 0, 2,
                "alignment must be a power of two in 4..16777216");
  gs_diag d;
  gs_addr a;
  if (gs_mem_alloc(gs_gpu_mem(g), (uint32_t)size, (uint32_t)align, &a, &d) < 0)
    return lgs_error(L, "mem.alloc", d.msg);
  lua_pushinteger(L, (lua_Integer)a);
  return 1;
}

/* gpusim.mem.free(a): a must be the start of an allocation. */
static int l_free(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  gs_addr a = lgs_checkaddr(L, 1);
  gs_diag d;
  if (gs_mem_release(gs_gpu_mem(g), a, &d) < 0) return lgs_error(L, "mem.free", d.msg);
  return 0;
}

/* gpusim.mem.write(a, type, values): values is a sequence or one number.
 * All values are checked before any byte is written. */
static int l_write(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  gs_addr a = lgs_checkaddr(L, 1);
  const elem_type *t = check_type(L, 2);
  int single = lua_type(L, 3) == LUA_TNUMBER;
  luaL_argexpected(L, single || lua_istable(L, 3), 3, "table or number");
  uint32_t n = single ? 1 : check_count(L, 3, luaL_len(L, 3), t->size);
  if (n == 0) return 0;
  uint8_t *buf = lua_newuserdatauv(L, (size_t)n * t->size, 0);
  if (single) {
    encode(L, 3, 0, 3, t, buf);
  } else {
    for (uint32_t i = 0; i < n; i++) {
      lua_geti(L, 3, (lua_Integer)i + 1);
      encode(L, 3, (lua_Integer)i + 1, -1, t, buf + (size_t)i * t->size);
      lua_pop(L, 1);
    }
  }
  gs_diag d;
  if (gs_mem_write(gs_gpu_mem(g), a, buf, n * t->size, &d) < 0) return lgs_error(L, "mem.write", d.msg);
  return 0;
}

/* gpusim.mem.read(a, type [, n]) -> {v1, ..., vn} */
static int l_read(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  gs_addr a = lgs_checkaddr(L, 1);
  const elem_type *t = check_type(L, 2);
  uint32_t n = check_count(L, 3, luaL_optinteger(L, 3, 1), t->size);
  check_readable(L, g, "mem.read", a, n * t->size);
  uint8_t *buf = lua_newuserdatauv(L, n ? (size_t)n * t->size : 1, 0);
  gs_diag d;
  if (n && gs_mem_read(gs_gpu_mem(g), a, buf, n * t->size, &d) < 0) return lgs_error(L, "mem.read", d.msg);
  lua_createtable(L, n <= (uint32_t)INT32_MAX ? (int)n : 0, 0);
  for (uint32_t i = 0; i < n; i++) {
    decode(L, t, buf + (size_t)i * t->size);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* gpusim.mem.write_bytes(a, s): copies the bytes of string s to a. */
static int l_write_bytes(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  gs_addr a = lgs_checkaddr(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  luaL_argcheck(L, len <= 0xFFFFFFFFu, 2, "string longer than 32-bit GPU memory");
  gs_diag d;
  if (len && gs_mem_write(gs_gpu_mem(g), a, s, (uint32_t)len, &d) < 0)
    return lgs_error(L, "mem.write_bytes", d.msg);
  return 0;
}

/* gpusim.mem.read_bytes(a, n) -> string of n bytes */
static int l_read_bytes(lua_State *L) {
  gs_gpu *g = lgs_gpu(L);
  gs_addr a = lgs_checkaddr(L, 1);
  uint32_t n = check_count(L, 2, luaL_checkinteger(L, 2), 1);
  check_readable(L, g, "mem.read_bytes", a, n);
  luaL_Buffer b;
  char *p = luaL_buffinitsize(L, &b, n);
  gs_diag d;
  if (n && gs_mem_read(gs_gpu_mem(g), a, p, n, &d) < 0) return lgs_error(L, "mem.read_bytes", d.msg);
  luaL_pushresultsize(&b, n);
  return 1;
}

/* gpusim.mem.used() -> bytes currently allocated */
static int l_used(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)gs_mem_used(gs_gpu_mem(lgs_gpu(L))));
  return 1;
}

const luaL_Reg lgs_mem_funcs[] = {
  {"alloc", l_alloc},
  {"free", l_free},
  {"write", l_write},
  {"read", l_read},
  {"write_bytes", l_write_bytes},
  {"read_bytes", l_read_bytes},
  {"used", l_used},
  {NULL, NULL}
};
