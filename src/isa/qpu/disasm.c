/* disasm.c — the QPU disassembler: 64-bit instruction words to the text
 * syntax of docs/qpu.md.
 *
 * Names and codes come from the instruction table (table.h). Each word is
 * printed as what it means ("or ra0, vpm, -"); that text is then assembled
 * back, and every field where the result differs from the word is appended
 * as a raw override ("{mul_a=6, mul_b=7}"), so that the text of every valid
 * word assembles to exactly that word. Invalid words become ".word lo, hi".
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpusim/qpu.h"
#include "isa/qpu/table.h"

#if defined(__GNUC__)
#define DIS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DIS_PRINTF(f, a)
#endif

/* Small-immediate codes 48..63 rotate the MUL result: 48 by r5, 49..63 by
 * 1..15 (table.h, RG Table 5; rotation: RG §3). */
#define ROTATE_BY_R5 48
#define TEXT_MAX 512 /* longest line: every ALU field overridden fits easily */

typedef struct text {
  char s[TEXT_MAX];
  size_t len;
} text;

static void put(text *t, const char *fmt, ...) DIS_PRINTF(2, 3);
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->s + t->len, sizeof t->s - t->len, fmt, ap);
  va_end(ap);
  if (n > 0) t->len += (size_t)n;
  if (t->len >= sizeof t->s) t->len = sizeof t->s - 1;
}

static unsigned get(uint64_t w, int f) { return qpu_get(w, f); }

/* ---- operands -------------------------------------------------------------- */

/* A small immediate as the assembler reads it: an integer, or a float
 * literal for the powers of two (codes 32..47). */
static void put_small_imm(text *t, unsigned code) {
  uint32_t v = qpu_small_imm_value(code);
  if (code >= 32 && code < ROTATE_BY_R5) {
    char num[32];
    float f;
    memcpy(&f, &v, sizeof f);
    snprintf(num, sizeof num, "%.8g", (double)f);
    put(t, "%s%s", num, strchr(num, '.') ? "" : ".0");
  } else {
    put(t, "%d", (int)(int32_t)v);
  }
}

/* The source a mux selects, with the unpack that applies to it: regfile-A
 * unpack (pm=0) on raddr_a reads, r4 unpack (pm=1) on r4. */
static void put_source(text *t, uint64_t w, unsigned mux) {
  unsigned pm = get(w, QPU_F_PM), unpack = get(w, QPU_F_UNPACK);
  if (mux == QPU_MUX_A) {
    put(t, "%s", qpu_raddr_names[0][get(w, QPU_F_RADDR_A)]);
  } else if (mux == QPU_MUX_B) {
    if (get(w, QPU_F_SIG) == QPU_SIG_SMALL_IMM)
      put_small_imm(t, get(w, QPU_F_RADDR_B));
    else
      put(t, "%s", qpu_raddr_names[1][get(w, QPU_F_RADDR_B)]);
    return;
  } else {
    put(t, "r%u", mux - QPU_MUX_R0);
  }
  if (unpack && (mux == QPU_MUX_A ? !pm : mux == QPU_MUX_R4 && pm))
    put(t, ".%s", qpu_unpack_names[unpack]);
}

/* An ALU's destination (by ws, RG Table 14) and its pack when the
 * assembler reads the suffix back the same way: a regfile-A pack (pm=0) on
 * the ALU that writes ra0..ra31, the MUL colour pack (pm=1) on a MUL that
 * does not. Other pack/pm combinations are left to the overrides. */
static void put_dest(text *t, uint64_t w, int is_mul) {
  unsigned side = get(w, QPU_F_WS) ^ (unsigned)is_mul;
  unsigned addr = get(w, is_mul ? QPU_F_WADDR_MUL : QPU_F_WADDR_ADD);
  unsigned pm = get(w, QPU_F_PM), pack = get(w, QPU_F_PACK);
  int regfile_a = side == 0 && addr < 32;
  put(t, "%s", qpu_waddr_names[side][addr]);
  if (pack && !pm && regfile_a)
    put(t, ".%s", qpu_pack_names[pack]);
  else if (pack && pm && is_mul && !regfile_a)
    put(t, ".%s", qpu_mul_pack_names[pack]);
}

