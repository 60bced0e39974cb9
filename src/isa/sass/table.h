/* table.h — the Maxwell (SM 5.x) instruction table: one row per instruction
 * form, the only place in gpusim where a bit position of a SASS instruction
 * is written. The decoder (decode.c), the assembler (asm.c) and the
 * disassembler (disasm.c) walk it; an interpreter reads an instruction's
 * own fields by name with sass_mod() and the SASS_M_* ids below.
 *
 * Facts: the decode keys (top 16 bits, value/mask; among the rows that
 * match a word the one with the most fixed key bits wins) are those of
 * yuzu's maxwell.inc and Ryujinx's InstTable.cs; the field positions agree
 * with envytools (envydis/gm107.c), Mesa's nouveau emitter
 * (src/nouveau/codegen/nv50_ir_emit_gm107.cpp) and NAK's sm50 encoder.
 * docs/sass.md is the chapter.
 *
 * READING A FIELD
 *
 * sass_mod(i, SASS_M_FADD_FTZ) is the value of that field of instruction i
 * (0 when i's row has no such field). Ids are per mnemonic family: the
 * ...32I opcodes answer their family's ids (FADD32I the SASS_M_FADD_* ids,
 * FMUL32I FMUL's, FFMA32I FFMA's, IADD32I IADD's, ISCADD32I ISCADD's,
 * IMUL32I IMUL's, LOP32I LOP's, MOV32I MOV's), whatever bits they sit in,
 * and a field a form does not have reads 0 (FADD32I's rounding: RN). Every
 * form of one mnemonic (reg, cbuf, imm, rc, cr) answers the same ids.
 *
 * What sass_insn (sass.h) holds already is not repeated here: rd, ra, rb,
 * rc, the B/C operand (form, imm, cbank, cbyte), the guard, branch targets
 * (imm, absolute code byte offsets). A few rows put a register in a slot
 * whose name differs from the hardware's field name; each says so below.
 *
 * Common values:
 *   RND (2 bits): 0 RN (nearest even), 1 RM (toward -inf), 2 RP (toward
 *     +inf), 3 RZ (toward zero).
 *   FMZ (2 bits): 0 IEEE, 1 .FTZ (denormal inputs and outputs flushed to
 *     sign-preserving zero), 2 .FMZ (FTZ, and 0 x anything = 0 in the
 *     multiply, even x inf or NaN), 3 reserved.
 *   FCMP (4 bits, float compares): 0 F, 1 LT, 2 EQ, 3 LE, 4 GT, 5 NE, 6 GE,
 *     7 NUM, 8 NAN, 9 LTU, 10 EQU, 11 LEU, 12 GTU, 13 NEU, 14 GEU, 15 T;
 *     ordered (1-6) false on NaN, unordered (9-14) true on NaN.
 *   ICMP (3 bits, integer compares): 0 F, 1 LT, 2 EQ, 3 LE, 4 GT, 5 NE,
 *     6 GE, 7 T.
 *   BOP (2 bits): 0 AND, 1 OR, 2 XOR (3 reserved).
 *   PRED (3 bits): predicate register 0-6, 7 = PT (always true); a *_NEG
 *     field beside it (1 bit) negates the source predicate.
 *   FLOW (5 bits, CC flow test of BRA/EXIT/KIL/SYNC/BRK, NOP's): 15 = T
 *     (always, what compilers write); 0 F, 1 LT, 2 EQ, 3 LE, 4 GT, 5 NE,
 *     6 GE, 7 NUM, 8 NAN, 9 LTU, 10 EQU, 11 LEU, 12 GTU, 13 NEU, 14 GEU,
 *     16 OFF, 17 LO, 18 SFF, 19 LS, 20 HI, 21 SFT, 22 HS, 23 OFT, 24-29
 *     CSM_TA/TR/MX FCSM_TA/TR/MX, 30 RLE, 31 RGT. The instruction does
 *     something iff its guard and its flow test are both true.
 *   CC (1 bit): 1 = the instruction also writes the condition code
 *     (printed R4.CC on the destination).
 *   NEG_x / ABS_x (1 bit): negate / take the absolute value of operand x
 *     (A = Ra, B = the B operand, C = the C operand); |x| is applied first.
 *   INV_x (1 bit): bitwise invert operand x.
 *   SIGNED (1 bit): 1 = signed (S32), 0 = unsigned (printed .U32).
 *
 * A field marked MUST has one value gpusim knows the meaning of (its
 * default); the decoder refuses a word with another value, naming it. It
 * refuses as well every value this header lists as reserved or leaves out
 * of a field's list (FMZ 3, BOP 3, MUFU ops 9-15, F2F format 0, ...): an
 * interpreter never sees one.
 */
#ifndef GS_ISA_SASS_TABLE_H
#define GS_ISA_SASS_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "isa/sass/sass.h"

/* The id of field k of mnemonic family op (ids of one family are numbered
 * in the disassembler's printing order of its modifiers). */
#define SASS_MID(op, k) ((SASS_OP_##op << 5) | (k))
#define SASS_MOD_MAX 20 /* fields per family */

enum sass_mod_id {
  /* ---- moves and conversions ---- */
  SASS_M_MOV_LANEMASK = SASS_MID(MOV, 0), /* MUST 0xF: byte lanes written (MOV32I too) */

