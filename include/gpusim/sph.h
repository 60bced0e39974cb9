/* gpusim/sph.h — the Shader Program Header (SPH): codec, validation, stage
 * linkage (the plane maths of the three interpolation modes are the PSE's:
 * docs/sph.md, "Interpolation").
 *
 * Every shader program gpusim runs has an SPH, the one description of a
 * program's inputs and outputs the pipeline reads: a Maxwell SASS program starts with its own 80-byte
 * header; programs of the other ISAs get one built from what they declare
 * (gs_sph_build). The pipeline reads linkage, interpolation and flags from
 * it and never looks at the ISA. The layout, bit by bit, and every choice
 * made here are in docs/sph.md.
 *
 * THE HEADER
 *
 * An SPH is 20 little-endian 32-bit words (SPH version 3, Maxwell). Words
 * 0-4 are common; words 5-19 are laid out by SphType: 1 = VTG (vertex,
 * tessellation, geometry: one IMAP and one OMAP bit per attribute component)
 * or 2 = PS (pixel: a 2-bit PixelImap per interpolated input component, and
 * render-target, depth and sample-mask outputs). One sentence of NVIDIA's
 * document swaps the two values; the enum, NVIDIA's binaries and every
 * driver use VTG = 1, PS = 2, and so does gpusim.
 *
 * gs_sph has one named member per SPH field of both layouts, in the order
 * of NVIDIA's Shader Program Header description (open-gpu-doc). Scalars are uint32_t; per-component fields are uint8_t arrays
 * indexed [vector][component]. A field that exists in only one layout is
 * zero in a decoded header of the other, and must be zero to encode. Fields
 * that are maps hold, per component:
 *   VTG (SphType 1): 0 or 1;
 *   PS  (SphType 2): a gs_pixel_imap for the 2-bit fields (imap_generic,
 *                    imap_color[0..1], imap_texture), 0 or 1 for the 1-bit
 *                    ones (system values).
 *
 *   gs_sph s; gs_diag d;
 *   if (gs_sph_decode(words, &s, &d) < 0 || gs_sph_validate(&s, &d) < 0)
 *     puts(d.msg);                       // "SPH word 0 bits 4:0, SphType: ..."
 *   if (s.imap_generic[1][0] == GS_PIXEL_IMAP_PERSPECTIVE) ...
 *   char text[8192]; gs_sph_dump(&s, text, sizeof text);
 *
 * ERRORS
 *
 * Calls that can fail return GS_OK or a negative code and write the reason
 * into d (which may be NULL). A message names the field by its name in
 * NVIDIA's document (element and component included, e.g.
 * "ImapGenericVector[3].Z") and its place (word and bits):
 *   GS_EINVAL  decode: SphType is neither 1 nor 2;
 *              encode/validate: a value does not fit its field, a field of
 *              the other layout is set, or a rule of docs/sph.md is broken
 *              (Version, ShaderType, GS topology and vertex count, CRS size,
 *              PositionW input of a PS);
 *   GS_EARG    gs_sph_build: a declaration that no header can express;
 *
 * ATTRIBUTES
 *
 * Linkage works on attribute byte addresses as ALD, AST and IPA use them
 * (0x000-0x3FC, one 32-bit component each; the two low bits are ignored):
 * position 0x70, generic vector g at 0x80 + 16g, colours at 0x280, texture
 * coordinates at 0x300 + 16t (the GS_SPH_ATTR_* constants).
 */
#ifndef GPUSIM_SPH_H
#define GPUSIM_SPH_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"

#define GS_SPH_WORDS 20         /* SPH version 3: 80 bytes */
#define GS_SPH_VERSION 3        /* the only version gpusim reads */
#define GS_SPH_ATTR_COUNT 256   /* attribute components, addresses 0x000-0x3FC */

/* SphType */
enum { GS_SPH_TYPE_VTG = 1, GS_SPH_TYPE_PS = 2 };

/* ShaderType, also the stage of a declaration (gs_sph_decl.stage) */
typedef enum gs_sph_stage {
  GS_SPH_VERTEX = 1,
  GS_SPH_TESSELLATION_INIT = 2, /* hull / TCS */
  GS_SPH_TESSELLATION = 3,      /* domain / TES */
  GS_SPH_GEOMETRY = 4,
  GS_SPH_PIXEL = 5
} gs_sph_stage;

