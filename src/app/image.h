/* image.h — RGBA8 images in host memory: PNG files, row order, comparison.
 *
 * A gs_image holds width × height pixels of four bytes, R G B A, each row
 * `stride` bytes after the previous one. Row 0 is the TOP row, as in a PNG
 * file, an SDL texture and every image viewer.
 *
 * Row order. gpusim's frame buffers are y-up, as on the VideoCore IV
 * (RG §11): the first row in memory is y = 0, the BOTTOM row
 * of the picture. Shown or saved as they lie in memory they would appear
 * upside down. gs_image_from_framebuffer copies a frame buffer into a
 * gs_image turning it upright (its last memory row becomes row 0), and
 * gs_image_flip_rows turns an image over in place. Code that shows a frame
 * buffer without copying it can give gs_window_present the address of its
 * last row and a negative stride (window.h).
 *
 * Files. gs_image_write_png encodes with stb_image_write in memory and
 * writes through gs_cli_write_file (app.h): "-" is standard output (never a
 * terminal); a new or regular file is written whole or not at all (a
 * temporary file beside it, synced, renamed over it); a device, FIFO or
 * socket is written in place; a symbolic link's target is written and the
 * link stays.
 * gs_image_read_png reads through stb_image, which also decodes the other
 * formats it knows (binary PNM, BMP, TGA, JPEG); every image comes back as
 * RGBA8, grey and RGB sources with alpha 255.
 *
 * Comparison (diff.c). gs_image_compare takes the per-channel absolute
 * difference of two images of the same size: a pixel differs when any of
 * its four channels differs by more than the tolerance. It reports how many
 * pixels differ, the largest channel difference and where, and the first
 * differing pixel (in row-major order from the top-left corner) with both
 * values. gs_image_diff_render draws the differences as an image.
 *
 * Errors: every call that can fail returns GS_OK or a negative GS_E* code
 * and, when d is not NULL, a message in d that names the file or the call
 * and the reason ("cannot write out.png: Permission denied").
 */
#ifndef GS_APP_IMAGE_H
#define GS_APP_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "gpusim/diag.h"

/* Largest width or height accepted, so that byte counts fit in an int for
 * stb and sizes stay sane (the VideoCore IV renders at most 4096 wide). */
#define GS_IMAGE_MAX_SIDE 16384

typedef struct gs_image {
  int width, height;  /* pixels; 0 × 0 for an empty image */
  size_t stride;      /* bytes from one row to the next, >= 4 * width */
  uint8_t *pixels;    /* row 0 is the top row; owned (free with gs_image_free) */
} gs_image;

/* Makes img a new width × height image, every byte 0, with stride
 * 4 * width. Sides must be 1..GS_IMAGE_MAX_SIDE. On failure img is left
 * empty. Returns GS_OK, GS_EARG or GS_ENOMEM. */
int gs_image_alloc(gs_image *img, int width, int height, gs_diag *d);

/* Frees img's pixels and leaves it empty; img may be empty already. */
void gs_image_free(gs_image *img);

/* The address of pixel (x, y), y counted from the top row. */
static inline uint8_t *gs_image_pixel(const gs_image *img, int x, int y) {
  return img->pixels + (size_t)y * img->stride + (size_t)x * 4;
}

/* Reverses the order of img's rows in place: a y-up picture becomes
 * upright and back. */
void gs_image_flip_rows(gs_image *img);

/* Fills img with a test card, upright: eight colour bars (white, yellow,
 * cyan, green, magenta, red, blue, black from left to right) in the top
 * half, a grey ramp from black on the left to white on the right in the
 * bottom half; alpha 255. Shown upside down it is plainly wrong. */
void gs_image_fill_test_pattern(gs_image *img);

/* Makes img an upright copy of a y-up RGBA8 frame buffer: `rows` points at
 * its memory row 0 (the bottom row of the picture), each row `stride` bytes
 * after the previous one. Returns GS_OK, GS_EARG or GS_ENOMEM. */
int gs_image_from_framebuffer(gs_image *img, const void *rows, int width, int height,
                              size_t stride, gs_diag *d);

/* Writes img to path as an 8-bit RGBA PNG, whole or not at all (see the
 * top of this file). Returns GS_OK, GS_EARG (empty image), GS_ENOMEM or
 * GS_EIO; the message names path and the reason. */
int gs_image_write_png(const gs_image *img, const char *path, gs_diag *d);

/* Encodes img as an 8-bit RGBA PNG into a malloc'ed buffer (*png, *len;
 * free it). Returns GS_OK, GS_EARG (empty image) or GS_ENOMEM. */
int gs_image_encode_png(const gs_image *img, unsigned char **png, size_t *len, gs_diag *d);

/* Reads the image file at path into img (which must be empty or freed) as
 * RGBA8. Returns GS_OK, GS_EIO (cannot open or read), GS_EINVAL (not an
 * image stb_image decodes, or larger than GS_IMAGE_MAX_SIDE) or GS_ENOMEM;
 * the message names path and the reason. */
int gs_image_read_png(gs_image *img, const char *path, gs_diag *d);

/* ---- comparison (diff.c) -------------------------------------------------- */

typedef struct gs_image_diff {
  uint64_t pixels;        /* pixels compared: width × height */
  uint64_t differing;     /* pixels with a channel differing by more than the tolerance */
  uint64_t nonzero;       /* pixels with any difference at all, even within the tolerance */
  int max_diff;           /* largest channel difference over the image, 0..255 */
  int max_x, max_y;       /* the first pixel where max_diff occurs; -1, -1 if max_diff == 0 */
  int first_x, first_y;   /* the first differing pixel; -1, -1 if differing == 0 */
  uint8_t first_a[4];     /* its RGBA value in a */
  uint8_t first_b[4];     /* its RGBA value in b */
  double mean_abs;        /* mean absolute channel difference over all channels */
  double psnr;            /* peak signal-to-noise ratio in dB; INFINITY when equal */
} gs_image_diff;

/* Compares a with b channel by channel under `tolerance` (0..255) and fills
 * *out. Returns 0 when no pixel differs by more than the tolerance, 1 when
 * some do, GS_EARG when the sizes differ or the tolerance is out of range
 * (the message gives both sizes). */
int gs_image_compare(const gs_image *a, const gs_image *b, int tolerance, gs_image_diff *out,
                     gs_diag *d);

/* Makes diff (empty on entry) an image of the differences between a and b,
 * which must have the same size: a dimmed grey copy of a, with pixels that
 * differ by more than the tolerance in bright red and pixels that differ
 * by at most the tolerance (but not zero) in yellow. Returns GS_OK,
 * GS_EARG (sizes differ) or GS_ENOMEM. */
int gs_image_diff_render(const gs_image *a, const gs_image *b, int tolerance, gs_image *diff,
                         gs_diag *d);

/* gs_image_diff_render, then gs_image_write_png of the result to path
 * (whole or not at all). Returns GS_OK or the first error, with its
 * message in d. */
int gs_image_diff_write_png(const gs_image *a, const gs_image *b, int tolerance, const char *path,
                            gs_diag *d);

/* Prints the comparison r of images named name_a and name_b (made under
 * `tolerance`) to out as `gpusim diff` reports it, four lines each starting
 * with indent: the differing pixels (count, of how many, percentage), the
 * largest channel difference and where, the first differing pixel with
 * both values, the mean absolute difference and the PSNR. */
void gs_image_diff_print(FILE *out, const char *indent, const char *name_a, const char *name_b,
                         int tolerance, const gs_image_diff *r);

#endif
