/* table.c — the Maxwell instruction table (table.h): every bit position of
 * a SASS instruction gpusim knows is written here, once. Sources of the
 * facts: table.h. */
#include <stdio.h>
#include <string.h>
#include "isa/sass/table.h"

/* ---- building blocks -------------------------------------------------------- */

#define I(x) (SASS_M_##x & 31)
#define R(x) (I(x) + 1) /* a field reference in an operand */

/* fields */
#define FL(p, name) {(p), 1, 0, 0, SASS_P_FLAG, 0, 0, (name)}
#define EN(p, w, names) {(p), (w), 0, 0, SASS_P_ENUM, 0, 0, (names)}
#define END(p, w, def, names) {(p), (w), 0, 0, SASS_P_ENUM, 0, (def), (names)}
#define EN2(p, w, p2, w2, def, names) {(p), (w), (p2), (w2), SASS_P_ENUM, 0, (def), (names)}
#define OPF(p, w) {(p), (w), 0, 0, SASS_P_OPER, 0, 0, 0}
#define OPD(p, w, def) {(p), (w), 0, 0, SASS_P_OPER, 0, (def), 0}
#define OPS(p, w) {(p), (w), 0, 0, SASS_P_OPER, SASS_F_SIGNED, 0, 0}
#define OPN(p, w, names) {(p), (w), 0, 0, SASS_P_OPER, 0, 0, (names)}
#define OPN2(p, w, p2, w2, def, names) {(p), (w), (p2), (w2), SASS_P_OPER, 0, (def), (names)}
#define MUST(p, w, def) {(p), (w), 0, 0, SASS_P_MUST, 0, (def), 0}

/* common field value names */
#define N_RND "|RM|RP|RZ"
#define N_FMZ "|FTZ|FMZ|?"
#define N_FCMP "F|LT|EQ|LE|GT|NE|GE|NUM|NAN|LTU|EQU|LEU|GTU|NEU|GEU|T"
#define N_ICMP "F|LT|EQ|LE|GT|NE|GE|T"
#define N_BOP "AND|OR|XOR|?"
#define N_FLT "?|F16|F32|F64"
#define N_INT "U8|U16|U32|U64|S8|S16|S32|S64"
#define N_INT32 "U8|U16|U32|?|S8|S16|S32|?" /* I2I has no 64-bit sizes */
#define N_MSIZE "U8|S8|U16|S16||64|128|?"

/* operands: kind, pos, slot, flags, f, f2, neg, abs, inv, sfx */
#define REG(pos, slot, fl, neg, abs, inv, sfx) {SASS_O_R, (pos), (slot), (fl), 0, 0, (neg), (abs), (inv), (sfx)}
#define RD {SASS_O_R, 0, SASS_SLOT_RD, SASS_OF_DST, 0, 0, 0, 0, 0, 0}
#define RDC(cc) {SASS_O_R, 0, SASS_SLOT_RD, SASS_OF_DST, 0, 0, 0, 0, 0, R(cc)}
#define RA {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, 0, 0, 0, 0}
#define RAM(neg, abs) {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, (neg), (abs), 0, 0}
#define RB20 {SASS_O_R, 20, SASS_SLOT_RB, 0, 0, 0, 0, 0, 0, 0}
#define RC39 {SASS_O_R, 39, SASS_SLOT_RC, 0, 0, 0, 0, 0, 0, 0}
#define OB {SASS_O_B, 0, 0, 0, 0, 0, 0, 0, 0, 0}
#define OBM(neg, abs) {SASS_O_B, 0, 0, 0, 0, 0, (neg), (abs), 0, 0}
#define OC {SASS_O_C, 0, 0, 0, 0, 0, 0, 0, 0, 0}
#define OCM(neg) {SASS_O_C, 0, 0, 0, 0, 0, (neg), 0, 0, 0}
#define PRED(f, neg) {SASS_O_P, 0, 0, 0, (f), 0, (neg), 0, 0, 0}
#define PREDO(f, neg) {SASS_O_P, 0, 0, SASS_OF_OPT | SASS_OF_OMIT, (f), 0, (neg), 0, 0, 0}
#define IMMF(f) {SASS_O_IMM, 0, 0, 0, (f), 0, 0, 0, 0, 0}
#define IMMO(f) {SASS_O_IMM, 0, 0, SASS_OF_OPT | SASS_OF_OMIT, (f), 0, 0, 0, 0, 0}
#define NAME(f) {SASS_O_NAME, 0, 0, 0, (f), 0, 0, 0, 0, 0}
#define SREG(f) {SASS_O_SREG, 0, 0, 0, (f), 0, 0, 0, 0, 0}
#define ATTR(f) {SASS_O_ATTR, 8, SASS_SLOT_RA, 0, (f), 0, 0, 0, 0, 0}
#define FLOW(f) {SASS_O_FLOW, 0, 0, SASS_OF_OPT | SASS_OF_OMIT, (f), 0, 0, 0, 0, 0}
#define TARGET(f) {SASS_O_TARGET, 0, 0, 0, (f), 0, 0, 0, 0, 0}