/* OutputTopology (geometry shaders) */
enum { GS_SPH_POINTLIST = 1, GS_SPH_LINESTRIP = 6, GS_SPH_TRIANGLESTRIP = 7 };

/* PixelImap: how a fragment input component is interpolated. */
typedef enum gs_pixel_imap {
  GS_PIXEL_IMAP_UNUSED = 0,
  GS_PIXEL_IMAP_CONSTANT = 1,      /* flat: the provoking vertex's value */
  GS_PIXEL_IMAP_PERSPECTIVE = 2,   /* plane of a/w; IPA.PASS returns it undivided */
  GS_PIXEL_IMAP_SCREEN_LINEAR = 3  /* plane of a in screen space */
} gs_pixel_imap;

/* Attribute byte addresses (as yuzu's attribute table, Ryujinx's
 * AttributeConsts.cs and nouveau number them). */
#define GS_SPH_ATTR_PRIMITIVE_ID 0x060u
#define GS_SPH_ATTR_RT_ARRAY_INDEX 0x064u
#define GS_SPH_ATTR_VIEWPORT_INDEX 0x068u
#define GS_SPH_ATTR_POINT_SIZE 0x06Cu
#define GS_SPH_ATTR_POSITION 0x070u        /* x y z w; in a PS w reads 1/w */
#define GS_SPH_ATTR_GENERIC(g) (0x080u + 16u * (unsigned)(g))  /* g = 0..31 */
#define GS_SPH_ATTR_COLOR_FRONT_DIFFUSE 0x280u
#define GS_SPH_ATTR_COLOR_FRONT_SPECULAR 0x290u
#define GS_SPH_ATTR_COLOR_BACK_DIFFUSE 0x2A0u
#define GS_SPH_ATTR_COLOR_BACK_SPECULAR 0x2B0u
#define GS_SPH_ATTR_CLIP_DISTANCE(i) (0x2C0u + 4u * (unsigned)(i))  /* i = 0..7 */
#define GS_SPH_ATTR_POINT_SPRITE 0x2E0u    /* s t */
#define GS_SPH_ATTR_FOG_COORDINATE 0x2E8u
#define GS_SPH_ATTR_TESS_COORD 0x2F0u      /* u v */
#define GS_SPH_ATTR_INSTANCE_ID 0x2F8u
#define GS_SPH_ATTR_VERTEX_ID 0x2FCu
#define GS_SPH_ATTR_TEXTURE(t) (0x300u + 16u * (unsigned)(t))  /* t = 0..9 */

/* One SPH, decoded. Member comments give the field's name in NVIDIA's
 * document, the SPH bits in the VTG layout / the PS layout (bit n is bit
 * n%32 of word n/32), and "-" where a layout lacks the field. */
