/* cle.h — the control-list executor (CLE) inside: what its three files
 * share. cle.c walks the lists of both threads (branches, sub-lists,
 * semaphores, budgets), keeps the state records, decodes shader records
 * and runs vertex and coordinate shaders (src/isa/isa.h); binning.c is thread 0's
 * work (coordinate shading, the PTB, writing tile lists); render.c is
 * thread 1's (planning tiles, then rendering them in parallel). The
 * public interface is include/gpusim/v3d.h; docs/pipeline.md explains the
 * flow and the choices.
 *
 * Packets are always decoded through the one packet table (src/v3d/cl.h):
 * a packet's values arrive as gs_cl_packet.values and are read with the
 * table's typed unpackers (gs_cl_unpack_<packet>).
 */
#ifndef GS_V3D_CLE_H
#define GS_V3D_CLE_H

#include <stdbool.h>
#include <stdint.h>
#include "gpusim/cl.h"
#include "gpusim/v3d.h"
#include "v3d/cl.h"
#include "v3d/ptb.h"
#include "v3d/v3d.h"
#include "v3d/vcd.h"

/* ---- state records -------------------------------------------------------
 * The CLE keeps the latest values of each state record. Items before
 * CLE_TILE_LIST_ITEMS are the ones the binning pass copies into tile lists,
 * in the order docs/control-lists.md gives ("The tile lists gpusim's PTB
 * writes", step 2). */
enum cle_item {
  CLE_FMT,          /* 56 Primitive List Format */
  CLE_CFG,          /* 96 Configuration Bits */
  CLE_FLAT,         /* 97 Flat Shade Flags */
  CLE_PSIZE,        /* 98 Point Size */
  CLE_LWIDTH,       /* 99 Line Width */
  CLE_RHT,          /* 100 RHT X Boundary */
  CLE_DOFFSET,      /* 101 Depth Offset */
  CLE_CLIP,         /* 102 Clip Window */
  CLE_VIEWPORT,     /* 103 Viewport Offset */
  CLE_XYSCALE,      /* 105 Clipper XY Scaling: in tile lists only for a vertex shader */
  CLE_ZSCALE,       /* 106 Clipper Z Scale and Offset: whose unit transforms (cle_tile_list_item) */
  CLE_SHADER,       /* 64 GL, 65 NV or 66 VG Shader State */
  CLE_TILE_LIST_ITEMS,
  CLE_ZPLANES = CLE_TILE_LIST_ITEMS, /* 104 Z min/max Clipping Planes */
  CLE_RENDER_CFG,   /* 113 Tile Rendering Mode Configuration */
  CLE_CLEAR,        /* 114 Clear Colors */
  CLE_ITEMS
};

typedef struct cle_item_value {
  uint32_t version;                   /* 0: never set; else bumps when the values change */
  uint8_t id;                         /* the packet that set it */
  uint32_t values[GS_CL_MAX_FIELDS];  /* as the table decodes them */
} cle_item_value;

typedef struct cle_state {
  cle_item_value item[CLE_ITEMS];
  uint32_t clock;                     /* last version handed out */
} cle_state;

/* The item a packet ID sets, or -1 if it is not a state record. */
int cle_item_of(unsigned id);
/* Records packet p (a state record) in s. Returns true if the values
 * differ from what the item held (its version then changes). */
bool cle_state_apply(cle_state *s, const gs_cl_packet *p);
/* Sets item `it` from raw values (as packet `id` would). */
bool cle_state_set(cle_state *s, int it, unsigned id, const uint32_t *values);
/* The Primitive List Format in force ({0, 0} if none). */
gs_cl_prim_format cle_state_fmt(const cle_state *s);
/* The rasteriser's sample points per pixel from the Configuration Bits'
 * oversample field (7:6) for `draw` (a draw or primitive-list packet): 1
 * for "none", 4 for "4x" on 4x multisample tiles (ms_tiles); 4x on normal
 * tiles, 16x (coverage mode) and the reserved code are errors naming the
 * draw and its address. */
int cle_oversample(const cle_state *s, bool ms_tiles, const gs_cl_packet *draw, unsigned *samples, gs_diag *d);

/* ---- shaders ---------------------------------------------------------------- */

/* Where a vertex or coordinate shader finds its data in the VPM: the
 * input segment (VCD-loaded attributes) at CLE_VPM_IN, the output segment
 * (its shaded vertices) at CLE_VPM_OUT; each shader addresses both from
 * Y = 0 (RG §7). */
