/* test_image.c — images in host memory (src/app/image.c) and their
 * comparison (src/app/diff.c): PNG round trips through a temporary
 * directory, writes that fail leaving no file and an existing target as it
 * was, row order, and compare counts, maxima, first differences and
 * tolerance edges on images made by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "app/image.h"

/* ---- helpers -------------------------------------------------------------- */

/* A fresh temporary directory per test, removed with what it holds. */
typedef struct scratch {
  char dir[64];
  char path[128];
} scratch;

static int scratch_setup(void **state) {
  scratch *s = calloc(1, sizeof *s);
  if (!s) return -1;
  strcpy(s->dir, "/tmp/gs-test-image-XXXXXX");
  if (!mkdtemp(s->dir)) {
    free(s);
    return -1;
  }
  *state = s;
  return 0;
}

static int scratch_teardown(void **state) {
  scratch *s = *state;
  chmod(s->dir, 0700);
  DIR *dir = opendir(s->dir);
  if (dir) {
    struct dirent *e;
    char path[512];
    while ((e = readdir(dir)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
      if (remove(path) != 0) rmdir(path);
    }
    closedir(dir);
  }
  rmdir(s->dir);
  free(s);
  return 0;
}

/* s->path = s->dir/name. */
static const char *in_scratch(scratch *s, const char *name) {
  snprintf(s->path, sizeof s->path, "%s/%s", s->dir, name);
  return s->path;
}

/* The names in s->dir, one per line, sorted by readdir order; "" if none. */
static void list_dir(const scratch *s, char *out, size_t size) {
  out[0] = '\0';
  DIR *dir = opendir(s->dir);
  assert_non_null(dir);
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    strncat(out, e->d_name, size - strlen(out) - 2);
    strcat(out, "\n");
  }
  closedir(dir);
}

/* Makes img width × height with a pattern that differs in every byte of
 * neighbouring pixels, alpha included. */
static void make_pattern(gs_image *img, int width, int height) {
  assert_int_equal(gs_image_alloc(img, width, height, NULL), GS_OK);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      uint8_t *p = gs_image_pixel(img, x, y);
      p[0] = (uint8_t)(x * 37 + y * 11);
      p[1] = (uint8_t)(x * 5 + y * 71 + 3);
      p[2] = (uint8_t)(255 - x * 13 - y);
      p[3] = (uint8_t)(x + y * width);
    }
}

/* Makes img width × height, every pixel (r, g, b, a). */
static void make_flat(gs_image *img, int width, int height, int r, int g, int b, int a) {
  assert_int_equal(gs_image_alloc(img, width, height, NULL), GS_OK);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      uint8_t *p = gs_image_pixel(img, x, y);
      p[0] = (uint8_t)r, p[1] = (uint8_t)g, p[2] = (uint8_t)b, p[3] = (uint8_t)a;
    }
}

static void assert_same_pixels(const gs_image *a, const gs_image *b) {
  assert_int_equal(a->width, b->width);
  assert_int_equal(a->height, b->height);
  for (int y = 0; y < a->height; y++)
    assert_memory_equal(gs_image_pixel(a, 0, y), gs_image_pixel(b, 0, y), (size_t)a->width * 4);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

static void assert_file_text(const char *path, const char *text) {
  char buf[256] = {0};
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  assert_string_equal(buf, text);
}

/* ---- PNG files ------------------------------------------------------------ */

static void png_round_trip(void **state) {
  scratch *s = *state;
  gs_image a, b;
  make_pattern(&a, 7, 5);
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_write_png(&a, in_scratch(s, "a.png"), &d), GS_OK);
  assert_int_equal(gs_image_read_png(&b, s->path, &d), GS_OK);
  assert_same_pixels(&a, &b);
  /* the file really is a PNG */
  unsigned char sig[8];
  FILE *f = fopen(s->path, "rb");
  assert_non_null(f);
  assert_int_equal(fread(sig, 1, 8, f), 8);
  fclose(f);
  assert_memory_equal(sig, "\x89PNG\r\n\x1a\n", 8);
  /* only a.png is left: no temporary file */
  char names[256];
  list_dir(s, names, sizeof names);
  assert_string_equal(names, "a.png\n");
  gs_image_free(&a);
  gs_image_free(&b);
}

