/* main.c — the gpusim program: parses the command line, runs scene scripts
 * with the gpusim Lua module, shows images, and provides the asm and disasm
 * tools.
 *
 *   gpusim [options] SCRIPT.lua [ARGS...]
 *   gpusim asm --isa qpu IN.s -o OUT.bin [--base ADDR]
 *   gpusim disasm --isa qpu IN.bin [--base ADDR] [-o OUT.s]
 *   gpusim view IMAGE.png [--frames N]
 *   gpusim diff A.png B.png [--tolerance T] [-o DIFF.png]   (diff.c)
 *   gpusim bench [...]                                      (bench.c)
 *
 * Without --headless a script run ends in the SDL2 window (window.c), which
 * stays until the user quits or --frames frames have been shown; with no
 * display the script runs without it and a note says so.
 *
 * Exit status: 0; the script's os.exit status; 1 when a script or a tool
 * fails (the message, naming the place, on stderr); 2 on a usage error.
 * Output files are written by gs_cli_write_file (cli.c): whole or not at
 * all, never replacing a device, FIFO or socket, following symbolic links;
 * "-" is standard output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include "gpusim/luamod.h"
#include "gpusim/qpu.h"
#include "app/app.h"
#include "app/image.h"
#include "app/overlay.h"
#include "app/sandbox.h"
#include "app/window.h"
#include "core/half.h"
#include "isa/isa.h"

#define EXIT_USAGE 2

static const char usage_text[] =
  "usage: gpusim [options] SCRIPT.lua [ARGS...]\n"
  "       gpusim asm --isa ISA IN.s [IN2.s ...] -o OUT.bin [--base ADDR]\n"
  "       gpusim disasm --isa ISA IN.bin [--base ADDR] [-o OUT.s]\n"
  "       gpusim view IMAGE.png [--frames N]\n"
  "       gpusim diff A.png B.png [--tolerance T] [-o DIFF.png]\n"
  "       gpusim diff --frames A.lua [B.lua] [OPTIONS] [-- ARGS_A [-- ARGS_B]]  (docs/frame-diff.md)\n"
  "       gpusim dump-cl [OPTIONS] LIST.bin  (gpusim dump-cl --help)\n"
  "       gpusim sph [--offset N] [--validate] FILE  (gpusim sph --help)\n"
  "       gpusim bench [OPTIONS]            (gpusim bench --help)\n"
  "       gpusim test [OPTIONS] MANIFEST.lua  (gpusim test --help)\n"
  "       gpusim why [--frame N] [--json] SCENE.lua X Y [ARGS...]  (gpusim why --help)\n"
  "       gpusim report SCENE.lua -o REPORT.html [ARGS...]  (gpusim report --help)\n"
  "       gpusim trace [--frame N] [--lane L] SCENE.lua X Y [ARGS...]  (gpusim trace --help)\n"
  "\n"
  "Runs SCRIPT.lua with the standard Lua libraries and the gpusim module\n"
  "(local gpusim = require \"gpusim\"). The script gets its arguments in the\n"
  "table `arg` and in `...`, as with the lua interpreter; SCRIPT - reads\n"
  "standard input. A script that registers a frame callback with\n"
  "gpusim.frame is a scene (docs/scenes.md): without --headless and when\n"
  "there is a display, a window shows its frames, one rendered per frame\n"
  "shown, until you close it or press Esc or q; headless, --frames N frames\n"
  "(else one) are rendered. A script without a scene shows a test card.\n"
  "\n"
  "Options (before SCRIPT):\n"
  "  --headless    run without a window\n"
  "  -o OUT.png    write the last rendered frame to OUT.png (- for standard\n"
  "                output); an error when the script renders no frame\n"
  "  --size WxH    frame size in pixels, e.g. 640x480; each side 1..4095\n"
  "                (default: the scene's choice, else 640x480)\n"
  "  --frames N    stop after N frames (default: until you quit the window)\n"
  "  --threads N   render threads (default: the number of cores)\n"
  "  --overlay NAME  draw an inspector overlay over the frame: -o writes it,\n"
  "                the window starts with it (tiles, overdraw, trisize, isa,\n"
  "                order; --overlay help lists them; docs/inspector.md)\n"
  "  --compare COMBO...  after SCENE.lua [ARGS...]: render the scene once per\n"
  "                ISA combination (its first argument: qpu, sass, pica:qpu,\n"
  "                agx ...; ARGS follow it) side by side, with the pixels that\n"
  "                differ from the first marked and counted; -o writes it, else\n"
  "                the window shows it (docs/inspector.md)\n"
  "  --dump-cl FILE  write the last frame's control lists to FILE (- for\n"
  "                standard output): the binning list, then the rendering\n"
  "                list with the tile lists the binner wrote\n"
  "  --traceback   add a Lua stack traceback to the message of a script error\n"
  "  --sandbox     for grading: no io (but io.write), os (but clock, date,\n"
  "                time, exit), debug, files or C modules; require loads only\n"
  "                gpusim and the Lua helpers; limits of 256M and 60 s unless\n"
  "                given (docs/sandbox.md)\n"
  "  --memory-limit SIZE  cap the script's Lua memory, e.g. 16M, 1G, bytes\n"
  "  --time-limit SECONDS  stop the script after SECONDS of wall-clock time\n"
  "  --            end of options: the next argument is the script\n"
  "  -h, --help    print this help and exit\n"
  "  --version     print the version and exit\n"
  "\n"
  "Tools:\n"
  "  asm           assemble text into a binary of 64-bit instruction words,\n"
  "                little-endian (SASS: 32-byte groups of a control word and\n"
  "                three instructions; PICA200: a SHBIN, from one or more\n"
  "                files in picasso syntax). OUT.bin is written whole\n"
  "                or not at all. IN or OUT may be - for stdin or stdout.\n"
  "  disasm        disassemble a binary (its size a multiple of 8; SASS: 32;\n"
  "                PICA200: a SHBIN; AGX: raw instruction bytes) to OUT.s,\n"
  "                or to stdout without -o\n"
  "    --isa ISA   instruction set: qpu (VideoCore IV), sass (NVIDIA Maxwell),\n"
  "                pica (DMP PICA200, the 3DS's vertex shaders), agx (Apple\n"
  "                G13: raw 2-12 byte instructions, Mesa's syntax)\n"
  "    --base ADDR bus address the code is loaded at (default 0), used by\n"
  "                absolute branches to labels\n"
  "  view          show an image (PNG, or another format stb_image reads) in\n"
  "                a window until you quit, or for N frames with --frames N\n"
  "  diff          compare two images pixel by pixel; exit 0 when no channel\n"
  "                differs by more than T, 1 when some do, 2 on errors\n"
  "                (gpusim diff --help)\n"
  "  sph           print the fields of an 80-byte Shader Program Header\n"
  "                (--offset N: at byte N of a longer file; gpusim sph --help)\n"
  "  bench         interpreter benchmarks\n"
  "  test          render the cases of a reference-image manifest in parallel\n"
  "                processes and compare them with their references; exit 0\n"
  "                when all pass, 1 when some fail, 2 on errors (gpusim test\n"
  "                --help)\n"
  "  why           explain pixel (X, Y) of a scene's frame: every fragment that\n"
  "                reached it with its draw, programs and fate, the primitives\n"
  "                that cover it without a fragment and why, the final colour\n"
  "                (gpusim why --help; docs/provenance.md)\n"
  "  trace         the lane trace of the fragment program that last shaded pixel\n"
  "                (X, Y): pc, instruction, registers written (gpusim trace\n"
  "                --help; docs/debugger.md)\n"
  "  report        one self-contained HTML page about a frame: the frame, its\n"
  "                overlays, the control lists, tile statistics and each pixel's\n"
  "                provenance on a click (gpusim report --help; docs/report.md)\n"
  "\n"
  "Output files (-o, --dump-cl, asm -o, disasm -o, diff -o): - is standard\n"
  "output; a new or regular file is written whole or not at all (a temporary\n"
  "file beside it, renamed over it); a device, FIFO or socket is written in\n"
  "place, never replaced; a symbolic link's target is written, the link stays.\n"
  "\n"
  "Exit status: 0 on success, the script's os.exit status, 1 when the script\n"
  "or a tool fails (\"gpusim: file:line: message\" on stderr), 2 on a usage\n"
  "error.\n";

/* Prints "gpusim[ tool]: <message>" and the --help hint; returns EXIT_USAGE. */
static int usage_error(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int usage_error(const char *tool, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "gpusim%s%s: ", tool ? " " : "", tool ? tool : "");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'gpusim --help' for more information.\n");
  return EXIT_USAGE;
}

