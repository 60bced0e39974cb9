/* agx.h — one decoded Apple AGX (G13, the M1's GPU) instruction: what the
 * decoder (decode.c) makes of an instruction's bytes, what the assembler
 * (asm.c) builds before the table (table.c) encodes it, what the
 * disassembler (disasm.c) prints and what an interpreter executes.
 *
 * Instructions are 2 to 12 bytes, little-endian; most have a short and a
 * long form chosen by a length bit, the long form carrying the high bits
 * of register numbers. Registers are numbered in 16-bit halves everywhere:
 * half index h = 2N is rNl (and the 32-bit rN, and the 64-bit pair drN =
 * rN:rN+1), h = 2N+1 is rNh. docs/agx.md is the chapter; the public sources
 * are Mesa's src/asahi/isa (AGX2.xml, the disassembler and its test cases)
 * and Dougall Johnson's applegpu (applegpu.py, its ISA page).
 */
#ifndef GS_ISA_AGX_AGX_H
#define GS_ISA_AGX_AGX_H

#include <stdint.h>

#define AGX_MAX_BYTES 12

/* The instructions of the subset, one id per operation (aliases such as
 * mov/imul/shl/update_exec are the operation they alias, with the operands
 * that make the alias; the disassembler prints the alias). Operands per op
 * (d = dst, s0.. = src[]):
 *
 *   FADD FMUL HADD HMUL        d, s0, s1          sat
 *   FFMA HFMA                  d, s0, s1, s2      sat       d = s0*s1 + s2
 *   FLOOR..RINT (funop)        d, s0              sat
 *   LDIMM                      d, s0 = IMM (16 or 32 bits, d's size)
 *   GET_SR                     d, s0 = SR
 *   BITOP                      d, s0, s1          tt: result bit = tt >> ((b << 1) | a) & 1
 *   IADD ISUB                  d, s0, s1          shift (s1 << shift), sat
 *   IMAD IMSUB                 d, s0, s1, s2      shift (s2 << shift), sat;  d = s0*s1 +/- (s2 << shift)
 *   BFI BFEIL EXTR             d, s0, s1, s2      mask_width (0 = 32 bits); shift amount s2
 *   INTL                       d, s0, s1          BITREV POPCNT FFS  d, s0
 *   CONVERT                    d, s0              mode (AGX_CVT_*), round (0 rtz, 1 rte)
 *   ICMPSEL FCMPSEL            d, s0, s1, s2, s3  cond: d = cond(s0, s1) ? s2 : s3 (s2, s3 have d's size)
 *   IF/ELSE/WHILE _ICMP/_FCMP  s0, s1             cond (with invert bit 3), nest, cache (hint on r0l)
 *   POP_EXEC                   nest, cache
 *   JMP_ANY JMP_NONE           offset (bytes, from this instruction's address)
 *   STOP TRAP BARRIER          -
 *   WAIT                       group (0 a, 1 b)
 *   LOAD STORE                 d (LOAD) / s0 (STORE) = data run (count = popcount(mask));
 *                              s1 = base (64-bit REG or UNIF pair); s2 = index (REG 32-bit, its sx
 *                              set when sign-extended, or IMM: value already extended to 32 bits);
 *                              format, mask, shift, coherency, group, index_zext
 *   UNIFORM_STORE              d = UNIF run, s0 = REG run (mask gives the halves)
 *   ST_VAR                     s0 = 32-bit REG, s1 = index (IMM or 16-bit REG), last
 *   NO_VAR                     -
 *   ITER ITERPROJ              d = run (count), s0 = CF (or 16-bit REG: indirect), s1 = CF (W, ITERPROJ),
 *                              s2 = sample index (IMM or 16-bit REG, when interp is SAMPLE*),
 *                              interp, fwd, elide, kill
 *   LDCF                       d = run of 3, s0 = CF
 *   SAMPLE_MASK                s0 = target, s1 = live (IMM 8-bit or 16-bit REG)
 *   ZS_EMIT                    s0 = sample mask (IMM or REG), s1 = REG run (depth 32-bit, stencil 16-bit);
 *                              zs_depth, zs_stencil
 *   ST_TILE                    s0 = data run, s1 = coords (IMM 0 or 16-bit REG pair), s2 = samples,
 *                              s3 = byte offset (IMM), format, mask, explicit_coords
 *   LD_TILE                    d = data run, s1..s3 as ST_TILE
 *   PIXWAIT PIXREL             s0 = IMM (10 bits), s1 = IMM (2 bits)
 *   SMPF                       d = data run (mask), s0 = TS, s1 = SS, s2 = coords REG, s3 = lod/bias
 *                              (REG, UNIF or IMM 0); dim, lod_mode, mask, group
 */
