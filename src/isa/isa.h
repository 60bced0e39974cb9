/* isa.h — the shader-unit contract: everything the pipeline (src/v3d), the
 * driver (src/driver) and the tools know of an instruction set.
 *
 * Every instruction set gpusim runs provides one gs_isa, found by name
 * ("qpu", "sass", "pica", "agx") or by the id the program header in GPU
 * memory carries beside the program's SPH (gs_program_header_read). The
 * pipeline never names an ISA: a shader record gives a code address; the
 * header in front of the code gives the ISA and the SPH; the ISA's unit runs
 * a batch of a stage through the neutral stage I/O below. Code without a
 * header (a hand-written control list's raw words) is VideoCore IV QPU code,
 * the hardware's own, with no SPH.
 *
 * THE STAGE I/O
 *
 * Vertex and coordinate stages (gs_vertex_io): the VCD has filled the VPM
 * input segment (one column per vertex, row in_row + k holding attribute
 * word k); the program writes the shaded-vertex format the PTB and PSE read
 * (RG §7: coordinate shaders Xc Yc Zc Wc Xs|Ys Zs 1/Wc, vertex shaders
 * Xs|Ys Zs 1/Wc [point size] varyings) into the output segment. A QPU
 * program does this itself through its VPM registers, as on the hardware;
 * other ISAs' abi code does it for them (clip-space position out, then the
 * divide and viewport transform their GPUs do in fixed function).
 *
 * Fragment stage (gs_frag_io): a batch of lanes (16: one 4×4 block) with per
 * lane pixel x, y, the sample coverage, Z, W and the facing; per input
 * component k (in the order the fragment program's SPH maps them) its
 * PixelImap and a value in the form value = plane[k][lane] × W + offset[k]:
 * Perspective: plane is the screen-linear interpolation of a/w, W = 1 /
 * (interpolated 1/w); ScreenLinear: plane already divided by W; Constant:
 * plane 0 and offset the provoking vertex's value. And a tile-buffer port.
 * The pipeline hands a unit the batches of one primitive a group at a time
 * (run_fragment), so that what they share is set up once a group.
 *
 * Lane width is the ISA's own; the pipeline hands out batches and masks. A
 * unit whose lanes are wider than a batch (32-lane warps) may run two
 * batches of a group as one: they cover different pixels of one primitive,
 * so no tile-buffer access of one depends on the other's.
 */
#ifndef GS_ISA_ISA_H
#define GS_ISA_ISA_H

#include <stddef.h>
#include <stdint.h>
#include "core/fpmode.h"
#include "gpusim/diag.h"
#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "gpusim/sph.h"

/* The id a program header carries (word 3 of the header, below). */
typedef enum gs_isa_id {
  GS_ISA_NONE = 0, /* no header: raw VideoCore IV code */
  GS_ISA_QPU = 1,  /* VideoCore IV QPU */
  GS_ISA_SASS = 2, /* NVIDIA Maxwell SASS */
  GS_ISA_PICA = 3, /* DMP PICA200 */
  GS_ISA_AGX = 4,  /* Apple AGX */
  GS_ISA_IDS
} gs_isa_id;

typedef enum gs_stage { GS_STAGE_COORDINATE = 0, GS_STAGE_VERTEX = 1, GS_STAGE_FRAGMENT = 2 } gs_stage;

/* ---- assembled programs ---------------------------------------------------- */

/* One line-table entry: the instruction at byte `offset` of the binary came
 * from source line `line` (from 1). Instructions of every length fit. */
typedef struct gs_isa_line {
  uint32_t offset, line;
} gs_isa_line;

/* A binary with its line table; every pointer malloc'ed. */
typedef struct gs_isa_binary {
  uint8_t *bytes;
  size_t size;
  gs_isa_line *lines; /* in offset order */
  size_t nlines;
} gs_isa_binary;

