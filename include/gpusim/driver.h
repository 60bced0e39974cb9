/* gpusim/driver.h — the driver: lowers frames of draw calls into real
 * VideoCore IV control lists, shader records and uniform streams in GPU
 * memory, the way Mesa's vc4 driver and the kernel's render-list builder do
 * (Linux drivers/gpu/drm/vc4/vc4_render_cl.c; the lists and records of
 * Broadcom's VideoCore IV 3D Architecture Reference Guide, "RG" below,
 * Tables 38 and 45). The control-list executor then runs the
 * four addresses a frame hands back; the driver never runs anything itself.
 *
 * MANUAL
 *
 *   gs_driver *drv = gs_driver_new(gs_gpu_mem(g));
 *
 *   gs_drv_target t = {.width = 320, .height = 240, .format = GS_DRV_RGBA8888};
 *   gs_drv_target_alloc(mem, &t, &d);           // the frame buffer
 *
 *   gs_drv_program vs, cs, fs;                  // code with its SPH before it
 *   gs_drv_program_load(mem, words, n, &sph, &vs, &d);   ...
 *   gs_drv_shader sh = {.vs_code = vs.code, .cs_code = cs.code,
 *                       .fs_code = fs.code, .nvaryings = 3};
 *
 *   gs_drv_state st;  gs_drv_state_init(&st);   // whole-target viewport, ...
 *   st.blend = (gs_drv_blend){true, GS_DRV_BLEND_ADD, GS_DRV_FACTOR_SRC_ALPHA,
 *                             GS_DRV_FACTOR_ONE_MINUS_SRC_ALPHA, GS_DRV_BLEND_ADD,
 *                             GS_DRV_FACTOR_SRC_ALPHA, GS_DRV_FACTOR_ONE_MINUS_SRC_ALPHA, 0};
 *   gs_drv_attr a[2] = {{pos, 16, 28}, {pos + 16, 12, 28}};
 *   gs_drv_draw dr = {.mode = GS_DRV_TRIANGLES, .shader = &sh, .attrs = a,
 *                     .nattrs = 2, .count = 3, .state = &st, .uniforms = ...};
 *
 *   gs_driver_begin_frame(drv, &t, &d);         // resets the previous frame
 *   gs_driver_set_clear(drv, &(gs_drv_clear){0xff000000u, 1.0f, 0});
 *   gs_driver_draw(drv, &dr, &d);  ...
 *   gs_drv_frame f;
 *   gs_driver_end_frame(drv, &f, &d);
 *   // run f.bin_start..f.bin_end and f.render_start..f.render_end; the image
 *   // is then at f.framebuffer (f.stride bytes per row, row 0 = bottom)
 *
 * WHAT A FRAME BECOMES (in the order of Mesa's vc4_emit.c and Linux's
 * vc4_render_cl.c)
 *
 *   binning list:   112 TILE_BINNING_MODE_CONFIGURATION (tile allocation
 *                   memory, its size, the tile state data array, tiles)
 *                   6 START_TILE_BINNING
 *                   56 PRIMITIVE_LIST_FORMAT (triangles, 16-bit indices)
 *                   per draw, each record only when its bytes changed:
 *                     102 CLIP_WINDOW, 96 CONFIGURATION_BITS, 98 POINT_SIZE,
 *                     99 LINE_WIDTH, 105 CLIPPER_XY_SCALING,
 *                     103 VIEWPORT_OFFSET, 106 CLIPPER_Z_SCALE_AND_OFFSET,
 *                     97 FLAT_SHADE_FLAGS, 56 when the primitive class
 *                     (points, lines, triangles) changes,
 *                     64 GL_SHADER_STATE -> GL shader record + attributes,
 *                     33 VERTEX_ARRAY_PRIMITIVES or 32 INDEXED_PRIMITIVE_LIST
 *                   7 INCREMENT_SEMAPHORE, 4 FLUSH
 *   rendering list: 114 CLEAR_COLORS, 113 TILE_RENDERING_MODE_CONFIGURATION,
 *                   115 (0,0) + 28 STORE_TILE_BUFFER_GENERAL buffer=none
 *                   (loads the new clear values into the tile buffer, as
 *                   the kernel does), then per tile in raster order:
 *                   115 TILE_COORDINATES, (first tile) 8 WAIT_ON_SEMAPHORE,
 *                   17 BRANCH_TO_SUB_LIST tile_alloc + 32 (row tiles_x +
 *                   col), 24 STORE_MS_RESOLVED_TILE_COLOR_BUFFER (25, with
 *                   end of frame, on the last tile).
 *   A target of 4 samples sets 4x multisampling in 112 and 113, rasteriser
 *   oversample 4x in 96 and decimate 4x in 113 (the stores resolve); an
 *   RGBA16F target sets 64-bit colour in both, and its clear colour is the
 *   RGBA8888 one widened to halves (byte / 255, nearest half). The tile
 *   grid follows (64x64 tiles; 32x32 with 4 samples; half as high with
 *   64-bit colour: RG §5).
 *
 * The binning list grows in 4 KB blocks chained with Branch (16). Tile
 * allocation memory starts with one 32-byte initial block per tile (so the
 * rendering list can branch to them) and grows in 128-byte blocks from a
 * pool sized from the frame's work (docs/scenes.md gives the formula); a
 * frame that needs more gets it from gs_driver_grow_tile_memory.
 *
 * MEMORY. Lists, records, uniform streams, tile allocation memory and the
 * tile state data array of a frame live in the driver's frame arena: GPU
 * memory the driver allocates through gs_mem once and reuses for every
 * frame (gs_driver_begin_frame makes the previous frame's lists invalid).
 * Frame buffers belong to targets, programs and vertex data to the caller.
 * gs_driver_free releases everything the driver allocated.
 *
 * PROGRAMS AND THEIR SPH. Every program gets a Shader Program Header
 * (docs/sph.md): whatever its ISA, a program's inputs, outputs and
 * interpolation modes are described by one NVIDIA-style header, which the
 * pipeline reads instead of looking at the ISA. gs_drv_program_load
 * places, in one allocation,
 *   code - 96  u32 GS_DRV_PROGRAM_MAGIC ("GSPH" little-endian), u32 code
 *              bytes, u32 the SPH's ShaderType, u32 the instruction set
 *              (GS_DRV_ISA_*)
 *   code - 80  the 20 SPH words (gs_sph_encode)
 *   code       the instructions (16-byte aligned)
 * so that the pipeline, given only a code address from a shader record,
 * finds the program's instruction set and SPH (gs_drv_program_sph): each
 * varying's interpolation is the fragment program's PixelImap, and a draw
 * may pair stages of different instruction sets. A hand-written control
 * list whose programs lack the header still runs as VideoCore IV QPU code
 * (the hardware's own): the pipeline then uses
 * the Flat Shade Flags alone.
 *
 * BLENDING AND STENCIL (docs/blending.md). The VC4 has no blend unit and no
 * stencil state in its lists (RG §5, Tables 25-28): both are fragment-shader
 * code. A draw whose state has blending other than replace, a colour mask
 * that leaves a channel out, or stencil gets a variant of its fragment
 * program, linked by gs_drv_fs_link and loaded with the original's SPH:
 * each TLB_COLOUR_ALL write goes to a free accumulator and is followed by
 * code that loads the tile colour (loadc), blends byte by byte (v8muld,
 * v8adds, v8subs, v8min, v8max) and writes the result — into a 4-sample
 * target sample by sample (loadc and TLB_COLOUR_MS four times, when the
 * blend reads the tile); blending into an RGBA16F target is an error (its
 * words are half floats, not bytes); each TLB_Z write is
 * preceded by `ldi tlb_stencil` with the setup words (gs_drv_stencil_words),
 * and a program without one gets `mov tlb_z, rb15` before its first colour
 * write; relative branches are moved. Variants are cached per program
 * (address and code), state, thread mode and sample count, and live as long as the
 * driver (past 64, those the current frame does not use are released); a
 * draw that needs none uses the program's own address. Stencil turns early
 * Z off. The program must have been loaded with gs_drv_program_load (the
 * header gives its length). A program that cannot be linked safely fails
 * the draw with GS_EARG: "draw: fragment program 0x...: instruction I
 * [at line L] (<disassembly>): <why>", the line from gs_drv_shader.fs_lines.
 *
 * UNIFORMS. A stream is a list of gs_drv_uniform: a constant 32-bit word, or
 * a value the driver knows when it lowers the draw, as Mesa's QUNIFORM_*:
 * the viewport's X/Y scale in 1/16 pixel (half width × 16, half height ×
 * 16) and its Z scale and offset. The vertex, coordinate and fragment
 * shaders each get their own stream (the shader record holds three
 * addresses). Streams are copied into the frame arena, and the frame lists
 * each with its length (gs_drv_frame.unif_streams): given to the executor
 * (gs_v3d_options.unif_streams), a shader that reads past the uniforms its
 * draw gave is an error naming the shader and its pc, not a read of
 * whatever memory follows.
 *
 * ERRORS. Every call that can fail returns GS_OK or a negative GS_E* code
 * and writes the reason into d (may be NULL), naming the argument and the
 * value: GS_EARG for a bad description (a size out of range, no attribute,
 * too many varyings, a mode out of range, an index outside the index
 * buffer's allocation, more than 65536 vertices in a strip, a blend or
 * stencil code out of range, blending or a colour mask into an RGBA16F
 * target, a fragment program that does not link for the draw's
 * blend and stencil state), GS_ENOMEM when
 * GPU memory is exhausted, GS_EFAULT when an index buffer lies outside
 * allocated memory or an attribute array does not hold the draw's largest
 * vertex (its largest index, or first + count - 1) inside the allocation
 * its base lies in — as the Linux vc4 validator checks each attribute
 * against max_index (drivers/gpu/drm/vc4/vc4_validate.c); the message
 * names the index, the attribute, the bytes it needs and the vertices the
 * allocation holds. A failed draw leaves the frame as it was before it.
 */