/* ---- asm and disasm ------------------------------------------------------- */

enum { TOOL_MAX_INPUTS = 16 };

typedef struct tool_args {
  const gs_isa *isa; /* --isa */
  const char *in;    /* the (first) input file */
  const char *ins[TOOL_MAX_INPUTS]; /* asm: every input file, for an ISA that links several */
  int nin;
  const char *out;   /* -o, NULL if not given */
  uint32_t base;     /* --base */
} tool_args;

/* Parses the arguments of `gpusim asm|disasm` (argv[0] is the tool name).
 * Returns -1 when they are valid, else the exit status to return (0 after
 * --help, EXIT_USAGE after a message). */
static int parse_tool_args(int argc, char **argv, const char *usage, tool_args *a) {
  const char *tool = argv[0], *base = NULL, *isa = NULL;
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if ((v = gs_cli_option(argc, argv, &i, "--isa", &missing))) {
      isa = v;
    } else if ((v = gs_cli_option(argc, argv, &i, "--base", &missing))) {
      base = v;
    } else if ((v = gs_cli_option(argc, argv, &i, "-o", &missing))) {
      a->out = v;
    } else if (missing) {
      return usage_error(tool, "option '%s' needs a value", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return usage_error(tool, "unknown option '%s'", argv[i]);
    } else if (a->nin == TOOL_MAX_INPUTS) {
      return usage_error(tool, "more than %d input files ('%s')", TOOL_MAX_INPUTS, argv[i]);
    } else {
      a->ins[a->nin++] = argv[i];
      if (!a->in) a->in = argv[i];
    }
  }
  if (!isa) return usage_error(tool, "--isa is required (known: %s)", gs_isa_names());
  if (!(a->isa = gs_isa_by_name(isa))) {
    fprintf(stderr, "gpusim %s: unknown ISA '%s' (known: %s)\n", tool, isa, gs_isa_names());
    return EXIT_USAGE;
  }
  if (!a->in) return usage_error(tool, "no input file");
  if (a->nin > 1 && (strcmp(tool, "asm") != 0 || !a->isa->assemble_files))
    return usage_error(tool, "more than one input file ('%s')%s", a->ins[1],
                       strcmp(tool, "asm") == 0 ? "; only PICA200 programs link several files" : "");
  if (base) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(base, &end, 0);
    if (errno || end == base || *end || base[0] == '-' || v > 0xFFFFFFFFull)
      return usage_error(tool, "--base '%s' is not a bus address (0 .. 0xffffffff)", base);
    a->base = (uint32_t)v;
  }
  return -1;
}

static const char asm_usage[] =
  "usage: gpusim asm --isa qpu|sass|pica|agx IN.s -o OUT.bin [--base ADDR]\n"
  "       gpusim asm --isa pica IN1.pica IN2.pica ... -o OUT.shbin\n"
  "Assembles IN.s into OUT.bin: QPU, 64-bit instruction words, little-endian,\n"
  "low 32 bits first; SASS, 32-byte groups of a control word and three\n"
  "instructions; PICA200, picasso syntax into a SHBIN file, several files into\n"
  "one SHBIN with an executable (DVLE) each, as picasso links them; AGX, Mesa's\n"
  "disassembler syntax into the raw instruction bytes. OUT.bin is\n"
  "written whole or not at all. - is stdin/stdout. Errors are printed as\n"
  "IN.s:LINE:COL: error: ... and exit with status 1.\n";

