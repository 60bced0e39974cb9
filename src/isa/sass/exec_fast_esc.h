/* exec_fast_esc.h — the SASS micro-ops (exec_fast_run.h) as the escape of
 * native code (src/isa/uop/jit.h): the cases exactly as the interpreter's
 * loop runs them, on the state the compiled function shares with them
 * (sx_env: the warp, the masks). exec_fast.c includes it once per copy of
 * the loop (SX_ESCAPE names the function), so the escape taken is compiled
 * for the same instruction set as the loop it stands in for. A case that
 * moves u elsewhere (`continue`) becomes GS_JIT_JUMP to that micro-op, or,
 * to the reference's step (sx_ref_uop), runs it here; `break` is
 * GS_JIT_NEXT; a `return` is the compiled function's value. No include
 * guard: it is meant to be included more than once. */

static GS_UOP_NOINLINE_ int SX_ESCAPE_ALL(void *env, char *R, const gs_uop *u, uint32_t *to) {
  sx_env *e = env;
  sass_warp *w = e->w;
  const sass_fast *f = e->f;
  const sass_io *io = e->io;
  const uint64_t budget = e->budget;
  const char *name = e->name;
  gs_diag *d = e->d;
  uint32_t *mk_ = e->mk, gm = mk_[1];
  int rc;
  for (int first = 1;; first = 0) {
    if (!first && u != &sx_ref_uop) { /* an entry of the compiled stream (sx_native) */
      *to = (uint32_t)(u - f->u);
      return GS_JIT_JUMP;
    }
    switch (u->kind) {
#include "isa/sass/exec_fast_run.h"
    default: break;
    }
    return GS_JIT_NEXT;
  }
}

/* The escape: SX_GUARD and SX_RUN, which every instruction meets, and
 * SX_EXIT, which every warp meets, in a few instructions; the other kinds
 * through the whole switch. */
static int SX_ESCAPE(void *env, char *R, const gs_uop *u, uint32_t *to) {
  sx_env *e = env;
  if (u->kind == SX_RUN) {
    if (!sx_run(e->w, u, e->budget)) {
      *to = u->imm; /* the instructions one by one */
      return GS_JIT_JUMP;
    }
    e->mk[1] = 0xffffffffu;
    return GS_JIT_NEXT;
  }
  if (u->kind == SX_EXIT) {
    if (sx_exit(e->w, u, e->mk[1])) return 0;
    const gs_uop *n = sx_locate(e->w, e->f);
    if (n == &sx_ref_uop) return SX_ESCAPE_ALL(env, R, n, to); /* the stack's next lanes */
    *to = (uint32_t)(n - e->f->u);
    return GS_JIT_JUMP;
  }
  if (u->kind != SX_GUARD) return SX_ESCAPE_ALL(env, R, u, to);
  int k = sx_guard(e->w, u, e->budget, &e->mk[1]);
  if (k < 0) return SX_ESCAPE_ALL(env, R, &sx_ref_uop, to); /* the budget: the reference reports it */
  if (!k) return GS_JIT_NEXT;
  *to = (uint32_t)(u - e->f->u) + (uint32_t)k;
  return GS_JIT_JUMP;
}
