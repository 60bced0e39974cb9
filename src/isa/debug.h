/* debug.h — the time-travel shader debugger's neutral contract
 * (docs/debugger.md is the manual).
 *
 * An invocation is one run of one ISA's program over one batch: all its
 * lanes (a fragment batch's 4x4 pixels, a vertex batch's vertices), from
 * the state the unit starts it in. Each ISA describes its state with a
 * gs_debug_ops: its size (the state is copied as bytes), the single step of
 * its REFERENCE interpreter, its registers by the ISA's own names, the pc
 * and the disassembly of the instruction at the pc.
 *
 * Capture. A debugger arms a capture on the context (gs_gpu.debug) and runs
 * the frame's control lists again on one thread. Each unit, before running
 * a batch, asks gs_debug_wants_fragment or gs_debug_wants_vertex; when the
 * capture wants the batch, the unit runs it through its ISA's capture
 * function (src/isa/<isa>/debug.c), which steps the reference interpreter
 * from the unit's initial state to the end with the pipeline's own I/O
 * (varyings, tile buffer, memory) and records the state before each step
 * (gs_debug_record). The unit then continues as usual with the final state:
 * the reference interpreter computes the same bits as the fast one, so the
 * image does not change (the Lua side checks the whole frame buffer).
 *
 * Stepping. The recording keeps a full state every GS_DEBUG_KEYFRAME steps
 * and, for the steps between, the 32-bit words that changed from the step
 * before: going to step N copies the keyframe at or below N and replays
 * the changes to N. So the state after N steps back is bytewise the state
 * of the fresh run at that step. Nothing is executed again after the
 * capture: memory a program stored to is left as the frame left it, and
 * stepping never writes memory (there is nothing to undo).
 */
#ifndef GS_ISA_DEBUG_H
#define GS_ISA_DEBUG_H

#include <stddef.h>
#include <stdint.h>
#include "isa/isa.h"

#define GS_DEBUG_KEYFRAME 32
#define GS_DEBUG_MAX_LANES 32
#define GS_DEBUG_LINE 112

/* One ISA's view of its state (a block of `size` bytes). */
typedef struct gs_debug_ops {
  const char *isa;   /* "qpu", "sass", "pica", "agx" */
  unsigned lanes;    /* lanes of the state */
  size_t size;       /* bytes of the state (a multiple of 4) */
  unsigned nregs;    /* registers reg_name and reg_value know, 0..nregs-1 */
  /* The ISA's name of register i into buf; returns 1 for a register with
   * a value per lane, 0 for one value for the whole group. */
  int (*reg_name)(unsigned i, char *buf, size_t n);
  /* Register i of lane (a value per lane), else the group's. */
  uint32_t (*reg_value)(const void *st, unsigned i, unsigned lane);
  /* The pc of the instruction that runs next (lane: for an ISA whose lanes
   * have their own pcs, the PICA200's). */
  uint32_t (*pc)(const void *st, unsigned lane);
  /* 1: the lane has ended (nothing of it runs any more). */
  int (*ended)(const void *st, unsigned lane);
  /* One instruction on the reference interpreter: 0 it ran, 1 it ran and
   * the invocation ended, 2 nothing was left to run, < 0 an error (the
   * message in the unit's diag). */
  int (*step)(void *st, void *ctx);
  /* The disassembly of the instruction at the pc (of lane) into buf. */
  void (*line)(const void *st, void *ctx, unsigned lane, char *buf, size_t n);
} gs_debug_ops;

