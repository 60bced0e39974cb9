/* testrun.c — reference-image testing as a command:
 *
 *   gpusim test [-j N] [--shard I/N] [--junit FILE] [--output-dir DIR]
 *               [--update] [--list] MANIFEST.lua
 *
 * The manifest is a Lua script that calls case{...} once per case (see
 * test_usage below and docs/testing.md). Each selected case is rendered by
 * a child process of this same program (/proc/self/exe) running
 *
 *   gpusim --headless --size WxH --frames N --threads T -o TMP/K.png -- SCENE ARGS...
 *
 * in the case's directory, with its standard error in TMP/K.err; up to -j
 * children run at once. The parent then compares the render with the
 * reference as `gpusim diff` does (gs_image_compare, gs_image_diff_print,
 * gs_image_diff_write_png in diff.c) and, for a failure, writes
 * DIR/NAME-diff.png and DIR/NAME-actual.png. Results are printed in the
 * manifest's order as soon as a case and all before it are done; on a
 * terminal, standard error shows how many cases are done and which run.
 *
 * --shard I/N selects the cases whose index K (0-based, in manifest order)
 * has K mod N = I - 1. --update rewrites the references of the cases that
 * fail, each with gs_cli_write_file (whole or not at all), and only when
 * every selected case rendered. --junit writes JUnit XML the same way.
 *
 * Exit status: 0 every selected case passed (or, with --update, every
 * reference is now up to date), 1 some case failed or did not render, 2 a
 * usage or manifest error, or an output file that cannot be written.
 */
#define _XOPEN_SOURCE 700  /* realpath, beside the build's POSIX 2008 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include "app/app.h"
#include "app/image.h"

#define TEST_USAGE_STATUS 2
#define MAX_JOBS 256
#define MAX_FRAMES 1000000000L
#define MAX_NAME 100
/* A failed render's standard error is shown up to this many bytes (its end). */
#define STDERR_SHOWN 4096
/* Results, details and the progress line are indented by this. */
#define INDENT "       "

static const char test_usage[] =
  "usage: gpusim test [OPTIONS] MANIFEST.lua\n"
  "Renders every case of a reference-image manifest and compares it with its\n"
  "reference image as `gpusim diff` does. MANIFEST.lua is a Lua script that\n"
  "calls case{...} once per case:\n"
  "\n"
  "  case {name = \"triangle\", scene = \"../scenes/triangle.lua\", size = \"320x240\",\n"
  "        reference = \"triangle.png\", tolerance = 1}\n"
  "\n"
  "  name       required: letters, digits, _ - . (names the output files)\n"
  "  scene      required: the scene script\n"
  "  size       required: WxH, as for gpusim --size\n"
  "  reference  required: the expected PNG (the last frame, upright)\n"
  "  tolerance  largest channel difference that still passes, 0..255 (0)\n"
  "  frames     frames to render, 1 or more (1)\n"
  "  args       list of the scene's arguments ({})\n"
  "  dir        the directory the scene runs in (the manifest's)\n"
  "Paths are relative to the manifest's directory. Each case renders in a\n"
  "child process: gpusim --headless --size WxH --frames N -o TMP.png SCENE ARGS.\n"
  "\n"
  "Options:\n"
  "  -j, --jobs N      cases rendered at once, in parallel processes (default:\n"
  "                    the number of cores); each gets cores/N render threads\n"
  "  --shard I/N       run only the cases whose index K in the manifest (from 0)\n"
  "                    has K mod N = I-1, for I = 1..N: N shards run every case\n"
  "                    exactly once\n"
  "  --output-dir DIR  where a failing case writes NAME-diff.png (differing pixels\n"
  "                    in red, as gpusim diff -o draws them) and NAME-actual.png\n"
  "                    (default: the current directory); a passing case removes\n"
  "                    its old ones\n"
  "  --junit FILE      write the results as JUnit XML\n"
  "  --sandbox         run each case's scene under gpusim --sandbox (untrusted\n"
  "                    scenes; docs/sandbox.md)\n"
  "  --update          rewrite the reference of every failing or new case with its\n"
  "                    render (whole or not at all), only if every case rendered\n"
  "  --list            print the selected cases, one a line: name, scene, size,\n"
  "                    frames, tolerance, reference, args (tab-separated), and\n"
  "                    render nothing\n"
  "  -h, --help        print this help\n"
  "\n"
  "Exit status: 0 all passed, 1 some case failed or did not render, 2 usage or\n"
  "manifest error (the message names MANIFEST:LINE and the case).\n";

typedef enum {
  CASE_WAITING,  /* not started */
  CASE_RUNNING,  /* its render is running */
  CASE_PASS,     /* matches its reference */
  CASE_FAIL,     /* differs from it (or, without --update, sizes differ) */
  CASE_ERROR,    /* did not render, or its render could not be read */
  CASE_UPDATE    /* --update: its reference is to be (re)written */
} case_state;

typedef struct test_case {
  /* from the manifest */
  char *name;
  char **args;
  int nargs;
  int width, height;
  long frames;
  int tolerance;
  int line;          /* of its case{...} call */
  char *scene;       /* absolute paths, for the child and the files */
  char *reference;
  char *dir;
  char *ref_shown;   /* the reference's and the scene's paths for messages */
  char *scene_shown;
  /* the run */
  case_state state;
  pid_t pid;
  double started, seconds;
  char *message;     /* why it failed, one line */
  char *detail;      /* the comparison or the render's stderr, lines */
} test_case;

