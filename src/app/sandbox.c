/* sandbox.c — --memory-limit, --time-limit and --sandbox for script runs
 * (sandbox.h; docs/sandbox.md). */
#define _XOPEN_SOURCE 700 /* realpath, beside the build's POSIX 2008 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include "app/sandbox.h"

/* ---- parsing ---------------------------------------------------------------- */

int gs_limits_parse_size(const char *text, size_t *bytes) {
  unsigned long long n = 0;
  const char *p = text;
  if (*p < '0' || *p > '9') return -1;
  for (; *p >= '0' && *p <= '9'; p++) {
    n = n * 10 + (unsigned)(*p - '0');
    if (n > GS_LIMITS_MAX_MEMORY) return -1;
  }
  unsigned shift = 0;
  switch (*p) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case '\0': break;
    default: return -1;
  }
  if (shift) {
    p++;
    if (strcmp(p, "iB") == 0) p += 2;
  }
  if (*p || n > (GS_LIMITS_MAX_MEMORY >> shift)) return -1;
  n <<= shift;
  if (n < GS_LIMITS_MIN_MEMORY) return -1;
  *bytes = (size_t)n;
  return 0;
}

/* "16 MiB", "1 GiB", "1536 KiB", "1048577 bytes". */
static void format_size(char *buf, size_t size, size_t bytes) {
  static const char *const units[] = {"GiB", "MiB", "KiB"};
  for (int i = 0; i < 3; i++) {
    size_t unit = (size_t)1 << (30 - 10 * i);
    if (bytes % unit == 0) {
      snprintf(buf, size, "%zu %s", bytes / unit, units[i]);
      return;
    }
  }
  snprintf(buf, size, "%zu bytes", bytes);
}

/* ---- the limits ------------------------------------------------------------- */

struct gs_limits {
  /* memory */
  lua_Alloc base;        /* the allocator luaL_newstate chose */
  void *base_ud;
  size_t memory;         /* the cap in bytes; SIZE_MAX: none */
  size_t used;           /* bytes the state holds */
  int refused;           /* an allocation was refused */
  lua_State *L;          /* the main thread, whose stack the allocator reads */
  char where[1024];      /* "file:line" of the Lua code at the last refusal; "" if none */
  /* time */
  long seconds;          /* 0: none */
  struct timespec deadline, hard_deadline;  /* CLOCK_MONOTONIC */
  int timed_out;         /* the hook or a call saw the deadline pass */
  _Atomic(const char *) in_call;  /* the simulator call running, for the watchdog */
  char *script;          /* for the watchdog's message */
  int watching;          /* the watchdog thread runs */
  int stopping;
  pthread_t main_thread; /* the thread running the script, signalled at the deadline */
  pthread_t watchdog;
  pthread_mutex_t lock;
  pthread_cond_t wake;
};

static const char time_message[] = "time limit of %d s exceeded (--time-limit)";

/* The signal the watchdog thread sends the main thread at the deadline. */
#define GS_LIMITS_SIGNAL SIGALRM

/* The main Lua thread of a run whose watchdog signals it at the deadline;
 * NULL before, and once the state is closing (clear_signal_state, a
 * finalizer). Read by the signal handler. */
static _Atomic(lua_State *) signal_L;

/* Lua raises a memory error without calling a message handler, from a
 * stack already unwound when it surfaces, so the place is taken when the
 * allocator refuses: the innermost Lua function on the main thread's stack
 * (in a coroutine: where the main thread resumed it), its file and line,
 * into lim->where. Up to Lua 5.4.4 a stack moves by allocating the new one
 * while the old stays whole, so the stack can be read at any allocation;
 * later releases resize it in place, its frames' pointers turned into
 * offsets meanwhile, so only the allocation of a new block (ptr NULL)
 * finds it readable there. */