/* A recorded invocation. */
typedef struct gs_debug_inv {
  const gs_debug_ops *ops;
  gs_stage stage;
  gs_addr code, uniforms;     /* the program and its uniform stream */
  unsigned ordinal;           /* its place among the frame's fragment invocations (from 0) */
  unsigned vordinal;          /* a vertex run's place among the frame's vertex-stage invocations (from 0), a
                               * coordinate run's among its coordinate-shader invocations */
  int lane;                   /* the lane asked for (the pixel's, the vertex's) */
  uint32_t lanes;             /* the lanes the batch shades */
  uint32_t x[GS_DEBUG_MAX_LANES], y[GS_DEBUG_MAX_LANES]; /* fragment: each lane's pixel (pipeline rows) */
  uint32_t index[GS_DEBUG_MAX_LANES];                    /* vertex: each lane's vertex index */
  uint32_t prolog;            /* bytes of code linked in front of the user's program (AGX's vertex
                               * prolog): the user's pc is the ISA's pc less this, negative in it */
  unsigned steps;             /* instructions recorded: states 0..steps */
  int error;                  /* the run's error after the last step (0 none) */
  char message[GS_DIAG_MAX];
  /* the recording: keyframes and, per step, the changed words */
  uint8_t *keys;              /* (steps / KEYFRAME + 1) states */
  size_t nkeys;
  uint32_t *delta;            /* per step: (index, value) pairs */
  size_t ndelta, capdelta;
  size_t *delta_at;           /* step s's pairs start at delta[delta_at[s]] (s = 1..steps; [0] = 0) */
  size_t capsteps;
  char (*lines)[GS_DEBUG_LINE]; /* disassembly at each state's pc (the asked lane's) */
  uint8_t *last;              /* the state after the last step recorded (scratch) */
} gs_debug_inv;

/* A condition: on a pc, or a register of a lane compared with a value. */
typedef enum { GS_DEBUG_LT, GS_DEBUG_LE, GS_DEBUG_GT, GS_DEBUG_GE, GS_DEBUG_EQ, GS_DEBUG_NE } gs_debug_op;
typedef enum { GS_DEBUG_I32, GS_DEBUG_U32, GS_DEBUG_F32 } gs_debug_type;
typedef struct gs_debug_cond {
  int is_pc;
  uint32_t pc;
  char reg[24];
  int lane;                   /* -1: the invocation's own lane */
  gs_debug_op op;
  gs_debug_type type;
  double value;
} gs_debug_cond;

/* Whether c holds in state st of an invocation of ops whose lane is
 * `lane`; -1 if c names a register ops does not know. */
int gs_debug_cond_holds(const gs_debug_ops *ops, const void *st, int lane, const gs_debug_cond *c);

/* A frame-wide hit: invocation `ordinal`, at step `step`. */
typedef struct gs_debug_hit {
  unsigned ordinal, step;
  int lane;                   /* the lane it fired in */
  uint32_t x, y;              /* the pixel of the lane (fragment) */
  uint32_t index;             /* the vertex index of the lane (vertex): ordinal counts vertex runs */
} gs_debug_hit;

typedef enum {
  GS_DEBUG_PIXEL = 0,   /* the last fragment invocation covering pixel (x, y) */
  GS_DEBUG_VERTEX,      /* the last vertex-stage (or coordinate) invocation of (vs_code, vs_uniforms) with
                         * vertex index */
  GS_DEBUG_ORDINAL,     /* fragment invocation `target` */
  GS_DEBUG_SCAN,        /* every invocation of stage scan_stage (fragment or vertex): the hits of conds */
  GS_DEBUG_VORDINAL     /* vertex-stage (or coordinate) invocation `target` */
} gs_debug_mode;

/* A capture armed on a context (gs_gpu.debug). */
typedef struct gs_debug {
  gs_debug_mode mode;
  int32_t x, y;                  /* PIXEL: pipeline coordinates */
  gs_addr vs_code, vs_uniforms;  /* VERTEX */
  uint32_t vertex;
  unsigned target;               /* ORDINAL */
  const gs_debug_cond *conds;    /* SCAN */
  unsigned nconds;
  gs_debug_hit *hits;
  size_t nhits, caphits;
  unsigned ordinal;              /* fragment invocations seen so far */
  unsigned vordinal;             /* vertex-stage (coordinate) invocations seen so far */
  gs_stage scan_stage;           /* SCAN: GS_STAGE_FRAGMENT or GS_STAGE_VERTEX */
  int coordinate;                /* VERTEX, VORDINAL, a vertex SCAN: 1 the coordinate shader's runs
                                  * (GS_STAGE_COORDINATE, the binning pass), 0 the vertex shader's */
  gs_debug_inv *inv;             /* the capture (PIXEL, VERTEX, ORDINAL), or NULL */
  const gs_debug_ops *cache_ops; /* SCAN: the ISA cache_idx is for */
  int cache_idx[64];
  uint8_t cache_lanes[64];
  int scan_lane;                 /* SCAN: the lane gs_debug_cond_fast tests */
  int nomem;
  /* set by gs_debug_wants_*, for the capture that follows */
  int cur_lane;
  gs_stage cur_stage;
  gs_addr cur_code, cur_uniforms;
  uint32_t cur_lanes;
  uint32_t cur_prolog;           /* the capture's gs_debug_inv.prolog (0 but for AGX's vertex runs) */
  uint32_t cur_x[GS_DEBUG_MAX_LANES], cur_y[GS_DEBUG_MAX_LANES], cur_index[GS_DEBUG_MAX_LANES];
} gs_debug;

