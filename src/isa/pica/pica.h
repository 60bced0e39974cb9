/* pica.h — the decoded DMP PICA200 shader instruction (vertex and geometry
 * shader units of the Nintendo 3DS GPU): one 32-bit word plus the operand
 * descriptor it names, taken apart into fields. The bit positions live in
 * table.c alone (pica_formats); decode.c and disasm.c only walk them.
 *
 * Facts: 3dbrew "GPU/Shader Instruction Set" (current revision), GBATEK
 * "3DS GPU Shader Instruction Set", picasso's assembler (devkitPro) and
 * nihstro's shader_bytecode.h as a statement of the layout. docs/pica.md is
 * the chapter.
 */
#ifndef GS_ISA_PICA_PICA_H
#define GS_ISA_PICA_PICA_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"

/* Instruction formats (3dbrew's names; F1u is 3dbrew's format 1 with one
 * source, F0 the formats without operands). */
typedef enum pica_fmt {
  PICA_F0,  /* NOP END EMIT BREAK */
  PICA_F1,  /* two sources: SRC1 wide (7 bits), SRC2 narrow (5) */
  PICA_F1I, /* inverted: SRC1 narrow, SRC2 wide */
  PICA_F1U, /* one source (wide) */
  PICA_F1C, /* CMP: 5-bit opcode, CMPX/CMPY in place of DST */
  PICA_F2,  /* flow control on the cmp flags: NUM, DST, CONDOP, REFY, REFX */
  PICA_F3,  /* flow control on a bool/int uniform: NUM, DST, UID */
  PICA_F4,  /* SETEMIT: WINDING, PRIMEMIT, VTXID */
  PICA_F5,  /* MAD: 3-bit opcode; SRC1 narrow, SRC2 wide, SRC3 narrow */
  PICA_F5I, /* MADI: SRC1 narrow, SRC2 narrow, SRC3 wide */
  PICA_NFMT
} pica_fmt;

/* Opcodes (6-bit values; CMP is 0x2E-0x2F, MADI 0x30-0x37, MAD 0x38-0x3F:
 * pica_insn.op holds the first of each range). */
enum {
  PICA_ADD = 0x00, PICA_DP3 = 0x01, PICA_DP4 = 0x02, PICA_DPH = 0x03, PICA_DST = 0x04, PICA_EX2 = 0x05,
  PICA_LG2 = 0x06, PICA_LITP = 0x07, PICA_MUL = 0x08, PICA_SGE = 0x09, PICA_SLT = 0x0A, PICA_FLR = 0x0B,
  PICA_MAX = 0x0C, PICA_MIN = 0x0D, PICA_RCP = 0x0E, PICA_RSQ = 0x0F, PICA_MOVA = 0x12, PICA_MOV = 0x13,
  PICA_DPHI = 0x18, PICA_DSTI = 0x19, PICA_SGEI = 0x1A, PICA_SLTI = 0x1B, PICA_BREAK = 0x20, PICA_NOP = 0x21,
  PICA_END = 0x22, PICA_BREAKC = 0x23, PICA_CALL = 0x24, PICA_CALLC = 0x25, PICA_CALLU = 0x26, PICA_IFU = 0x27,
  PICA_IFC = 0x28, PICA_LOOP = 0x29, PICA_EMIT = 0x2A, PICA_SETEMIT = 0x2B, PICA_JMPC = 0x2C, PICA_JMPU = 0x2D,
  PICA_CMP = 0x2E, PICA_MADI = 0x30, PICA_MAD = 0x38
};

/* Raw register indices. A wide (7-bit) source: 0x00-0x0F v0-v15, 0x10-0x1F
 * r0-r15, 0x20-0x7F c0-c95; a narrow (5-bit) source only the first two; a
 * destination (5 bits): 0x00-0x0F o0-o15, 0x10-0x1F r0-r15. */
#define PICA_REG_R 0x10
#define PICA_REG_C 0x20

/* Relative-address selector (IDX), applied to the wide source only. */
enum { PICA_IDX_NONE = 0, PICA_IDX_A0X = 1, PICA_IDX_A0Y = 2, PICA_IDX_AL = 3 };

/* CONDOP of format 2. */
enum { PICA_COND_OR = 0, PICA_COND_AND = 1, PICA_COND_X = 2, PICA_COND_Y = 3 };

