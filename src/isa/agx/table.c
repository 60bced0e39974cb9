/* table.c — every Apple AGX encoding gpusim knows, each written once as a
 * codec description that decodes (bytes to agx_instr) or encodes (the
 * reverse). Bit lists read "lo:hi lo:hi ...", concatenated lowest first,
 * as Mesa's AGX2.xml writes them; the operand kinds (alu, float, half,
 * add, mul, cmpsel, memory, ...) are AGX2.xml's. table.h has the contract. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "isa/agx/table.h"

/* ---- the codec ------------------------------------------------------------------ */

typedef struct codec {
  uint8_t b[AGX_MAX_BYTES];
  uint8_t used[AGX_MAX_BYTES];
  int enc;            /* 1: encoding I into b */
  int nomatch;        /* decoding: an exact field differs (try the next encoding) */
  int bad;            /* an error (message in why) */
  unsigned shortlen, longlen, lbit; /* lbit 0: one length */
  unsigned len;       /* decoding: this instruction's length */
  const char *outside;/* a known encoding outside the subset: its name */
  char *why;
  size_t whysize;
} codec;

static void fail(codec *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void fail(codec *c, const char *fmt, ...) {
  if (c->bad || c->nomatch) return;
  c->bad = 1;
  va_list ap;
  va_start(ap, fmt);
  if (c->why && c->whysize) vsnprintf(c->why, c->whysize, fmt, ap);
  va_end(ap);
}

/* Walks a bit list; calls back with each instruction bit and its place in
 * the value. Returns the width. */
static unsigned bits_walk(const char *spec, unsigned *pos, unsigned n) {
  unsigned k = 0;
  const char *s = spec;
  while (*s) {
    while (*s == ' ') s++;
    if (!*s) break;
    unsigned lo = 0, hi;
    while (*s >= '0' && *s <= '9') lo = lo * 10 + (unsigned)(*s++ - '0');
    hi = lo;
    if (*s == ':') {
      s++;
      hi = 0;
      while (*s >= '0' && *s <= '9') hi = hi * 10 + (unsigned)(*s++ - '0');
    }
    for (unsigned i = lo; i <= hi; i++)
      if (k < n) pos[k++] = i;
  }
  return k;
}

static int bit_get(const codec *c, unsigned i) { return i < 8 * AGX_MAX_BYTES ? (c->b[i >> 3] >> (i & 7)) & 1 : 0; }

static uint32_t cget(codec *c, const char *spec) {
  unsigned pos[32], n = bits_walk(spec, pos, 32);
  uint32_t v = 0;
  for (unsigned k = 0; k < n; k++) {
    v |= (uint32_t)bit_get(c, pos[k]) << k;
    c->used[pos[k] >> 3] |= (uint8_t)(1u << (pos[k] & 7));
  }
  return v;
}

/* A field read without claiming its bits (a decision between encodings). */
static uint32_t cpeek(codec *c, const char *spec) {
  uint8_t used[AGX_MAX_BYTES];
  memcpy(used, c->used, sizeof used);
  uint32_t v = cget(c, spec);
  memcpy(c->used, used, sizeof used);
  return v;
}

static void cput(codec *c, const char *spec, uint32_t v, const char *what) {
  unsigned pos[32], n = bits_walk(spec, pos, 32);
  if (n < 32 && (v >> n)) {
    fail(c, "%s %u does not fit in %u bits", what, v, n);
    return;
  }
  for (unsigned k = 0; k < n; k++) {
    unsigned i = pos[k];
    c->b[i >> 3] = (uint8_t)((c->b[i >> 3] & ~(1u << (i & 7))) | (((v >> k) & 1u) << (i & 7)));
  }
}

/* A field read or written. */
static void cfield(codec *c, const char *spec, uint32_t *v, const char *what) {
  if (c->enc) cput(c, spec, *v, what);
  else *v = cget(c, spec);
}

static void cflag(codec *c, const char *spec, uint8_t *f, const char *what) {
  uint32_t v = *f;
  cfield(c, spec, &v, what);
  if (!c->enc) *f = (uint8_t)v;
}

/* Bits that must hold `value` for this encoding. */
static void cexact(codec *c, const char *spec, uint32_t value) {
  if (c->enc) cput(c, spec, value, "opcode");
  else if (cget(c, spec) != value) c->nomatch = 1;
}

/* The lengths: one (lbit 0) or short/long chosen by bit lbit. */
static void clen(codec *c, unsigned shortlen, unsigned longlen, unsigned lbit) {
  c->shortlen = shortlen, c->longlen = longlen, c->lbit = lbit;
  if (c->enc) return;
  c->len = shortlen;
  if (lbit && cget(c, lbit == 15 ? "15" : "47")) c->len = longlen;
  /* the bytes past this instruction are not its: they read as zero */
  for (unsigned i = c->len; i < AGX_MAX_BYTES; i++) c->b[i] = 0;
}

/* ---- names --------------------------------------------------------------------- */

static const char *const sr_names[256] = {
  [0] = "threadgroup_in_grid_x", [1] = "threadgroup_in_grid_y", [2] = "threadgroup_in_grid_z",
  [4] = "threads_per_threadgroup_x", [5] = "threads_per_threadgroup_y", [6] = "threads_per_threadgroup_z",
  [8] = "dispatch_threads_per_threadgroup_x", [9] = "dispatch_threads_per_threadgroup_y",
  [10] = "dispatch_threads_per_threadgroup_z", [12] = "threadgroup_width", [13] = "threadgroup_height",
  [14] = "samples_log2", [20] = "core_index", [21] = "vm_slot", [48] = "thread_in_threadgroup_x",
  [49] = "thread_in_threadgroup_y", [50] = "thread_in_threadgroup_z", [51] = "thread_index_in_threadgroup",
  [52] = "thread_index_in_simdgroup", [53] = "simdgroup_index_in_threadgroup",
  [56] = "active_thread_index_in_quadgroup", [57] = "total_active_threads_in_quadgroup",
  [58] = "active_thread_index_in_simdgroup", [59] = "total_active_threads_in_simdgroup",
  [60] = "internal_coverage_mask", [62] = "backfacing", [63] = "is_active_thread",
  [80] = "thread_in_grid_x", [81] = "thread_in_grid_y", [82] = "thread_in_grid_z",
  [124] = "input_sample_mask", [144] = "helper_op", [146] = "helper_arg_l", [147] = "helper_arg_h"};
const char *agx_sr_name(unsigned sr) { return sr < 256 ? sr_names[sr] : NULL; }

static const char *const icond_names[16] = {"ieq", "ult", "ugt", NULL, "seq", "slt", "sgt", NULL,
                                            "ine", "ugte", "ulte", NULL, "nseq", "sgte", "slte", NULL};
static const char *const fcond_names[16] = {"feq", "flt", "fgt", "fltn", NULL, "fgte", "flte", "fgtn",
                                            "fneq", "fnlt", "fngt", "fnltn", NULL, "fngte", "fnlte", "fngtn"};
const char *agx_icond_name(unsigned c) { return c < 16 ? icond_names[c] : NULL; }
const char *agx_fcond_name(unsigned c) { return c < 16 ? fcond_names[c] : NULL; }

static const char *const format_names[16] = {"i8", "i16", "i32", "f16", "u8norm", "s8norm", "u16norm", "s16norm",
                                             "rgb10a2", NULL, "srgba8", NULL, "rg11b10f", "rgb9e5",
                                             "rg11b10f_rtz", "rgb9e5_rtz"};
const char *agx_format_name(unsigned f) { return f < 16 ? format_names[f] : NULL; }

static const char *const convert_names[64] = {"u8_to_f", "s8_to_f", NULL, NULL, "f_to_u16", "f_to_s16",
                                              "u16_to_f", "s16_to_f", "f_to_u32", "f_to_s32", "u32_to_f",
                                              "s32_to_f"};
const char *agx_convert_name(unsigned m) { return m < 64 ? convert_names[m] : NULL; }

const char *agx_bitop_name(unsigned tt, int unary) {
  static const char *const un[16] = {[0xc] = "not_a", [0xa] = "mov", [0x5] = "not", [0x3] = "mov_a"};
  static const char *const bin[16] = {[0x0] = "zero", [0x8] = "and", [0x4] = "andn1", [0x2] = "andn2",
                                      [0x6] = "xor", [0xe] = "or", [0x1] = "nor", [0x9] = "xnor",
                                      [0xd] = "orn1", [0xb] = "orn2", [0x7] = "nand", [0xf] = "one"};
  if (tt >= 16) return NULL;
  return unary ? un[tt] : bin[tt];
}

static const char *const dim_names[16] = {"1d", "1d_array", "2d", "2d_array", "2d_ms", "3d", "cube", "cube_array",
                                          "2d_ms_array"};
const char *agx_dim_name(unsigned d) { return d < 16 ? dim_names[d] : NULL; }

static const char *const lod_names[16] = {[0] = "auto_lod", [1] = "auto_lod_bias", [2] = "lod_min",
                                          [5] = "auto_lod_bias", [6] = "lod_min"};
const char *agx_lod_name(unsigned t) { return t < 16 ? lod_names[t] : NULL; }

const char *const agx_mask_names[16] = {"none", "x", "y", "xy", "z", "xz", "yz", "xyz",
                                        "w", "xw", "yw", "xyw", "zw", "xzw", "yzw", "xyzw"};

static const char *const op_names[AGX_NOPS] = {
  [AGX_FADD] = "fadd", [AGX_FMUL] = "fmul", [AGX_FFMA] = "ffma", [AGX_HADD] = "hadd", [AGX_HMUL] = "hmul",
  [AGX_HFMA] = "hfma", [AGX_FLOOR] = "floor", [AGX_SRSQRT] = "rsqrts", [AGX_DFDX] = "dfdx", [AGX_DFDY] = "dfdy",
  [AGX_RCP] = "rcp", [AGX_RSQRT] = "rsqrt", [AGX_SIN_PT_1] = "sinr", [AGX_LOG2] = "log2", [AGX_EXP2] = "exp2",
  [AGX_SIN_PT_2] = "sinc", [AGX_CEIL] = "ceil", [AGX_TRUNC] = "trunc", [AGX_RINT] = "rint",
  [AGX_LDIMM] = "ldimm", [AGX_GET_SR] = "mov", [AGX_BITOP] = "bitop", [AGX_IADD] = "iadd", [AGX_ISUB] = "isub",
  [AGX_IMAD] = "imadd", [AGX_IMSUB] = "imsub", [AGX_BFI] = "bfi", [AGX_BFEIL] = "bfeil", [AGX_EXTR] = "extr",
  [AGX_INTL] = "intl", [AGX_BITREV] = "bitrev", [AGX_POPCNT] = "popcnt", [AGX_FFS] = "ffs",
  [AGX_CONVERT] = "convert", [AGX_ICMPSEL] = "csel", [AGX_FCMPSEL] = "csel", [AGX_IF_ICMP] = "if",
  [AGX_ELSE_ICMP] = "else", [AGX_WHILE_ICMP] = "while", [AGX_IF_FCMP] = "if", [AGX_ELSE_FCMP] = "else",
  [AGX_WHILE_FCMP] = "while", [AGX_POP_EXEC] = "pop_exec", [AGX_JMP_ANY] = "jmp_any",
  [AGX_JMP_NONE] = "jmp_none", [AGX_STOP] = "stop", [AGX_TRAP] = "trap", [AGX_WAIT] = "wait",
  [AGX_BARRIER] = "barrier", [AGX_LOAD] = "load", [AGX_STORE] = "store", [AGX_UNIFORM_STORE] = "mov",
  [AGX_ST_VAR] = "st_var", [AGX_NO_VAR] = "no_var", [AGX_ITER] = "iter", [AGX_ITERPROJ] = "iter",
  [AGX_LDCF] = "ldcf", [AGX_SAMPLE_MASK] = "sample_mask", [AGX_ZS_EMIT] = "zs_emit", [AGX_ST_TILE] = "st_tile",
  [AGX_LD_TILE] = "ld_tile", [AGX_PIXWAIT] = "pixwait", [AGX_PIXREL] = "pixrel", [AGX_SMPF] = "smpf"};
const char *agx_op_name(unsigned op) { return op < AGX_NOPS && op_names[op] ? op_names[op] : "?"; }

/* ---- operand kinds --------------------------------------------------------------- */

static const char *kind_what(unsigned k) {
  static const char *const w[] = {"nothing", "a register", "a uniform", "an integer", "a float immediate",
                                  "a cf register", "a special register", "a texture state", "a sampler state"};
  return k < sizeof w / sizeof w[0] ? w[k] : "?";
}

static unsigned hint_code(unsigned h) { return h == AGX_HINT_CACHE ? 2 : h == AGX_HINT_DISCARD ? 3 : 1; }
static uint8_t hint_of(unsigned code) { return code == 2 ? AGX_HINT_CACHE : code == 3 ? AGX_HINT_DISCARD : AGX_HINT_NONE; }

static void opnd_reg(agx_opnd *o, unsigned half, unsigned bits, unsigned count) {
  memset(o, 0, sizeof *o);
  o->kind = AGX_K_REG, o->index = (uint16_t)half, o->bits = (uint8_t)bits, o->count = (uint8_t)count;
}
static void opnd_imm(agx_opnd *o, uint32_t v) {
  memset(o, 0, sizeof *o);
  o->kind = AGX_K_IMM, o->value = v, o->count = 1;
}

/* Destinations: dalu (cache, size32, half), dhalf (16-bit only), dalu64 (the
 * size32 bit with bit 2 set means 64-bit). */
enum { D_ALU, D_HALF, D_ALU64 };
static void k_dest(codec *c, const char *spec, agx_opnd *o, int kind) {
  if (!c->enc) {
    uint32_t v = cget(c, spec);
    unsigned cache = v & 1, s32 = (v >> 1) & 1, half = v >> 2;
    if (kind == D_HALF && s32) return fail(c, "a 32-bit destination where only 16-bit ones exist");
    unsigned bits = s32 ? 32 : 16;
    if (s32 && (half & 1)) {
      if (kind != D_ALU64) return fail(c, "odd half index %u for a 32-bit destination", half);
      bits = 64, half &= ~1u;
    }
    opnd_reg(o, half, bits, 1);
    o->hint = cache ? AGX_HINT_CACHE : AGX_HINT_NONE;
    if (bits == 64 && half == 254) fail(c, "dr127 runs past r127");
    return;
  }
  if (o->kind != AGX_K_REG) return fail(c, "the destination must be a register, not %s", kind_what(o->kind));
  if (o->count != 1) return fail(c, "the destination is one register");
  if (o->hint == AGX_HINT_DISCARD) return fail(c, "a destination takes no discard hint");
  if (o->abs || o->neg || o->sx) return fail(c, "a destination takes no modifiers");
  if (o->index > 255) return fail(c, "register half index %u out of range", o->index);
  if (o->bits == 16) {
    cput(c, spec, (uint32_t)(o->hint == AGX_HINT_CACHE) | (uint32_t)o->index << 2, "destination");
    return;
  }
  if (kind == D_HALF) return fail(c, "this instruction writes 16-bit registers only");
  if (o->bits == 64 && kind != D_ALU64) return fail(c, "this instruction has no 64-bit destination");
  if (o->index & 1) return fail(c, "a %u-bit register must start at an even half", o->bits);
  uint32_t v = (uint32_t)(o->hint == AGX_HINT_CACHE) | 2u | (uint32_t)o->index << 2 | (o->bits == 64 ? 4u : 0u);
  cput(c, spec, v, "destination");
}

/* Sources of the ALU kinds. */
enum { S_ALU, S_MUL, S_ADD, S_FLOAT, S_HALF };
static void k_src(codec *c, const char *spec, agx_opnd *o, int kind) {
  unsigned extpos = kind == S_ALU ? 10 : kind == S_FLOAT ? 12 : 11;
  int fl = kind == S_FLOAT || kind == S_HALF;
  if (!c->enc) {
    uint32_t v = cget(c, spec);
    unsigned idx = (v & 63) | ((v >> extpos) & 3) << 6;
    memset(o, 0, sizeof *o);
    o->count = 1;
    if (kind == S_HALF) {
      o->abs = (v >> 9) & 1, o->neg = (v >> 10) & 1;
      if (((v >> 6) & 31) == 0) {
        o->kind = AGX_K_FIMM, o->value = idx;
      } else if ((v >> 8) & 1) {
        if ((v >> 7) & 1) return fail(c, "a 16-bit source with the uniform and size bits both set");
        o->kind = AGX_K_UNIF, o->bits = 16, o->index = (uint16_t)(idx | ((v >> 6) & 1) << 8);
      } else {
        if (!((v >> 6) & 3)) return fail(c, "a register source with hint 0");
        o->kind = AGX_K_REG, o->bits = 16, o->index = (uint16_t)idx, o->hint = hint_of((v >> 6) & 3);
      }
      return;
    }
    if (kind == S_FLOAT) o->abs = (v >> 10) & 1, o->neg = (v >> 11) & 1;
    if (kind == S_MUL || kind == S_ADD) o->sx = (v >> 10) & 1;
    unsigned t = (v >> 6) & 15, b8 = (v >> 8) & 1, b9 = (v >> 9) & 1;
    if (t == 0) {
      o->kind = fl ? AGX_K_FIMM : AGX_K_IMM, o->value = idx;
    } else if (b8 && !b9) {
      o->kind = AGX_K_UNIF, o->bits = ((v >> 7) & 1) ? 32 : 16;
      o->index = (uint16_t)(idx | ((v >> 6) & 1) << 8);
      if (o->bits == 32 && (o->index & 1)) return fail(c, "odd half index %u for a 32-bit uniform", o->index);
    } else {
      if (b8 && kind != S_ADD) return fail(c, "a 64-bit register where this source takes none");
      if (!((v >> 6) & 3)) return fail(c, "a register source with hint 0");
      o->kind = AGX_K_REG, o->bits = b8 ? 64 : b9 ? 32 : 16, o->index = (uint16_t)idx;
      o->hint = hint_of((v >> 6) & 3);
      if (o->bits > 16 && (idx & 1)) return fail(c, "odd half index %u for a %u-bit register", idx, o->bits);
      if (o->bits == 64 && idx == 254) return fail(c, "dr127 runs past r127");
    }
    return;
  }
  /* encode */
  uint32_t v = 0;
  if (o->count != 1) return fail(c, "a source here is one register, not a run");
  if (!fl && (o->abs || o->neg)) return fail(c, "abs/neg are float source modifiers");
  if ((kind != S_MUL && kind != S_ADD) && o->sx) return fail(c, "sx is an integer source modifier");
  switch (o->kind) {
  case AGX_K_IMM:
    if (fl) return fail(c, "a float source takes a float immediate (an 8-bit minifloat value)");
    if (o->value > 255) return fail(c, "immediate %u does not fit in 8 bits", o->value);
    v = (o->value & 63) | (o->value >> 6) << extpos;
    break;
  case AGX_K_FIMM:
    if (!fl) return fail(c, "an integer source takes no float immediate");
    if (kind == S_HALF && (o->abs || o->neg)) return fail(c, "a 16-bit float immediate takes no abs/neg");
    v = (o->value & 63) | (o->value >> 6) << extpos;
    break;
  case AGX_K_UNIF:
    if (o->index > 511) return fail(c, "uniform half index %u out of range", o->index);
    if (o->hint) return fail(c, "a uniform takes no cache hint");
    if (kind == S_HALF) {
      if (o->bits != 16) return fail(c, "this instruction reads 16-bit uniforms only");
    } else if (o->bits == 64) {
      return fail(c, "a 64-bit uniform is not an ALU source");
    }
    if (o->bits == 32 && (o->index & 1)) return fail(c, "a 32-bit uniform must start at an even half");
    v = (o->index & 63) | ((o->index >> 6) & 3) << extpos | ((o->index >> 8) & 1) << 6 | 1u << 8;
    if (kind != S_HALF && o->bits == 32) v |= 1u << 7;
    break;
  case AGX_K_REG:
    if (o->index > 255) return fail(c, "register half index %u out of range", o->index);
    if (o->bits == 64 && kind != S_ADD) return fail(c, "this source takes no 64-bit register");
    if (kind == S_HALF && o->bits != 16) return fail(c, "this instruction reads 16-bit registers only");
    if (o->bits > 16 && (o->index & 1)) return fail(c, "a %u-bit register must start at an even half", o->bits);
    v = (o->index & 63) | ((o->index >> 6) & 3) << extpos | hint_code(o->hint) << 6;
    if (o->bits == 32) v |= 1u << 9;
    if (o->bits == 64) v |= 3u << 8;
    break;
  default:
    return fail(c, "a source here cannot be %s", kind_what(o->kind));
  }
  if (kind == S_FLOAT) v |= (uint32_t)o->abs << 10 | (uint32_t)o->neg << 11;
  if (kind == S_HALF) v |= (uint32_t)o->abs << 9 | (uint32_t)o->neg << 10;
  if (kind == S_MUL || kind == S_ADD) v |= (uint32_t)o->sx << 10;
  cput(c, spec, v, "source");
}

/* csel's X and Y: their size is the destination's (instruction bit 8). */
static void k_cmpsel(codec *c, const char *spec, agx_opnd *o, unsigned dbits) {
  if (!c->enc) {
    uint32_t v = cget(c, spec);
    unsigned idx = (v & 63) | ((v >> 9) & 3) << 6;
    memset(o, 0, sizeof *o);
    o->count = 1;
    if (((v >> 6) & 7) == 4) o->kind = AGX_K_IMM, o->value = idx;
    else if (((v >> 7) & 3) == 3) {
      o->kind = AGX_K_UNIF, o->bits = (uint8_t)dbits, o->index = (uint16_t)(idx | ((v >> 6) & 1) << 8);
      if (dbits == 32 && (o->index & 1)) return fail(c, "odd half index %u for a 32-bit uniform", o->index);
    } else if (!((v >> 8) & 1) && ((v >> 6) & 3)) {
      o->kind = AGX_K_REG, o->bits = (uint8_t)dbits, o->index = (uint16_t)idx, o->hint = hint_of((v >> 6) & 3);
      if (dbits == 32 && (idx & 1)) return fail(c, "odd half index %u for a 32-bit register", idx);
    } else {
      return fail(c, "a select source with kind bits %u", (v >> 6) & 7);
    }
    return;
  }
  uint32_t v;
  if (o->count != 1 || o->abs || o->neg || o->sx) return fail(c, "a select source takes no modifiers");
  switch (o->kind) {
  case AGX_K_IMM:
    if (o->value > 255) return fail(c, "immediate %u does not fit in 8 bits", o->value);
    v = (o->value & 63) | (o->value >> 6) << 9 | 4u << 6;
    break;
  case AGX_K_UNIF:
  case AGX_K_REG:
    if (o->bits != dbits) return fail(c, "a select source has the destination's size (%u bits)", dbits);
    if (dbits == 32 && (o->index & 1)) return fail(c, "a 32-bit operand must start at an even half");
    if (o->kind == AGX_K_UNIF) {
      if (o->index > 511 || o->hint) return fail(c, "bad uniform");
      v = (o->index & 63) | ((o->index >> 6) & 3) << 9 | ((o->index >> 8) & 1) << 6 | 3u << 7;
    } else {
      if (o->index > 255) return fail(c, "register half index %u out of range", o->index);
      v = (o->index & 63) | ((o->index >> 6) & 3) << 9 | hint_code(o->hint) << 6;
    }
    break;
  default:
    return fail(c, "a select source cannot be %s", kind_what(o->kind));
  }
  cput(c, spec, v, "source");
}

/* A register run: reg (8-bit half index), size32, mask (count = popcount). */
static unsigned popcount4(unsigned m) { return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1); }

