/* exec_fast_run.h — the AGX micro-ops (exec_fast.c) as cases of the lane
 * micro-op layer's run loop (src/isa/uop/run.h), which exec_fast.c
 * instantiates for 32 lanes and includes this file inside. The loop's
 * locals: R (the file), u, s, f, budget, d, exec (the active lanes), steps
 * (counted to the end of the current block), steps0 and blk (the steps
 * before the block and its first instruction), rc. A case computes every
 * lane and writes the active ones. No include guard: it is included once
 * per copy of the loop. */

    case AX_BLOCK: {
      uint64_t m_ = u->a | (uint64_t)u->b << 16;
      if (steps + m_ > budget) return ax_bail(s, f, u->imm, R, exec, steps, budget, d);
      steps0 = steps, blk = u->imm, steps += m_;
      break;
    }
    case AX_GENERIC:
      rc = ax_slow(s, f, u->imm, R, &exec, AX_STEPS, d);
      if (rc) return rc;
      break;
    case AX_PCHECK: {
      AX_P;
      const uint16_t *L_ = f->list + P->chk;
      unsigned any_ = 0;
      for (unsigned i_ = 0; i_ < P->nchk; i_++) any_ |= s->pending[L_[i_]];
      if (!any_) break;
      rc = ax_slow(s, f, u->imm, R, &exec, AX_STEPS, d);
      if (rc) return rc;
      u = f->u + P->next;
      continue;
    }
    case AX_JMP: {
      AX_P;
      if ((u->op != 0) != (exec != 0)) break;
      if (P->target < 0) {
        uint32_t to_ = P->pc + (uint32_t)f->p.insn[u->imm].offset;
        s->pc = P->pc;
        AX_LEAVE(agx_fault(d, AGX_FAULT_JUMP, P->pc, to_), AX_STEPS);
      }
      u = f->u + P->target;
      continue;
    }
    case AX_STOP: {
      AX_P;
      s->stopped = 1;
      s->pc = P->pc + f->p.insn[u->imm].len;
      ax_out_stop(s, f, R); /* (agx_run_rows: its rows) */
      s->exec = exec, s->steps = AX_STEPS;
      return GS_OK;
    }
    case AX_TRAP: {
      AX_P;
      s->pc = P->pc;
      AX_LEAVE(agx_fault(d, AGX_FAULT_TRAP, P->pc, 0), AX_STEPS);
    }
    case AX_FALL:
      s->pc = f->end;
      AX_LEAVE(agx_fault(d, AGX_FAULT_END, f->end, 0), steps);
    case AX_FADD:
      AX_FLOAT(for (int i = 0; i < AGX_LANES; i++) r_[i] = gs_lane_u(gs_lane_f(x[i]) + gs_lane_f(y[i])), agx_fadd(AX_FX(i), AX_FY(i), AGX_R32, 0));
      break;
    case AX_FMUL:
      AX_FLOAT(for (int i = 0; i < AGX_LANES; i++) r_[i] = gs_lane_u(gs_lane_f(x[i]) * gs_lane_f(y[i])), agx_fmul(AX_FX(i), AX_FY(i), AGX_R32, 0));
      break;
    case AX_FFMA:
#if defined(__AVX2__) && defined(__FMA__)
      AX_FLOAT(AX_FMA_VEC(r_, x, y, z), agx_ffma(AX_FX(i), AX_FY(i), AX_FZ(i), AGX_R32, 0));
#else
      AX_FLOAT(AX_FMA_LIBM(r_, x, y, z), agx_ffma(AX_FX(i), AX_FY(i), AX_FZ(i), AGX_R32, 0));
