/* lsrcmap.c — the source lines of assembled programs, kept per Lua state
 * for the shader debugger (lsrcmap.h; docs/debugger.md, "Source lines"). */
#include "lua/lsrcmap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lauxlib.h>

#define KEY "gpusim.srcmap"
#define MAX_FILE (4u << 20)  /* Lua files longer than 4 MB are not searched */
#define MAX_CANDIDATES 64
#define MAX_ENTRIES 4096     /* programs recorded per state; past it, new ones have no source */

typedef struct src_file {
  char *path;
  char *text;                /* NULL: unreadable (or too long, or holding a NUL) */
} src_file;

typedef struct srcmap {
  lgs_srcmap_entry **e;
  size_t n, cap;
  src_file *f;
  size_t nf, capf;
} srcmap;

static void entry_free(lgs_srcmap_entry *e) {
  if (!e) return;
  free(e->bytes);
  free(e->rows);
  free(e->text);
  free(e);
}

static int srcmap_gc(lua_State *L) {
  srcmap *m = lua_touserdata(L, 1);
  for (size_t i = 0; i < m->n; i++) entry_free(m->e[i]);
  for (size_t i = 0; i < m->nf; i++) free(m->f[i].path), free(m->f[i].text);
  free(m->e);
  free(m->f);
  memset(m, 0, sizeof *m);
  return 0;
}

/* The state's registry; NULL when there is none yet and create is 0. */
static srcmap *get_map(lua_State *L, int create) {
  srcmap *m = NULL;
  if (lua_getfield(L, LUA_REGISTRYINDEX, KEY) == LUA_TUSERDATA) m = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (m || !create) return m;
  m = lua_newuserdatauv(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, srcmap_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_setfield(L, LUA_REGISTRYINDEX, KEY);
  return m;
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* ---- where the text was written ---- */

/* The file at path, read once per state (its text NULL when unreadable). */
static const src_file *file_of(srcmap *m, const char *path) {
  for (size_t i = 0; i < m->nf; i++)
    if (strcmp(m->f[i].path, path) == 0) return &m->f[i];
  if (m->nf == m->capf) {
    size_t cap = m->capf ? 2 * m->capf : 16;
    src_file *f = realloc(m->f, cap * sizeof *f);
    if (!f) return NULL;
    m->f = f, m->capf = cap;
  }
  src_file *f = &m->f[m->nf];
  if (!(f->path = malloc(strlen(path) + 1))) return NULL;
  strcpy(f->path, path);
  f->text = NULL;
  FILE *fp = fopen(path, "rb");
  long size = fp && fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
  char *buf = size >= 0 && size <= (long)MAX_FILE && fseek(fp, 0, SEEK_SET) == 0 ? malloc((size_t)size + 1) : NULL;
  if (buf) {
    size_t n = fread(buf, 1, (size_t)size, fp);
    buf[n] = '\0';
    if (n == (size_t)size && strlen(buf) == n) f->text = buf, buf = NULL;
  }
  free(buf);
  if (fp) fclose(fp);
  m->nf++;
  return f;
}

typedef struct candidates {
  size_t f[MAX_CANDIDATES];  /* indices in the state's file cache (which may move as it grows) */
  size_t n;
} candidates;

/* A Lua chunk's source ("@path" for a file) as a candidate. */
static void add_source(srcmap *m, candidates *c, const char *source) {
  if (!source || source[0] != '@' || c->n >= MAX_CANDIDATES) return;
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(m->f[c->f[i]].path, source + 1) == 0) return;
  const src_file *f = file_of(m, source + 1);
  if (f && f->text) c->f[c->n++] = (size_t)(f - m->f);
}

/* The function on top of the stack (popped): its file as a candidate. */
static void add_function(lua_State *L, srcmap *m, candidates *c) {
  lua_Debug ar;
  if (lua_type(L, -1) != LUA_TFUNCTION || lua_iscfunction(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  if (lua_getinfo(L, ">S", &ar)) add_source(m, c, ar.source);
}

/* The files of the call stack's Lua functions (nearest first), then those
 * of the functions the loaded modules hold (one level of their tables). */
static void gather(lua_State *L, srcmap *m, candidates *c) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++)
    if (lua_getinfo(L, "S", &ar)) add_source(m, c, ar.source);
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  int loaded = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, loaded)) {
    if (lua_type(L, -1) == LUA_TFUNCTION) {
      add_function(L, m, c);
      continue;
    }
    if (lua_type(L, -1) == LUA_TTABLE) {
      int mod = lua_gettop(L);
      lua_pushnil(L);
      while (lua_next(L, mod)) add_function(L, m, c);
    }
    lua_pop(L, 1);
  }
  lua_settop(L, top);
}