typedef struct manifest {
  const char *path;  /* as given */
  char *dir_shown;   /* its directory as given, "." when none */
  char *dir_abs;     /* its directory, absolute */
  test_case *cases;
  int n, cap;
  int errors;        /* manifest errors reported */
  int calls;         /* case{} calls so far */
} manifest;

typedef struct test_args {
  const char *manifest, *junit, *outdir;
  long jobs, shard_i, shard_n;
  int update, list;
  int sandbox;  /* --sandbox: each case's scene runs under gpusim --sandbox */
} test_args;

typedef struct test_run {
  const test_args *args;
  manifest *m;
  int *sel, nsel;    /* the selected cases' indices, in manifest order */
  char tmp[512];     /* the temporary directory of the renders */
  int threads;       /* --threads for each child */
  int progress;      /* standard error is a terminal */
  int progress_len;  /* length of the progress line now shown */
  int done, running, printed;
} test_run;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) { interrupted = sig; }

/* ---- small helpers --------------------------------------------------------- */

/* p, or exits with a message when an allocation failed. */
static void *must(void *p) {
  if (!p) {
    fputs("gpusim test: out of memory\n", stderr);
    exit(1);
  }
  return p;
}

static char *str_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* A malloc'ed string formatted as by printf. */
static char *str_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = must(malloc((size_t)(n < 0 ? 0 : n) + 1));
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses a decimal number in lo..hi (digits only) from text[0..len) into
 * *v. Returns 0, or -1 when it is anything else. */
static int parse_number(const char *text, size_t len, long lo, long hi, long *v) {
  if (len == 0 || len > 10) return -1;
  long n = 0;
  for (size_t k = 0; k < len; k++) {
    if (text[k] < '0' || text[k] > '9') return -1;
    n = n * 10 + (text[k] - '0');
  }
  if (n < lo || n > hi) return -1;
  *v = n;
  return 0;
}

/* rel taken relative to directory dir (unchanged when absolute). */
static char *path_join(const char *dir, const char *rel) {
  return rel[0] == '/' ? must(strdup(rel)) : str_printf("%s/%s", dir, rel);
}

/* The canonical absolute path of path (which it frees), or path itself
 * when that does not exist (the check reports it). */
static char *path_real(char *path) {
  char *real = realpath(path, NULL);
  if (!real) return path;
  free(path);
  return real;
}

/* The path with "." and "dir/.." components and repeated slashes removed,
 * by the letters only (for messages: "tests/ref/../../scenes/a.lua" is
 * "scenes/a.lua"). */
static char *path_tidy(const char *path) {
  size_t len = strlen(path);
  char *out = must(malloc(len + 2));
  int absolute = path[0] == '/';
  size_t o = 0, depth = 0;  /* depth: components in out that are not ".." */
  const char *p = path;
  while (*p) {
    while (*p == '/') p++;
    const char *e = p;
    while (*e && *e != '/') e++;
    size_t n = (size_t)(e - p);
    if (n == 0 || (n == 1 && p[0] == '.')) {
      /* nothing */
    } else if (n == 2 && p[0] == '.' && p[1] == '.' && (depth > 0 || absolute)) {
      if (depth > 0) {
        while (o > 0 && out[o - 1] != '/') o--;
        if (o > 0) o--;
        depth--;
      }
    } else {
      if (o > 0) out[o++] = '/';
      memcpy(out + o, p, n);
      o += n;
      if (!(n == 2 && p[0] == '.' && p[1] == '.')) depth++;
    }
    p = e;
  }
  out[o] = '\0';
  if (absolute) {
    memmove(out + 1, out, o + 1);
    out[0] = '/';
  } else if (o == 0) {
    strcpy(out, ".");
  }
  return out;
}

/* ---- the manifest ----------------------------------------------------------- */

static void manifest_error(manifest *m, int line, const char *name, int index, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Prints "gpusim test: MANIFEST:LINE: case 'NAME': <message>" (case #INDEX
 * when the name is not known) and counts the error. */
static void manifest_error(manifest *m, int line, const char *name, int index, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (name) fprintf(stderr, "gpusim test: %s:%d: case '%s': ", m->path, line, name);
  else fprintf(stderr, "gpusim test: %s:%d: case #%d: ", m->path, line, index);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  m->errors++;
}

/* The line of the manifest's main chunk that is running the case{} call
 * (so that a helper function that calls case{} gives each call's line),
 * else the caller's line. */
static int caller_line(lua_State *L) {
  lua_Debug ar;
  int line = 0;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar)) break;
    if (line == 0 && ar.currentline > 0) line = ar.currentline;
    if (strcmp(ar.what, "main") == 0) {
      if (ar.currentline > 0) line = ar.currentline;
      break;
    }
  }
  return line;
}

static const char *const case_fields[] = {"name",   "scene",  "size", "reference",
                                          "tolerance", "frames", "args", "dir", NULL};

/* A valid case name: letters, digits, _ - . and not starting with '.'. */
static int name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > MAX_NAME || s[0] == '.') return 0;
  for (size_t k = 0; k < n; k++) {
    char ch = s[k];
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '_' || ch == '-' || ch == '.';
    if (!ok) return 0;
  }
  return 1;
}

/* Parses "WxH" (each side 1..GS_MAX_SIDE) into *w, *h; 0, or -1. */
static int parse_size(const char *s, int *w, int *h) {
  const char *x = strchr(s, 'x');
  long wv, hv;
  if (!x || parse_number(s, (size_t)(x - s), 1, GS_MAX_SIDE, &wv) < 0 ||
      parse_number(x + 1, strlen(x + 1), 1, GS_MAX_SIDE, &hv) < 0)
    return -1;
  *w = (int)wv;
  *h = (int)hv;
  return 0;
}

