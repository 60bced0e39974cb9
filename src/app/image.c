/* image.c — RGBA8 images in host memory, PNG files written whole or not at
 * all, and the turn from gpusim's y-up frame buffers to upright images
 * (see image.h).
 *
 * stb comes from Debian's libstb, which already contains the implementation:
 * this file only includes the headers (no STB_*_IMPLEMENTATION).
 */
#include "app/image.h"
#include "app/app.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* Where stb's encoder sends the PNG bytes: a growing buffer, so that the
 * file is written in one piece by gs_cli_write_file (stbi_write_png itself
 * would ignore fwrite's result, and a full disk would pass for success). */
typedef struct png_sink {
  unsigned char *data;
  size_t len, cap;
  int error;  /* set when the buffer could not grow */
} png_sink;

static void png_sink_write(void *context, void *data, int size) {
  png_sink *sink = context;
  if (sink->error || size <= 0) return;
  if ((size_t)size > sink->cap - sink->len) {
    size_t cap = sink->cap ? sink->cap : 65536;
    while ((size_t)size > cap - sink->len) cap *= 2;
    unsigned char *p = realloc(sink->data, cap);
    if (!p) {
      sink->error = 1;
      return;
    }
    sink->data = p;
    sink->cap = cap;
  }
  memcpy(sink->data + sink->len, data, (size_t)size);
  sink->len += (size_t)size;
}

/* Encodes img as PNG into a malloc'ed buffer (*png, *len). Returns 0, or an
 * errno value. */
static int encode_png(const gs_image *img, unsigned char **png, size_t *len) {
  png_sink sink = {NULL, 0, 0, 0};
  if (!stbi_write_png_to_func(png_sink_write, &sink, img->width, img->height, 4, img->pixels,
                              (int)img->stride) || sink.error) {
    free(sink.data);
    return ENOMEM;  /* the encoder and the sink only fail to allocate */
  }
  *png = sink.data;
  *len = sink.len;
  return 0;
}

int gs_image_encode_png(const gs_image *img, unsigned char **png, size_t *len, gs_diag *d) {
  if (!img->pixels || img->width < 1 || img->height < 1) return gs_diag_set(d, GS_EARG, "PNG: the image is empty");
  if (encode_png(img, png, len)) return gs_diag_set(d, GS_ENOMEM, "PNG: out of memory");
  return GS_OK;
}

int gs_image_write_png(const gs_image *img, const char *path, gs_diag *d) {
  const char *name = strcmp(path, "-") == 0 ? "<stdout>" : path;
  if (!img->pixels || img->width < 1 || img->height < 1)
    return gs_diag_set(d, GS_EARG, "cannot write %s: the image is empty", name);
  if (img->stride < (size_t)img->width * 4 || img->stride > (size_t)GS_IMAGE_MAX_SIDE * 4)
    return gs_diag_set(d, GS_EARG, "cannot write %s: bad row stride %zu", name, img->stride);
  if (strcmp(path, "-") == 0 && isatty(STDOUT_FILENO))
    return gs_diag_set(d, GS_EARG,
                       "not writing a PNG image to a terminal (redirect standard output, or "
                       "give a file name instead of -)");
  unsigned char *png = NULL;
  size_t len = 0;
  int err = encode_png(img, &png, &len);
  if (!err && gs_cli_write_file(path, png, len) != 0) err = errno ? errno : EIO;
  free(png);
  if (err == ENOMEM) return gs_diag_set(d, GS_ENOMEM, "cannot write %s: out of memory", name);
  if (err) return gs_diag_set(d, GS_EIO, "cannot write %s: %s", name, strerror(err));
  return GS_OK;
}

/* ---- reading -------------------------------------------------------------- */

/* The tables and components of a JPEG as stb_image 2.27 sees them while
 * it reads the file. stb does not clear its decoder: a table no segment
 * defined before a scan that uses it is whatever the heap held (a DC
 * coefficient times such a quantisation value overflowed, UBSan in
 * stbi__jpeg_decode_block, found by tests/fuzz/fuzz_image), and a
 * component no scan covers comes out as uninitialised pixels. T.81 asks
 * for neither: a table must be installed by the time a scan using it is
 * decoded (ITU-T T.81, B.2.2, Tq; B.2.4.1-B.2.4.2), and every component is
 * coded in some scan (progressive: its DC first, G.1.1.1.1). */
typedef struct jpeg_tables {
  unsigned quant, dc, ac;   /* bit k: table k defined */
  unsigned scanned;         /* bit k: frame component k in a scan */
  int ncomp, progressive;   /* from the first SOF0-SOF2; 0 before it */
  uint8_t id[4], tq[4];
} jpeg_tables;

/* Returns 1 if the Define Huffman Table segment whose marker (FF C4) is at
 * p[at] holds a table of too many codes or a value no 8-bit JPEG has, read
 * as stb reads it: after the length, tables of a class/id byte (class
 * 0..1, id 0..3, else stb stops), 16 counts and that many values; bytes
 * past the end read as 0 (ITU-T T.81, B.2.4.2). stb builds a table before
 * it checks that its 16 code counts add up to at most 256, and writes past
 * the table's array when they do not (found by tests/fuzz/fuzz_image).
 * Marks the tables it defines in t. */
static int jpeg_dht_too_long(const uint8_t *p, size_t n, size_t at, jpeg_tables *t) {
  if (at + 4 > n) return 0;
  long left = ((long)p[at + 2] << 8 | p[at + 3]) - 2;
  size_t i = at + 4;
  while (left > 0 && i < n) {
    uint8_t q = p[i++];
    if (q >> 4 > 1 || (q & 15) > 3) return 0;
    long codes = 0;
    for (int k = 0; k < 16; k++, i++) codes += i < n ? p[i] : 0;
    if (codes > 256) return 1;
    /* The values are magnitude categories: for 8-bit samples (all stb
     * reads) at most 11 for a DC table and a low nibble of at most 10 for
     * an AC one (T.81, F.1.2.1 and F.1.2.2). A larger one makes stb take
     * more bits than its bit buffer holds and shift by a negative count
     * (UBSan in stbi__grow_buffer_unsafe, found by fuzz_image). */
    for (long k = 0; k < codes && i + (size_t)k < n; k++) {
      uint8_t v = p[i + (size_t)k];
      if (q >> 4 == 0 ? v > 11 : (v & 15) > 10) return 1;
    }
    *(q >> 4 ? &t->ac : &t->dc) |= 1u << (q & 15);
    i += (size_t)codes;
    left -= 17 + codes;
  }
  return 0;
}

/* The tables a Define Quantization Table segment at p[at] defines, as stb
 * reads it (a precision/id byte, precision 0..1 and id 0..3 or stb stops,
 * then 64 values of 1 or 2 bytes; T.81, B.2.4.1). */
static void jpeg_dqt(const uint8_t *p, size_t n, size_t at, jpeg_tables *t) {
  if (at + 4 > n) return;
  long left = ((long)p[at + 2] << 8 | p[at + 3]) - 2;
  for (size_t i = at + 4; left > 0 && i < n;) {
    uint8_t q = p[i++];
    if (q >> 4 > 1 || (q & 15) > 3) return;
    t->quant |= 1u << (q & 15);
    i += q >> 4 ? 128 : 64;
    left -= q >> 4 ? 129 : 65;
  }
}

/* The components of the frame header (SOF0-SOF2, the ones stb reads) at
 * p[at]: id and quantisation table each (T.81, B.2.2). stb reads the
 * first one only. */
static void jpeg_frame(const uint8_t *p, size_t n, size_t at, jpeg_tables *t) {
  if (t->ncomp || at + 10 > n || p[at + 9] < 1 || p[at + 9] > 4 || at + 10 + 3 * (size_t)p[at + 9] > n) return;
  for (int k = 0; k < p[at + 9]; k++) {
    t->id[k] = p[at + 10 + 3 * k];
    t->tq[k] = p[at + 12 + 3 * k] & 3;
  }
  t->ncomp = p[at + 9];
  t->progressive = p[at + 1] == 0xC2;
}

/* 1 if the scan header (SOS) at p[at] has a component whose tables were
 * not defined before it: its quantisation table, the DC table where the
 * scan codes DC (baseline: always; progressive: a first DC scan) and the
 * AC table where it codes AC (T.81, B.2.3). Marks its components scanned. */
static int jpeg_scan_undefined(const uint8_t *p, size_t n, size_t at, jpeg_tables *t) {
  if (!t->ncomp || at + 5 > n) return 0;
  size_t ns = p[at + 4], sel = at + 5, ss = sel + 2 * ns;
  if (ns < 1 || ns > 4 || ss + 3 > n) return 0;
  int dc = !t->progressive || (p[ss] == 0 && p[ss + 2] >> 4 == 0);
  int ac = !t->progressive || p[ss] > 0;
  for (size_t j = 0; j < ns; j++)
    for (int k = 0; k < t->ncomp; k++) {
      if (t->id[k] != p[sel + 2 * j]) continue;
      unsigned td = p[sel + 2 * j + 1] >> 4, ta = p[sel + 2 * j + 1] & 15;
      if (!(t->quant >> t->tq[k] & 1) || (dc && td < 4 && !(t->dc >> td & 1)) || (ac && ta < 4 && !(t->ac >> ta & 1)))
        return 1;
      if (dc) t->scanned |= 1u << k;
      break;
    }
  return 0;
}

/* Why stb_image 2.27 must not read p as a JPEG, or NULL: after SOI (FF D8,
 * after any number of FF fill bytes, as stb accepts it), the segments
 * before the first scan are walked by their lengths, as stb reads them (an
 * application segment may hold any bytes); from the first scan on, every
 * FF C4, FF DB and FF DA pair counts, since stb may find a marker anywhere
 * in or after entropy-coded data, until an EOI (FF D9), where stb stops. */
static const char *jpeg_unsafe_for_stb(const uint8_t *p, size_t n) {
  static const char undefined[] = "JPEG scan uses a table not defined before it";
  size_t i = 0;
  while (i < n && p[i] == 0xFF) i++; /* stb skips fill bytes before SOI too */
  if (i == 0 || i >= n || p[i] != 0xD8) return NULL;
  jpeg_tables t = {0};
  int in_scans = 0;
  for (i++; i + 1 < n;) {
    uint8_t m = p[i + 1];
    if (p[i] != 0xFF) {
      i++;
      continue;
    }
    if (m == 0xC4 && jpeg_dht_too_long(p, n, i, &t)) return "corrupt JPEG Huffman table";
    if (m == 0xDB) jpeg_dqt(p, n, i, &t);
    if (m >= 0xC0 && m <= 0xC2) jpeg_frame(p, n, i, &t);
    if (m == 0xDA && jpeg_scan_undefined(p, n, i, &t)) return undefined;
    if (m == 0xD9) break;
    if (in_scans || m == 0xFF || m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD8)) {
      i++; /* fill byte, or a marker without a length */
    } else {
      if (i + 3 >= n) break;
      in_scans = m == 0xDA;
      i += 2 + ((size_t)p[i + 2] << 8 | p[i + 3]);
    }
  }
  if (in_scans && t.scanned != (1u << t.ncomp) - 1) return "JPEG component in no scan";
  return NULL;
}

