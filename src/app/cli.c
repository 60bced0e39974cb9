/* cli.c — small pieces every gpusim subcommand shares (see app.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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

int gs_cli_run_scene(gs_run_options *o, const char *tool, char *argv0, char *scene, char **rest, int nrest,
                     int (*run)(const gs_run_options *, int, char **)) {
  char **args = calloc((size_t)nrest + 3, sizeof *args);
  if (!args) return fprintf(stderr, "gpusim %s: out of memory\n", tool), 1;
  args[0] = argv0;
  args[1] = scene;
  for (int k = 0; k < nrest; k++) args[k + 2] = rest[k];
  o->script = 1;
  int rc = run(o, nrest + 2, args);
  free(args);
  return rc;
}

/* ---- writing output files ------------------------------------------------ */

/* Writes all len bytes to fd. Returns 0, or -1 with errno set. */
static int write_all(int fd, const void *data, size_t len) {
  const unsigned char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Follows path while it is a symbolic link (at most 40 links, as Linux
 * does), into a malloc'ed path that is not a link: a link's relative
 * target is taken relative to the link's directory. Fills *st from lstat
 * of the result, or sets *exists = 0 when nothing is there (a new file, or
 * a link to a file still to be made). Returns the path, or NULL with errno
 * set. */
static char *follow_links(const char *path, struct stat *st, int *exists) {
  char *cur = strdup(path);
  if (!cur) return NULL;
  for (int hops = 0;; hops++) {
    if (lstat(cur, st) != 0) {
      if (errno != ENOENT) break;
      *exists = 0;
      return cur;
    }
    if (!S_ISLNK(st->st_mode)) {
      *exists = 1;
      return cur;
    }
    if (hops == 40) {
      errno = ELOOP;
      break;
    }
    char target[PATH_MAX];
    ssize_t n = readlink(cur, target, sizeof target - 1);
    if (n < 0) break;
    if (n == (ssize_t)sizeof target - 1) {
      errno = ENAMETOOLONG;
      break;
    }
    target[n] = '\0';
    const char *slash = strrchr(cur, '/');
    size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
    char *next = malloc(dir + (size_t)n + 1);
    if (!next) break;
    memcpy(next, cur, dir);
    memcpy(next + dir, target, (size_t)n + 1);
    free(cur);
    cur = next;
  }
  int err = errno;
  free(cur);
  errno = err;
  return NULL;
}

/* Writes the bytes to a new temporary file beside path (".NAME.tmp-XXXXXX"
 * in path's directory), syncs it and renames it over path; removes it on
 * any failure. The new file gets the mode (and, where allowed, the owner)
 * of the file it replaces, else 0666 less the umask, as fopen would give.
 * Returns 0, or -1 with errno set. */
static int replace_whole(const char *path, const struct stat *old, const void *data, size_t len) {
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
  size_t plen = strlen(path);
  char *tmp = malloc(plen + sizeof "..tmp-XXXXXX");
  if (!tmp) return -1;
  memcpy(tmp, path, dir);
  tmp[dir] = '.';
  memcpy(tmp + dir + 1, path + dir, plen - dir);
  memcpy(tmp + plen + 1, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
  int fd = mkstemp(tmp);
  if (fd < 0) {
    free(tmp);
    return -1;
  }
  mode_t mode;
  if (old) {
    mode = old->st_mode & 07777;
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  int ok = fchmod(fd, mode) == 0;
  if (ok && old && (old->st_uid != getuid() || old->st_gid != getgid()))
    (void)!fchown(fd, old->st_uid, old->st_gid);  /* keep the owner where we may */
  ok = ok && write_all(fd, data, len) == 0 && fsync(fd) == 0;
  int err = errno;
  if (close(fd) != 0 && ok) ok = 0, err = errno;
  if (ok && rename(tmp, path) != 0) ok = 0, err = errno;
  if (!ok) unlink(tmp);
  free(tmp);
  errno = err;
  return ok ? 0 : -1;
}

int gs_cli_write_file(const char *path, const void *data, size_t len) {
  if (strcmp(path, "-") == 0) {
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) return -1;
    return 0;
  }
  struct stat st;
  int exists = 0;
  char *target = follow_links(path, &st, &exists);
  if (!target) return -1;
  int rc;
  if (!exists || S_ISREG(st.st_mode)) {
    rc = replace_whole(target, exists ? &st : NULL, data, len);
  } else if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    rc = -1;
  } else {
    /* A device, FIFO or socket: written in place, never replaced. */
    int fd = open(target, O_WRONLY | O_NOCTTY);
    rc = fd < 0 ? -1 : write_all(fd, data, len);
    if (fd >= 0) {
      int err = errno;
      if (close(fd) != 0 && rc == 0) rc = -1;
      else errno = err;
    }
  }
  int err = errno;
  free(target);
  errno = err;
  return rc;
}