/* Field `key` of the case table at index 1 as a string: the malloc'ed
 * copy, NULL when absent (an error when required) or not a string. */
static char *string_field(lua_State *L, manifest *m, const test_case *c, int index, const char *key,
                          int required) {
  int t = lua_getfield(L, 1, key);
  char *v = NULL;
  if (t == LUA_TSTRING) {
    v = must(strdup(lua_tostring(L, -1)));
    if (!*v) {
      manifest_error(m, c->line, c->name, index, "field '%s' is empty", key);
      free(v);
      v = NULL;
    }
  } else if (t != LUA_TNIL) {
    manifest_error(m, c->line, c->name, index, "field '%s' must be a string, got %s", key,
                   luaL_typename(L, -1));
  } else if (required) {
    manifest_error(m, c->line, c->name, index, "missing field '%s'", key);
  }
  lua_pop(L, 1);
  return v;
}

/* Field `key` as a whole number in lo..hi into *v (left as it is when
 * absent). Returns 0, or -1 after an error. */
static int number_field(lua_State *L, manifest *m, const test_case *c, int index, const char *key,
                        long lo, long hi, long *v) {
  int t = lua_getfield(L, 1, key), isnum = 0;
  lua_Integer n = lua_tointegerx(L, -1, &isnum);
  lua_pop(L, 1);
  if (t == LUA_TNIL) return 0;
  if (t != LUA_TNUMBER || !isnum || n < lo || n > hi) {
    manifest_error(m, c->line, c->name, index, "field '%s' must be a whole number %ld..%ld", key, lo, hi);
    return -1;
  }
  *v = (long)n;
  return 0;
}

/* Field args: a list of strings (or numbers) into c->args. 0, or -1. */
static int args_field(lua_State *L, manifest *m, test_case *c, int index) {
  int t = lua_getfield(L, 1, "args"), rc = 0;
  if (t == LUA_TTABLE) {
    lua_Unsigned n = lua_rawlen(L, -1);
    c->args = must(calloc((size_t)n + 1, sizeof *c->args));
    for (lua_Unsigned k = 1; k <= n && rc == 0; k++) {
      int et = lua_rawgeti(L, -1, (lua_Integer)k);
      if (et == LUA_TSTRING || et == LUA_TNUMBER) {
        c->args[c->nargs++] = must(strdup(lua_tostring(L, -1)));
      } else {
        manifest_error(m, c->line, c->name, index, "args[%llu] must be a string, got %s",
                       (unsigned long long)k, luaL_typename(L, -1));
        rc = -1;
      }
      lua_pop(L, 1);
    }
  } else if (t != LUA_TNIL) {
    manifest_error(m, c->line, c->name, index, "field 'args' must be a list of strings, got %s",
                   luaL_typename(L, -1));
    rc = -1;
  }
  lua_pop(L, 1);
  return rc;
}

static void free_case(test_case *c) {
  free(c->name);
  for (int k = 0; k < c->nargs; k++) free(c->args[k]);
  free(c->args);
  free(c->scene);
  free(c->reference);
  free(c->dir);
  free(c->ref_shown);
  free(c->scene_shown);
  free(c->message);
  free(c->detail);
}

/* case{...}: checks the fields and adds the case to the manifest (upvalue
 * 1); an invalid case is reported and left out. */
static int lua_case(lua_State *L) {
  manifest *m = lua_touserdata(L, lua_upvalueindex(1));
  test_case c;
  memset(&c, 0, sizeof c);
  c.line = caller_line(L);
  c.frames = 1;
  int index = ++m->calls, errors = m->errors;
  if (!lua_istable(L, 1)) {
    manifest_error(m, c.line, NULL, index, "case takes a table of fields: case {name = ..., ...}, got %s",
                   luaL_typename(L, 1));
    return 0;
  }
  lua_settop(L, 1);
  c.name = string_field(L, m, &c, index, "name", 1);
  if (c.name && !name_ok(c.name)) {
    manifest_error(m, c.line, c.name, index,
                   "field 'name': use letters, digits, _ - . (not first), at most %d characters",
                   MAX_NAME);
  }
  for (lua_pushnil(L); lua_next(L, 1); lua_pop(L, 1)) {
    int known = 0;
    if (lua_type(L, -2) == LUA_TSTRING)
      for (int k = 0; case_fields[k]; k++) known |= strcmp(lua_tostring(L, -2), case_fields[k]) == 0;
    if (known) continue;
    if (lua_type(L, -2) == LUA_TSTRING)
      manifest_error(m, c.line, c.name, index, "unknown field '%s' (known: name, scene, size, reference, "
                     "tolerance, frames, args, dir)", lua_tostring(L, -2));
    else
      manifest_error(m, c.line, c.name, index, "a %s key: a case has named fields only",
                     luaL_typename(L, -2));
  }
  char *scene = string_field(L, m, &c, index, "scene", 1);
  char *size = string_field(L, m, &c, index, "size", 1);
  char *reference = string_field(L, m, &c, index, "reference", 1);
  char *dir = string_field(L, m, &c, index, "dir", 0);
  if (size && parse_size(size, &c.width, &c.height) < 0)
    manifest_error(m, c.line, c.name, index, "field 'size': expected WxH like 320x240, each side 1..%d, got '%s'",
                   GS_MAX_SIDE, size);
  long tolerance = 0;
  number_field(L, m, &c, index, "tolerance", 0, 255, &tolerance);
  c.tolerance = (int)tolerance;
  number_field(L, m, &c, index, "frames", 1, MAX_FRAMES, &c.frames);
  args_field(L, m, &c, index);
  if (scene && reference) {
    c.scene = path_real(path_join(m->dir_abs, scene));
    c.reference = path_join(m->dir_abs, reference);
    c.dir = path_real(path_join(m->dir_abs, dir ? dir : "."));
    char *shown = path_join(m->dir_shown, reference);
    c.ref_shown = path_tidy(shown);
    free(shown);
    shown = path_join(m->dir_shown, scene);
    c.scene_shown = path_tidy(shown);
    free(shown);
  }
  free(scene);
  free(size);
  free(reference);
  free(dir);
  if (m->errors != errors) {
    free_case(&c);
    return 0;
  }
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 16;
    m->cases = must(realloc(m->cases, (size_t)m->cap * sizeof *m->cases));
  }
  m->cases[m->n++] = c;
  return 0;
}

