/* bench_peer.c — `gpusim bench --peer PROGRAM`: gpusim against Mesa's
 * llvmpipe and softpipe on the same frames (bench_peer.h).
 *
 * One run of each row in turn, then the next run, so that a change in the
 * machine's load falls on every row alike:
 *   gpusim: gs_v3d_bench_fill / gs_v3d_bench_triangles with the QPU fragment
 *           program on 1 and 2 threads (binning and rendering, the tile
 *           stores writing the frame buffer included), each row after an
 *           untimed frame of its own, in a context kept from row to row;
 *   peers:  PROGRAM (gpusim-peer-osmesa) with GALLIUM_DRIVER=llvmpipe and
 *           LP_NUM_THREADS=1 and 2, and GALLIUM_DRIVER=softpipe, one process
 *           a run: a warm-up frame, then one timed frame (clear, draws,
 *           glFinish with the copy-out);
 *   then the fill frame with every other instruction set's fragment program
 *   (the PICA200's: the QPU program of its texture combiners) on 1 thread,
 *   and the QPU ALU chain of `gpusim bench` once.
 * Prints each row's median and range, the ratios issue 13's goals name with
 * a mark each, and how each row's image of a frame compares with gpusim's
 * QPU image on 1 thread (from the first run).
 */
#include "bench/bench_peer.h"
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gpusim/v3d.h"
#include "isa/isa.h"
#include "isa/uop/jit.h"

extern char **environ;

#define MAX_RUNS 31
#define MAX_ROWS 16

enum { FILL, TRIANGLES };

/* The figures of issue 13's goals. */
#define GOAL_FILL_LLVMPIPE 0.5
#define GOAL_FILL_SOFTPIPE 10.0
#define GOAL_TRIANGLES_LLVMPIPE 0.6
#define GOAL_ISA_FILL 1.5
/* The real VideoCore IV: 12 QPUs at 250 MHz, each issuing one 16-lane
 * instruction every 4 cycles (four lanes a cycle). */
#define REAL_QPU_INSTRUCTIONS 750e6

typedef struct row {
  int frame;          /* FILL or TRIANGLES */
  const char *driver; /* NULL: gpusim; else the peer's GALLIUM_DRIVER */
  const char *isa;    /* gpusim: the fragment program's instruction set */
  unsigned threads;
  char name[64];      /* as printed: "gpusim qpu", or the peer's GL_RENDERER */
  double rate[MAX_RUNS];
  gs_bench_spread s;
  uint8_t *image; /* the first run's frame */
} row;

typedef struct bench {
  const char *program;
  uint32_t width, height, layers, count;
  int runs;
  char dir[64]; /* the temporary directory for the peer's output and image */
  row rows[MAX_ROWS];
  int nrows;
} bench;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

gs_bench_spread gs_bench_spread_of(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  gs_bench_spread s = {n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]};
  return s;
}

gs_bench_image_diff gs_bench_image_compare(const uint8_t *a, const uint8_t *b, size_t n) {
  gs_bench_image_diff d = {0, n, 0};
  for (size_t i = 0; i < n; i++) {
    unsigned worst = 0;
    for (int c = 0; c < 4; c++) {
      unsigned e = a[4 * i + c] > b[4 * i + c] ? a[4 * i + c] - b[4 * i + c] : b[4 * i + c] - a[4 * i + c];
      if (e > worst) worst = e;
    }
    if (worst) {
      if (!d.differing) d.first = i;
      d.differing++;
      if (worst > d.max_error) d.max_error = worst;
    }
  }
  return d;
}

static row *add_row(bench *b, int frame, const char *driver, const char *isa, unsigned threads) {
  row *r = &b->rows[b->nrows++];
  memset(r, 0, sizeof *r);
  r->frame = frame, r->driver = driver, r->isa = isa, r->threads = threads;
  snprintf(r->name, sizeof r->name, "%s %s", driver ? driver : "gpusim", driver ? "" : isa);
  return r;
}