typedef enum agx_op {
  AGX_OP_NONE = 0,
  AGX_FADD, AGX_FMUL, AGX_FFMA, AGX_HADD, AGX_HMUL, AGX_HFMA,
  /* the funop group, in the order of their op numbers */
  AGX_FLOOR, AGX_SRSQRT, AGX_DFDX, AGX_DFDY, AGX_RCP, AGX_RSQRT, AGX_SIN_PT_1, AGX_LOG2, AGX_EXP2,
  AGX_SIN_PT_2, AGX_CEIL, AGX_TRUNC, AGX_RINT,
  AGX_LDIMM, AGX_GET_SR, AGX_BITOP,
  AGX_IADD, AGX_ISUB, AGX_IMAD, AGX_IMSUB,
  AGX_BFI, AGX_BFEIL, AGX_EXTR,
  AGX_INTL, AGX_BITREV, AGX_POPCNT, AGX_FFS, AGX_CONVERT,
  AGX_ICMPSEL, AGX_FCMPSEL,
  AGX_IF_ICMP, AGX_ELSE_ICMP, AGX_WHILE_ICMP, AGX_IF_FCMP, AGX_ELSE_FCMP, AGX_WHILE_FCMP, AGX_POP_EXEC,
  AGX_JMP_ANY, AGX_JMP_NONE, AGX_STOP, AGX_TRAP, AGX_WAIT, AGX_BARRIER,
  AGX_LOAD, AGX_STORE, AGX_UNIFORM_STORE,
  AGX_ST_VAR, AGX_NO_VAR, AGX_ITER, AGX_ITERPROJ, AGX_LDCF, AGX_SAMPLE_MASK, AGX_ZS_EMIT,
  AGX_ST_TILE, AGX_LD_TILE, AGX_PIXWAIT, AGX_PIXREL, AGX_SMPF,
  AGX_NOPS
} agx_op;

/* Operand kinds. */
typedef enum agx_kind {
  AGX_K_NONE = 0, /* absent */
  AGX_K_REG,      /* GPR: index = half index 0..255 of the first element */
  AGX_K_UNIF,     /* uniform register (read only): index = half index 0..511 */
  AGX_K_IMM,      /* integer immediate: value */
  AGX_K_FIMM,     /* float immediate: value = the 8-bit minifloat code (agx_minifloat) */
  AGX_K_CF,       /* coefficient register cfN: index = N */
  AGX_K_SR,       /* special register: index = its number (0..255) */
  AGX_K_TS,       /* texture state tsN: index = N */
  AGX_K_SS        /* sampler state ssN: index = N */
} agx_kind;

enum { AGX_HINT_NONE = 0, AGX_HINT_CACHE = 1, AGX_HINT_DISCARD = 2 };

typedef struct agx_opnd {
  uint8_t kind;     /* agx_kind */
  uint8_t bits;     /* REG/UNIF element size: 16, 32 or 64 */
  uint8_t count;    /* REG/UNIF consecutive elements (vector runs), 1..4; 1 otherwise */
  uint8_t hint;     /* AGX_HINT_*: cache `$`, discard/last use `^` */
  uint8_t abs, neg; /* float source modifiers (neg applied after abs) */
  uint8_t sx;       /* integer source: sign-extend to the operation's width */
  uint16_t index;   /* see agx_kind */
  uint32_t value;   /* IMM value; FIMM minifloat code */
} agx_opnd;