#ifndef GPUSIM_DRIVER_H
#define GPUSIM_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/mem.h"
#include "gpusim/sph.h"
#include "gpusim/v3d.h"

/* ---- render targets ------------------------------------------------------ */

/* Colour formats: RGBA8888 stores the TLB word as is (byte 0 = R), BGR565
 * packs R into bits 15:11, G 10:5, B 4:0 (Mesa's vc4_formats.c). RGBA16F is a
 * 64-bit (HDR) tile buffer stored as four IEEE halves, R first, 8 bytes per
 * pixel (docs/tile-buffer.md): its fragment shaders write two words per
 * pixel, RG16F then BA16F. */
typedef enum gs_drv_format { GS_DRV_RGBA8888 = 0, GS_DRV_BGR565 = 1, GS_DRV_RGBA16F = 2 } gs_drv_format;

/* Largest target side: the Viewport Offset record holds the centre as a
 * signed 12.4 number, so a centred viewport reaches 4095 pixels. */
#define GS_DRV_MAX_SIDE 4095
#define GS_DRV_TILE_SIZE 64

typedef struct gs_drv_target {
  uint32_t width, height;  /* pixels, 1..GS_DRV_MAX_SIDE */
  gs_drv_format format;
  bool depth;              /* has a depth buffer (the tile buffer's Z) */
  gs_addr framebuffer;     /* set by gs_drv_target_alloc; row 0 = bottom */
  uint32_t stride;         /* bytes per row: width × bytes per pixel */
  unsigned samples;        /* 1, or 4 for 4x multisampling (0 counts as 1):
                              resolved (decimate 4x) into the frame buffer */
} gs_drv_target;