static const char disasm_usage[] =
  "usage: gpusim disasm --isa qpu|sass|pica|agx IN.bin [--base ADDR] [-o OUT.s]\n"
  "Disassembles IN.bin (QPU: a multiple of 8 bytes; SASS: of 32; PICA200: a\n"
  "SHBIN file; AGX: instruction bytes) to OUT.s, or to stdout, in text that\n"
  "assembles back to the same bytes (AGX: to the same text where Mesa chose a\n"
  "long form).\n";

/* gpusim asm: assembles a file. argv[0] is "asm". */
static int tool_asm(int argc, char **argv) {
  tool_args a;
  int rc = parse_tool_args(argc, argv, asm_usage, &a);
  if (rc >= 0) return rc;
  if (!a.out) return usage_error("asm", "no output file (-o OUT.bin)");
  char *texts[TOOL_MAX_INPUTS];
  const char *names[TOOL_MAX_INPUTS];
  int n = 0;
  rc = 0;
  for (; n < a.nin && !rc; n++) {
    names[n] = strcmp(a.ins[n], "-") == 0 ? "<stdin>" : a.ins[n];
    size_t len;
    if (gs_cli_read_file(a.ins[n], &texts[n], &len) < 0) {
      fprintf(stderr, "gpusim asm: cannot read %s: %s\n", names[n], strerror(errno));
      texts[n] = NULL;
      rc = 1;
    } else if (strlen(texts[n]) != len) {
      fprintf(stderr, "gpusim asm: %s: NUL byte at offset %zu: not a text file\n", names[n], strlen(texts[n]));
      rc = 1;
    }
  }
  gs_isa_binary bin;
  gs_diag d;
  gs_diag_clear(&d);
  if (!rc)
    rc = a.nin > 1 ? a.isa->assemble_files((const char *const *)texts, names, (size_t)a.nin, a.base, &bin, &d)
                   : a.isa->assemble(texts[0], names[0], a.base, &bin, &d);
  for (int i = 0; i < n; i++) free(texts[i]);
  if (rc > 0) return rc;
  if (rc < 0) {
    fprintf(stderr, "%s\n", d.msg[0] ? d.msg : "gpusim asm: assembly failed");
    return 1;
  }
  rc = 0;
  if (gs_cli_write_file(a.out, bin.bytes, bin.size) < 0) {
    fprintf(stderr, "gpusim asm: cannot write %s: %s\n", a.out, strerror(errno));
    rc = 1;
  }
  gs_isa_binary_free(&bin);
  return rc;
}

/* gpusim disasm: disassembles a file. argv[0] is "disasm". */
static int tool_disasm(int argc, char **argv) {
  tool_args a;
  int rc = parse_tool_args(argc, argv, disasm_usage, &a);
  if (rc >= 0) return rc;
  const char *name = strcmp(a.in, "-") == 0 ? "<stdin>" : a.in;
  char *bin;
  size_t len;
  if (gs_cli_read_file(a.in, &bin, &len) < 0) {
    fprintf(stderr, "gpusim disasm: cannot read %s: %s\n", name, strerror(errno));
    return 1;
  }
  char *text = NULL;
  gs_diag d;
  gs_diag_clear(&d);
  rc = len ? a.isa->disassemble((const uint8_t *)bin, len, a.base, &text, &d) : GS_OK;
  free(bin);
  if (rc < 0) {
    fprintf(stderr, "gpusim disasm: %s: %s\n", name, d.msg[0] ? d.msg : "disassembly failed");
    free(text);
    return 1;
  }
  const char *out = a.out ? a.out : "-";
  rc = 0;
  if (gs_cli_write_file(out, text ? text : "", text ? strlen(text) : 0) < 0) {
    fprintf(stderr, "gpusim disasm: cannot write %s: %s\n", strcmp(out, "-") ? out : "<stdout>",
            strerror(errno));
    rc = 1;
  }
  free(text);
  return rc;
}

/* ---- numbers on the command line ----------------------------------------- */

/* Parses a decimal whole number of digits only (no sign, no spaces) in
 * lo..hi into *v. Returns 0, or -1 when text is anything else. */
static int parse_count(const char *text, long lo, long hi, long *v) {
  long n = 0;
  if (!*text) return -1;
  for (const char *p = text; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    if (n > (hi - (*p - '0')) / 10) return -1;  /* beyond hi: stop before overflowing */
    n = n * 10 + (*p - '0');
  }
  if (n < lo) return -1;
  *v = n;
  return 0;
}

/* Parses --size's WxH (e.g. 640x480, each side 1..GS_MAX_SIDE) into *w, *h.
 * Returns -1 when the value is valid, else EXIT_USAGE after a message. */
static int parse_size(const char *text, int *w, int *h) {
  const char *x = strchr(text, 'x');
  char width[16];
  long wv, hv;
  size_t wlen = x ? (size_t)(x - text) : 0;
  if (!x || wlen == 0 || wlen >= sizeof width || !x[1])
    return usage_error(NULL, "--size: expected WxH like 640x480, got '%s'", text);
  memcpy(width, text, wlen);
  width[wlen] = '\0';
  if (parse_count(width, 0, 1000000, &wv) < 0 || parse_count(x + 1, 0, 1000000, &hv) < 0)
    return usage_error(NULL, "--size: expected WxH like 640x480, got '%s'", text);
  if (wv < 1 || hv < 1 || wv > GS_MAX_SIDE || hv > GS_MAX_SIDE)
    return usage_error(NULL, "--size: each side must be 1..%d (the viewport centre is a 12.4 number), got '%s'",
                       GS_MAX_SIDE, text);
  *w = (int)wv;
  *h = (int)hv;
  return -1;
}