static const char *frame_name(const bench *b, int frame) {
  static char s[2][64];
  if (frame == FILL) snprintf(s[0], sizeof s[0], "fill %ux%u, %u layers", b->width, b->height, b->layers);
  else snprintf(s[1], sizeof s[1], "%u triangles", b->count);
  return s[frame];
}

/* The work of a frame: pixels shaded (fill) or triangles. */
static double frame_work(const bench *b, int frame) {
  return frame == FILL ? (double)b->width * b->height * b->layers : (double)b->count;
}

/* One gpusim run of row r: its rate (Mpixels/s or Mtriangles/s), and its
 * image when r->image is set. */
static int run_gpusim(const bench *b, row *r, uint8_t *image, double *rate) {
  gs_v3d_bench_result res;
  gs_diag d;
  gs_diag_clear(&d);
  int rc = r->frame == FILL
               ? gs_v3d_bench_fill_image(b->width, b->height, b->layers, r->threads, r->isa, &res, image, &d)
               : gs_v3d_bench_triangles_image(b->width, b->height, b->count, r->threads, r->isa, &res, image, &d);
  if (rc < 0) {
    fprintf(stderr, "gpusim bench --peer: %s: %s\n", frame_name(b, r->frame), d.msg);
    return -1;
  }
  if (r->frame == FILL && res.fragments != (uint64_t)frame_work(b, FILL)) {
    fprintf(stderr, "gpusim bench --peer: %s: %llu fragments shaded, not %.0f\n", frame_name(b, FILL),
            (unsigned long long)res.fragments, frame_work(b, FILL));
    return -1;
  }
  *rate = frame_work(b, r->frame) / res.seconds / 1e6;
  return 0;
}

/* The environment of a peer run: ours without GALLIUM_DRIVER and
 * LP_NUM_THREADS, then those two as the row asks. */
static char **peer_env(const row *r, char *driver, char *threads) {
  size_t n = 0, k = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 3, sizeof *env);
  if (!env) return NULL;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "GALLIUM_DRIVER=", 15) && strncmp(environ[i], "LP_NUM_THREADS=", 15)) env[k++] = environ[i];
  snprintf(driver, 64, "GALLIUM_DRIVER=%s", r->driver);
  snprintf(threads, 32, "LP_NUM_THREADS=%u", r->threads);
  env[k++] = driver, env[k++] = threads;
  return env;
}

/* Reads all of path into a NUL-terminated malloc'ed buffer of at most
 * max bytes (*n: its size), or NULL. */
static char *read_file(const char *path, size_t max, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *s = malloc(max + 1);
  *n = s ? fread(s, 1, max + 1, f) : 0;
  fclose(f);
  if (s && *n > max) free(s), s = NULL;
  if (s) s[*n] = 0;
  return s;
}

