/* run.h — the fast interpreter of the lane micro-op layer (uop.h): one
 * switch over a stream of micro-ops, each case one micro-op over all lanes,
 * never branching per lane. An includer instantiates it for one lane width
 * and one ISA, whose escapes (kinds from GS_UOP_ISA up) become cases of the
 * same switch, so an ISA's control flow and I/O cost no call. Included once
 * per instruction set the code is compiled for (plain x86-64 and, under
 * `#pragma GCC target("avx2")`, x86-64-v3: core/clones.h's scheme for a
 * whole loop); every copy computes the same bits. No include guard: it is
 * meant to be included more than once.
 *
 * The includer defines:
 *   GS_UOP_RUN         the function's name (static)
 *   GS_UOP_N           lanes, 16 or 32
 *   GS_UOP_PARAMS      its parameter list, in parentheses
 *   GS_UOP_ENTER       statements that declare and set `char *R` (the
 *                      register file) and `const gs_uop *u` (the first
 *                      micro-op), with anything its escapes need; they
 *                      may return
 *   GS_UOP_COND(c)     the lane mask of condition c (an integer)
 *   GS_UOP_CONSTS      the address of the program's constant vectors
 *   GS_UOP_MASK(i)     (optional) mask i as an lvalue: the compares are
 *                      compiled only when it is defined
 *   GS_UOP_ISA_CASES   (optional) a file name in quotes: the ISA's cases,
 *                      included inside the switch. A case ends in `break`
 *                      (the next micro-op), `continue` after setting u (a
 *                      jump) or `return`.
 *   GS_UOP_DEFAULT     (optional) statements for every other kind; without
 *                      it, other kinds never occur.
 * GS_UOP_END returns 0.
 * Inside the cases, GS_UOP_L2(fn) and GS_UOP_L1(fn) run a lane function
 * from register a (and b) into d, and GS_UOP_VEC the bytes of a register.
 */

#if !defined(GS_UOP_RUN) || !defined(GS_UOP_N) || !defined(GS_UOP_PARAMS) || !defined(GS_UOP_ENTER) || \
    !defined(GS_UOP_COND) || !defined(GS_UOP_CONSTS)
#error "run.h: define GS_UOP_RUN, GS_UOP_N, GS_UOP_PARAMS, GS_UOP_ENTER, GS_UOP_COND and GS_UOP_CONSTS first"
#endif

#include <string.h>
#include "isa/uop/uop.h"
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#define GS_UOP_CAT2_(a, b) a##_##b
#define GS_UOP_CAT_(a, b) GS_UOP_CAT2_(a, b)
#define GS_UOP_ID(x) GS_UOP_CAT_(GS_UOP_RUN, x)
#define GS_UOP_VEC (4 * GS_UOP_N)
#if GS_UOP_N == 32
#define GS_UOP_ALL 0xffffffffu
#else
#define GS_UOP_ALL ((1u << GS_UOP_N) - 1u)
#endif

/* One loop per operation over the lanes: operands are copied to locals
 * first so the compiler knows they do not alias the destination, and
 * vectorises. */
#define GS_UOP_L2(fn)                                                 \
  do {                                                                \
    uint32_t x_[GS_UOP_N], y_[GS_UOP_N], r_[GS_UOP_N];                \
    memcpy(x_, R + u->a, sizeof x_);                                  \
    memcpy(y_, R + u->b, sizeof y_);                                  \
    for (int i_ = 0; i_ < GS_UOP_N; i_++) r_[i_] = fn(x_[i_], y_[i_]); \
    memcpy(R + u->d, r_, sizeof r_);                                  \
  } while (0)
#define GS_UOP_L1(fn)                                         \
  do {                                                        \
    uint32_t x_[GS_UOP_N], r_[GS_UOP_N];                      \
    memcpy(x_, R + u->a, sizeof x_);                          \
    for (int i_ = 0; i_ < GS_UOP_N; i_++) r_[i_] = fn(x_[i_]); \
    memcpy(R + u->d, r_, sizeof r_);                          \
  } while (0)

