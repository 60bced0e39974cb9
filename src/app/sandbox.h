/* sandbox.h — the limits and the sandbox of a script run (sandbox.c;
 * docs/sandbox.md):
 *
 *   gpusim --sandbox [--memory-limit SIZE] [--time-limit SECONDS] SCRIPT.lua
 *
 * Limits (usable without --sandbox too):
 *   - memory: the Lua state's allocator refuses to grow past SIZE bytes, so
 *     Lua raises its "not enough memory" error; gs_limits_report turns it
 *     into "memory limit of 16 MiB exceeded (--memory-limit)". GPU memory
 *     (gpusim.mem.alloc, buffers, targets) has its own fixed bound,
 *     GS_MEM_DEFAULT_LIMIT.
 *   - time: wall-clock seconds from the creation of the state. At the
 *     deadline a watchdog thread sends the main thread GS_LIMITS_SIGNAL, whose
 *     handler sets a count hook of 1 (as the lua interpreter does for
 *     Ctrl-C), so the main thread's Lua code runs without a hook until then.
 *     Coroutines, which the signal cannot reach, get a count hook that reads
 *     the monotonic clock every GS_LIMITS_HOOK_COUNT instructions (set by
 *     coroutine.create and coroutine.wrap). gpusim.render, gpusim.qpu.run
 *     and gpusim.v3d.run check the clock before and after they run (so every
 *     frame a scene renders is a check). Past the limit the error is raised
 *     at the script's file:line and again at every instruction, so pcall
 *     cannot swallow it. A call that is still running
 *     GS_LIMITS_GRACE_SECONDS after the limit (into the simulator, or C code
 *     of a library) is ended with the process (exit status 1, the same
 *     message). Without the watchdog thread (it could not start) the main
 *     thread keeps the count hook.
 *
 * The sandbox (--sandbox) opens base (without dofile and loadfile; load
 * takes text chunks only), string, table, math, utf8 and coroutine; os
 * keeps clock, date, difftime, time and exit, io keeps write (standard
 * output); every other field of io, os, debug and package raises "io.open
 * is not available under --sandbox". require loads gpusim and the Lua
 * helpers from the directories add_helper_path put on package.path (text
 * chunks only), nothing else; gpusim.texture{file=} reads images only under
 * the script's directory and the assets/ directory beside it.
 */
#ifndef GS_APP_SANDBOX_H
#define GS_APP_SANDBOX_H

#include <stddef.h>
#include <lua.h>

/* The limits --sandbox sets when --memory-limit or --time-limit is not
 * given. */
#define GS_SANDBOX_MEMORY_LIMIT ((size_t)256 << 20)
#define GS_SANDBOX_TIME_LIMIT 60L

/* Lua instructions between two looks at the clock. */
#define GS_LIMITS_HOOK_COUNT 1000
/* How long past the time limit a call into the simulator may run before
 * the process is ended. */
#define GS_LIMITS_GRACE_SECONDS 2

/* Smallest and largest --memory-limit: 1 MiB .. 1 TiB. */
#define GS_LIMITS_MIN_MEMORY ((size_t)1 << 20)
#define GS_LIMITS_MAX_MEMORY ((size_t)1 << 40)
/* Largest --time-limit, in whole seconds (11.5 days). */
#define GS_LIMITS_MAX_SECONDS 1000000L

/* Parses a --memory-limit SIZE: a whole number of bytes, or of KiB, MiB,
 * GiB with a K, M, G suffix (either case, "iB" allowed after it), in
 * GS_LIMITS_MIN_MEMORY .. GS_LIMITS_MAX_MEMORY. Returns 0, or -1. */
int gs_limits_parse_size(const char *text, size_t *bytes);

/* The limits of one script run. */
typedef struct gs_limits gs_limits;

/* Creates the Lua state of a script run with these limits (0: none). With
 * neither, it is a plain luaL_newstate and *lim is NULL. Returns NULL when
 * the host is out of memory. The time starts now. */
lua_State *gs_limits_newstate(size_t memory, long seconds, gs_limits **lim);

/* Makes gpusim.render, gpusim.qpu.run and gpusim.v3d.run check the time
 * limit before and after they run, and starts the watchdog thread that
 * ends a call running GS_LIMITS_GRACE_SECONDS past the limit, naming
 * `script` ("-": standard input). Call after the gpusim module is open;
 * does nothing without a time limit. */
void gs_limits_watch_calls(lua_State *L, const char *script);

/* Stops the clock (the watchdog thread that ends a call into the simulator
 * running past the limit). Call when the script's run is over, before
 * lua_close. NULL does nothing. */
void gs_limits_stop(gs_limits *lim);

/* Reports a limit that ended the run of `script` on stderr. msg is the
 * run's error message, NULL when it succeeded. Returns 1 when it printed
 * the report (which replaces msg), 0 when msg is to be printed as it is. */
int gs_limits_report(const gs_limits *lim, const char *script, const char *msg);

/* Frees the limits after lua_close. NULL does nothing. */
void gs_limits_free(gs_limits *lim);

/* Opens the libraries a sandboxed script gets (in place of luaL_openlibs)
 * and a global `package` holding only an empty `path`, for
 * add_helper_path. */
void gs_sandbox_open_libs(lua_State *L);

/* Seals the sandbox once the gpusim module is open, the image loader is in
 * the registry and add_helper_path has run: require, load, dofile,
 * loadfile, io, os, debug, package and the image loader as described
 * above. script is the script's path ("-": standard input). */
void gs_sandbox_seal(lua_State *L, const char *script);

#endif