/* Parses --frames N (1 .. 10^9) into *frames. Returns -1 when valid, else
 * EXIT_USAGE after a message naming `tool` (NULL for the script options). */
static int parse_frames(const char *tool, const char *text, long *frames) {
  if (parse_count(text, 1, 1000000000L, frames) < 0)
    return usage_error(tool, "--frames: expected a whole number of frames, 1 or more, got '%s'",
                       text);
  return -1;
}

/* The number of cores online, at least 1 and at most GS_MAX_THREADS. */
static int online_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > GS_MAX_THREADS ? GS_MAX_THREADS : (int)n;
}

/* ---- the window ----------------------------------------------------------- */

/* Shows `frame` in a window titled `title` until the user quits or, when
 * frames > 0, for that many frames. Returns GS_OK, or an error code with
 * the message in d (GS_WINDOW_NO_DISPLAY when there is no display). */
static int show_in_window(const char *title, const gs_image *frame, long frames, gs_diag *d) {
  gs_window *win;
  int rc = gs_window_open(&win, title, frame->width, frame->height, d);
  if (rc != GS_OK) return rc;
  for (long shown = 0; rc == GS_OK && !gs_window_poll(win);) {
    rc = gs_window_present(win, frame->pixels, (ptrdiff_t)frame->stride, d);
    if (frames > 0 && ++shown >= frames) break;
  }
  gs_window_close(win);
  return rc;
}

/* Builds "<prefix><the last component of path><suffix>" for a window
 * title in buf. */
static void window_title(char *buf, size_t size, const char *prefix, const char *path,
                         const char *suffix) {
  const char *slash = strrchr(path, '/');
  snprintf(buf, size, "%s%s%s", prefix, slash ? slash + 1 : path, suffix);
}

static const char view_usage[] =
  "usage: gpusim view IMAGE.png [--frames N]\n"
  "Shows IMAGE.png (or another format stb_image reads) in a window, upright\n"
  "and enlarged with nearest-pixel sampling, until you close the window or\n"
  "press Esc or q; with --frames N, for N frames (about N/60 s) only.\n";

/* gpusim view: shows an image. argv[0] is "view". */
static int tool_view(int argc, char **argv) {
  const char *path = NULL;
  long frames = 0;
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(view_usage, stdout);
      return 0;
    } else if ((v = gs_cli_option(argc, argv, &i, "--frames", &missing))) {
      int rc = parse_frames("view", v, &frames);
      if (rc >= 0) return rc;
    } else if (missing) {
      return usage_error("view", "option '%s' needs a value", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return usage_error("view", "unknown option '%s'", argv[i]);
    } else if (path) {
      return usage_error("view", "more than one image ('%s')", argv[i]);
    } else {
      path = argv[i];
    }
  }
  if (!path) return usage_error("view", "no image given");
  gs_diag d;
  gs_diag_clear(&d);
  gs_image image;
  if (gs_image_read_png(&image, path, &d) != GS_OK) {
    fprintf(stderr, "gpusim view: %s\n", d.msg);
    return 1;
  }
  char title[256];
  window_title(title, sizeof title, "gpusim view: ", path, "");
  int rc = show_in_window(title, &image, frames, &d);
  gs_image_free(&image);
  if (rc == GS_OK) return 0;
  fprintf(stderr, "gpusim view: %s\n", d.msg);
  if (rc == GS_WINDOW_NO_DISPLAY)
    fprintf(stderr, "gpusim view: a window needs a display (without one: xvfb-run -a gpusim view ...)\n");
  return 1;
}

/* ---- scripts -------------------------------------------------------------- */

/* Message handler for running the script: makes the error a string (using
 * __tostring if it has one) and, with --traceback, appends the traceback.
 * Upvalue 1 is the --traceback flag. */
static int message_handler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) msg = lua_tostring(L, -1);
    else msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  if (lua_toboolean(L, lua_upvalueindex(1))) luaL_traceback(L, L, msg, 1);
  else lua_pushstring(L, msg);
  return 1;
}

/* Builds the global `arg` as the lua interpreter does: arg[0] is the
 * script, arg[1..] its arguments, arg[-1..] the program and its options. */
static void create_arg_table(lua_State *L, int argc, char **argv, int script) {
  lua_createtable(L, argc - script - 1, script + 1);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

/* Puts the scene helpers (lua/vc4_shaders.lua, vecmath.lua, mesh.lua) on
 * package.path, before the default path:
 *   "<script's directory>/../lua/?.lua"  scenes/ beside lua/ (the sources)
 *   "<exe dir>/../share/lua/5.4/?.lua"  the installed helpers, for a
 *                                       program in <prefix>/bin
 *   "<exe dir>/lua/?.lua"               the build tree's copy (CMakeLists.txt)
 *   "./lua/?.lua"                       run from the repository root
 * so that a scene copied anywhere finds them. The program's directory comes
 * from /proc/self/exe; without it (or when it holds a ';' or '?', which
 * package.path cannot say) those two entries are left out. */
static void add_helper_path(lua_State *L, const char *script) {
  const char *slash = strrchr(script, '/');
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe);
  size_t exe_dir = 0; /* length of the program's directory, 0: unknown */
  if (n > 0 && (size_t)n < sizeof exe) {
    exe[n] = '\0';
    char *last = strrchr(exe, '/');
    if (last && last > exe && !strpbrk(exe, ";?")) exe_dir = (size_t)(last - exe);
  }
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  if (slash) luaL_addlstring(&b, script, (size_t)(slash - script));
  else luaL_addchar(&b, '.');
  luaL_addstring(&b, "/../lua/?.lua;");
  if (exe_dir) {
    luaL_addlstring(&b, exe, exe_dir);
    luaL_addstring(&b, "/../share/lua/5.4/?.lua;");
    luaL_addlstring(&b, exe, exe_dir);
    luaL_addstring(&b, "/lua/?.lua;");
  }
  luaL_addstring(&b, "./lua/?.lua;");
  lua_pushvalue(L, -2);
  luaL_addvalue(&b);
  luaL_pushresult(&b);
  lua_setfield(L, -3, "path");
  lua_pop(L, 2);
}