#define CLE_VPM_IN 0u
#define CLE_VPM_OUT 64u
#define CLE_MAX_ATTRS 8

/* A vertex or coordinate shader of a GL shader record. */
typedef struct cle_program {
  gs_addr code, uniforms;
  gs_addr record;     /* the GL shader record it comes from, for messages */
  gs_addr unif_end;   /* end of its driver-written uniform stream, or 0 (isa/isa.h) */
  vcd_attr attrs[CLE_MAX_ATTRS];
  unsigned nattrs;
  unsigned in_rows;   /* rows of the input segment */
  unsigned out_rows;  /* rows it writes: 7 or 8 (CS), 3 [+1] + varyings (VS) */
  uint32_t gates;     /* what its SPH lets it do (GS_GATE_*; all without a header) */
  const gs_isa *isa;  /* its instruction set, from its header */
  unsigned point_size;/* 1: its shaded vertices carry a point size */
} cle_program;

/* A decoded shader state (64 GL, 65 NV, 66 VG or 67 VG inline). VG
 * shaders have a fragment shader only and no varyings. */
typedef struct cle_shader {
  unsigned id;                   /* GS_CL_GL_SHADER_STATE, ... the packet that set it */
  bool vg;                       /* 66 or 67: vertices are XY words (cle_read_vg) */
  gs_addr record;
  bool point_size;               /* shaded vertices carry a point size */
  bool clipping;                 /* the record enables clipping */
  bool clip_header;              /* NV: Xc..Wc precede each vertex */
  unsigned nvary;                /* fragment shader varyings */
  gs_addr fs_code, fs_uniforms;
  gs_addr fs_unif_end;           /* end of its driver-written uniform stream, or 0 */
  uint32_t fs_gates;             /* GS_GATE_* of the fragment program */
  const gs_isa *fs_isa;          /* its instruction set */
  cle_program vs, cs;            /* GL */
  gs_addr vertex_data;           /* NV */
  unsigned vertex_stride;        /* NV */
} cle_shader;

/* The shader record address of s's shader state (GL, NV or VG), 0 if none
 * (or 67, which has none). */
gs_addr cle_state_record(const cle_state *s);

/* Decodes the shader state item (with the record it points to) into *sh,
 * with the ends of the shaders' uniform streams from o's unif_streams.
 * Errors name the packet address `at` and the record. */
int cle_shader_decode(const gs_cl_view *v, const gs_v3d_options *o, const cle_item_value *it, gs_addr at,
                      cle_shader *sh, gs_diag *d);

/* NV: the records of pre-shaded vertices lo..hi of sh (lo <= hi), the
 * first `bytes` of each, when one readable run of memory holds them all:
 * vertex i's record starts at the result + (i - lo) × the stride; else
 * NULL, and each is looked up alone. */
const uint8_t *cle_nv_span(gs_mem *m, const cle_shader *sh, uint32_t lo, uint32_t hi, uint32_t bytes);

/* What a worker needs to run shaders: the binning thread has one, each
 * rendering worker another. Its units (one per instruction set, made on
 * first use) share its VPM and its diag. */
typedef struct cle_unit {
  gs_vpm *vpm;         /* its own VPM */
  gs_diag diag;        /* its errors */
  gs_isa_report report;/* its exceptions (cle_take_report) */
  int num;             /* unit number in messages */
  gs_isa_unit *unit[GS_ISA_IDS];
} cle_unit;

/* Allocates / frees a unit's VPM and ISA units. */
int cle_unit_init(cle_unit *u, int num);
void cle_unit_free(cle_unit *u);
/* u's unit for isa, made on first use; NULL (an error in u->diag) when
 * out of memory. */
gs_isa_unit *cle_unit_of(gs_gpu *g, cle_unit *u, const gs_isa *isa);

/* Shades the vertices idx[0..n) (n <= 16) with program p: the VCD loads
 * their attributes into the input segment, the program's ISA unit runs it.
 * Vertex i's output word r is then u->vpm->words[(CLE_VPM_OUT + r) * 16 + i].
 * Errors (in u->diag) name the shader and the unit's message. */
int cle_shade_batch(gs_gpu *g, cle_unit *u, const cle_program *p, const cle_state *st, gs_stage stage,
                    const uint32_t *idx, unsigned n);

