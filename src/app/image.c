/* image.c — RGBA8 images in host memory, PNG files written whole or not at
 * all, and the turn from gpusim's y-up frame buffers to upright images
 * (see image.h).
 *
 * stb comes from Debian's libstb, which already contains the implementation:
 * this file only includes the headers (no STB_*_IMPLEMENTATION).
 */
#include "app/image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "stb_image.h"
#include "stb_image_write.h"

/* ---- memory --------------------------------------------------------------- */

int gs_image_alloc(gs_image *img, int width, int height, gs_diag *d) {
  memset(img, 0, sizeof *img);
  if (width < 1 || height < 1 || width > GS_IMAGE_MAX_SIDE || height > GS_IMAGE_MAX_SIDE)
    return gs_diag_set(d, GS_EARG, "image size %dx%d: each side must be 1..%d", width, height,
                       GS_IMAGE_MAX_SIDE);
  size_t stride = (size_t)width * 4;
  uint8_t *pixels = calloc((size_t)height, stride);
  if (!pixels)
    return gs_diag_set(d, GS_ENOMEM, "image %dx%d: out of memory", width, height);
  img->width = width;
  img->height = height;
  img->stride = stride;
  img->pixels = pixels;
  return GS_OK;
}

void gs_image_free(gs_image *img) {
  free(img->pixels);
  memset(img, 0, sizeof *img);
}

void gs_image_flip_rows(gs_image *img) {
  size_t row_bytes = (size_t)img->width * 4;
  for (int top = 0, bottom = img->height - 1; top < bottom; top++, bottom--) {
    uint8_t *a = gs_image_pixel(img, 0, top), *b = gs_image_pixel(img, 0, bottom);
    for (size_t i = 0; i < row_bytes; i++) {
      uint8_t t = a[i];
      a[i] = b[i];
      b[i] = t;
    }
  }
}

void gs_image_fill_test_pattern(gs_image *img) {
  static const uint8_t bars[8][3] = {{255, 255, 255}, {255, 255, 0}, {0, 255, 255}, {0, 255, 0},
                                     {255, 0, 255},   {255, 0, 0},   {0, 0, 255},   {0, 0, 0}};
  int w = img->width, h = img->height;
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      uint8_t *p = gs_image_pixel(img, x, y);
      if (y < h / 2) {
        memcpy(p, bars[(int64_t)x * 8 / w], 3);
      } else {
        uint8_t grey = (uint8_t)(w > 1 ? (int64_t)x * 255 / (w - 1) : 255);
        p[0] = p[1] = p[2] = grey;
      }
      p[3] = 255;
    }
  }
}

int gs_image_from_framebuffer(gs_image *img, const void *rows, int width, int height,
                              size_t stride, gs_diag *d) {
  if (stride < (size_t)width * 4) {
    memset(img, 0, sizeof *img);
    return gs_diag_set(d, GS_EARG, "frame buffer %dx%d: stride %zu is less than 4 x width",
                       width, height, stride);
  }
  int rc = gs_image_alloc(img, width, height, d);
  if (rc != GS_OK) return rc;
  const uint8_t *src = rows;
  for (int y = 0; y < height; y++)
    memcpy(gs_image_pixel(img, 0, height - 1 - y), src + (size_t)y * stride, (size_t)width * 4);
  return GS_OK;
}

/* ---- writing -------------------------------------------------------------- */

/* Where stb's encoder sends the PNG bytes: a file, and the first write
 * error (stbi_write_png itself ignores fwrite's result, so a full disk would
 * pass for success; that is why the bytes come through this callback). */
typedef struct png_sink {
  FILE *file;
  int error;  /* errno of the first failed write, 0 if none */
} png_sink;

static void png_sink_write(void *context, void *data, int size) {
  png_sink *sink = context;
  if (sink->error || size <= 0) return;
  if (fwrite(data, 1, (size_t)size, sink->file) != (size_t)size) sink->error = errno ? errno : EIO;
}