/* A padded stride is honoured: the padding never reaches the file. */
static void png_round_trip_padded_stride(void **state) {
  scratch *s = *state;
  gs_image tight, padded, back;
  make_pattern(&tight, 5, 4);
  padded = tight;
  padded.stride = 5 * 4 + 12;
  padded.pixels = malloc(padded.stride * 4);
  assert_non_null(padded.pixels);
  memset(padded.pixels, 0xEE, padded.stride * 4);
  for (int y = 0; y < 4; y++) memcpy(gs_image_pixel(&padded, 0, y), gs_image_pixel(&tight, 0, y), 20);
  assert_int_equal(gs_image_write_png(&padded, in_scratch(s, "p.png"), NULL), GS_OK);
  assert_int_equal(gs_image_read_png(&back, s->path, NULL), GS_OK);
  assert_same_pixels(&tight, &back);
  gs_image_free(&tight);
  gs_image_free(&padded);
  gs_image_free(&back);
}

/* An existing target is replaced whole by a successful write. */
static void png_write_replaces_existing(void **state) {
  scratch *s = *state;
  write_text(in_scratch(s, "x.png"), "old contents");
  gs_image a, b;
  make_pattern(&a, 3, 3);
  assert_int_equal(gs_image_write_png(&a, s->path, NULL), GS_OK);
  assert_int_equal(gs_image_read_png(&b, s->path, NULL), GS_OK);
  assert_same_pixels(&a, &b);
  gs_image_free(&a);
  gs_image_free(&b);
}

/* A directory that does not exist: an error naming the path, no file. */
static void png_write_missing_directory(void **state) {
  scratch *s = *state;
  gs_image a;
  make_pattern(&a, 4, 4);
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_write_png(&a, in_scratch(s, "no/such/dir/out.png"), &d), GS_EIO);
  assert_non_null(strstr(d.msg, "no/such/dir/out.png"));
  assert_non_null(strstr(d.msg, "No such file or directory"));
  char names[256];
  list_dir(s, names, sizeof names);
  assert_string_equal(names, "");
  gs_image_free(&a);
}

/* An unwritable directory: an error, no new file, the old target as it
 * was. Root writes anywhere, so there the check cannot fail and is skipped
 * (the size-limit test below covers the same path as root). */
static void png_write_unwritable_directory(void **state) {
  scratch *s = *state;
  if (geteuid() == 0) skip();
  write_text(in_scratch(s, "keep.png"), "old contents");
  assert_int_equal(chmod(s->dir, 0500), 0);
  gs_image a;
  make_pattern(&a, 4, 4);
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_write_png(&a, in_scratch(s, "keep.png"), &d), GS_EIO);
  assert_non_null(strstr(d.msg, "keep.png"));
  assert_non_null(strstr(d.msg, "Permission denied"));
  assert_int_equal(chmod(s->dir, 0700), 0);
  assert_file_text(in_scratch(s, "keep.png"), "old contents");
  char names[256];
  list_dir(s, names, sizeof names);
  assert_string_equal(names, "keep.png\n");
  gs_image_free(&a);
}

/* A write that fails half way (the file size limit stops it, even for
 * root): an error naming the path and the reason, no temporary file left,
 * the old target untouched. */
static void png_write_fails_midway(void **state) {
  scratch *s = *state;
  write_text(in_scratch(s, "keep.png"), "old contents");
  gs_image a;
  make_pattern(&a, 64, 64);
  struct rlimit old_limit, limit;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  limit = old_limit;
  limit.rlim_cur = 40;  /* the PNG signature and header fit, the pixels do not */
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
  gs_diag d;
  gs_diag_clear(&d);
  int rc = gs_image_write_png(&a, s->path, &d);
  setrlimit(RLIMIT_FSIZE, &old_limit);
  signal(SIGXFSZ, old_handler);
  assert_int_equal(rc, GS_EIO);
  assert_non_null(strstr(d.msg, "keep.png"));
  assert_non_null(strstr(d.msg, "File too large"));
  assert_file_text(s->path, "old contents");
  char names[256];
  list_dir(s, names, sizeof names);
  assert_string_equal(names, "keep.png\n");
  gs_image_free(&a);
}

/* The rename itself fails (the target is a directory): the temporary file
 * is removed and the directory is left alone. */
static void png_write_rename_fails(void **state) {
  scratch *s = *state;
  assert_int_equal(mkdir(in_scratch(s, "dir.png"), 0700), 0);
  write_text(in_scratch(s, "dir.png/inside"), "x");
  gs_image a;
  make_pattern(&a, 4, 4);
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_write_png(&a, in_scratch(s, "dir.png"), &d), GS_EIO);
  assert_non_null(strstr(d.msg, "dir.png"));
  char names[256];
  list_dir(s, names, sizeof names);
  assert_string_equal(names, "dir.png\n");
  assert_file_text(in_scratch(s, "dir.png/inside"), "x");
  unlink(s->path);  /* the teardown removes one level only */
  gs_image_free(&a);
}