static void k_run(codec *c, const char *reg, const char *size, agx_opnd *o, unsigned count) {
  uint32_t r, s;
  if (!c->enc) {
    r = cget(c, reg), s = cget(c, size);
    opnd_reg(o, r, s ? 32 : 16, count);
    if (s && (r & 1)) return fail(c, "odd half index %u for 32-bit registers", r);
    if (r + count * (s ? 2 : 1) > 256) return fail(c, "a register run past r127");
    return;
  }
  if (o->kind != AGX_K_REG) return fail(c, "the data must be registers, not %s", kind_what(o->kind));
  if (o->bits != 16 && o->bits != 32) return fail(c, "the data registers are 16- or 32-bit");
  if (o->count != count) return fail(c, "the mask gives %u registers, the run has %u", count, o->count);
  if (o->hint || o->abs || o->neg || o->sx) return fail(c, "data registers take no modifiers");
  if (o->bits == 32 && (o->index & 1)) return fail(c, "32-bit registers start at an even half");
  r = o->index, s = o->bits == 32;
  cput(c, reg, r, "register");
  cput(c, size, s, "size");
}

/* memory base: a 64-bit register or uniform pair (even half index) */
static void k_membase(codec *c, const char *idx, const char *isunif, agx_opnd *o) {
  uint32_t v, u;
  if (!c->enc) {
    v = cget(c, idx), u = cget(c, isunif);
    if (v & 1) return fail(c, "memory base with an odd half index");
    if (v == 254 && !u) return fail(c, "dr127 runs past r127");
    memset(o, 0, sizeof *o);
    o->kind = u ? AGX_K_UNIF : AGX_K_REG, o->bits = 64, o->count = 1, o->index = (uint16_t)v;
    return;
  }
  if ((o->kind != AGX_K_REG && o->kind != AGX_K_UNIF) || o->bits != 64 || o->count != 1)
    return fail(c, "the base address is a 64-bit register or uniform pair (drN, duN)");
  if (o->index > 255) return fail(c, "a memory base reaches u0..u127 and r0..r127 only");
  if (o->hint || o->abs || o->neg || o->sx) return fail(c, "the base takes no modifiers");
  cput(c, idx, o->index, "base");
  cput(c, isunif, o->kind == AGX_K_UNIF, "base");
}