  SASS_M_S2R_SR = SASS_MID(S2R, 0),   /* system register number: 0x00 SR_LANEID, 0x10 SR_PRIM_TYPE,
                                         0x11 SR_INVOCATION_ID, 0x12 SR_Y_DIRECTION, 0x13 SR_THREAD_KILL,
                                         0x14 SR_SHADER_TYPE, 0x1d SR_INVOCATION_INFO, 0x20 SR_TID,
                                         0x21-0x23 SR_TID.X/Y/Z, 0x25-0x27 SR_CTAID.X/Y/Z,
                                         0x38-0x3c SR_EQMASK LTMASK LEMASK GTMASK GEMASK,
                                         0x50/0x51 SR_CLOCKLO/HI (docs/sass.md has the list) */
  SASS_M_CS2R_SR = SASS_MID(CS2R, 0), /* system register number (the clocks) */

  SASS_M_F2F_FTZ = SASS_MID(F2F, 0), /* 1: .FTZ */
  SASS_M_F2F_DST,                    /* destination format: 1 F16, 2 F32, 3 F64 */
  SASS_M_F2F_SRC,                    /* source format: 1 F16, 2 F32, 3 F64 */
  SASS_M_F2F_RND,                    /* 0-3: RND of the conversion (RN RM RP RZ); 4-7: round to an
                                        integral value in the same format: 4 .ROUND (nearest even),
                                        5 .FLOOR, 6 .CEIL, 7 .TRUNC */
  SASS_M_F2F_SAT,                    /* 1: .SAT (clamp to [0, 1]) */
  SASS_M_F2F_H1,                     /* 1: an F16 source is the high half of B */
  SASS_M_F2F_NEG_B,
  SASS_M_F2F_ABS_B,
  SASS_M_F2F_CC,

  SASS_M_F2I_FTZ = SASS_MID(F2I, 0), /* 1: .FTZ */
  SASS_M_F2I_DST,                    /* integer destination: bits 0-1 log2(bytes) (1 16-bit .. 3 64-bit;
                                        no 8-bit), bit 2 signed: 2 .U32, 6 .S32 */
  SASS_M_F2I_SRC,                    /* float source format: 1 F16, 2 F32, 3 F64 */
  SASS_M_F2I_RND,                    /* 0 nearest even, 1 .FLOOR, 2 .CEIL, 3 .TRUNC */
  SASS_M_F2I_H1,                     /* 1: an F16 source is the high half of B */
  SASS_M_F2I_NEG_B,
  SASS_M_F2I_ABS_B,
  SASS_M_F2I_CC,

  SASS_M_I2F_DST = SASS_MID(I2F, 0), /* float destination format: 1 F16, 2 F32, 3 F64 */
  SASS_M_I2F_SRC,                    /* integer source: bits 0-1 log2(bytes), bit 2 signed
                                        (2 .U32, 6 .S32) */
  SASS_M_I2F_RND,                    /* RND */
  SASS_M_I2F_BSEL,                   /* source byte select: 0 B0, 1 B1, 2 B2 (.H1 for 16-bit), 3 B3 */
  SASS_M_I2F_NEG_B,
  SASS_M_I2F_ABS_B,
  SASS_M_I2F_CC,

  SASS_M_I2I_DST = SASS_MID(I2I, 0), /* integer destination: bits 0-1 log2(bytes) (0-2: no 64-bit
                                        I2I), bit 2 signed */
  SASS_M_I2I_SRC,                    /* integer source: likewise */
  SASS_M_I2I_SAT,                    /* 1: .SAT (clamp to the destination's range) */
  SASS_M_I2I_BSEL,                   /* source byte select 0-3 */
  SASS_M_I2I_NEG_B,
  SASS_M_I2I_ABS_B,
  SASS_M_I2I_CC,

  SASS_M_SEL_PC = SASS_MID(SEL, 0), /* PRED: result = Pc ? A : B */
  SASS_M_SEL_PC_NEG,

  SASS_M_P2R_SRC = SASS_MID(P2R, 0), /* 0: the predicates P0-P6 (PR), 1: the condition code (CC) */
  SASS_M_P2R_BSEL,                   /* byte of Rd the bits go to (0-3) */
  SASS_M_R2P_SRC = SASS_MID(R2P, 0), /* 0: write the predicates (PR), 1: the condition code */
  SASS_M_R2P_BSEL,                   /* byte of Ra the bits come from (0-3) */

  /* ---- float ---- */
  SASS_M_FADD_FTZ = SASS_MID(FADD, 0), /* 1: .FTZ */
  SASS_M_FADD_RND,                     /* RND (FADD32I: none, RN) */
  SASS_M_FADD_SAT,                     /* 1: .SAT (FADD32I: none) */
  SASS_M_FADD_NEG_A,
  SASS_M_FADD_ABS_A,
  SASS_M_FADD_NEG_B,
  SASS_M_FADD_ABS_B,
  SASS_M_FADD_CC,

  SASS_M_FMUL_FMZ = SASS_MID(FMUL, 0), /* FMZ */
  SASS_M_FMUL_RND,                     /* RND (FMUL32I: none, RN) */
  SASS_M_FMUL_SCALE,                   /* post-scale of the product: 0 none, 1 .D2, 2 .D4, 3 .D8,
                                          4 .M8, 5 .M4, 6 .M2 (FMUL32I: none) */
  SASS_M_FMUL_SAT,                     /* 1: .SAT */
  SASS_M_FMUL_NEG,                     /* 1: negate the product (printed on B; FMUL32I: none) */
  SASS_M_FMUL_CC,

