/* cli.c — small pieces every gpusim subcommand shares (see app.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"

/* Reads all of path ("-": standard input) into a malloc'ed buffer with a NUL
 * after the last byte. Returns 0, or -1 with errno set. */
int gs_cli_read_file(const char *path, char **data, size_t *len) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) return -1;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  int err = buf ? 0 : ENOMEM;
  while (!err) {
    if (cap - n < 2) {
      char *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
      if (!nb) {
        err = ENOMEM;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0) {
      if (ferror(f)) err = errno ? errno : EIO;
      break;
    }
  }
  if (f != stdin) fclose(f);
  if (err) {
    free(buf);
    errno = err;
    return -1;
  }
  buf[n] = '\0';
  *data = buf;
  *len = n;
  return 0;
}

/* Returns the value of option argv[*i] written as "--opt VALUE" or
 * "--opt=VALUE", advancing *i past it; NULL if argv[*i] is not `opt`.
 * *missing is set when the option is there without a value. */
const char *gs_cli_option(int argc, char **argv, int *i, const char *opt, int *missing) {
  size_t n = strlen(opt);
  if (strncmp(argv[*i], opt, n) != 0) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}
