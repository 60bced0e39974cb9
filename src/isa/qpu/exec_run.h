/* exec_run.h — the QPU's own micro-ops (decode.h) as cases of the lane
 * micro-op layer's run loop (src/isa/uop/run.h), which exec.c instantiates
 * for 16 lanes and includes this file inside: the byte-vector operations,
 * flags, write-backs to the register files and I/O, signals, branches and
 * the end of an instruction. The loop's locals: R (the register array),
 * u, q, g, nf (the new flags), stop, rc; QPU_RUN_ENDED, the includer's
 * statement for a thread end. No include guard: it is included once per
 * copy of the loop. */

    case UOP_V8ADDS: GS_UOP_L2(qpu_v8adds); break;
    case UOP_V8SUBS: GS_UOP_L2(qpu_v8subs); break;
    case UOP_V8MULD: GS_UOP_L2(qpu_v8muld); break;
    case UOP_V8MIN: GS_UOP_L2(qpu_v8min); break;
    case UOP_V8MAX: GS_UOP_L2(qpu_v8max); break;
    case UOP_UNPACK:
      for (int i = 0; i < QPU_LANES; i++)
        REG(u->d).u[i] = u->side ? qpu_unpack_float(u->op, REG(u->a).u[i]) : qpu_unpack_int(u->op, REG(u->a).u[i]);
      break;
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
    case UOP_STAGE: {
      uint16_t lanes = cond_lanes(q, u->cond);
      if (!lanes) break;
      qpu_pending_write *pw = &q->next[q->nnext++];
      pw->v = REG(u->a);
      pw->bytes = u->imm;
      pw->lanes = lanes;
      pw->reg = (uint8_t)(u->d / sizeof(gs_vec));
      break;
    }
    case UOP_IO_WRITE:
      if ((rc = qpu_io_write(g, q, u->side, u->addr, &REG(u->a), cond_lanes(q, u->cond))) < 0) return rc;
      break;
    case UOP_TLB_WRITE: {
      /* qpu_io_write's tile-buffer case without its dispatch on the address;
       * with the batch's port at hand, the writes the gates allow go to it
       * without the shader's callback */
      uint16_t lanes = cond_lanes(q, u->cond);
      const qpu_shader_io *io = q->shader_io;
      if (!lanes) break;
      if (io && io->port && qpu_tlb_port_write(io->port, q, u->addr, &REG(u->a), lanes)) break;
      rc = io && io->tlb_write ? io->tlb_write(io->ctx, q, u->addr, &REG(u->a), lanes)
                               : qpu_io_write(g, q, u->side, u->addr, &REG(u->a), lanes); /* its error */
      if (rc < 0) return rc;
      break;
    }
    case UOP_LDTMU:
      if ((rc = qpu_io_signal(g, q, u->side ? QPU_SIG_LDTMU1 : QPU_SIG_LDTMU0)) < 0) return rc;
      break;
    case UOP_SIGNAL:
      if ((rc = qpu_io_signal(g, q, u->op)) < 0) return rc;
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
      /* A thread end whose delay slots are nops, with nothing else
       * pending: their two ends as finish_busy would do them (the end of
       * the thread wins over the stop at the last), unless the stop comes
       * first. */
#if QPU_BUSY_END_SHIFT_OK
      if (u->op == QPU_NEXT_END_NOPS && q->busy == qpu_busy_end(3) && stop - q->instructions >= 2) {
        q->instructions += 2;
        q->pc += 24;
        q->end_delay = 0;
        QPU_RUN_ENDED
      }
#endif
      if ((rc = finish_busy(q)) == QPU_STEP_END) QPU_RUN_ENDED
      if (q->instructions == stop) return QPU_STEP_OK;
      if (!rc) break;
      if (!(u = locate(g, q))) return qpu_diag(g, q)->code;
      continue;
    case UOP_SLOW:
      rc = qpu_step_ref(g, q);
      if (rc == QPU_STEP_END) QPU_RUN_ENDED
      if (rc != QPU_STEP_OK) return rc; /* stall or error */
      if (q->instructions == stop) return QPU_STEP_OK;
      if (!(u = locate(g, q))) return qpu_diag(g, q)->code;
      continue;
    case UOP_LEAVE:
      if (!(u = locate(g, q))) return qpu_diag(g, q)->code;
      continue;
