/* attr.h — what the SASS attribute instructions do, without decoding: ALD,
 * AST and AL2P on a stage's attribute buffers, IPA on a fragment's inputs,
 * and where a pixel shader leaves its outputs at EXIT. The interpreter
 * decodes an instruction once into a sass_attr_op (or an IPA address and
 * mode), then calls these per lane. docs/sass-attributes.md gives the model
 * and every choice, with its public sources.
 *
 * ATTRIBUTE BUFFERS (ALD, AST)
 *
 * Each vertex (invocation) has an input and an output buffer of 256 32-bit
 * words: byte addresses 0x000-0x3FC, the a[] space of gpusim/sph.h. A
 * buffer also records which words were written (by AST, or by whatever
 * filled it: the vertex fetcher for a vertex shader's inputs, the previous
 * stage for the others). The pipeline hands the output buffers of one stage
 * on as the input buffers of the next.
 *
 * What a load returns depends on the buffer map (BMAP) and that write
 * status, NVIDIA's ALD description's two tables:
 *   input  BMAP = IMAP(this stage) & OMAP(previous stage)   (ALD, ALD.I)
 *   output BMAP = OMAP(this stage) & (IMAP(next stage) | StoreReqStart <=
 *                 addr/4 <= StoreReqEnd)                   (ALD.O)
 * and each component's outcome is one of the sass_attr_outcome codes:
 *   BMAP 0             the default: 0x3F800000 (1.0) for the fourth component
 *                      of a vec4 slot, else 0 (gs_sph_attr_default);
 *   BMAP 1, unwritten  the word the buffer holds (ISBE leftover), or a value
 *                      the hardware generates there (VertexId, InstanceId,
 *                      PrimitiveId, TessCoord), which the pipeline puts in
 *                      the buffer without marking it written;
 *   BMAP 1, written    the stored value;
 *   address < 0 or > 0x3FF: 0.
 *
 * Sizes .32/.64/.96/.128 move 1-4 consecutive words. As NVIDIA's ALD description
 * says, alignment drops low bits rather than faulting: .32 clears address
 * bits 1:0; .64 clears register bit 0 and address bits 2:0; .96 and .128
 * clear register bits 1:0 and address bits 3:0. A register index reaching
 * RZ (255) is not written (ALD) and reads 0 (AST).
 *
 * Addressing: immediate (Ra = RZ: address = imm, 0..1023); patch, .P
 * (address = Ra + imm, imm a signed 11-bit value: -1024..1023); physical
 * (Ra != RZ, imm 0, no .P: address = Ra, the result of AL2P, which gpusim
 * makes the identity). Ra != RZ with imm != 0 without .P is an encoding the
 * description forbids ("the immediate has to be zero"): SASS_ATTR_E_PHYS;
 * vector sizes are allowed with .PHYS (its own AL2P example uses .64).
 *
 * Vertices: Rb's value picks the vertex (in a TCS, TES or GS: an input
 * vertex for ALD, an output vertex for ALD.O and AST; RZ reads 0). A vertex
 * shader must have Rb = RZ (ILLEGAL_INSTR_ENCODING otherwise). A vertex
 * outside 0..n-1 reads 0 and drops stores (SASS_ATTR_BAD_VERTEX, the ALD description's
 * "return 0 and optional Trap": the interpreter may report it). PrimitiveId
 * (0x060) ignores Rb and reads the primitive's value.
 *
 * Registers: a lane's registers are regs.r[i * regs.stride] for register i
 * (stride 1 for one lane's array; the warp's lane count for a register-major
 * warp). Register 255 (RZ) is never read or written through the view.
 */
#ifndef GS_ISA_SASS_ATTR_H
#define GS_ISA_SASS_ATTR_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/sph.h"
#include "isa/isa.h"

#define SASS_ATTR_WORDS 256 /* 1024 bytes */

/* One vertex's (invocation's) attribute buffer. */
typedef struct sass_attr_buf {
  uint32_t v[SASS_ATTR_WORDS];  /* word k: byte address 4k */
  gs_sph_attr_set written;      /* write status: words stored since the buffer was cleared */
} sass_attr_buf;

/* Clears a buffer: every word `fill` (what a read of an unwritten mapped
 * word gives; 0 in the pipeline, anything in a test) and none written. */