#if defined(__GNUC__)
#define GS_UOP_NOINLINE __attribute__((noinline))
#else
#define GS_UOP_NOINLINE
#endif

/* The no-NaN model's lane loops, for operands with exponent 255, out of
 * line: they are rare, and inlined GCC loads their operands ahead of the
 * test, every time. */
static GS_UOP_NOINLINE void GS_UOP_ID(fadd_nn)(char *R, const gs_uop *u) { GS_UOP_L2(gs_lane_fadd_nn); }
static GS_UOP_NOINLINE void GS_UOP_ID(fsub_nn)(char *R, const gs_uop *u) { GS_UOP_L2(gs_lane_fsub_nn); }
static GS_UOP_NOINLINE void GS_UOP_ID(fmul_nn)(char *R, const gs_uop *u) { GS_UOP_L2(gs_lane_fmul_nn); }

/* With the host's denormals-are-zero and flush-to-zero on, the host's add,
 * subtract or multiply gives exactly the no-NaN model's result unless an
 * operand has exponent 255: then the full model's loop runs instead. The
 * test is off the data's critical path. */
#if defined(__SSE2__) && defined(__AVX512F__)
/* One AVX-512 instruction per operation; GCC's own vectorisation of the
 * lane loop rebuilds the vectors lane by lane after the infinity test. */
static inline int GS_UOP_ID(special)(__m512 a, __m512 b) {
#if defined(__AVX512DQ__)
  /* classes QNaN, +Inf, -Inf, SNaN: exactly the exponent 255 */
  return !_mm512_kortestz(_mm512_fpclass_ps_mask(a, 0x99), _mm512_fpclass_ps_mask(b, 0x99));
#else
  const __m512i e = _mm512_set1_epi32(0x7f800000);
  return !_mm512_kortestz(_mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(a), e), e),
                          _mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(b), e), e));
#endif
}
#if GS_UOP_N == 16
#define GS_UOP_FLOAT_NN(intrinsic, full)                                                    \
  do {                                                                                      \
    __m512 a_ = _mm512_load_ps((const float *)(R + u->a)), b_ = _mm512_load_ps((const float *)(R + u->b)); \
    if (GS_UOP_ID(special)(a_, b_)) GS_UOP_ID(full)(R, u);                                  \
    else _mm512_store_ps((float *)(R + u->d), intrinsic(a_, b_));                           \
  } while (0)
#else
#define GS_UOP_FLOAT_NN(intrinsic, full)                                                      \
  do {                                                                                        \
    __m512 a0_ = _mm512_load_ps((const float *)(R + u->a)), b0_ = _mm512_load_ps((const float *)(R + u->b)); \
    __m512 a1_ = _mm512_load_ps((const float *)(R + u->a) + 16);                              \
    __m512 b1_ = _mm512_load_ps((const float *)(R + u->b) + 16);                              \
    if (GS_UOP_ID(special)(a0_, b0_) | GS_UOP_ID(special)(a1_, b1_)) {                        \
      GS_UOP_ID(full)(R, u);                                                                  \
    } else {                                                                                  \
      _mm512_store_ps((float *)(R + u->d), intrinsic(a0_, b0_));                              \
      _mm512_store_ps((float *)(R + u->d) + 16, intrinsic(a1_, b1_));                         \
    }                                                                                         \
  } while (0)
