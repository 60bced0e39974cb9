/* gpusim/diag.h — result codes and error messages.
 *
 * Every gpusim call that can fail returns an int result code: GS_OK (0) on
 * success, a negative GS_E* code on failure. The human-readable reason, which
 * always names the place (file:line:column, bus address, QPU and program
 * counter), is written into a gs_diag that the caller supplies or that the
 * gs_gpu context owns (gs_gpu_error()).
 */
#ifndef GPUSIM_DIAG_H
#define GPUSIM_DIAG_H

#include <stdarg.h>

enum {
  GS_OK = 0,
  GS_ENOMEM = -1,    /* host allocation failed, or GPU memory exhausted */
  GS_EARG = -2,      /* bad argument to an API call */
  GS_EFAULT = -3,    /* access outside allocated GPU memory */
  GS_EINVAL = -4,    /* invalid instruction, setup word or binary */
  GS_EASM = -5,      /* assembler syntax or range error */
  GS_EWATCHDOG = -6, /* a program ran past its instruction budget */
  GS_EDEADLOCK = -7, /* every running program waits on something none will give */
  GS_EIO = -8,       /* file system error */
  GS_EHANG = -9      /* a program waits for data that can never arrive */
};

#define GS_DIAG_MAX 1024

typedef struct gs_diag {
  int code;               /* last error code, GS_OK if none */
  char msg[GS_DIAG_MAX];  /* last error message, "" if none */
} gs_diag;

/* Clears d. */
void gs_diag_clear(gs_diag *d);

/* Records an error in d (if d is not NULL) and returns code, so that callers
 * can write `return gs_diag_set(d, GS_EARG, "...", ...)`. */
int gs_diag_set(gs_diag *d, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int gs_diag_vset(gs_diag *d, int code, const char *fmt, va_list ap);

/* A short name for a result code ("fault", "watchdog", ...). */
const char *gs_strerror(int code);

#endif