typedef struct gs_sph {
  /* ---- common words 0-4 ---- */
  uint32_t sph_type;                      /* SphType                    0-4 */
  uint32_t version;                       /* Version                    5-9 */
  uint32_t shader_type;                   /* ShaderType                 10-13 */
  uint32_t mrt_enable;                    /* MrtEnable                  14 */
  uint32_t kills_pixels;                  /* KillsPixels                15 */
  uint32_t does_global_store;             /* DoesGlobalStore            16 */
  uint32_t sass_version;                  /* SassVersion                17-20 */
  uint32_t reserved_w0;                   /* Reserved                   21-23 */
  uint32_t geometry_passthrough;          /* Reserved (NAK: GS passthrough)   24 */
  uint32_t isbe_space_sharing;            /* Reserved (NAK: ISBE space sharing) 25 */
  uint32_t does_load_or_store;            /* DoesLoadOrStore            26 */
  uint32_t does_fp64;                     /* DoesFp64                   27 */
  uint32_t stream_out_mask;               /* StreamOutMask              28-31 */
  uint32_t shader_local_memory_low_size;  /* ShaderLocalMemoryLowSize   32-55 */
  uint32_t per_patch_attribute_count;     /* PerPatchAttributeCount     56-63 */
  uint32_t shader_local_memory_high_size; /* ShaderLocalMemoryHighSize  64-87 */
  uint32_t threads_per_input_primitive;   /* ThreadsPerInputPrimitive   88-95 */
  uint32_t shader_local_memory_crs_size;  /* ShaderLocalMemoryCrsSize   96-119 */
  uint32_t output_topology;               /* OutputTopology             120-123 */
  uint32_t reserved_w3;                   /* Reserved                   124-127 */
  uint32_t max_output_vertex_count;       /* MaxOutputVertexCount       128-139 */
  uint32_t store_req_start;               /* StoreReqStart              140-147 */
  uint32_t reserved_w4;                   /* Reserved                   148-151 */
  uint32_t store_req_end;                 /* StoreReqEnd                152-159 */

  /* ---- inputs (IMAP), both layouts ---- */
  uint32_t imap_reserved_a_lo;            /* ImapSystemValuesA reserved 160-163 / same */
  uint8_t imap_tess_lod[4];               /* ImapTessellationLod{Left,Right,Bottom,Top} 164-167 / same */
  uint8_t imap_tess_interior[2];          /* ImapTessellationInterior{U,V} 168-169 / same */
  uint32_t imap_reserved_a_hi;            /* ImapSystemValuesA reserved 170-183 / same */
  uint32_t imap_primitive_id;             /* ImapPrimitiveId            184 / same */
  uint32_t imap_rt_array_index;           /* ImapRtArrayIndex           185 / same */
  uint32_t imap_viewport_index;           /* ImapViewportIndex          186 / same */
  uint32_t imap_point_size;               /* ImapPointSize              187 / same */
  uint8_t imap_position[4];               /* ImapPosition{X,Y,Z,W}      188-191 / same */
  uint8_t imap_generic[32][4];            /* ImapGenericVector[32] XYZW 192-319 (1 bit) / 192-447 (2 bits) */
  uint8_t imap_color[4][4];               /* ImapColor{Front,Back}{Diffuse,Specular}{RGBA}
                                             320-335 (1 bit) / [0..1] only: 448-463 (2 bits) */
  uint8_t imap_clip_distance[8];          /* ImapClipDistance0-7        336-343 / 464-471 */
  uint8_t imap_point_sprite[2];           /* ImapPointSprite{S,T}       344-345 / 472-473 */
  uint32_t imap_fog_coordinate;           /* ImapFogCoordinate          346 / 474 */
  uint32_t imap_reserved_c;               /* ImapSystemValuesC reserved 347 / 475 */
  uint8_t imap_tess_eval_point[2];        /* ImapTessellationEvaluationPoint{U,V} 348-349 / 476-477 */
  uint32_t imap_instance_id;              /* ImapInstanceId             350 / 478 */
  uint32_t imap_vertex_id;                /* ImapVertexId               351 / 479 */
  uint8_t imap_texture[10][4];            /* ImapFixedFncTexture[10] STRQ 352-391 (1 bit) / 480-559 (2 bits) */
  uint32_t imap_reserved;                 /* ImapReserved               392-399 / 560-575 */

  /* ---- outputs (OMAP), VTG layout only ---- */
  uint32_t omap_reserved_a_lo;            /* OmapSystemValuesA reserved 400-403 / - */
  uint8_t omap_tess_lod[4];               /* OmapTessellationLod...     404-407 / - */
  uint8_t omap_tess_interior[2];          /* OmapTessellationInterior.. 408-409 / - */
  uint32_t omap_reserved_a_hi;            /* OmapSystemValuesA reserved 410-423 / - */
  uint32_t omap_primitive_id;             /* OmapPrimitiveId            424 / - */
  uint32_t omap_rt_array_index;           /* OmapRtArrayIndex           425 / - */
  uint32_t omap_viewport_index;           /* OmapViewportIndex          426 / - */
  uint32_t omap_point_size;               /* OmapPointSize              427 / - */
  uint8_t omap_position[4];               /* OmapPosition{X,Y,Z,W}      428-431 / - */
  uint8_t omap_generic[32][4];            /* OmapGenericVector[32] XYZW 432-559 / - */
  uint8_t omap_color[4][4];               /* OmapColor...               560-575 / - */
  uint8_t omap_clip_distance[8];          /* OmapClipDistance0-7        576-583 / - */
  uint8_t omap_point_sprite[2];           /* OmapPointSprite{S,T}       584-585 / - */
  uint32_t omap_fog_coordinate;           /* OmapFogCoordinate          586 / - */
  uint32_t omap_reserved_c;               /* OmapSystemValuesReserved17 587 / - */
  uint8_t omap_tess_eval_point[2];        /* OmapTessellationEvaluationPoint{U,V} 588-589 / - */
  uint32_t omap_instance_id;              /* OmapInstanceId             590 / - */
  uint32_t omap_vertex_id;                /* OmapVertexId               591 / - */
  uint8_t omap_texture[10][4];            /* OmapFixedFncTexture[10] STRQ 592-631 / - */

  /* ---- outputs, PS layout only ---- */
  uint8_t omap_target[8][4];              /* OmapTarget[8] RGBA         - / 576-607 */
  uint32_t omap_sample_mask;              /* OmapSampleMask             - / 608 */
  uint32_t omap_depth;                    /* OmapDepth                  - / 609 */

  uint32_t omap_reserved;                 /* OmapReserved               632-639 / 610-639 */
} gs_sph;