/* memory index: a 32-bit register (zero- or sign-extended) or a 16-bit immediate. */
static void k_memindex(codec *c, const char *lo, const char *isimm, const char *zx, agx_opnd *o, uint8_t *zext) {
  if (!c->enc) {
    uint32_t v = cget(c, lo), imm = cget(c, isimm);
    *zext = (uint8_t)cget(c, zx);
    memset(o, 0, sizeof *o);
    o->count = 1;
    if (imm) {
      o->kind = AGX_K_IMM;
      o->value = *zext ? v : (uint32_t)(int32_t)(int16_t)v;
      return;
    }
    if (v & 0xff01) return fail(c, "register memory index with bits 0/8-15 set");
    o->kind = AGX_K_REG, o->bits = 32, o->index = (uint16_t)v, o->sx = !*zext;
    return;
  }
  if (o->kind == AGX_K_IMM) {
    int32_t s = (int32_t)o->value;
    if (s >= -32768 && s <= 32767) *zext = 0, cput(c, lo, (uint32_t)s & 0xffff, "index");
    else if (o->value <= 65535) *zext = 1, cput(c, lo, o->value, "index");
    else return fail(c, "index %d does not fit in 16 bits", s);
    cput(c, isimm, 1, "index");
    cput(c, zx, *zext, "index");
    return;
  }
  if (o->kind != AGX_K_REG || o->bits != 32 || o->count != 1 || o->index > 255 || (o->index & 1))
    return fail(c, "the index is a 32-bit register or a 16-bit immediate");
  if (o->hint || o->abs || o->neg) return fail(c, "the index takes no modifiers but .sx");
  *zext = !o->sx;
  cput(c, lo, o->index, "index");
  cput(c, isimm, 0, "index");
  cput(c, zx, *zext, "index");
}