/* ---- the hook (the units) ---- */

/* Whether the capture armed on g (g->debug, which the caller has tested
 * non-NULL) wants the fragment invocation running batches b[0..nb) (one
 * group: a SASS warp of two blocks is nb = 2). Counts the invocation. */
int gs_debug_wants_fragment(const gs_gpu *g, const gs_frag_io *b, unsigned nb);
/* Whether it wants the vertex-stage batch io (or the coordinate-stage
 * batch, for a capture whose `coordinate` is 1); counts the invocations
 * of that stage. */
int gs_debug_wants_vertex(const gs_gpu *g, const gs_vertex_io *io);
/* Runs the invocation the capture wants from state st (ops' layout) to its
 * end with ops->step(st, ctx), recording it: returns the run's result (0,
 * or its error) with st the final state. Out of host memory for the
 * recording, the run goes on unrecorded (gs_debug.nomem). */
int gs_debug_record(const gs_gpu *g, const gs_debug_ops *ops, void *st, void *ctx, const gs_diag *diag);

/* The ISAs' captures (src/isa/<isa>/debug.c): each runs the invocation the
 * unit was about to run, recorded, and leaves the unit's state as its own
 * run would. */
struct gs_qpu;
struct sass_warp;
struct sass_program;
struct sass_io;
struct pica_state;
struct pica_program;
struct agx_state;
struct agx_program;
/* in_env: the caller has set the QPU's fp environment (fragments), else the
 * rounding is set around the run (as qpu_run_to_end does). */
int qpu_debug_run(gs_gpu *g, struct gs_qpu *q, int in_env);
int sass_debug_run(const gs_gpu *g, struct sass_warp *w, const struct sass_program *p, const struct sass_io *io,
                   uint64_t budget, const char *name, gs_diag *d);
/* The n lanes' states s[0..n) (inputs loaded), run from entry. */
/* Room for the PICA200 unit to put a batch's PICA_LANES lane states in
 * (the calling thread's). */
struct pica_state *pica_debug_lanes(void);
int pica_debug_run(gs_gpu *g, struct pica_state *s, unsigned n, const struct pica_program *p, uint32_t entry,
                   uint64_t budget, gs_diag *d);
/* From entry 0, in round-to-nearest as agx_run_ref; p's first prolog bytes
 * are a vertex prolog linked in front of the user's program (0: none). */
int agx_debug_run(const gs_gpu *g, struct agx_state *s, const struct agx_program *p, uint32_t prolog, gs_diag *d);

/* ---- the debugger (the Lua binding, the CLI) ---- */

void gs_debug_inv_free(gs_debug_inv *inv);
/* State `step` (0..inv->steps) into out (ops->size bytes). */
void gs_debug_inv_state(const gs_debug_inv *inv, unsigned step, void *out);
/* The register called name (the ISA's, case-insensitive) of lane: 0 and *v,
 * or -1 when the ISA has no such register. */
int gs_debug_reg(const gs_debug_ops *ops, const void *st, const char *name, unsigned lane, uint32_t *v);
/* A 64-bit digest (FNV-1a) of the state as the ISA names it: every lane's
 * pc and every register of every lane. */
uint64_t gs_debug_hash(const gs_debug_ops *ops, const void *st);
/* The ISA's debug ops, by name, or NULL. */
const gs_debug_ops *gs_debug_ops_by_name(const char *isa);

extern const gs_debug_ops gs_debug_qpu_ops, gs_debug_sass_ops, gs_debug_pica_ops, gs_debug_agx_ops;

#endif