/* ---- instructions ----------------------------------------------------------- */

/* The mnemonic an ALU op is printed with: "mov" for or / v8min of one
 * source twice, "nop" for op 0. */
static const char *op_name(uint64_t w, int is_mul) {
  unsigned op = get(w, is_mul ? QPU_F_OP_MUL : QPU_F_OP_ADD);
  unsigned a = get(w, is_mul ? QPU_F_MUL_A : QPU_F_ADD_A), b = get(w, is_mul ? QPU_F_MUL_B : QPU_F_ADD_B);
  if (op == (is_mul ? (unsigned)QPU_M_V8MIN : (unsigned)QPU_A_OR) && a == b) return "mov";
  return is_mul ? qpu_mul_ops[op].name : qpu_add_ops[op].name;
}

/* name[.cond][.setf] dst[.pack], a[, b][ >> n] of a non-nop ALU op. The
 * flags come from the ADD op unless it is nop (RG Tables 1-2), so
 * .setf is printed on that op. */
static void put_op(text *t, uint64_t w, int is_mul) {
  const char *name = op_name(w, is_mul);
  unsigned op = get(w, is_mul ? QPU_F_OP_MUL : QPU_F_OP_ADD);
  unsigned a = get(w, is_mul ? QPU_F_MUL_A : QPU_F_ADD_A), b = get(w, is_mul ? QPU_F_MUL_B : QPU_F_ADD_B);
  unsigned cond = get(w, is_mul ? QPU_F_COND_MUL : QPU_F_COND_ADD);
  int unary = strcmp(name, "mov") == 0 || (!is_mul && qpu_add_ops[op].operands == 1);
  int flags_here = is_mul ? get(w, QPU_F_OP_ADD) == QPU_A_NOP : 1;
  put(t, "%s", name);
  if (cond != 1) put(t, ".%s", qpu_cond_names[cond]);
  if (get(w, QPU_F_SF) && flags_here) put(t, ".setf");
  put(t, " ");
  put_dest(t, w, is_mul);
  put(t, ", ");
  put_source(t, w, a);
  if (!unary || b != a) {
    put(t, ", ");
    put_source(t, w, b);
  }
  unsigned code = get(w, QPU_F_RADDR_B);
  if (is_mul && get(w, QPU_F_SIG) == QPU_SIG_SMALL_IMM && code >= ROTATE_BY_R5) {
    if (code == ROTATE_BY_R5)
      put(t, " >> r5");
    else
      put(t, " >> %u", code - ROTATE_BY_R5);
  }
}

/* Whether a mnemonic written alone would be taken as the MUL part. */
static int mul_only(const char *name) {
  for (int i = 0; i < 32; i++)
    if (strcmp(qpu_add_ops[i].name, name) == 0) return 0;
  return strcmp(name, "mov") != 0;
}

/* <add> [; <mul>] [; <signal>], leaving out nop parts the assembler adds. */
static void put_alu(text *t, uint64_t w) {
  int add = get(w, QPU_F_OP_ADD) != QPU_A_NOP, mul = get(w, QPU_F_OP_MUL) != QPU_M_NOP;
  unsigned sig = get(w, QPU_F_SIG);
  int has_sig = sig != QPU_SIG_NONE && sig != QPU_SIG_SMALL_IMM;
  const char *sep = "";
  if (add)
    put_op(t, w, 0), sep = " ; ";
  else if (mul && !mul_only(op_name(w, 1)))
    put(t, "nop"), sep = " ; ";
  if (mul) put(t, "%s", sep), put_op(t, w, 1), sep = " ; ";
  if (has_sig) put(t, "%s%s", sep, qpu_sig_names[sig]);
  if (!add && !mul && !has_sig) put(t, "nop");
}

/* ldi[.cond][.setf][.pes|.peu] dst, value [; ldi[.cond] dst2], or the
 * semaphore form sacq/srel n (RG §3). */