static void note_where(gs_limits *lim, const void *ptr) {
  lim->where[0] = '\0';
#if LUA_VERSION_RELEASE_NUM > 50404
  if (ptr) return;
#else
  (void)ptr;
#endif
  lua_Debug ar;
  for (int level = 0; lim->L && lua_getstack(lim->L, level, &ar); level++)
    if (lua_getinfo(lim->L, "Sl", &ar) && ar.currentline > 0) {
      snprintf(lim->where, sizeof lim->where, "%s:%d", ar.source[0] == '@' ? ar.source + 1 : ar.short_src,
               ar.currentline);
      return;
    }
}

/* The allocator of a state with limits: the base allocator, refusing to
 * grow the state's total past lim->memory. Frees and shrinks always
 * succeed, as Lua requires. */
static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  gs_limits *lim = ud;
  size_t old = ptr ? osize : 0; /* osize is a type tag for new blocks */
  if (nsize > old && (lim->used > lim->memory || nsize - old > lim->memory - lim->used)) {
    lim->refused = 1;
    note_where(lim, ptr);
    return NULL; /* Lua collects garbage, tries once more, then raises */
  }
  void *p = lim->base(lim->base_ud, ptr, osize, nsize);
  if (p || nsize == 0) lim->used = lim->used - old + nsize;
  return p;
}

/* The limits of L's state, or NULL when it has none. */
static gs_limits *limits_of(lua_State *L) {
  void *ud;
  return lua_getallocf(L, &ud) == limited_alloc ? ud : NULL;
}

static int past(const struct timespec *t) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/* The count hook: past the deadline, raises the time-limit error at the
 * running line, and from then on at every instruction of this coroutine.
 * Before it (the deadline signal came from elsewhere), the main thread
 * goes back to running without a hook. */
static void time_hook(lua_State *L, lua_Debug *ar) {
  gs_limits *lim = limits_of(L);
  if (!lim) return;
  if (!past(&lim->deadline)) {
    if (L == atomic_load(&signal_L)) lua_sethook(L, NULL, 0, 0);
    return;
  }
  lim->timed_out = 1;
  lua_sethook(L, time_hook, LUA_MASKCOUNT, 1);
  if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
    lua_pushfstring(L, "%s:%d: ", ar->short_src, ar->currentline);
  else
    lua_pushliteral(L, "");
  lua_pushfstring(L, time_message, (int)lim->seconds);
  lua_concat(L, 2);
  lua_error(L);
}

/* Raises the time-limit error, naming the call, when the deadline has
 * passed. */
static void check_time(lua_State *L, gs_limits *lim, const char *call) {
  if (!past(&lim->deadline)) return;
  lim->timed_out = 1;
  lua_sethook(L, time_hook, LUA_MASKCOUNT, 1);
  luaL_where(L, 1);
  if (lua_rawlen(L, -1) == 0 && lim->script) { /* called by the program: rendering a scene's frame */
    lua_pop(L, 1);
    lua_pushfstring(L, "%s: ", lim->script);
  }
  lua_pushfstring(L, time_message, (int)lim->seconds);
  lua_pushfstring(L, " in %s", call);
  lua_concat(L, 3);
  lua_error(L);
}

/* GS_LIMITS_SIGNAL's handler: sets the count hook on the main thread with a
 * count of 1, so the time limit is raised at its next Lua instruction. As
 * the lua interpreter does for Ctrl-C: lua_sethook may be called from a
 * signal handler (ldebug.c). */
static void on_deadline(int sig) {
  (void)sig;
  lua_State *L = atomic_load(&signal_L);
  if (L) lua_sethook(L, time_hook, LUA_MASKCOUNT, 1);
}

static int clear_signal_state(lua_State *L) {
  (void)L;
  atomic_store(&signal_L, NULL);
  return 0;
}

/* Waits on the watchdog's condition until *t or gs_limits_stop. Returns 1
 * when t came first. Called with lim->lock held. */
static int wait_until(gs_limits *lim, const struct timespec *t) {
  int rc = 0;
  while (!lim->stopping && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&lim->wake, &lim->lock, t);
  return !lim->stopping;
}