  SASS_M_FFMA_FMZ = SASS_MID(FFMA, 0), /* FMZ */
  SASS_M_FFMA_RND,                     /* RND (FFMA32I: none, RN) */
  SASS_M_FFMA_SAT,                     /* 1: .SAT */
  SASS_M_FFMA_NEG_AB,                  /* 1: negate the product A*B (FFMA prints it on B,
                                          FFMA32I on A) */
  SASS_M_FFMA_NEG_C,                   /* 1: negate C (FFMA32I: C is R[rd]; sass_insn.rc = rd) */
  SASS_M_FFMA_CC,

  SASS_M_FMNMX_FTZ = SASS_MID(FMNMX, 0), /* 1: .FTZ */
  SASS_M_FMNMX_PC,                       /* PRED: result = Pc ? min(A, B) : max(A, B) */
  SASS_M_FMNMX_PC_NEG,
  SASS_M_FMNMX_NEG_A,
  SASS_M_FMNMX_ABS_A,
  SASS_M_FMNMX_NEG_B,
  SASS_M_FMNMX_ABS_B,
  SASS_M_FMNMX_CC,

  SASS_M_FSET_BF = SASS_MID(FSET, 0), /* 1: .BF, true = 1.0f (else 0xffffffff), false = 0 */
  SASS_M_FSET_CMP,                    /* FCMP of A with B */
  SASS_M_FSET_FTZ,                    /* 1: .FTZ */
  SASS_M_FSET_BOP,                    /* BOP combining the compare with Pc */
  SASS_M_FSET_PC,                     /* PRED */
  SASS_M_FSET_PC_NEG,
  SASS_M_FSET_NEG_A,
  SASS_M_FSET_ABS_A,
  SASS_M_FSET_NEG_B,
  SASS_M_FSET_ABS_B,
  SASS_M_FSET_CC,

  SASS_M_FSETP_CMP = SASS_MID(FSETP, 0), /* FCMP of A with B */
  SASS_M_FSETP_FTZ,                      /* 1: .FTZ */
  SASS_M_FSETP_BOP,                      /* BOP: Pd = cmp BOP Pc, Pd2 = !cmp BOP Pc */
  SASS_M_FSETP_PD,                       /* PRED: first destination (7: none) */
  SASS_M_FSETP_PD2,                      /* PRED: second destination */
  SASS_M_FSETP_PC,                       /* PRED */
  SASS_M_FSETP_PC_NEG,
  SASS_M_FSETP_NEG_A,
  SASS_M_FSETP_ABS_A,
  SASS_M_FSETP_NEG_B,
  SASS_M_FSETP_ABS_B,

  SASS_M_FCMP_CMP = SASS_MID(FCMP, 0), /* FCMP of C with 0.0: Rd = (C cmp 0) ? A : B */
  SASS_M_FCMP_FTZ,                     /* 1: .FTZ */

  SASS_M_MUFU_OP = SASS_MID(MUFU, 0), /* 0 COS, 1 SIN, 2 EX2, 3 LG2, 4 RCP, 5 RSQ, 6 RCP64H,
                                         7 RSQ64H, 8 SQRT; the source is Ra */
  SASS_M_MUFU_SAT,
  SASS_M_MUFU_NEG_A,
  SASS_M_MUFU_ABS_A,

  SASS_M_RRO_OP = SASS_MID(RRO, 0), /* 0 .SINCOS, 1 .EX2 */
  SASS_M_RRO_NEG_B,
  SASS_M_RRO_ABS_B,

  /* ---- integer ---- */
  SASS_M_IADD_SAT = SASS_MID(IADD, 0), /* 1: .SAT (signed saturation) */
  SASS_M_IADD_X,                       /* 1: .X, add the carry in CC */
  SASS_M_IADD_PO,                      /* IADD32I only: with NEG_A, .PO (A + B + 1); alone it is
                                          refused by the decoder */
  SASS_M_IADD_NEG_A,                   /* NEG_A and NEG_B both set in IADD: .PO, A + B + 1 */
  SASS_M_IADD_NEG_B,
  SASS_M_IADD_CC,

  SASS_M_IADD3_MODE = SASS_MID(IADD3, 0), /* 0 none, 1 .RS (shift the A+B sum right 16),
                                             2 .LS (left 16) */
  SASS_M_IADD3_X,
  SASS_M_IADD3_NEG_A,
  SASS_M_IADD3_NEG_B,
  SASS_M_IADD3_NEG_C,
  SASS_M_IADD3_HALF_A, /* 0 all 32 bits, 1 .H0, 2 .H1 */
  SASS_M_IADD3_HALF_B,
  SASS_M_IADD3_HALF_C,
  SASS_M_IADD3_CC,

  SASS_M_ISCADD_SHIFT = SASS_MID(ISCADD, 0), /* result = (A << SHIFT) + B, SHIFT 0-31 */
  SASS_M_ISCADD_NEG_A,                       /* NEG_A and NEG_B both set: .PO */
  SASS_M_ISCADD_NEG_B,
  SASS_M_ISCADD_CC,

  SASS_M_IMUL_SIGNED_A = SASS_MID(IMUL, 0), /* SIGNED of A (printed .U32/.S32) */
  SASS_M_IMUL_SIGNED_B,                     /* SIGNED of B */
  SASS_M_IMUL_HI,                           /* 1: .HI, the upper 32 bits of the 64-bit product */
  SASS_M_IMUL_CC,

  SASS_M_IMNMX_SIGNED = SASS_MID(IMNMX, 0), /* SIGNED */
  SASS_M_IMNMX_XMODE,                       /* 0 none, 1 .XLO, 2 .XMED, 3 .XHI (extended) */
  SASS_M_IMNMX_PC,                          /* PRED: result = Pc ? min : max */
  SASS_M_IMNMX_PC_NEG,
  SASS_M_IMNMX_CC,