/* Checks what case{} could not: names used twice, and that the files and
 * directories are there (the reference only without --update). */
static void check_cases(manifest *m, int update) {
  for (int i = 0; i < m->n; i++) {
    test_case *c = &m->cases[i];
    for (int j = 0; j < i; j++)
      if (strcmp(m->cases[j].name, c->name) == 0) {
        manifest_error(m, c->line, c->name, 0, "the name is used already, by the case on line %d",
                       m->cases[j].line);
        break;
      }
    struct stat st;
    if (stat(c->dir, &st) != 0)
      manifest_error(m, c->line, c->name, 0, "dir %s: %s", c->dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
      manifest_error(m, c->line, c->name, 0, "dir %s: not a directory", c->dir);
    if (access(c->scene, R_OK) != 0)
      manifest_error(m, c->line, c->name, 0, "scene %s: %s", c->scene_shown, strerror(errno));
    if (!update && access(c->reference, R_OK) != 0)
      manifest_error(m, c->line, c->name, 0, "reference %s: %s (gpusim test --update writes it)",
                     c->ref_shown, strerror(errno));
  }
}

/* Runs the manifest script with case{} defined. Returns 0, or -1 after a
 * message (a Lua error names the file and line; case errors each their
 * own). */
static int load_manifest(manifest *m, int update) {
  const char *slash = strrchr(m->path, '/');
  if (!slash) m->dir_shown = must(strdup("."));
  else if (slash == m->path) m->dir_shown = must(strdup("/"));
  else m->dir_shown = str_printf("%.*s", (int)(slash - m->path), m->path);
  if (m->dir_shown[0] == '/') {
    m->dir_abs = must(strdup(m->dir_shown));
  } else {
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) {
      fprintf(stderr, "gpusim test: cannot get the current directory: %s\n", strerror(errno));
      return -1;
    }
    m->dir_abs = strcmp(m->dir_shown, ".") == 0 ? must(strdup(cwd)) : str_printf("%s/%s", cwd, m->dir_shown);
  }
  lua_State *L = luaL_newstate();
  if (!L) must(NULL);
  luaL_openlibs(L);
  lua_pushlightuserdata(L, m);
  lua_pushcclosure(L, lua_case, 1);
  lua_setglobal(L, "case");
  int rc = 0;
  if (luaL_loadfile(L, m->path) != LUA_OK || lua_pcall(L, 0, 0, 0) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "gpusim test: %s\n", msg ? msg : "the manifest raised a non-string error");
    rc = -1;
  }
  lua_close(L);
  if (rc == 0) check_cases(m, update);
  if (rc == 0 && m->errors) {
    fprintf(stderr, "gpusim test: %s: %d error%s in the manifest\n", m->path, m->errors,
            m->errors == 1 ? "" : "s");
    rc = -1;
  }
  if (rc == 0 && m->n == 0) {
    fprintf(stderr, "gpusim test: %s: no cases (call case{...} for each)\n", m->path);
    rc = -1;
  }
  return rc;
}

/* ---- the command line -------------------------------------------------------- */

static int test_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Prints "gpusim test: <message>" and the --help hint; returns 2. */
static int test_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("gpusim test: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'gpusim test --help' for more information.\n", stderr);
  return TEST_USAGE_STATUS;
}

static int online_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (int)n;
}

/* Parses `gpusim test` arguments (argv[0] is "test"). Returns -1 when they
 * are valid, else the exit status (0 after --help, 2 after a message). */
static int parse_test_args(int argc, char **argv, test_args *a) {
  memset(a, 0, sizeof *a);
  a->jobs = online_cores();
  a->shard_i = a->shard_n = 1;
  a->outdir = ".";
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(test_usage, stdout);
      return 0;
    } else if ((v = gs_cli_option(argc, argv, &i, "-j", &missing)) ||
               (v = gs_cli_option(argc, argv, &i, "--jobs", &missing)) ||
               (strncmp(argv[i], "-j", 2) == 0 && argv[i][2] >= '0' && argv[i][2] <= '9' &&
                (v = argv[i] + 2))) {
      if (parse_number(v, strlen(v), 1, MAX_JOBS, &a->jobs) < 0)
        return test_usage_error("-j: expected a number of jobs 1..%d, got '%s'", MAX_JOBS, v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--shard", &missing))) {
      const char *slash = strchr(v, '/');
      if (!slash || parse_number(slash + 1, strlen(slash + 1), 1, 1000000, &a->shard_n) < 0 ||
          parse_number(v, (size_t)(slash - v), 1, a->shard_n, &a->shard_i) < 0)
        return test_usage_error("--shard: expected I/N with 1 <= I <= N, like 2/4, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--junit", &missing))) {
      a->junit = v;
    } else if ((v = gs_cli_option(argc, argv, &i, "--output-dir", &missing))) {
      a->outdir = v;
    } else if (strcmp(argv[i], "--update") == 0) {
      a->update = 1;
    } else if (strcmp(argv[i], "--sandbox") == 0) {
      a->sandbox = 1;
    } else if (strcmp(argv[i], "--list") == 0) {
      a->list = 1;
    } else if (missing) {
      return test_usage_error("option '%s' needs a value", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return test_usage_error("unknown option '%s'", argv[i]);
    } else if (a->manifest) {
      return test_usage_error("more than one manifest ('%s')", argv[i]);
    } else {
      a->manifest = argv[i];
    }
  }
  if (!a->manifest) return test_usage_error("no manifest given: gpusim test MANIFEST.lua");
  return -1;
}