/* An 8-bit operand that is a 16-bit register or an immediate by a flag bit
 * (flag_reg: the flag value meaning register). */
static void k_regimm(codec *c, const char *val, const char *flag, unsigned flag_reg, agx_opnd *o, unsigned regbits,
                     unsigned count) {
  if (!c->enc) {
    uint32_t v = cget(c, val), f = cget(c, flag);
    if (f == flag_reg) {
      opnd_reg(o, v, regbits, count);
      if (regbits == 32) o->index = (uint16_t)(v << 1);
    } else {
      opnd_imm(o, v);
    }
    return;
  }
  if (o->kind == AGX_K_IMM) {
    cput(c, val, o->value, "immediate");
    cput(c, flag, !flag_reg, "flag");
    return;
  }
  if (o->kind != AGX_K_REG || o->bits != regbits || o->count != count)
    return fail(c, "expected an immediate or %s%u-bit register", count > 1 ? "a run of " : "a ", regbits);
  if (o->hint || o->abs || o->neg || o->sx) return fail(c, "this operand takes no modifiers");
  if (regbits == 32 && (o->index & 1)) return fail(c, "a 32-bit register starts at an even half");
  cput(c, val, regbits == 32 ? o->index >> 1 : o->index, "register");
  cput(c, flag, flag_reg, "flag");
}

/* ---- the encodings --------------------------------------------------------------- */

typedef void (*fmt_fn)(codec *c, agx_instr *I);

#define EXACT_OP(spec, val) \
  do { \
    cexact(c, spec, val); \
    if (c->nomatch) return; \
  } while (0)

static void f_fbin(codec *c, agx_instr *I) {
  uint32_t op = I->op == AGX_FADD ? 0x2a : 0x1a;
  cfield(c, "0:5", &op, "opcode");
  if (!c->enc) {
    if (op == 0x2a) I->op = AGX_FADD;
    else if (op == 0x1a) I->op = AGX_FMUL;
    else return (void)(c->nomatch = 1);
  }
  clen(c, 4, 6, 15);
  cflag(c, "6", &I->sat, "sat");
  k_dest(c, "7:14 44:45", &I->dst, D_ALU);
  k_src(c, "16:27 42:43", &I->src[0], S_FLOAT);
  k_src(c, "28:39 40:41", &I->src[1], S_FLOAT);
}

static void f_hbin(codec *c, agx_instr *I) {
  uint32_t op = I->op == AGX_HADD ? 0x26 : 0x16;
  cfield(c, "0:5", &op, "opcode");
  if (!c->enc) {
    if (op == 0x26) I->op = AGX_HADD;
    else if (op == 0x16) I->op = AGX_HMUL;
    else return (void)(c->nomatch = 1);
  }
  clen(c, 4, 6, 15);
  cflag(c, "6", &I->sat, "sat");
  k_dest(c, "7:14 44:45", &I->dst, D_HALF);
  k_src(c, "16:26 42:43", &I->src[0], S_HALF);
  k_src(c, "28:38 40:41", &I->src[1], S_HALF);
}

static void f_ffma(codec *c, agx_instr *I) {
  EXACT_OP("0:5", 0x3a);
  I->op = AGX_FFMA;
  clen(c, 6, 8, 15);
  cflag(c, "6", &I->sat, "sat");
  k_dest(c, "7:14 60:61", &I->dst, D_ALU);
  k_src(c, "16:27 58:59", &I->src[0], S_FLOAT);
  k_src(c, "28:39 56:57", &I->src[1], S_FLOAT);
  k_src(c, "40:51 54:55", &I->src[2], S_FLOAT);
}

static void f_hfma(codec *c, agx_instr *I) {
  EXACT_OP("0:5", 0x36);
  I->op = AGX_HFMA;
  clen(c, 6, 8, 15);
  cflag(c, "6", &I->sat, "sat");
  k_dest(c, "7:14 60:61", &I->dst, D_HALF);
  k_src(c, "16:26 58:59", &I->src[0], S_HALF);
  k_src(c, "28:38 56:57", &I->src[1], S_HALF);
  k_src(c, "40:50 54:55", &I->src[2], S_HALF);
}

static const uint8_t funop_code[] = {
  [AGX_FLOOR - AGX_FLOOR] = 0x00, [AGX_SRSQRT - AGX_FLOOR] = 0x01, [AGX_DFDX - AGX_FLOOR] = 0x04,
  [AGX_DFDY - AGX_FLOOR] = 0x06, [AGX_RCP - AGX_FLOOR] = 0x08, [AGX_RSQRT - AGX_FLOOR] = 0x09,
  [AGX_SIN_PT_1 - AGX_FLOOR] = 0x0a, [AGX_LOG2 - AGX_FLOOR] = 0x0c, [AGX_EXP2 - AGX_FLOOR] = 0x0d,
  [AGX_SIN_PT_2 - AGX_FLOOR] = 0x0e, [AGX_CEIL - AGX_FLOOR] = 0x10, [AGX_TRUNC - AGX_FLOOR] = 0x20,
  [AGX_RINT - AGX_FLOOR] = 0x30};

static void f_funop(codec *c, agx_instr *I) {
  EXACT_OP("0:5", 0x0a);
  clen(c, 4, 6, 15);
  uint32_t code = c->enc ? funop_code[I->op - AGX_FLOOR] : 0;
  cfield(c, "28:33", &code, "operation");
  if (!c->enc) {
    unsigned k;
    for (k = 0; k < sizeof funop_code; k++)
      if (funop_code[k] == code) break;
    if (k == sizeof funop_code) return fail(c, "float unary operation %u is not in the table", code);
    I->op = (uint8_t)(AGX_FLOOR + k);
  }
  cflag(c, "6", &I->sat, "sat");
  k_dest(c, "7:14 44:45", &I->dst, D_ALU);
  k_src(c, "16:27 42:43", &I->src[0], S_FLOAT);
}

static void f_ldimm(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x62);
  uint32_t s32 = c->enc ? I->dst.bits == 32 : cget(c, "8");
  if (s32) {
    clen(c, 6, 8, 15);
    k_dest(c, "7:14 60:61", &I->dst, D_ALU);
    cfield(c, "16:47", &I->src[0].value, "immediate");
  } else {
    clen(c, 4, 6, 15);
    k_dest(c, "7:14 44:45", &I->dst, D_ALU);
    cfield(c, "16:31", &I->src[0].value, "immediate");
  }
  I->op = AGX_LDIMM;
  if (c->enc && I->src[0].kind != AGX_K_IMM) fail(c, "ldimm takes an integer immediate");
  if (!c->enc) I->src[0].kind = AGX_K_IMM, I->src[0].count = 1;
}

static void f_getsr(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x72);
  EXACT_OP("15", 0);
  I->op = AGX_GET_SR;
  clen(c, 4, 4, 0);
  k_dest(c, "7:14 28:29", &I->dst, D_ALU);
  if (c->enc && I->src[0].kind != AGX_K_SR) return fail(c, "mov from a special register takes its name");
  uint32_t sr = I->src[0].index;
  if (c->enc && !agx_sr_name(sr)) return fail(c, "special register %u has no name", sr);
  cfield(c, "16:21 26:27", &sr, "special register");
  if (!c->enc) {
    memset(&I->src[0], 0, sizeof I->src[0]);
    I->src[0].kind = AGX_K_SR, I->src[0].index = (uint16_t)sr, I->src[0].count = 1;
    if (!agx_sr_name(sr)) fail(c, "special register %u has no name", sr);
  }
}