static void put_ldi(text *t, uint64_t w) {
  unsigned type = get(w, QPU_F_LDI_TYPE), imm = get(w, QPU_F_IMM);
  unsigned cond_add = get(w, QPU_F_COND_ADD), cond_mul = get(w, QPU_F_COND_MUL);
  if (type == QPU_LDI_SEMA) {
    put(t, "%s %u", get(w, QPU_F_SEM_SA) ? "sacq" : "srel", get(w, QPU_F_SEM_NUM));
    return;
  }
  put(t, "ldi");
  if (cond_add != 1) put(t, ".%s", qpu_cond_names[cond_add]);
  if (get(w, QPU_F_SF)) put(t, ".setf");
  if (type != QPU_LDI_32) put(t, type == QPU_LDI_PES ? ".pes" : ".peu");
  put(t, " ");
  put_dest(t, w, 0);
  if (type == QPU_LDI_32) {
    put(t, ", 0x%x", imm);
  } else {
    for (unsigned i = 0; i < 16; i++) {
      int v = (int)((imm >> i & 1u) | (imm >> (16 + i) & 1u) << 1);
      if (type == QPU_LDI_PES && v > 1) v -= 4;
      put(t, "%s%d", i ? ", " : ", [", v);
    }
    put(t, "]");
  }
  if (get(w, QPU_F_WADDR_MUL) != QPU_W_NOP || cond_mul != 0) {
    put(t, " ; ldi");
    if (cond_mul != 1) put(t, ".%s", qpu_cond_names[cond_mul]);
    put(t, " ");
    put_dest(t, w, 1);
  }
}

/* bra|brr[.cond] [link, ]target. `label` (NULL: none) replaces a raw
 * target; a misaligned immediate is printed rounded down and restored by
 * the {imm=...} override. */
static void put_branch(text *t, uint64_t w, const char *label) {
  unsigned cond = get(w, QPU_F_COND_BR), rel = get(w, QPU_F_REL), reg = get(w, QPU_F_REG);
  unsigned link = get(w, QPU_F_WADDR_ADD);
  uint32_t imm = get(w, QPU_F_IMM) & ~7u;
  put(t, "%s", rel ? "brr" : "bra");
  if (qpu_branch_cond_names[cond][0] && strcmp(qpu_branch_cond_names[cond], "always") != 0)
    put(t, ".%s", qpu_branch_cond_names[cond]);
  put(t, " ");
  if (link != QPU_W_NOP || reg) put(t, "%s, ", qpu_waddr_names[get(w, QPU_F_WS)][link]);
  if (reg) {
    put(t, "%s", qpu_raddr_names[0][get(w, QPU_F_RADDR_A_BR)]);
    if (!imm) return;
    put(t, ", ");
  }
  if (label)
    put(t, "%s", label);
  else if (rel)
    put(t, "%c0x%x", (int32_t)imm < 0 ? '-' : '+', (int32_t)imm < 0 ? 0u - imm : imm);
  else
    put(t, "0x%x", imm);
}

static void put_meaning(text *t, uint64_t w, const char *label) {
  unsigned sig = get(w, QPU_F_SIG);
  if (sig == QPU_SIG_BRANCH)
    put_branch(t, w, label);
  else if (sig == QPU_SIG_LOAD_IMM)
    put_ldi(t, w);
  else
    put_alu(t, w);
}

/* " {field=value, ...}" for every field of w's form where `got` differs.
 * Fields are taken in table order, skipping those inside an earlier one
 * (sem_sa/sem_num inside imm), so they partition the word. */
static void put_overrides(text *t, uint64_t w, uint64_t got) {
  unsigned sig = get(w, QPU_F_SIG);
  int form = sig == QPU_SIG_BRANCH ? QF_BR : sig == QPU_SIG_LOAD_IMM ? QF_LDI : QF_ALU;
  uint64_t covered = 0;
  const char *sep = " {";
  for (int f = 0; f < QPU_F_COUNT; f++) {
    const qpu_field_desc *d = &qpu_fields[f];
    uint64_t mask = ((UINT64_C(1) << d->width) - 1) << d->lo;
    if (!(d->forms & form) || (covered & mask)) continue;
    covered |= mask;
    if (qpu_get(w, f) == qpu_get(got, f)) continue;
    put(t, d->width > 8 ? "%s%s=0x%x" : "%s%s=%u", sep, d->name, qpu_get(w, f));
    sep = ", ";
  }
  if (sep[0] == ',') put(t, "}");
}

