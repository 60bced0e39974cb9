/* exec_run.h — the fast QPU interpreter's loop, included by exec.c once
 * for each instruction set it is compiled for (plain x86-64 and x86-64-v3
 * with runtime dispatch, or the build's -march): the includer names it
 * QPU_RUN and defines FLOAT_OP and HOST_FADD/FSUB/FMUL for that set. Every
 * copy computes the same bits (docs/pipeline.md, "Speed"). No include
 * guard: it is meant to be included more than once. */

#if HAVE_MXCSR && defined(__AVX512F__)
/* One AVX-512 instruction per operation; GCC's own vectorisation of the
 * lane loop rebuilds the vectors lane by lane after the infinity test. */
static inline int any_special(__m512 a, __m512 b) {
#if defined(__AVX512DQ__)
  /* classes QNaN, +Inf, -Inf, SNaN: exactly the exponent 255 */
  return !_mm512_kortestz(_mm512_fpclass_ps_mask(a, 0x99), _mm512_fpclass_ps_mask(b, 0x99));
#else
  const __m512i e = _mm512_set1_epi32(0x7f800000);
  return !_mm512_kortestz(_mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(a), e), e),
                          _mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(b), e), e));
#endif
}
#define FLOAT_OP(intrinsic, full)                                              \
  do {                                                                         \
    __m512 a_ = _mm512_load_ps(REG(u->a).f), b_ = _mm512_load_ps(REG(u->b).f); \
    if (any_special(a_, b_)) full##_lanes(R, u);                               \
    else _mm512_store_ps(REG(u->d).f, intrinsic(a_, b_));                      \
  } while (0)
#define HOST_FADD _mm512_add_ps
#define HOST_FSUB _mm512_sub_ps
#define HOST_FMUL _mm512_mul_ps
#elif HAVE_MXCSR && defined(__AVX2__)
/* Two AVX instructions per operation (x86-64-v3), for the same reason. */
static inline __m256i special_lanes(__m256 x) {
  const __m256i e = _mm256_set1_epi32(0x7f800000);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(x), e), e);
}
#define FLOAT_OP(intrinsic, full)                                                           \
  do {                                                                                      \
    __m256 a0_ = _mm256_load_ps(REG(u->a).f), a1_ = _mm256_load_ps(REG(u->a).f + 8);        \
    __m256 b0_ = _mm256_load_ps(REG(u->b).f), b1_ = _mm256_load_ps(REG(u->b).f + 8);        \
    __m256i s_ = _mm256_or_si256(_mm256_or_si256(special_lanes(a0_), special_lanes(a1_)),   \
                                 _mm256_or_si256(special_lanes(b0_), special_lanes(b1_)));  \
    if (!_mm256_testz_si256(s_, s_)) {                                                      \
      full##_lanes(R, u);                                                                   \
    } else {                                                                                \
      _mm256_store_ps(REG(u->d).f, intrinsic(a0_, b0_));                                    \
      _mm256_store_ps(REG(u->d).f + 8, intrinsic(a1_, b1_));                                \
    }                                                                                       \
  } while (0)
#define HOST_FADD _mm256_add_ps
#define HOST_FSUB _mm256_sub_ps
#define HOST_FMUL _mm256_mul_ps
#elif HAVE_MXCSR
static inline uint32_t host_fadd(uint32_t a, uint32_t b) { return qf_u(qf_f(a) + qf_f(b)); }
static inline uint32_t host_fsub(uint32_t a, uint32_t b) { return qf_u(qf_f(a) - qf_f(b)); }
static inline uint32_t host_fmul(uint32_t a, uint32_t b) { return qf_u(qf_f(a) * qf_f(b)); }
static inline int any_special(const gs_vec *a, const gs_vec *b) {
  uint32_t x[QPU_LANES], y[QPU_LANES], any = 0;
  memcpy(x, a->u, sizeof x);
  memcpy(y, b->u, sizeof y);
  /* exponent 255 is the only one that carries into bit 31; keep the loop
   * rolled so that GCC vectorises it instead of unrolling it to scalars */
#pragma GCC unroll 1
  for (int i = 0; i < QPU_LANES; i++) any |= ((x[i] & 0x7f800000u) + 0x00800000u) | ((y[i] & 0x7f800000u) + 0x00800000u);
  return (int)(any >> 31);
}
#define FLOAT_OP(host, full)                                     \
  do {                                                           \
    if (any_special(&REG(u->a), &REG(u->b))) full##_lanes(R, u); \
    else LANES2(host);                                           \
  } while (0)
