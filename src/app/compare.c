/* compare.c — `gpusim [options] SCENE.lua [ARGS...] --compare COMBO...`
 * (docs/inspector.md): the scene rendered once per ISA combination, side
 * by side, each labelled, with the pixels where each differs from the
 * first marked and counted.
 *
 * Each combination is the scene's first argument (lua/isas.lua: qpu, sass,
 * pica:qpu, agx, ...), and the ARGS given before --compare follow it: the
 * run for COMBO gets `COMBO ARGS...`. Each run is a fresh run of the
 * script (a new Lua state and GPU), headless, rendering --frames N frames
 * (default 1) and keeping the last; the images are then compared with
 * gs_image_compare at tolerance 0, which is what `gpusim diff` counts.
 *
 * The picture: one column per combination; on top its label and count,
 * then its frame, then the differences from the first as
 * gs_image_diff_render draws them (a dimmed grey copy, differing pixels in
 * red). With -o it is written there; otherwise (and without --headless) it
 * is shown in the window. The counts are printed on standard output, one
 * line per combination after the first:
 *   sass: 1234 of 65536 pixels differ from qpu
 * Exit status: 0 when every run rendered (whether or not they differ), 1
 * when one failed (its message, with the combination, on standard error)
 * or an output could not be written, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "app/font.h"
#include "app/image.h"
#include "app/window.h"

#define GAP 6
#define MAX_COMBOS 16

static const uint8_t BG[4] = {16, 16, 24, 255}, TEXT[4] = {255, 255, 255, 255}, RED[4] = {255, 90, 80, 255};

/* Copies src into dst at (x, y), each pixel a zoom x zoom square. */
static void blit(gs_image *dst, const gs_image *src, int x, int y, int zoom) {
  for (int sy = 0; sy < src->height; sy++)
    for (int sx = 0; sx < src->width; sx++) gs_fill_rect(dst, x + sx * zoom, y + sy * zoom, zoom, zoom, gs_image_pixel(src, sx, sy));
}

/* The picture of n images (the same size) named by names, with counts. */
static int compose(gs_image *out, gs_image *img, gs_image *diff, const uint64_t *count, char *const *names, int n,
                   gs_diag *d) {
  int w = img[0].width, h = img[0].height, zoom = 1;
  while (zoom < 4 && w * zoom < 160) zoom++;
  int pw = w * zoom, label = 2 * GS_FONT_LINE + 6;
  int width = n * pw + (n + 1) * GAP, height = label + 2 * h * zoom + 3 * GAP + GS_FONT_LINE;
  int rc = gs_image_alloc(out, width, height, d);
  if (rc != GS_OK) return rc;
  gs_fill_rect(out, 0, 0, width, height, BG);
  for (int i = 0; i < n; i++) {
    int x = GAP + i * (pw + GAP);
    char text[160];
    snprintf(text, sizeof text, "%s", names[i]);
    gs_font_draw(out, x, GAP, text, TEXT, 1);
    if (i == 0) snprintf(text, sizeof text, "the reference");
    else snprintf(text, sizeof text, "%llu px differ", (unsigned long long)count[i]);
    gs_font_draw(out, x, GAP + GS_FONT_LINE, text, i && count[i] ? RED : TEXT, 1);
    blit(out, &img[i], x, label + GAP, zoom);
    if (i > 0) blit(out, &diff[i], x, label + 2 * GAP + h * zoom, zoom);
  }
  char text[200];
  snprintf(text, sizeof text, "below: where each differs from %s (red)", names[0]);
  gs_font_draw(out, GAP, height - GS_FONT_LINE - 2, text, TEXT, 1);
  return GS_OK;
}