#endif
#define GS_UOP_HOST_FADD _mm512_add_ps
#define GS_UOP_HOST_FSUB _mm512_sub_ps
#define GS_UOP_HOST_FMUL _mm512_mul_ps
#elif defined(__SSE2__) && defined(__AVX2__)
/* Two AVX instructions per 8 lanes (x86-64-v3), for the same reason. */
static inline __m256i GS_UOP_ID(special)(__m256 x) {
  const __m256i e = _mm256_set1_epi32(0x7f800000);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(x), e), e);
}
#define GS_UOP_FLOAT_NN(intrinsic, full)                                                            \
  do {                                                                                              \
    const float *pa_ = (const float *)(R + u->a), *pb_ = (const float *)(R + u->b);                 \
    __m256 a_[GS_UOP_N / 8], b_[GS_UOP_N / 8];                                                      \
    __m256i s_ = _mm256_setzero_si256();                                                            \
    for (int k_ = 0; k_ < GS_UOP_N / 8; k_++) {                                                     \
      a_[k_] = _mm256_load_ps(pa_ + 8 * k_), b_[k_] = _mm256_load_ps(pb_ + 8 * k_);                 \
      s_ = _mm256_or_si256(s_, _mm256_or_si256(GS_UOP_ID(special)(a_[k_]), GS_UOP_ID(special)(b_[k_]))); \
    }                                                                                               \
    if (!_mm256_testz_si256(s_, s_)) {                                                              \
      GS_UOP_ID(full)(R, u);                                                                        \
    } else {                                                                                        \
      for (int k_ = 0; k_ < GS_UOP_N / 8; k_++)                                                     \
        _mm256_store_ps((float *)(R + u->d) + 8 * k_, intrinsic(a_[k_], b_[k_]));                   \
    }                                                                                               \
  } while (0)
#define GS_UOP_HOST_FADD _mm256_add_ps
#define GS_UOP_HOST_FSUB _mm256_sub_ps
#define GS_UOP_HOST_FMUL _mm256_mul_ps
#elif defined(__SSE2__)
static inline int GS_UOP_ID(special)(const char *a, const char *b) {
  uint32_t x[GS_UOP_N], y[GS_UOP_N], any = 0;
  memcpy(x, a, sizeof x);
  memcpy(y, b, sizeof y);
  /* exponent 255 is the only one that carries into bit 31; keep the loop
   * rolled so that GCC vectorises it instead of unrolling it to scalars */
#pragma GCC unroll 1
  for (int i = 0; i < GS_UOP_N; i++)
    any |= ((x[i] & 0x7f800000u) + 0x00800000u) | ((y[i] & 0x7f800000u) + 0x00800000u);
  return (int)(any >> 31);
}
#define GS_UOP_FLOAT_NN(host, full)                                         \
  do {                                                                      \
    if (GS_UOP_ID(special)(R + u->a, R + u->b)) GS_UOP_ID(full)(R, u);      \
    else GS_UOP_L2(host);                                                   \
  } while (0)
/* the host's operations as they are: without exponent-255 operands no
 * result is a NaN */
static inline uint32_t GS_UOP_ID(hadd)(uint32_t a, uint32_t b) { return gs_lane_u(gs_lane_f(a) + gs_lane_f(b)); }
static inline uint32_t GS_UOP_ID(hsub)(uint32_t a, uint32_t b) { return gs_lane_u(gs_lane_f(a) - gs_lane_f(b)); }
static inline uint32_t GS_UOP_ID(hmul)(uint32_t a, uint32_t b) { return gs_lane_u(gs_lane_f(a) * gs_lane_f(b)); }
#define GS_UOP_HOST_FADD GS_UOP_ID(hadd)
#define GS_UOP_HOST_FSUB GS_UOP_ID(hsub)
#define GS_UOP_HOST_FMUL GS_UOP_ID(hmul)
#else
/* No denormal flushing to lean on: the model's loops always. */
#define GS_UOP_FLOAT_NN(host, full) GS_UOP_ID(full)(R, u)
#endif

/* Lanes of mask m whose compare (1 or 0 in r[]) holds. */
#define GS_UOP_CMP(fn)                                                                       \
  do {                                                                                       \
    uint32_t x_[GS_UOP_N], y_[GS_UOP_N], m_ = 0, l_ = GS_UOP_COND(u->cond);                  \
    memcpy(x_, R + u->a, sizeof x_);                                                         \
    memcpy(y_, R + u->b, sizeof y_);                                                         \
    for (int i_ = 0; i_ < GS_UOP_N; i_++) m_ |= fn(x_[i_], y_[i_]) << i_;                    \
    GS_UOP_MASK(u->d) = (GS_UOP_MASK(u->d) & ~l_) | (m_ & l_);                               \
  } while (0)