/* ---- rendering a scene's frames (docs/scenes.md) ------------------------- */

/* Pushes the gpusim module table (package.loaded.gpusim). */
static void push_module(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "gpusim");
  lua_remove(L, -2);
}

/* Renders frame n of the scene: gpusim.render{time = n / 60, threads =
 * --threads [, width =, height = from --size]} lowers the frame callback's
 * draws into control lists and runs them. Errors propagate through
 * `handler`, as the script's own. Pushes the frame table, or the error
 * message and returns its status. */
static int render_frame(lua_State *L, const gs_run_options *o, long n, int handler) {
  push_module(L);
  lua_getfield(L, -1, "render");
  lua_remove(L, -2);
  lua_createtable(L, 0, 4);
  lua_pushnumber(L, (lua_Number)n / 60.0);
  lua_setfield(L, -2, "time");
  lua_pushinteger(L, o->threads);
  lua_setfield(L, -2, "threads");
  if (o->width) {
    lua_pushinteger(L, o->width);
    lua_setfield(L, -2, "width");
    lua_pushinteger(L, o->height);
    lua_setfield(L, -2, "height");
  }
  return lua_pcall(L, 1, 1, handler);
}

static int frame_int(lua_State *L, int t, const char *k) {
  lua_getfield(L, t, k);
  int v = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* An RGBA16F channel (an IEEE half) as a byte: clamped to 0..1 (NaN to
 * 0), times 255, rounded to nearest. */
static uint8_t byte_of_half(const uint8_t *p) {
  double v = gs_half_value(p[0] | (uint32_t)p[1] << 8);
  if (!(v > 0.0)) return 0;
  return v >= 1.0 ? 255 : (uint8_t)floor(v * 255.0 + 0.5);
}

/* Makes img (empty on entry) an upright RGBA8 copy of the frame buffer of
 * the frame table at index t (RGBA8888; BGR565 widened as the store
 * packed it: R in bits 15:11, G 10:5, B 4:0; RGBA16F clamped to 0..1). */
static int frame_to_image(lua_State *L, int t, gs_image *img, gs_diag *d) {
  int w = frame_int(L, t, "width"), h = frame_int(L, t, "height"), stride = frame_int(L, t, "stride");
  gs_addr fb = (gs_addr)frame_int(L, t, "framebuffer");
  lua_getfield(L, t, "format");
  int is565 = strcmp(lua_tostring(L, -1), "bgr565") == 0, is16f = strcmp(lua_tostring(L, -1), "rgba16f") == 0;
  lua_pop(L, 1);
  const uint8_t *p = gs_mem_ptr(gs_gpu_mem(gs_lua_gpu(L)), fb, (uint32_t)stride * (uint32_t)h);
  if (!p) return gs_diag_set(d, GS_EFAULT, "the frame buffer at 0x%08x is gone", fb);
  return gs_app_framebuffer_image(p, w, h, stride, is565 ? GS_DRV_BGR565 : is16f ? GS_DRV_RGBA16F : GS_DRV_RGBA8888,
                                  img, d);
}

int gs_app_framebuffer_image(const uint8_t *p, int w, int h, int stride, gs_drv_format format, gs_image *img,
                             gs_diag *d) {
  int is565 = format == GS_DRV_BGR565, is16f = format == GS_DRV_RGBA16F;
  if (!is565 && !is16f) return gs_image_from_framebuffer(img, p, w, h, (size_t)stride, d);
  int rc = gs_image_alloc(img, w, h, d);
  if (rc != GS_OK) return rc;
  for (int y = 0; y < h; y++) {
    const uint8_t *row = p + (size_t)(h - 1 - y) * (size_t)stride;
    for (int x = 0; x < w; x++) {
      uint8_t *q = gs_image_pixel(img, x, y);
      if (is16f) {
        for (int c = 0; c < 4; c++) q[c] = byte_of_half(row + 8 * x + 2 * c);
        continue;
      }
      unsigned v = row[2 * x] | (unsigned)row[2 * x + 1] << 8;
      q[0] = (uint8_t)((v >> 11) * 255 / 31);
      q[1] = (uint8_t)((v >> 5 & 63) * 255 / 63);
      q[2] = (uint8_t)((v & 31) * 255 / 31);
      q[3] = 255;
    }
  }
  return GS_OK;
}

/* Writes the image of the frame table at t to path (whole or not at all). */
static void write_frame_png(lua_State *L, int t, const char *path) {
  gs_diag d;
  gs_diag_clear(&d);
  gs_image img = {0, 0, 0, NULL};
  int rc = frame_to_image(L, t, &img, &d);
  if (rc == GS_OK) rc = gs_image_write_png(&img, path, &d);
  gs_image_free(&img);
  if (rc != GS_OK) luaL_error(L, "%s", d.msg);
}

/* Writes the control lists of the frame table at t to path (whole or not
 * at all; "-" is standard output). */
static void write_frame_lists(lua_State *L, int t, const char *path) {
  gs_diag d;
  gs_diag_clear(&d);
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) luaL_error(L, "--dump-cl: %s", strerror(errno));
  int rc = gs_dumpcl_frame(gs_gpu_mem(gs_lua_gpu(L)), (gs_addr)frame_int(L, t, "bin_start"),
                           (gs_addr)frame_int(L, t, "bin_end"), (gs_addr)frame_int(L, t, "render_start"),
                           (gs_addr)frame_int(L, t, "render_end"), mem, &d);
  int ok = fclose(mem) == 0;
  if (rc == GS_OK && ok && gs_cli_write_file(path, text, len) < 0) {
    int err = errno;
    free(text);
    luaL_error(L, "--dump-cl: cannot write %s: %s", path, strerror(err));
  }
  free(text);
  if (rc != GS_OK) luaL_error(L, "--dump-cl: %s", d.msg);
  if (!ok) luaL_error(L, "--dump-cl: out of memory");
}

