/* app.h — what the parts of the gpusim program provide to main.c, which
 * parses the command line and dispatches:
 *
 *   gpusim [options] SCRIPT.lua [ARGS...]   main.c: run a scene script
 *   gpusim asm ... / gpusim disasm ...      main.c: assemble, disassemble
 *   gpusim view IMAGE.png [--frames N]      main.c: show an image (window.c)
 *   gpusim diff A.png B.png [...]           diff.c: compare two images
 *   gpusim dump-cl ...                      dumpcl.c: print a control list
 *   gpusim sph ...                          sph_cmd.c: print an SPH file
 *   gpusim --dump-cl FILE SCENE.lua         dumpcl.c: a frame's lists
 *   gpusim bench [...]                      bench.c: the benchmarks
 *   gpusim test [...] MANIFEST.lua          testrun.c: reference-image tests
 *
 * Every *_main function takes argv[0] = the command's name and
 * argv[1..argc-1] = the arguments after it, and returns the process exit
 * status; messages go to stdout and stderr.
 */
#ifndef GS_APP_APP_H
#define GS_APP_APP_H

#include <stddef.h>
#include <stdio.h>
#include "gpusim/diag.h"
#include "gpusim/driver.h"
#include "gpusim/mem.h"

/* Frame size when --size is not given. */
#define GS_DEFAULT_WIDTH 640
#define GS_DEFAULT_HEIGHT 480
/* Largest --size side: the driver's (GS_DRV_MAX_SIDE, 4095): the Viewport
 * Offset record holds the viewport centre as a signed 12.4 number, so a
 * target centred on its own middle reaches 4095 pixels a side, one less
 * than the 4096 the tile binner could hold. */
#define GS_MAX_SIDE GS_DRV_MAX_SIDE
/* Largest --threads value. */
#define GS_MAX_THREADS 1024

/* How `gpusim [options] SCRIPT.lua` runs a script: the options before the
 * script, as parsed and checked by main.c. The rendering options are read
 * by the pipeline milestone; until it lands, scripts render nothing. */
struct lua_State;
typedef struct gs_run_options {
  int headless;        /* --headless: no window */
  int traceback;       /* --traceback: Lua traceback on script errors */
  const char *output;  /* -o OUT.png: write the last frame there; NULL if not given */
  int width, height;   /* --size WxH: frame size; 0, 0 if not given (the scene's
                          choice, else GS_DEFAULT_WIDTH x GS_DEFAULT_HEIGHT) */
  long frames;         /* --frames N: stop after N frames; 0 = until the user quits */
  int threads;         /* --threads N: render threads; default the online cores */
  const char *dump_cl; /* --dump-cl FILE: the last frame's control lists; NULL if not given */
  int sandbox;         /* --sandbox: the script gets no files, processes or C modules
                          (sandbox.h, docs/sandbox.md) */
  size_t memory_limit; /* --memory-limit SIZE: bytes the Lua state may hold; 0 = none
                          (GS_SANDBOX_MEMORY_LIMIT under --sandbox) */
  long time_limit;     /* --time-limit SECONDS: wall-clock seconds for the run; 0 = none
                          (GS_SANDBOX_TIME_LIMIT under --sandbox) */
  void (*after_frames)(struct lua_State *L, void *ctx); /* gpusim diff --frames (framediff.c): called
                          after the frames with the last frame rendered; raises a Lua error when it cannot */
  void *after_ctx;     /* its ctx */
  int script;          /* index in argv of the script; argv[script+1..] are its args */
  const struct gs_why_request *why; /* gpusim why: explain a pixel of the last frame (why.c) */
  struct gs_image *capture; /* --compare: the last frame is copied here, upright (empty on entry) */
  int overlay;         /* --overlay NAME: the overlay (overlay.h's gs_overlay_kind) -o writes and the
                          window starts with; 0 = none */
  const struct gs_trace_request *trace; /* gpusim trace: a pixel's lane trace (trace_cmd.c) */
} gs_run_options;

/* `gpusim [options] SCENE.lua [ARGS...] --compare COMBO...` (compare.c):
 * runs the scene through `run` (main.c's run_script) once per combination,
 * as its first argument before ARGS (argv[at] is "--compare"), and shows
 * or writes (-o) the frames side by side with their differences from the
 * first. The exit status. */
int gs_compare_main(const gs_run_options *o, int argc, char **argv, int at,
                    int (*run)(const gs_run_options *, int, char **));

/* `gpusim why`: the pixel to explain, as the user gave it (why.c). */
typedef struct gs_why_request {
  long x, y;           /* from the image's top-left */
  int json;            /* --json */
} gs_why_request;

/* `gpusim trace [options] SCENE.lua X Y [ARGS...]` (trace_cmd.c): the
 * pixel, and the lane to trace (-1: the pixel's); gs_trace_main parses,
 * runs the scene through `run` with it, and gs_trace_print prints the
 * trace after the frames (raising a Lua error when it cannot). */
typedef struct gs_trace_request {
  long x, y, lane;
  long draw, vertex; /* --draw K --vertex I: vertex I of draw K (draw -1: the pixel) */
  int coordinate;    /* --stage coordinate: the vertex's coordinate-shader run */
} gs_trace_request;
int gs_trace_main(int argc, char **argv, int (*run)(const gs_run_options *, int, char **));
struct lua_State;
void gs_trace_print(struct lua_State *L, const gs_trace_request *t);

/* `gpusim why [options] SCENE.lua X Y [ARGS...]` (why.c): parses its
 * arguments and runs the scene headless through `run` (main.c's
 * run_script) with a gs_why_request in the options. The exit status. */