/* CMP operators (CMPX, CMPY); 6 and 7 have no documented meaning and are
 * refused. */
enum { PICA_CMP_EQ, PICA_CMP_NE, PICA_CMP_LT, PICA_CMP_LE, PICA_CMP_GT, PICA_CMP_GE };

typedef struct pica_src {
  uint8_t reg;  /* raw index (above) */
  uint8_t idx;  /* PICA_IDX_*: nonzero only on the wide source */
  uint8_t neg;  /* operand descriptor: negate */
  uint8_t swz;  /* operand descriptor selector: component k from bits 7-2k..6-2k (0 x, 1 y, 2 z, 3 w) */
} pica_src;

typedef struct pica_insn {
  uint32_t word, opdesc; /* opdesc: the descriptor the word names, 0 without one */
  uint8_t op;            /* PICA_* opcode (first of its range) */
  uint8_t fmt;           /* pica_fmt */
  uint8_t nsrc;          /* sources read: 0-3 */
  uint8_t wide;          /* which source (1-3) is the wide one, 0 if none */
  uint8_t dst;           /* raw destination (F1, F1i, F1u but MOVA, F5, F5i) */
  uint8_t mask;          /* operand descriptor write mask: bit 3 x, 2 y, 1 z, 0 w */
  uint8_t desc;          /* operand descriptor index (DESC) */
  pica_src src[3];
  uint8_t cmpx, cmpy;    /* CMP operators */
  uint8_t condop, refx, refy;
  uint16_t target;       /* F2/F3: DST, a word address */
  uint8_t num;           /* F2/F3: NUM */
  uint8_t uid;           /* F3: bool uniform b0-b15 (LOOP: int uniform i0-i3) */
  uint8_t vtxid, prim, winding; /* F4 */
} pica_insn;

/* Selector component k (0 x .. 3 w) of selector byte s. */
static inline unsigned pica_swz_comp(uint8_t s, unsigned k) { return (s >> (6 - 2 * k)) & 3u; }

/* The mnemonic of opcode op (6-bit), NULL for the unknown encodings. */
const char *pica_op_name(unsigned op);

/* Decodes word, found at word address pc, with the operand descriptor table
 * opdesc[0..nopdesc) (the instructions with no operands ignore it). Refuses
 * (GS_EINVAL, naming pc and the field) the unknown opcodes, a reserved
 * field value (CMP operators 6 and 7, a LOOP uniform above i3, SETEMIT
 * vertex 3), nonzero bits
 * in fields no source gives a meaning, and a descriptor index past the
 * table. */
int pica_decode(uint32_t word, uint32_t pc, const uint32_t *opdesc, size_t nopdesc, pica_insn *out, gs_diag *d);

/* The instruction's text in picasso syntax (docs/pica.md), NUL-terminated
 * in buf (size n); returns its length. */
size_t pica_format_insn(const pica_insn *i, char *buf, size_t n);

/* Disassembles ncode program words with their operand descriptor table into
 * malloc'ed text, one instruction a line ("    text ; ADDR: WORD"). */
int pica_disasm(const uint32_t *code, size_t ncode, const uint32_t *opdesc, size_t nopdesc, char **text,
                gs_diag *d);

/* ---- SHBIN (DVLB: one DVLP program, N DVLE executables) ---------------------
 * Layout per 3dbrew "SHBIN" and GBATEK "3DS Files - Video Shaders". */

typedef struct pica_const {
  uint8_t type;   /* 0 bool, 1 ivec4, 2 vec4 */
  uint8_t reg;    /* b0-b15, i0-i3, c0-c95 by type */
  uint32_t v[4];  /* bool: v[0]; ivec4: x, y, z, w bytes; vec4: x, y, z, w float24 */
} pica_const;

typedef struct pica_output {
  uint16_t type;  /* 0 position, 1 normalquat, 2 color, 3 texcoord0, 4 texcoord0w, 5 texcoord1,
                     6 texcoord2, 8 view, 9 dummy */
  uint16_t reg;   /* o-register */
  uint16_t mask;  /* bit 0 x .. bit 3 w (the opposite order of a descriptor's write mask) */
} pica_output;

typedef struct pica_uniform {
  const char *name; /* into the reader's copy of the file */
  uint16_t first, last; /* 0x00-0x0F v, 0x10-0x6F c0-c95, 0x70-0x73 i0-i3, 0x78-0x87 b0-b15 */
} pica_uniform;