/* Shows the scene in a window, rendering a new frame for every one shown,
 * until the user quits or --frames frames have been shown. Returns GS_OK
 * with the last frame table on the stack; the window's error
 * (GS_WINDOW_NO_DISPLAY with no display: nothing has been rendered then);
 * or raises a rendering error once the window is closed. */
static int show_scene(lua_State *L, const gs_run_options *o, int handler, const char *script, gs_diag *d) {
  if (render_frame(L, o, 0, handler) != LUA_OK) lua_error(L);
  char title[256];
  window_title(title, sizeof title, "gpusim: ", strcmp(script, "-") ? script : "<stdin>", "");
  gs_window *win;
  int rc = gs_window_open(&win, title, frame_int(L, -1, "width"), frame_int(L, -1, "height"), d);
  if (rc != GS_OK) {
    lua_pop(L, 1);
    return rc;
  }
  int status = LUA_OK;
  gs_inspector *ins = gs_inspector_new(L, o->overlay, script); /* keys, overlays, panels (overlay.c) */
  long rendered = 0;
  for (long n = 0; !gs_window_poll(win);) {
    gs_image img = {0, 0, 0, NULL};
    int hold = 0;
    rc = frame_to_image(L, lua_gettop(L), &img, d);
    if (rc == GS_OK)
      rc = ins ? gs_inspector_present(ins, win, &img, rendered, &hold, d)
               : gs_window_present(win, img.pixels, (ptrdiff_t)img.stride, d);
    gs_image_free(&img);
    if (rc != GS_OK || (o->frames > 0 && ++n >= o->frames)) break;
    if (hold) continue; /* the inspector keeps this frame */
    lua_pop(L, 1);
    if ((status = render_frame(L, o, n, handler)) != LUA_OK) break;
    rendered = n;
  }
  gs_inspector_free(ins);
  gs_window_close(win);
  if (status != LUA_OK) lua_error(L);
  return rc;
}

/* Progress of a headless render of several frames, shown when standard
 * error is a terminal: "frame I/N" updated in place at most ten times a
 * second (and for the last frame), erased when the frames are done or one
 * fails. Nothing is written when standard error is not a terminal. */
typedef struct frame_progress {
  int on;        /* standard error is a terminal and there is more than one frame */
  int len;       /* characters of the line now shown, 0: none */
  double shown;  /* when it was last updated, in seconds */
} frame_progress;

/* Shows frame i (0-based) of n as started; i < 0 erases the line. */
static void show_frame_progress(frame_progress *p, long i, long n) {
  if (!p->on) return;
  if (i < 0) {
    if (p->len > 0) fprintf(stderr, "\r%*s\r", p->len, "");
    p->len = 0;
  } else {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    if (p->len > 0 && i + 1 < n && now - p->shown < 0.1) return;
    p->shown = now;
    int len = fprintf(stderr, "\rframe %ld/%ld", i + 1, n) - 1;
    if (len < p->len) fprintf(stderr, "%*s", p->len - len, "");  /* never shorter, but be safe */
    p->len = len > p->len ? len : p->len;
  }
  fflush(stderr);
}

/* Renders the scene of a script that registered a frame callback with
 * gpusim.frame: headless, --frames N frames (else one); with a window,
 * frame after frame while it is shown. Then -o writes the last frame as a
 * PNG. Returns 1 when the script has a scene, 0 when it has none. */
static int run_scene(lua_State *L, const gs_run_options *o, int handler, const char *script) {
  int top = lua_gettop(L);
  push_module(L);
  if (!lua_istable(L, -1)) return lua_settop(L, top), 0;
  lua_getfield(L, -1, "frame");
  lua_call(L, 0, 1);
  int has_scene = lua_isfunction(L, -1);
  lua_settop(L, top);
  if (!has_scene) return 0;
  int shown = 0;
  if (!o->headless) {
    gs_diag d;
    gs_diag_clear(&d);
    int rc = show_scene(L, o, handler, script, &d);
    if (rc == GS_WINDOW_NO_DISPLAY) fprintf(stderr, "gpusim: note: ran without a window: %s\n", d.msg);
    else if (rc != GS_OK) luaL_error(L, "%s", d.msg);
    else shown = 1;
  }
  if (!shown) {
    long n = o->frames > 0 ? o->frames : 1;
    frame_progress progress = {n > 1 && isatty(STDERR_FILENO), 0, 0.0};
    for (long i = 0; i < n; i++) {
      lua_settop(L, top);
      show_frame_progress(&progress, i, n);
      if (render_frame(L, o, i, handler) != LUA_OK) {
        show_frame_progress(&progress, -1, n);
        lua_error(L);
      }
    }
    show_frame_progress(&progress, -1, n);
  }
  if (o->output && o->overlay) {
    gs_diag d;
    gs_diag_clear(&d);
    if (gs_overlay_write_png(L, (gs_overlay_kind)o->overlay, o->output, &d) != GS_OK) luaL_error(L, "%s", d.msg);
  } else if (o->output) {
    write_frame_png(L, lua_gettop(L), o->output);
  }
  if (o->dump_cl) write_frame_lists(L, lua_gettop(L), o->dump_cl);
  if (o->capture) { /* --compare: the last frame, upright */
    gs_diag d;
    gs_diag_clear(&d);
    if (frame_to_image(L, lua_gettop(L), o->capture, &d) != GS_OK) luaL_error(L, "%s", d.msg);
  }
  if (o->why) gs_why_print(L, o->why, script);
  if (o->after_frames) o->after_frames(L, o->after_ctx);
  if (o->trace) gs_trace_print(L, o->trace);
  lua_settop(L, top);
  return 1;
}

