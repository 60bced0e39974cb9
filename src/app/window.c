/* window.c — the SDL2 window gpusim shows frames in (see window.h).
 *
 * One streaming texture of the frame's size in SDL_PIXELFORMAT_RGBA32
 * (ABGR8888 on little-endian hosts: bytes R, G, B, A in memory, as in a
 * gs_image and a PNG) is rewritten completely for every frame through
 * SDL_LockTexture, honouring the pitch SDL returns (the lock is write-only:
 * SDL keeps no old contents). The renderer's logical size is the frame
 * size, so SDL scales it to any window size with black bars keeping the
 * aspect ratio, and the texture samples the nearest pixel.
 */
#include "app/window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <SDL.h>

/* Frames are enlarged by a whole factor up to this many times ... */
#define MAX_ZOOM 8
/* ... while the window's longer side stays within this many pixels. */
#define ZOOM_TARGET 512
/* Frames are at least this many milliseconds apart (a renderer that says
 * it waits for vertical blank may not: Xvfb's does not). */
#define FRAME_MS 16

struct gs_window {
  int sdl_started;       /* SDL's video subsystem is initialised */
  SDL_Window *window;
  SDL_Renderer *renderer;
  SDL_Texture *texture;
  int width, height;     /* the frame size */
  Uint64 last_present;   /* SDL_GetTicks64() of the previous frame, 0 if none */
  int quit;              /* the user asked to quit */
  gs_window_input queue[64]; /* inputs seen by gs_window_poll, oldest at head */
  unsigned head, count;
};

/* Records the failure of SDL call `call` with SDL_GetError(); GS_EIO. */
static int sdl_error(gs_diag *d, const char *call) {
  return gs_diag_set(d, GS_EIO, "%s failed: %s", call, SDL_GetError());
}

/* Chooses the window's first size for a width × height frame: enlarged by
 * a whole factor when small, shrunk (keeping the aspect) when it would not
 * fit the usable area of the first display. */
static void initial_window_size(int width, int height, int *ww, int *wh) {
  int longer = width > height ? width : height;
  int zoom = 1;
  while (zoom < MAX_ZOOM && (zoom + 1) * longer <= ZOOM_TARGET) zoom++;
  double w = (double)width * zoom, h = (double)height * zoom;
  SDL_Rect usable;
  if (SDL_GetDisplayUsableBounds(0, &usable) == 0 && usable.w > 0 && usable.h > 0) {
    double fit_w = 0.9 * usable.w / w, fit_h = 0.9 * usable.h / h;
    double fit = fit_w < fit_h ? fit_w : fit_h;
    if (fit < 1.0) {
      w *= fit;
      h *= fit;
    }
  }
  *ww = w < 1 ? 1 : (int)w;
  *wh = h < 1 ? 1 : (int)h;
}

/* Creates the renderer, with vsync when the system offers it. */
static int create_renderer(gs_window *win, gs_diag *d) {
  win->renderer = SDL_CreateRenderer(win->window, -1, SDL_RENDERER_PRESENTVSYNC);
  if (!win->renderer) win->renderer = SDL_CreateRenderer(win->window, -1, 0);
  if (!win->renderer) return sdl_error(d, "SDL_CreateRenderer");
  if (SDL_RenderSetLogicalSize(win->renderer, win->width, win->height) != 0)
    return sdl_error(d, "SDL_RenderSetLogicalSize");
  return GS_OK;
}

/* Creates the streaming texture the frames are copied into. */
static int create_texture(gs_window *win, gs_diag *d) {
  win->texture = SDL_CreateTexture(win->renderer, SDL_PIXELFORMAT_RGBA32,
                                   SDL_TEXTUREACCESS_STREAMING, win->width, win->height);
  if (!win->texture) return sdl_error(d, "SDL_CreateTexture");
  if (SDL_SetTextureScaleMode(win->texture, SDL_ScaleModeNearest) != 0)
    return sdl_error(d, "SDL_SetTextureScaleMode");
  return GS_OK;
}

/* With no display SDL falls back to its offscreen driver, whose windows
 * nobody sees: a window would wait forever for a quit nobody can give.
 * That counts as no display unless the user chose the driver by name
 * (SDL_VIDEODRIVER=offscreen or dummy, e.g. to test the window path).
 * Returns GS_OK or GS_WINDOW_NO_DISPLAY. */
static int check_real_display(gs_diag *d) {
  const char *driver = SDL_GetCurrentVideoDriver();
  const char *chosen = SDL_GetHint(SDL_HINT_VIDEODRIVER);
  if (!driver || (chosen && *chosen)) return GS_OK;
  if (strcmp(driver, "offscreen") != 0 && strcmp(driver, "dummy") != 0) return GS_OK;
  return gs_diag_set(d, GS_WINDOW_NO_DISPLAY,
                     "no display: SDL found no screen to open a window on, only its '%s' video "
                     "driver (use --headless to run without a window)",
                     driver);
}