/* ---- running the cases --------------------------------------------------------- */

/* The temporary file of case k: "TMP/K.EXT". */
static char *tmp_file(const test_run *r, int k, const char *ext) {
  return str_printf("%s/%d.%s", r->tmp, k, ext);
}

/* Output file DIR/NAME-WHAT.png of case c. */
static char *out_file(const test_run *r, const test_case *c, const char *what) {
  return str_printf("%s/%s-%s.png", r->args->outdir, c->name, what);
}

/* Shows the progress line on a terminal: cases done of all, and the
 * running ones; or erases it (show = 0). */
static void progress(test_run *r, int show) {
  if (!r->progress) return;
  char line[128];
  int n = 0;
  line[0] = '\0';
  if (show) {
    n = snprintf(line, sizeof line, "[%d/%d] running:", r->done, r->nsel);
    for (int s = 0; s < r->nsel && n < (int)sizeof line; s++) {
      const test_case *c = &r->m->cases[r->sel[s]];
      if (c->state == CASE_RUNNING) n += snprintf(line + n, sizeof line - (size_t)n, " %s", c->name);
    }
    if (n >= 78) {
      n = 78;
      memcpy(line + 75, "...", 3);
      line[n] = '\0';
    }
  }
  fprintf(stderr, "\r%*s\r%s", r->progress_len, "", line);
  fflush(stderr);
  r->progress_len = n;
}

/* Starts the render of selected case k in a child process. Returns 0, or
 * -1 with errno set. */
static int start_case(test_run *r, int k) {
  test_case *c = &r->m->cases[k];
  char size[32], frames[32], threads[16];
  snprintf(size, sizeof size, "%dx%d", c->width, c->height);
  snprintf(frames, sizeof frames, "%ld", c->frames);
  snprintf(threads, sizeof threads, "%d", r->threads);
  char *png = tmp_file(r, k, "png"), *err = tmp_file(r, k, "err");
  /* The scene relative to the directory it runs in when it is below it,
   * so that its messages say "scenes/cube.lua:12:" rather than the whole path. */
  size_t dl = strlen(c->dir);
  const char *scene = strncmp(c->scene, c->dir, dl) == 0 && c->scene[dl] == '/' ? c->scene + dl + 1 : c->scene;
  const char *fixed[] = {"gpusim", r->args->sandbox ? "--sandbox" : "--headless", "--headless", "--size", size,
                         "--frames", frames, "--threads", threads, "-o", png, "--", scene};
  size_t nfixed = sizeof fixed / sizeof fixed[0];
  char **argv = must(calloc(nfixed + (size_t)c->nargs + 1, sizeof *argv));
  for (size_t a = 0; a < nfixed; a++) argv[a] = (char *)fixed[a];
  for (int a = 0; a < c->nargs; a++) argv[nfixed + (size_t)a] = c->args[a];
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0 && fd != STDERR_FILENO) {
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      if (null > STDERR_FILENO) close(null);
    }
    if (chdir(c->dir) != 0) {
      dprintf(STDERR_FILENO, "gpusim test: cannot enter %s: %s\n", c->dir, strerror(errno));
      _exit(127);
    }
    execv("/proc/self/exe", argv);
    dprintf(STDERR_FILENO, "gpusim test: cannot run /proc/self/exe: %s\n", strerror(errno));
    _exit(127);
  }
  int saved = errno;
  free(argv);
  free(png);
  free(err);
  if (pid < 0) {
    errno = saved;
    return -1;
  }
  c->pid = pid;
  c->state = CASE_RUNNING;
  c->started = now_seconds();
  r->running++;
  return 0;
}

/* The end of the render's standard error (at most STDERR_SHOWN bytes). */
static char *render_stderr(const test_run *r, int k) {
  char *path = tmp_file(r, k, "err"), *text = NULL;
  size_t len = 0;
  if (gs_cli_read_file(path, &text, &len) < 0) {
    free(path);
    return str_printf("(its standard error cannot be read: %s)\n", strerror(errno));
  }
  free(path);
  if (len > STDERR_SHOWN) {
    char *tail = str_printf("(the last %d bytes)\n%s", STDERR_SHOWN, text + len - STDERR_SHOWN);
    free(text);
    return tail;
  }
  return text;
}

/* Sets c's result. */
static void set_result(test_case *c, case_state state, char *message, char *detail) {
  c->state = state;
  free(c->message);
  free(c->detail);
  c->message = message;
  c->detail = detail;
}

/* Makes the output directory if it is not there (one level). */
static int make_outdir(const char *dir) {
  if (mkdir(dir, 0777) == 0 || errno == EEXIST) return 0;
  return -1;
}

/* Compares the render of case k (its child exited 0) with the reference:
 * the case passes, fails (writing the diff and the render into the output
 * directory) or, with --update, is marked for updating. */