  SASS_M_ISETP_CMP = SASS_MID(ISETP, 0), /* ICMP of A with B */
  SASS_M_ISETP_SIGNED,                   /* SIGNED */
  SASS_M_ISETP_X,                        /* 1: .X, extended compare with CC */
  SASS_M_ISETP_BOP,                      /* BOP: Pd = cmp BOP Pc, Pd2 = !cmp BOP Pc */
  SASS_M_ISETP_PD,                       /* PRED */
  SASS_M_ISETP_PD2,                      /* PRED */
  SASS_M_ISETP_PC,                       /* PRED */
  SASS_M_ISETP_PC_NEG,

  SASS_M_ISET_BF = SASS_MID(ISET, 0), /* 1: .BF, true = 1.0f (else 0xffffffff) */
  SASS_M_ISET_CMP,                    /* ICMP */
  SASS_M_ISET_SIGNED,
  SASS_M_ISET_X,
  SASS_M_ISET_BOP,
  SASS_M_ISET_PC,
  SASS_M_ISET_PC_NEG,
  SASS_M_ISET_CC,

  SASS_M_ICMP_CMP = SASS_MID(ICMP, 0), /* ICMP of C with 0: Rd = (C cmp 0) ? A : B */
  SASS_M_ICMP_SIGNED,

  SASS_M_LOP_OP = SASS_MID(LOP, 0), /* 0 .AND, 1 .OR, 2 .XOR, 3 .PASS_B */
  SASS_M_LOP_X,                     /* 1: .X */
  SASS_M_LOP_PRED_OP,               /* LOP only: predicate output: 0 F (none), 1 .T, 2 .Z
                                       (result == 0), 3 .NZ */
  SASS_M_LOP_PD,                    /* LOP only: PRED destination of PRED_OP (7: none) */
  SASS_M_LOP_INV_A,
  SASS_M_LOP_INV_B,
  SASS_M_LOP_CC,

  SASS_M_LOP3_PRED_OP = SASS_MID(LOP3, 0), /* reg form: as LOP's PRED_OP */
  SASS_M_LOP3_X,
  SASS_M_LOP3_PD,                          /* reg form: PRED destination */
  SASS_M_LOP3_LUT,                         /* 8-bit truth table: bit (a<<2 | b<<1 | c) */
  SASS_M_LOP3_CC,

  SASS_M_SHL_W = SASS_MID(SHL, 0), /* 1: .W, the shift count is taken mod 32 (else clamped) */
  SASS_M_SHL_X,
  SASS_M_SHL_CC,

  SASS_M_SHR_SIGNED = SASS_MID(SHR, 0), /* SIGNED: 1 arithmetic, 0 logical (.U32) */
  SASS_M_SHR_W,                         /* 1: .W */
  SASS_M_SHR_BREV,                      /* 1: .BREV, bit-reverse A first */
  SASS_M_SHR_XMODE,                     /* 2: .X; other values MUST be 0 */
  SASS_M_SHR_CC,

  SASS_M_BFE_SIGNED = SASS_MID(BFE, 0), /* SIGNED (sign-extends the field) */
  SASS_M_BFE_BREV,                      /* 1: .BREV */
  SASS_M_BFE_CC,                        /* B: bits 0-7 position, 8-15 length */

  SASS_M_BFI_CC = SASS_MID(BFI, 0), /* BFI Rd, Ra (the bits), B (position | length << 8), C */

  SASS_M_XMAD_SIGNS = SASS_MID(XMAD, 0), /* bit 0: A is S16, bit 1: B is S16 (printed .S16.U16 ...) */
  SASS_M_XMAD_PSL,                       /* 1: .PSL, product << 16 (rc form: none) */
  SASS_M_XMAD_MRG,                       /* 1: .MRG (rc form: none) */
  SASS_M_XMAD_MODE,                      /* C mode: 0 none, 1 .CLO, 2 .CHI, 3 .CSFU, 4 .CBCC
                                            (cr/rc forms: 0-3) */
  SASS_M_XMAD_X,                         /* 1: .X */
  SASS_M_XMAD_H1_A,                      /* 1: A.H1 (the high 16 bits of A) */
  SASS_M_XMAD_H1_B,                      /* 1: B.H1 (imm form: none; B is a 16-bit immediate) */
  SASS_M_XMAD_CC,

  SASS_M_FLO_SIGNED = SASS_MID(FLO, 0), /* SIGNED */
  SASS_M_FLO_SH,                        /* 1: .SH, the shift amount (31 - position) */
  SASS_M_FLO_INV_B,
  SASS_M_FLO_CC,

  SASS_M_POPC_INV_B = SASS_MID(POPC, 0),

  /* ---- predicates ---- */
  SASS_M_PSETP_BOP1 = SASS_MID(PSETP, 0), /* BOP: t = Pa BOP1 Pb */
  SASS_M_PSETP_BOP2,                      /* BOP: Pd = t BOP2 Pc, Pd2 = !t BOP2 Pc */
  SASS_M_PSETP_PD,                        /* PRED */
  SASS_M_PSETP_PD2,                       /* PRED */
  SASS_M_PSETP_PA,                        /* PRED */
  SASS_M_PSETP_PA_NEG,
  SASS_M_PSETP_PB,                        /* PRED */
  SASS_M_PSETP_PB_NEG,
  SASS_M_PSETP_PC,                        /* PRED */
  SASS_M_PSETP_PC_NEG,