/* Bytes per pixel of a format (4, 2 or 8). */
unsigned gs_drv_format_bytes(gs_drv_format f);

/* Allocates t's frame buffer (zero-filled, 4 KB aligned) from its width,
 * height and format, and sets framebuffer and stride. GS_EARG for a size,
 * format or sample count out of range, GS_ENOMEM when memory is exhausted. */
int gs_drv_target_alloc(gs_mem *m, gs_drv_target *t, gs_diag *d);
/* Releases t's frame buffer (if any) and sets framebuffer to 0. */
void gs_drv_target_release(gs_mem *m, gs_drv_target *t);

/* ---- textures ------------------------------------------------------------ */

/* A texture for the TMU (RG §4): one level of RGBA8888 texels (TMU
 * type 0) in the T or LT layout the hardware picks by size, sampled with
 * the config words of gs_drv_texture_config, which a fragment shader's
 * uniform stream holds where its TMU writes pop them (the T write takes
 * the first, the S write the second). */
typedef enum gs_drv_filter { GS_DRV_LINEAR = 0, GS_DRV_NEAREST = 1 } gs_drv_filter;
typedef enum gs_drv_wrap { GS_DRV_REPEAT = 0, GS_DRV_CLAMP = 1, GS_DRV_MIRROR = 2 } gs_drv_wrap;