static void compare_case(test_run *r, int k) {
  test_case *c = &r->m->cases[k];
  int update = r->args->update;
  gs_diag d;
  gs_diag_clear(&d);
  gs_image actual = {0, 0, 0, NULL}, ref = {0, 0, 0, NULL};
  char *png = tmp_file(r, k, "png");
  int rc = gs_image_read_png(&actual, png, &d);
  free(png);
  if (rc != GS_OK) {
    set_result(c, CASE_ERROR, str_printf("its render cannot be read: %s", d.msg), NULL);
    return;
  }
  if (gs_image_read_png(&ref, c->reference, &d) != GS_OK) {
    if (update && access(c->reference, F_OK) != 0) set_result(c, CASE_UPDATE, must(strdup("new reference")), NULL);
    else set_result(c, CASE_ERROR, must(strdup(d.msg)), NULL);
    gs_image_free(&actual);
    return;
  }
  gs_image_diff diff;
  char *actual_path = out_file(r, c, "actual"), *diff_path = out_file(r, c, "diff");
  rc = gs_image_compare(&ref, &actual, c->tolerance, &diff, &d);
  char *message = NULL, *detail = NULL;
  if (rc < 0) {
    message = str_printf("%s is %dx%d but the render is %dx%d", c->ref_shown, ref.width, ref.height,
                         actual.width, actual.height);
  } else if (rc > 0) {
    message = str_printf("%llu of %llu pixels differ beyond tolerance %d",
                         (unsigned long long)diff.differing, (unsigned long long)diff.pixels,
                         c->tolerance);
    size_t len = 0;
    FILE *f = must(open_memstream(&detail, &len));
    gs_image_diff_print(f, "", c->ref_shown, update ? "the render" : actual_path, c->tolerance,
                        &diff);
    fclose(f);
  }
  if (rc == 0) {
    set_result(c, CASE_PASS, NULL, NULL);
    if (!update) {
      unlink(actual_path);  /* an earlier failure's files would mislead */
      unlink(diff_path);
    }
  } else if (update) {
    set_result(c, CASE_UPDATE, message, detail);
  } else {
    /* The diff image, then the render, each whole or not at all. */
    size_t len = detail ? strlen(detail) : 0;
    char *more = NULL;
    if (make_outdir(r->args->outdir) < 0) {
      more = str_printf("cannot make the output directory %s: %s\n", r->args->outdir,
                        strerror(errno));
    } else {
      gs_diag_clear(&d);
      int wrc = rc > 0 ? gs_image_diff_write_png(&ref, &actual, c->tolerance, diff_path, &d) : GS_OK;
      if (wrc == GS_OK) wrc = gs_image_write_png(&actual, actual_path, &d);
      if (wrc != GS_OK) more = str_printf("%s\n", d.msg);
      else if (rc > 0) more = str_printf("diff image: %s\n", diff_path);
      else more = str_printf("render: %s\n", actual_path);
    }
    detail = must(realloc(detail, len + strlen(more) + 1));
    strcpy(detail + len, more);
    free(more);
    set_result(c, CASE_FAIL, message, detail);
  }
  free(actual_path);
  free(diff_path);
  gs_image_free(&ref);
  gs_image_free(&actual);
}

/* Records how case k's child ended (status from waitpid). */
static void finish_case(test_run *r, int k, int status) {
  test_case *c = &r->m->cases[k];
  r->running--;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    compare_case(r, k);
  } else if (WIFSIGNALED(status)) {
    set_result(c, CASE_ERROR, str_printf("did not render: killed by signal %d (%s)", WTERMSIG(status),
                                         strsignal(WTERMSIG(status))),
               render_stderr(r, k));
  } else {
    set_result(c, CASE_ERROR, str_printf("did not render: exit status %d", WEXITSTATUS(status)),
               render_stderr(r, k));
  }
  c->seconds = now_seconds() - c->started;
  r->done++;
}

/* Prints text with INDENT before each line, ending with a newline. */
static void print_detail(const char *text) {
  if (!text || !*text) return;
  for (const char *p = text; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    printf(INDENT "%.*s\n", (int)n, p);
    p += n + (e ? 1 : 0);
  }
}

/* Prints the results of the cases done, in manifest order, up to the
 * first one still waiting or running. */
static void print_done(test_run *r) {
  int erased = 0;
  while (r->printed < r->nsel) {
    test_case *c = &r->m->cases[r->sel[r->printed]];
    if (c->state == CASE_WAITING || c->state == CASE_RUNNING) break;
    if (!erased) progress(r, 0), erased = 1;
    static const char *const label[] = {"", "", "ok", "FAIL", "FAIL", "update"};
    printf("%-6s %s (%.2f s)%s%s\n", label[c->state], c->name, c->seconds, c->message ? ": " : "",
           c->message ? c->message : "");
    print_detail(c->detail);
    r->printed++;
  }
  fflush(stdout);
}

/* Kills the running children (after an interrupt) and reaps them. */
static void stop_children(test_run *r) {
  for (int s = 0; s < r->nsel; s++) {
    test_case *c = &r->m->cases[r->sel[s]];
    if (c->state == CASE_RUNNING) kill(c->pid, SIGTERM);
  }
  for (int s = 0; s < r->nsel; s++) {
    test_case *c = &r->m->cases[r->sel[s]];
    if (c->state != CASE_RUNNING) continue;
    while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    c->state = CASE_WAITING;
  }
}

/* Renders and compares the selected cases, -j at a time. Returns 0, or -1
 * when interrupted or a child cannot be started (after a message). */