static void f_iadd(codec *c, agx_instr *I) {
  EXACT_OP("0:5", 0x0e);
  EXACT_OP("15", 0);
  clen(c, 8, 8, 0);
  uint8_t neg = I->op == AGX_ISUB;
  cflag(c, "27", &neg, "negate");
  if (!c->enc) I->op = neg ? AGX_ISUB : AGX_IADD;
  cflag(c, "6", &I->sat, "sat");
  k_dest(c, "7:14 44:45", &I->dst, D_ALU64);
  k_src(c, "16:26 42:43", &I->src[0], S_ADD);
  k_src(c, "28:38 40:41", &I->src[1], S_ADD);
  cflag(c, "39 52:53", &I->shift, "shift");
  if (I->shift > 4) fail(c, "shift %u is more than lsl 4", I->shift);
}

static void f_imad(codec *c, agx_instr *I) {
  EXACT_OP("0:5", 0x1e);
  EXACT_OP("15", 0);
  clen(c, 8, 8, 0);
  uint8_t neg = I->op == AGX_IMSUB;
  cflag(c, "27", &neg, "negate");
  if (!c->enc) I->op = neg ? AGX_IMSUB : AGX_IMAD;
  cflag(c, "6", &I->sat, "sat");
  k_dest(c, "7:14 60:61", &I->dst, D_ALU64);
  k_src(c, "16:26 58:59", &I->src[0], S_MUL);
  k_src(c, "28:38 56:57", &I->src[1], S_MUL);
  k_src(c, "40:50 54:55", &I->src[2], S_ADD);
  cflag(c, "39 52:53", &I->shift, "shift");
  if (I->shift > 4) fail(c, "shift %u is more than lsl 4", I->shift);
}

static void f_convert(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x3e);
  EXACT_OP("15", 1);
  I->op = AGX_CONVERT;
  clen(c, 6, 6, 0);
  cflag(c, "16:21", &I->mode, "mode");
  if (!agx_convert_name(I->mode)) return fail(c, "convert mode %u is not in the table", I->mode);
  k_dest(c, "7:14 44:45", &I->dst, D_ALU);
  k_src(c, "28:37 40:41", &I->src[0], S_ALU);
  cflag(c, "26:27", &I->round, "rounding");
  if (I->round > 1) fail(c, "convert rounding mode %u is not rtz (0) or rte (1)", I->round);
}

static void f_iunop(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x3e);
  EXACT_OP("15", 0);
  clen(c, 6, 6, 0);
  uint32_t op = I->op == AGX_BITREV ? 1 : I->op == AGX_POPCNT ? 2 : I->op == AGX_FFS ? 3 : 0;
  cfield(c, "26:27", &op, "operation");
  if (!c->enc) I->op = op == 1 ? AGX_BITREV : op == 2 ? AGX_POPCNT : op == 3 ? AGX_FFS : AGX_INTL;
  k_dest(c, "7:14 44:45", &I->dst, D_ALU);
  k_src(c, "16:25 42:43", &I->src[0], S_ALU);
  if (op == 0) k_src(c, "28:37 40:41", &I->src[1], S_ALU);
}

static void f_shift(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x2e);
  clen(c, 8, 8, 0);
  uint32_t op = I->op == AGX_BFEIL ? 1 : I->op == AGX_EXTR ? 2 : 0;
  cfield(c, "15 26:27", &op, "operation");
  if (!c->enc) {
    static const char *const outside[8] = {NULL, NULL, NULL, "asr", "shlhi", "shrhi", NULL, "asrh"};
    if (op > 2) {
      c->outside = outside[op] ? outside[op] : "shift/bitfield";
      return;
    }
    I->op = op == 0 ? AGX_BFI : op == 1 ? AGX_BFEIL : AGX_EXTR;
  }
  k_dest(c, "7:14 60:61", &I->dst, D_ALU);
  k_src(c, "16:25 58:59", &I->src[0], S_ALU);
  k_src(c, "28:37 56:57", &I->src[1], S_ALU);
  k_src(c, "40:49 54:55", &I->src[2], S_ALU);
  cflag(c, "38:39 50:51 63", &I->mask_width, "mask width");
}

static void f_bitop(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x7e);
  EXACT_OP("15", 0);
  I->op = AGX_BITOP;
  clen(c, 6, 6, 0);
  cflag(c, "26:27 38:39", &I->tt, "truth table");
  k_dest(c, "7:14 44:45", &I->dst, D_ALU);
  k_src(c, "16:25 42:43", &I->src[0], S_ALU);
  k_src(c, "28:37 40:41", &I->src[1], S_ALU);
  int unary = I->src[1].kind == AGX_K_IMM && I->src[1].value == 0 && agx_bitop_name(I->tt, 1);
  if (!c->bad && !agx_bitop_name(I->tt, unary))
    fail(c, "bitop truth table %u%u%u%u with a second source has no name", (I->tt >> 3) & 1, (I->tt >> 2) & 1,
         (I->tt >> 1) & 1, I->tt & 1);
}

static void f_csel(codec *c, agx_instr *I) {
  uint32_t op = I->op == AGX_FCMPSEL ? 0x02 : 0x12;
  cfield(c, "0:6", &op, "opcode");
  if (!c->enc) {
    if (op == 0x12) I->op = AGX_ICMPSEL;
    else if (op == 0x02) I->op = AGX_FCMPSEL;
    else return (void)(c->nomatch = 1);
  }
  clen(c, 8, 10, 15);
  k_dest(c, "7:14 76:77", &I->dst, D_ALU);
  int fl = I->op == AGX_FCMPSEL;
  k_src(c, fl ? "16:27 74:75" : "16:25 74:75", &I->src[0], fl ? S_FLOAT : S_ALU);
  k_src(c, fl ? "28:39 72:73" : "28:37 72:73", &I->src[1], fl ? S_FLOAT : S_ALU);
  k_cmpsel(c, "40:48 70:71", &I->src[2], I->dst.bits);
  k_cmpsel(c, "52:60 68:69", &I->src[3], I->dst.bits);
  cflag(c, "61:63", &I->cond, "condition");
  const char *n = fl ? agx_fcond_name(I->cond) : agx_icond_name(I->cond);
  if (!n || I->cond > 7) fail(c, "select condition %u has no name", I->cond);
}

static void f_pop(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x52);
  EXACT_OP("9:10", 3);
  I->op = AGX_POP_EXEC;
  clen(c, 6, 6, 0);
  cflag(c, "11:12", &I->nest, "nest");
  cflag(c, "7", &I->cache, "cache");
}

static void f_cf(codec *c, agx_instr *I) {
  int fl = I->op == AGX_IF_FCMP || I->op == AGX_ELSE_FCMP || I->op == AGX_WHILE_FCMP;
  uint32_t opc = fl ? 0x42 : 0x52;
  cfield(c, "0:6", &opc, "opcode");
  if (!c->enc && opc != 0x42 && opc != 0x52) return (void)(c->nomatch = 1);
  fl = opc == 0x42;
  uint32_t sub = c->enc ? (uint32_t)(I->op - (fl ? AGX_IF_FCMP : AGX_IF_ICMP)) : 0;
  cfield(c, "9:10", &sub, "operation");
  if (!c->enc) {
    if (sub == 3) return (void)(c->nomatch = 1);
    I->op = (uint8_t)((fl ? AGX_IF_FCMP : AGX_IF_ICMP) + sub);
  }
  clen(c, 6, 6, 0);
  cflag(c, "11:12", &I->nest, "nest");
  cflag(c, "7", &I->cache, "cache");
  cflag(c, "13:15 8", &I->cond, "condition");
  if (!(fl ? agx_fcond_name(I->cond) : agx_icond_name(I->cond))) fail(c, "condition %u has no name", I->cond);
  k_src(c, fl ? "16:27 42:43" : "16:25 42:43", &I->src[0], fl ? S_FLOAT : S_ALU);
  k_src(c, fl ? "28:39 40:41" : "28:37 40:41", &I->src[1], fl ? S_FLOAT : S_ALU);
}

static void f_jmp(codec *c, agx_instr *I) {
  uint32_t op = I->op == AGX_JMP_NONE ? 0xc020 : 0xc000;
  cfield(c, "0:15", &op, "opcode");
  if (!c->enc) {
    if (op == 0xc000) I->op = AGX_JMP_ANY;
    else if (op == 0xc020) I->op = AGX_JMP_NONE;
    else return (void)(c->nomatch = 1);
  }
  clen(c, 6, 6, 0);
  uint32_t off = (uint32_t)I->offset;
  cfield(c, "16:47", &off, "offset");
  I->offset = (int32_t)off;
}

static void f_fixed2(codec *c, agx_instr *I) {
  static const struct {
    uint8_t op;
    const char *spec;
    uint32_t code;
  } t[] = {{AGX_STOP, "0:15", 0x0088}, {AGX_TRAP, "0:15", 0x0008}, {AGX_BARRIER, "0:7", 0x68}};
  for (unsigned k = 0; k < 3; k++) {
    if (c->enc && I->op != t[k].op) continue;
    c->nomatch = 0;
    cexact(c, t[k].spec, t[k].code);
    if (!c->nomatch) {
      I->op = t[k].op;
      clen(c, 2, 2, 0);
      return;
    }
    memset(c->used, 0, sizeof c->used);
  }
}