static uint32_t line_at(const char *text, const char *at) {
  uint32_t line = 1;
  for (const char *p = text; p < at; p++) line += *p == '\n';
  return line;
}

/* Where s (len bytes) occurs exactly once in text — as a whole line when
 * whole_line — : its line; 0 when never or more than once. */
static uint32_t once(const char *text, const char *s, size_t len, int whole_line) {
  const char *hit = NULL;
  for (const char *p = text; (p = strstr(p, s)) != NULL; p++) {
    if (whole_line && ((p > text && p[-1] != '\n') || (p[len] && p[len] != '\n' && p[len] != '\r'))) continue;
    if (hit) return 0;
    hit = p;
  }
  return hit ? line_at(text, hit) : 0;
}

/* ---- the registry ---- */

void lgs_srcmap_note(lua_State *L, const gs_isa *isa, const gs_isa_binary *bin, const char *text) {
  if (!bin->nlines || !bin->size) return;
  srcmap *m = get_map(L, 1);
  if (m->n >= MAX_ENTRIES) return; /* the entries live as long as the state (debuggers point at them) */
  uint64_t hash = fnv1a(bin->bytes, bin->size);
  for (size_t i = 0; i < m->n; i++) {
    const lgs_srcmap_entry *e = m->e[i];
    if (e->isa == isa && e->size == bin->size && e->hash == hash && !memcmp(e->bytes, bin->bytes, bin->size)) return;
  }
  if (m->n == m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 16;
    lgs_srcmap_entry **n = realloc(m->e, cap * sizeof *n);
    if (!n) return;
    m->e = n, m->cap = cap;
  }
  size_t tlen = strlen(text);
  lgs_srcmap_entry *e = calloc(1, sizeof *e);
  char **start = NULL;
  if (e) {
    e->bytes = malloc(bin->size);
    e->rows = malloc(bin->nlines * sizeof *e->rows);
    e->text = malloc(tlen + 1);
  }
  size_t nlines = 1;
  for (size_t i = 0; i < tlen; i++) nlines += text[i] == '\n';
  start = malloc((nlines + 1) * sizeof *start);
  if (!e || !e->bytes || !e->rows || !e->text || !start) {
    entry_free(e);
    free(start);
    return;
  }
  e->isa = isa;
  e->size = bin->size;
  e->hash = hash;
  e->origin = bin->lines[0].offset;
  memcpy(e->bytes, bin->bytes, bin->size);
  memcpy(e->text, text, tlen + 1);
  /* the text's lines, from 1: start[L] */
  size_t k = 1;
  start[k++] = e->text;
  for (char *p = e->text; *p; p++)
    if (*p == '\n') start[k++] = p + 1;
  candidates c = {{0}, 0};
  gather(L, m, &c);
  /* the whole text, once in one file */
  const char *file = NULL;
  uint32_t first = 0;
  for (size_t i = 0; i < c.n && !file && tlen; i++)
    if ((first = once(m->f[c.f[i]].text, text, tlen, 0)) != 0) file = m->f[c.f[i]].path;
  for (size_t i = 0; i < bin->nlines; i++) {
    uint32_t l = bin->lines[i].line;
    if (l < 1 || l > nlines) continue;
    const char *s = start[l];
    size_t len = strcspn(s, "\n");
    while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    lgs_src_row *r = &e->rows[e->nrows++];
    r->offset = bin->lines[i].offset;
    r->file = file;
    r->line = file ? first + l - 1 : l;
    if (!file && len) { /* the line alone, once in one file */
      char save = s[len];
      ((char *)s)[len] = '\0';
      for (size_t f = 0; f < c.n && !r->file; f++) {
        uint32_t at = once(m->f[c.f[f]].text, s, len, 1);
        if (at) r->file = m->f[c.f[f]].path, r->line = at;
      }
      ((char *)s)[len] = save;
    }
    while (*s == ' ' || *s == '\t') s++, len--;
    r->text = s; /* terminated below */
    (void)len;
  }
  /* terminate each line (after the searches, which read the whole text) */
  for (size_t l = 1; l <= nlines; l++) {
    char *s = start[l];
    size_t len = strcspn(s, "\n");
    while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
    s[len] = '\0';
  }
  free(start);
  m->e[m->n++] = e;
}