#define HOST_FADD host_fadd
#define HOST_FSUB host_fsub
#define HOST_FMUL host_fmul
#else
#define FLOAT_OP(host, full) full##_lanes(R, u)
#endif

/* Runs up to max instructions: one switch over the program's micro-op
 * stream (decode.h), each case one micro-op over all 16 lanes. Aligned to
 * 64 bytes, so that the loop's layout does not move with the code before
 * it: a portable build whose copy started 32 bytes past a 64-byte boundary
 * ran the ALU chain of gpusim bench about 25% slower with the same code. */
#if defined(__GNUC__)
__attribute__((aligned(64)))
#endif
static int QPU_RUN(gs_gpu *g, gs_qpu *q, uint32_t max) {
  gs_vec *R = q->reg;
  new_flags nf = {0, 0, 0};
  const uint64_t stop = q->instructions + max; /* each instruction counts itself */
  int rc;
  if (max == 0) return QPU_STEP_OK;
  const qpu_uop *u = locate(g, q);
  if (!u) return qpu_diag(g, q)->code;
  for (;;) {
    switch (u->kind) {
    case UOP_ADD_1: FLOAT_OP(HOST_FADD, qpu_fadd); break;
    case UOP_ADD_2: FLOAT_OP(HOST_FSUB, qpu_fsub); break;
    case UOP_ADD_3: LANES2(qpu_fmin); break;
    case UOP_ADD_4: LANES2(qpu_fmax); break;
    case UOP_ADD_5: LANES2(qpu_fminabs); break;
    case UOP_ADD_6: LANES2(qpu_fmaxabs); break;
    case UOP_ADD_7: LANES1(qpu_ftoi); break;
    case UOP_ADD_8: LANES1(qpu_itof); break;
    case UOP_ADD_12: LANES2(op_add); break;
    case UOP_ADD_13: LANES2(op_sub); break;
    case UOP_ADD_14: LANES2(qpu_shr); break;
    case UOP_ADD_15: LANES2(qpu_asr); break;
    case UOP_ADD_16: LANES2(qpu_ror); break;
    case UOP_ADD_17: LANES2(qpu_shl); break;
    case UOP_ADD_18: LANES2(qpu_min); break;
    case UOP_ADD_19: LANES2(qpu_max); break;
    case UOP_ADD_20: LANES2(op_and); break;
    case UOP_ADD_21: LANES2(op_or); break;
    case UOP_ADD_22: LANES2(op_xor); break;
    case UOP_ADD_23: LANES1(op_not); break;
    case UOP_ADD_24: LANES1(qpu_clz); break;
    case UOP_ADD_30: LANES2(qpu_v8adds); break;
    case UOP_ADD_31: LANES2(qpu_v8subs); break;
    case UOP_MUL_1: FLOAT_OP(HOST_FMUL, qpu_fmul); break;
    case UOP_MUL_2: LANES2(qpu_mul24); break;
    case UOP_MUL_3: LANES2(qpu_v8muld); break;
    case UOP_MUL_4: LANES2(qpu_v8min); break;
    case UOP_MUL_5: LANES2(qpu_v8max); break;
    case UOP_MUL_6: LANES2(qpu_v8adds); break;
    case UOP_MUL_7: LANES2(qpu_v8subs); break;
    case UOP_IO_READ:
      if ((rc = qpu_io_read(g, q, u->side, u->addr, &REG(u->d))) < 0) return rc;
      break;
    case UOP_FLAGS_ADD: {
      uint32_t c[QPU_LANES];
      for (int i = 0; i < QPU_LANES; i++) c[i] = qpu_add_carry(u->op, REG(u->a).u[i], REG(u->b).u[i], REG(u->d).u[i]);
      compute_flags(q, &nf, REG(u->d).u, c, cond_lanes(q, u->cond));
      break;
    }
    case UOP_FLAGS_MUL: {
      uint32_t c[QPU_LANES];
      for (int i = 0; i < QPU_LANES; i++) c[i] = qpu_mul_carry(u->op, REG(u->a).u[i], REG(u->b).u[i]);
      compute_flags(q, &nf, REG(u->d).u, c, cond_lanes(q, u->cond));
      break;
    }
    case UOP_SETF:
      q->zf = nf.z;
      q->nf = nf.n;
      q->cf = nf.c;
      break;
    case UOP_MOVE:
      masked_move(&REG(u->d), &REG(u->a), cond_lanes(q, u->cond));
      break;
    case UOP_STAGE: {
      uint16_t lanes = cond_lanes(q, u->cond);
      if (!lanes) break;
      qpu_pending_write *pw = &q->next[q->nnext++];
      pw->v = REG(u->a);
      pw->bytes = 0xffffffffu;
      pw->lanes = lanes;
      pw->reg = (uint8_t)(u->d / sizeof(gs_vec));
      break;
    }
    case UOP_IO_WRITE:
      if ((rc = qpu_io_write(g, q, u->side, u->addr, &REG(u->a), cond_lanes(q, u->cond))) < 0) return rc;
      break;
    case UOP_TLB_WRITE: {
      /* qpu_io_write's tile-buffer case without its dispatch on the address */
      uint16_t lanes = cond_lanes(q, u->cond);
      const qpu_shader_io *io = q->shader_io;
      if (!lanes) break;
      rc = io && io->tlb_write ? io->tlb_write(io->ctx, q, u->addr, &REG(u->a), lanes)
                               : qpu_io_write(g, q, u->side, u->addr, &REG(u->a), lanes); /* its error */
      if (rc < 0) return rc;
      break;
    }
    case UOP_CONST:
      REG(u->d) = q->prog->consts[u->imm];
      break;
    case UOP_LDTMU:
      if ((rc = qpu_io_signal(g, q, u->side ? QPU_SIG_LDTMU1 : QPU_SIG_LDTMU0)) < 0) return rc;
      break;
    case UOP_THREND:
      q->end_delay = 3;
      break;
    case UOP_BRANCH:
      if ((rc = run_branch(g, q, u)) < 0) return rc;
      break;
    case UOP_MAY_BLOCK:
      /* first in its instruction: nothing has happened yet */
      if (qpu_io_would_block(g, q, q->prog->words[u->imm])) return QPU_STEP_STALL;
      break;
    case UOP_NEXT:
      q->instructions++;
      /* Most instructions leave no staged write, SFU or r5 result, branch
       * or thread end to account for: then the next one's micro-ops follow. */
      if (q->busy == 0) {
        q->pc += 8;
        if (q->instructions == stop) return QPU_STEP_OK;
        break;
      }
      if ((rc = finish_busy(q)) == QPU_STEP_END) return rc;
      if (q->instructions == stop) return QPU_STEP_OK;
      if (!rc) break;
      if (!(u = locate(g, q))) return qpu_diag(g, q)->code;
      continue;
    case UOP_SLOW:
      rc = qpu_step_ref(g, q);
      if (rc != QPU_STEP_OK) return rc; /* end, stall or error */
      if (q->instructions == stop) return QPU_STEP_OK;
      if (!(u = locate(g, q))) return qpu_diag(g, q)->code;
      continue;
    case UOP_LEAVE:
      if (!(u = locate(g, q))) return qpu_diag(g, q)->code;
      continue;
    default:
      /* The predecoder emits no other kind (nops and reserved opcodes have
       * none); saying so spares the switch its range check. */
#if defined(__GNUC__)
      __builtin_unreachable();
#endif
      break;
    }
    u++; /* cases that move elsewhere `continue` past this */
  }
}

#undef FLOAT_OP
#undef HOST_FADD
#undef HOST_FSUB
#undef HOST_FMUL