/* ---- codec ---------------------------------------------------------------- */

/* Decodes 20 words into *out (every member; the other layout's members are
 * zero). Fails only if SphType is neither 1 nor 2: the layout of words
 * 5-19 is then unknown. Decoding does not validate: see gs_sph_validate. */
int gs_sph_decode(const uint32_t words[GS_SPH_WORDS], gs_sph *out, gs_diag *d);

/* Encodes *s into 20 words. Fails, leaving words all zero, if SphType is
 * neither 1 nor 2, a value does not fit its field's width, or a field of
 * the other layout is non-zero. decode(encode(s)) == s and
 * encode(decode(w)) == w, reserved bits included. */
int gs_sph_encode(const gs_sph *s, uint32_t words[GS_SPH_WORDS], gs_diag *d);

/* The same on the header as it lies in memory or in a file: 80 bytes, 20
 * little-endian words. */
#define GS_SPH_BYTES (4 * GS_SPH_WORDS)
int gs_sph_decode_bytes(const unsigned char bytes[GS_SPH_BYTES], gs_sph *out, gs_diag *d);
int gs_sph_encode_bytes(const gs_sph *s, unsigned char bytes[GS_SPH_BYTES], gs_diag *d);

/* Checks that *s encodes (as gs_sph_encode) and obeys the rules gpusim
 * enforces (docs/sph.md, "Validation"): Version 3; ShaderType 1-5 and
 * PIXEL exactly when SphType is PS; a GS has OutputTopology 1, 6 or 7 and
 * MaxOutputVertexCount 1-1024; ShaderLocalMemoryCrsSize is a multiple of
 * 512 up to 1 MiB; a PS maps ImapPositionW. Reports the first broken rule. */
int gs_sph_validate(const gs_sph *s, gs_diag *d);

/* Writes a readable listing of *s into buf, one field per line:
 *   "w0[4:0]    SphType                       2 (PS)"
 * Every field of words 0-4 is listed; of words 5-19 only the elements that
 * are not zero (a map lists what it maps). Always NUL-terminates when
 * len > 0; returns the length the whole listing needs, as snprintf does. */
size_t gs_sph_dump(const gs_sph *s, char *buf, size_t len);

/* ---- the header as named elements (gpusim.sph, `gpusim sph`) ---------------- */

/* One element of a layout: a scalar field, or one component of a field
 * that has one per component. */
typedef struct gs_sph_element {
  char key[64];   /* its name as messages and gs_sph_dump give it:
                     "SphType", "ImapGenericVector[8].X", "OmapTarget[0].Red";
                     a name several fields share adds "@" and its place as the
                     dump writes it: "Reserved@w0[23:21]" (docs/sph.md) */
  unsigned bit;   /* SPH bit of its least significant bit */
  unsigned width; /* bits, 1-30 */
  uint32_t value;
} gs_sph_element;