static void png_write_empty_image(void **state) {
  scratch *s = *state;
  gs_image empty = {0, 0, 0, NULL};
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_write_png(&empty, in_scratch(s, "e.png"), &d), GS_EARG);
  assert_non_null(strstr(d.msg, "e.png"));
  assert_int_equal(access(s->path, F_OK), -1);
}

static void png_read_errors(void **state) {
  scratch *s = *state;
  gs_image img;
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_read_png(&img, in_scratch(s, "none.png"), &d), GS_EIO);
  assert_non_null(strstr(d.msg, "none.png"));
  assert_non_null(strstr(d.msg, "No such file or directory"));
  assert_null(img.pixels);
  write_text(in_scratch(s, "text.png"), "this is not an image at all");
  gs_diag_clear(&d);
  assert_int_equal(gs_image_read_png(&img, s->path, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "text.png"));
  assert_null(img.pixels);
}

/* stb_image also reads binary PPM: grey and RGB sources come back with
 * alpha 255. */
static void read_ppm_gets_opaque_alpha(void **state) {
  scratch *s = *state;
  FILE *f = fopen(in_scratch(s, "a.ppm"), "wb");
  assert_non_null(f);
  fputs("P6\n2 1\n255\n", f);
  fwrite("\xff\x00\x00\x00\x80\xff", 1, 6, f);
  fclose(f);
  gs_image img;
  assert_int_equal(gs_image_read_png(&img, s->path, NULL), GS_OK);
  assert_int_equal(img.width, 2);
  assert_int_equal(img.height, 1);
  assert_memory_equal(gs_image_pixel(&img, 0, 0), "\xff\x00\x00\xff\x00\x80\xff\xff", 8);
  gs_image_free(&img);
}

/* ---- row order ------------------------------------------------------------ */

static void flip_rows_odd_and_even(void **state) {
  (void)state;
  for (int h = 1; h <= 4; h++) {
    gs_image img, orig;
    make_pattern(&img, 3, h);
    make_pattern(&orig, 3, h);
    gs_image_flip_rows(&img);
    for (int y = 0; y < h; y++)
      assert_memory_equal(gs_image_pixel(&img, 0, y), gs_image_pixel(&orig, 0, h - 1 - y), 12);
    gs_image_flip_rows(&img);
    assert_same_pixels(&img, &orig);
    gs_image_free(&img);
    gs_image_free(&orig);
  }
}

/* A y-up frame buffer (memory row 0 = bottom) with padded rows comes out
 * upright: its last memory row is the image's top row. */
static void from_framebuffer_turns_upright(void **state) {
  (void)state;
  enum { W = 2, H = 3, PITCH = 12 };
  uint8_t fb[H * PITCH];
  memset(fb, 0xAA, sizeof fb);
  for (int row = 0; row < H; row++)
    for (int x = 0; x < W; x++) memset(fb + row * PITCH + x * 4, 10 * row + x, 4);
  gs_image img;
  assert_int_equal(gs_image_from_framebuffer(&img, fb, W, H, PITCH, NULL), GS_OK);
  assert_int_equal(img.stride, W * 4);
  assert_int_equal(gs_image_pixel(&img, 0, 0)[0], 20);  /* top = memory row 2 */
  assert_int_equal(gs_image_pixel(&img, 1, 0)[3], 21);
  assert_int_equal(gs_image_pixel(&img, 0, 2)[0], 0);   /* bottom = memory row 0 */
  assert_int_equal(gs_image_pixel(&img, 1, 1)[2], 11);
  gs_image_free(&img);
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_from_framebuffer(&img, fb, W, H, 4, &d), GS_EARG);
  assert_null(img.pixels);
}

static void alloc_rejects_bad_sizes(void **state) {
  (void)state;
  gs_image img;
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_alloc(&img, 0, 5, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "0x5"));
  assert_int_equal(gs_image_alloc(&img, 5, GS_IMAGE_MAX_SIDE + 1, NULL), GS_EARG);
  assert_null(img.pixels);
}

static void test_pattern_is_upright(void **state) {
  (void)state;
  gs_image img;
  assert_int_equal(gs_image_alloc(&img, 64, 32, NULL), GS_OK);
  gs_image_fill_test_pattern(&img);
  assert_memory_equal(gs_image_pixel(&img, 0, 0), "\xff\xff\xff\xff", 4);    /* white bar */
  assert_memory_equal(gs_image_pixel(&img, 63, 0), "\x00\x00\x00\xff", 4);   /* black bar */
  assert_memory_equal(gs_image_pixel(&img, 40, 15), "\xff\x00\x00\xff", 4);  /* red bar */
  assert_memory_equal(gs_image_pixel(&img, 0, 31), "\x00\x00\x00\xff", 4);   /* ramp: black */
  assert_memory_equal(gs_image_pixel(&img, 63, 16), "\xff\xff\xff\xff", 4);  /* ramp: white */
  gs_image_free(&img);
}