/* A label-table entry (16 bytes in the file: id at 0, word address at 4,
 * size in words at 8, symbol offset at 12). gpusim's assembler writes one,
 * the DVLE's entry procedure; picasso writes none. */
typedef struct pica_label {
  const char *name;
  uint32_t addr, size;
  uint8_t id;
} pica_label;

typedef struct pica_dvle {
  uint8_t type;          /* 0 vertex, 1 geometry */
  uint8_t merge_outmaps; /* geometry: merge the vertex shader's output map */
  uint32_t main, end;    /* word addresses in the program */
  uint16_t in_mask, out_mask;
  uint8_t gs_mode, gs_fixed_start, gs_variable_num, gs_fixed_num;
  pica_const *consts;
  size_t nconsts;
  pica_output *outputs;
  size_t noutputs;
  pica_uniform *uniforms;
  size_t nuniforms;
  pica_label *labels;
  size_t nlabels;
} pica_dvle;

typedef struct pica_shbin {
  uint8_t *file;         /* the reader's copy */
  size_t size;
  uint32_t *code, *opdesc; /* program words; the first word of each descriptor entry */
  size_t ncode, nopdesc;
  pica_dvle *dvle;
  size_t ndvle;
} pica_shbin;

/* Reads a SHBIN. Every offset and count is checked against the file; errors
 * (GS_EINVAL) name the byte offset. Free with pica_shbin_free. */
int pica_shbin_read(const uint8_t *bytes, size_t size, pica_shbin *out, gs_diag *d);
void pica_shbin_free(pica_shbin *s);

/* A DVLE's name: the label-table entry at its main (gpusim's assembler
 * writes the entry procedure's), NULL if none. */
const char *pica_dvle_name(const pica_dvle *e);

/* Writes s (code, opdesc, dvle with their tables; file and size unused) as
 * a SHBIN in picasso's layout: DVLB header, DVLP (10-word header, program,
 * descriptors as 8-byte entries with a zero second word), then each DVLE:
 * header, constants, outputs, uniforms, the symbol table (uniform names, then
 * label names), padding to 4 bytes, and the label entries (when a DVLE has
 * none, its label table is empty at the outputs' offset, as picasso writes
 * it). Uniforms are written in the order given. *bytes is malloc'ed. */
int pica_shbin_write(const pica_shbin *s, uint8_t **bytes, size_t *size, gs_diag *d);

/* Assembles picasso syntax (docs/pica.md: directives, structured blocks,
 * aliases) or the disassembler's plain listing into a SHBIN: one DVLE,
 * whose main is the procedure `main` (or the one .entry names) or, in a
 * text without .proc, word 0 to the end. out->lines name each word's byte
 * offset in the file. Errors (GS_EASM) name file:line:column. */
struct gs_isa_binary;
int pica_asm(const char *src, const char *file, struct gs_isa_binary *out, gs_diag *d);

/* picasso's model of several source files assembled into one SHBIN: one
 * program and descriptor table, procedures and .fvec/.ivec/.bool uniforms
 * shared, labels, aliases and .const* per file, one DVLE per file (none
 * with .nodvle). flags: PICA_ASM_NO_LABELS leaves the label tables empty
 * (byte-identical to picasso's output). out->lines give source lines of the
 * file each word came from. */
/* A number as picasso's .constf/.setf store it: to f32 (nearest), then
 * float24 by truncating the mantissa; below float24's range the zero of
 * its sign, above (and NaN) infinity (picasso's f32tof24). */
uint32_t pica_f24_picasso(double v);

/* A SHBIN as assembler text that gives back the same program words,
 * operand descriptors, constants, output map, uniform table and entry point:
 * directives (.gsh, .in, .fvec/.ivec/.bool, .setf/.seti/.setb, .out, .proc
 * and .entry) then the listing with explicit targets. What one text cannot
 * give back (a second DVLE, tables picasso's directives cannot write) is
 * said in comment lines. */
int pica_disasm_shbin(const pica_shbin *s, char **text, gs_diag *d);

typedef struct pica_asm_src {
  const char *text, *file;
} pica_asm_src;
#define PICA_ASM_NO_LABELS 1u
int pica_asm_files(const pica_asm_src *src, size_t n, unsigned flags, struct gs_isa_binary *out, gs_diag *d);

#endif