/* Starts SDL video and opens everything in win; GS_OK or an error code.
 * Whatever was created stays in win for gs_window_close to release. */
static int open_window(gs_window *win, const char *title, gs_diag *d) {
  /* Without X11 or Wayland there is nothing to show a window on; asking SDL
   * anyway makes its Wayland probe print noise before it gives up. */
  const char *env_names[] = {"DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"};
  int any = 0;
  for (size_t k = 0; k < sizeof env_names / sizeof env_names[0]; k++) {
    const char *v = getenv(env_names[k]);
    any |= v && *v;
  }
  if (!any)
    return gs_diag_set(d, GS_WINDOW_NO_DISPLAY,
                       "no display: neither DISPLAY nor WAYLAND_DISPLAY is set "
                       "(use --headless to run without a window, or xvfb-run)");
  if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0)
    return gs_diag_set(d, GS_WINDOW_NO_DISPLAY,
                       "no display: SDL_Init(SDL_INIT_VIDEO) failed: %s "
                       "(use --headless to run without a window)",
                       SDL_GetError());
  win->sdl_started = 1;
  int rc = check_real_display(d);
  if (rc != GS_OK) return rc;
  int ww, wh;
  initial_window_size(win->width, win->height, &ww, &wh);
  win->window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, ww, wh,
                                 SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  if (!win->window) return sdl_error(d, "SDL_CreateWindow");
  rc = create_renderer(win, d);
  if (rc == GS_OK) rc = create_texture(win, d);
  return rc;
}

int gs_window_open(gs_window **out, const char *title, int width, int height, gs_diag *d) {
  *out = NULL;
  if (width < 1 || height < 1 || width > 16384 || height > 16384)
    return gs_diag_set(d, GS_EARG, "window for %dx%d frames: each side must be 1..16384", width,
                       height);
  gs_window *win = calloc(1, sizeof *win);
  if (!win) return gs_diag_set(d, GS_ENOMEM, "window: out of memory");
  win->width = width;
  win->height = height;
  int rc = open_window(win, title ? title : "gpusim", d);
  if (rc != GS_OK) {
    gs_window_close(win);
    return rc;
  }
  *out = win;
  return GS_OK;
}

/* Copies the frame into the locked texture row by row: the texture's pitch
 * and the caller's stride may both differ from 4 × width. */
static void copy_rows(uint8_t *dst, int pitch, const uint8_t *src, ptrdiff_t stride, int width,
                      int height) {
  for (int y = 0; y < height; y++)
    memcpy(dst + (size_t)y * (size_t)pitch, src + (ptrdiff_t)y * stride, (size_t)width * 4);
}

/* Sleeps until FRAME_MS have passed since the last frame, so that a window
 * showing a still image does not spin a core and `--frames N` lasts at
 * least N frames' time — also where the renderer claims vsync and does not
 * wait (on Xvfb 3600 frames took 0.8 s, and a window closed under a test
 * that was still looking at it). With a working vsync the present itself
 * has waited and this sleeps little or not at all. */
static void pace_frame(gs_window *win) {
  Uint64 now = SDL_GetTicks64();
  if (win->last_present && now - win->last_present < FRAME_MS) {
    SDL_Delay((Uint32)(FRAME_MS - (now - win->last_present)));
    now = SDL_GetTicks64();
  }
  win->last_present = now;
}

int gs_window_present(gs_window *win, const uint8_t *rgba, ptrdiff_t stride, gs_diag *d) {
  if (!rgba) return gs_diag_set(d, GS_EARG, "gs_window_present: no pixels");
  void *pixels;
  int pitch;
  if (SDL_LockTexture(win->texture, NULL, &pixels, &pitch) != 0)
    return sdl_error(d, "SDL_LockTexture");
  copy_rows(pixels, pitch, rgba, stride, win->width, win->height);
  SDL_UnlockTexture(win->texture);
  if (SDL_SetRenderDrawColor(win->renderer, 0, 0, 0, 255) != 0)
    return sdl_error(d, "SDL_SetRenderDrawColor");
  if (SDL_RenderClear(win->renderer) != 0) return sdl_error(d, "SDL_RenderClear");
  if (SDL_RenderCopy(win->renderer, win->texture, NULL, NULL) != 0)
    return sdl_error(d, "SDL_RenderCopy");
  pace_frame(win);
  SDL_RenderPresent(win->renderer);
  return GS_OK;
}

