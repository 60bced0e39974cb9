/* window.h — the SDL2 window gpusim shows frames in.
 *
 *   gs_window *win;
 *   if (gs_window_open(&win, "gpusim", 640, 480, &d) != GS_OK) ...;
 *   while (!gs_window_poll(win)) {
 *     ... render a frame ...
 *     gs_window_present(win, frame.pixels, (ptrdiff_t)frame.stride, &d);
 *   }
 *   gs_window_close(win);
 *
 * A window shows frames of the size it was opened with, upright: row 0 of
 * what gs_window_present gets is the top row. It opens at a whole multiple
 * of that size (small frames are enlarged so they can be seen, large ones
 * shrunk to fit the screen), can be resized, and always scales the frame
 * with nearest-pixel sampling, keeping its aspect ratio (black bars fill
 * the rest), so every simulated pixel stays a sharp square.
 *
 * The user asks to quit by closing the window or pressing Esc or q (or with
 * SIGINT/SIGTERM, which SDL turns into a quit request).
 *
 * All calls must come from the thread that opened the window (SDL's rule);
 * one window per process at a time.
 */
#ifndef GS_APP_WINDOW_H
#define GS_APP_WINDOW_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"

/* gs_window_open's result when there is no display to open a window on
 * (SDL's video subsystem does not start: no X11 or Wayland server, ...). */
#define GS_WINDOW_NO_DISPLAY (-100)

typedef struct gs_window gs_window;

/* Opens a window titled `title` (UTF-8) for frames of width × height
 * pixels (1..16384 each) and stores it in *out. Returns GS_OK;
 * GS_WINDOW_NO_DISPLAY when the video subsystem cannot start (the message
 * says so and suggests --headless); GS_EARG for a bad size; GS_EIO when an
 * SDL call fails (the message names the call and gives SDL_GetError()).
 * On failure *out is NULL and nothing stays open. */
int gs_window_open(gs_window **out, const char *title, int width, int height, gs_diag *d);

/* Shows one frame: width × height RGBA8 pixels (bytes R, G, B, A), row y
 * at rgba + y * stride, row 0 at the top. A negative stride shows a y-up
 * frame buffer upright: pass the address of its last row and -pitch.
 * Every pixel is copied, so the caller may reuse the memory at once.
 * Without vsync, waits so that frames are at least 1/60 s apart. Returns
 * GS_OK, GS_EARG (no pixels) or GS_EIO (an SDL call failed). */
int gs_window_present(gs_window *win, const uint8_t *rgba, ptrdiff_t stride, gs_diag *d);

/* Handles the window's pending events without waiting. Returns 1 once the
 * user has asked to quit (and from then on), else 0. */
int gs_window_poll(gs_window *win);

/* Like gs_window_present for a frame of width x height pixels, which may
 * differ from the size the window was opened with (the inspector's
 * picture: the frame enlarged, its legend, a side panel): the window takes
 * the new size, fitted to the screen, when it changes. */
int gs_window_present_sized(gs_window *win, const uint8_t *rgba, int width, int height, ptrdiff_t stride,
                            gs_diag *d);

/* Input for the inspector: what gs_window_poll saw besides a quit request,
 * in order, up to 64 pending (older ones are dropped first). */
typedef enum gs_window_input_kind { GS_INPUT_KEY = 1, GS_INPUT_CLICK } gs_window_input_kind;
typedef struct gs_window_input {
  gs_window_input_kind kind;
  int key;             /* KEY: the SDL key code ('a'..'z', '0'..'9', ',', '.', '[', ']', ' ', or SDLK_*) */
  int shift;           /* KEY: a shift key was down */
  int x, y;            /* CLICK: the pixel of the presented picture (gs_window_present's frame) */
} gs_window_input;

/* Takes the oldest pending input into *in: 1, or 0 when there is none. */
int gs_window_next_input(gs_window *win, gs_window_input *in);

/* For scripted tests: posts a key press, or a left click on pixel (x, y)
 * of the presented picture, through SDL's event queue, as if the user had
 * done it; the next gs_window_poll sees it. GS_OK or GS_EIO. */
int gs_window_push_key(gs_window *win, int key, gs_diag *d);
int gs_window_push_click(gs_window *win, int x, int y, gs_diag *d);

/* Appends suffix to the window's title (the inspector's hint). */
void gs_window_title_suffix(gs_window *win, const char *suffix);

/* Closes the window and frees everything it holds; win may be NULL. */
void gs_window_close(gs_window *win);

#endif