static void f_wait(codec *c, agx_instr *I) {
  EXACT_OP("0:7", 0x38);
  I->op = AGX_WAIT;
  clen(c, 2, 2, 0);
  cflag(c, "8", &I->group, "group");
}

static void f_pix(codec *c, agx_instr *I) {
  uint32_t op = I->op == AGX_PIXREL ? 0x58 : 0x48;
  cfield(c, "0:7", &op, "opcode");
  if (!c->enc) {
    if (op == 0x48) I->op = AGX_PIXWAIT;
    else if (op == 0x58) I->op = AGX_PIXREL;
    else return (void)(c->nomatch = 1);
    I->src[0].kind = I->src[1].kind = AGX_K_IMM, I->src[0].count = I->src[1].count = 1;
  }
  clen(c, 4, 4, 0);
  cfield(c, "8:17", &I->src[0].value, "i");
  cfield(c, "22:23", &I->src[1].value, "j");
}

static void f_novar(codec *c, agx_instr *I) {
  EXACT_OP("0:9 22 31", 0x851);
  I->op = AGX_NO_VAR;
  clen(c, 4, 4, 0);
}

static void f_stvar(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x11);
  EXACT_OP("31", 1);
  I->op = AGX_ST_VAR;
  clen(c, 4, 4, 0);
  cflag(c, "7", &I->last, "last");
  if (!c->enc) {
    opnd_reg(&I->src[0], cget(c, "10:14 24:25") << 1, 32, 1);
  } else {
    agx_opnd *o = &I->src[0];
    if (o->kind != AGX_K_REG || o->bits != 32 || o->count != 1 || (o->index & 1) || o->hint || o->abs || o->neg ||
        o->sx)
      return fail(c, "st_var stores a 32-bit register");
    cput(c, "10:14 24:25", o->index >> 1, "register");
  }
  k_regimm(c, "16:21 26:27", "23", 0, &I->src[1], 16, 1);
}

static void k_mem_common(codec *c, agx_instr *I, int store) {
  clen(c, 6, 8, 47);
  cflag(c, "52:55", &I->mask, "mask");
  if (!c->enc && !I->mask) return fail(c, "a memory access with an empty mask");
  k_run(c, "10:15 40:41", "49", store ? &I->src[0] : &I->dst, popcount4(I->mask));
  k_membase(c, "16:19 36:39", "27", &I->src[1]);
  k_memindex(c, "20:23 32:35 56:63", "24", "25", &I->src[2], &I->index_zext);
  cflag(c, "42:43", &I->shift, "shift");
  cflag(c, "7:9 48", &I->format, "format");
  if (!agx_format_name(I->format)) fail(c, "memory format %u is not in the table", I->format);
  cflag(c, "44:45", &I->coherency, "coherency");
  cflag(c, "30", &I->group, "group");
}

static void f_load(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x05);
  EXACT_OP("26 46", 3);
  I->op = AGX_LOAD;
  k_mem_common(c, I, 0);
}

static void f_store(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x45);
  EXACT_OP("26 46", 3);
  if (!c->enc && cpeek(c, "27:29") == 7) { /* 26:29 = 1111: a uniform store */
    c->nomatch = 1;
    return;
  }
  I->op = AGX_STORE;
  k_mem_common(c, I, 1);
}

/* uniform_store ("mov uN, rM"): a run of 1-4 halves, or 32/64-bit names
 * when the run is 2/4 halves starting even. */
static void k_urun(codec *c, const char *idx, agx_opnd *o, unsigned mask, int unif) {
  if (!c->enc) {
    uint32_t v = cget(c, idx);
    unsigned n = popcount4(mask);
    memset(o, 0, sizeof *o);
    o->kind = unif ? AGX_K_UNIF : AGX_K_REG, o->index = (uint16_t)v, o->bits = 16, o->count = (uint8_t)n;
    if ((mask == 3 || mask == 15) && !(v & 1)) o->bits = mask == 3 ? 32 : 64, o->count = 1;
    if (v + n > (unif ? 512u : 256u)) fail(c, "a run past the last register");
    return;
  }
  if (o->kind != (unif ? AGX_K_UNIF : AGX_K_REG) || o->hint || o->abs || o->neg || o->sx)
    return fail(c, "uniform_store is mov uN, rM");
  cput(c, idx, o->index, "register");
}

static unsigned urun_mask(const agx_opnd *o) {
  unsigned halves = o->bits == 16 ? o->count : o->bits / 16u * o->count;
  return halves == 1 ? 1 : halves == 2 ? 3 : halves == 3 ? 7 : halves == 4 ? 15 : 0;
}

static void f_ustore(codec *c, agx_instr *I) {
  EXACT_OP("0:6", 0x45);
  clen(c, 6, 8, 47);
  EXACT_OP("26:29 46", 15);
  EXACT_OP("7:9 48 24 25 42:43 30", 0x11);
  EXACT_OP("16:19 36:39", 0);
  I->op = AGX_UNIFORM_STORE;
  uint32_t mask = c->enc ? urun_mask(&I->src[0]) : 0;
  if (c->enc && (mask == 0 || mask != urun_mask(&I->dst)))
    return fail(c, "mov uN, rM moves 1 to 4 halves, the same number on both sides");
  cfield(c, "52:55", &mask, "mask");
  if (!c->enc && mask != 1 && mask != 3 && mask != 7 && mask != 15)
    return fail(c, "uniform store mask %u", mask);
  I->mask = (uint8_t)mask;
  k_urun(c, "20:23 32:35 56:63", &I->dst, mask, 1);
  k_urun(c, "10:15 40:41", &I->src[0], mask, 0);
}

static void f_iter(codec *c, agx_instr *I) {
  uint32_t op = I->op == AGX_LDCF ? 0xa1 : I->op == AGX_ITERPROJ ? 0x61 : 0x21;
  cfield(c, "0:7", &op, "opcode");
  if (!c->enc) {
    if (op == 0x21) I->op = AGX_ITER;
    else if (op == 0x61) I->op = AGX_ITERPROJ;
    else if (op == 0xa1) I->op = AGX_LDCF;
    else return (void)(c->nomatch = 1);
  }
  clen(c, 4, 8, 15);
  /* destination run */
  uint32_t cnt = I->op == AGX_LDCF ? 1 : I->dst.count & 3;
  if (c->enc && I->op == AGX_LDCF && I->dst.count != 3) return fail(c, "ldcf writes three registers (A, B, C)");
  if (c->enc && I->op != AGX_LDCF && (I->dst.count < 1 || I->dst.count > 4)) return fail(c, "iter writes 1-4 registers");
  cfield(c, "30:31", &cnt, "count");
  if (!c->enc && I->op == AGX_LDCF && cnt != 1) return fail(c, "ldcf with count field %u", cnt);
  unsigned n = I->op == AGX_LDCF ? 3 : cnt ? cnt : 4;
  k_run(c, "9:14 56:57", "8", &I->dst, n);
  /* the coefficient register (or a 16-bit register holding its index) */
  if (!c->enc) {
    uint32_t v = cget(c, "16:21 58:59"), ind = cget(c, "23");
    memset(&I->src[0], 0, sizeof I->src[0]);
    I->src[0].count = 1, I->src[0].index = (uint16_t)v;
    I->src[0].kind = ind ? AGX_K_REG : AGX_K_CF, I->src[0].bits = ind ? 16 : 0;
  } else {
    agx_opnd *o = &I->src[0];
    if (!(o->kind == AGX_K_CF || (o->kind == AGX_K_REG && o->bits == 16 && o->count == 1)) || o->index > 255 ||
        o->hint || o->abs || o->neg || o->sx)
      return fail(c, "the coefficient is cfN (or a 16-bit register holding N)");
    cput(c, "16:21 58:59", o->index, "cf");
    cput(c, "23", o->kind == AGX_K_REG, "cf");
  }
  if (I->op == AGX_ITERPROJ) {
    uint32_t w = I->src[1].index;
    if (c->enc && (I->src[1].kind != AGX_K_CF || w > 255)) return fail(c, "the W coefficient is cfN");
    cfield(c, "24:29 60:61", &w, "cf");
    if (!c->enc) memset(&I->src[1], 0, sizeof I->src[1]), I->src[1].kind = AGX_K_CF, I->src[1].index = (uint16_t)w, I->src[1].count = 1;
  }
  /* the sample: interpolation 48:49 (center, sample imm, centroid, sample reg) with the index in 32:39 */
  if (I->op == AGX_LDCF) {
    uint32_t b8 = c->enc ? (I->interp & 1) : cget(c, "48");
    if (c->enc && (I->interp == AGX_INTERP_CENTROID)) return fail(c, "ldcf has no centroid");
    if (c->enc) cput(c, "48", b8, "sample");
    if (b8) {
      uint32_t b9 = I->interp == AGX_INTERP_SAMPLE_REG;
      cfield(c, "49", &b9, "sample");
      I->interp = b9 ? AGX_INTERP_SAMPLE_REG : AGX_INTERP_SAMPLE;
    } else if (!c->enc) {
      I->interp = AGX_INTERP_CENTER;
    }
  } else {
    cflag(c, "48:49", &I->interp, "interpolation");
    cflag(c, "22", &I->fwd, "fwd");
    cflag(c, "46", &I->elide, "elide");
    cflag(c, "52", &I->kill, "kill");
  }
  agx_opnd *s = &I->src[2];
  if (I->interp == AGX_INTERP_SAMPLE || I->interp == AGX_INTERP_SAMPLE_REG) {
    if (!c->enc) {
      uint32_t v = cget(c, "32:39");
      if (I->interp == AGX_INTERP_SAMPLE) opnd_imm(s, v);
      else opnd_reg(s, v, 16, 1);
    } else {
      if (I->interp == AGX_INTERP_SAMPLE && s->kind != AGX_K_IMM) return fail(c, "sample takes an index");
      if (I->interp == AGX_INTERP_SAMPLE_REG && (s->kind != AGX_K_REG || s->bits != 16))
        return fail(c, "a sample index register is 16-bit");
      cput(c, "32:39", s->kind == AGX_K_IMM ? s->value : s->index, "sample index");
    }
  }
}