/* The exact text of w (see the file header); `label` as for put_branch. */
static void disasm_insn(text *t, uint64_t w, const char *label) {
  const char *why = qpu_invalid_reason(w);
  text meaning = {{0}, 0};
  uint64_t got;
  gs_diag d;
  if (why) {
    put(t, ".word 0x%08x, 0x%08x  # invalid: %s", (unsigned)(uint32_t)w, (unsigned)(w >> 32), why);
    return;
  }
  put_meaning(&meaning, w, NULL);
  if (gs_qpu_asm_word(meaning.s, 0, &got, &d) != GS_OK) {
    /* Not expected for a valid word (the tests check); stay exact anyway. */
    put(t, ".word 0x%08x, 0x%08x  # %s", (unsigned)(uint32_t)w, (unsigned)(w >> 32), meaning.s);
    return;
  }
  put_meaning(t, w, label);
  put_overrides(t, w, got);
}

size_t gs_qpu_disasm_word(uint64_t w, char *buf, size_t len) {
  text t = {{0}, 0};
  disasm_insn(&t, w, NULL);
  if (buf && len) snprintf(buf, len, "%s", t.s);
  return t.len;
}

/* ---- listings ------------------------------------------------------------------ */

/* Index of the instruction a non-register branch at addr jumps to, if the
 * listing of n words at base holds it, else −1. */
static long branch_target(uint64_t w, uint32_t addr, uint32_t base, size_t n) {
  if (get(w, QPU_F_SIG) != QPU_SIG_BRANCH || qpu_invalid_reason(w) || get(w, QPU_F_REG)) return -1;
  uint32_t imm = get(w, QPU_F_IMM);
  uint32_t target = get(w, QPU_F_REL) ? addr + 32 + imm : imm; /* RG §3 */
  uint32_t off = target - base;
  if (target < base || (off & 7) || off / 8 >= n) return -1;
  return (long)(off / 8);
}

typedef struct listing {
  char *s;
  size_t len, cap;
} listing;

static int append(listing *l, const char *s) {
  size_t n = strlen(s);
  if (l->len + n + 1 > l->cap) {
    size_t cap = l->cap ? l->cap : 1024;
    while (cap < l->len + n + 1) cap *= 2;
    char *p = realloc(l->s, cap);
    if (!p) return 0;
    l->s = p;
    l->cap = cap;
  }
  memcpy(l->s + l->len, s, n + 1);
  l->len += n;
  return 1;
}

int gs_qpu_disasm(const uint64_t *words, size_t n, uint32_t base, char **out, gs_diag *d) {
  if (!out || (!words && n)) return gs_diag_set(d, GS_EARG, "gs_qpu_disasm: NULL argument");
  *out = NULL;
  unsigned char *is_target = calloc(n ? n : 1, 1);
  listing l = {NULL, 0, 0};
  int ok = is_target && append(&l, "");
  for (size_t i = 0; ok && i < n; i++) {
    long k = branch_target(words[i], base + 8 * (uint32_t)i, base, n);
    if (k >= 0) is_target[k] = 1;
  }
  for (size_t i = 0; ok && i < n; i++) {
    uint32_t addr = base + 8 * (uint32_t)i;
    long k = branch_target(words[i], addr, base, n);
    char label[24];
    text t = {{0}, 0};
    if (is_target[i]) {
      snprintf(label, sizeof label, "l_%x:\n", addr);
      ok = append(&l, label);
    }
    if (k >= 0) snprintf(label, sizeof label, "l_%x", base + 8 * (uint32_t)k);
    disasm_insn(&t, words[i], k >= 0 ? label : NULL);
    put(&t, "\n");
    ok = ok && append(&l, t.s);
  }
  free(is_target);
  if (!ok) {
    free(l.s);
    return gs_diag_set(d, GS_ENOMEM, "gs_qpu_disasm: out of memory");
  }
  *out = l.s;
  return GS_OK;
}