/* A binary PGM or PPM (P5, P6) header as stb_image 2.27 reads it: three
 * numbers after the magic, each after white space and #-comments, and one
 * character after the last. Returns 0 if p is not one, else 1 with the
 * numbers in v (each stopped at 10^9) and *end at the first sample byte;
 * *overflow is set when a number reaches a value whose next digit
 * overflows stb's int (UBSan, found by tests/fuzz/fuzz_image). */
static int pnm_header(const uint8_t *p, size_t n, uint64_t v[3], size_t *end, int *overflow) {
  if (n < 2 || p[0] != 'P' || (p[1] != '5' && p[1] != '6')) return 0;
  size_t i = 2;
  *overflow = 0;
  for (int k = 0; k < 3; k++) {
    for (;;) {
      while (i < n && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r'))) i++;
      if (i >= n || p[i] != '#') break;
      while (i < n && p[i] != '\n' && p[i] != '\r') i++;
    }
    for (v[k] = 0; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
      if (v[k] > (INT_MAX - 9) / 10) *overflow = 1;
      if (v[k] < 1000000000) v[k] = v[k] * 10 + (uint64_t)(p[i] - '0');
    }
  }
  *end = i < n ? i + 1 : n;
  return 1;
}

/* stb_image 2.27 does not check that a binary PGM or PPM holds all its
 * samples: it returns the pixels the file lacks as uninitialised memory
 * (found by tests/fuzz/fuzz_image). 1 if p is such a file with fewer bytes
 * than samples x bytes per sample after its header. */
static int pnm_truncated(const uint8_t *p, size_t n, int width, int height, int channels) {
  uint64_t v[3];
  size_t end;
  int overflow;
  if (!pnm_header(p, n, v, &end, &overflow)) return 0;
  uint64_t need = (uint64_t)width * (uint64_t)height * (uint64_t)channels * (v[2] > 255 ? 2 : 1);
  return (uint64_t)(n - end) < need;
}

/* stb_image 2.27 adds an empty IDAT chunk's offset to its data pointer
 * while that is still NULL, which C leaves undefined (UBSan, found by
 * tests/fuzz/fuzz_image). An empty IDAT adds nothing to the image, so a
 * PNG's empty IDAT chunks are dropped from p[0 .. *n) in place before stb
 * reads it (each chunk: length, type, data, CRC; PNG specification 5.3). */
static void png_drop_empty_idat(uint8_t *p, size_t *n) {
  static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (*n < 8 || memcmp(p, sig, 8) != 0) return;
  size_t i = 8;
  while (i + 12 <= *n) {
    uint64_t len = (uint64_t)p[i] << 24 | (uint64_t)p[i + 1] << 16 | (uint64_t)p[i + 2] << 8 | p[i + 3];
    if (len == 0 && memcmp(p + i + 4, "IDAT", 4) == 0) {
      memmove(p + i, p + i + 12, *n - i - 12);
      *n -= 12;
    } else if (len > *n - i - 12) {
      return;
    } else {
      i += 12 + (size_t)len;
    }
  }
}

int gs_image_read_png(gs_image *img, const char *path, gs_diag *d) {
  memset(img, 0, sizeof *img);
  char *bytes;
  size_t len;
  /* "-" is a file of that name here, not standard input */
  if (gs_cli_read_file(strcmp(path, "-") == 0 ? "./-" : path, &bytes, &len) < 0)
    return gs_diag_set(d, GS_EIO, "cannot read %s: %s", path, strerror(errno));
  const char *unsafe = len > INT_MAX ? "file too large" : jpeg_unsafe_for_stb((const uint8_t *)bytes, len);
  if (unsafe) {
    free(bytes);
    return gs_diag_set(d, GS_EINVAL, "cannot read %s: not an image stb_image decodes (%s)", path, unsafe);
  }
  png_drop_empty_idat((uint8_t *)bytes, &len);
  uint64_t pnm[3];
  size_t pnm_end;
  int pnm_overflow = 0;
  if (pnm_header((const uint8_t *)bytes, len, pnm, &pnm_end, &pnm_overflow) && pnm_overflow) {
    free(bytes);
    return gs_diag_set(d, GS_EINVAL, "cannot read %s: not an image stb_image decodes (%s)", path,
                       "PNM header number too large");
  }
  int width = 0, height = 0, channels = 0;
  /* The size first: stb would decode a 27-byte TGA of 63488x8193 (found
   * by tests/fuzz/fuzz_image) into 2 GB before the check below. stb 2.27
   * gives a top-down BMP's height as negative here and decodes its
   * absolute value (a 147-byte BMP of -14090242 rows took 13 s). */
  if (stbi_info_from_memory((const stbi_uc *)bytes, (int)len, &width, &height, &channels) &&
      (width > GS_IMAGE_MAX_SIDE || height > GS_IMAGE_MAX_SIDE || height < -GS_IMAGE_MAX_SIDE)) {
    free(bytes);
    return gs_diag_set(d, GS_EINVAL, "cannot read %s: %dx%lld is larger than %dx%d", path, width,
                       height < 0 ? -(long long)height : height, GS_IMAGE_MAX_SIDE, GS_IMAGE_MAX_SIDE);
  }
  /* In the file's own channels: stb 2.27 converts a 16-bit PNM to 4
   * channels as if it had 8 bits and then reads twice the buffer it made
   * (ASan, found by tests/fuzz/fuzz_image), so gpusim makes RGBA itself. */
  uint8_t *data = stbi_load_from_memory((const stbi_uc *)bytes, (int)len, &width, &height, &channels, 0);
  int truncated = data && pnm_truncated((const uint8_t *)bytes, len, width, height, channels);
  free(bytes);
  if (data && (channels < 1 || channels > 4 || truncated)) {
    stbi_image_free(data);
    return gs_diag_set(d, GS_EINVAL, "cannot read %s: %s", path, truncated ? "PNM file truncated" : "bad channels");
  }
  if (!data) {
    const char *why = stbi_failure_reason();
    return gs_diag_set(d, GS_EINVAL, "cannot read %s: not an image stb_image decodes (%s)", path,
                       why ? why : "unknown reason");
  }
  int rc = gs_image_alloc(img, width, height, d);
  if (rc == GS_OK) {
    /* grey, grey + alpha, RGB, RGBA -> RGBA (alpha 255 where there is none) */
    size_t n = (size_t)width * (size_t)height;
    for (size_t i = 0; i < n; i++) {
      const uint8_t *s = data + i * (size_t)channels;
      uint8_t *o = img->pixels + 4 * i;
      o[0] = s[0];
      o[1] = channels >= 3 ? s[1] : s[0];
      o[2] = channels >= 3 ? s[2] : s[0];
      o[3] = channels == 2 ? s[1] : channels == 4 ? s[3] : 255;
    }
  } else if (rc == GS_EARG) {
    rc = gs_diag_set(d, GS_EINVAL, "cannot read %s: %dx%d is larger than %dx%d", path, width,
                     height, GS_IMAGE_MAX_SIDE, GS_IMAGE_MAX_SIDE);
  } else {
    rc = gs_diag_set(d, rc, "cannot read %s: out of memory", path);
  }
  stbi_image_free(data);
  return rc;
}