/* The number of elements of the layout of SphType sph_type, 0 unless it is
 * 1 or 2. Every SPH bit belongs to exactly one element of each layout. */
unsigned gs_sph_element_count(uint32_t sph_type);

/* Element k of s's layout (0 .. gs_sph_element_count(s->sph_type) - 1, in
 * bit order) with its value in s. GS_EARG if k is out of range or SphType
 * is neither 1 nor 2. Every key of a layout is different. */
int gs_sph_element_get(const gs_sph *s, unsigned k, gs_sph_element *e);

/* Starts an empty header: *s all zero but SphType. GS_EINVAL, as decode
 * reports it, if sph_type is neither 1 nor 2 (*s is then all zero). */
int gs_sph_init(gs_sph *s, long long sph_type, gs_diag *d);

/* Sets element k of the layout of SphType sph_type (1 or 2) to v. If that
 * is not s's layout, s has no such element: v must be 0 (nothing is set).
 * Otherwise v must fit the element's width, and SphType must stay s's.
 * Failures (GS_EINVAL) name the element by its key and place:
 *   "SPH word 0 bits 9:5, Version: 32 does not fit in 5 bits"
 *   "SPH OmapTarget[0].Red: 1, but a Type 1 (VTG) header has no such field"
 * GS_EARG if k is out of range or a SphType is invalid. */
int gs_sph_element_set(gs_sph *s, uint32_t sph_type, unsigned k, long long v, gs_diag *d);

/* ---- stage linkage ---------------------------------------------------------- */

/* A set of attribute components: bit (addr/4) of the 256. */
typedef struct gs_sph_attr_set {
  uint32_t bits[GS_SPH_ATTR_COUNT / 32];
} gs_sph_attr_set;

static inline int gs_sph_attr_has(const gs_sph_attr_set *set, unsigned addr) {
  unsigned k = addr >> 2;
  return k < GS_SPH_ATTR_COUNT && (set->bits[k >> 5] >> (k & 31) & 1u);
}

/* The IMAP entry of the component at byte address addr: 0 if unmapped or
 * if the layout has no IMAP field there; VTG 1; PS the PixelImap of a
 * 2-bit field, 1 for a 1-bit one. */
unsigned gs_sph_imap(const gs_sph *s, unsigned addr);

/* The OMAP bit of the component at addr (0 or 1; always 0 in a PS). */
unsigned gs_sph_omap(const gs_sph *s, unsigned addr);

/* Input buffer map of stage cur: IMAP(cur) & OMAP(prev), per component.
 * prev == NULL means the inputs come from the vertex fetcher, which
 * supplies everything: then BMAP = IMAP(cur). A component outside the BMAP
 * reads gs_sph_attr_default. Values the hardware generates (PrimitiveId,
 * TessCoord, the position of a fragment) are the pipeline's own. */
void gs_sph_input_bmap(const gs_sph *cur, const gs_sph *prev, gs_sph_attr_set *out);

/* Output buffer map of stage cur (what ALD.O can read back): OMAP(cur) &
 * (IMAP(next) | StoreReqStart <= addr/4 <= StoreReqEnd); the StoreReq range
 * counts for vertex and tessellation shaders only. next == NULL: no next
 * stage reads anything. Empty for a PS. */
void gs_sph_output_bmap(const gs_sph *cur, const gs_sph *next, gs_sph_attr_set *out);

/* The value (raw 32 bits) a read of an unmapped component at byte address
 * addr returns: 0x3F800000 (1.0f) for the fourth component of a position,
 * generic, colour or texture-coordinate vector, else 0 (also for addr
 * beyond 0x3FF): the (0, 0, 0, 1) rule yuzu and Ryujinx apply, as OpenGL
 * does for a missing vertex attribute; docs/sph.md. */
uint32_t gs_sph_attr_default(unsigned addr);

/* How the fragment input component at addr is interpolated: the PixelImap
 * of a PS's 2-bit field there; UNUSED if unmapped, if s is not a PS, or if
 * the address has a 1-bit field (system values, which the pipeline
 * supplies itself). */
gs_pixel_imap gs_sph_pixel_imap(const gs_sph *s, unsigned addr);