void gs_isa_binary_free(gs_isa_binary *b);
/* The source line of the instruction at byte offset `off`, 0 if unknown. */
uint32_t gs_isa_binary_line(const gs_isa_binary *b, uint32_t off);

/* ---- the stage I/O ---------------------------------------------------------- */

struct gs_vpm;
struct vcd_attr;
struct gs_drv_state;
struct gs_drv_fs_link_info;

/* Where a program of a stage gets its code and uniforms. unif_end: the end of
 * the stream the driver wrote (a read at or past it is an error naming the
 * shader and pc), or 0: no limit, as on the hardware. */
typedef struct gs_stage_program {
  gs_addr code, uniforms, unif_end;
} gs_stage_program;

/* What a program may do, from the flags of its SPH (gs_sph_gates); a
 * program without a header may do everything (GS_GATE_ALL). A unit
 * enforces them with the behaviour NVIDIA's SPH description gives when a
 * program breaks them, and reports each broken gate as an exception
 * (gs_isa_report): a kill without KillsPixels is a no-op; a global store
 * without DoesGlobalStore, and any load or store without DoesLoadOrStore,
 * is dropped (a load reads 0); a depth output without OmapDepth is
 * replaced by the rasterised Z; a sample-mask output without
 * OmapSampleMask is ignored; a colour output to a target whose OmapTarget
 * maps no component is dropped. docs/pipeline.md, "Shader units and the
 * SPH". */
enum {
  GS_GATE_KILL = 1u << 0,         /* KillsPixels */
  GS_GATE_GLOBAL_STORE = 1u << 1, /* DoesGlobalStore */
  GS_GATE_LOAD_STORE = 1u << 2,   /* DoesLoadOrStore */
  GS_GATE_DEPTH = 1u << 3,        /* OmapDepth */
  GS_GATE_SAMPLE_MASK = 1u << 4,  /* OmapSampleMask */
  GS_GATE_COLOUR = 1u << 5,       /* OmapTarget[0] maps a component */
  GS_GATE_ALL = (1u << 6) - 1
};

/* The gates of a program with SPH s: its flags for a pixel shader; a VTG
 * stage's outputs are not gated (only its loads and stores are). */
uint32_t gs_sph_gates(const gs_sph *s);

/* Exceptions the units of one worker raised: how many, and one message
 * (naming the stage, the program and the pc) for the run's warning: the
 * least in byte order, so that the one a run reports does not depend on
 * which worker met which exception first. */
typedef struct gs_isa_report {
  uint64_t exceptions;
  char first[256];
} gs_isa_report;

/* Adds from's exceptions to into's and clears from. */
void gs_isa_report_merge(gs_isa_report *into, gs_isa_report *from);