int gs_compare_main(const gs_run_options *o, int argc, char **argv, int at,
                    int (*run)(const gs_run_options *, int, char **)) {
  int n = argc - at - 1;
  if (n < 1) {
    fprintf(stderr, "gpusim: --compare needs at least one ISA combination (e.g. --compare qpu sass)\n"
                    "Try 'gpusim --help' for more information.\n");
    return 2;
  }
  if (n > MAX_COMBOS) {
    fprintf(stderr, "gpusim: --compare: at most %d combinations, got %d\n", MAX_COMBOS, n);
    return 2;
  }
  gs_image img[MAX_COMBOS], diff[MAX_COMBOS];
  uint64_t count[MAX_COMBOS] = {0};
  memset(img, 0, sizeof img);
  memset(diff, 0, sizeof diff);
  int nargs = at - o->script - 1; /* the scene's own ARGS */
  char **av = malloc(sizeof *av * (size_t)(o->script + 3 + nargs));
  if (!av) {
    fprintf(stderr, "gpusim: --compare: out of memory\n");
    return 1;
  }
  int status = 0, done = 0;
  gs_diag d;
  gs_diag_clear(&d);
  for (int i = 0; i < n && status == 0; i++) {
    int k = 0;
    for (int j = 0; j <= o->script; j++) av[k++] = argv[j];
    av[k++] = argv[at + 1 + i];
    for (int j = 0; j < nargs; j++) av[k++] = argv[o->script + 1 + j];
    av[k] = NULL;
    gs_run_options ro = *o;
    ro.headless = 1;
    ro.output = NULL;
    ro.dump_cl = NULL;
    ro.overlay = 0;
    ro.capture = &img[i];
    int rc = run(&ro, k, av);
    if (rc != 0 || !img[i].pixels) {
      fprintf(stderr, "gpusim --compare: %s %s: %s\n", argv[o->script], argv[at + 1 + i],
              rc != 0 ? "the run failed (above)" : "the scene rendered no frame");
      status = 1;
      break;
    }
    done++;
    if (i == 0) continue;
    if (img[i].width != img[0].width || img[i].height != img[0].height) {
      fprintf(stderr, "gpusim --compare: %s is %dx%d, %s %dx%d: the frames must be the same size\n",
              argv[at + 1 + i], img[i].width, img[i].height, argv[at + 1], img[0].width, img[0].height);
      status = 1;
      break;
    }
    gs_image_diff r;
    gs_image_compare(&img[0], &img[i], 0, &r, &d);
    count[i] = r.differing;
    printf("%s: %llu of %llu pixels differ from %s\n", argv[at + 1 + i], (unsigned long long)r.differing,
           (unsigned long long)r.pixels, argv[at + 1]);
    if (gs_image_diff_render(&img[0], &img[i], 0, &diff[i], &d) != GS_OK) {
      fprintf(stderr, "gpusim --compare: %s\n", d.msg);
      status = 1;
    }
  }
  fflush(stdout);
  free(av);
  gs_image out = {0, 0, 0, NULL};
  if (status == 0 && compose(&out, img, diff, count, argv + at + 1, n, &d) != GS_OK) {
    fprintf(stderr, "gpusim --compare: %s\n", d.msg);
    status = 1;
  }
  if (status == 0 && o->output && gs_image_write_png(&out, o->output, &d) != GS_OK) {
    fprintf(stderr, "gpusim --compare: %s\n", d.msg);
    status = 1;
  }
  if (status == 0 && !o->output && !o->headless) {
    gs_window *win;
    char title[256];
    const char *slash = strrchr(argv[o->script], '/');
    snprintf(title, sizeof title, "gpusim --compare: %s", slash ? slash + 1 : argv[o->script]);
    int rc = gs_window_open(&win, title, out.width, out.height, &d);
    if (rc == GS_WINDOW_NO_DISPLAY) {
      fprintf(stderr, "gpusim: note: ran without a window: %s\n", d.msg);
    } else if (rc != GS_OK) {
      fprintf(stderr, "gpusim --compare: %s\n", d.msg);
      status = 1;
    } else {
      for (long shown = 0; !gs_window_poll(win);) {
        if (gs_window_present(win, out.pixels, (ptrdiff_t)out.stride, &d) != GS_OK) {
          fprintf(stderr, "gpusim --compare: %s\n", d.msg);
          status = 1;
          break;
        }
        if (o->frames > 0 && ++shown >= o->frames) break;
      }
      gs_window_close(win);
    }
  }
  gs_image_free(&out);
  for (int i = 0; i < done; i++) gs_image_free(&img[i]), gs_image_free(&diff[i]);
  if (done < n && done >= 0) gs_image_free(&img[done]);
  return status;
}