/* One peer run of row r: spawns the program, reads its line (and image). */
static int run_peer(const bench *b, row *r, uint8_t *image, double *rate) {
  char out[96], img[96], w[16], h[16], l[16], c[16], driver[64], threads[32];
  snprintf(out, sizeof out, "%s/out.txt", b->dir);
  snprintf(img, sizeof img, "%s/image.rgba", b->dir);
  snprintf(w, sizeof w, "%u", b->width), snprintf(h, sizeof h, "%u", b->height);
  snprintf(l, sizeof l, "%u", b->layers), snprintf(c, sizeof c, "%u", b->count);
  char *argv[] = {(char *)b->program, r->frame == FILL ? "fill" : "triangles", "--width", w, "--height", h,
                  "--layers", l, "--count", c, image ? "--image" : NULL, img, NULL};
  char **env = peer_env(r, driver, threads);
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int status = 0, err = ENOMEM;
  if (env && !(err = posix_spawn_file_actions_init(&fa))) {
    err = posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!err) err = posix_spawn(&pid, b->program, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
  }
  free(env);
  if (err) {
    fprintf(stderr, "gpusim bench --peer: cannot run %s: %s\n", b->program, strerror(err));
    return -1;
  }
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "gpusim bench --peer: %s %s with %s, %s failed (%s %d)\n", b->program, argv[1], driver, threads,
            WIFSIGNALED(status) ? "signal" : "status", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    return -1;
  }
  size_t n;
  char *s = read_file(out, 4096, &n), *sec = s ? strstr(s, " seconds=") : NULL, *rend = s ? strstr(s, "renderer=") : NULL;
  char *end = rend ? strstr(rend, " frame=") : NULL;
  double t = sec ? strtod(sec + 9, NULL) : 0;
  if (!sec || !end || !(t > 0)) {
    fprintf(stderr, "gpusim bench --peer: %s: %s: no 'renderer=... frame=... seconds=T' line: %s\n", b->program, out,
            s ? s : "(none)");
    free(s);
    return -1;
  }
  rend += 9;
  snprintf(r->name, sizeof r->name, "%.*s", (int)(end - rend), rend);
  free(s);
  *rate = frame_work(b, r->frame) / t / 1e6;
  if (image) {
    size_t want = (size_t)b->width * b->height * 4;
    uint8_t *px = (uint8_t *)read_file(img, want, &n);
    if (!px || n != want) {
      fprintf(stderr, "gpusim bench --peer: %s: %zu bytes, not the %zu of a %ux%u RGBA8 image\n", img, px ? n : 0,
              want, b->width, b->height);
      free(px);
      return -1;
    }
    memcpy(image, px, want);
    free(px);
  }
  return 0;
}

/* The machine the figures come from: the CPU's model and the load average
 * (Linux's /proc; "?" elsewhere), printed as `what`. */
static void machine_line(const char *what) {
  char model[128] = "?", load[64] = "?", line[256];
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!strncmp(line, "model name", 10) && colon) {
      snprintf(model, sizeof model, "%s", colon + 2 + strspn(colon + 2, " \t"));
      model[strcspn(model, "\n")] = 0;
      break;
    }
  }
  if (f) fclose(f);
  double l1, l5, l15;
  if ((f = fopen("/proc/loadavg", "r"))) {
    if (fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3) snprintf(load, sizeof load, "%.2f %.2f %.2f", l1, l5, l15);
    fclose(f);
  }
  printf("%s: %s, %ld online cores, load average %s\n", what, model, sysconf(_SC_NPROCESSORS_ONLN), load);
}

static const char *unit(int frame) { return frame == FILL ? "Mpixels/s" : "Mtriangles/s"; }

static row *find(bench *b, int frame, const char *driver, const char *isa, unsigned threads) {
  for (int i = 0; i < b->nrows; i++) {
    row *r = &b->rows[i];
    if (r->frame == frame && r->threads == threads && (driver ? r->driver && !strcmp(r->driver, driver) : !r->driver) &&
        (driver || !strcmp(r->isa, isa)))
      return r;
  }
  return NULL;
}

/* One goal's line: ratio = a / b against the goal `goal` (at least). */
static int goal_line(const char *what, double ratio, double goal, const char *basis) {
  int ok = ratio >= goal;
  printf("  %-44s %8.2fx  goal >= %.2fx  %s   (%s)\n", what, ratio, goal, ok ? "PASS" : "FAIL", basis);
  return ok;
}

static int parse(bench *b, int argc, char **argv) {
  if (argc < 2) return -1;
  b->program = argv[1];
  b->width = 1920, b->height = 1080, b->layers = 8, b->count = 100000, b->runs = 5;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc) b->runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) b->width = 256, b->height = 128, b->layers = 2, b->count = 2000, b->runs = 1;
    else return -1;
  }
  return b->runs >= 1 && b->runs <= MAX_RUNS ? 0 : -1;
}

