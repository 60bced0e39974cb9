/* exec_fast_run.h — the SASS micro-ops (exec_fast.c) as cases of the lane
 * micro-op layer's run loop (src/isa/uop/run.h), which exec_fast.c
 * instantiates for 32 lanes and includes this file inside. The loop's
 * locals: R (the warp's registers, then its scratch vectors), u, w, f, io,
 * budget, name, d, gm (the lanes of the current instruction: the active
 * lanes whose guard holds; also mk_[1], the micro-ops' condition 2), rc.
 * Each case computes every lane from copies of its operands (pure
 * functions of num.h: a lane outside gm computes a value nobody writes);
 * results reach registers, predicates and CC only in the lanes of gm. No
 * include guard: it is included once per copy of the loop. */

    case SX_GUARD: {
      int k_ = sx_guard(w, u, budget, &gm);
      mk_[1] = gm;
      if (k_ < 0) { /* the budget: the reference reports it */
        u = &sx_ref_uop;
        continue;
      }
      if (k_) { /* no lane (the next instruction) or every lane (the copy that writes results straight) */
        u += k_;
        continue;
      }
      break;
    }
    case SX_RUN:
      if (!sx_run(w, u, budget)) {
        u = f->u + u->imm; /* the instructions one by one */
        continue;
      }
      gm = mk_[1] = 0xffffffffu;
      break;
    case SX_GOTO:
      u = f->u + u->imm;
      continue;
    case SX_SKIP:
      u += u->d;
      continue;
    case SX_SLOW:
      w->pc = u->imm;
      /* fall through */
    case SX_REF:
      rc = sass_step_ref(w, f->p, io, budget, name, d);
      if (rc) return rc < 0 ? rc : 0;
      u = sx_locate(w, f);
      continue;
    case SX_EXIT:
      if (sx_exit(w, u, gm)) return 0;
      u = sx_locate(w, f);
      continue;
    case SX_CBUF: {
      uint32_t r_[32], v_;
      if (sass_cbuf_read(io, u->addr, u->imm, &v_) < 0) {
        /* nothing written yet: the reference runs the instruction again and
         * reports the error as it does */
        w->steps--;
        u = &sx_ref_uop;
        continue;
      }
      for (int i_ = 0; i_ < 32; i_++) r_[i_] = v_;
      memcpy(R + u->d, r_, sizeof r_);
      break;
    }
    case SX_FMODS: {
      uint32_t am_ = u->op ? 0x7fffffffu : 0xffffffffu, xm_ = u->side ? 0x80000000u : 0;
      SX_L2(SX_FMODS_FN(a));
      break;
    }
    case SX_CCZS: {
      uint32_t x_[32];
      memcpy(x_, R + u->a, sizeof x_);
      for (int i_ = 0; i_ < 32; i_++)
        if (gm >> i_ & 1) w->cc[i_] = (uint8_t)sass_flags_zs(x_[i_]);
      break;
    }
    case SX_FADD_RN: SX_L2(sass_fadd(a, b, SASS_RND_RN, 0)); break;
    case SX_FMUL_RN: SX_L2(sass_fmul(a, b, SASS_RND_RN, 0, SASS_SCALE_NONE)); break;
    case SX_FFMA_RN: {
      SX_P;
#if defined(__AVX2__) && defined(__FMA__)
      /* the fused multiply-add of 8 lanes at a time, every NaN SASS's */
      const float *fa_ = (const float *)(R + u->a), *fb_ = (const float *)(R + u->b);
      const float *fc_ = (const float *)(R + P->c);
      const __m256 nan_ = _mm256_castsi256_ps(_mm256_set1_epi32((int)SASS_NAN));
      __m256 r_[4];
      for (int k_ = 0; k_ < 4; k_++) {
        __m256 x_ = _mm256_fmadd_ps(_mm256_loadu_ps(fa_ + 8 * k_), _mm256_loadu_ps(fb_ + 8 * k_),
                                    _mm256_loadu_ps(fc_ + 8 * k_));
        r_[k_] = _mm256_blendv_ps(x_, nan_, _mm256_cmp_ps(x_, x_, _CMP_UNORD_Q));
      }
      for (int k_ = 0; k_ < 4; k_++) _mm256_storeu_ps((float *)(R + u->d) + 8 * k_, r_[k_]);
#else
      SX_L3(sx_fma_rn(a, b, c));
#endif
      break;
    }
    case SX_FADD: {
      SX_P;
      unsigned rnd_ = P->rnd, fl_ = P->flags;
      SX_L2(sass_fadd(a, b, rnd_, fl_));
      break;
    }
    case SX_FMUL: {
      SX_P;
      unsigned rnd_ = P->rnd, fl_ = P->flags, sc_ = P->scale;
      SX_L2(sass_fmul(a, b, rnd_, fl_, sc_));
      break;
    }
    case SX_FFMA: {
      SX_P;
      unsigned rnd_ = P->rnd, fl_ = P->flags;
      SX_L3(sass_ffma(a, b, c, rnd_, fl_));
      break;
    }
    case SX_FMNMX: {
      SX_P;
      SX_PV(pc_, P->pc, P->pcneg);
      unsigned ftz_ = P->ftz;
      SX_L2(sass_fmnmx(a, b, pc_[i_], ftz_));
      break;
    }
    case SX_FSET: {
      SX_P;
      SX_PV(pc_, P->pc, P->pcneg);
      unsigned cmp_ = P->cmp, ftz_ = P->ftz, bop_ = P->bop, bf_ = P->bf;
      SX_L2(sass_fset(sass_bop(bop_, sass_fcmp(cmp_, a, b, ftz_), pc_[i_]), bf_));
      break;
    }
    case SX_FSETP: {
      SX_P;
      SX_PV(pc_, P->pc, P->pcneg);
      unsigned cmp_ = P->cmp, ftz_ = P->ftz, bop_ = P->bop;
      SX_SETP(sass_setp(bop_, sass_fcmp(cmp_, a, b, ftz_), pc_[i_]));
      break;
    }
    case SX_FCMP: {
      SX_P;
      unsigned cmp_ = P->cmp, ftz_ = P->ftz;
      SX_L3(sass_fcmp_sel(cmp_, a, b, c, ftz_));
      break;
    }
    case SX_MUFU: {
      SX_P;
      unsigned op_ = P->op, sat_ = P->sat;
      SX_L2(sx_mufu(op_, a, sat_));
      break;
    }
    case SX_CVT: {
      SX_P;
      SX_L2(sx_cvt(P, b));
      break;
    }
    case SX_IMUL: {
      SX_P;
      unsigned sa_ = P->sa, sb_ = P->sb, hi_ = P->hi;
      SX_L2(sass_imul(a, b, sa_, sb_, hi_));
      break;
    }
    case SX_IMNMX: {
      SX_P;
      SX_PV(pc_, P->pc, P->pcneg);
      unsigned sg_ = P->sa;
      SX_L2(sass_imnmx(a, b, sg_, pc_[i_]));
      break;
    }
    case SX_ISETP: {
      SX_P;
      SX_PV(pc_, P->pc, P->pcneg);
      unsigned cmp_ = P->cmp, sg_ = P->sa, bop_ = P->bop, x_ = P->x;
      uint8_t cc_[32];
      memcpy(cc_, w->cc, sizeof cc_);
      SX_SETP(sass_setp(bop_, x_ ? sass_icmp_x(cmp_, a, b, sg_, cc_[i_]) : sass_icmp(cmp_, a, b, sg_), pc_[i_]));
      break;
    }
    case SX_ISET: {
      SX_P;
      SX_PV(pc_, P->pc, P->pcneg);
      unsigned cmp_ = P->cmp, sg_ = P->sa, bop_ = P->bop, bf_ = P->bf, x_ = P->x;
      uint8_t cc_[32];
      memcpy(cc_, w->cc, sizeof cc_);
      SX_L2(sass_fset(sass_bop(bop_, x_ ? sass_icmp_x(cmp_, a, b, sg_, cc_[i_]) : sass_icmp(cmp_, a, b, sg_), pc_[i_]),
                      bf_));
      break;
    }
    case SX_ICMP: {
      SX_P;
      unsigned cmp_ = P->cmp, sg_ = P->sa;
      SX_L3(sass_icmp(cmp_, c, 0, sg_) ? a : b);
      break;
    }
    case SX_LOP: {
      SX_P;
      unsigned op_ = P->op, ia_ = P->sa, ib_ = P->sb;
      SX_L2(sass_lop(a, b, op_, ia_, ib_));
      break;
    }
    case SX_LOP3: {
      SX_P;
      unsigned lut_ = P->op;
      SX_L3(sass_lop3(a, b, c, lut_));
      break;
    }
    case SX_LOP_PRED: { /* LOP/LOP3's predicate output of the result in a */
      SX_P;
      unsigned pop_ = P->op;
      uint32_t x_[32];
      uint8_t v_[32];
      memcpy(x_, R + u->a, sizeof x_);
      for (int i_ = 0; i_ < 32; i_++) v_[i_] = (uint8_t)sass_lop_pred(pop_, x_[i_]);
      sx_pwrite(w, P->pd, gm, v_);
      break;
    }
    case SX_SHR: {
      SX_P;
      unsigned sg_ = P->sa, wr_ = P->sb, br_ = P->hi;
      SX_L2(sass_shr(a, b, sg_, wr_, br_));
      break;
    }
    case SX_BFE: {
      SX_P;
      unsigned sg_ = P->sa, br_ = P->hi;
      SX_L2(sass_bfe(a, b, sg_, br_));
      break;
    }
    case SX_BFI: {
      SX_P;
      SX_L3(sass_bfi(a, b, c));
      break;
    }
    case SX_FLO: {
      SX_P;
      unsigned sg_ = P->sa, inv_ = P->sb, sh_ = P->hi;
      SX_L2(sass_flo(b, sg_, inv_, sh_));
      break;
    }
    case SX_POPC: {
      SX_P;
      unsigned inv_ = P->sb;
      SX_L2(sass_popc(b, inv_));
      break;
    }
    case SX_SEL: {
      SX_P;
      SX_PV(pc_, P->pc, P->pcneg);
      SX_L2(pc_[i_] ? a : b);
      break;
    }
    case SX_PSETP: {
      SX_P;
      SX_PV(pa_, P->pa, P->paneg);
      SX_PV(pb_, P->pb, P->pbneg);
      SX_PV(pc_, P->pc, P->pcneg);
      unsigned b1_ = P->bop, b2_ = P->bop2;
      uint8_t v_[32];
      for (int i_ = 0; i_ < 32; i_++) v_[i_] = (uint8_t)sass_psetp(b1_, b2_, pa_[i_], pb_[i_], pc_[i_]);
      SX_PWRITE2(v_);
      break;
    }
    case SX_PSET: {
      SX_P;
      SX_PV(pa_, P->pa, P->paneg);
      SX_PV(pb_, P->pb, P->pbneg);
      SX_PV(pc_, P->pc, P->pcneg);
      unsigned b1_ = P->bop, b2_ = P->bop2, bf_ = P->bf;
      SX_L2(sass_fset(sass_bop(b2_, sass_bop(b1_, pa_[i_], pb_[i_]), pc_[i_]), bf_));
      break;
    }
    case SX_IADD: {
      SX_P;
      unsigned fl_ = P->flags;
      SX_CC3(sass_iadd(a, b, fl_, cc, &co));
      break;
    }
    case SX_IADD3: {
      SX_P;
      unsigned fl_ = P->flags, ha_ = P->ha, hb_ = P->hb, hc_ = P->hc, mode_ = P->mode;
      SX_CC3(sass_iadd3(sass_half(a, ha_), sass_half(b, hb_), sass_half(c, hc_), fl_, mode_, cc, &co));
      break;
    }
    case SX_ISCADD: {
      SX_P;
      unsigned sh_ = P->shift, fl_ = P->flags;
      SX_CC3(sass_iscadd(a, b, sh_, fl_, &co));
      break;
    }
    case SX_XMAD: {
      SX_P;
      unsigned fl_ = P->flags, mode_ = P->mode;
      SX_CC3(sass_xmad(a, b, c, fl_, mode_, cc, &co));
      break;
    }
    case SX_CCSET: { /* FSET, ISET, PSET .CC: of the result in a, .BF in op */
      uint32_t x_[32];
      unsigned bf_ = u->op;
      memcpy(x_, R + u->a, sizeof x_);
      for (int i_ = 0; i_ < 32; i_++)
        if (gm >> i_ & 1) w->cc[i_] = (uint8_t)sass_fset_cc(x_[i_], bf_);
      break;
    }