/* ---- comparison ----------------------------------------------------------- */

/* a: 4x3 of (10, 20, 30, 255). b: the same but for four pixels, in
 * row-major order (1,0) G+3, (2,1) R+200, (0,2) B+2 and (3,2) A-1. */
static void make_compare_pair(gs_image *a, gs_image *b) {
  make_flat(a, 4, 3, 10, 20, 30, 255);
  make_flat(b, 4, 3, 10, 20, 30, 255);
  gs_image_pixel(b, 1, 0)[1] = 23;
  gs_image_pixel(b, 2, 1)[0] = 210;
  gs_image_pixel(b, 3, 2)[3] = 254;
  gs_image_pixel(b, 0, 2)[2] = 32;
}

static void compare_identical(void **state) {
  (void)state;
  gs_image a, b;
  make_pattern(&a, 6, 4);
  make_pattern(&b, 6, 4);
  gs_image_diff r;
  assert_int_equal(gs_image_compare(&a, &b, 0, &r, NULL), 0);
  assert_int_equal(r.pixels, 24);
  assert_int_equal(r.differing, 0);
  assert_int_equal(r.nonzero, 0);
  assert_int_equal(r.max_diff, 0);
  assert_int_equal(r.max_x, -1);
  assert_int_equal(r.first_x, -1);
  assert_int_equal(r.first_y, -1);
  assert_true(r.mean_abs == 0.0);
  assert_true(isinf(r.psnr));
  gs_image_free(&a);
  gs_image_free(&b);
}

static void compare_counts_max_first(void **state) {
  (void)state;
  gs_image a, b;
  make_compare_pair(&a, &b);
  gs_image_diff r;
  assert_int_equal(gs_image_compare(&a, &b, 0, &r, NULL), 1);
  assert_int_equal(r.pixels, 12);
  assert_int_equal(r.differing, 4);
  assert_int_equal(r.nonzero, 4);
  assert_int_equal(r.max_diff, 200);
  assert_int_equal(r.max_x, 2);
  assert_int_equal(r.max_y, 1);
  assert_int_equal(r.first_x, 1);  /* row-major from the top: (1,0) comes first */
  assert_int_equal(r.first_y, 0);
  assert_memory_equal(r.first_a, "\x0a\x14\x1e\xff", 4);
  assert_memory_equal(r.first_b, "\x0a\x17\x1e\xff", 4);
  /* 3 + 200 + 1 + 2 over 48 channels; MSE (9 + 40000 + 1 + 4) / 48 */
  assert_true(fabs(r.mean_abs - 206.0 / 48.0) < 1e-12);
  assert_true(fabs(r.psnr - 10.0 * log10(65025.0 * 48.0 / 40014.0)) < 1e-9);
  gs_image_free(&a);
  gs_image_free(&b);
}

/* A difference of exactly the tolerance passes; one more fails. */
static void compare_tolerance_edges(void **state) {
  (void)state;
  gs_image a, b;
  make_compare_pair(&a, &b);
  gs_image_diff r;
  assert_int_equal(gs_image_compare(&a, &b, 1, &r, NULL), 1);
  assert_int_equal(r.differing, 3);  /* A-1 is within */
  assert_int_equal(r.first_x, 1);
  assert_int_equal(gs_image_compare(&a, &b, 2, &r, NULL), 1);
  assert_int_equal(r.differing, 2);  /* B+2 is within too */
  assert_int_equal(r.first_x, 1);
  assert_int_equal(r.first_y, 0);
  assert_int_equal(gs_image_compare(&a, &b, 3, &r, NULL), 1);
  assert_int_equal(r.differing, 1);  /* only R+200 */
  assert_int_equal(r.first_x, 2);
  assert_int_equal(r.first_y, 1);
  assert_memory_equal(r.first_a, "\x0a\x14\x1e\xff", 4);
  assert_memory_equal(r.first_b, "\xd2\x14\x1e\xff", 4);
  assert_int_equal(r.nonzero, 4);
  assert_int_equal(gs_image_compare(&a, &b, 199, &r, NULL), 1);
  assert_int_equal(r.differing, 1);
  assert_int_equal(gs_image_compare(&a, &b, 200, &r, NULL), 0);
  assert_int_equal(r.differing, 0);
  assert_int_equal(r.max_diff, 200);  /* reported even when within */
  assert_int_equal(r.first_x, -1);
  assert_int_equal(gs_image_compare(&a, &b, 255, &r, NULL), 0);
  /* a channel difference of 255 fails every tolerance but 255 */
  gs_image_free(&a);
  make_flat(&a, 1, 1, 0, 0, 0, 0);
  gs_image_free(&b);
  make_flat(&b, 1, 1, 0, 0, 0, 255);
  assert_int_equal(gs_image_compare(&a, &b, 254, &r, NULL), 1);
  assert_int_equal(r.max_diff, 255);
  assert_int_equal(gs_image_compare(&a, &b, 255, &r, NULL), 0);
  gs_image_free(&a);
  gs_image_free(&b);
}