/* The image reader gpusim.texture{file = ...} calls (registry field
 * "gpusim.load_image", see src/lua/lscene.c): loader(path) -> width,
 * height, RGBA bytes with the top row first; or nil and the message. The
 * program installs it because it links stb_image and the module does not. */
static int load_image_for_lua(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  gs_diag d;
  gs_diag_clear(&d);
  gs_image img = {0, 0, 0, NULL};
  if (gs_image_read_png(&img, path, &d) != GS_OK) {
    lua_pushnil(L);
    lua_pushstring(L, d.msg);
    return 2;
  }
  luaL_Buffer b;
  size_t row = (size_t)img.width * 4;
  char *out = luaL_buffinitsize(L, &b, row * (size_t)img.height);
  for (int y = 0; y < img.height; y++) memcpy(out + row * (size_t)y, gs_image_pixel(&img, 0, y), row);
  int w = img.width, h = img.height;
  gs_image_free(&img);
  luaL_pushresultsize(&b, row * (size_t)h);
  lua_pushinteger(L, w);
  lua_insert(L, -2);
  lua_pushinteger(L, h);
  lua_insert(L, -2);
  return 3;
}

/* Runs the script in protected mode. Arguments: the gs_run_options (light
 * userdata), argc and argv (light userdata). Errors propagate as strings
 * already formatted by message_handler. */
static int protected_main(lua_State *L) {
  const gs_run_options *o = lua_touserdata(L, 1);
  int argc = (int)lua_tointeger(L, 2);
  char **argv = lua_touserdata(L, 3);
  if (o->sandbox) gs_sandbox_open_libs(L);
  else luaL_openlibs(L);
  luaL_requiref(L, "gpusim", luaopen_gpusim, 0);
  gs_overlay_lua_register(L); /* gpusim.overlay: the program's, as gpusim.load_image */
  lua_pop(L, 1);
  lua_pushcfunction(L, load_image_for_lua);
  lua_setfield(L, LUA_REGISTRYINDEX, "gpusim.load_image");
  create_arg_table(L, argc, argv, o->script);
  add_helper_path(L, strcmp(argv[o->script], "-") == 0 ? "." : argv[o->script]);
  if (o->sandbox) gs_sandbox_seal(L, argv[o->script]);
  gs_limits_watch_calls(L, argv[o->script]);
  lua_pushboolean(L, o->traceback);
  lua_pushcclosure(L, message_handler, 1);
  int handler = lua_gettop(L);
  const char *path = argv[o->script];
  /* no precompiled chunks under --sandbox: bytecode is not checked */
  if (luaL_loadfilex(L, strcmp(path, "-") == 0 ? NULL : path, o->sandbox ? "t" : NULL) != LUA_OK)
    return lua_error(L);
  int nargs = argc - o->script - 1;
  luaL_checkstack(L, nargs, "too many script arguments");
  for (int i = o->script + 1; i < argc; i++) lua_pushstring(L, argv[i]);
  if (lua_pcall(L, nargs, 0, handler) != LUA_OK) return lua_error(L);
  lua_pushboolean(L, run_scene(L, o, handler, path));
  return 1;
}

/* Shows the test card in the window after a script without a scene has
 * run. With no display the run goes on without a window, saying so.
 * Returns the exit status. */
static int show_script_window(const gs_run_options *o, const char *script) {
  gs_diag d;
  gs_diag_clear(&d);
  gs_image frame;
  int w = o->width ? o->width : GS_DEFAULT_WIDTH, h = o->height ? o->height : GS_DEFAULT_HEIGHT;
  if (gs_image_alloc(&frame, w, h, &d) != GS_OK) {
    fprintf(stderr, "gpusim: %s\n", d.msg);
    return 1;
  }
  gs_image_fill_test_pattern(&frame);
  char title[256];
  window_title(title, sizeof title, "gpusim: ", strcmp(script, "-") ? script : "<stdin>",
               " (test card: the script registered no frame callback)");
  int rc = show_in_window(title, &frame, o->frames, &d);
  gs_image_free(&frame);
  if (rc == GS_OK) return 0;
  if (rc == GS_WINDOW_NO_DISPLAY) {
    fprintf(stderr, "gpusim: note: ran without a window: %s\n", d.msg);
    return 0;
  }
  fprintf(stderr, "gpusim: %s\n", d.msg);
  return 1;
}

/* Runs the script argv[o->script]; returns the exit status. A script with
 * a scene has shown and written it already (run_scene); a plain script
 * gets the test card in the window. */
static int run_script(const gs_run_options *o, int argc, char **argv) {
  gs_limits *lim;
  lua_State *L = gs_limits_newstate(o->memory_limit, o->time_limit, &lim);
  if (!L) {
    fprintf(stderr, "gpusim: cannot create the Lua state: out of memory\n");
    return 1;
  }
  lua_pushcfunction(L, protected_main);
  lua_pushlightuserdata(L, (void *)o);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  int status = lua_pcall(L, 3, 1, 0);
  gs_limits_stop(lim);
  int rc = 0, scene = 0;
  if (status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    if (!gs_limits_report(lim, argv[o->script], msg))
      fprintf(stderr, "gpusim: %s\n", msg ? msg : "(error object is not a string)");
    rc = 1;
  } else {
    scene = lua_toboolean(L, -1);
    if (gs_limits_report(lim, argv[o->script], NULL)) rc = 1;
  }
  lua_close(L);
  gs_limits_free(lim);
  /* An output that was asked for and not written is an error. */
  if (rc == 0 && !scene && (o->output || o->dump_cl)) {
    fprintf(stderr, "gpusim: %s %s: not written: the script rendered no frame (it registered no frame callback with gpusim.frame)\n",
            o->output ? "-o" : "--dump-cl", o->output ? o->output : o->dump_cl);
    rc = 1;
  }
  if (rc == 0 && !scene && o->trace) {
    fprintf(stderr, "gpusim trace: %s registered no frame callback with gpusim.frame: there is no frame to trace\n",
            argv[o->script]);
    rc = 1;
  }
  if (rc == 0 && !scene && o->why) {
    fprintf(stderr, "gpusim why: %s registered no frame callback with gpusim.frame: there is no frame to explain\n",
            argv[o->script]);
    rc = 1;
  }
  if (rc == 0 && !o->headless && !scene) rc = show_script_window(o, argv[o->script]);
  return rc;
}