/* The watchdog thread: at the deadline, signals the main thread (whose Lua
 * code then stops at its next instruction); at the hard deadline, ends the
 * process, as a call into the simulator has not come back. Returns early
 * when gs_limits_stop comes first. */
static void *watchdog_main(void *arg) {
  gs_limits *lim = arg;
  pthread_mutex_lock(&lim->lock);
  if (wait_until(lim, &lim->deadline)) pthread_kill(lim->main_thread, GS_LIMITS_SIGNAL);
  int stop = wait_until(lim, &lim->hard_deadline);
  pthread_mutex_unlock(&lim->lock);
  if (!stop) return NULL;
  const char *call = atomic_load(&lim->in_call);
  if (ftrylockfile(stdout) == 0) { /* keep what the script printed, unless stdout is busy */
    fflush(stdout);
    funlockfile(stdout);
  }
  fprintf(stderr, "gpusim: %s: ", lim->script);
  fprintf(stderr, time_message, (int)lim->seconds);
  /* a call into the simulator, or a message handler (which runs without
   * hooks), did not come back in time */
  fprintf(stderr, "; the run was ended %d s later%s%s\n", GS_LIMITS_GRACE_SECONDS, call ? " inside " : "",
          call ? call : "");
  _exit(1);
}

static int start_watchdog(gs_limits *lim) {
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr) != 0) return -1;
  int ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&lim->wake, &attr) == 0;
  pthread_condattr_destroy(&attr);
  if (!ok) return -1;
  if (pthread_mutex_init(&lim->lock, NULL) != 0) {
    pthread_cond_destroy(&lim->wake);
    return -1;
  }
  if (pthread_create(&lim->watchdog, NULL, watchdog_main, lim) != 0) {
    pthread_mutex_destroy(&lim->lock);
    pthread_cond_destroy(&lim->wake);
    return -1;
  }
  lim->watching = 1;
  return 0;
}

lua_State *gs_limits_newstate(size_t memory, long seconds, gs_limits **limp) {
  *limp = NULL;
  lua_State *L = luaL_newstate();
  if (!L || (!memory && !seconds)) return L;
  gs_limits *lim = calloc(1, sizeof *lim);
  if (!lim) {
    lua_close(L);
    return NULL;
  }
  lim->base = lua_getallocf(L, &lim->base_ud);
  lim->L = L;
  lim->memory = memory ? memory : SIZE_MAX;
  /* What the new state holds already, as Lua counts it: exactly the sizes
   * it passed to the allocator. */
  lim->used = (size_t)lua_gc(L, LUA_GCCOUNT) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB);
  lim->seconds = seconds;
  atomic_init(&lim->in_call, NULL);
  lua_setallocf(L, limited_alloc, lim);
  if (seconds) {
    clock_gettime(CLOCK_MONOTONIC, &lim->deadline);
    lim->deadline.tv_sec += seconds;
    lim->hard_deadline = lim->deadline;
    lim->hard_deadline.tv_sec += GS_LIMITS_GRACE_SECONDS;
    lua_sethook(L, time_hook, LUA_MASKCOUNT, GS_LIMITS_HOOK_COUNT);
  }
  *limp = lim;
  return L;
}

/* coroutine.create or coroutine.wrap (upvalue 1, the library's C
 * function, run in this call frame) that sets the count hook on the new
 * coroutine: the deadline signal reaches only the main thread's hook. */
static int hooked_coroutine(lua_State *L) {
  int n = lua_tocfunction(L, lua_upvalueindex(1))(L);
  lua_State *co = NULL;
  if (lua_isthread(L, -1)) {
    co = lua_tothread(L, -1);
  } else if (lua_getupvalue(L, -1, 1)) { /* wrap's function holds its coroutine */
    co = lua_tothread(L, -1);
    lua_pop(L, 1);
  }
  if (co) lua_sethook(co, time_hook, LUA_MASKCOUNT, GS_LIMITS_HOOK_COUNT);
  return n;
}