void sass_attr_buf_clear(sass_attr_buf *b, uint32_t fill);

/* Stores value at byte address addr (0..0x3FC, low two bits ignored) and
 * marks it written: what a previous stage or the vertex fetcher does. */
void sass_attr_buf_store(sass_attr_buf *b, unsigned addr, uint32_t value);

/* What one component of an ALD or AST came to. */
typedef enum sass_attr_outcome {
  SASS_ATTR_DEFAULT = 0,   /* ALD, BMAP 0: the default value */
  SASS_ATTR_LEFTOVER = 1,  /* ALD, BMAP 1, not written: the buffer's word (ISBE leftover);
                              also a .P read of an unwritten patch word */
  SASS_ATTR_HW = 2,        /* ALD.I, BMAP 1, not written, a hardware-generated attribute */
  SASS_ATTR_STORED = 3,    /* ALD, BMAP 1, written: the previous (.I) or this (.O) stage's output */
  SASS_ATTR_OUT_OF_RANGE = 4, /* address < 0 or > 0x3FF (ALD reads 0, AST drops) */
  SASS_ATTR_BAD_VERTEX = 5,   /* Rb's vertex outside the buffers given (ALD 0, AST drops) */
  SASS_ATTR_WRITTEN = 6,      /* AST: stored (OMAP set, or .P) */
  SASS_ATTR_DROPPED = 7,      /* AST: OMAP clear, the write is discarded */
  SASS_ATTR_NO_REG = 8,       /* the register index reached RZ: nothing moved */
  SASS_ATTR_OUTCOMES
} sass_attr_outcome;

/* Errors (negative): the instruction is illegal in this stage or form.
 * sass_attr_error_text names each (with the hardware's error where the
 * ALD description gives one). */
enum {
  SASS_ATTR_E_VERTEX_RB = -1, /* a VS with Rb != RZ: ILLEGAL_INSTR_ENCODING */
  SASS_ATTR_E_PATCH = -2,     /* .P outside TCS/TES, or AST.P outside a TCS */
  SASS_ATTR_E_OUTPUT = -3,    /* ALD.O outside VS/TCS/TES (a GS may not read its outputs back) */
  SASS_ATTR_E_PHYS = -4,      /* indexed without .P (Ra != RZ) and imm != 0 */
  SASS_ATTR_E_STAGE = -5      /* ALD/AST in a pixel shader (its inputs are IPA's) */
};
const char *sass_attr_error_text(int rc);

/* A stage's maps, computed once per draw from the SPHs. */
typedef struct sass_attr_ctx {
  gs_sph_stage stage;
  gs_sph_attr_set in_bmap;   /* IMAP(cur) & OMAP(prev); prev NULL: IMAP(cur) (vertex fetcher) */
  gs_sph_attr_set out_bmap;  /* OMAP(cur) & (IMAP(next) | StoreReq range) (gs_sph_output_bmap) */
  gs_sph_attr_set omap;      /* OMAP(cur): the words AST stores */
  gs_sph_attr_set hw;        /* words the hardware generates for this stage's inputs */
} sass_attr_ctx;

/* Fills *c for stage `stage` (VERTEX, TESSELLATION_INIT, TESSELLATION or
 * GEOMETRY; PIXEL gives an empty context whose ALD/AST fail) with program
 * SPH cur, the previous stage's prev (NULL: the vertex fetcher) and the next
 * stage's next (NULL: none reads this stage's outputs). GS_EINVAL if cur's
 * ShaderType is not `stage` or cur is not a VTG header for a VTG stage. */
int sass_attr_ctx_init(sass_attr_ctx *c, gs_sph_stage stage, const gs_sph *cur, const gs_sph *prev,
                       const gs_sph *next, gs_diag *d);

/* One lane's (invocation's) buffers. */
typedef struct sass_attr_io {
  const sass_attr_buf *in;   /* input vertices in[0..nin-1] (VS: its one vertex) */
  unsigned nin;
  sass_attr_buf *out;        /* output vertices out[0..nout-1] (TCS: the patch's; others: 1) */
  unsigned nout;
  sass_attr_buf *patch;      /* the per-patch buffer (TCS writes, TCS/TES read); NULL: none */
  const sass_attr_buf *prim; /* per-primitive values (PrimitiveId at 0x060); NULL: in[0]'s */
} sass_attr_io;