static void f_smask(codec *c, agx_instr *I) {
  uint32_t op = I->op == AGX_ZS_EMIT ? 0x41 : 0xc1;
  cfield(c, "0:7", &op, "opcode");
  if (!c->enc) {
    if (op == 0xc1) I->op = AGX_SAMPLE_MASK;
    else if (op == 0x41) I->op = AGX_ZS_EMIT;
    else return (void)(c->nomatch = 1);
  }
  EXACT_OP("15", 0);
  clen(c, 4, 4, 0);
  k_regimm(c, "9:14 24:25", "8", 0, &I->src[0], 16, 1);
  if (I->op == AGX_SAMPLE_MASK) {
    k_regimm(c, "16:21 26:27", "23", 0, &I->src[1], 16, 1);
    return;
  }
  cflag(c, "29", &I->zs_depth, "depth");
  cflag(c, "30", &I->zs_stencil, "stencil");
  if (!c->enc) {
    uint32_t v = cget(c, "16:21 26:27");
    if (I->zs_depth && I->zs_stencil) opnd_reg(&I->src[1], v, 16, 3);
    else if (I->zs_depth) opnd_reg(&I->src[1], v, 32, 1);
    else if (I->zs_stencil) opnd_reg(&I->src[1], v, 16, 1);
    else if (v) fail(c, "zs_emit writes neither depth nor stencil but names a register");
    if (I->zs_depth && (v & 1)) fail(c, "odd half index %u for the 32-bit depth", v);
  } else {
    agx_opnd *o = &I->src[1];
    int d = I->zs_depth, s = I->zs_stencil;
    if (!d && !s && o->kind == AGX_K_NONE) return; /* neither: no register */
    if (o->kind != AGX_K_REG || o->hint || o->abs || o->neg || o->sx)
      return fail(c, "zs_emit takes the depth/stencil registers");
    if (!((d && s && o->bits == 16 && o->count == 3) || (d && !s && o->bits == 32 && o->count == 1) ||
          (!d && s && o->bits == 16 && o->count == 1)))
      return fail(c, "zs_emit takes rN (depth), rNl (stencil) or rNl_rNh_rN+1l (both)");
    if (d && (o->index & 1)) return fail(c, "the depth register starts at an even half");
    cput(c, "16:21 26:27", o->index, "register");
  }
}

static void f_tile(codec *c, agx_instr *I) {
  uint32_t op = I->op == AGX_LD_TILE ? 0x49 : 0x09;
  cfield(c, "0:6", &op, "opcode");
  if (!c->enc) {
    if (op == 0x09) I->op = AGX_ST_TILE;
    else if (op == 0x49) I->op = AGX_LD_TILE;
    else return (void)(c->nomatch = 1);
  }
  int ld = I->op == AGX_LD_TILE;
  if (ld) EXACT_OP("35", 1);
  clen(c, 8, 10, 15);
  cflag(c, "36:39", &I->mask, "mask");
  if (!c->enc && !I->mask) return fail(c, "a tile access with an empty mask");
  k_run(c, "9:14 60:61", "8", ld ? &I->dst : &I->src[0], popcount4(I->mask));
  k_regimm(c, "16:21 58:59", "55", 1, &I->src[1], 16, 2);
  k_regimm(c, "42:47 56:57", "22", 1, &I->src[2], 16, 1);
  if (c->enc && I->src[3].kind != AGX_K_IMM) return fail(c, "the tile offset is an immediate");
  cfield(c, "28:34 40:41", &I->src[3].value, "offset");
  if (!c->enc) I->src[3].kind = AGX_K_IMM, I->src[3].count = 1;
  if (!ld) cflag(c, "35", &I->explicit_coords, "explicit_coords");
  cflag(c, "24:27", &I->format, "format");
  if (!agx_format_name(I->format)) fail(c, "tile format %u is not in the table", I->format);
}

static void f_smpf(codec *c, agx_instr *I) {
  EXACT_OP("0:5 6 7", 0x31);
  EXACT_OP("45:46", 3);
  I->op = AGX_SMPF;
  clen(c, 8, 12, 15);
  cflag(c, "48:51", &I->mask, "mask");
  if (!c->enc && !I->mask) return fail(c, "a sample with an empty mask");
  k_run(c, "9:14 72:73", "8", &I->dst, popcount4(I->mask));
  if (!c->enc) {
    static const struct {
      const char *spec, *what;
    } nm[] = {{"38:39", "a texture from a register or the heap"}, {"64:68 39", "a bindless heap"},
              {"62", "a sampler from a register"}, {"22 47", "16-bit or last-use coordinates"},
              {"80:85 94:95 91", "a compare/offset operand"}, {"23", "shadow"}, {"31", "query_lod"},
              {"43", "rw"}, {"44", "coherent"}, {"69", "kill"}, {"70", "sparse"}, {"87:90", "gather"}};
    for (unsigned k = 0; k < sizeof nm / sizeof nm[0]; k++)
      if (cget(c, nm[k].spec)) return fail(c, "smpf with %s is not modelled", nm[k].what);
  } else {
    if (I->src[0].kind != AGX_K_TS || I->src[1].kind != AGX_K_SS) return fail(c, "smpf takes tsN, ssN");
    if (I->src[2].kind != AGX_K_REG || I->src[2].bits != 32 || (I->src[2].index & 1))
      return fail(c, "smpf coordinates are 32-bit registers");
  }
  uint32_t ts = I->src[0].index, ss = I->src[1].index, co = I->src[2].index;
  cfield(c, "32:37 78:79", &ts, "texture");
  cfield(c, "56:61 92:93", &ss, "sampler");
  cfield(c, "16:21 74:75", &co, "coordinates");
  if (!c->enc) {
    memset(&I->src[0], 0, sizeof I->src[0] * 3);
    I->src[0].kind = AGX_K_TS, I->src[0].index = (uint16_t)ts, I->src[0].count = 1;
    I->src[1].kind = AGX_K_SS, I->src[1].index = (uint16_t)ss, I->src[1].count = 1;
    opnd_reg(&I->src[2], co, 32, 1);
    if (co & 1) return fail(c, "odd half index %u for 32-bit coordinates", co);
  }
  cflag(c, "52:55", &I->lod_mode, "lod type");
  agx_opnd *l = &I->src[3];
  uint32_t lv = 0;
  switch (I->lod_mode) {
  case 0:
    if (c->enc && !(l->kind == AGX_K_IMM && l->value == 0)) return fail(c, "auto_lod takes 0");
    if (!c->enc) opnd_imm(l, 0);
    break;
  case 1:
  case 2:
  case 5:
  case 6: {
    int unif = I->lod_mode < 4;
    if (c->enc && (l->kind != (unif ? AGX_K_UNIF : AGX_K_REG) || l->bits != 16 || l->count != 1))
      return fail(c, "%s takes a 16-bit %s", agx_lod_name(I->lod_mode), unif ? "uniform" : "register");
    lv = l->index;
    cfield(c, "24:29 76:77", &lv, "lod");
    if (!c->enc) {
      memset(l, 0, sizeof *l);
      l->kind = unif ? AGX_K_UNIF : AGX_K_REG, l->bits = 16, l->count = 1, l->index = (uint16_t)lv;
    }
    break;
  }
  default:
    return fail(c, "smpf lod type %u (gradients, minimum) is not modelled", I->lod_mode);
  }
  cflag(c, "40:42 71", &I->dim, "dimension");
  if (!agx_dim_name(I->dim)) fail(c, "texture dimension %u is not in the table", I->dim);
  cflag(c, "63", &I->group, "group");
}