/* Whether event e asks to quit. */
static int is_quit_request(const SDL_Event *e) {
  switch (e->type) {
  case SDL_QUIT: return 1;
  case SDL_WINDOWEVENT: return e->window.event == SDL_WINDOWEVENT_CLOSE;
  case SDL_KEYDOWN: return e->key.keysym.sym == SDLK_ESCAPE || e->key.keysym.sym == SDLK_q;
  default: return 0;
  }
}

static void queue_input(gs_window *win, const gs_window_input *in) {
  if (win->count == sizeof win->queue / sizeof win->queue[0]) win->head = (win->head + 1) % 64, win->count--;
  win->queue[(win->head + win->count++) % 64] = *in;
}

int gs_window_poll(gs_window *win) {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    if (is_quit_request(&e)) {
      win->quit = 1;
    } else if (e.type == SDL_KEYDOWN) {
      gs_window_input in = {GS_INPUT_KEY, (int)e.key.keysym.sym, (e.key.keysym.mod & KMOD_SHIFT) != 0, 0, 0};
      queue_input(win, &in);
    } else if (e.type == SDL_MOUSEBUTTONDOWN && e.button.button == SDL_BUTTON_LEFT) {
      /* the renderer's logical size makes these the picture's pixels */
      if (e.button.x >= 0 && e.button.y >= 0 && e.button.x < win->width && e.button.y < win->height) {
        gs_window_input in = {GS_INPUT_CLICK, 0, 0, e.button.x, e.button.y};
        queue_input(win, &in);
      }
    }
  }
  return win->quit;
}

int gs_window_next_input(gs_window *win, gs_window_input *in) {
  if (!win->count) return 0;
  *in = win->queue[win->head];
  win->head = (win->head + 1) % 64, win->count--;
  return 1;
}

int gs_window_push_key(gs_window *win, int key, gs_diag *d) {
  SDL_Event e;
  memset(&e, 0, sizeof e);
  e.type = SDL_KEYDOWN;
  e.key.state = SDL_PRESSED;
  e.key.windowID = SDL_GetWindowID(win->window);
  e.key.keysym.sym = key;
  e.key.keysym.scancode = SDL_GetScancodeFromKey(key);
  if (SDL_PushEvent(&e) < 0) return sdl_error(d, "SDL_PushEvent");
  return GS_OK;
}

int gs_window_push_click(gs_window *win, int x, int y, gs_diag *d) {
  int wx, wy; /* SDL's renderer maps window pixels to the logical picture: go the other way */
  SDL_RenderLogicalToWindow(win->renderer, (float)x + 0.5f, (float)y + 0.5f, &wx, &wy);
  SDL_Event e;
  memset(&e, 0, sizeof e);
  e.type = SDL_MOUSEBUTTONDOWN;
  e.button.windowID = SDL_GetWindowID(win->window);
  e.button.button = SDL_BUTTON_LEFT;
  e.button.state = SDL_PRESSED;
  e.button.clicks = 1;
  e.button.x = wx, e.button.y = wy;
  if (SDL_PushEvent(&e) < 0) return sdl_error(d, "SDL_PushEvent");
  return GS_OK;
}

void gs_window_title_suffix(gs_window *win, const char *suffix) {
  char title[512];
  snprintf(title, sizeof title, "%s%s", SDL_GetWindowTitle(win->window), suffix);
  SDL_SetWindowTitle(win->window, title);
}

int gs_window_present_sized(gs_window *win, const uint8_t *rgba, int width, int height, ptrdiff_t stride,
                            gs_diag *d) {
  if (width != win->width || height != win->height) {
    if (width < 1 || height < 1 || width > 16384 || height > 16384)
      return gs_diag_set(d, GS_EARG, "window for %dx%d frames: each side must be 1..16384", width, height);
    if (win->texture) SDL_DestroyTexture(win->texture);
    win->texture = NULL;
    win->width = width, win->height = height;
    if (SDL_RenderSetLogicalSize(win->renderer, width, height) != 0) return sdl_error(d, "SDL_RenderSetLogicalSize");
    int rc = create_texture(win, d);
    if (rc != GS_OK) return rc;
    int ww, wh;
    initial_window_size(width, height, &ww, &wh);
    SDL_SetWindowSize(win->window, ww, wh);
    SDL_SetWindowPosition(win->window, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED);
  }
  return gs_window_present(win, rgba, stride, d);
}

void gs_window_close(gs_window *win) {
  if (!win) return;
  if (win->texture) SDL_DestroyTexture(win->texture);
  if (win->renderer) SDL_DestroyRenderer(win->renderer);
  if (win->window) SDL_DestroyWindow(win->window);
  if (win->sdl_started) {
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    SDL_Quit();
  }
  free(win);
}