/* Starts the watchdog thread, which names the script in its message, and
 * moves the main thread's time checks from the count hook to the deadline
 * signal: its Lua code then runs without a hook until the deadline. */
static void watch_script(lua_State *L, gs_limits *lim, const char *script) {
  if (lim->watching) return;
  lim->script = strdup(strcmp(script, "-") ? script : "<stdin>");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_deadline;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  lim->main_thread = pthread_self();
  if (!lim->script || sigaction(GS_LIMITS_SIGNAL, &sa, NULL) != 0 || start_watchdog(lim) < 0) {
    fprintf(stderr, "gpusim: note: no watchdog thread: a call into the simulator can run past --time-limit\n");
    return; /* the count hook stays on the main thread */
  }
  atomic_store(&signal_L, L);
  lua_newuserdatauv(L, 0, 0); /* cleared when the state closes, before it is freed */
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, clear_signal_state);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, "gpusim.limits_signal");
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, LUA_COLIBNAME) == LUA_TTABLE) {
    static const char *const makers[] = {"create", "wrap"};
    for (int i = 0; i < 2; i++) {
      if (lua_getfield(L, -1, makers[i]) == LUA_TFUNCTION && lua_tocfunction(L, -1)) {
        lua_pushcclosure(L, hooked_coroutine, 1);
        lua_setfield(L, -2, makers[i]);
      } else {
        lua_pop(L, 1);
      }
    }
  }
  lua_pop(L, 2);
  lua_sethook(L, NULL, 0, 0);
}

/* The pointer marking where a timed call's own upvalues end. */
static char timed_marker;

/* A gpusim function that checks the time limit before and after it runs.
 * Upvalues: the wrapped closure's own, then &timed_marker, the wrapped C
 * function and its name. It runs the wrapped function in its own call
 * frame, so errors still name the script's line and 'gpusim.render'. */
static int timed_call(lua_State *L) {
  int i = 1;
  while (lua_touserdata(L, lua_upvalueindex(i)) != &timed_marker) i++;
  lua_CFunction f = lua_tocfunction(L, lua_upvalueindex(i + 1));
  const char *name = lua_tostring(L, lua_upvalueindex(i + 2));
  gs_limits *lim = limits_of(L);
  check_time(L, lim, name);
  const char *outer = atomic_exchange(&lim->in_call, name); /* gpusim.render runs Lua that may call */
  int n = f(L);
  atomic_store(&lim->in_call, outer);
  check_time(L, lim, name);
  return n;
}

/* Replaces field `field` of the table on top of the stack, a C closure,
 * by a timed_call around it named `name`. */
static void wrap_timed(lua_State *L, const char *field, const char *name) {
  if (lua_getfield(L, -1, field) != LUA_TFUNCTION || !lua_iscfunction(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  int fn = lua_gettop(L), n = 0;
  while (n < 250 && lua_getupvalue(L, fn, n + 1)) n++;
  if (n == 250) { /* too many to wrap (never for the gpusim functions) */
    lua_settop(L, fn - 1);
    return;
  }
  lua_pushlightuserdata(L, &timed_marker);
  lua_pushcfunction(L, lua_tocfunction(L, fn));
  lua_pushstring(L, name);
  lua_pushcclosure(L, timed_call, n + 3);
  lua_setfield(L, fn - 1, field);
  lua_pop(L, 1);
}

void gs_limits_watch_calls(lua_State *L, const char *script) {
  gs_limits *lim = limits_of(L);
  if (!lim || !lim->seconds) return;
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, "gpusim") == LUA_TTABLE) {
    wrap_timed(L, "render", "gpusim.render");
    if (lua_getfield(L, -1, "qpu") == LUA_TTABLE) wrap_timed(L, "run", "gpusim.qpu.run");
    lua_pop(L, 1);
    if (lua_getfield(L, -1, "v3d") == LUA_TTABLE) wrap_timed(L, "run", "gpusim.v3d.run");
    lua_pop(L, 1);
  }
  lua_settop(L, top);
  watch_script(L, lim, script);
}

