/* diag.c — result codes and error messages (see gpusim/diag.h). */
#include <stdio.h>
#include <string.h>
#include "gpusim/diag.h"

void gs_diag_clear(gs_diag *d) {
  if (!d) return;
  d->code = GS_OK;
  d->msg[0] = '\0';
}

int gs_diag_vset(gs_diag *d, int code, const char *fmt, va_list ap) {
  if (d) {
    d->code = code;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  }
  return code;
}

int gs_diag_set(gs_diag *d, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  gs_diag_vset(d, code, fmt, ap);
  va_end(ap);
  return code;
}

const char *gs_strerror(int code) {
  switch (code) {
  case GS_OK: return "ok";
  case GS_ENOMEM: return "out of memory";
  case GS_EARG: return "bad argument";
  case GS_EFAULT: return "memory fault";
  case GS_EINVAL: return "invalid input";
  case GS_EASM: return "assembly error";
  case GS_EWATCHDOG: return "watchdog";
  case GS_EDEADLOCK: return "deadlock";
  case GS_EIO: return "i/o error";
  case GS_EHANG: return "hang";
  default: return "unknown error";
  }
}