#define GS_DRV_MAX_TEXTURE 2048

typedef struct gs_drv_texture {
  uint32_t width, height;    /* texels, 1..GS_DRV_MAX_TEXTURE */
  gs_drv_filter filter;      /* minification and magnification */
  gs_drv_wrap wrap_s, wrap_t;
  gs_addr base;              /* set by gs_drv_texture_alloc: 4 KB aligned */
  uint32_t bytes;            /* the level's size in its layout */
  bool lt;                   /* LT layout (small textures), else T */
} gs_drv_texture;

/* Allocates t's memory and stores rgba (width × height texels of 4 bytes
 * R, G, B, A; row 0 first: texture coordinate t = 0) tiled. GS_EARG for a
 * size, filter or wrap out of range, GS_ENOMEM when memory is exhausted. */
int gs_drv_texture_alloc(gs_mem *m, gs_drv_texture *t, const uint8_t *rgba, gs_diag *d);
/* Releases t's memory (if any) and sets base to 0. */
void gs_drv_texture_release(gs_mem *m, gs_drv_texture *t);
/* The TMU config parameters 0 and 1 (RG Tables 15-16) of t. */
void gs_drv_texture_config(const gs_drv_texture *t, uint32_t p[2]);

/* ---- programs ------------------------------------------------------------ */

#define GS_DRV_PROGRAM_MAGIC 0x48505347u  /* "GSPH" */
#define GS_DRV_PROGRAM_HEADER 96u         /* bytes before the code */

typedef struct gs_drv_program {
  gs_addr block;     /* the allocation: the header, then the code */
  gs_addr code;      /* first instruction: block + GS_DRV_PROGRAM_HEADER */
  uint32_t ninstr;   /* 64-bit instructions (size / 8) */
  unsigned isa;      /* its instruction set: GS_DRV_ISA_* */
  uint32_t size;     /* bytes of code */
} gs_drv_program;

/* Instruction sets, as the program header names them (word 3). */
enum { GS_DRV_ISA_QPU = 1, GS_DRV_ISA_SASS = 2, GS_DRV_ISA_PICA = 3, GS_DRV_ISA_AGX = 4 };

/* Loads size bytes of code of instruction set isa (GS_DRV_ISA_*, or 0: the
 * VideoCore IV's own; a whole number of its instructions, at least one)
 * after the header holding sph (which must encode: gs_sph_encode) and the
 * isa. */
int gs_drv_program_load_isa(gs_mem *m, unsigned isa, const uint8_t *code, size_t size, const gs_sph *sph,
                            gs_drv_program *out, gs_diag *d);
/* The same for n 64-bit instruction words (n >= 1) of the VideoCore IV's
 * own instruction set. */
int gs_drv_program_load(gs_mem *m, const uint64_t *words, size_t n, const gs_sph *sph,
                        gs_drv_program *out, gs_diag *d);
/* Releases p's allocation (if any) and zeroes p. */
void gs_drv_program_release(gs_mem *m, gs_drv_program *p);
/* Reads the SPH of the program whose code starts at `code` into *out.
 * GS_EINVAL when no driver header precedes the code (no magic, or code
 * too close to the start of its allocation) or the SPH does not decode. */
int gs_drv_program_sph(const gs_mem *m, gs_addr code, gs_sph *out, gs_diag *d);


/* The three programs of a draw and what the GL shader record says of them. */
typedef struct gs_drv_shader {
  gs_addr vs_code, cs_code, fs_code;  /* from gs_drv_program.code */
  unsigned nvaryings;       /* varyings the FS reads, 0..32 (record byte 3) */
  uint32_t flat_varyings;   /* bit i: varying i is flat (record 97) */
  bool fs_threaded;         /* the FS switches threads (else single-threaded) */
  uint8_t cs_attrs;         /* bit i: the CS loads attribute i; 0 = all */
  const uint32_t *fs_lines; /* NULL, or the source line of each FS
                               instruction (gs_qpu_asm_lines), for messages */
} gs_drv_shader;

/* ---- draws --------------------------------------------------------------- */