/* rows */
#define UNPACK(...) __VA_ARGS__
#define ROW(nm, OP, FAM, FORM, FLAGS, KEY, MASK, OPNDS, ...) \
  {nm, SASS_OP_##OP, SASS_OP_##FAM, FORM, FLAGS, KEY, MASK, {UNPACK OPNDS}, {__VA_ARGS__}}
/* The reg, cbuf and 20-bit immediate forms of one ALU instruction. */
#define ALU3(nm, OP, FLAGS, KREG, KCB, KIMM, MASK, MASKI, OPNDS, ...) \
  ROW(nm, OP, OP, SASS_FORM_REG, FLAGS, KREG, MASK, OPNDS, __VA_ARGS__), \
  ROW(nm, OP, OP, SASS_FORM_CBUF, FLAGS, KCB, MASK, OPNDS, __VA_ARGS__), \
  ROW(nm, OP, OP, SASS_FORM_IMM, FLAGS, KIMM, MASKI, OPNDS, __VA_ARGS__)
/* ... and the rc and cr forms of a three-source one. */
#define ALU5(nm, OP, FLAGS, KREG, KRC, KCR, KIMM, MASK, MASKI, OPNDS, ...) \
  ROW(nm, OP, OP, SASS_FORM_REG, FLAGS, KREG, MASK, OPNDS, __VA_ARGS__), \
  ROW(nm, OP, OP, SASS_FORM_RC, FLAGS, KRC, MASK, OPNDS, __VA_ARGS__), \
  ROW(nm, OP, OP, SASS_FORM_CR, FLAGS, KCR, MASK, OPNDS, __VA_ARGS__), \
  ROW(nm, OP, OP, SASS_FORM_IMM, FLAGS, KIMM, MASKI, OPNDS, __VA_ARGS__)

#define F_REG SASS_FORM_REG
#define F_NONE SASS_FORM_NONE
#define F_IMM32 SASS_FORM_IMM32

/* TEXS/TLDS targets: "suffixes:dimension" */
#define N_TEXS "LZ:1D|:2D|LZ:2D|LL:2D|DC:2D|LL.DC:2D|LZ.DC:2D|:ARRAY_2D|LZ:ARRAY_2D|LZ.DC:ARRAY_2D|:3D|LZ:3D|:CUBE|LL:CUBE|?|?"
#define N_TLDS "LZ:1D|LL:1D|LZ:2D|?|LZ.AOFFI:2D|LL:2D|LZ.MS:2D|LZ:3D|LZ:ARRAY_2D|?|?|?|LL.AOFFI:2D|?|?|?"
#define N_DIM "1D|2D|3D|CUBE|ARRAY_1D|ARRAY_2D|ARRAY_3D|ARRAY_CUBE"

const sass_row sass_table[] = {
  /* ---- moves and conversions ---- */
  ALU3("MOV", MOV, 0, 0x5C98, 0x4C98, 0x3898, 0xFFF8, 0xFEF8, (RD, OB),
       [I(MOV_LANEMASK)] = MUST(39, 4, 15)),
  ROW("MOV32I", MOV32I, MOV, F_IMM32, SASS_R_UIMM, 0x0100, 0xFFF0, (RD, OB),
      [I(MOV_LANEMASK)] = MUST(12, 4, 15)),
  ROW("S2R", S2R, S2R, F_NONE, 0, 0xF0C8, 0xFFF8, (RD, SREG(R(S2R_SR))),
      [I(S2R_SR)] = OPF(20, 8)),
  ROW("CS2R", CS2R, CS2R, F_NONE, 0, 0x50C8, 0xFFF8, (RD, SREG(R(CS2R_SR))),
      [I(CS2R_SR)] = OPF(20, 8)),
  ALU3("F2F", F2F, SASS_R_FIMM, 0x5CA8, 0x4CA8, 0x38A8, 0xFFF8, 0xFEF8,
       (RDC(F2F_CC), {SASS_O_B, 0, 0, 0, 0, 0, R(F2F_NEG_B), R(F2F_ABS_B), 0, R(F2F_H1)}),
       [I(F2F_FTZ)] = FL(44, "FTZ"), [I(F2F_DST)] = END(8, 2, 2, N_FLT), [I(F2F_SRC)] = END(10, 2, 2, N_FLT),
       [I(F2F_RND)] = EN2(39, 2, 42, 1, 0, "|RM|RP|RZ|ROUND|FLOOR|CEIL|TRUNC"), [I(F2F_SAT)] = FL(50, "SAT"),
       [I(F2F_H1)] = OPN(41, 1, "H1"), [I(F2F_NEG_B)] = OPF(45, 1), [I(F2F_ABS_B)] = OPF(49, 1),
       [I(F2F_CC)] = OPN(47, 1, "CC")),
  ALU3("F2I", F2I, SASS_R_FIMM, 0x5CB0, 0x4CB0, 0x38B0, 0xFFF8, 0xFEF8,
       (RDC(F2I_CC), {SASS_O_B, 0, 0, 0, 0, 0, R(F2I_NEG_B), R(F2I_ABS_B), 0, R(F2I_H1)}),
       [I(F2I_FTZ)] = FL(44, "FTZ"), [I(F2I_DST)] = EN2(8, 2, 12, 1, 6, "?|U16|U32|U64|?|S16|S32|S64"), [I(F2I_SRC)] = END(10, 2, 2, N_FLT),
       [I(F2I_RND)] = EN(39, 2, "|FLOOR|CEIL|TRUNC"), [I(F2I_H1)] = OPN(41, 1, "H1"),
       [I(F2I_NEG_B)] = OPF(45, 1), [I(F2I_ABS_B)] = OPF(49, 1), [I(F2I_CC)] = OPN(47, 1, "CC")),
  ALU3("I2F", I2F, 0, 0x5CB8, 0x4CB8, 0x38B8, 0xFFF8, 0xFEF8,
       (RDC(I2F_CC), {SASS_O_B, 0, 0, 0, 0, 0, R(I2F_NEG_B), R(I2F_ABS_B), 0, R(I2F_BSEL)}),
       [I(I2F_DST)] = END(8, 2, 2, N_FLT), [I(I2F_SRC)] = EN2(10, 2, 13, 1, 6, N_INT), [I(I2F_RND)] = EN(39, 2, N_RND),
       [I(I2F_BSEL)] = OPN(41, 2, "|B1|B2|B3"), [I(I2F_NEG_B)] = OPF(45, 1), [I(I2F_ABS_B)] = OPF(49, 1),
       [I(I2F_CC)] = OPN(47, 1, "CC")),
  ALU3("I2I", I2I, 0, 0x5CE0, 0x4CE0, 0x38E0, 0xFFF8, 0xFEF8,
       (RDC(I2I_CC), {SASS_O_B, 0, 0, 0, 0, 0, R(I2I_NEG_B), R(I2I_ABS_B), 0, R(I2I_BSEL)}),
       [I(I2I_DST)] = EN2(8, 2, 12, 1, 6, N_INT32), [I(I2I_SRC)] = EN2(10, 2, 13, 1, 6, N_INT32),
       [I(I2I_SAT)] = FL(50, "SAT"), [I(I2I_BSEL)] = OPN(41, 2, "|B1|B2|B3"), [I(I2I_NEG_B)] = OPF(45, 1),
       [I(I2I_ABS_B)] = OPF(49, 1), [I(I2I_CC)] = OPN(47, 1, "CC")),
  ALU3("SEL", SEL, 0, 0x5CA0, 0x4CA0, 0x38A0, 0xFFF8, 0xFEF8, (RD, RA, OB, PRED(R(SEL_PC), R(SEL_PC_NEG))),
       [I(SEL_PC)] = OPF(39, 3), [I(SEL_PC_NEG)] = OPF(42, 1)),
  ALU3("P2R", P2R, 0, 0x5CE8, 0x4CE8, 0x38E8, 0xFFF8, 0xFEF8, (RD, NAME(R(P2R_SRC)), RA, OB),
       [I(P2R_SRC)] = OPN(40, 1, "PR|CC"), [I(P2R_BSEL)] = EN(41, 2, "|B1|B2|B3")),
  ALU3("R2P", R2P, 0, 0x5CF0, 0x4CF0, 0x38F0, 0xFFF8, 0xFEF8, (NAME(R(R2P_SRC)), RA, OB),
       [I(R2P_SRC)] = OPN(40, 1, "PR|CC"), [I(R2P_BSEL)] = EN(41, 2, "|B1|B2|B3")),

  /* ---- float ---- */
  ALU3("FADD", FADD, SASS_R_FIMM, 0x5C58, 0x4C58, 0x3858, 0xFFF8, 0xFEF8,
       (RDC(FADD_CC), RAM(R(FADD_NEG_A), R(FADD_ABS_A)), OBM(R(FADD_NEG_B), R(FADD_ABS_B))),
       [I(FADD_FTZ)] = FL(44, "FTZ"), [I(FADD_RND)] = EN(39, 2, N_RND), [I(FADD_SAT)] = FL(50, "SAT"),
       [I(FADD_NEG_A)] = OPF(48, 1), [I(FADD_ABS_A)] = OPF(46, 1), [I(FADD_NEG_B)] = OPF(45, 1),
       [I(FADD_ABS_B)] = OPF(49, 1), [I(FADD_CC)] = OPN(47, 1, "CC")),
  ROW("FADD32I", FADD32I, FADD, F_IMM32, SASS_R_FIMM, 0x0800, 0xFC00,
      (RDC(FADD_CC), RAM(R(FADD_NEG_A), R(FADD_ABS_A)), OBM(R(FADD_NEG_B), R(FADD_ABS_B))),
      [I(FADD_FTZ)] = FL(55, "FTZ"), [I(FADD_NEG_A)] = OPF(56, 1), [I(FADD_ABS_A)] = OPF(54, 1),
      [I(FADD_NEG_B)] = OPF(53, 1), [I(FADD_ABS_B)] = OPF(57, 1), [I(FADD_CC)] = OPN(52, 1, "CC")),
  ALU3("FMUL", FMUL, SASS_R_FIMM, 0x5C68, 0x4C68, 0x3868, 0xFFF8, 0xFEF8,
       (RDC(FMUL_CC), RA, OBM(R(FMUL_NEG), 0)),
       [I(FMUL_FMZ)] = EN(44, 2, N_FMZ), [I(FMUL_RND)] = EN(39, 2, N_RND),
       [I(FMUL_SCALE)] = EN(41, 3, "|D2|D4|D8|M8|M4|M2|?"), [I(FMUL_SAT)] = FL(50, "SAT"),
       [I(FMUL_NEG)] = OPF(48, 1), [I(FMUL_CC)] = OPN(47, 1, "CC")),
  ROW("FMUL32I", FMUL32I, FMUL, F_IMM32, SASS_R_FIMM, 0x1E00, 0xFF00, (RDC(FMUL_CC), RA, OB),
      [I(FMUL_FMZ)] = EN(53, 2, N_FMZ), [I(FMUL_SAT)] = FL(55, "SAT"), [I(FMUL_CC)] = OPN(52, 1, "CC")),
  ALU5("FFMA", FFMA, SASS_R_FIMM, 0x5980, 0x5180, 0x4980, 0x3280, 0xFF80, 0xFE80,
       (RDC(FFMA_CC), RA, OBM(R(FFMA_NEG_AB), 0), OCM(R(FFMA_NEG_C))),
       [I(FFMA_FMZ)] = EN(53, 2, N_FMZ), [I(FFMA_RND)] = EN(51, 2, N_RND), [I(FFMA_SAT)] = FL(50, "SAT"),
       [I(FFMA_NEG_AB)] = OPF(48, 1), [I(FFMA_NEG_C)] = OPF(49, 1), [I(FFMA_CC)] = OPN(47, 1, "CC")),
  ROW("FFMA32I", FFMA32I, FFMA, F_IMM32, SASS_R_FIMM | SASS_R_C_IS_RD, 0x0C00, 0xFC00,
      (RDC(FFMA_CC), RAM(R(FFMA_NEG_AB), 0), OB, REG(0, SASS_SLOT_RC, 0, R(FFMA_NEG_C), 0, 0, 0)),
      [I(FFMA_FMZ)] = EN(53, 2, N_FMZ), [I(FFMA_SAT)] = FL(55, "SAT"), [I(FFMA_NEG_AB)] = OPF(56, 1),
      [I(FFMA_NEG_C)] = OPF(57, 1), [I(FFMA_CC)] = OPN(52, 1, "CC")),
  ALU3("FMNMX", FMNMX, SASS_R_FIMM, 0x5C60, 0x4C60, 0x3860, 0xFFF8, 0xFEF8,
       (RDC(FMNMX_CC), RAM(R(FMNMX_NEG_A), R(FMNMX_ABS_A)), OBM(R(FMNMX_NEG_B), R(FMNMX_ABS_B)),
        PRED(R(FMNMX_PC), R(FMNMX_PC_NEG))),
       [I(FMNMX_FTZ)] = FL(44, "FTZ"), [I(FMNMX_PC)] = OPF(39, 3), [I(FMNMX_PC_NEG)] = OPF(42, 1),
       [I(FMNMX_NEG_A)] = OPF(48, 1), [I(FMNMX_ABS_A)] = OPF(46, 1), [I(FMNMX_NEG_B)] = OPF(45, 1),
       [I(FMNMX_ABS_B)] = OPF(49, 1), [I(FMNMX_CC)] = OPN(47, 1, "CC")),
  ALU3("FSET", FSET, SASS_R_FIMM, 0x5800, 0x4800, 0x3000, 0xFF00, 0xFE00,
       (RDC(FSET_CC), RAM(R(FSET_NEG_A), R(FSET_ABS_A)), OBM(R(FSET_NEG_B), R(FSET_ABS_B)),
        PRED(R(FSET_PC), R(FSET_PC_NEG))),
       [I(FSET_BF)] = FL(52, "BF"), [I(FSET_CMP)] = EN(48, 4, N_FCMP), [I(FSET_FTZ)] = FL(55, "FTZ"),
       [I(FSET_BOP)] = EN(45, 2, N_BOP), [I(FSET_PC)] = OPF(39, 3), [I(FSET_PC_NEG)] = OPF(42, 1),
       [I(FSET_NEG_A)] = OPF(43, 1), [I(FSET_ABS_A)] = OPF(54, 1), [I(FSET_NEG_B)] = OPF(53, 1),
       [I(FSET_ABS_B)] = OPF(44, 1), [I(FSET_CC)] = OPN(47, 1, "CC")),
  ALU3("FSETP", FSETP, SASS_R_FIMM, 0x5BB0, 0x4BB0, 0x36B0, 0xFFF0, 0xFEF0,
       (PRED(R(FSETP_PD), 0), PRED(R(FSETP_PD2), 0), RAM(R(FSETP_NEG_A), R(FSETP_ABS_A)),
        OBM(R(FSETP_NEG_B), R(FSETP_ABS_B)), PRED(R(FSETP_PC), R(FSETP_PC_NEG))),
       [I(FSETP_CMP)] = EN(48, 4, N_FCMP), [I(FSETP_FTZ)] = FL(47, "FTZ"), [I(FSETP_BOP)] = EN(45, 2, N_BOP),
       [I(FSETP_PD)] = OPF(3, 3), [I(FSETP_PD2)] = OPF(0, 3), [I(FSETP_PC)] = OPF(39, 3),
       [I(FSETP_PC_NEG)] = OPF(42, 1), [I(FSETP_NEG_A)] = OPF(43, 1), [I(FSETP_ABS_A)] = OPF(7, 1),
       [I(FSETP_NEG_B)] = OPF(6, 1), [I(FSETP_ABS_B)] = OPF(44, 1)),
  /* nvdisasm prints FCMP's GT (4) as no suffix */
  ALU5("FCMP", FCMP, SASS_R_FIMM, 0x5BA0, 0x53A0, 0x4BA0, 0x36A0, 0xFFF0, 0xFEF0, (RD, RA, OB, OC),
       [I(FCMP_CMP)] = END(48, 4, 4, "F|LT|EQ|LE||NE|GE|NUM|NAN|LTU|EQU|LEU|GTU|NEU|GEU|T"),
       [I(FCMP_FTZ)] = FL(47, "FTZ")),
  ROW("MUFU", MUFU, MUFU, F_NONE, 0, 0x5080, 0xFFF8, (RD, RAM(R(MUFU_NEG_A), R(MUFU_ABS_A))),
      [I(MUFU_OP)] = EN(20, 4, "COS|SIN|EX2|LG2|RCP|RSQ|RCP64H|RSQ64H|SQRT|?|?|?|?|?|?|?"),
      [I(MUFU_SAT)] = FL(50, "SAT"), [I(MUFU_NEG_A)] = OPF(48, 1), [I(MUFU_ABS_A)] = OPF(46, 1)),
  ALU3("RRO", RRO, SASS_R_FIMM, 0x5C90, 0x4C90, 0x3890, 0xFFF8, 0xFEF8, (RD, OBM(R(RRO_NEG_B), R(RRO_ABS_B))),
       [I(RRO_OP)] = EN(39, 1, "SINCOS|EX2"), [I(RRO_NEG_B)] = OPF(45, 1), [I(RRO_ABS_B)] = OPF(49, 1)),

  /* ---- integer ---- */
  ALU3("IADD", IADD, 0, 0x5C10, 0x4C10, 0x3810, 0xFFF8, 0xFEF8,
       (RDC(IADD_CC), RAM(R(IADD_NEG_A), 0), OBM(R(IADD_NEG_B), 0)),
       [I(IADD_SAT)] = FL(50, "SAT"), [I(IADD_X)] = FL(43, "X"), [I(IADD_NEG_A)] = OPF(49, 1),
       [I(IADD_NEG_B)] = OPF(48, 1), [I(IADD_CC)] = OPN(47, 1, "CC")),
  ROW("IADD32I", IADD32I, IADD, F_IMM32, 0, 0x1C00, 0xFE00, (RDC(IADD_CC), RAM(R(IADD_NEG_A), 0), OB),
      [I(IADD_SAT)] = FL(54, "SAT"), [I(IADD_X)] = FL(53, "X"), [I(IADD_PO)] = FL(55, "PO"),
      [I(IADD_NEG_A)] = OPF(56, 1), [I(IADD_CC)] = OPN(52, 1, "CC")),
  ROW("IADD3", IADD3, IADD3, F_REG, 0, 0x5CC0, 0xFFF0,
      (RDC(IADD3_CC), {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, R(IADD3_NEG_A), 0, 0, R(IADD3_HALF_A)},
       {SASS_O_B, 0, 0, 0, 0, 0, R(IADD3_NEG_B), 0, 0, R(IADD3_HALF_B)},
       {SASS_O_C, 0, 0, 0, 0, 0, R(IADD3_NEG_C), 0, 0, R(IADD3_HALF_C)}),
      [I(IADD3_MODE)] = EN(37, 2, "|RS|LS|?"), [I(IADD3_X)] = FL(48, "X"), [I(IADD3_NEG_A)] = OPF(51, 1),
      [I(IADD3_NEG_B)] = OPF(50, 1), [I(IADD3_NEG_C)] = OPF(49, 1), [I(IADD3_HALF_A)] = OPN(35, 2, "|H0|H1|?"),
      [I(IADD3_HALF_B)] = OPN(33, 2, "|H0|H1|?"), [I(IADD3_HALF_C)] = OPN(31, 2, "|H0|H1|?"),
      [I(IADD3_CC)] = OPN(47, 1, "CC")),
  ROW("IADD3", IADD3, IADD3, SASS_FORM_CBUF, 0, 0x4CC0, 0xFFF0,
      (RDC(IADD3_CC), RAM(R(IADD3_NEG_A), 0), OBM(R(IADD3_NEG_B), 0), OCM(R(IADD3_NEG_C))),
      [I(IADD3_X)] = FL(48, "X"), [I(IADD3_NEG_A)] = OPF(51, 1), [I(IADD3_NEG_B)] = OPF(50, 1),
      [I(IADD3_NEG_C)] = OPF(49, 1), [I(IADD3_CC)] = OPN(47, 1, "CC")),
  ALU3("ISCADD", ISCADD, 0, 0x5C18, 0x4C18, 0x3818, 0xFFF8, 0xFEF8,
       (RDC(ISCADD_CC), RAM(R(ISCADD_NEG_A), 0), OBM(R(ISCADD_NEG_B), 0), IMMF(R(ISCADD_SHIFT))),
       [I(ISCADD_SHIFT)] = OPF(39, 5), [I(ISCADD_NEG_A)] = OPF(49, 1), [I(ISCADD_NEG_B)] = OPF(48, 1),
       [I(ISCADD_CC)] = OPN(47, 1, "CC")),
  ROW("ISCADD32I", ISCADD32I, ISCADD, F_IMM32, 0, 0x1400, 0xFC00, (RDC(ISCADD_CC), RA, OB, IMMF(R(ISCADD_SHIFT))),
      [I(ISCADD_SHIFT)] = OPF(53, 5), [I(ISCADD_CC)] = OPN(52, 1, "CC")),
  ALU3("IMUL", IMUL, 0, 0x5C38, 0x4C38, 0x3838, 0xFFF8, 0xFEF8, (RDC(IMUL_CC), RA, OB),
       [I(IMUL_SIGNED_A)] = END(40, 1, 1, "U32|S32"), [I(IMUL_SIGNED_B)] = END(41, 1, 1, "U32|S32"),
       [I(IMUL_HI)] = FL(39, "HI"), [I(IMUL_CC)] = OPN(47, 1, "CC")),
  ROW("IMUL32I", IMUL32I, IMUL, F_IMM32, 0, 0x1F00, 0xFF00, (RDC(IMUL_CC), RA, OB),
      [I(IMUL_SIGNED_A)] = END(54, 1, 1, "U32|S32"), [I(IMUL_SIGNED_B)] = END(55, 1, 1, "U32|S32"),
      [I(IMUL_HI)] = FL(53, "HI"), [I(IMUL_CC)] = OPN(52, 1, "CC")),
  ALU3("IMNMX", IMNMX, 0, 0x5C20, 0x4C20, 0x3820, 0xFFF8, 0xFEF8,
       (RDC(IMNMX_CC), RA, OB, PRED(R(IMNMX_PC), R(IMNMX_PC_NEG))),
       [I(IMNMX_SIGNED)] = END(48, 1, 1, "U32|"), [I(IMNMX_XMODE)] = EN(43, 2, "|XLO|XMED|XHI"),
       [I(IMNMX_PC)] = OPF(39, 3), [I(IMNMX_PC_NEG)] = OPF(42, 1), [I(IMNMX_CC)] = OPN(47, 1, "CC")),
  ALU3("ISETP", ISETP, 0, 0x5B60, 0x4B60, 0x3660, 0xFFF0, 0xFEF0,
       (PRED(R(ISETP_PD), 0), PRED(R(ISETP_PD2), 0), RA, OB, PRED(R(ISETP_PC), R(ISETP_PC_NEG))),
       [I(ISETP_CMP)] = EN(49, 3, N_ICMP), [I(ISETP_SIGNED)] = END(48, 1, 1, "U32|"), [I(ISETP_X)] = FL(43, "X"),
       [I(ISETP_BOP)] = EN(45, 2, N_BOP), [I(ISETP_PD)] = OPF(3, 3), [I(ISETP_PD2)] = OPF(0, 3),
       [I(ISETP_PC)] = OPF(39, 3), [I(ISETP_PC_NEG)] = OPF(42, 1)),
  ALU3("ISET", ISET, 0, 0x5B50, 0x4B50, 0x3650, 0xFFF0, 0xFEF0,
       (RDC(ISET_CC), RA, OB, PRED(R(ISET_PC), R(ISET_PC_NEG))),
       [I(ISET_BF)] = FL(44, "BF"), [I(ISET_CMP)] = EN(49, 3, N_ICMP), [I(ISET_SIGNED)] = END(48, 1, 1, "U32|"),
       [I(ISET_X)] = FL(43, "X"), [I(ISET_BOP)] = EN(45, 2, N_BOP), [I(ISET_PC)] = OPF(39, 3),
       [I(ISET_PC_NEG)] = OPF(42, 1), [I(ISET_CC)] = OPN(47, 1, "CC")),
  ALU5("ICMP", ICMP, 0, 0x5B40, 0x5340, 0x4B40, 0x3640, 0xFFF0, 0xFEF0, (RD, RA, OB, OC),
       [I(ICMP_CMP)] = EN(49, 3, N_ICMP), [I(ICMP_SIGNED)] = END(48, 1, 1, "U32|")),
  ALU3("LOP", LOP, 0, 0x5C40, 0x4C40, 0x3840, 0xFFF8, 0xFEF8,
       (PREDO(R(LOP_PD), 0), RDC(LOP_CC), {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, 0, 0, R(LOP_INV_A), 0},
        {SASS_O_B, 0, 0, 0, 0, 0, 0, 0, R(LOP_INV_B), 0}),
       [I(LOP_OP)] = EN(41, 2, "AND|OR|XOR|PASS_B"), [I(LOP_X)] = FL(43, "X"),
       [I(LOP_PRED_OP)] = EN(44, 2, "|T|Z|NZ"), [I(LOP_PD)] = OPD(48, 3, 7), [I(LOP_INV_A)] = OPF(39, 1),
       [I(LOP_INV_B)] = OPF(40, 1), [I(LOP_CC)] = OPN(47, 1, "CC")),
  ROW("LOP32I", LOP32I, LOP, F_IMM32, SASS_R_UIMM, 0x0400, 0xFC00,
      (RDC(LOP_CC), {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, 0, 0, R(LOP_INV_A), 0},
       {SASS_O_B, 0, 0, 0, 0, 0, 0, 0, R(LOP_INV_B), 0}),
      [I(LOP_OP)] = EN(53, 2, "AND|OR|XOR|?"), [I(LOP_X)] = FL(57, "X"), [I(LOP_INV_A)] = OPF(55, 1),
      [I(LOP_INV_B)] = OPF(56, 1), [I(LOP_CC)] = OPN(52, 1, "CC")),
  ROW("LOP3.LUT", LOP3, LOP3, F_REG, 0, 0x5BE0, 0xFFF8, (PREDO(R(LOP3_PD), 0), RDC(LOP3_CC), RA, OB, OC, IMMF(R(LOP3_LUT))),
      [I(LOP3_PRED_OP)] = EN(36, 2, "|T|Z|NZ"), [I(LOP3_X)] = FL(38, "X"), [I(LOP3_PD)] = OPD(48, 3, 7),
      [I(LOP3_LUT)] = OPF(28, 8), [I(LOP3_CC)] = OPN(47, 1, "CC")),
  ROW("LOP3.LUT", LOP3, LOP3, SASS_FORM_IMM, 0, 0x3C00, 0xFC00, (RDC(LOP3_CC), RA, OB, OC, IMMF(R(LOP3_LUT))),
      [I(LOP3_X)] = FL(57, "X"), [I(LOP3_LUT)] = OPF(48, 8), [I(LOP3_CC)] = OPN(47, 1, "CC")),
  ROW("LOP3.LUT", LOP3, LOP3, SASS_FORM_CBUF, 0, 0x0200, 0xFE00, (RDC(LOP3_CC), RA, OB, OC, IMMF(R(LOP3_LUT))),
      [I(LOP3_X)] = FL(56, "X"), [I(LOP3_LUT)] = OPF(48, 8), [I(LOP3_CC)] = OPN(47, 1, "CC")),
  ALU3("SHL", SHL, 0, 0x5C48, 0x4C48, 0x3848, 0xFFF8, 0xFEF8, (RDC(SHL_CC), RA, OB),
       [I(SHL_W)] = FL(39, "W"), [I(SHL_X)] = FL(43, "X"), [I(SHL_CC)] = OPN(47, 1, "CC")),
  ALU3("SHR", SHR, 0, 0x5C28, 0x4C28, 0x3828, 0xFFF8, 0xFEF8, (RDC(SHR_CC), RA, OB),
       [I(SHR_SIGNED)] = END(48, 1, 1, "U32|"), [I(SHR_W)] = FL(39, "W"), [I(SHR_BREV)] = FL(40, "BREV"),
       [I(SHR_XMODE)] = EN(43, 2, "|?|X|?"), [I(SHR_CC)] = OPN(47, 1, "CC")),
  ALU3("BFE", BFE, 0, 0x5C00, 0x4C00, 0x3800, 0xFFF8, 0xFEF8, (RDC(BFE_CC), RA, OB),
       [I(BFE_SIGNED)] = END(48, 1, 1, "U32|"), [I(BFE_BREV)] = FL(40, "BREV"), [I(BFE_CC)] = OPN(47, 1, "CC")),
  ALU5("BFI", BFI, 0, 0x5BF0, 0x53F0, 0x4BF0, 0x36F0, 0xFFF8, 0xFEF8, (RDC(BFI_CC), RA, OB, OC),
       [I(BFI_CC)] = OPN(47, 1, "CC")),
  ROW("XMAD", XMAD, XMAD, F_REG, 0, 0x5B00, 0xFFC0,
      (RDC(XMAD_CC), {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, 0, 0, 0, R(XMAD_H1_A)},
       {SASS_O_B, 0, 0, 0, 0, 0, 0, 0, 0, R(XMAD_H1_B)}, OC),
      [I(XMAD_SIGNS)] = EN(48, 2, "|S16.U16|U16.S16|S16.S16"), [I(XMAD_PSL)] = FL(36, "PSL"),
      [I(XMAD_MRG)] = FL(37, "MRG"), [I(XMAD_MODE)] = EN(50, 3, "|CLO|CHI|CSFU|CBCC|?|?|?"), [I(XMAD_X)] = FL(38, "X"),
      [I(XMAD_H1_A)] = OPN(53, 1, "H1"), [I(XMAD_H1_B)] = OPN(35, 1, "H1"), [I(XMAD_CC)] = OPN(47, 1, "CC")),
  ROW("XMAD", XMAD, XMAD, SASS_FORM_RC, 0, 0x5100, 0xFF80,
      (RDC(XMAD_CC), {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, 0, 0, 0, R(XMAD_H1_A)},
       {SASS_O_B, 0, 0, 0, 0, 0, 0, 0, 0, R(XMAD_H1_B)}, OC),
      [I(XMAD_SIGNS)] = EN(48, 2, "|S16.U16|U16.S16|S16.S16"), [I(XMAD_MODE)] = EN(50, 2, "|CLO|CHI|CSFU"),
      [I(XMAD_X)] = FL(54, "X"), [I(XMAD_H1_A)] = OPN(53, 1, "H1"), [I(XMAD_H1_B)] = OPN(52, 1, "H1"),
      [I(XMAD_CC)] = OPN(47, 1, "CC")),
  ROW("XMAD", XMAD, XMAD, SASS_FORM_CR, 0, 0x4E00, 0xFE00,
      (RDC(XMAD_CC), {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, 0, 0, 0, R(XMAD_H1_A)},
       {SASS_O_B, 0, 0, 0, 0, 0, 0, 0, 0, R(XMAD_H1_B)}, OC),
      [I(XMAD_SIGNS)] = EN(48, 2, "|S16.U16|U16.S16|S16.S16"), [I(XMAD_PSL)] = FL(55, "PSL"),
      [I(XMAD_MRG)] = FL(56, "MRG"), [I(XMAD_MODE)] = EN(50, 2, "|CLO|CHI|CSFU"), [I(XMAD_X)] = FL(54, "X"),
      [I(XMAD_H1_A)] = OPN(53, 1, "H1"), [I(XMAD_H1_B)] = OPN(52, 1, "H1"), [I(XMAD_CC)] = OPN(47, 1, "CC")),
  ROW("XMAD", XMAD, XMAD, SASS_FORM_IMM, SASS_R_U16, 0x3600, 0xFEC0,
      (RDC(XMAD_CC), {SASS_O_R, 8, SASS_SLOT_RA, 0, 0, 0, 0, 0, 0, R(XMAD_H1_A)}, OB, OC),
      [I(XMAD_SIGNS)] = EN(48, 2, "|S16.U16|U16.S16|S16.S16"), [I(XMAD_PSL)] = FL(36, "PSL"),
      [I(XMAD_MRG)] = FL(37, "MRG"), [I(XMAD_MODE)] = EN(50, 3, "|CLO|CHI|CSFU|CBCC|?|?|?"), [I(XMAD_X)] = FL(38, "X"),
      [I(XMAD_H1_A)] = OPN(53, 1, "H1"), [I(XMAD_CC)] = OPN(47, 1, "CC")),
  ALU3("FLO", FLO, 0, 0x5C30, 0x4C30, 0x3830, 0xFFF8, 0xFEF8,
       (RDC(FLO_CC), {SASS_O_B, 0, 0, 0, 0, 0, 0, 0, R(FLO_INV_B), 0}),
       [I(FLO_SIGNED)] = END(48, 1, 1, "U32|"), [I(FLO_SH)] = FL(41, "SH"), [I(FLO_INV_B)] = OPF(40, 1),
       [I(FLO_CC)] = OPN(47, 1, "CC")),
  ALU3("POPC", POPC, 0, 0x5C08, 0x4C08, 0x3808, 0xFFF8, 0xFEF8, (RD, {SASS_O_B, 0, 0, 0, 0, 0, 0, 0, R(POPC_INV_B), 0}),
       [I(POPC_INV_B)] = OPF(40, 1)),

  /* ---- predicates ---- */
  ROW("PSETP", PSETP, PSETP, F_NONE, 0, 0x5090, 0xFFF8,
      (PRED(R(PSETP_PD), 0), PRED(R(PSETP_PD2), 0), PRED(R(PSETP_PA), R(PSETP_PA_NEG)),
       PRED(R(PSETP_PB), R(PSETP_PB_NEG)), PRED(R(PSETP_PC), R(PSETP_PC_NEG))),
      [I(PSETP_BOP1)] = EN(24, 2, N_BOP), [I(PSETP_BOP2)] = EN(45, 2, N_BOP), [I(PSETP_PD)] = OPF(3, 3),
      [I(PSETP_PD2)] = OPF(0, 3), [I(PSETP_PA)] = OPF(12, 3), [I(PSETP_PA_NEG)] = OPF(15, 1),
      [I(PSETP_PB)] = OPF(29, 3), [I(PSETP_PB_NEG)] = OPF(32, 1), [I(PSETP_PC)] = OPF(39, 3),
      [I(PSETP_PC_NEG)] = OPF(42, 1)),
  ROW("PSET", PSET, PSET, F_NONE, 0, 0x5088, 0xFFF8,
      (RDC(PSET_CC), PRED(R(PSET_PA), R(PSET_PA_NEG)), PRED(R(PSET_PB), R(PSET_PB_NEG)),
       PRED(R(PSET_PC), R(PSET_PC_NEG))),
      [I(PSET_BF)] = FL(44, "BF"), [I(PSET_BOP1)] = EN(24, 2, N_BOP), [I(PSET_BOP2)] = EN(45, 2, N_BOP),
      [I(PSET_PA)] = OPF(12, 3), [I(PSET_PA_NEG)] = OPF(15, 1), [I(PSET_PB)] = OPF(29, 3),
      [I(PSET_PB_NEG)] = OPF(32, 1), [I(PSET_PC)] = OPF(39, 3), [I(PSET_PC_NEG)] = OPF(42, 1),
      [I(PSET_CC)] = OPN(47, 1, "CC")),

  /* ---- attributes ---- */
  ROW("ALD", ALD, ALD, F_NONE, 0, 0xEFD8, 0xFFF8,
      (RD, ATTR(R(ALD_ADDR)), {SASS_O_R, 39, SASS_SLOT_RB, SASS_OF_OPT, 0, 0, 0, 0, 0, 0}),
      [I(ALD_O)] = FL(32, "O"), [I(ALD_P)] = FL(31, "P"), [I(ALD_SIZE)] = EN(47, 2, "|64|96|128"),
      [I(ALD_ADDR)] = OPF(20, 10)),
  ROW("AST", AST, AST, F_NONE, 0, 0xEFF0, 0xFFF8,
      (ATTR(R(AST_ADDR)), {SASS_O_R, 0, SASS_SLOT_RD, 0, 0, 0, 0, 0, 0, 0},
       {SASS_O_R, 39, SASS_SLOT_RB, SASS_OF_OPT, 0, 0, 0, 0, 0, 0}),
      [I(AST_P)] = FL(31, "P"), [I(AST_SIZE)] = EN(47, 2, "|64|96|128"), [I(AST_ADDR)] = OPF(20, 10),
      [I(AST_OUT)] = MUST(32, 1, 0)),
  ROW("AL2P", AL2P, AL2P, F_NONE, 0, 0xEFA0, 0xFFF8, (PREDO(R(AL2P_PD), 0), RD, RA, IMMF(R(AL2P_ADDR))),
      [I(AL2P_O)] = FL(32, "O"), [I(AL2P_SIZE)] = EN(47, 2, "|64|96|128"), [I(AL2P_PD)] = OPD(44, 3, 7),
      [I(AL2P_ADDR)] = OPS(20, 11)),
  ROW("IPA", IPA, IPA, F_NONE, 0, 0xE000, 0xFF00,
      (RD, ATTR(R(IPA_ADDR)), {SASS_O_R, 20, SASS_SLOT_RB, SASS_OF_OPT | SASS_OF_OMIT, 0, 0, 0, 0, 0, 0},
       {SASS_O_R, 39, SASS_SLOT_RC, SASS_OF_OPT | SASS_OF_OMIT, 0, 0, 0, 0, 0, 0}),
      [I(IPA_IDX)] = FL(38, "IDX"), [I(IPA_MODE)] = END(54, 2, 1, "PASS||CONSTANT|SC"),
      [I(IPA_SAMPLE)] = EN(52, 2, "|CENTROID|OFFSET|?"), [I(IPA_SAT)] = FL(51, "SAT"), [I(IPA_ADDR)] = OPF(28, 10),
      [I(IPA_PRED)] = MUST(47, 3, 7), [I(IPA_PRED_NEG)] = MUST(50, 1, 0)),
  ROW("OUT", OUT, OUT, F_REG, 0, 0xFBE0, 0xFFF8, (RD, RA, OB), [I(OUT_TYPE)] = EN(39, 2, "?|EMIT|CUT|EMIT_THEN_CUT")),
  ROW("OUT", OUT, OUT, SASS_FORM_IMM, 0, 0xF6E0, 0xFEF8, (RD, RA, OB), [I(OUT_TYPE)] = EN(39, 2, "?|EMIT|CUT|EMIT_THEN_CUT")),
  ROW("OUT", OUT, OUT, SASS_FORM_CBUF, 0, 0xEBE0, 0xFFF8, (RD, RA, OB), [I(OUT_TYPE)] = EN(39, 2, "?|EMIT|CUT|EMIT_THEN_CUT")),
  ROW("ISBERD", ISBERD, ISBERD, F_NONE, 0, 0xEFD0, 0xFFF8, (RD, RA),
      [I(ISBERD_O)] = FL(32, "O"), [I(ISBERD_MODE)] = EN(33, 2, "|PATCH|PRIM|ATTR"), [I(ISBERD_SKEW)] = FL(31, "SKEW"),
      [I(ISBERD_SIZE)] = EN(47, 2, "|U16|B32|?")),

  /* ---- control ---- */
  ROW("BRA", BRA, BRA, F_NONE, 0, 0xE240, 0xFFF0, (FLOW(R(BRA_FLOW)), TARGET(R(BRA_OFFSET))),
      [I(BRA_U)] = FL(7, "U"), [I(BRA_LMT)] = FL(6, "LMT"), [I(BRA_FLOW)] = OPD(0, 5, 15),
      [I(BRA_CBUF)] = MUST(5, 1, 0), [I(BRA_OFFSET)] = OPS(20, 24)),
  ROW("SSY", SSY, SSY, F_NONE, SASS_R_NOGUARD, 0xE290, 0xFFF0, (TARGET(R(SSY_OFFSET))),
      [I(SSY_OFFSET)] = OPS(20, 24), [I(SSY_CBUF)] = MUST(5, 1, 0)),
  ROW("PBK", PBK, PBK, F_NONE, SASS_R_NOGUARD, 0xE2A0, 0xFFF0, (TARGET(R(PBK_OFFSET))),
      [I(PBK_OFFSET)] = OPS(20, 24), [I(PBK_CBUF)] = MUST(5, 1, 0)),
  ROW("SYNC", SYNC, SYNC, F_NONE, 0, 0xF0F8, 0xFFF8, (FLOW(R(SYNC_FLOW))), [I(SYNC_FLOW)] = OPD(0, 5, 15)),
  ROW("BRK", BRK, BRK, F_NONE, 0, 0xE340, 0xFFF0, (FLOW(R(BRK_FLOW))), [I(BRK_FLOW)] = OPD(0, 5, 15)),
  ROW("EXIT", EXIT, EXIT, F_NONE, 0, 0xE300, 0xFFF0, (FLOW(R(EXIT_FLOW))),
      [I(EXIT_KEEPREFCOUNT)] = FL(5, "KEEPREFCOUNT"), [I(EXIT_FLOW)] = OPD(0, 5, 15)),
  ROW("KIL", KIL, KIL, F_NONE, 0, 0xE330, 0xFFF0, (FLOW(R(KIL_FLOW))), [I(KIL_FLOW)] = OPD(0, 5, 15)),
  ROW("NOP", NOP, NOP, F_NONE, 0, 0x50B0, 0xFFF8, (FLOW(R(NOP_FLOW)), IMMO(R(NOP_IMM))),
      [I(NOP_TRIG)] = FL(13, "TRIG"), [I(NOP_FLOW)] = OPD(8, 5, 15), [I(NOP_IMM)] = OPF(20, 16)),
  ROW("DEPBAR", DEPBAR, DEPBAR, F_NONE, 0, 0xF0F0, 0xFFF8,
      (NAME(R(DEPBAR_SB)), IMMF(R(DEPBAR_COUNT)),
       {SASS_O_SBSET, 0, 0, SASS_OF_OPT | SASS_OF_OMIT, R(DEPBAR_WAIT), 0, 0, 0, 0, 0}),
      [I(DEPBAR_LE)] = FL(29, "LE"), [I(DEPBAR_SB)] = OPN(26, 3, "SB0|SB1|SB2|SB3|SB4|SB5|?|?"),
      [I(DEPBAR_COUNT)] = OPF(20, 6), [I(DEPBAR_WAIT)] = OPF(0, 6)),
  ROW("BAR", BAR, BAR, F_NONE, 0, 0xF0A8, 0xFFF8,
      ({SASS_O_RI, 8, SASS_SLOT_RA, 0, R(BAR_ID), R(BAR_ID_IMM), 0, 0, 0, 0},
       {SASS_O_RI, 20, SASS_SLOT_RB, SASS_OF_OPT | SASS_OF_OMIT, R(BAR_COUNT), R(BAR_COUNT_IMM), 0, 0, 0, 0},
       PREDO(R(BAR_PC), R(BAR_PC_NEG))),
      [I(BAR_MODE)] = EN(32, 3, "SYNC|ARV|RED|SCAN|SYNCALL|?|?|?"), [I(BAR_REDOP)] = EN(35, 2, "|AND|OR|?"),
      [I(BAR_ID_IMM)] = OPD(43, 1, 1), [I(BAR_ID)] = OPF(8, 8), [I(BAR_COUNT_IMM)] = OPD(44, 1, 1),
      [I(BAR_COUNT)] = OPF(20, 12), [I(BAR_PC)] = OPD(39, 3, 7), [I(BAR_PC_NEG)] = OPF(42, 1)),
  ROW("MEMBAR", MEMBAR, MEMBAR, F_NONE, 0, 0xEF98, 0xFFF8, ({0}),
      [I(MEMBAR_LEVEL)] = EN(8, 2, "CTA|GL|SYS|VC"), [I(MEMBAR_IVALL)] = EN(0, 2, "|IVALLD|IVALLT|IVALLTD")),

  /* ---- constant buffers and local memory ---- */
  ROW("LDC", LDC, LDC, F_NONE, 0, 0xEF90, 0xFFF8,
      (RD, {SASS_O_CX, 8, SASS_SLOT_RA, 0, R(LDC_BANK), R(LDC_OFFSET), 0, 0, 0, 0}),
      [I(LDC_SIZE)] = END(48, 3, 4, N_MSIZE), [I(LDC_MODE)] = EN(44, 2, "|IL|IS|ISL"), [I(LDC_BANK)] = OPF(36, 5),
      [I(LDC_OFFSET)] = OPS(20, 16)),
  ROW("LDL", LDL, LDL, F_NONE, 0, 0xEF40, 0xFFF8,
      (RD, {SASS_O_LMEM, 8, SASS_SLOT_RA, 0, R(LDL_OFFSET), 0, 0, 0, 0, 0}),
      [I(LDL_CACHE)] = EN(44, 2, "|LU|CI|CV"), [I(LDL_SIZE)] = END(48, 3, 4, N_MSIZE), [I(LDL_OFFSET)] = OPS(20, 24)),
  ROW("STL", STL, STL, F_NONE, 0, 0xEF50, 0xFFF8,
      ({SASS_O_LMEM, 8, SASS_SLOT_RA, 0, R(STL_OFFSET), 0, 0, 0, 0, 0}, {SASS_O_R, 0, SASS_SLOT_RD, 0, 0, 0, 0, 0, 0, 0}),
      [I(STL_CACHE)] = EN(44, 2, "|CG|CS|WT"), [I(STL_SIZE)] = END(48, 3, 4, N_MSIZE), [I(STL_OFFSET)] = OPS(20, 24)),

  /* ---- textures ---- */
  ROW("TEX", TEX, TEX, F_NONE, 0, 0xC038, 0xFC38,
      (RD, RA, RB20, IMMF(R(TEX_INDEX)), NAME(R(TEX_DIM)), IMMF(R(TEX_WMASK))),
      [I(TEX_LOD)] = EN(55, 3, "|LZ|LB|LL|?|?|LBA|LLA"), [I(TEX_AOFFI)] = FL(54, "AOFFI"), [I(TEX_DC)] = FL(50, "DC"),
      [I(TEX_NDV)] = FL(35, "NDV"), [I(TEX_NODEP)] = FL(49, "NODEP"), [I(TEX_INDEX)] = OPF(36, 13),
      [I(TEX_DIM)] = OPN2(29, 2, 28, 1, 1, N_DIM), [I(TEX_WMASK)] = OPD(31, 4, 15)),
  ROW("TEX.B", TEX, TEX, F_NONE, 0, 0xDEB8, 0xFFF8,
      (RD, RA, RB20, {SASS_O_ZERO, 0, 0, 0, 0, 0, 0, 0, 0, 0}, NAME(R(TEX_DIM)), IMMF(R(TEX_WMASK))),
      [I(TEX_LOD)] = EN(37, 3, "|LZ|LB|LL|?|?|LBA|LLA"), [I(TEX_AOFFI)] = FL(36, "AOFFI"), [I(TEX_DC)] = FL(50, "DC"),
      [I(TEX_NDV)] = FL(35, "NDV"), [I(TEX_NODEP)] = FL(49, "NODEP"),
      [I(TEX_DIM)] = OPN2(29, 2, 28, 1, 1, N_DIM), [I(TEX_WMASK)] = OPD(31, 4, 15)),
  /* rc holds the second destination (bits 28-35, printed first) */
  ROW("TEXS", TEXS, TEXS, F_NONE, 0, 0xD000, 0xF600,
      ({SASS_O_R, 28, SASS_SLOT_RC, SASS_OF_DST, 0, 0, 0, 0, 0, 0}, RD, RA,
       {SASS_O_R, 20, SASS_SLOT_RB, SASS_OF_OPT | SASS_OF_OMIT, 0, 0, 0, 0, 0, 0}, IMMF(R(TEXS_INDEX)),
       {SASS_O_TDIM, 0, 0, 0, R(TEXS_TARGET), 0, 0, 0, 0, 0}, {SASS_O_TMASK, 28, 0, 0, R(TEXS_MASK), 0, 0, 0, 0, 0}),
      [I(TEXS_TARGET)] = EN(53, 4, N_TEXS), [I(TEXS_NODEP)] = FL(49, "NODEP"), [I(TEXS_F32)] = END(59, 1, 1, "F16|"),
      [I(TEXS_INDEX)] = OPF(36, 13), [I(TEXS_MASK)] = OPF(50, 3)),
  ROW("TLDS", TLDS, TLDS, F_NONE, 0, 0xD200, 0xF600,
      ({SASS_O_R, 28, SASS_SLOT_RC, SASS_OF_DST, 0, 0, 0, 0, 0, 0}, RD, RA,
       {SASS_O_R, 20, SASS_SLOT_RB, SASS_OF_OPT | SASS_OF_OMIT, 0, 0, 0, 0, 0, 0}, IMMF(R(TLDS_INDEX)),
       {SASS_O_TDIM, 0, 0, 0, R(TLDS_TARGET), 0, 0, 0, 0, 0}, {SASS_O_TMASK, 28, 0, 0, R(TLDS_MASK), 0, 0, 0, 0, 0}),
      [I(TLDS_TARGET)] = EN(53, 4, N_TLDS), [I(TLDS_NODEP)] = FL(49, "NODEP"), [I(TLDS_F32)] = END(59, 1, 1, "F16|"),
      [I(TLDS_INDEX)] = OPF(36, 13), [I(TLDS_MASK)] = OPF(50, 3)),
  ROW("TLD", TLD, TLD, F_NONE, 0, 0xDC38, 0xFF38,
      (RD, RA, RB20, IMMF(R(TLD_INDEX)), NAME(R(TLD_DIM)), IMMF(R(TLD_WMASK))),
      [I(TLD_LOD)] = EN(55, 1, "LZ|LL"), [I(TLD_AOFFI)] = FL(35, "AOFFI"), [I(TLD_MS)] = FL(50, "MS"),
      [I(TLD_CL)] = FL(54, "CL"), [I(TLD_NODEP)] = FL(49, "NODEP"), [I(TLD_INDEX)] = OPF(36, 13),
      [I(TLD_DIM)] = OPN2(29, 2, 28, 1, 1, N_DIM), [I(TLD_WMASK)] = OPD(31, 4, 15)),
};

const unsigned sass_table_len = sizeof sass_table / sizeof sass_table[0];

/* the frame and the forms (table.h) */
const sass_field sass_f_guard = OPF(16, 3), sass_f_guard_neg = OPF(19, 1), sass_f_rb = OPF(20, 8),
                 sass_f_rc = OPF(39, 8), sass_f_cb_word = OPF(20, 14), sass_f_cb_bank = OPF(34, 5),
                 sass_f_imm20 = {20, 19, 56, 1, SASS_P_OPER, SASS_F_SIGNED, 0, 0}, sass_f_imm16 = OPF(20, 16),
                 sass_f_imm32 = OPF(20, 32);
const sass_field sass_c_stall = OPF(0, 4), sass_c_yield = OPF(4, 1), sass_c_wr = OPF(5, 3), sass_c_rd = OPF(8, 3),
                 sass_c_wait = OPF(11, 6), sass_c_reuse = OPF(17, 4);

/* ---- lookups ------------------------------------------------------------------ */

static const char *const op_names[] = {
#define SASS_OP_NAME(n) #n,
  SASS_OPS(SASS_OP_NAME)
#undef SASS_OP_NAME
};

const char *sass_op_name(unsigned op) { return op < SASS_OP_COUNT ? op_names[op] : "?"; }

static int popcount16(unsigned m) {
  int n = 0;
  for (; m; m &= m - 1) n++;
  return n;
}

int sass_row_of(uint64_t w) {
  unsigned top = (unsigned)(w >> SASS_KEY_POS);
  int best = -1, best_bits = -1;
  for (unsigned i = 0; i < sass_table_len; i++) {
    const sass_row *r = &sass_table[i];
    if ((top & r->mask) != r->key) continue;
    int b = popcount16(r->mask);
    if (b > best_bits) best = (int)i, best_bits = b;
  }
  return best;
}

uint64_t sass_row_bits(const sass_row *r) {
  uint64_t m = (uint64_t)r->mask << SASS_KEY_POS;
  uint64_t cbuf = sass_field_mask(&sass_f_cb_word) | sass_field_mask(&sass_f_cb_bank);
  if (!(r->flags & SASS_R_NOGUARD)) m |= sass_field_mask(&sass_f_guard) | sass_field_mask(&sass_f_guard_neg);
  for (unsigned k = 0; k < SASS_MOD_MAX; k++)
    if (r->fld[k].print) m |= sass_field_mask(&r->fld[k]);
  for (unsigned k = 0; k < SASS_OPND_MAX; k++) {
    const sass_opnd *o = &r->opnd[k];
    switch (o->kind) {
    case SASS_O_R: case SASS_O_ATTR: case SASS_O_CX: case SASS_O_LMEM: case SASS_O_RI:
      m |= (uint64_t)0xFF << o->pos;
      break;
    case SASS_O_B:
      switch (r->form) {
      case SASS_FORM_REG: m |= sass_field_mask(&sass_f_rb); break;
      case SASS_FORM_CBUF: case SASS_FORM_CR: m |= cbuf; break;
      case SASS_FORM_IMM: m |= sass_field_mask((r->flags & SASS_R_U16) ? &sass_f_imm16 : &sass_f_imm20); break;
      case SASS_FORM_IMM32: m |= sass_field_mask(&sass_f_imm32); break;
      case SASS_FORM_RC: m |= sass_field_mask(&sass_f_rc); break;
      }
      break;
    case SASS_O_C:
      m |= r->form == SASS_FORM_RC ? cbuf : sass_field_mask(&sass_f_rc);
      break;
    }
  }
  return m;
}

/* Instructions gpusim knows by name but does not run. */
static const struct {
  const char *name;
  uint16_t key, mask;
} unsupported[] = {
  {"CAL", 0xE260, 0xFFF0},    {"RET", 0xE320, 0xFFF0},   {"PCNT", 0xE2B0, 0xFFF0},  {"CONT", 0xE350, 0xFFF0},
  {"JCAL", 0xE220, 0xFFF0},   {"JMP", 0xE210, 0xFFF0},   {"BRX", 0xE250, 0xFFF0},   {"JMX", 0xE200, 0xFFF0},
  {"PRET", 0xE270, 0xFFF0},   {"PEXIT", 0xE230, 0xFFF0}, {"LONGJMP", 0xE310, 0xFFF0},
  {"PLONGJMP", 0xE280, 0xFFF0}, {"TLD4", 0xC800, 0xFC00}, {"TLD4S", 0xDF00, 0xFF00}, {"TLD.B", 0xDD38, 0xFF38},
  {"TEX with a predicate destination", 0xC000, 0xF800}, {"TXQ", 0xDF48, 0xFFF8}, {"TXQ.B", 0xDF50, 0xFFF8},
  {"TMML", 0xDF60, 0xFFF8},   {"TXD", 0xDE38, 0xFC38},   {"LDS", 0xEF48, 0xFFF8},   {"STS", 0xEF58, 0xFFF8},
  {"LDG", 0xEED0, 0xFFF8},    {"STG", 0xEED8, 0xFFF8},   {"LD", 0x8000, 0xE000},    {"ST", 0xA000, 0xE000},
  {"ATOM", 0xED00, 0xFF00},   {"ATOMS", 0xEC00, 0xFF00}, {"RED", 0xEBF8, 0xFFF8},   {"SHFL", 0xEF10, 0xFFF8},
  {"VOTE", 0x50D8, 0xFFF8},   {"DADD", 0x5C70, 0xFFF8},  {"DADD", 0x4C70, 0xFFF8},  {"DADD", 0x3870, 0xFEF8},
  {"DMUL", 0x5C80, 0xFFF8},   {"DMUL", 0x4C80, 0xFFF8},  {"DMUL", 0x3880, 0xFEF8},  {"DFMA", 0x5B70, 0xFFF0},
  {"DFMA", 0x4B70, 0xFFF0},   {"DFMA", 0x5370, 0xFFF0},  {"DFMA", 0x3670, 0xFEF0},  {"DSETP", 0x5B80, 0xFFF0},
  {"DSET", 0x5900, 0xFF80},   {"DMNMX", 0x5C50, 0xFFF8}, {"IMAD", 0x5A00, 0xFF80},  {"IMAD", 0x4A00, 0xFF80},
  {"IMAD", 0x5200, 0xFF80},   {"IMAD", 0x3400, 0xFE80},
  {"SHF", 0x5CF8, 0xFFF8},    {"SHF", 0x5BF8, 0xFFF8},   {"PRMT", 0x5BC0, 0xFFF8},  {"LEA", 0x5BD0, 0xFFF0},
  {"CSETP", 0x50A0, 0xFFF8},  {"CSET", 0x5098, 0xFFF8},  {"VMNMX", 0x3A00, 0xFE00}, {"VADD", 0x2000, 0xF800},
  {"HADD2", 0x5D10, 0xFFF8},  {"HMUL2", 0x5D08, 0xFFF8}, {"HFMA2", 0x5D00, 0xFFF8}, {"FCHK", 0x5C88, 0xFFF8},
  {"CCTL", 0xEF60, 0xFFF8},   {"SULD", 0xEB00, 0xFFE0},  {"SUST", 0xEB20, 0xFFE0},  {"PIXLD", 0xEFE8, 0xFFF8},
};

const char *sass_unsupported_name(uint64_t w) {
  unsigned top = (unsigned)(w >> SASS_KEY_POS);
  const char *best = NULL;
  int best_bits = -1;
  for (unsigned i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
    if ((top & unsupported[i].mask) != unsupported[i].key) continue;
    int b = popcount16(unsupported[i].mask);
    if (b > best_bits) best = unsupported[i].name, best_bits = b;
  }
  return best;
}

/* ---- names ---------------------------------------------------------------------- */

int sass_name(const char *names, unsigned v, const char **s, size_t *len) {
  if (!names) return 0;
  const char *p = names;
  for (unsigned i = 0; i < v; i++) {
    p = strchr(p, '|');
    if (!p) return 0;
    p++;
  }
  size_t n = strcspn(p, "|");
  if (n == 1 && *p == '?') return 0;
  *s = p;
  *len = n;
  return 1;
}

static const char *const flow_names[32] = {
  "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", NULL,
  "OFF", "LO", "SFF", "LS", "HI", "SFT", "HS", "OFT", "CSM_TA", "CSM_TR", "CSM_MX", "FCSM_TA", "FCSM_TR",
  "FCSM_MX", "RLE", "RGT"};

const char *sass_flow_name(unsigned v) { return v < 32 ? flow_names[v] : NULL; }

static const char *const sr_names[0x54] = {
  [0x00] = "SR_LANEID", [0x01] = "SR_CLOCK", [0x02] = "SR_VIRTCFG", [0x03] = "SR_VIRTID",
  [0x04] = "SR_PM0", [0x05] = "SR_PM1", [0x06] = "SR_PM2", [0x07] = "SR_PM3", [0x08] = "SR_PM4",
  [0x09] = "SR_PM5", [0x0a] = "SR_PM6", [0x0b] = "SR_PM7", [0x0f] = "SR_ORDERING_TICKET",
  [0x10] = "SR_PRIM_TYPE", [0x11] = "SR_INVOCATION_ID", [0x12] = "SR_Y_DIRECTION", [0x13] = "SR_THREAD_KILL",
  [0x14] = "SR_SHADER_TYPE", [0x15] = "SR_DIRECTCBEWRITEADDRESSLOW", [0x16] = "SR_DIRECTCBEWRITEADDRESSHIGH",
  [0x17] = "SR_DIRECTCBEWRITEENABLED", [0x18] = "SR_MACHINE_ID_0", [0x19] = "SR_MACHINE_ID_1",
  [0x1a] = "SR_MACHINE_ID_2", [0x1b] = "SR_MACHINE_ID_3", [0x1c] = "SR_AFFINITY", [0x1d] = "SR_INVOCATION_INFO",
  [0x1e] = "SR_WSCALEFACTOR_XY", [0x1f] = "SR_WSCALEFACTOR_Z", [0x20] = "SR_TID", [0x21] = "SR_TID.X",
  [0x22] = "SR_TID.Y", [0x23] = "SR_TID.Z", [0x24] = "SR_CTA_PARAM", [0x25] = "SR_CTAID.X", [0x26] = "SR_CTAID.Y",
  [0x27] = "SR_CTAID.Z", [0x28] = "SR_NTID", [0x29] = "SR_CIRQUEUEINCRMINUSONE", [0x2a] = "SR_NLATC",
  [0x38] = "SR_EQMASK", [0x39] = "SR_LTMASK", [0x3a] = "SR_LEMASK", [0x3b] = "SR_GTMASK", [0x3c] = "SR_GEMASK",
  [0x3d] = "SR_REGALLOC", [0x50] = "SR_CLOCKLO", [0x51] = "SR_CLOCKHI", [0x52] = "SR_GLOBALTIMERLO",
  [0x53] = "SR_GLOBALTIMERHI"};

const char *sass_sr_name(unsigned v) { return v < sizeof sr_names / sizeof sr_names[0] ? sr_names[v] : NULL; }

/* ---- scheduling ---------------------------------------------------------------- */

void sass_sched_text(uint32_t c, char out[32]) {
  char b[7];
  uint32_t wait = sass_field_get(&sass_c_wait, c);
  for (int k = 0; k < 6; k++) b[k] = (wait >> k) & 1 ? (char)('0' + k) : '-';
  b[6] = 0;
  unsigned rd = sass_field_get(&sass_c_rd, c), wr = sass_field_get(&sass_c_wr, c);
  snprintf(out, 32, "[B%s:R%c:W%c:%c:S%02u:U%x]", b, rd == 7 ? '-' : (char)('0' + rd),
           wr == 7 ? '-' : (char)('0' + wr), sass_field_get(&sass_c_yield, c) ? 'Y' : '-',
           sass_field_get(&sass_c_stall, c), sass_field_get(&sass_c_reuse, c));
}

/* Variable-latency instructions: their results (and the sources they read
 * late) are tracked by scoreboards, not by the stall count. */
static int variable_latency(unsigned op) {
  switch (op) {
  case SASS_OP_S2R: case SASS_OP_MUFU: case SASS_OP_ALD: case SASS_OP_AST: case SASS_OP_AL2P: case SASS_OP_IPA:
  case SASS_OP_ISBERD: case SASS_OP_LDC: case SASS_OP_LDL: case SASS_OP_STL: case SASS_OP_TEX: case SASS_OP_TEXS:
  case SASS_OP_TLDS: case SASS_OP_TLD: case SASS_OP_BAR: case SASS_OP_MEMBAR: case SASS_OP_OUT:
    return 1;
  default:
    return 0;
  }
}

/* Conservative: every instruction stalls 15 cycles and waits on scoreboards
 * 0 and 1; a variable-latency one sets write barrier 0 and read barrier 1. */
uint32_t sass_sched_default(const sass_row *r) {
  int var = r && variable_latency(r->op);
  uint64_t c = sass_field_put(&sass_c_stall, 0, 15);
  c = sass_field_put(&sass_c_wait, c, 3);
  c = sass_field_put(&sass_c_wr, c, var ? 0 : 7);
  return (uint32_t)sass_field_put(&sass_c_rd, c, var ? 1 : 7);
}