  SASS_M_PSET_BF = SASS_MID(PSET, 0), /* 1: .BF */
  SASS_M_PSET_BOP1,                   /* t = Pa BOP1 Pb */
  SASS_M_PSET_BOP2,                   /* Rd = t BOP2 Pc */
  SASS_M_PSET_PA,
  SASS_M_PSET_PA_NEG,
  SASS_M_PSET_PB,
  SASS_M_PSET_PB_NEG,
  SASS_M_PSET_PC,
  SASS_M_PSET_PC_NEG,
  SASS_M_PSET_CC,

  /* ---- attributes ---- */
  SASS_M_ALD_O = SASS_MID(ALD, 0), /* 1: .O, read this stage's own output buffer */
  SASS_M_ALD_P,                    /* 1: .P, the per-patch space (tessellation stages only) */
  SASS_M_ALD_SIZE,                 /* 0 .32 (1 register), 1 .64, 2 .96, 3 .128 */
  SASS_M_ALD_ADDR,                 /* byte address 0-0x3ff added to R[ra] (ra = RZ: just it);
                                      R[rb] = the vertex (RZ in a vertex shader) */

  SASS_M_AST_P = SASS_MID(AST, 0), /* 1: .P */
  SASS_M_AST_SIZE,                 /* as ALD's */
  SASS_M_AST_ADDR,                 /* as ALD's; the data starts at R[rd]; R[rb] = the vertex */
  SASS_M_AST_OUT,                  /* MUST 0: bit 32 (NAK sets it; nobody reads it) */

  SASS_M_AL2P_O = SASS_MID(AL2P, 0), /* 1: .O */
  SASS_M_AL2P_SIZE,                  /* as ALD's */
  SASS_M_AL2P_PD,                    /* PRED destination (7: none) */
  SASS_M_AL2P_ADDR,                  /* signed 11-bit byte offset: R[rd] = the physical address
                                        of attribute R[ra] + ADDR */

  SASS_M_IPA_IDX = SASS_MID(IPA, 0), /* 1: .IDX, the address is R[ra] (ADDR is 0); without it
                                        ra is RZ (the decoder refuses other combinations) */
  SASS_M_IPA_MODE,                   /* 0 .PASS, 1 multiply (no suffix: value x R[rb]),
                                        2 .CONSTANT, 3 .SC */
  SASS_M_IPA_SAMPLE,                 /* 0 pixel centre, 1 .CENTROID, 2 .OFFSET (R[rc]) */
  SASS_M_IPA_SAT,                    /* 1: .SAT */
  SASS_M_IPA_ADDR,                   /* attribute byte address 0-0x3ff */
  SASS_M_IPA_PRED,                   /* MUST 7 (PT): bits 47-49, meaning unknown */
  SASS_M_IPA_PRED_NEG,               /* MUST 0 */

  SASS_M_OUT_TYPE = SASS_MID(OUT, 0), /* 1 .EMIT, 2 .CUT, 3 .EMIT_THEN_CUT; stream = B & 3 */

  SASS_M_ISBERD_O = SASS_MID(ISBERD, 0),
  SASS_M_ISBERD_MODE, /* 0 none, 1 .PATCH, 2 .PRIM, 3 .ATTR */
  SASS_M_ISBERD_SKEW,
  SASS_M_ISBERD_SIZE, /* 0 none, 1 .U16, 2 .B32 */

  /* ---- control ---- */
  SASS_M_BRA_U = SASS_MID(BRA, 0), /* 1: .U (uniform) */
  SASS_M_BRA_LMT,                  /* 1: .LMT */
  SASS_M_BRA_FLOW,                 /* FLOW */
  SASS_M_BRA_CBUF,                 /* MUST 0: the target from a constant buffer */
  SASS_M_BRA_OFFSET,               /* signed 24-bit offset; target (sass_insn.imm) = pc + 8 + it */
  SASS_M_SSY_OFFSET = SASS_MID(SSY, 0), /* target = pc + 8 + it */
  SASS_M_SSY_CBUF,                      /* MUST 0 */
  SASS_M_PBK_OFFSET = SASS_MID(PBK, 0),
  SASS_M_PBK_CBUF,                      /* MUST 0 */
  SASS_M_SYNC_FLOW = SASS_MID(SYNC, 0),
  SASS_M_BRK_FLOW = SASS_MID(BRK, 0),
  SASS_M_EXIT_KEEPREFCOUNT = SASS_MID(EXIT, 0), /* 1: .KEEPREFCOUNT */
  SASS_M_EXIT_FLOW,
  SASS_M_KIL_FLOW = SASS_MID(KIL, 0),
  SASS_M_NOP_TRIG = SASS_MID(NOP, 0), /* 1: .TRIG */
  SASS_M_NOP_FLOW,
  SASS_M_NOP_IMM,                     /* 16-bit immediate, no effect */
  SASS_M_DEPBAR_LE = SASS_MID(DEPBAR, 0), /* 1: .LE, wait until scoreboard SB has <= COUNT pending */
  SASS_M_DEPBAR_SB,                       /* scoreboard 0-5 */
  SASS_M_DEPBAR_COUNT,
  SASS_M_DEPBAR_WAIT,                     /* mask of scoreboards to wait for ({0,1} form) */
  SASS_M_BAR_MODE = SASS_MID(BAR, 0),     /* 0 .SYNC, 1 .ARV, 2 .RED, 3 .SCAN, 4 .SYNCALL */
  SASS_M_BAR_REDOP,                       /* .RED's op: 0 .POPC (printed as nothing), 1 .AND, 2 .OR */
  SASS_M_BAR_ID_IMM,                      /* 1: the barrier id is ID, else R[ra] */
  SASS_M_BAR_ID,                          /* 8-bit barrier id */
  SASS_M_BAR_COUNT_IMM,                   /* 1: the thread count is COUNT, else R[rb] */
  SASS_M_BAR_COUNT,                       /* 12-bit thread count (0: all) */
  SASS_M_BAR_PC,                          /* PRED */
  SASS_M_BAR_PC_NEG,
  SASS_M_MEMBAR_LEVEL = SASS_MID(MEMBAR, 0), /* 0 .CTA, 1 .GL, 2 .SYS, 3 .VC */
  SASS_M_MEMBAR_IVALL,                       /* 0 none, 1 .IVALLD, 2 .IVALLT, 3 .IVALLTD */