/* A lane's register file. */
typedef struct sass_regs {
  uint32_t *r;
  size_t stride;
} sass_regs;

enum {
  SASS_ATTR_O = 1u << 0, /* ALD.O: read this stage's output buffer */
  SASS_ATTR_P = 1u << 1  /* .P: the per-patch space */
};

/* An ALD or AST as the decoder gives it. */
typedef struct sass_attr_op {
  uint8_t reg;   /* ALD: Rd; AST: the source register */
  uint8_t ra;    /* index register; 255 (RZ) for an immediate address */
  uint8_t rb;    /* vertex register; 255 (RZ) reads 0 */
  uint8_t size;  /* 0 .32, 1 .64, 2 .96, 3 .128 (instruction bits 47-48) */
  uint8_t flags; /* SASS_ATTR_O | SASS_ATTR_P */
  int32_t imm;   /* byte offset: 0..1023, or -1024..1023 with .P and Ra */
} sass_attr_op;

/* Whether op is legal for an ALD (store = 0) or AST (store = 1) in c's
 * stage: GS_OK or a SASS_ATTR_E_* code. sass_ald and sass_ast check it
 * too; an interpreter may call it once when it decodes the instruction. */
int sass_attr_check(const sass_attr_ctx *c, const sass_attr_op *op, int store);

/* ALD for one lane: loads size+1 words into the registers. Returns a
 * SASS_ATTR_E_* code (nothing loaded), or >= 0: the set of the components'
 * outcomes, bit (1 << outcome) for each. outcome (may be NULL) receives
 * each component's, [0..size]. */
int sass_ald(const sass_attr_ctx *c, const sass_attr_io *io, sass_regs regs, const sass_attr_op *op,
             uint8_t outcome[4]);

/* AST for one lane: stores size+1 registers. Same returns as sass_ald. */
int sass_ast(const sass_attr_ctx *c, const sass_attr_io *io, sass_regs regs, const sass_attr_op *op,
             uint8_t outcome[4]);

/* One word as ALD reads it: from the input (out_buffer 0) or output (1)
 * buffer of vertex `vertex`, or the patch (patch 1), at byte address addr
 * (aligned to 4; a 32-bit sum, so that a negative address is one above
 * 0x3FF). Returns the outcome; *value the word. */
sass_attr_outcome sass_attr_read(const sass_attr_ctx *c, const sass_attr_io *io, int out_buffer, int patch,
                                 uint32_t vertex, uint32_t addr, uint32_t *value);

/* AL2P Rd, Ra, imm: the physical address of logical address Ra + imm;
 * gpusim's physical addresses are the logical ones (as yuzu and Ryujinx). */
static inline uint32_t sass_al2p(uint32_t ra, int32_t imm) { return ra + (uint32_t)imm; }

/* ---- IPA ---------------------------------------------------------------------
 *
 * A fragment input component arrives from the pipeline (gs_frag_io) as
 * plane[k][lane], offset[k] and the lane's W, the value the shader wants
 * being plane × W + offset. IPA first forms the raw value P its component's
 * PixelImap interpolates: Perspective Σλ a/w (undivided: plane + offset/W),
 * ScreenLinear Σλ a (plane × W + offset), Constant the provoking vertex's
 * value (offset); then applies the mode: PASS P, MULTIPLY P × Rb (as a
 * float multiply, round to nearest), CONSTANT P, SC P if flat shading is on
 * else P × Rb; then .SAT clamps to [0, 1] (NaN and -0 give +0).
 *
 * Special addresses, whatever the IMAP: 0x070/0x074 the pixel centre x + 0.5,
 * y + 0.5; 0x078 Z in [0, 1] (the 24-bit Z / (2^24 - 1)); 0x07C Σλ/w = 1/W;
 * then the integer values, returned as they are whatever the mode and .SAT:
 * 0x060 PrimitiveId, 0x064 Layer, 0x3FC FrontFacing (0xFFFFFFFF front, 0
 * back). A component the pipeline does not deliver (PixelImap Unused, or
 * an address it has no input for) reads its default, 0 or 1.0, unchanged
 * by mode and .SAT; addresses above 0x3FF read 0.
 */