static void compare_errors(void **state) {
  (void)state;
  gs_image a, b;
  make_flat(&a, 4, 3, 0, 0, 0, 255);
  make_flat(&b, 3, 4, 0, 0, 0, 255);
  gs_image_diff r;
  gs_diag d;
  gs_diag_clear(&d);
  assert_int_equal(gs_image_compare(&a, &b, 0, &r, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "4x3"));
  assert_non_null(strstr(d.msg, "3x4"));
  gs_image diff;
  assert_int_equal(gs_image_diff_render(&a, &b, 0, &diff, NULL), GS_EARG);
  assert_null(diff.pixels);
  assert_int_equal(gs_image_compare(&a, &a, -1, &r, NULL), GS_EARG);
  assert_int_equal(gs_image_compare(&a, &a, 256, &r, NULL), GS_EARG);
  gs_image_free(&a);
  gs_image_free(&b);
}

/* The diff image: red beyond the tolerance, yellow within, a third of a's
 * luma in grey elsewhere. */
static void diff_render_colours(void **state) {
  (void)state;
  gs_image a, b, diff;
  make_compare_pair(&a, &b);
  assert_int_equal(gs_image_diff_render(&a, &b, 2, &diff, NULL), GS_OK);
  assert_memory_equal(gs_image_pixel(&diff, 1, 0), "\xff\x00\x00\xff", 4);  /* G+3 > 2 */
  assert_memory_equal(gs_image_pixel(&diff, 2, 1), "\xff\x00\x00\xff", 4);  /* R+200 */
  assert_memory_equal(gs_image_pixel(&diff, 3, 2), "\xff\xe6\x00\xff", 4);  /* A-1 within */
  assert_memory_equal(gs_image_pixel(&diff, 0, 2), "\xff\xe6\x00\xff", 4);  /* B+2 within */
  /* luma of (10, 20, 30) = (2990 + 11740 + 3420) / 1000 = 18; a third: 6 */
  assert_memory_equal(gs_image_pixel(&diff, 0, 0), "\x06\x06\x06\xff", 4);
  gs_image_free(&a);
  gs_image_free(&b);
  gs_image_free(&diff);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(png_round_trip, scratch_setup, scratch_teardown),
    cmocka_unit_test_setup_teardown(png_round_trip_padded_stride, scratch_setup, scratch_teardown),
    cmocka_unit_test_setup_teardown(png_write_replaces_existing, scratch_setup, scratch_teardown),
    cmocka_unit_test_setup_teardown(png_write_missing_directory, scratch_setup, scratch_teardown),
    cmocka_unit_test_setup_teardown(png_write_unwritable_directory, scratch_setup,
                                    scratch_teardown),
    cmocka_unit_test_setup_teardown(png_write_fails_midway, scratch_setup, scratch_teardown),
    cmocka_unit_test_setup_teardown(png_write_rename_fails, scratch_setup, scratch_teardown),
    cmocka_unit_test_setup_teardown(png_write_empty_image, scratch_setup, scratch_teardown),
    cmocka_unit_test_setup_teardown(png_read_errors, scratch_setup, scratch_teardown),
    cmocka_unit_test_setup_teardown(read_ppm_gets_opaque_alpha, scratch_setup, scratch_teardown),
    cmocka_unit_test(flip_rows_odd_and_even),
    cmocka_unit_test(from_framebuffer_turns_upright),
    cmocka_unit_test(alloc_rejects_bad_sizes),
    cmocka_unit_test(test_pattern_is_upright),
    cmocka_unit_test(compare_identical),
    cmocka_unit_test(compare_counts_max_first),
    cmocka_unit_test(compare_tolerance_edges),
    cmocka_unit_test(compare_errors),
    cmocka_unit_test(diff_render_colours),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