  /* ---- constant buffers and local memory ---- */
  SASS_M_LDC_SIZE = SASS_MID(LDC, 0), /* 0 .U8, 1 .S8, 2 .U16, 3 .S16, 4 32 bits, 5 .64, 6 .128 */
  SASS_M_LDC_MODE,                    /* 0 none, 1 .IL, 2 .IS, 3 .ISL */
  SASS_M_LDC_BANK,                    /* = sass_insn.cbank */
  SASS_M_LDC_OFFSET,                  /* signed 16-bit byte offset (= (int16_t)sass_insn.cbyte),
                                         added to R[ra] */
  SASS_M_LDL_CACHE = SASS_MID(LDL, 0), /* 0 none, 1 .LU, 2 .CI, 3 .CV */
  SASS_M_LDL_SIZE,                     /* as LDC's */
  SASS_M_LDL_OFFSET,                   /* signed 24-bit byte offset added to R[ra] */
  SASS_M_STL_CACHE = SASS_MID(STL, 0), /* 0 none, 1 .CG, 2 .CS, 3 .WT */
  SASS_M_STL_SIZE,                     /* as LDC's; the data starts at R[rd] */
  SASS_M_STL_OFFSET,

  /* ---- textures ---- */
  SASS_M_TEX_LOD = SASS_MID(TEX, 0), /* 0 none, 1 .LZ, 2 .LB, 3 .LL, 6 .LBA, 7 .LLA */
  SASS_M_TEX_AOFFI,                  /* 1: .AOFFI */
  SASS_M_TEX_DC,                     /* 1: .DC, depth compare */
  SASS_M_TEX_NDV,                    /* 1: .NDV */
  SASS_M_TEX_NODEP,                  /* 1: .NODEP */
  SASS_M_TEX_INDEX,                  /* texture handle index (word offset in the texture bank;
                                        TEX.B: none, the handle is in R[rb]) */
  SASS_M_TEX_DIM,                    /* bits 0-1: 0 1D, 1 2D, 2 3D, 3 CUBE; bit 2: ARRAY_ */
  SASS_M_TEX_WMASK,                  /* components written, bit 0 = R */

  SASS_M_TEXS_TARGET = SASS_MID(TEXS, 0), /* 0 1D.LZ, 1 2D, 2 2D.LZ, 3 2D.LL, 4 2D.DC,
                                             5 2D.LL.DC, 6 2D.LZ.DC, 7 ARRAY_2D, 8 ARRAY_2D.LZ,
                                             9 ARRAY_2D.LZ.DC, 10 3D, 11 3D.LZ, 12 CUBE, 13 CUBE.LL */
  SASS_M_TEXS_NODEP,
  SASS_M_TEXS_F32,                        /* 1: 32-bit results; 0: .F16, packed halves (SM 6.x) */
  SASS_M_TEXS_INDEX,                      /* texture handle index */
  SASS_M_TEXS_MASK,                       /* component code: rc (the second destination) == RZ:
                                             0 R, 1 G, 2 B, 3 A, 4 RG, 5 RA, 6 GA, 7 BA; else
                                             0 RGB, 1 RGA, 2 RBA, 3 GBA, 4 RGBA. Results go in
                                             order to R[rd], R[rd+1], R[rc], R[rc+1] */

  SASS_M_TLDS_TARGET = SASS_MID(TLDS, 0), /* 0 1D.LZ, 1 1D.LL, 2 2D.LZ, 4 2D.LZ.AOFFI, 5 2D.LL,
                                             6 2D.LZ.MS, 7 3D.LZ, 8 ARRAY_2D.LZ, 12 2D.LL.AOFFI */
  SASS_M_TLDS_NODEP,
  SASS_M_TLDS_F32,
  SASS_M_TLDS_INDEX,
  SASS_M_TLDS_MASK, /* as TEXS's */

  SASS_M_TLD_LOD = SASS_MID(TLD, 0), /* 0 .LZ, 1 .LL */
  SASS_M_TLD_AOFFI,
  SASS_M_TLD_MS,
  SASS_M_TLD_CL,
  SASS_M_TLD_NODEP,
  SASS_M_TLD_INDEX,
  SASS_M_TLD_DIM, /* as TEX's */
  SASS_M_TLD_WMASK,
};

/* ---- the table ------------------------------------------------------------ */

/* How a field shows in text. */
enum {
  SASS_P_FLAG = 1, /* ".NAME" when 1 */
  SASS_P_ENUM,     /* ".names[value]" ("" prints nothing, "?" is not printable) */
  SASS_P_OPER,     /* shown by an operand */
  SASS_P_MUST      /* not shown; only its default value is accepted */
};

/* Field flags. */
enum {
  SASS_F_SIGNED = 1 /* a two's complement number */
};

/* One field: bits pos..pos+width-1, and, when width2, bits pos2..pos2+width2-1
 * above them (value = first | second << width). */
