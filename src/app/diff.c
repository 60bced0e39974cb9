/* diff.c — image comparison the way the reference-image tests compare
 * (gs_image_compare, gs_image_diff_render; see image.h), and the command
 *
 *   gpusim diff A.png B.png [--tolerance T] [-o DIFF.png]
 *
 * which prints how many pixels differ by more than T in some channel, the
 * largest channel difference, the first differing pixel, the mean absolute
 * difference and the PSNR. Exit status 0 when no pixel differs beyond T,
 * 1 when some do, 2 on a usage error or when a file cannot be read or
 * written or the sizes differ (the message names the file).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "app/image.h"

/* ---- comparison ----------------------------------------------------------- */

/* Checks that a and b can be compared under tolerance; GS_OK or GS_EARG. */
static int check_comparable(const gs_image *a, const gs_image *b, int tolerance, gs_diag *d) {
  if (tolerance < 0 || tolerance > 255)
    return gs_diag_set(d, GS_EARG, "tolerance %d is outside 0..255", tolerance);
  if (a->width != b->width || a->height != b->height)
    return gs_diag_set(d, GS_EARG, "image sizes differ: %dx%d and %dx%d", a->width, a->height,
                       b->width, b->height);
  return GS_OK;
}

/* The largest of the four channel differences between RGBA pixels p and q. */
static int pixel_max_diff(const uint8_t *p, const uint8_t *q) {
  int m = 0;
  for (int c = 0; c < 4; c++) {
    int diff = abs((int)p[c] - (int)q[c]);
    if (diff > m) m = diff;
  }
  return m;
}

int gs_image_compare(const gs_image *a, const gs_image *b, int tolerance, gs_image_diff *out,
                     gs_diag *d) {
  memset(out, 0, sizeof *out);
  out->max_x = out->max_y = out->first_x = out->first_y = -1;
  int rc = check_comparable(a, b, tolerance, d);
  if (rc != GS_OK) return rc;
  uint64_t sum_abs = 0, sum_sq = 0;  /* at most 2^28 pixels x 4 x 255^2: fits */
  for (int y = 0; y < a->height; y++) {
    for (int x = 0; x < a->width; x++) {
      const uint8_t *p = gs_image_pixel(a, x, y), *q = gs_image_pixel(b, x, y);
      int worst = 0;
      for (int c = 0; c < 4; c++) {
        int diff = abs((int)p[c] - (int)q[c]);
        sum_abs += (uint64_t)diff;
        sum_sq += (uint64_t)(diff * diff);
        if (diff > worst) worst = diff;
      }
      if (worst == 0) continue;
      out->nonzero++;
      if (worst > out->max_diff) {
        out->max_diff = worst;
        out->max_x = x;
        out->max_y = y;
      }
      if (worst > tolerance && out->differing++ == 0) {
        out->first_x = x;
        out->first_y = y;
        memcpy(out->first_a, p, 4);
        memcpy(out->first_b, q, 4);
      }
    }
  }
  out->pixels = (uint64_t)a->width * (uint64_t)a->height;
  double channels = 4.0 * (double)out->pixels;
  out->mean_abs = channels > 0 ? (double)sum_abs / channels : 0.0;
  double mse = channels > 0 ? (double)sum_sq / channels : 0.0;
  out->psnr = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : INFINITY;
  return out->differing ? 1 : 0;
}

/* The colour of diff pixel (x, y): dimmed grey of a (so the picture stays
 * recognisable but never looks like a marker), yellow for a difference
 * within the tolerance, red beyond it. */