const lgs_srcmap_entry *lgs_srcmap_find(lua_State *L, const char *isa, const gs_mem *mem, gs_addr code,
                                        size_t *same) {
  srcmap *m = get_map(L, 0);
  *same = 0;
  if (!m || !m->n) return NULL;
  gs_program_header h;
  gs_diag d;
  gs_diag_clear(&d);
  int has = gs_program_header_read(mem, code, &h, &d) == 1;
  if (has && h.code_bytes) {
    const uint8_t *p = gs_mem_ptr(mem, code, h.code_bytes);
    uint64_t hash = p ? fnv1a(p, h.code_bytes) : 0;
    for (size_t i = 0; p && i < m->n; i++) {
      const lgs_srcmap_entry *e = m->e[i];
      if (!strcmp(e->isa->name, isa) && e->size == h.code_bytes && e->hash == hash && !memcmp(e->bytes, p, e->size))
        return *same = e->size, e;
    }
  }
  /* the longest run of first bytes an assembly shares with the code */
  const lgs_srcmap_entry *best = NULL;
  for (size_t i = 0; i < m->n; i++) {
    const lgs_srcmap_entry *e = m->e[i];
    size_t lim = has && h.code_bytes < e->size ? h.code_bytes : e->size, n = 0;
    if (strcmp(e->isa->name, isa) || lim <= *same || lim > 0xffffffffu) continue;
    const uint8_t *p = gs_mem_ptr(mem, code, (uint32_t)lim);
    while (p && n < lim && p[n] == e->bytes[n]) n++;
    if (n > *same) best = e, *same = n;
  }
  return best;
}

const lgs_src_row *lgs_srcmap_row(const lgs_srcmap_entry *e, size_t same, gs_addr code, int64_t pc) {
  if (!e || !e->nrows || pc < 0) return NULL;
  int64_t off = pc;
  if (e->isa->id == GS_ISA_QPU) off = pc - (int64_t)code;   /* the QPU's pc: a bus address */
  else if (e->isa->id == GS_ISA_PICA) off = e->origin + 4 * pc; /* a word index in the SHBIN's code blob */
  if (off < 0 || off > 0xffffffffll) return NULL;
  size_t lo = 0, hi = e->nrows;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (e->rows[mid].offset < (uint32_t)off) lo = mid + 1;
    else hi = mid;
  }
  if (lo >= e->nrows || e->rows[lo].offset != (uint32_t)off) return NULL;
  size_t end = lo + 1 < e->nrows ? e->rows[lo + 1].offset : e->size; /* the instruction's bytes end */
  return end <= same ? &e->rows[lo] : NULL;
}

void lgs_src_place(const lgs_src_row *r, char *buf, size_t n) {
  if (!r->file) {
    snprintf(buf, n, "<asm>:%u", r->line);
    return;
  }
  const char *base = strrchr(r->file, '/');
  snprintf(buf, n, "%s:%u", base ? base + 1 : r->file, r->line);
}
