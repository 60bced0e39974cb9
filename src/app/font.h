/* font.h — text drawn into RGBA8 images, for the inspector's legends,
 * labels and panels (overlay.c, compare.c). The glyphs are those of
 * stb_easy_font (Debian's libstb-dev): each character is a few one-pixel
 * wide strokes, drawn here as filled rectangles, so text is sharp at any
 * whole scale and the same on every machine (no font file is read).
 *
 * A line is GS_FONT_LINE pixels high at scale 1; characters are about 6
 * pixels wide (gs_font_width measures). Characters outside printable
 * ASCII (32..126) are drawn as '?'. Everything is clipped to the image.
 */
#ifndef GS_APP_FONT_H
#define GS_APP_FONT_H

#include <stdint.h>
#include "app/image.h"

#define GS_FONT_LINE 12

/* Width in pixels of the longest line of text at scale 1. */
int gs_font_width(const char *text);
/* Height in pixels of text (its lines) at scale 1. */
int gs_font_height(const char *text);

/* Draws text with its top-left corner at (x, y) (y from the top row),
 * each glyph pixel a scale × scale square of colour rgba (alpha 255
 * replaces, less blends). '\n' starts a new line. */
void gs_font_draw(gs_image *img, int x, int y, const char *text, const uint8_t rgba[4], int scale);

/* Fills the rectangle (x, y, w, h) with rgba blended by its alpha
 * (255: replaced), clipped to the image. */
void gs_fill_rect(gs_image *img, int x, int y, int w, int h, const uint8_t rgba[4]);

/* Draws the outline of (x, y, w, h), `t` pixels thick, inside it. */
void gs_frame_rect(gs_image *img, int x, int y, int w, int h, int t, const uint8_t rgba[4]);

#endif