enum { SASS_IPA_PASS = 0, SASS_IPA_MULTIPLY = 1, SASS_IPA_CONSTANT = 2, SASS_IPA_SC = 3 };

#define SASS_IPA_FRONT_FACING 0x3FCu
#define SASS_IPA_NONE (-1)

/* Which of the pipeline's inputs holds each address: k[addr/4] is the index
 * into gs_frag_io's plane/offset/imap, SASS_IPA_NONE if none. The pipeline
 * delivers the components gs_sph_varying_modes lists, in its order: the
 * mapped generic components (0x080 + 16g + 4c), g then c ascending. */
typedef struct sass_ipa_map {
  int8_t k[SASS_ATTR_WORDS];
} sass_ipa_map;

/* The map of pixel shader SPH ps; GS_EARG if ps is not a PS header. */
int sass_ipa_map_init(sass_ipa_map *m, const gs_sph *ps, gs_diag *d);

/* What the pipeline does not carry in gs_frag_io. */
typedef struct sass_frag_sys {
  uint32_t primitive_id, layer;
} sass_frag_sys;

/* One IPA. */
typedef struct sass_ipa_op {
  uint16_t addr;      /* byte address (.IDX: Ra's value, which may exceed 0x3FF) */
  uint8_t mode;       /* SASS_IPA_* (bits 54-55) */
  uint8_t sat;        /* .SAT */
  uint8_t flat_shade; /* SC only: the 3D state's flat shading */
} sass_ipa_op;

/* Whether IPA of byte address addr (up to 0x3FF) reads a generic component
 * m does not map: sass_ipa then reports an exception (and reads the
 * default). */
static inline int sass_ipa_unmapped(const sass_ipa_map *m, unsigned addr) {
  return addr >= GS_SPH_ATTR_GENERIC(0) && addr < GS_SPH_ATTR_GENERIC(32) && m->k[addr >> 2] < 0;
}

/* IPA for lane `lane` of batch io: the 32-bit result. rb: Rb's value (a
 * float's bits; MULTIPLY and SC). sys may be NULL (PrimitiveId and Layer 0). */
uint32_t sass_ipa(const sass_ipa_map *m, const gs_frag_io *io, unsigned lane, const sass_frag_sys *sys,
                  const sass_ipa_op *op, uint32_t rb);

/* ---- pixel shader outputs ------------------------------------------------------
 *
 * At EXIT a pixel shader's outputs are registers, laid out by its SPH:
 * render targets 0-7 in order, each whose OmapTarget maps any component
 * taking the next four registers from R0 (component c in base + c, masked
 * or not); with N such targets the sample mask is R(4N) (OmapSampleMask)
 * and depth R(4N + 1) (OmapDepth), whether or not the other is written.
 * MrtEnable (ANDed with the 3D state's SetCtMrtEnable): when the result is
 * 0, output 0 (target 0's registers) goes to every enabled target.
 */
#define SASS_PS_NONE 255u /* no register */

typedef struct sass_ps_out {
  uint8_t nrt;             /* N: targets that map a component */
  uint8_t rt_reg[8];       /* target i's first register (SASS_PS_NONE if unmapped) */
  uint8_t rt_mask[8];      /* OmapTarget[i]: bit c = component c (R G B A) */
  uint8_t mrt;             /* MrtEnable && the 3D state's */
  uint8_t target_reg[8];   /* after the MrtEnable rule: the first register of what
                              target i receives (mrt: rt_reg[i]; else rt_reg[0]) */
  uint8_t target_mask[8];  /* and its components (mrt: rt_mask[i]; else rt_mask[0]) */
  uint8_t sample_mask_reg; /* R(4N), or SASS_PS_NONE without OmapSampleMask */
  uint8_t depth_reg;       /* R(4N + 1), or SASS_PS_NONE without OmapDepth */
  uint8_t kills_pixels;    /* KIL discards (else it is a no-op and an exception) */
  uint8_t nregs;           /* registers the outputs span: 1 + the highest used (0: none) */
} sass_ps_out;

/* The output map of pixel shader SPH ps under the 3D state's MRT enable
 * (mrt_state: SetCtMrtEnable). GS_EARG if ps is not a PS header. */
int sass_ps_out_init(sass_ps_out *o, const gs_sph *ps, int mrt_state, gs_diag *d);

#endif