static int run_cases(test_run *r) {
  int next = 0;
  while (r->done < r->nsel) {
    while (!interrupted && r->running < r->args->jobs && next < r->nsel) {
      if (start_case(r, r->sel[next]) < 0) {
        progress(r, 0);
        fprintf(stderr, "gpusim test: cannot start a process: %s\n", strerror(errno));
        stop_children(r);
        return -1;
      }
      next++;
      progress(r, 1);
    }
    if (interrupted) {
      progress(r, 0);
      stop_children(r);
      fprintf(stderr, "gpusim test: interrupted\n");
      return -1;
    }
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "gpusim test: waiting for the renders: %s\n", strerror(errno));
      stop_children(r);
      return -1;
    }
    for (int s = 0; s < r->nsel; s++) {
      test_case *c = &r->m->cases[r->sel[s]];
      if (c->state == CASE_RUNNING && c->pid == pid) {
        finish_case(r, r->sel[s], status);
        break;
      }
    }
    print_done(r);
    if (r->done < r->nsel) progress(r, 1);
  }
  progress(r, 0);
  return 0;
}

/* Removes the temporary directory and the files the renders left in it. */
static void remove_tmp(const test_run *r) {
  for (int s = 0; s < r->nsel; s++) {
    char *png = tmp_file(r, r->sel[s], "png"), *err = tmp_file(r, r->sel[s], "err");
    unlink(png);
    unlink(err);
    free(png);
    free(err);
  }
  rmdir(r->tmp);
}

/* --update: writes the render of every case marked CASE_UPDATE over its
 * reference, whole or not at all, when no selected case failed to render.
 * Returns the number of cases that did not render or whose reference could
 * not be written. */
static int update_references(test_run *r) {
  int errors = 0, updates = 0;
  for (int s = 0; s < r->nsel; s++) {
    case_state st = r->m->cases[r->sel[s]].state;
    errors += st == CASE_ERROR;
    updates += st == CASE_UPDATE;
  }
  if (errors) {
    if (updates)
      fprintf(stderr, "gpusim test: --update: no reference written: %d case%s did not render\n", errors,
              errors == 1 ? "" : "s");
    return errors;
  }
  for (int s = 0; s < r->nsel; s++) {
    test_case *c = &r->m->cases[r->sel[s]];
    if (c->state != CASE_UPDATE) continue;
    char *png = tmp_file(r, r->sel[s], "png"), *data = NULL;
    size_t len = 0;
    if (gs_cli_read_file(png, &data, &len) < 0 || gs_cli_write_file(c->reference, data, len) < 0) {
      fprintf(stderr, "gpusim test: --update: cannot write %s: %s\n", c->ref_shown, strerror(errno));
      errors++;
    } else {
      printf("updated %s\n", c->ref_shown);
    }
    free(data);
    free(png);
  }
  return errors;
}

/* ---- JUnit XML ------------------------------------------------------------------ */

/* Writes text to f escaped for XML 1.0 (attribute values too): markup
 * characters as entities, newlines and tabs as character references, other
 * control characters and bytes that are not UTF-8 as '?'. */
static void xml_escape(FILE *f, const char *text) {
  const unsigned char *p = (const unsigned char *)(text ? text : "");
  while (*p) {
    unsigned ch = *p;
    if (ch < 0x80) {
      switch (ch) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\t': fputs("&#9;", f); break;
        default: fputc(ch < 0x20 || ch == 0x7f ? '?' : (int)ch, f);
      }
      p++;
      continue;
    }
    /* A UTF-8 sequence: its length from the lead byte, then continuation
     * bytes; overlong forms, surrogates and values beyond U+10FFFF are not
     * characters. */
    int n = ch >= 0xf0 && ch <= 0xf4 ? 4 : ch >= 0xe0 ? (ch <= 0xef ? 3 : 0) : ch >= 0xc2 ? 2 : 0;
    unsigned cp = n == 4 ? ch & 0x07 : n == 3 ? ch & 0x0f : ch & 0x1f;
    int k = 1;
    for (; k < n && (p[k] & 0xc0) == 0x80; k++) cp = cp << 6 | (p[k] & 0x3f);
    int ok = n > 0 && k == n && !(n == 3 && cp < 0x800) && !(n == 4 && (cp < 0x10000 || cp > 0x10ffff)) &&
             !(cp >= 0xd800 && cp <= 0xdfff) && cp != 0xfffe && cp != 0xffff;
    if (ok) fwrite(p, 1, (size_t)n, f);
    else fputc('?', f);
    p += ok ? n : 1;
  }
}

/* Writes the JUnit XML of the run to the --junit file, whole or not at
 * all. Returns 0, or -1 after a message. */
static int write_junit(const test_run *r, double seconds, const char *started) {
  char *xml = NULL;
  size_t len = 0;
  FILE *f = must(open_memstream(&xml, &len));
  int failures = 0, errors = 0;
  for (int s = 0; s < r->nsel; s++) {
    case_state st = r->m->cases[r->sel[s]].state;
    failures += st == CASE_FAIL;
    errors += st == CASE_ERROR;
  }
  /* The class name: the manifest's path without .lua, '/' as '.'. */
  char *classname = path_tidy(r->m->path);
  size_t cl = strlen(classname);
  if (cl > 4 && strcmp(classname + cl - 4, ".lua") == 0) classname[cl - 4] = '\0';
  for (char *p = classname; *p; p++)
    if (*p == '/') *p = '.';
  fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
  fprintf(f, "<testsuites name=\"gpusim test\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
          r->nsel, failures, errors, seconds);
  fputs("  <testsuite name=\"", f);
  xml_escape(f, r->m->path);
  fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%.3f\" timestamp=\"%s\">\n",
          r->nsel, failures, errors, seconds, started);
  for (int s = 0; s < r->nsel; s++) {
    const test_case *c = &r->m->cases[r->sel[s]];
    fputs("    <testcase classname=\"", f);
    xml_escape(f, classname);
    fputs("\" name=\"", f);
    xml_escape(f, c->name);
    fprintf(f, "\" time=\"%.3f\"", c->seconds);
    if (c->state != CASE_FAIL && c->state != CASE_ERROR) {
      fputs("/>\n", f);
      continue;
    }
    const char *kind = c->state == CASE_FAIL ? "failure" : "error";
    fprintf(f, ">\n      <%s message=\"", kind);
    xml_escape(f, c->message);
    fprintf(f, "\" type=\"%s\">", c->state == CASE_FAIL ? "mismatch" : "render");
    xml_escape(f, c->message);
    fputs("&#10;", f);
    xml_escape(f, c->detail);
    fprintf(f, "</%s>\n    </testcase>\n", kind);
  }
  fputs("  </testsuite>\n</testsuites>\n", f);
  free(classname);
  int ok = fclose(f) == 0;
  if (!ok) {
    free(xml);
    fputs("gpusim test: --junit: out of memory\n", stderr);
    return -1;
  }
  int rc = gs_cli_write_file(r->args->junit, xml, len);
  if (rc < 0) fprintf(stderr, "gpusim test: --junit: cannot write %s: %s\n", r->args->junit, strerror(errno));
  free(xml);
  return rc;
}