/* Primitive modes: the codes of packets 32 and 33. */
typedef enum gs_drv_mode {
  GS_DRV_POINTS = 0, GS_DRV_LINES = 1, GS_DRV_LINE_LOOP = 2, GS_DRV_LINE_STRIP = 3,
  GS_DRV_TRIANGLES = 4, GS_DRV_TRIANGLE_STRIP = 5, GS_DRV_TRIANGLE_FAN = 6
} gs_drv_mode;

/* Depth functions: the codes of Configuration Bits 14:12 (GL order). */
typedef enum gs_drv_depth_func {
  GS_DRV_NEVER = 0, GS_DRV_LESS = 1, GS_DRV_EQUAL = 2, GS_DRV_LEQUAL = 3,
  GS_DRV_GREATER = 4, GS_DRV_NOTEQUAL = 5, GS_DRV_GEQUAL = 6, GS_DRV_ALWAYS = 7
} gs_drv_depth_func;

typedef enum gs_drv_cull {
  GS_DRV_CULL_NONE = 0, GS_DRV_CULL_FRONT = 1, GS_DRV_CULL_BACK = 2, GS_DRV_CULL_BOTH = 3
} gs_drv_cull;

/* A rectangle in pixels; y counts from the bottom row (row 0 of memory). */
typedef struct gs_drv_rect {
  int32_t x, y;
  uint32_t width, height;
} gs_drv_rect;

/* ---- blending and stencil (docs/blending.md) ------------------------------ */

/* Blend equations: how the two weighted terms combine, byte by byte (GL's
 * names; min and max ignore the factors, as in GL). */
typedef enum gs_drv_blend_equation {
  GS_DRV_BLEND_ADD = 0,              /* src × Fs + dst × Fd, saturating */
  GS_DRV_BLEND_SUBTRACT = 1,         /* src × Fs − dst × Fd, clamped at 0 */
  GS_DRV_BLEND_REVERSE_SUBTRACT = 2, /* dst × Fd − src × Fs, clamped at 0 */
  GS_DRV_BLEND_MIN = 3,              /* min(src, dst) */
  GS_DRV_BLEND_MAX = 4               /* max(src, dst) */
} gs_drv_blend_equation;

/* Blend factors (GL's names). For the alpha byte a colour factor stands
 * for its alpha (src_color gives As, constant_color Ac), and
 * src_alpha_saturate for 1. */
typedef enum gs_drv_blend_factor {
  GS_DRV_FACTOR_ZERO = 0, GS_DRV_FACTOR_ONE,
  GS_DRV_FACTOR_SRC_COLOR, GS_DRV_FACTOR_ONE_MINUS_SRC_COLOR,
  GS_DRV_FACTOR_DST_COLOR, GS_DRV_FACTOR_ONE_MINUS_DST_COLOR,
  GS_DRV_FACTOR_SRC_ALPHA, GS_DRV_FACTOR_ONE_MINUS_SRC_ALPHA,
  GS_DRV_FACTOR_DST_ALPHA, GS_DRV_FACTOR_ONE_MINUS_DST_ALPHA,
  GS_DRV_FACTOR_CONSTANT_COLOR, GS_DRV_FACTOR_ONE_MINUS_CONSTANT_COLOR,
  GS_DRV_FACTOR_CONSTANT_ALPHA, GS_DRV_FACTOR_ONE_MINUS_CONSTANT_ALPHA,
  GS_DRV_FACTOR_SRC_ALPHA_SATURATE,
  GS_DRV_FACTOR_COUNT
} gs_drv_blend_factor;

typedef struct gs_drv_blend {
  bool enable;                      /* false: the shader's colour replaces the pixel's */
  gs_drv_blend_equation equation;   /* bytes 0..2 (R, G, B) */
  gs_drv_blend_factor src, dst;
  gs_drv_blend_equation alpha_equation;  /* byte 3 (A) */
  gs_drv_blend_factor src_alpha, dst_alpha;
  uint32_t color;                   /* the constant colour as a TLB word (R in 7:0) */
} gs_drv_blend;

/* Stencil operations: the codes of the TLB_STENCIL_SETUP word
 * (RG §5, Tables 25-28). */
