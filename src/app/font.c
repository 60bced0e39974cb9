/* font.c — text into RGBA8 images with stb_easy_font's strokes (font.h). */
#include "app/font.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#endif
#include "stb_easy_font.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* Strokes of one line are made one chunk of characters at a time. */
#define CHUNK 32

/* A copy of at most n characters of text with everything outside 32..126
 * (and '\n' kept) replaced by '?', NUL-terminated, in buf (n + 1 bytes). */
static void printable(const char *text, size_t n, char *buf) {
  size_t i = 0;
  for (; i < n && text[i]; i++) {
    unsigned char c = (unsigned char)text[i];
    buf[i] = c == '\n' || (c >= 32 && c <= 126) ? (char)c : '?';
  }
  buf[i] = '\0';
}

int gs_font_width(const char *text) {
  int best = 0;
  while (*text) {
    size_t len = strcspn(text, "\n");
    int w = 0;
    for (size_t off = 0; off < len; off += CHUNK) {
      char buf[CHUNK + 1];
      printable(text + off, len - off < CHUNK ? len - off : CHUNK, buf);
      w += stb_easy_font_width(buf);
    }
    if (w > best) best = w;
    text += len;
    if (*text == '\n') text++;
  }
  return best;
}

int gs_font_height(const char *text) {
  int lines = 1;
  for (const char *p = text; *p; p++) lines += *p == '\n';
  return lines * GS_FONT_LINE;
}

static void blend_px(uint8_t *q, const uint8_t rgba[4]) {
  if (rgba[3] == 255) {
    memcpy(q, rgba, 3);
    q[3] = 255;
    return;
  }
  unsigned a = rgba[3];
  for (int c = 0; c < 3; c++) q[c] = (uint8_t)((q[c] * (255u - a) + rgba[c] * a + 127) / 255);
  q[3] = 255;
}

void gs_fill_rect(gs_image *img, int x, int y, int w, int h, const uint8_t rgba[4]) {
  int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
  int x1 = x + w > img->width ? img->width : x + w, y1 = y + h > img->height ? img->height : y + h;
  for (int yy = y0; yy < y1; yy++)
    for (int xx = x0; xx < x1; xx++) blend_px(gs_image_pixel(img, xx, yy), rgba);
}

void gs_frame_rect(gs_image *img, int x, int y, int w, int h, int t, const uint8_t rgba[4]) {
  if (2 * t >= w || 2 * t >= h) {
    gs_fill_rect(img, x, y, w, h, rgba);
    return;
  }
  gs_fill_rect(img, x, y, w, t, rgba);
  gs_fill_rect(img, x, y + h - t, w, t, rgba);
  gs_fill_rect(img, x, y + t, t, h - 2 * t, rgba);
  gs_fill_rect(img, x + w - t, y + t, t, h - 2 * t, rgba);
}

void gs_font_draw(gs_image *img, int x, int y, const char *text, const uint8_t rgba[4], int scale) {
  if (scale < 1) scale = 1;
  float verts[CHUNK * 40 * 16]; /* 4 vertices of 4 floats per stroke; at most ~40 strokes a glyph */
  int line = 0;
  while (*text) {
    size_t len = strcspn(text, "\n");
    float px = 0;
    for (size_t off = 0; off < len; off += CHUNK) {
      char buf[CHUNK + 1];
      printable(text + off, len - off < CHUNK ? len - off : CHUNK, buf);
      int quads = stb_easy_font_print(px, 0, buf, NULL, verts, (int)sizeof verts);
      for (int q = 0; q < quads; q++) {
        const float *v = verts + 16 * q; /* x, y, z, colour per vertex; v0 top-left, v2 bottom-right */
        int qx0 = (int)lrintf(v[0]), qy0 = (int)lrintf(v[1]);
        int qx1 = (int)lrintf(v[8]), qy1 = (int)lrintf(v[9]);
        gs_fill_rect(img, x + qx0 * scale, y + (line * GS_FONT_LINE + qy0) * scale, (qx1 - qx0) * scale,
                     (qy1 - qy0) * scale, rgba);
      }
      px += (float)stb_easy_font_width(buf);
    }
    text += len;
    if (*text == '\n') text++;
    line++;
  }
}