/* Aligned to 64 bytes, so that the loop's layout does not move with the
 * code before it: a portable build whose copy started 32 bytes past a
 * 64-byte boundary ran the QPU's ALU chain of gpusim bench about 25% slower
 * with the same code. */
#if defined(__GNUC__)
__attribute__((aligned(64)))
#endif
static int GS_UOP_RUN GS_UOP_PARAMS {
  GS_UOP_ENTER
  for (;;) {
    switch (u->kind) {
    case GS_UOP_FADD_NN: GS_UOP_FLOAT_NN(GS_UOP_HOST_FADD, fadd_nn); break;
    case GS_UOP_FSUB_NN: GS_UOP_FLOAT_NN(GS_UOP_HOST_FSUB, fsub_nn); break;
    case GS_UOP_FMUL_NN: GS_UOP_FLOAT_NN(GS_UOP_HOST_FMUL, fmul_nn); break;
    case GS_UOP_FMIN_NN: GS_UOP_L2(gs_lane_fmin_nn); break;
    case GS_UOP_FMAX_NN: GS_UOP_L2(gs_lane_fmax_nn); break;
    case GS_UOP_FMINABS_NN: GS_UOP_L2(gs_lane_fminabs_nn); break;
    case GS_UOP_FMAXABS_NN: GS_UOP_L2(gs_lane_fmaxabs_nn); break;
    case GS_UOP_FTOI_NN: GS_UOP_L1(gs_lane_ftoi_nn); break;
    case GS_UOP_FADD: GS_UOP_L2(gs_lane_fadd); break;
    case GS_UOP_FSUB: GS_UOP_L2(gs_lane_fsub); break;
    case GS_UOP_FMUL: GS_UOP_L2(gs_lane_fmul); break;
    case GS_UOP_FMIN: GS_UOP_L2(gs_lane_fmin); break;
    case GS_UOP_FMAX: GS_UOP_L2(gs_lane_fmax); break;
    case GS_UOP_FTOI_SAT: GS_UOP_L1(gs_lane_ftoi_sat); break;
    case GS_UOP_ITOF: GS_UOP_L1(gs_lane_itof); break;
    case GS_UOP_IADD: GS_UOP_L2(gs_lane_iadd); break;
    case GS_UOP_ISUB: GS_UOP_L2(gs_lane_isub); break;
    case GS_UOP_SHR: GS_UOP_L2(gs_lane_shr); break;
    case GS_UOP_ASR: GS_UOP_L2(gs_lane_asr); break;
    case GS_UOP_ROR: GS_UOP_L2(gs_lane_ror); break;
    case GS_UOP_SHL: GS_UOP_L2(gs_lane_shl); break;
    case GS_UOP_SHR_SAT: GS_UOP_L2(gs_lane_shr_sat); break;
    case GS_UOP_ASR_SAT: GS_UOP_L2(gs_lane_asr_sat); break;
    case GS_UOP_SHL_SAT: GS_UOP_L2(gs_lane_shl_sat); break;
    case GS_UOP_IMIN: GS_UOP_L2(gs_lane_imin); break;
    case GS_UOP_IMAX: GS_UOP_L2(gs_lane_imax); break;
    case GS_UOP_UMIN: GS_UOP_L2(gs_lane_umin); break;
    case GS_UOP_UMAX: GS_UOP_L2(gs_lane_umax); break;
    case GS_UOP_AND: GS_UOP_L2(gs_lane_and); break;
    case GS_UOP_OR: GS_UOP_L2(gs_lane_or); break;
    case GS_UOP_XOR: GS_UOP_L2(gs_lane_xor); break;
    case GS_UOP_NOT: GS_UOP_L1(gs_lane_not); break;
    case GS_UOP_CLZ: GS_UOP_L1(gs_lane_clz); break;
    case GS_UOP_MUL24: GS_UOP_L2(gs_lane_mul24); break;
    case GS_UOP_MUL32: GS_UOP_L2(gs_lane_mul32); break;
    case GS_UOP_PACK_UNORM8_NN: {
      uint32_t x_[GS_UOP_N], y_[GS_UOP_N], m_ = u->imm;
      memcpy(x_, R + u->a, sizeof x_);
      memcpy(y_, R + u->b, sizeof y_);
      for (int i_ = 0; i_ < GS_UOP_N; i_++) x_[i_] = gs_lane_pack_unorm8_nn(x_[i_], y_[i_], m_);
      memcpy(R + u->d, x_, sizeof x_);
      break;
    }
    case GS_UOP_SELECT: {
      uint32_t x_[GS_UOP_N], y_[GS_UOP_N], l_ = GS_UOP_COND(u->cond);
      memcpy(x_, R + u->a, sizeof x_);
      memcpy(y_, R + u->b, sizeof y_);
      for (int i_ = 0; i_ < GS_UOP_N; i_++) x_[i_] = (l_ >> i_ & 1) ? x_[i_] : y_[i_];
      memcpy(R + u->d, x_, sizeof x_);
      break;
    }
    case GS_UOP_MOVE: {
      uint32_t l_ = GS_UOP_COND(u->cond), x_[GS_UOP_N], y_[GS_UOP_N];
      memcpy(x_, R + u->a, sizeof x_); /* through a local: d may be a */
      if (l_ == GS_UOP_ALL) {
        memcpy(R + u->d, x_, sizeof x_);
        break;
      }
      memcpy(y_, R + u->d, sizeof y_);
      for (int i_ = 0; i_ < GS_UOP_N; i_++) y_[i_] = (l_ >> i_ & 1) ? x_[i_] : y_[i_];
      memcpy(R + u->d, y_, sizeof y_);
      break;
    }
    case GS_UOP_CONST:
      memcpy(R + u->d, (const char *)(GS_UOP_CONSTS) + (size_t)u->imm * GS_UOP_VEC, GS_UOP_VEC);
      break;
#if defined(GS_UOP_MASK)
    case GS_UOP_CMP_IEQ: GS_UOP_CMP(gs_lane_ieq); break;
    case GS_UOP_CMP_INE: GS_UOP_CMP(gs_lane_ine); break;
    case GS_UOP_CMP_ILT: GS_UOP_CMP(gs_lane_ilt); break;
    case GS_UOP_CMP_ULT: GS_UOP_CMP(gs_lane_ult); break;
    case GS_UOP_CMP_FEQ: GS_UOP_CMP(gs_lane_feq); break;
    case GS_UOP_CMP_FLT: GS_UOP_CMP(gs_lane_flt); break;
#endif
    case GS_UOP_END:
      return 0;
#if defined(GS_UOP_ISA_CASES)
#include GS_UOP_ISA_CASES
#endif
    default:
#if defined(GS_UOP_DEFAULT)
      GS_UOP_DEFAULT
#else
      /* The preparer emits no other kind; saying so spares the switch its
       * range check. */
#if defined(__GNUC__)
      __builtin_unreachable();
#endif
#endif
      break;
    }
    u++; /* cases that move elsewhere `continue` past this */
  }
}

#undef GS_UOP_FLOAT_NN
#undef GS_UOP_HOST_FADD
#undef GS_UOP_HOST_FSUB
#undef GS_UOP_HOST_FMUL
#undef GS_UOP_CMP
#undef GS_UOP_L1
#undef GS_UOP_L2
#undef GS_UOP_ALL
#undef GS_UOP_VEC
#undef GS_UOP_ID
#undef GS_UOP_CAT_
#undef GS_UOP_CAT2_
#undef GS_UOP_NOINLINE