void gs_limits_stop(gs_limits *lim) {
  if (!lim || !lim->watching) return;
  pthread_mutex_lock(&lim->lock);
  lim->stopping = 1;
  pthread_cond_signal(&lim->wake);
  pthread_mutex_unlock(&lim->lock);
  pthread_join(lim->watchdog, NULL);
  pthread_mutex_destroy(&lim->lock);
  pthread_cond_destroy(&lim->wake);
  lim->watching = 0;
}

int gs_limits_report(const gs_limits *lim, const char *script, const char *msg) {
  if (!lim) return 0;
  const char *name = strcmp(script, "-") ? script : "<stdin>";
  if (lim->refused && msg && strcmp(msg, "not enough memory") == 0) {
    char size[64];
    format_size(size, sizeof size, lim->memory);
    fprintf(stderr, "gpusim: %s: memory limit of %s exceeded (--memory-limit)\n", lim->where[0] ? lim->where : name,
            size);
    return 1;
  }
  if (lim->timed_out && (!msg || !strstr(msg, "(--time-limit)"))) {
    /* the script's error handling turned the message into another one */
    if (msg) fprintf(stderr, "gpusim: %s\n", msg);
    fprintf(stderr, "gpusim: %s: ", name);
    fprintf(stderr, time_message, (int)lim->seconds);
    fputc('\n', stderr);
    return 1;
  }
  return 0;
}

void gs_limits_free(gs_limits *lim) {
  if (!lim) return;
  gs_limits_stop(lim);
  free(lim->script);
  free(lim);
}

/* ---- the sandbox ------------------------------------------------------------ */

static const char docs_hint[] = "docs/sandbox.md";

/* __index of a library that is missing or cut down under --sandbox: every
 * field it does not hold raises "io.open is not available under --sandbox".
 * Upvalue 1: the library's name. */
static int refuse_field(lua_State *L) {
  const char *lib = lua_tostring(L, lua_upvalueindex(1));
  if (lua_type(L, 2) == LUA_TSTRING)
    return luaL_error(L, "%s.%s is not available under --sandbox (%s)", lib, lua_tostring(L, 2), docs_hint);
  return luaL_error(L, "%s is not available under --sandbox (%s)", lib, docs_hint);
}

/* Makes the table on top of the stack refuse the fields it lacks, and
 * sets it as the global `lib`. */
static void set_refusing_global(lua_State *L, const char *lib) {
  lua_createtable(L, 0, 1);
  lua_pushstring(L, lib);
  lua_pushcclosure(L, refuse_field, 1);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "not available under --sandbox");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_setglobal(L, lib);
}

/* A base function that is not available. Upvalue 1: its name. */
static int refuse_call(lua_State *L) {
  return luaL_error(L, "%s is not available under --sandbox: a script reads no files (%s)",
                    lua_tostring(L, lua_upvalueindex(1)), docs_hint);
}

/* load(chunk [, chunkname [, mode [, env]]]) taking text chunks only: the
 * base library's load (upvalue 1, a C function) run in this call frame
 * with mode "t". */
static int sandbox_load(lua_State *L) {
  static const char binary[] = "load: binary chunks (string.dump) are not available under --sandbox (%s)";
  lua_CFunction load = lua_tocfunction(L, lua_upvalueindex(1));
  if (lua_type(L, 1) == LUA_TSTRING && lua_tostring(L, 1)[0] == LUA_SIGNATURE[0])
    return luaL_error(L, binary, docs_hint);
  if (lua_gettop(L) < 3) lua_settop(L, 3);
  lua_pushliteral(L, "t");
  lua_replace(L, 3);
  int n = load(L);
  /* a reader function that returned a binary chunk */
  if (n == 2 && lua_isnil(L, -2) && strstr(lua_tostring(L, -1), "attempt to load a binary chunk"))
    return luaL_error(L, binary, docs_hint);
  return n;
}