/* Creates a new file beside path with a name no other file has
 * (path.tmp-PID-N), opened for writing with mode 0666 less the umask, as
 * fopen would give. Returns its descriptor and the name in *tmp (malloc'ed),
 * or -1 with errno set. O_EXCL makes sure no existing file is reused. */
static int create_temp_beside(const char *path, char **tmp) {
  size_t size = strlen(path) + 64;
  char *name = malloc(size);
  if (!name) return -1;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  for (int attempt = 0; attempt < 100; attempt++) {
    snprintf(name, size, "%s.tmp-%ld-%ld", path, (long)getpid(),
             (long)(now.tv_nsec % 1000000000L) + attempt);
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0) {
      *tmp = name;
      return fd;
    }
    if (errno != EEXIST) break;
  }
  int err = errno;
  free(name);
  errno = err;
  return -1;
}

/* Encodes img as PNG into the open file f, then flushes and syncs it.
 * Returns 0, or an errno value. */
static int encode_png_to(const gs_image *img, FILE *f) {
  png_sink sink = {f, 0};
  if (!stbi_write_png_to_func(png_sink_write, &sink, img->width, img->height, 4, img->pixels,
                              (int)img->stride))
    return sink.error ? sink.error : ENOMEM;  /* the encoder only fails to allocate */
  if (sink.error) return sink.error;
  if (fflush(f) != 0) return errno ? errno : EIO;
  if (fsync(fileno(f)) != 0) return errno ? errno : EIO;
  return 0;
}

int gs_image_write_png(const gs_image *img, const char *path, gs_diag *d) {
  if (!img->pixels || img->width < 1 || img->height < 1)
    return gs_diag_set(d, GS_EARG, "cannot write %s: the image is empty", path);
  if (img->stride < (size_t)img->width * 4 || img->stride > (size_t)GS_IMAGE_MAX_SIDE * 4)
    return gs_diag_set(d, GS_EARG, "cannot write %s: bad row stride %zu", path, img->stride);
  char *tmp = NULL;
  int fd = create_temp_beside(path, &tmp);
  if (fd < 0) return gs_diag_set(d, GS_EIO, "cannot write %s: %s", path, strerror(errno));
  FILE *f = fdopen(fd, "wb");
  int err = f ? encode_png_to(img, f) : errno;
  if (f) {
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
  } else {
    close(fd);
  }
  if (!err && rename(tmp, path) != 0) err = errno;
  if (err) unlink(tmp);
  free(tmp);
  if (err == ENOMEM) return gs_diag_set(d, GS_ENOMEM, "cannot write %s: out of memory", path);
  if (err) return gs_diag_set(d, GS_EIO, "cannot write %s: %s", path, strerror(err));
  return GS_OK;
}

/* ---- reading -------------------------------------------------------------- */

int gs_image_read_png(gs_image *img, const char *path, gs_diag *d) {
  memset(img, 0, sizeof *img);
  FILE *f = fopen(path, "rb");
  if (!f) return gs_diag_set(d, GS_EIO, "cannot read %s: %s", path, strerror(errno));
  int width = 0, height = 0, channels = 0;
  uint8_t *data = stbi_load_from_file(f, &width, &height, &channels, 4);
  int read_error = ferror(f);
  fclose(f);
  if (!data) {
    if (read_error) return gs_diag_set(d, GS_EIO, "cannot read %s: read error", path);
    const char *why = stbi_failure_reason();
    return gs_diag_set(d, GS_EINVAL, "cannot read %s: not an image stb_image decodes (%s)", path,
                       why ? why : "unknown reason");
  }
  int rc = gs_image_alloc(img, width, height, d);
  if (rc == GS_OK) {
    memcpy(img->pixels, data, img->stride * (size_t)height);
  } else if (rc == GS_EARG) {
    rc = gs_diag_set(d, GS_EINVAL, "cannot read %s: %dx%d is larger than %dx%d", path, width,
                     height, GS_IMAGE_MAX_SIDE, GS_IMAGE_MAX_SIDE);
  } else {
    rc = gs_diag_set(d, rc, "cannot read %s: out of memory", path);
  }
  stbi_image_free(data);
  return rc;
}