typedef enum gs_drv_stencil_op {
  GS_DRV_STENCIL_ZERO = 0, GS_DRV_STENCIL_KEEP = 1, GS_DRV_STENCIL_REPLACE = 2,
  GS_DRV_STENCIL_INCR = 3, GS_DRV_STENCIL_DECR = 4, GS_DRV_STENCIL_INVERT = 5,
  GS_DRV_STENCIL_INCR_WRAP = 6, GS_DRV_STENCIL_DECR_WRAP = 7
} gs_drv_stencil_op;

/* One face's stencil test: passes where (ref & mask) func (stencil & mask),
 * as in GL; func uses the depth-function codes (gs_drv_depth_func). */
typedef struct gs_drv_stencil_face {
  uint8_t func;                     /* gs_drv_depth_func */
  uint8_t ref, mask, write_mask;
  uint8_t fail, zfail, zpass;       /* gs_drv_stencil_op */
} gs_drv_stencil_face;

typedef struct gs_drv_stencil {
  bool enable;
  gs_drv_stencil_face front, back;
} gs_drv_stencil;

typedef struct gs_drv_state {
  bool depth_test;             /* ignored (off) for a target without depth */
  gs_drv_depth_func depth_func;
  bool depth_write;
  gs_drv_cull cull;
  bool front_cw;               /* clockwise triangles face forward */
  gs_drv_rect viewport;        /* width or height 0: the whole target */
  float depth_near, depth_far; /* depth range the Z of clip -1..1 maps to */
  bool scissor;                /* clip to scissor_rect too */
  gs_drv_rect scissor_rect;
  float point_size, line_width;/* pixels */
  gs_drv_blend blend;          /* these three make a fragment-program variant */
  uint8_t color_mask;          /* bit 0 R, 1 G, 2 B, 3 A: channels written */
  gs_drv_stencil stencil;
} gs_drv_state;

/* The defaults: no depth test (LESS when enabled), depth writes on, no
 * culling, counter-clockwise front, the whole target, depth range 0..1, no
 * scissor, point size and line width 1, blending off (add, one, zero; a
 * constant colour of 0), all four channels written, stencil off (always,
 * ref 0, masks 0xff, keep on every outcome, both faces). */
void gs_drv_state_init(gs_drv_state *s);

/* Whether s needs a variant of the fragment program: blending other than
 * "replace" (add or subtract with factors one and zero, for colour and
 * alpha), a colour mask that leaves a channel out, or stencil. */
bool gs_drv_fs_needs_variant(const gs_drv_state *s);
/* GS_EARG, naming it, when a code of s's blend, colour mask or stencil is
 * out of range (gs_driver_draw and gs_drv_fs_link check it). */
int gs_drv_fs_check_state(const gs_drv_state *s, gs_diag *d);

/* Whether s's blend changes the colour: blending on, and other than
 * "replace" (the part of gs_drv_fs_blends without the colour mask). */
bool gs_drv_fs_blend_on(const gs_drv_state *s);

/* Whether s's blend or colour mask changes the colour writes (the part of
 * gs_drv_fs_needs_variant without stencil). Draws into an RGBA16F target
 * refuse it: the blend code works on 32-bit words of four bytes. */
bool gs_drv_fs_blends(const gs_drv_state *s);

/* The TLB_STENCIL_SETUP words of s (RG Tables 27-28), in the order
 * they must be written: one word for both faces (WSEL 3) when the faces
 * agree, else front (1) then back (2); then, when a write mask is not one
 * of 0x01, 0x03, 0x0f, 0xff, the full write-mask word (WSEL 0, back mask in
 * 15:8, front in 7:0). Returns the count, 1..3. */
unsigned gs_drv_stencil_words(const gs_drv_stencil *s, uint32_t w[3]);

/* What the linker needs to know besides the program and the state. */
typedef struct gs_drv_fs_link_info {
  bool threaded;          /* a threaded fragment shader: only ra0..ra15 */
  unsigned samples;       /* of the target: 1 (0 counts as 1) or 4 */
  const uint32_t *lines;  /* NULL, or each instruction's source line */
} gs_drv_fs_link_info;