/* Counts an exception and keeps its message if it is the least so far. */
void gs_isa_report_exception(gs_isa_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A vertex or coordinate batch. */
typedef struct gs_vertex_io {
  gs_stage stage;
  gs_stage_program prog;
  uint32_t gates;            /* GS_GATE_* */
  gs_isa_report *report;     /* where exceptions go */
  struct gs_vpm *vpm;        /* the VPM of the worker (the VCD filled it) */
  unsigned in_row, in_rows;  /* input segment */
  unsigned out_row, out_rows;/* output segment */
  unsigned count;            /* vertices in the batch: lanes 0..count-1 */
  /* For ISAs whose abi does the viewport transform (not the QPU's, whose
   * programs do it themselves from their uniforms): Clipper XY Scaling
   * (record 105, 1/16 pixel) x and y, Clipper Z Scale and Offset (106). */
  float viewport[4];
  unsigned point_size;       /* 1: the shaded vertex carries a point size */
  const uint32_t *index;     /* the index the VCD fetched lane k's vertex with, or NULL (an ABI's vertex id) */
  /* The stage's attribute records (v3d/vcd.h), for a unit whose prolog
   * fetches the attributes itself (gs_isa.fetches_attributes): then the
   * VCD has not filled the input segment. */
  const struct vcd_attr *attrs;
  unsigned nattrs;
} gs_vertex_io;

/* For the abi of a unit that transforms vertices (transforms_vertices
 * below): writes lane `lane`'s shaded vertex into io's output segment (rows
 * past out_rows dropped) from its clip-space position pos: Xs, Ys =
 * pos / W x the Clipper XY Scaling in 12.4 (1/16 pixel, rounded to
 * nearest, saturated), Zs = Z / W x the Z scale + the Z offset, 1/Wc, all
 * in binary32 in the caller's rounding; a coordinate shader's Xc Yc Zc Wc
 * first; the point size bits if io asks; then, for a vertex shader, the
 * nvary varying words. */
void gs_vertex_io_put(const gs_vertex_io *io, unsigned lane, const float pos[4], uint32_t point_size,
                      const uint32_t *vary, unsigned nvary);

/* The tile buffer as a fragment program reaches it, one port per batch.
 * cov is the batch's per-lane sample coverage (bit s: sample s), which a Z
 * write narrows for the colour writes after it (RG §5). A unit calls begin
 * before each batch's program starts, then the others as its program asks,
 * all with ctx. */
typedef struct gs_tile_port {
  void *ctx;
  /* a batch starts: the tile buffer forgets the stencil setup and the next
   * sample of the batch before */
  void (*begin)(void *ctx);
  /* a stencil setup word (TLB_STENCIL_SETUP) */
  void (*stencil_setup)(void *ctx, uint32_t config);
  /* the Z of each lane in `lanes`: depth/stencil test, updates cov */
  void (*z_write)(void *ctx, const uint32_t *z, uint32_t *cov, uint16_t lanes);
  /* colours (the target's format) of the lanes in `lanes`, every covered
   * sample (all = 1) or the next sample of a 4× target (all = 0) */
  void (*colour_write)(void *ctx, int all, const uint32_t *rgba, const uint32_t *cov, uint16_t lanes);
  /* the tile's colour of each lane (the next sample of a 4× target) */
  void (*colour_load)(void *ctx, uint32_t *rgba);
} gs_tile_port;

/* A fragment batch (see the top of this file). The batches of one
 * run_fragment call belong to one primitive: prog, gates, report, reverse,
 * nin, plane's and offset's meaning, imap and ignores are the same in all
 * of them; a unit may read those from the first. */
typedef struct gs_frag_io {
  gs_stage_program prog;
  uint32_t gates;            /* GS_GATE_* */
  gs_isa_report *report;     /* where exceptions go */
  unsigned lanes;            /* lanes in the batch (16) */
  uint16_t mask;             /* lanes covered */
  uint32_t reverse;          /* 1: a reverse-facing primitive */
  const uint32_t *x, *y;     /* pixel of each lane */
  const uint32_t *cov;       /* sample coverage of each lane: the unit keeps a live copy,
                                which it hands to the port's Z and colour writes */
  const uint32_t *z;         /* 24-bit Z of each lane */
  const float *w;            /* W of each lane */
  unsigned nin;              /* input components */
  const float (*plane)[16];  /* [k][lane] */
  const float *offset;       /* [k] */
  const uint8_t *imap;       /* [k]: gs_pixel_imap */
  const gs_tile_port *tile;  /* this batch's pixels of the tile buffer */
  unsigned colour64;         /* 1: 64-bit colour (two RGBA16F words, RG then BA), else RGBA8888 */
  /* GS_FRAG_READS_* inputs the program does not read (gs_isa.fragment_reads;
   * 0: it may read all): the pipeline may have left them unset, and the
   * unit need not hand them to the program. */
  uint32_t ignores;
} gs_frag_io;

/* What a fragment program reads of its batch (gs_frag_io), for
 * gs_isa.fragment_reads: the pipeline computes and the unit hands over
 * only what the program reads. The coverage and the tile port always come. */
enum {
  GS_FRAG_READS_W = 1u << 0,        /* w */
  GS_FRAG_READS_Z = 1u << 1,        /* z, as an input (the rasterised Z a depth write without OmapDepth takes always comes) */
  GS_FRAG_READS_XY = 1u << 2,       /* x and y, as inputs */
  GS_FRAG_READS_VARYINGS = 1u << 3, /* plane and offset */
  GS_FRAG_READS_ALL = (1u << 4) - 1
};

/* ---- the contract ------------------------------------------------------------ */

typedef struct gs_isa_unit gs_isa_unit; /* per-worker unit state, opaque */

typedef struct gs_isa {
  const char *name;          /* "qpu" */
  gs_isa_id id;
  const char *title;         /* "VideoCore IV QPU" */
  unsigned lanes;            /* lanes of one batch */
  unsigned code_align;       /* bytes: code addresses are multiples */
  /* 1: after a vertex program the unit's abi divides the clip-space
   * position by W and applies the viewport (gs_vertex_io.viewport), as the
   * ISA's own GPUs do in fixed function, so one program serves as vertex
   * and coordinate shader; 0: the programs write the shaded vertex
   * themselves, as VideoCore IV programs do. */
  unsigned transforms_vertices;
  /* 1: the unit's vertex prolog fetches the attributes from memory itself
   * (gs_vertex_io.attrs; Apple AGX), so the pipeline skips the VCD. */
  unsigned fetches_attributes;
  /* 1: the ISA has no fragment programs (the PICA200's fragment stage is
   * fixed function): scenes refuse one, its unit's run_fragment fails. */
  unsigned vertex_only;
  /* The benchmark frames' fragment program in this ISA's assembly (the
   * rasterised Z and the colour 0xff336699), or NULL. For a vertex_only
   * ISA: the QPU program its fixed-function fragment stage becomes (the
   * PICA200's texture combiners, docs/pica-combiners.md), in QPU assembly. */
  const char *bench_fragment;

  /* Assembles src (NUL-terminated) to be loaded at bus address base; errors
   * name file:line:column. */
  int (*assemble)(const char *src, const char *file, uint32_t base, gs_isa_binary *out, gs_diag *d);
  /* Assembles n files into one binary, as the ISA's own tools link them
   * (PICA200: one SHBIN with a DVLE per file, as picasso does), or NULL:
   * one file at a time. */
  int (*assemble_files)(const char *const *src, const char *const *file, size_t n, uint32_t base,
                        gs_isa_binary *out, gs_diag *d);
  /* Disassembles size bytes loaded at base into malloc'ed text that
   * assembles back to the same bytes. */
  int (*disassemble)(const uint8_t *bytes, size_t size, uint32_t base, char **text, gs_diag *d);

  /* Per-context state (program cache, the units' shared resources), made by
   * gs_gpu_new and freed by gs_gpu_free. */
  void *(*context_new)(gs_gpu *g);
  void (*context_free)(void *ctx);

  /* A unit: what one worker needs to run this ISA's programs. num: the
   * unit's number in messages; vpm: the worker's VPM; errors go to diag. */
  gs_isa_unit *(*unit_new)(gs_gpu *g, int num, struct gs_vpm *vpm, gs_diag *diag);
  void (*unit_free)(gs_isa_unit *u);
  /* Prepares (decodes, validates, predecodes; cached by address and
   * content) the program at code, so that its first batch does not pay. */
  int (*prepare)(gs_gpu *g, gs_isa_unit *u, gs_addr code);
  /* With on, nothing but this unit's programs writes memory until it is
   * called with 0 (the renderer, around one primitive's fragments): the
   * unit may skip checking that its prepared code is unchanged. */
  void (*trust_code)(gs_isa_unit *u, int on);
  /* The host floating-point environment the unit's batches run in, from
   * base (core/fpmode.h): run_fragment expects the caller to have set it
   * (around many batches); run_vertex sets and restores it itself. */
  gs_fp_env (*fp_env)(const gs_gpu *g, gs_fp_env base);
  /* Called when no unit of the context runs (the end of a run): releases
   * prepared programs retired because their code changed. May be NULL. */
  void (*idle)(gs_gpu *g);
  /* Runs one batch. Errors name the unit, the program and the pc. */
  int (*run_vertex)(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *io);
  /* Runs the n batches io[0..n) of one primitive (n >= 1), each as if alone
   * and in order as far as the tile buffer can tell. Returns GS_OK with
   * *ran = n, or the error of batch *ran (the batches before it ran). */
  int (*run_fragment)(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *io, unsigned n, unsigned *ran);

  /* The SPH flags (GS_SPH_DOES_LOAD_OR_STORE | ...) that the code needs
   * for what it does: a header the driver builds from a program's
   * declarations gets them, so that its gates allow what the code does. */
  unsigned (*sph_flags)(const uint8_t *code, size_t size);

  /* The driver's fragment-program linker for blend, colour-mask and stencil
   * state (the VideoCore IV has no blend unit: its fragment programs blend),
   * or NULL when the ISA's fragment outputs are blended by the tile port.
   * Links the size bytes of code for state s into a malloc'ed *out. */
  int (*link_fragment)(const uint8_t *code, size_t size, const struct gs_drv_state *s,
                       const struct gs_drv_fs_link_info *info, uint8_t **out, size_t *out_size, gs_diag *d);

  /* What the fragment program at code reads of a batch (GS_FRAG_READS_*),
   * from its prepared code, for the primitive about to be shaded: a bit
   * may be clear only when no run of the program can read that input;
   * GS_FRAG_READS_ALL when unsure, when the code does not prepare (the
   * run reports that), and while the step debugger is on (it shows every
   * input). The pipeline may then leave what is not read unset. NULL:
   * everything, always. */
  uint32_t (*fragment_reads)(gs_gpu *g, gs_isa_unit *u, gs_addr code);
} gs_isa;

/* The ISA called name, or NULL. */
const gs_isa *gs_isa_by_name(const char *name);
/* The ISA with id (GS_ISA_NONE: the QPU), or NULL. */
const gs_isa *gs_isa_by_id(unsigned id);
/* The n-th registered ISA (0..), NULL past the last: for help texts. */
const gs_isa *gs_isa_at(unsigned n);
/* "qpu, sass, ..." of the registered ISAs. */
const char *gs_isa_names(void);

/* The context state context_new made for isa id (NULL if none). */
void *gs_isa_context(gs_gpu *g, gs_isa_id id);

/* ---- the program header -----------------------------------------------------
 * GS_PROGRAM_HEADER bytes in front of a program's first instruction, 32-bit
 * little-endian words: 0 GS_PROGRAM_MAGIC ("GSPH"), 1 the code's length in
 * bytes, 2 the SPH's ShaderType, 3 the gs_isa_id, 4-23 the 80-byte SPH. */
#define GS_PROGRAM_MAGIC 0x48505347u /* "GSPH" */
#define GS_PROGRAM_HEADER 96u

typedef struct gs_program_header {
  gs_isa_id isa;
  uint32_t code_bytes;
  uint32_t sph_words[GS_SPH_WORDS];
} gs_program_header;

/* Writes a header (GS_PROGRAM_HEADER bytes) for code of code_bytes bytes. */
void gs_program_header_write(uint8_t *p, gs_isa_id isa, uint32_t code_bytes, const gs_sph *sph,
                             const uint32_t sph_words[GS_SPH_WORDS]);
/* Reads the header in front of code: 1 and *h if there is one, 0 if the code
 * has none (raw code), or a negative error (an unknown ISA id) in d. */
int gs_program_header_read(const gs_mem *m, gs_addr code, gs_program_header *h, gs_diag *d);
/* The SPH in the header in front of code: 1 and *out, 0 if the code has no
 * header, or a negative error (an unknown ISA id, an SPH that does not
 * decode) in d. */
int gs_program_sph(const gs_mem *m, gs_addr code, gs_sph *out, gs_diag *d);

#endif