/* Integer conditions (csel uses codes 0..7; if/else/while add 8 = invert). */
enum {
  AGX_IEQ = 0, AGX_ULT = 1, AGX_UGT = 2, AGX_SEQ = 4, AGX_SLT = 5, AGX_SGT = 6,
  AGX_INE = 8, AGX_UGTE = 9, AGX_ULTE = 10, AGX_NSEQ = 12, AGX_SGTE = 13, AGX_SLTE = 14
};
/* Float conditions: ltn/gtn are the "NaN loses" min/max compares. */
enum {
  AGX_FEQ = 0, AGX_FLT = 1, AGX_FGT = 2, AGX_FLTN = 3, AGX_FGTE = 5, AGX_FLTE = 6, AGX_FGTN = 7,
  AGX_FNEQ = 8, AGX_FNLT = 9, AGX_FNGT = 10, AGX_FNLTN = 11, AGX_FNGTE = 13, AGX_FNLTE = 14, AGX_FNGTN = 15
};

/* convert modes */
enum {
  AGX_CVT_U8_TO_F = 0, AGX_CVT_S8_TO_F = 1, AGX_CVT_F_TO_U16 = 4, AGX_CVT_F_TO_S16 = 5,
  AGX_CVT_U16_TO_F = 6, AGX_CVT_S16_TO_F = 7, AGX_CVT_F_TO_U32 = 8, AGX_CVT_F_TO_S32 = 9,
  AGX_CVT_U32_TO_F = 10, AGX_CVT_S32_TO_F = 11
};

/* Memory formats (load/store, st_tile/ld_tile). */
enum {
  AGX_FMT_I8 = 0, AGX_FMT_I16 = 1, AGX_FMT_I32 = 2, AGX_FMT_F16 = 3, AGX_FMT_U8NORM = 4,
  AGX_FMT_S8NORM = 5, AGX_FMT_U16NORM = 6, AGX_FMT_S16NORM = 7, AGX_FMT_RGB10A2 = 8,
  AGX_FMT_SRGBA8 = 10, AGX_FMT_RG11B10F = 12, AGX_FMT_RGB9E5 = 13, AGX_FMT_RG11B10F_RTZ = 14,
  AGX_FMT_RGB9E5_RTZ = 15
};

/* iter interpolation */
enum { AGX_INTERP_CENTER = 0, AGX_INTERP_SAMPLE = 1, AGX_INTERP_CENTROID = 2, AGX_INTERP_SAMPLE_REG = 3 };

typedef struct agx_instr {
  uint8_t op;        /* agx_op */
  uint8_t len;       /* bytes: 2, 4, 6, 8, 10 or 12 */
  uint8_t long_form; /* 1: the long form of an instruction that has two */
  uint8_t sat;       /* float/integer saturate */
  agx_opnd dst;
  agx_opnd src[4];
  uint8_t cond;      /* AGX_IEQ.. / AGX_FEQ.. */
  uint8_t nest;      /* if/else/while/pop_exec: 0..3 */
  uint8_t cache;     /* if/else/while/pop_exec: cache hint on the implicit r0l */
  uint8_t shift;     /* iadd/imad lsl 0..7 (>= 5: the shifted term is 0); load/store lsl 0..3 */
  uint8_t tt;        /* bitop truth table, bit i = result for (b << 1) | a == i */
  uint8_t mask_width;/* bfi/bfeil/extr: 0..31 (0 = all 32 bits) */
  uint8_t mode;      /* convert mode (AGX_CVT_*) */
  uint8_t round;     /* convert rounding: 0 rtz, 1 rte */
  uint8_t format;    /* AGX_FMT_* */
  uint8_t mask;      /* component mask (x = 1 .. w = 8) */
  uint8_t coherency; /* load/store 0..3 */
  uint8_t group;     /* wait group: 0 a, 1 b */
  uint8_t index_zext;/* load/store: 1 = the index is zero-extended */
  uint8_t last;      /* st_var: the final store of the invocation */
  uint8_t interp;    /* AGX_INTERP_* */
  uint8_t fwd, elide, kill;
  uint8_t explicit_coords; /* st_tile/ld_tile */
  uint8_t zs_depth, zs_stencil;
  uint8_t dim, lod_mode;   /* smpf */
  int32_t offset;    /* jumps: signed byte offset from this instruction */
} agx_instr;

/* The value of minifloat code c (sign 7, exponent 6..4, mantissa 3..0). */
static inline float agx_minifloat(unsigned c) {
  unsigned e = (c >> 4) & 7, m = c & 15;
  float v = e ? (float)(16 + m) * (float)(1u << e) / 128.0f : (float)m / 64.0f;
  return (c & 0x80) ? -v : v;
}

#endif