/* Links the fragment program words[0..n) — raw VideoCore IV QPU code, the
 * hardware's own, which the linker of that instruction set links (the
 * programs of other instruction sets reach theirs through their program
 * header) — for s's blend, colour mask and stencil (docs/blending.md says
 * what it inserts and why): each write to
 * TLB_COLOUR_ALL goes to a free accumulator and is followed by code that
 * loads the tile's colour and blends — with 4 samples, once per sample,
 * writing TLB_COLOUR_MS — each TLB_Z write is preceded by the stencil setup
 * words; relative branches are moved to their new targets. info may be
 * NULL (single-threaded, one sample, no lines). On success *out is a
 * malloc'ed copy (*nout words); a program that needs no change is copied as
 * is. GS_EARG for codes out of range (gs_drv_fs_check_state) or 2 or 3
 * samples. GS_EINVAL, with "instruction I (<its disassembly>): <why>" —
 * "instruction I at line L" with info->lines — for code that cannot be
 * linked safely: a register or absolute branch, a colour write that is
 * conditional, packed (other than the MUL ALU's .8888), carries a signal
 * other than thrend or sbdone, or sits in a branch or thread-end delay
 * slot; a TLB_COLOUR_MS write with blending on; too few accumulators free
 * after the colour write; r4 read after it; an SFU result still on its way
 * to r4; no free regfile-A register; with stencil, a program that writes
 * tlb_stencil itself, a Z write in a delay slot, or (when the driver adds
 * `mov tlb_z, rb15`) a program that writes rb15 or writes no colour. */
int gs_drv_fs_link(const uint64_t *words, size_t n, const gs_drv_state *s, const gs_drv_fs_link_info *info,
                   uint64_t **out, size_t *nout, gs_diag *d);

#define GS_DRV_MAX_ATTRS 8     /* attribute arrays of a GL shader record */
#define GS_DRV_MAX_VARYINGS 32 /* Flat Shade Flags bits */

/* One attribute array: vertex v's `size` bytes at base + v × stride. */
typedef struct gs_drv_attr {
  gs_addr base;
  uint32_t size;    /* 1..64 bytes */
  uint32_t stride;  /* 0..255 bytes */
} gs_drv_attr;

/* Uniform values the driver fills in (Mesa's QUNIFORM_*). */
typedef enum gs_drv_uniform_kind {
  GS_DRV_U_CONSTANT = 0,       /* value as given */
  GS_DRV_U_VIEWPORT_X_SCALE,   /* f32: viewport width / 2 × 16 */
  GS_DRV_U_VIEWPORT_Y_SCALE,   /* f32: viewport height / 2 × 16 */
  GS_DRV_U_VIEWPORT_Z_SCALE,   /* f32: (far − near) / 2 */
  GS_DRV_U_VIEWPORT_Z_OFFSET,  /* f32: (far + near) / 2 */
  GS_DRV_U_KIND_COUNT
} gs_drv_uniform_kind;

typedef struct gs_drv_uniform {
  uint32_t kind;   /* gs_drv_uniform_kind */
  uint32_t value;  /* GS_DRV_U_CONSTANT: the word */
} gs_drv_uniform;

typedef struct gs_drv_uniforms {
  const gs_drv_uniform *u;
  size_t n;
} gs_drv_uniforms;

enum { GS_DRV_STAGE_VERTEX = 0, GS_DRV_STAGE_COORDINATE = 1, GS_DRV_STAGE_FRAGMENT = 2 };

typedef struct gs_drv_draw {
  gs_drv_mode mode;
  const gs_drv_shader *shader;
  const gs_drv_attr *attrs;     /* attribute i feeds input i of the VS (and CS) */
  unsigned nattrs;              /* 1..GS_DRV_MAX_ATTRS */
  gs_addr indices;              /* 0: draw arrays */
  unsigned index_size;          /* with indices: 1 or 2 bytes */
  uint32_t first;               /* first vertex, or first index */
  uint32_t count;               /* vertices or indices */
  gs_drv_uniforms uniforms[3];  /* by GS_DRV_STAGE_* */
  const gs_drv_state *state;    /* NULL: the defaults */
} gs_drv_draw;

/* The primitives `count` vertices (or indices) of mode m make: points n,
 * lines n / 2, a line loop n (none below 2), a line strip n - 1, triangles
 * n / 3, a triangle strip or fan n - 2 (none below 3). 0 for a mode out of
 * range. A draw with vertices that make none draws nothing: gpusim.render
 * warns of it. */