int gs_bench_peer_main(int argc, char **argv, gs_bench_chain_fn qpu_chain) {
  static bench b;
  memset(&b, 0, sizeof b);
  if (parse(&b, argc, argv) < 0) {
    fprintf(stderr, "usage: gpusim bench --peer PROGRAM [--runs N (1..%d, default 5)] [--quick]\n"
                    "  PROGRAM: gpusim-peer-osmesa (built when OSMesa is installed; make bench-peer)\n", MAX_RUNS);
    return 2;
  }
  if (access(b.program, X_OK) != 0) {
    fprintf(stderr, "gpusim bench --peer: %s: %s (make bench-peer builds it)\n", b.program, strerror(errno));
    return 1;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(b.dir, sizeof b.dir, "%s/gpusim-peer-XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
  if (!mkdtemp(b.dir)) {
    fprintf(stderr, "gpusim bench --peer: mkdtemp %s: %s\n", b.dir, strerror(errno));
    return 1;
  }
  for (int frame = FILL; frame <= TRIANGLES; frame++) {
    add_row(&b, frame, NULL, "qpu", 1);
    add_row(&b, frame, NULL, "qpu", 2);
    add_row(&b, frame, "llvmpipe", NULL, 1);
    add_row(&b, frame, "llvmpipe", NULL, 2);
    add_row(&b, frame, "softpipe", NULL, 1);
  }
  for (unsigned id = GS_ISA_NONE + 1; id < GS_ISA_IDS; id++) {
    const gs_isa *isa = gs_isa_by_id(id);
    if (isa && isa->bench_fragment && id != GS_ISA_QPU && b.nrows < MAX_ROWS) add_row(&b, FILL, NULL, isa->name, 1);
  }
  double chain[MAX_RUNS];
  int rc = 1;
  size_t pixels = (size_t)b.width * b.height;
  for (int i = 0; i < b.nrows; i++)
    if (!(b.rows[i].image = malloc(pixels * 4))) {
      fprintf(stderr, "gpusim bench --peer: out of memory\n");
      goto out;
    }
  printf("gpusim against Mesa through OSMesa (%s), the same frames, interleaved: %d run%s of each row\n", b.program,
         b.runs, b.runs > 1 ? "s" : "");
  machine_line("machine at the start");
  /* As each peer run renders a frame before the one it times, each gpusim
   * row renders one untimed frame first (its context, kept for the row's
   * later frames, faults its pages in then: cle_bench.c). */
  for (int i = 0; i < b.nrows; i++) {
    double warm;
    if (!b.rows[i].driver && run_gpusim(&b, &b.rows[i], NULL, &warm) < 0) goto out;
  }
  for (int k = 0; k < b.runs; k++) {
    for (int i = 0; i < b.nrows; i++) {
      row *r = &b.rows[i];
      uint8_t *image = k == 0 ? r->image : NULL;
      if ((r->driver ? run_peer(&b, r, image, &r->rate[k]) : run_gpusim(&b, r, image, &r->rate[k])) < 0) goto out;
    }
    if ((chain[k] = qpu_chain(0)) < 0) goto out;
    fprintf(stderr, "gpusim bench --peer: run %d of %d done\n", k + 1, b.runs);
  }
  machine_line("machine at the end");
  for (int i = 0; i < b.nrows; i++) b.rows[i].s = gs_bench_spread_of(b.rows[i].rate, (size_t)b.runs);
  gs_bench_spread cs = gs_bench_spread_of(chain, (size_t)b.runs);

  printf("\n  %-26s %-36s %2s %10s  %s\n", "frame", "renderer", "th", "median", "range");
  for (int i = 0; i < b.nrows; i++) {
    const row *r = &b.rows[i];
    int digits = r->frame == FILL ? 2 : 3; /* a few hundredths of a Mtriangle/s on a loaded machine */
    printf("  %-26s %-36s %2u %10.*f  %.*f-%.*f %s\n", frame_name(&b, r->frame), r->name, r->threads, digits,
           r->s.median, digits, r->s.min, digits, r->s.max, unit(r->frame));
  }
  /* compiled in qpu_chain's untimed first run when native code is on (docs/uops.md, "Native code") */
  printf("  %-26s %-36s %2u %10.1f  %.1f-%.1f Minstructions/s\n", "QPU ALU chain",
         gs_jit_threshold() ? "gpusim native code (LLVM)" : "gpusim fast interpreter", 1, cs.median / 1e6,
         cs.min / 1e6, cs.max / 1e6);

  printf("\nIssue 13's goals (ratios of the medians above)\n");
  int pass = 0, goals = 0;
  const row *g1 = find(&b, FILL, NULL, "qpu", 1), *g2 = find(&b, FILL, NULL, "qpu", 2);
  const row *l1 = find(&b, FILL, "llvmpipe", NULL, 1), *l2 = find(&b, FILL, "llvmpipe", NULL, 2);
  const row *sp = find(&b, FILL, "softpipe", NULL, 1);
  const row *t1 = find(&b, TRIANGLES, NULL, "qpu", 1), *t2 = find(&b, TRIANGLES, NULL, "qpu", 2);
  const row *tl1 = find(&b, TRIANGLES, "llvmpipe", NULL, 1), *tl2 = find(&b, TRIANGLES, "llvmpipe", NULL, 2);
  goals += 6;
  pass += goal_line("fill vs llvmpipe, 1 thread", g1->s.median / l1->s.median, GOAL_FILL_LLVMPIPE, "LP_NUM_THREADS=1");
  pass += goal_line("fill vs llvmpipe, 2 threads", g2->s.median / l2->s.median, GOAL_FILL_LLVMPIPE, "LP_NUM_THREADS=2");
  pass += goal_line("fill vs softpipe, 1 thread", g1->s.median / sp->s.median, GOAL_FILL_SOFTPIPE,
                    "softpipe is single-threaded");
  pass += goal_line("tiny triangles vs llvmpipe, 1 thread", t1->s.median / tl1->s.median, GOAL_TRIANGLES_LLVMPIPE,
                    "LP_NUM_THREADS=1");
  pass += goal_line("tiny triangles vs llvmpipe, 2 threads", t2->s.median / tl2->s.median, GOAL_TRIANGLES_LLVMPIPE,
                    "LP_NUM_THREADS=2");
  pass += goal_line("QPU ALU chain vs the real VideoCore IV", cs.median / REAL_QPU_INSTRUCTIONS, 1.0,
                    "750 M instructions/s: 12 QPUs x 250 MHz / 4 cycles");
  for (int i = 0; i < b.nrows; i++) {
    const row *r = &b.rows[i];
    if (r->driver || r->frame != FILL || r->threads != 1 || !strcmp(r->isa, "qpu")) continue;
    char what[64];
    snprintf(what, sizeof what, "fill with %s vs with qpu, 1 thread", r->isa);
    goals++;
    pass += goal_line(what, r->s.median / g1->s.median, 1 / GOAL_ISA_FILL, "within 1.5x of the QPU's");
  }
  printf("  %d of %d goals met\n", pass, goals);

  printf("\nImages of the first run against gpusim qpu's on 1 thread (RGBA8)\n");
  for (int i = 0; i < b.nrows; i++) {
    const row *r = &b.rows[i], *ref = r->frame == FILL ? g1 : t1;
    if (r == ref) continue;
    gs_bench_image_diff d = gs_bench_image_compare(ref->image, r->image, pixels);
    printf("  %-26s %-36s %2u  ", frame_name(&b, r->frame), r->name, r->threads);
    if (!d.differing) printf("identical\n");
    else
      printf("%zu of %zu pixels differ (%.3f%%), max channel error %u, first at (%zu, %zu)\n", d.differing, pixels,
             100.0 * (double)d.differing / (double)pixels, d.max_error, d.first % b.width, d.first / b.width);
  }
  rc = 0;
out:
  qpu_chain(1);
  for (int i = 0; i < b.nrows; i++) free(b.rows[i].image);
  char path[96];
  snprintf(path, sizeof path, "%s/out.txt", b.dir), unlink(path);
  snprintf(path, sizeof path, "%s/image.rgba", b.dir), unlink(path);
  rmdir(b.dir);
  return rc;
}