static void diff_pixel(const uint8_t *p, const uint8_t *q, int tolerance, uint8_t *out) {
  static const uint8_t red[4] = {255, 0, 0, 255}, yellow[4] = {255, 230, 0, 255};
  int worst = pixel_max_diff(p, q);
  if (worst > tolerance) {
    memcpy(out, red, 4);
  } else if (worst > 0) {
    memcpy(out, yellow, 4);
  } else {
    /* Rec. 601 luma in integers, then a third of it: grey 0..85. */
    unsigned luma = (299u * p[0] + 587u * p[1] + 114u * p[2]) / 1000u;
    uint8_t grey = (uint8_t)(luma / 3);
    out[0] = out[1] = out[2] = grey;
    out[3] = 255;
  }
}

int gs_image_diff_render(const gs_image *a, const gs_image *b, int tolerance, gs_image *diff,
                         gs_diag *d) {
  memset(diff, 0, sizeof *diff);
  int rc = check_comparable(a, b, tolerance, d);
  if (rc != GS_OK) return rc;
  rc = gs_image_alloc(diff, a->width, a->height, d);
  if (rc != GS_OK) return rc;
  for (int y = 0; y < a->height; y++)
    for (int x = 0; x < a->width; x++)
      diff_pixel(gs_image_pixel(a, x, y), gs_image_pixel(b, x, y), tolerance,
                 gs_image_pixel(diff, x, y));
  return GS_OK;
}

int gs_image_diff_write_png(const gs_image *a, const gs_image *b, int tolerance, const char *path,
                            gs_diag *d) {
  gs_image diff;
  int rc = gs_image_diff_render(a, b, tolerance, &diff, d);
  if (rc == GS_OK) rc = gs_image_write_png(&diff, path, d);
  gs_image_free(&diff);
  return rc;
}

void gs_image_diff_print(FILE *out, const char *indent, const char *name_a, const char *name_b,
                         int tolerance, const gs_image_diff *r) {
  double percent = r->pixels ? 100.0 * (double)r->differing / (double)r->pixels : 0.0;
  fprintf(out, "%sdiffering pixels: %llu of %llu (%.3f%%), tolerance %d\n", indent,
          (unsigned long long)r->differing, (unsigned long long)r->pixels, percent, tolerance);
  if (r->max_diff)
    fprintf(out, "%smax channel difference: %d at (%d, %d)\n", indent, r->max_diff, r->max_x, r->max_y);
  else
    fprintf(out, "%smax channel difference: 0\n", indent);
  if (r->differing) {
    const uint8_t *p = r->first_a, *q = r->first_b;
    fprintf(out, "%sfirst difference: (%d, %d) %s %u,%u,%u,%u %s %u,%u,%u,%u\n", indent, r->first_x,
            r->first_y, name_a, p[0], p[1], p[2], p[3], name_b, q[0], q[1], q[2], q[3]);
  } else {
    fprintf(out, "%sfirst difference: none\n", indent);
  }
  if (isinf(r->psnr))
    fprintf(out, "%smean absolute difference: %.4f, PSNR inf dB\n", indent, r->mean_abs);
  else
    fprintf(out, "%smean absolute difference: %.4f, PSNR %.2f dB\n", indent, r->mean_abs, r->psnr);
}

/* ---- the command ---------------------------------------------------------- */

#define DIFF_USAGE_STATUS 2

static const char diff_usage[] =
  "usage: gpusim diff A.png B.png [--tolerance T] [-o DIFF.png]\n"
  "Compares two images of the same size channel by channel (R, G, B, A): a\n"
  "pixel differs when some channel differs by more than T (0..255, default 0).\n"
  "Prints the number and percentage of differing pixels, the largest channel\n"
  "difference and where, the first differing pixel with both values, the mean\n"
  "absolute difference and the PSNR. Coordinates are (x, y) from the top-left\n"
  "corner. -o writes DIFF.png: a dimmed grey copy of A with differing pixels\n"
  "in red and differences within the tolerance in yellow.\n"
  "Exit status: 0 no pixel differs beyond T, 1 some do, 2 usage error,\n"
  "unreadable or unwritable file, or different sizes.\n"
  "gpusim diff --frames A.lua [B.lua] ... compares two scenes' frames packet by\n"
  "packet instead (gpusim diff --frames --help; docs/frame-diff.md).\n";

