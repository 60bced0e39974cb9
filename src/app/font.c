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

/* Calls fn for each chunk of at most CHUNK printable characters of text:
 * its line (from 0), its x offset in the line at scale 1, its characters. */
static void walk(const char *text, void (*fn)(void *ctx, int line, float x, char *chunk), void *ctx) {
  for (int line = 0; *text; line++) {
    size_t len = strcspn(text, "\n");
    float x = 0;
    for (size_t off = 0; off < len; off += CHUNK) {
      char buf[CHUNK + 1];
      printable(text + off, len - off < CHUNK ? len - off : CHUNK, buf);
      fn(ctx, line, x, buf);
      x += (float)stb_easy_font_width(buf);
    }
    text += len;
    if (*text == '\n') text++;
  }
}

typedef struct width_ctx {
  int line, best;
  float end;
} width_ctx;

static void width_fn(void *ctx, int line, float x, char *chunk) {
  width_ctx *w = ctx;
  float end = x + (float)stb_easy_font_width(chunk);
  if (line != w->line) w->line = line, w->end = 0;
  if (end > w->end) w->end = end;
  if ((int)w->end > w->best) w->best = (int)w->end;
}

int gs_font_width(const char *text) {
  width_ctx w = {0, 0, 0};
  walk(text, width_fn, &w);
  return w.best;
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

typedef struct draw_ctx {
  gs_image *img;
  int x, y, scale;
  const uint8_t *rgba;
} draw_ctx;

static void draw_fn(void *ctx, int line, float x, char *chunk) {
  const draw_ctx *c = ctx;
  float verts[CHUNK * 40 * 16]; /* 4 vertices of 4 floats per stroke; at most ~40 strokes a glyph */
  int quads = stb_easy_font_print(x, 0, chunk, NULL, verts, (int)sizeof verts);
  for (int q = 0; q < quads; q++) {
    const float *v = verts + 16 * q; /* x, y, z, colour per vertex; v0 top-left, v2 bottom-right */
    int qx0 = (int)lrintf(v[0]), qy0 = (int)lrintf(v[1]);
    int qx1 = (int)lrintf(v[8]), qy1 = (int)lrintf(v[9]);
    gs_fill_rect(c->img, c->x + qx0 * c->scale, c->y + (line * GS_FONT_LINE + qy0) * c->scale,
                 (qx1 - qx0) * c->scale, (qy1 - qy0) * c->scale, c->rgba);
  }
}

void gs_font_draw(gs_image *img, int x, int y, const char *text, const uint8_t rgba[4], int scale) {
  draw_ctx c = {img, x, y, scale < 1 ? 1 : scale, rgba};
  walk(text, draw_fn, &c);
}