uint32_t gs_drv_primitives(gs_drv_mode m, uint32_t count);
/* The fewest vertices a primitive of mode m takes: 1, 2 or 3 (0 for a
 * mode out of range). */
unsigned gs_drv_mode_vertices(gs_drv_mode m);

/* ---- frames -------------------------------------------------------------- */

/* Clear values of a frame (record 114). */
typedef struct gs_drv_clear {
  uint32_t color;   /* the RGBA8888 TLB word: R in bits 7:0, A in 31:24 */
  float depth;      /* 0..1, stored as 24-bit Z */
  uint8_t stencil;
} gs_drv_clear;

/* What the executor needs to run a frame and read its image. */
typedef struct gs_drv_frame {
  gs_addr bin_start, bin_end;        /* CT0CA, CT0EA */
  gs_addr render_start, render_end;  /* CT1CA, CT1EA */
  gs_addr framebuffer;
  uint32_t width, height, stride;
  gs_drv_format format;
  uint32_t tiles_x, tiles_y;        /* of 64x64 tiles; 32x32 with 4 samples,
                                        half as high with RGBA16F */
  gs_addr tile_alloc, tsda;
  uint32_t tile_alloc_size;
  uint32_t draws;                    /* draw packets (32/33) emitted */
  const gs_addr *fs_programs;        /* the fragment programs the frame's draws
                                        use, blend/stencil variants included,
                                        in first use; valid until the next
                                        gs_driver_begin_frame */
  unsigned n_fs_programs;
  const gs_v3d_unif_stream *unif_streams; /* every uniform stream of the
                                        frame's draws, sorted by address,
                                        as the executor's unif_streams option
                                        takes them; valid until the next
                                        begin_frame */
  unsigned n_unif_streams;
} gs_drv_frame;

typedef struct gs_driver gs_driver;

/* Creates a driver allocating from m. NULL when the host is out of memory. */
gs_driver *gs_driver_new(gs_mem *m);
/* Releases the driver and every GPU allocation it made. */
void gs_driver_free(gs_driver *drv);

/* Starts a frame into target t (allocated with gs_drv_target_alloc), which
 * must stay allocated until the frame has run. Resets the frame arena (the
 * previous frame's lists become invalid) and the clear values (opaque
 * black, depth 1, stencil 0). */
int gs_driver_begin_frame(gs_driver *drv, const gs_drv_target *t, gs_diag *d);
/* Sets the frame's clear values; may be called any time before end. */
void gs_driver_set_clear(gs_driver *drv, const gs_drv_clear *c);
/* Lowers one draw into the binning list. A draw of zero vertices adds
 * nothing. Arrays of points, lines or triangles reaching past vertex 65535
 * are split into several draws (erratum GFXH-515: the binner keeps 16-bit
 * indices), each with its own shader record whose attribute bases start at
 * the chunk's first vertex. */
int gs_driver_draw(gs_driver *drv, const gs_drv_draw *draw, gs_diag *d);
/* The draw call (1 for the frame's first successful gs_driver_draw, ...)
 * that wrote shader record `record` into the current frame, or 0: with
 * gs_v3d_fault_record it names the draw an executor error came from. */
uint32_t gs_driver_draw_of_record(const gs_driver *drv, gs_addr record);
/* Ends the binning list, writes the rendering list and fills *out. */
int gs_driver_end_frame(gs_driver *drv, gs_drv_frame *out, gs_diag *d);

/* The pool of tile allocation memory (after the initial blocks) of the
 * frames that follow: bytes > 0 fixes it (rounded up to 4 KB; for teaching
 * and tests), 0 goes back to the driver's estimate. */
void gs_driver_set_tile_pool(gs_driver *drv, uint32_t bytes);

/* The answer to a binning pass that ran out of tile allocation memory (the
 * executor's GS_ENOMEM; the hardware would ask for overspill memory, as the
 * kernel then gives): doubles f's pool, rewrites record 112 and the
 * rendering list for the new memory, and updates *f; run the frame again.
 * Later frames start with at least this pool. f must be the frame the last
 * gs_driver_end_frame returned. GS_ENOMEM beyond GS_DRV_MAX_TILE_POOL. */
#define GS_DRV_MAX_TILE_POOL (128u << 20)
int gs_driver_grow_tile_memory(gs_driver *drv, gs_drv_frame *f, gs_diag *d);

#endif
