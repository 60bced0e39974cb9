/* table.c — the PICA200 instruction table (table.h): formats, opcodes and
 * operand-descriptor fields, after 3dbrew's "GPU/Shader Instruction Set" and
 * GBATEK's opcode summary. */
#include "isa/pica/table.h"

#define F(lo, hi) {(lo), (hi) - (lo) + 1}
#define NONE {0, 0}

/* Bits below 26 with no meaning in the formats that leave them unused. */
const pica_layout pica_layouts[PICA_NFMT] = {
    [PICA_F0] = {.name = "0", .opcode = F(26, 31), .unused = 0x03FFFFFFu},
    [PICA_F1] = {.name = "1", .opcode = F(26, 31), .dst = F(21, 25), .idx = F(19, 20), .desc = F(0, 6),
                 .src = {F(12, 18), F(7, 11), NONE}, .nsrc = 2, .wide = 1},
    [PICA_F1I] = {.name = "1i", .opcode = F(26, 31), .dst = F(21, 25), .idx = F(19, 20), .desc = F(0, 6),
                  .src = {F(14, 18), F(7, 13), NONE}, .nsrc = 2, .wide = 2},
    [PICA_F1U] = {.name = "1u", .opcode = F(26, 31), .dst = F(21, 25), .idx = F(19, 20), .desc = F(0, 6),
                  .src = {F(12, 18), NONE, NONE}, .nsrc = 1, .wide = 1, .unused = 0x00000F80u},
    [PICA_F1C] = {.name = "1c", .opcode = F(27, 31), .cmpx = F(24, 26), .cmpy = F(21, 23), .idx = F(19, 20),
                  .desc = F(0, 6), .src = {F(12, 18), F(7, 11), NONE}, .nsrc = 2, .wide = 1},
    [PICA_F2] = {.name = "2", .opcode = F(26, 31), .num = F(0, 7), .target = F(10, 21), .condop = F(22, 23),
                 .refy = F(24, 24), .refx = F(25, 25), .unused = 0x00000300u},
    [PICA_F3] = {.name = "3", .opcode = F(26, 31), .num = F(0, 7), .target = F(10, 21), .uid = F(22, 25),
                 .unused = 0x00000300u},
    [PICA_F4] = {.name = "4", .opcode = F(26, 31), .winding = F(22, 22), .prim = F(23, 23), .vtxid = F(24, 25),
                 .unused = 0x003FFFFFu},
    [PICA_F5] = {.name = "5", .opcode = F(29, 31), .dst = F(24, 28), .idx = F(22, 23), .desc = F(0, 4),
                 .src = {F(17, 21), F(10, 16), F(5, 9)}, .nsrc = 3, .wide = 2},
    [PICA_F5I] = {.name = "5i", .opcode = F(29, 31), .dst = F(24, 28), .idx = F(22, 23), .desc = F(0, 4),
                  .src = {F(17, 21), F(12, 16), F(5, 11)}, .nsrc = 3, .wide = 3},
};

#define OP(n, f) {(n), (f)}
#define MADI OP("madi", PICA_F5I)
#define MAD OP("mad", PICA_F5)

/* 0x10, 0x11, 0x14-0x17 and 0x1C-0x1F: no source knows them. picasso calls
 * LOOP "for". */
const pica_opinfo pica_ops[64] = {
    OP("add", PICA_F1),     OP("dp3", PICA_F1),    OP("dp4", PICA_F1),    OP("dph", PICA_F1),
    OP("dst", PICA_F1),     OP("ex2", PICA_F1U),   OP("lg2", PICA_F1U),   OP("litp", PICA_F1U),
    OP("mul", PICA_F1),     OP("sge", PICA_F1),    OP("slt", PICA_F1),    OP("flr", PICA_F1U),
    OP("max", PICA_F1),     OP("min", PICA_F1),    OP("rcp", PICA_F1U),   OP("rsq", PICA_F1U),
    OP(0, 0),               OP(0, 0),              OP("mova", PICA_F1U),  OP("mov", PICA_F1U),
    OP(0, 0),               OP(0, 0),              OP(0, 0),              OP(0, 0),
    OP("dphi", PICA_F1I),   OP("dsti", PICA_F1I),  OP("sgei", PICA_F1I),  OP("slti", PICA_F1I),
    OP(0, 0),               OP(0, 0),              OP(0, 0),              OP(0, 0),
    OP("break", PICA_F0),   OP("nop", PICA_F0),    OP("end", PICA_F0),    OP("breakc", PICA_F2),
    OP("call", PICA_F2),    OP("callc", PICA_F2),  OP("callu", PICA_F3),  OP("ifu", PICA_F3),
    OP("ifc", PICA_F2),     OP("for", PICA_F3),    OP("emit", PICA_F0),   OP("setemit", PICA_F4),
    OP("jmpc", PICA_F2),    OP("jmpu", PICA_F3),   OP("cmp", PICA_F1C),   OP("cmp", PICA_F1C),
    MADI, MADI, MADI, MADI, MADI, MADI, MADI, MADI,
    MAD,  MAD,  MAD,  MAD,  MAD,  MAD,  MAD,  MAD,
};

/* Operand descriptor: bit 3 x, 2 y, 1 z, 0 w write enables; SRC1 negate 4,
 * selector 5-12; SRC2 negate 13, selector 14-21; SRC3 negate 22, selector
 * 23-30; bit 31 unknown (ignored). */
const pica_field pica_od_mask = F(0, 3);
const pica_field pica_od_neg[3] = {F(4, 4), F(13, 13), F(22, 22)};
const pica_field pica_od_swz[3] = {F(5, 12), F(14, 21), F(23, 30)};

const char *pica_op_name(unsigned op) { return op < 64 ? pica_ops[op].name : NULL; }