/* io.write(...) on standard output, as the io library's: strings and
 * numbers. Returns nothing (there is no file object). */
static int sandbox_write(lua_State *L) {
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++) {
    if (lua_type(L, i) == LUA_TNUMBER) {
      if (lua_isinteger(L, i)) printf(LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, i));
      else printf(LUA_NUMBER_FMT, (LUAI_UACNUMBER)lua_tonumber(L, i));
    } else {
      size_t len;
      const char *s = luaL_checklstring(L, i, &len);
      fwrite(s, 1, len, stdout);
    }
  }
  return 0;
}

/* require(name) under --sandbox: a module already loaded (gpusim, the
 * standard libraries), or a Lua helper found on the helper path (upvalue 1,
 * package.path as add_helper_path left it), loaded as text. Names are
 * letters, digits and '_': no C modules, no paths. */
static int sandbox_require(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_settop(L, 1);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE); /* 2 */
  lua_getfield(L, 2, name);
  if (lua_toboolean(L, -1)) return 1;
  lua_pop(L, 1);
  size_t len = strlen(name);
  int plain = len > 0 && len < 128;
  for (const char *p = name; *p; p++)
    plain &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
  const char *path = lua_tostring(L, lua_upvalueindex(1));
  luaL_Buffer b;
  const char *file = NULL;
  while (plain && *path && !file) {
    const char *end = strchr(path, ';');
    if (!end) end = path + strlen(path);
    luaL_buffinit(L, &b);
    for (const char *p = path; p < end; p++) {
      if (*p == '?') luaL_addstring(&b, name);
      else luaL_addchar(&b, *p);
    }
    luaL_pushresult(&b);
    FILE *f = end > path ? fopen(lua_tostring(L, -1), "r") : NULL;
    if (f) {
      fclose(f);
      file = lua_tostring(L, -1); /* stays at index 3 */
    } else {
      lua_pop(L, 1);
    }
    path = *end ? end + 1 : end;
  }
  if (!file)
    return luaL_error(L,
                      "module '%s' is not available under --sandbox: only gpusim and the Lua helpers "
                      "(lua/*.lua: vecmath, mesh, vc4_shaders, ...) can be required (%s)",
                      name, docs_hint);
  if (luaL_loadfilex(L, file, "t") != LUA_OK)
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file, lua_tostring(L, -1));
  lua_pushstring(L, name);
  lua_pushvalue(L, 3);
  lua_call(L, 2, 1);
  if (!lua_isnil(L, -1)) lua_setfield(L, 2, name);
  else lua_pop(L, 1);
  if (lua_getfield(L, 2, name) == LUA_TNIL) {
    lua_pushboolean(L, 1);
    lua_copy(L, -1, -2);
    lua_setfield(L, 2, name);
  }
  lua_pushvalue(L, 3);
  return 2;
}

/* The image loader under --sandbox: upvalue 1 is the program's loader,
 * upvalues 2.. the directories (real paths) images may be read from. */
static int sandbox_load_image(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  char *real = realpath(path, NULL);
  if (!real) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot read %s: %s", path, strerror(errno));
    return 2;
  }
  int ok = 0;
  for (int i = 2; !ok && lua_type(L, lua_upvalueindex(i)) == LUA_TSTRING; i++) {
    size_t n;
    const char *dir = lua_tolstring(L, lua_upvalueindex(i), &n);
    ok = strncmp(real, dir, n) == 0 && (real[n] == '/' || real[n] == '\0' || (n > 0 && dir[n - 1] == '/'));
  }
  lua_settop(L, 0);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushstring(L, real);
  free(real);
  if (!ok) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s is outside the directories a script may read images from under --sandbox "
                       "(its own directory and the assets directory beside it; %s)", path, docs_hint);
    return 2;
  }
  lua_call(L, 1, 3);
  return 3;
}