#endif
      break;
    case AX_IADD: {
      AX_P;
      uint32_t ng_ = P->neg ? 0xffffffffu : 0, on_ = P->shift < 5 ? 0xffffffffu : 0;
      unsigned sh_ = P->shift < 5 ? P->shift : 0;
      AX_INT(a + ((((b ^ ng_) - ng_) << sh_) & on_));
      break;
    }
    case AX_BITOP: {
      AX_P;
      uint32_t m0_ = 0u - (P->tt & 1u), m1_ = 0u - (P->tt >> 1 & 1u), m2_ = 0u - (P->tt >> 2 & 1u),
               m3_ = 0u - (P->tt >> 3 & 1u);
      AX_INT((~a & ~b & m0_) | (a & ~b & m1_) | (~a & b & m2_) | (a & b & m3_));
      break;
    }
    case AX_MOV: {
      AX_P;
      AX_INT(a);
      break;
    }
    case AX_ICSEL: {
      AX_P;
      unsigned cd_ = P->cond;
      AX_INT(ax_icmp(cd_, a, b) ? c : e);
      break;
    }
    case AX_FCSEL: {
      AX_P;
      unsigned cd_ = P->cond;
      uint32_t ka_ = P->ka, fa_ = P->fa, kb_ = P->kb, fb_ = P->fb;
      AX_INT(ax_fcmp(cd_, ax_fin(a, ka_, fa_), ax_fin(b, kb_, fb_)) ? c : e);
      break;
    }
    case AX_EXEC: {
      AX_P;
      const uint32_t *A_ = AX_V(u->a), *B_ = AX_V(u->b);
      uint32_t o_[AGX_LANES], c_[AGX_LANES], present_ = s->present, nx_ = 0;
      unsigned n_ = P->nest, cd_ = P->cond, kind_ = u->op;
      uint32_t ka_ = P->ka, fa_ = P->fa, kb_ = P->kb, fb_ = P->fb;
      memcpy(o_, R, sizeof o_); /* r0 */
      if (kind_ == 3) memset(c_, 0, sizeof c_);
      else if (u->side)
        for (int i = 0; i < AGX_LANES; i++) c_[i] = ax_fcmp(cd_, ax_fin(A_[i], ka_, fa_), ax_fin(B_[i], kb_, fb_));
      else
        for (int i = 0; i < AGX_LANES; i++) c_[i] = ax_icmp(cd_, A_[i], B_[i]);
      for (int i = 0; i < AGX_LANES; i++) {
        if (!(present_ >> i & 1)) continue;
        unsigned r = o_[i] & 0xffffu, c = c_[i];
        switch (kind_) {
          case 0: r = r ? r + n_ : c ? 0 : 1; break;
          case 1: r = r == 0 ? n_ : r == 1 ? (c ? 0 : 1) : r; break;
          case 2: r = r < n_ ? (c ? 0 : n_) : r; break;
          default: r = r > n_ ? r - n_ : 0; break;
        }
        r &= 0xffffu;
        o_[i] = (o_[i] & 0xffff0000u) | r;
        nx_ |= (uint32_t)(r == 0) << i;
      }
      memcpy(R, o_, sizeof o_);
      exec = nx_;
      break;
    }
    case AX_STVAR: {
      AX_P;
      const uint32_t *A_ = AX_V(u->a), *B_ = AX_V(u->b);
      unsigned sh_ = P->ihalf == 2 ? 16 : 0;
      uint32_t bad_ = s->var_done & exec;
      if (P->ihalf)
        for (int i = 0; i < AGX_LANES; i++) bad_ |= (uint32_t)(((B_[i] >> sh_) & 0xffffu) >= AGX_UVS_WORDS) << i & exec;
      if (bad_) { /* the reference says which lane fails, after the ones before */
        rc = ax_slow(s, f, u->imm, R, &exec, AX_STEPS, d);
        if (rc) return rc;
        break;
      }
      for (uint32_t m_ = exec; m_; m_ &= m_ - 1) {
        int i = __builtin_ctz(m_);
        unsigned w_ = P->ihalf ? (B_[i] >> sh_) & 0xffffu : P->e;
        s->uvs[i][w_] = A_[i];
        s->uvs_written[i] |= UINT64_C(1) << w_;
      }
      if (u->side) s->var_done |= exec;
      break;
    }
    case AX_WAIT: {
      uint8_t g_ = (uint8_t)(1 + u->op);
      for (int h_ = 0; h_ < AGX_HALVES; h_++) s->pending[h_] = s->pending[h_] == g_ ? 0 : s->pending[h_];
      break;
    }
    case AX_LOAD:
      if (ax_load(s, f, u->imm, u->a, R, exec)) {
        rc = ax_slow(s, f, u->imm, R, &exec, AX_STEPS, d);
        if (rc) return rc;
      }
      break;
    case AX_ITER:
      if (ax_iter(s, f, u->imm, R, exec)) {
        rc = ax_slow(s, f, u->imm, R, &exec, AX_STEPS, d);
        if (rc) return rc;
      }
      break;
    case AX_LANE: {
      AX_P;
      uint32_t r_[AGX_LANES];
      memset(r_, 0, sizeof r_);
      ax_lane(f, u->imm, R, exec, r_);
      AX_PUT(r_);
      break;
    }
    case AX_ILANE: {
      AX_P;
      uint32_t r_[AGX_LANES], h_[AGX_LANES];
      memset(r_, 0, sizeof r_), memset(h_, 0, sizeof h_);
      ax_ilane(f, u->imm, R, exec, r_, h_);
      if (P->half == 3) { /* a 64-bit pair: two registers */
        uint32_t *lo_ = (uint32_t *)(void *)(R + u->d), *hi_ = lo_ + AGX_LANES;
        for (uint32_t m_ = exec; m_; m_ &= m_ - 1) {
          int i = __builtin_ctz(m_);
          lo_[i] = r_[i], hi_[i] = h_[i];
        }
        break;
      }
      AX_PUT(r_);
      break;
    }
    case AX_MOVI: { /* (the value in a and b, ax_par's half in op, wo in side) */
      uint32_t v_ = u->a | (uint32_t)u->b << 16;
      if (u->op == 0 && (exec | dead) == 0xffffffffu) { /* AX_PUT's whole row, stored at once */
        uint32_t *D_ = (uint32_t *)(void *)(R + u->d);
        if (u->side) AX_SIDE(R)->wl[u->d / AX_VEC] |= exec;
        for (int i = 0; i < AGX_LANES; i++) D_[i] = v_;
        break;
      }
      AX_P;
      uint32_t r_[AGX_LANES];
      for (int i = 0; i < AGX_LANES; i++) r_[i] = v_;
      AX_PUT(r_);
      break;
    }