int gs_why_main(int argc, char **argv, int (*run)(const gs_run_options *, int, char **));
/* After the scene's frames (main.c's run_scene): prints the provenance of
 * the request's pixel of the last frame, gpusim.why's table as text or
 * JSON; raises a Lua error when it cannot. */
struct lua_State;
void gs_why_print(struct lua_State *L, const gs_why_request *w, const char *script);

/* `gpusim report [options] SCENE.lua -o REPORT.html [ARGS...]` (report.c):
 * runs the scene headless through `run` and writes the frame's HTML report
 * (docs/report.md). The exit status. */
int gs_report_main(int argc, char **argv, int (*run)(const gs_run_options *, int, char **));

/* Makes img (empty on entry) an upright RGBA8 copy of a frame buffer of
 * w x h pixels at p, rows `stride` bytes apart, y-up, in `format` (BGR565
 * widened as the store packed it, RGBA16F clamped to 0..1). main.c */
struct gs_image;
int gs_app_framebuffer_image(const uint8_t *p, int w, int h, int stride, gs_drv_format format,
                             struct gs_image *img, gs_diag *d);

/* Writes gpusim.why's answer at idx as `gpusim why` prints it (why.c;
 * the window's inspector shows it in its panel). */
void gs_why_text(struct lua_State *L, int idx, const char *script, FILE *out);

/* Reads all of path ("-": standard input) into a malloc'ed buffer with a NUL
 * after the last byte. Returns 0, or -1 with errno set. cli.c */
int gs_cli_read_file(const char *path, char **data, size_t *len);

/* Writes len bytes to the output path of a command (-o, --dump-cl, ...):
 * "-" is standard output; a new path or an existing regular file is
 * written whole or not at all (a temporary file beside it, synced, then
 * renamed over it, keeping the old file's mode); an existing device, FIFO
 * or socket is opened and written in place, never replaced; a symbolic
 * link is followed, its target written as above, and the link stays.
 * Returns 0, or -1 with errno set (the path is then as it was). cli.c */
int gs_cli_write_file(const char *path, const void *data, size_t len);

/* Returns the value of option argv[*i] written as "OPT VALUE" or
 * "OPT=VALUE", advancing *i past it; NULL if argv[*i] is not `opt`.
 * *missing is set when the option is there without a value. cli.c */
const char *gs_cli_option(int argc, char **argv, int *i, const char *opt, int *missing);

/* Runs a scene for a tool (why, trace): the script sees the argv that
 * `gpusim SCENE ARGS...` would give it, argv0, scene, then the nrest words
 * of rest. Sets o->script and runs `run`; returns its status, or 1 (with a
 * message naming `tool`) when out of memory. cli.c */
int gs_cli_run_scene(gs_run_options *o, const char *tool, char *argv0, char *scene, char **rest, int nrest,
                     int (*run)(const gs_run_options *, int, char **));

/* `gpusim bench`: interpreter benchmarks. 0 on success, 1 on failure, 2 on
 * a usage error. */
int gs_bench_main(int argc, char **argv);
/* The vertex-bound frame's table of `gpusim bench` (bench_vertex.c): the
 * median of `runs`; quick: a small frame. 0, or -1 after a message. */
int gs_bench_vertex_frames(int runs, int quick);

/* `gpusim diff A.png B.png [--tolerance T] [-o DIFF.png]` (diff.c). 0 when
 * no pixel differs by more than T, 1 when some do, 2 on a usage error, an
 * unreadable or unwritable file, or images of different sizes. */
int gs_diff_main(int argc, char **argv);
/* `gpusim diff --frames A.lua [B.lua] [options] [-- ARGS_A [-- ARGS_B]]`
 * (framediff.c): runs both scenes through `run` and compares their frames
 * at the level of the pipeline (docs/frame-diff.md). -1 when argv has no
 * --frames (an image diff), else the exit status: 0 identical, 1 different,
 * 2 an error. */
int gs_framediff_main(int argc, char **argv, int (*run)(const gs_run_options *, int, char **));
/* Writes the Lua value at idx as JSON, tables with keys 1..n as arrays and
 * others as objects with sorted keys (why.c; gpusim why --json's writer). */
struct lua_State;
void gs_json_write_lua(struct lua_State *L, int idx, FILE *out);
/* Prints the colour table at field k of the table at t as "r g b a" (why.c;
 * gpusim why's colours). */
void gs_why_print_colour(struct lua_State *L, int t, const char *k, FILE *out);

/* `gpusim test [options] MANIFEST.lua` (testrun.c): renders every case of a
 * reference-image manifest in child processes and compares each with its
 * reference as gs_image_compare does. 0 when every case passes, 1 when one
 * fails or does not render, 2 on a usage or manifest error. */
int gs_test_main(int argc, char **argv);

/* `gpusim dump-cl ...` (dumpcl.c): decodes and prints a control list. */
int gs_dumpcl_main(int argc, char **argv);

/* `gpusim sph [--offset N] [--validate] FILE` (sph_cmd.c): prints the
 * fields of a Shader Program Header. 0 when it decodes (and validates),
 * 1 when it does not or the file cannot be read, 2 on a usage error. */
int gs_sph_main(int argc, char **argv);

/* Dumps a rendered frame's two control lists from GPU memory to out: the
 * binning list [bin_start, bin_end), then the rendering list [render_start,
 * render_end) with the tile lists the binner wrote, followed into as
 * sub-lists. Returns GS_OK or the error of the first list that does not
 * decode, naming the list and the address. dumpcl.c */
int gs_dumpcl_frame(const gs_mem *mem, gs_addr bin_start, gs_addr bin_end, gs_addr render_start,
                    gs_addr render_end, FILE *out, gs_diag *d);

#endif