/* The viewport transform state s holds, for gs_vertex_io.viewport: Clipper
 * XY Scaling (105) x and y, Clipper Z Scale and Offset (106); without the
 * records 0, 0 and the PTB's defaults 0.5, 0.5. */
void cle_viewport(const cle_state *s, float vp[4]);

/* Whether the binning pass copies state item `it` (< CLE_TILE_LIST_ITEMS)
 * into tile lists for shader state sh: all of them, but 105 and 106 only
 * when the unit of sh's vertex shader does the viewport transform
 * (gs_isa.transforms_vertices) and so needs them in the rendering pass
 * too; VideoCore IV programs do it themselves (docs/control-lists.md,
 * step 2). */
bool cle_tile_list_item(int it, const cle_shader *sh);

/* ---- draw records ----------------------------------------------------------- */

#define CLE_MAX_DRAW_VERTICES (1u << 22) /* vertices or indices one draw may hold */

/* A Vertex Array Primitives (33) or Indexed Primitive List (32) record. */
typedef struct cle_draw {
  ptb_draw draw;      /* mode, indices (a host pointer into GPU memory), count, first */
  uint32_t lo, hi;    /* smallest and largest vertex index it uses */
  bool indexed;
} cle_draw;

/* Reads record p into *dr, checking the index list is in memory and no
 * index exceeds the record's maximum index. */
int cle_read_draw(gs_gpu *g, const gs_cl_packet *p, cle_draw *dr, gs_diag *d);

/* VG vertices (RG Table 47): a 32-bit XY word each, Xs in bits 15:0 and
 * Ys in 31:16 — 12.4 screen coordinates relative to the viewport offset,
 * as a shaded vertex's (docs/control-lists.md says why) — with Zs = 0.5 and
 * 1/Wc = 1.0 (float bits below). */
#define CLE_VG_ZS 0x3f000000u
#define CLE_VG_INV_WC 0x3f800000u

/* A VG draw, VG Coordinate Array Primitives (41) or VG Inline Primitives
 * (42): its mode (4 triangles, 5 strip, 6 fan, assembled as GL's) with
 * count = the number of XY words, and those words in xy[0 .. count) — a
 * buffer the caller keeps across draws (cap words; free(xy) at the end). */
typedef struct cle_vg_draw {
  ptb_draw draw;
  uint32_t *xy;
  uint32_t cap;
} cle_vg_draw;

/* Reads 41 (length in primitives, the XY array in memory) or 42 (the words
 * after the packet up to its escape, padding words skipped) into *vd.
 * RHT types, reserved types and non-zero continuation bits are errors
 * naming the packet. */
int cle_read_vg(const gs_cl_view *v, const gs_cl_packet *p, cle_vg_draw *vd, gs_diag *d);

/* ---- the run ------------------------------------------------------------------ */

struct cle_bin;
struct cle_render;

typedef struct cle_run {
  gs_gpu *g;
  gs_cl_view view;            /* all of GPU memory */
  gs_v3d_options opt;
  gs_v3d_stats stats;
  struct cle_bin *bin;        /* thread 0's work (binning.c) */
  struct cle_render *render;  /* thread 1's work (render.c) */
} cle_run;

/* Moves u's exceptions into r's stats. */
void cle_take_report(cle_run *r, cle_unit *u);

/* Thread 0: a packet that is neither control flow nor a semaphore. */
int cle_bin_packet(cle_run *r, const gs_cl_packet *p);
/* Thread 0 reached its end: checks the tile lists were flushed. */
int cle_bin_end(cle_run *r);
void cle_bin_free(cle_run *r);
/* The format to decode thread 0's compressed lists with (none). */
gs_cl_prim_format cle_bin_fmt(const cle_run *r);

/* Thread 1: records a packet for the tiles (state, loads, 115, stores,
 * primitives). */
int cle_render_packet(cle_run *r, const gs_cl_packet *p);
/* Renders the tiles recorded so far (in parallel) and forgets them; until
 * the thread has `ended`, a tile it is still inside is kept for later. */
int cle_render_flush(cle_run *r, bool ended);
void cle_render_free(cle_run *r);
gs_cl_prim_format cle_render_fmt(const cle_run *r);

/* Records "0x<at>: <msg>" in d, with msg formatted; returns code. */
int cle_error(gs_diag *d, int code, gs_addr at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Puts a formatted prefix before the message already in d; returns code. */
int cle_prefix(gs_diag *d, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