typedef struct sass_field {
  uint8_t pos, width, pos2, width2;
  uint8_t print;    /* SASS_P_* (0: the row has no such field) */
  uint8_t flags;    /* SASS_F_* */
  uint16_t def;     /* the assembler's value when the text does not give one */
  const char *names; /* "|RM|RP|RZ": names by value, '|' separated; FLAG: the name */
} sass_field;

/* Operand kinds. Register fields are 8 bits at pos; field references (f, f2,
 * neg, abs, inv, sfx) are 1 + an index into the row's fields, 0 for none. */
enum {
  SASS_O_R = 1, /* register at pos into sass_insn slot `slot`; sfx: a ".CC"/".H1" after it */
  SASS_O_P,     /* predicate field f (negated by neg) */
  SASS_O_B,     /* the row's B operand (its form) */
  SASS_O_C,     /* the row's C operand (its form) */
  SASS_O_IMM,   /* field f as a number */
  SASS_O_NAME,  /* field f by its names */
  SASS_O_SREG,  /* field f: a system register SR_... */
  SASS_O_ATTR,  /* a[Ra + field f]: Ra at pos */
  SASS_O_CX,    /* c[field f][Ra + field f2]: Ra at pos (LDC) */
  SASS_O_LMEM,  /* [Ra + field f]: Ra at pos (LDL, STL) */
  SASS_O_TARGET,/* branch target: field f, relative to pc + 8; printed absolute */
  SASS_O_FLOW,  /* CC.xx of flow test field f, not printed when T */
  SASS_O_RI,    /* field f2 set: field f as a number, else the register at pos (slot) */
  SASS_O_SBSET, /* field f as a scoreboard set {0,3}, not printed when 0 */
  SASS_O_TMASK, /* TEXS/TLDS component code field f, read with the register at pos (RdB) */
  SASS_O_TDIM,  /* TEXS/TLDS target field f: the dimension part of its name */
  SASS_O_ZERO   /* the literal 0x0 (TEX.B's index) */
};

enum { SASS_SLOT_NONE = 0, SASS_SLOT_RD, SASS_SLOT_RA, SASS_SLOT_RB, SASS_SLOT_RC };

/* Operand flags. */
enum {
  SASS_OF_OPT = 1,  /* the assembler takes its default when absent (RZ, PT, 0) */
  SASS_OF_OMIT = 2, /* the disassembler leaves it out when it has its default
                       (a register RZ, a predicate PT, a number 0) */
  SASS_OF_DST = 4   /* a destination register */
};

typedef struct sass_opnd {
  uint8_t kind, pos, slot, flags;
  uint8_t f, f2, neg, abs, inv, sfx;
} sass_opnd;

/* How the B immediate of an IMM form is read. */
enum {
  SASS_I_INT = 0, /* 20 bits (19 at 20 + the sign at 56), sign-extended */
  SASS_I_F20,     /* float bits 31..12 (sign at 56) */
  SASS_I_U16      /* XMAD: 16 unsigned bits at 20 */
};
/* Row flags. */
enum {
  SASS_R_NOGUARD = 1, /* no guard: bits 16-19 are 0 (SSY, PBK) */
  SASS_R_FIMM = 2,    /* immediates are floats (IMM: F20; IMM32: f32) */
  SASS_R_UIMM = 4,    /* IMM32 printed unsigned (MOV32I, LOP32I) */
  SASS_R_C_IS_RD = 8, /* C is the destination register (FFMA32I): sass_insn.rc = rd */
  SASS_R_U16 = 16     /* the IMM form's B is 16 unsigned bits at 20 (XMAD) */
};

#define SASS_OPND_MAX 7

typedef struct sass_row {
  const char *name;   /* the mnemonic as printed, with its fixed suffixes ("TEX.B") */
  uint16_t op;        /* sass_op */
  uint16_t family;    /* the sass_op whose SASS_M ids it answers */
  uint8_t form;       /* sass_form */
  uint8_t flags;      /* SASS_R_* */
  uint16_t key, mask; /* bits 48-63: word >> 48 & mask == key */
  sass_opnd opnd[SASS_OPND_MAX];
  sass_field fld[SASS_MOD_MAX]; /* indexed by SASS_M id & 31 */
} sass_row;

extern const sass_row sass_table[];
extern const unsigned sass_table_len;

/* The mnemonic of op ("FADD"). */
const char *sass_op_name(unsigned op);

/* The value of field f (of some row) in word w. */
static inline uint32_t sass_field_get(const sass_field *f, uint64_t w) {
  uint32_t v = (uint32_t)((w >> f->pos) & (((uint64_t)1 << f->width) - 1));
  if (f->width2) v |= (uint32_t)((w >> f->pos2) & (((uint64_t)1 << f->width2) - 1)) << f->width;
  return v;
}
/* The bits of field f. */
static inline uint64_t sass_field_mask(const sass_field *f) {
  return (((uint64_t)1 << f->width) - 1) << f->pos | (((uint64_t)1 << f->width2) - 1) << f->pos2;
}
/* w with field f set to v (bits of v above the field dropped). */
static inline uint64_t sass_field_put(const sass_field *f, uint64_t w, uint32_t v) {
  w = (w & ~sass_field_mask(f)) | ((uint64_t)v << f->pos & (((uint64_t)1 << f->width) - 1) << f->pos);
  if (f->width2) w |= ((uint64_t)v >> f->width & (((uint64_t)1 << f->width2) - 1)) << f->pos2;
  return w;
}
/* v's low `bits` bits, sign-extended. */
static inline int32_t sass_sext(uint32_t v, unsigned bits) {
  uint32_t m = 1u << (bits - 1);
  return (int32_t)(((v & (uint32_t)(((uint64_t)1 << bits) - 1)) ^ m) - m);
}