/* Parses the options before the script into *o. Returns -1 when the script
 * is to run, else the exit status (0 after --help or --version, EXIT_USAGE
 * after a message). */
static int parse_run_options(int argc, char **argv, gs_run_options *o) {
  memset(o, 0, sizeof *o);
  o->threads = online_cores();
  int i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0, rc = -1;
    long n;
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage_text, stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("gpusim %s\n", GS_VERSION_STRING);
      return 0;
    } else if (strcmp(a, "--headless") == 0) {
      o->headless = 1;
    } else if (strcmp(a, "--traceback") == 0) {
      o->traceback = 1;
    } else if (strcmp(a, "--sandbox") == 0) {
      o->sandbox = 1;
    } else if ((v = gs_cli_option(argc, argv, &i, "--memory-limit", &missing))) {
      if (gs_limits_parse_size(v, &o->memory_limit) < 0)
        return usage_error(NULL, "--memory-limit: expected a size like 256M or 1G (bytes, or K, M, G for KiB, "
                                 "MiB, GiB), 1M to 1024G, got '%s'", v);
    } else if ((v = gs_cli_option(argc, argv, &i, "--time-limit", &missing))) {
      if (parse_count(v, 1, GS_LIMITS_MAX_SECONDS, &o->time_limit) < 0)
        return usage_error(NULL, "--time-limit: expected a whole number of seconds, 1 to %ld, got '%s'",
                           GS_LIMITS_MAX_SECONDS, v);
    } else if ((v = gs_cli_option(argc, argv, &i, "-o", &missing))) {
      o->output = v;
    } else if ((v = gs_cli_option(argc, argv, &i, "--size", &missing))) {
      rc = parse_size(v, &o->width, &o->height);
    } else if ((v = gs_cli_option(argc, argv, &i, "--frames", &missing))) {
      rc = parse_frames(NULL, v, &o->frames);
    } else if ((v = gs_cli_option(argc, argv, &i, "--overlay", &missing))) {
      if ((o->overlay = gs_overlay_by_name(v)) < 0) {
        gs_overlay_help(strcmp(v, "help") == 0 ? stdout : stderr);
        if (strcmp(v, "help") == 0) return 0;
        return usage_error(NULL, "--overlay: unknown overlay '%s'", v);
      }
    } else if ((v = gs_cli_option(argc, argv, &i, "--dump-cl", &missing))) {
      o->dump_cl = v;
    } else if ((v = gs_cli_option(argc, argv, &i, "--threads", &missing))) {
      if (parse_count(v, 1, GS_MAX_THREADS, &n) < 0)
        return usage_error(NULL, "--threads: expected a whole number of threads 1..%d, got '%s'",
                           GS_MAX_THREADS, v);
      o->threads = (int)n;
    } else if (missing) {
      return usage_error(NULL, "option '%s' needs a value", a);
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error(NULL, "unknown option '%s'", a);
    } else {
      break;
    }
    if (rc >= 0) return rc;
  }
  if (i >= argc) return usage_error(NULL, "no script given");
  if (o->sandbox && !o->memory_limit) o->memory_limit = GS_SANDBOX_MEMORY_LIMIT;
  if (o->sandbox && !o->time_limit) o->time_limit = GS_SANDBOX_TIME_LIMIT;
  if (o->output && o->dump_cl && strcmp(o->output, "-") == 0 && strcmp(o->dump_cl, "-") == 0)
    return usage_error(NULL, "-o - and --dump-cl - would both write to standard output");
  o->script = i;
  return -1;
}

int main(int argc, char **argv) {
  if (argc >= 2) {
    if (strcmp(argv[1], "asm") == 0) return tool_asm(argc - 1, argv + 1);
    if (strcmp(argv[1], "disasm") == 0) return tool_disasm(argc - 1, argv + 1);
    if (strcmp(argv[1], "view") == 0) return tool_view(argc - 1, argv + 1);
    if (strcmp(argv[1], "diff") == 0) {
      int rc = gs_framediff_main(argc - 1, argv + 1, run_script); /* -1: no --frames, two images */
      return rc >= 0 ? rc : gs_diff_main(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "dump-cl") == 0) return gs_dumpcl_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "sph") == 0) return gs_sph_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "bench") == 0) return gs_bench_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "test") == 0) return gs_test_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "why") == 0) return gs_why_main(argc - 1, argv + 1, run_script);
    if (strcmp(argv[1], "report") == 0) return gs_report_main(argc - 1, argv + 1, run_script);
    if (strcmp(argv[1], "trace") == 0) return gs_trace_main(argc - 1, argv + 1, run_script);
  }
  gs_run_options o;
  int rc = parse_run_options(argc, argv, &o);
  if (rc >= 0) return rc;
  for (int i = o.script + 1; i < argc; i++) /* SCENE.lua [ARGS...] --compare COMBO... (compare.c) */
    if (strcmp(argv[i], "--compare") == 0) return gs_compare_main(&o, argc, argv, i, run_script);
  return run_script(&o, argc, argv);
}