/* The interpolation of each varying a VideoCore IV fragment program reads
 * from its varying FIFO, from its SPH: varyings come in the order of the
 * SPH's mapped generic input components — vectors 0..31, then x y z w
 * within each — and varying i gets the PixelImap of the i-th such component
 * (1 constant, 2 perspective, 3 screen linear), and (addr, unless NULL)
 * its attribute byte address. *n receives the count (at most 32; the rest
 * of mode is 0). GS_EARG if s is not a pixel shader's SPH or maps more than
 * 32 components. */
int gs_sph_varying_modes(const gs_sph *s, uint8_t mode[32], uint16_t addr[32], unsigned *n, gs_diag *d);

/* ---- building a header from a declaration ----------------------------------- */

/* One declared vector of inputs or outputs: the components attr,
 * attr + 4, attr + 8, attr + 12 whose bits (0-3) are set in mask. */
typedef struct gs_sph_io {
  unsigned attr;          /* byte address of component 0 (GS_SPH_ATTR_*) */
  unsigned mask;          /* 0x1 x, 0x2 y, 0x4 z, 0x8 w (or s t r q, r g b a) */
  gs_pixel_imap interp;   /* PS inputs with a 2-bit PixelImap field: the
                             mode (not UNUSED); everything else: UNUSED */
} gs_sph_io;

enum {
  GS_SPH_KILLS_PIXELS = 1u << 0,       /* PS: discard works (else a no-op and an exception) */
  GS_SPH_MRT_ENABLE = 1u << 1,         /* PS: target i gets output i (else output 0 everywhere) */
  GS_SPH_OMAP_DEPTH = 1u << 2,         /* PS: writes depth */
  GS_SPH_OMAP_SAMPLE_MASK = 1u << 3,   /* PS: writes the sample mask */
  GS_SPH_DOES_GLOBAL_STORE = 1u << 4,
  GS_SPH_DOES_LOAD_OR_STORE = 1u << 5, /* also set when local_memory_size > 0 */
  GS_SPH_DOES_FP64 = 1u << 6
};

/* Sets the flags (GS_SPH_KILLS_PIXELS | ...) in s; those of pixel shaders
 * only if s is a PS header. Flags already set stay set. */
void gs_sph_set_flags(gs_sph *s, unsigned flags);

/* What a program declares. Zero-initialise, then fill what applies. */
typedef struct gs_sph_decl {
  gs_sph_stage stage;
  const gs_sph_io *inputs;
  size_t n_inputs;
  const gs_sph_io *outputs;        /* VTG stages only */
  size_t n_outputs;
  unsigned flags;                  /* GS_SPH_KILLS_PIXELS | ... */
  uint32_t render_targets;         /* PS: bit 4i+c = target i component c (R G B A) */
  uint32_t local_memory_size;      /* bytes per thread (ShaderLocalMemoryLowSize) */
  uint32_t crs_size;               /* extra call/return stack, bytes per warp */
  uint32_t threads_per_input_primitive; /* TCS: threads per patch; GS: instances */
  uint32_t per_patch_attribute_count;   /* TCS */
  uint32_t output_topology;        /* GS: GS_SPH_POINTLIST / LINESTRIP / TRIANGLESTRIP */
  uint32_t max_output_vertex_count;/* GS */
  uint32_t stream_out_mask;        /* GS */
} gs_sph_decl;

/* Builds the header of a program from its declaration: SphType and
 * ShaderType from the stage, Version 3, SassVersion 0, one IMAP/OMAP entry
 * per declared component, the flags, and for a PS ImapPositionW (which the
 * hardware requires). StoreReqStart/End is 255/0 ("no range") for vertex
 * and tessellation shaders, 0/0 otherwise. Fails with GS_EARG, naming the
 * input or output, for a component without a field in the stage's layout,
 * an unaligned address, a mask above 0xF, a mode where none belongs or a
 * missing one, a component declared twice with different modes, outputs
 * or render targets or PS flags on the wrong stage; and with GS_EINVAL if
 * the result does not validate (gs_sph_validate). */
int gs_sph_build(const gs_sph_decl *decl, gs_sph *out, gs_diag *d);

#endif