/* ---- the frame, the forms, the scheduling field ----------------------------
 * With the rows, these are the only bit positions there are: the bits every
 * row shares, where each form (sass_form) keeps its B and C operands, and
 * the fields of an instruction's 21-bit scheduling field (docs/sass.md). */
enum { SASS_KEY_POS = 48, SASS_CTRL_BITS = 21 };
extern const sass_field sass_f_guard, /* 16-18: the guard predicate, 7 = PT */
    sass_f_guard_neg,                 /* 19 */
    sass_f_rb,                        /* 20-27: the reg form's B */
    sass_f_rc,                        /* 39-46: C; the rc form's B */
    sass_f_cb_word,                   /* 20-33: a constant's offset in 32-bit words */
    sass_f_cb_bank,                   /* 34-38: a constant's bank */
    sass_f_imm20,                     /* 20-38, and 56 above them: the imm form's B */
    sass_f_imm16,                     /* 20-35: XMAD's imm form */
    sass_f_imm32;                     /* 20-51: the ...32I opcodes' B */
extern const sass_field sass_c_stall, /* 0-3 */
    sass_c_yield,                     /* 4 */
    sass_c_wr,                        /* 5-7: write barrier, 7 = none */
    sass_c_rd,                        /* 8-10: read barrier, 7 = none */
    sass_c_wait,                      /* 11-16: wait mask */
    sass_c_reuse;                     /* 17-20: reuse, bit 0 = operand A */

/* The value of field `id` (SASS_M_*) of instruction i, 0 if its form has
 * no such field. */
static inline uint32_t sass_mod(const sass_insn *i, unsigned id) {
  const sass_row *r = &sass_table[i->entry];
  if ((id >> 5) != r->family) return 0;
  const sass_field *f = &r->fld[id & 31];
  return f->print ? sass_field_get(f, i->raw) : 0;
}

/* ---- decoding ---------------------------------------------------------------- */

/* Decodes one instruction word with its 21-bit scheduling field ctrl; pc is
 * its byte offset in the code (8, 16, 24 mod 32). Branch, SSY and PBK
 * targets land in out->imm as absolute code byte offsets, pc + 8 + the
 * offset field, raw: a target that is a multiple of 32 (a control word)
 * means the instruction after it (+8), a rule the interpreter applies, as
 * the hardware does. A word no row matches, an instruction gpusim knows but
 * does not run ("CAL"), a MUST field with another value, or a constant bank
 * above 17 is refused: GS_EINVAL, the message naming pc and the word. */
int sass_decode(uint64_t word, uint32_t ctrl, uint32_t pc, sass_insn *out, gs_diag *d);

/* Decodes size bytes of code (32-byte groups: a control word, then three
 * instructions) into a malloc'ed array of size / 32 * 3 instructions (*n),
 * control words skipped (each instruction gets its own scheduling field). A
 * size that is not a multiple of 32 is refused. */
int sass_decode_program(const uint8_t *code, size_t size, sass_insn **out, size_t *n, gs_diag *d);

/* ---- text (asm.c, disasm.c) ------------------------------------------------- */

/* Name of value v in a '|' separated list: 1 and *s, *len (len may be 0:
 * prints nothing), or 0 when v has no name or is "?". */
int sass_name(const char *names, unsigned v, const char **s, size_t *len);
/* "NEU" for flow test 13, NULL for T (15) and undefined values. */
const char *sass_flow_name(unsigned v);
/* "SR_TID.X" for system register 0x21, NULL when unnamed. */
const char *sass_sr_name(unsigned v);
/* The disassembler's text of one instruction at code offset pc, without
 * scheduling: 0 and buf, or -1 and a reason in buf when the word does not
 * print back exactly (no row, refused by the decoder, bits outside its
 * fields, a value without a name). */
int sass_disasm_insn(uint64_t w, uint32_t pc, char *buf, size_t size);
/* The whole code (size a multiple of 32) as text, one line per
 * instruction, malloc'ed in *text (docs/sass.md, "Text"). */
int sass_disasm(const uint8_t *code, size_t size, char **text, gs_diag *d);
/* Assembles src to code (a multiple of 32 bytes) with one line-table entry
 * per instruction written (fill NOPs have none); errors name
 * file:line:column and what was expected. */
struct gs_isa_binary;
int sass_asm(const char *src, const char *file, struct gs_isa_binary *out, gs_diag *d);
/* Scheduling annotation of a 21-bit control field: "[B------:R-:W0:Y:S01:U0]"
 * (wait mask B, bit k printed as digit k; read and write barrier, - = 7;
 * Y = bit 4 set; stall in decimal; reuse bits 17-20 in hex). */
void sass_sched_text(uint32_t ctrl, char out[32]);
/* The control field the assembler gives an instruction of row r (NULL: a
 * raw word of no row) without an annotation (docs/sass.md). */
uint32_t sass_sched_default(const sass_row *r);
/* The filler: NOP and its control field. */
#define SASS_NOP_WORD 0x50B0000000070F00ull
#define SASS_NOP_CTRL 0x7E0u

/* The row index of word w (the decode rule above), or -1. */
int sass_row_of(uint64_t w);
/* The bits of a word row r gives a meaning to (key, guard, fields,
 * operands); a word with other bits set does not print back exactly. */
uint64_t sass_row_bits(const sass_row *r);
/* The name of an instruction gpusim knows but does not run ("CAL"), or NULL. */
const char *sass_unsupported_name(uint64_t w);

#endif