/* ---- the command ------------------------------------------------------------------ */

/* Prints the selected cases (--list). */
static void list_cases(const test_run *r) {
  for (int s = 0; s < r->nsel; s++) {
    const test_case *c = &r->m->cases[r->sel[s]];
    printf("%s\t%s\t%dx%d\t%ld\t%d\t%s", c->name, c->scene_shown, c->width, c->height, c->frames,
           c->tolerance, c->ref_shown);
    for (int a = 0; a < c->nargs; a++) printf("\t%s", c->args[a]);
    putchar('\n');
  }
}

/* Prints the summary line; returns the exit status. */
static int summarise(const test_run *r, double seconds, int update_errors) {
  int counts[CASE_UPDATE + 1] = {0};
  for (int s = 0; s < r->nsel; s++) counts[r->m->cases[r->sel[s]].state]++;
  int failed = counts[CASE_FAIL] + counts[CASE_ERROR];
  if (r->args->update)
    printf("%d passed, %d updated, %d failed, %d total, %.2f s", counts[CASE_PASS], counts[CASE_UPDATE],
           failed, r->nsel, seconds);
  else
    printf("%d passed, %d failed, %d total, %.2f s", counts[CASE_PASS], failed, r->nsel, seconds);
  if (r->args->shard_n > 1)
    printf(" (shard %ld/%ld of %d cases)", r->args->shard_i, r->args->shard_n, r->m->n);
  putchar('\n');
  if (failed) {
    fputs("failed:", stdout);
    for (int s = 0; s < r->nsel; s++) {
      const test_case *c = &r->m->cases[r->sel[s]];
      if (c->state == CASE_FAIL || c->state == CASE_ERROR) printf(" %s", c->name);
    }
    putchar('\n');
  }
  fflush(stdout);
  return failed || update_errors ? 1 : 0;
}

int gs_test_main(int argc, char **argv) {
  test_args args;
  int status = parse_test_args(argc, argv, &args);
  if (status >= 0) return status;
  manifest m;
  memset(&m, 0, sizeof m);
  m.path = args.manifest;
  test_run r;
  memset(&r, 0, sizeof r);
  r.args = &args;
  r.m = &m;
  status = TEST_USAGE_STATUS;
  if (load_manifest(&m, args.update) < 0) goto out;
  r.sel = must(malloc((size_t)m.n * sizeof *r.sel));
  for (int k = 0; k < m.n; k++)
    if (k % args.shard_n == args.shard_i - 1) r.sel[r.nsel++] = k;
  if (args.list) {
    list_cases(&r);
    status = 0;
    goto out;
  }
  if (r.nsel == 0) {
    printf("0 passed, 0 failed, 0 total (shard %ld/%ld of %d cases)\n", args.shard_i, args.shard_n, m.n);
    status = 0;
    goto out;
  }
  const char *tmpdir = getenv("TMPDIR");
  if (!tmpdir || !*tmpdir || strlen(tmpdir) > sizeof r.tmp - 32) tmpdir = "/tmp";
  snprintf(r.tmp, sizeof r.tmp, "%s/gpusim-test-XXXXXX", tmpdir);
  if (!mkdtemp(r.tmp)) {
    fprintf(stderr, "gpusim test: cannot make a temporary directory in %s: %s\n", tmpdir, strerror(errno));
    goto out;
  }
  int cores = online_cores();
  long jobs = args.jobs < r.nsel ? args.jobs : r.nsel;
  r.threads = cores / (int)jobs > 1 ? cores / (int)jobs : 1;
  r.progress = isatty(STDERR_FILENO);
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  char started[32];
  time_t wall = time(NULL);
  struct tm tm;
  strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%S", gmtime_r(&wall, &tm));
  double t0 = now_seconds();
  int rc = run_cases(&r);
  double seconds = now_seconds() - t0;
  if (rc == 0) {
    int update_errors = args.update ? update_references(&r) : 0;
    status = summarise(&r, seconds, update_errors);
    if (args.junit && write_junit(&r, seconds, started) < 0) status = TEST_USAGE_STATUS;
  } else {
    status = interrupted ? 128 + interrupted : 1;
  }
  remove_tmp(&r);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
out:
  for (int k = 0; k < m.n; k++) free_case(&m.cases[k]);
  free(m.cases);
  free(m.dir_shown);
  free(m.dir_abs);
  free(r.sel);
  return status;
}