/* Known encodings outside the subset, for their length and name. */
static void f_outside(codec *c, agx_instr *I) {
  static const struct {
    const char *spec;
    uint32_t value;
    const char *name;
    uint8_t s, l;
    uint8_t lbit;
  } t[] = {
    {"0:15", 0xc010, "call", 6, 6, 0},
    {"0:15", 0x0020, "jmp_if_skipping_doorbell", 4, 4, 0},
    {"0:15 24:31", 0, "jmp_incomplete", 4, 4, 0},
    {"0:6", 0x14, "ret", 2, 2, 0},
    {"0:6", 0x04, "call (register)", 2, 2, 0},
    {"0:5", 0x15, "atomic", 8, 8, 0},
    {"0:5", 0x19, "latomic", 6, 10, 15},
    {"0:6", 0x69, "lload", 6, 8, 15},
    {"0:6", 0x29, "lstore", 6, 8, 15},
    {"0:7", 0x35, "stack_load", 6, 8, 47},
    {"0:7", 0xb5, "stack_store/stack_adjust", 6, 8, 47},
    {"0:6 15", 0x6f, "shuffle", 6, 6, 0},
    {"0:7 15", 0x16f, "quad/simd reduction", 6, 6, 0},
    {"0:6", 0x32, "ballot", 8, 8, 0},
    {"0:6", 0x22, "ballot", 8, 8, 0},
    {"0:7", 0x75, "map/unmap", 8, 8, 0},
    {"0:7 20", 0x1ed, "load (texture state)", 8, 8, 0},
    {"0:7 20", 0x1ad, "load (sampler state)", 8, 8, 0},
    {"0:7", 0xf1, "imgw", 6, 8, 15},
    {"0:7", 0xb1, "imgwblk", 6, 10, 15},
    {"0:7", 0xf5, "memory barrier", 2, 2, 0},
    {"0:7", 0x28, "doorbell", 2, 2, 0},
    {"0:7", 0x71, "smpi", 8, 12, 15},
    {"0:6 26:29", 0x7c5, "uniform_store_unk", 6, 8, 47},
  };
  (void)I;
  for (unsigned k = 0; k < sizeof t / sizeof t[0]; k++) {
    memset(c->used, 0, sizeof c->used);
    c->nomatch = 0;
    cexact(c, t[k].spec, t[k].value);
    if (!c->nomatch) {
      clen(c, t[k].s, t[k].l, t[k].lbit);
      c->outside = t[k].name;
      return;
    }
  }
}

/* First match wins, as in Mesa's decoder (aliases and special forms first). */
static const fmt_fn decoders[] = {f_fixed2, f_wait, f_fbin, f_hbin, f_ffma, f_hfma, f_funop, f_ldimm, f_getsr,
                                  f_iadd, f_imad, f_convert, f_iunop, f_shift, f_bitop, f_csel, f_pop, f_cf,
                                  f_jmp, f_pix, f_novar, f_stvar, f_load, f_ustore, f_store, f_iter, f_smask,
                                  f_tile, f_smpf, f_outside};

static fmt_fn encoder_for(unsigned op) {
  switch (op) {
  case AGX_FADD: case AGX_FMUL: return f_fbin;
  case AGX_HADD: case AGX_HMUL: return f_hbin;
  case AGX_FFMA: return f_ffma;
  case AGX_HFMA: return f_hfma;
  case AGX_LDIMM: return f_ldimm;
  case AGX_GET_SR: return f_getsr;
  case AGX_BITOP: return f_bitop;
  case AGX_IADD: case AGX_ISUB: return f_iadd;
  case AGX_IMAD: case AGX_IMSUB: return f_imad;
  case AGX_BFI: case AGX_BFEIL: case AGX_EXTR: return f_shift;
  case AGX_INTL: case AGX_BITREV: case AGX_POPCNT: case AGX_FFS: return f_iunop;
  case AGX_CONVERT: return f_convert;
  case AGX_ICMPSEL: case AGX_FCMPSEL: return f_csel;
  case AGX_IF_ICMP: case AGX_ELSE_ICMP: case AGX_WHILE_ICMP:
  case AGX_IF_FCMP: case AGX_ELSE_FCMP: case AGX_WHILE_FCMP: return f_cf;
  case AGX_POP_EXEC: return f_pop;
  case AGX_JMP_ANY: case AGX_JMP_NONE: return f_jmp;
  case AGX_STOP: case AGX_TRAP: case AGX_BARRIER: return f_fixed2;
  case AGX_WAIT: return f_wait;
  case AGX_LOAD: return f_load;
  case AGX_STORE: return f_store;
  case AGX_UNIFORM_STORE: return f_ustore;
  case AGX_ST_VAR: return f_stvar;
  case AGX_NO_VAR: return f_novar;
  case AGX_ITER: case AGX_ITERPROJ: case AGX_LDCF: return f_iter;
  case AGX_SAMPLE_MASK: case AGX_ZS_EMIT: return f_smask;
  case AGX_ST_TILE: case AGX_LD_TILE: return f_tile;
  case AGX_PIXWAIT: case AGX_PIXREL: return f_pix;
  case AGX_SMPF: return f_smpf;
  default:
    if (op >= AGX_FLOOR && op <= AGX_RINT) return f_funop;
    return NULL;
  }
}

/* ---- decode / encode ----------------------------------------------------------- */

static void setwhy(char *why, size_t n, const char *fmt, const char *arg) {
  if (why && n) snprintf(why, n, fmt, arg);
}

int agx_decode(const uint8_t *p, size_t avail, agx_instr *I, unsigned *len_out, char *why, size_t whysize) {
  uint8_t raw[AGX_MAX_BYTES] = {0};
  memcpy(raw, p, avail < AGX_MAX_BYTES ? avail : AGX_MAX_BYTES);
  *len_out = 0;
  if (avail < 2) {
    setwhy(why, whysize, "%s", "a truncated instruction (fewer than 2 bytes)");
    return 0;
  }
  for (unsigned k = 0; k < sizeof decoders / sizeof decoders[0]; k++) {
    codec c;
    memset(&c, 0, sizeof c);
    memcpy(c.b, raw, sizeof raw);
    c.why = why, c.whysize = whysize;
    /* A decoder sees only its instruction's bytes: clen zeroes the rest
     * before any field past the opcode is read. */
    memset(I, 0, sizeof *I);
    decoders[k](&c, I);
    if (c.nomatch && !c.outside) continue;
    *len_out = c.len;
    if (c.len > avail) {
      setwhy(why, whysize, "%s", "a truncated instruction (its length runs past the end)");
      return 0;
    }
    if (c.outside) {
      if (why && whysize) snprintf(why, whysize, "%s (%u bytes) is outside the subset gpusim models", c.outside, c.len);
      return 0;
    }
    if (c.bad) return 0;
    for (unsigned i = 0; i < c.len * 8; i++)
      if (((c.b[i >> 3] >> (i & 7)) & 1) && !((c.used[i >> 3] >> (i & 7)) & 1)) {
        char msg[80];
        snprintf(msg, sizeof msg, "unknown bit %u set in %s", i, agx_op_name(I->op));
        setwhy(why, whysize, "%s", msg);
        return 0;
      }
    I->len = (uint8_t)c.len;
    I->long_form = c.lbit && c.len == c.longlen && c.longlen != c.shortlen;
    return (int)c.len;
  }
  if (why && whysize) snprintf(why, whysize, "unknown opcode 0x%02x (length unknown)", p[0]);
  return 0;
}

unsigned agx_length(const uint8_t *p, size_t avail) {
  agx_instr I;
  unsigned len;
  char why[8];
  agx_decode(p, avail, &I, &len, why, sizeof why);
  return len;
}

int agx_encode(agx_instr *I, uint8_t *out, char *why, size_t whysize) {
  fmt_fn f = encoder_for(I->op);
  if (!f) {
    setwhy(why, whysize, "%s", "no encoding for this operation");
    return -1;
  }
  codec c;
  memset(&c, 0, sizeof c);
  c.enc = 1, c.why = why, c.whysize = whysize;
  f(&c, I);
  if (c.bad) return -1;
  unsigned len = c.shortlen;
  if (c.lbit) {
    int need = I->long_form;
    for (unsigned i = c.shortlen * 8; i < c.longlen * 8; i++)
      if ((c.b[i >> 3] >> (i & 7)) & 1) need = 1;
    if (need) {
      len = c.longlen;
      c.b[c.lbit >> 3] |= (uint8_t)(1u << (c.lbit & 7));
    }
  }
  I->len = (uint8_t)len;
  memcpy(out, c.b, AGX_MAX_BYTES);
  for (unsigned i = len; i < AGX_MAX_BYTES; i++) out[i] = 0;
  return 0;
}