typedef struct diff_args {
  const char *a, *b;    /* the two images */
  const char *out;      /* -o, NULL if not given */
  int tolerance;        /* --tolerance */
} diff_args;

/* Prints "gpusim diff: <message>" and the --help hint; returns 2. */
static int diff_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int diff_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("gpusim diff: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'gpusim diff --help' for more information.\n", stderr);
  return DIFF_USAGE_STATUS;
}

/* Parses a tolerance 0..255 from text into *t; 0 on success, -1 if malformed. */
static int parse_tolerance(const char *text, int *t) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < 0 || v > 255) return -1;
  *t = (int)v;
  return 0;
}

/* Parses `gpusim diff` arguments (argv[0] is "diff"). Returns -1 when they
 * are valid, else the exit status (0 after --help, 2 after a message). */
static int parse_diff_args(int argc, char **argv, diff_args *a) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(diff_usage, stdout);
      return 0;
    } else if ((v = gs_cli_option(argc, argv, &i, "--tolerance", &missing))) {
      if (parse_tolerance(v, &a->tolerance) < 0)
        return diff_usage_error("--tolerance: expected a whole number 0..255, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "-o", &missing))) {
      a->out = v;
    } else if (missing) {
      return diff_usage_error("option '%s' needs a value", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return diff_usage_error("unknown option '%s'", argv[i]);
    } else if (!a->a) {
      a->a = argv[i];
    } else if (!a->b) {
      a->b = argv[i];
    } else {
      return diff_usage_error("more than two images ('%s')", argv[i]);
    }
  }
  if (!a->b) return diff_usage_error("needs two images: gpusim diff A.png B.png");
  return -1;
}

/* Prints the comparison of the images named a and b to out. */
static void print_diff(FILE *out, const diff_args *a, const gs_image_diff *r) {
  gs_image_diff_print(out, "", a->a, a->b, a->tolerance, r);
}

/* Writes the diff image of a and b to path; 0 on success, 2 after a message. */
static int write_diff_image(const gs_image *a, const gs_image *b, int tolerance, const char *path) {
  gs_diag d;
  gs_diag_clear(&d);
  if (gs_image_diff_write_png(a, b, tolerance, path, &d) == GS_OK) return 0;
  fprintf(stderr, "gpusim diff: %s\n", d.msg);
  return DIFF_USAGE_STATUS;
}

int gs_diff_main(int argc, char **argv) {
  diff_args args;
  int status = parse_diff_args(argc, argv, &args);
  if (status >= 0) return status;
  gs_diag d;
  gs_diag_clear(&d);
  gs_image a = {0, 0, 0, NULL}, b = {0, 0, 0, NULL};
  if (gs_image_read_png(&a, args.a, &d) != GS_OK || gs_image_read_png(&b, args.b, &d) != GS_OK) {
    fprintf(stderr, "gpusim diff: %s\n", d.msg);
    gs_image_free(&a);
    return DIFF_USAGE_STATUS;
  }
  gs_image_diff r;
  int rc = gs_image_compare(&a, &b, args.tolerance, &r, &d);
  if (rc < 0) {
    fprintf(stderr, "gpusim diff: %s is %dx%d but %s is %dx%d: sizes differ\n", args.a, a.width,
            a.height, args.b, b.width, b.height);
    status = DIFF_USAGE_STATUS;
  } else {
    /* With -o - the diff image goes to standard output, the report to stderr. */
    print_diff(args.out && strcmp(args.out, "-") == 0 ? stderr : stdout, &args, &r);
    status = rc;
    if (args.out && write_diff_image(&a, &b, args.tolerance, args.out) != 0)
      status = DIFF_USAGE_STATUS;
  }
  gs_image_free(&a);
  gs_image_free(&b);
  return status;
}