/* Pushes the real path of directory `dir`, or nothing when it does not
 * exist; returns the number pushed. */
static int push_real_dir(lua_State *L, const char *dir) {
  char *real = realpath(dir, NULL);
  if (!real) return 0;
  lua_pushstring(L, real);
  free(real);
  return 1;
}

void gs_sandbox_open_libs(lua_State *L) {
  static const luaL_Reg libs[] = {
    {LUA_GNAME, luaopen_base},         {LUA_COLIBNAME, luaopen_coroutine}, {LUA_TABLIBNAME, luaopen_table},
    {LUA_STRLIBNAME, luaopen_string},  {LUA_MATHLIBNAME, luaopen_math},    {LUA_UTF8LIBNAME, luaopen_utf8},
    {NULL, NULL}};
  for (const luaL_Reg *l = libs; l->name; l++) {
    luaL_requiref(L, l->name, l->func, 1);
    lua_pop(L, 1);
  }
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "");
  lua_setfield(L, -2, "path");
  lua_setglobal(L, "package");
}

void gs_sandbox_seal(lua_State *L, const char *script) {
  int top = lua_gettop(L);
  /* require: the helper path add_helper_path set, kept where the script
   * cannot change it */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  if (!lua_isstring(L, -1)) {
    lua_pop(L, 1);
    lua_pushliteral(L, "");
  }
  lua_pushcclosure(L, sandbox_require, 1);
  lua_setglobal(L, "require");
  lua_settop(L, top);
  lua_newtable(L);
  set_refusing_global(L, "package");

  /* base: no files, text chunks only */
  static const char *const refused[] = {"dofile", "loadfile"};
  for (int i = 0; i < 2; i++) {
    lua_pushstring(L, refused[i]);
    lua_pushcclosure(L, refuse_call, 1);
    lua_setglobal(L, refused[i]);
  }
  lua_getglobal(L, "load");
  if (lua_iscfunction(L, -1)) {
    lua_pushcclosure(L, sandbox_load, 1);
    lua_setglobal(L, "load");
  }
  lua_settop(L, top);

  /* os: the clock and exit; io: write to standard output; no debug */
  static const char *const os_kept[] = {"clock", "date", "difftime", "time", "exit"};
  lua_pushcfunction(L, luaopen_os);
  lua_call(L, 0, 1);
  lua_createtable(L, 0, 5);
  for (int i = 0; i < 5; i++) {
    lua_getfield(L, -2, os_kept[i]);
    lua_setfield(L, -2, os_kept[i]);
  }
  set_refusing_global(L, "os");
  lua_pop(L, 1);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, sandbox_write);
  lua_setfield(L, -2, "write");
  set_refusing_global(L, "io");
  lua_newtable(L);
  set_refusing_global(L, "debug");

  /* images: only from the script's directory and ../assets beside it */
  if (lua_getfield(L, LUA_REGISTRYINDEX, "gpusim.load_image") == LUA_TFUNCTION) {
    const char *slash = strcmp(script, "-") ? strrchr(script, '/') : NULL;
    if (slash) lua_pushlstring(L, script, (size_t)(slash - script + (slash == script)));
    else lua_pushliteral(L, ".");
    int dir = lua_gettop(L);
    lua_pushfstring(L, "%s/../assets", lua_tostring(L, dir));
    int n = push_real_dir(L, lua_tostring(L, dir));
    n += push_real_dir(L, lua_tostring(L, dir + 1));
    lua_remove(L, dir); /* the directory as given */
    lua_remove(L, dir); /* its assets directory */
    lua_pushcclosure(L, sandbox_load_image, 1 + n);
    lua_setfield(L, LUA_REGISTRYINDEX, "gpusim.load_image");
  }
  lua_settop(L, top);
}
