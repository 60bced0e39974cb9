/* gpusim/qpu.h — the VideoCore IV QPU: assembler, disassembler and user
 * programs.
 *
 * Assembly syntax: docs/qpu.md. Binaries are arrays of 64-bit instruction
 * words; as bytes they are little-endian, low 32-bit word first (the order of
 * hex dumps "lo, hi" in most published listings).
 *
 *   uint64_t *w; size_t n; gs_diag d;
 *   if (gs_qpu_asm(text, "prog.s", 0, &w, &n, &d) < 0) puts(d.msg);  // "prog.s:3:9: ..."
 *   char *txt; gs_qpu_disasm(w, n, 0, &txt, &d); ... free(txt); free(w);
 *
 * User programs run on up to 12 QPUs as the hardware's user-program queue
 * does (V3D_SRQPC and V3D_SRQUA, Broadcom's VideoCore IV 3D Architecture
 * Reference Guide §10, Table 48): each is a (code, uniforms) pair of bus
 * addresses and runs until thread end.
 *
 *   gs_qpu_program p[2] = {{code, unif0}, {code, unif1}};
 *   gs_qpu_status st[2];
 *   int rc = gs_qpu_run_user(g, p, 2, st);   // < 0: gs_gpu_error(g) says why
 *
 * Errors name the place: a runaway program (GS_EWATCHDOG), a memory access
 * outside allocated GPU memory (GS_EFAULT), an invalid instruction
 * (GS_EINVAL), programs that wait on each other forever (GS_EDEADLOCK), or a
 * read of data that can never arrive (GS_EHANG) all report the QPU number and
 * program counter.
 */
#ifndef GPUSIM_QPU_H
#define GPUSIM_QPU_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/gpu.h"

/* Assembles src (NUL-terminated; `filename` is used in messages). `base` is
 * the bus address the code will be loaded at (used by absolute branches to
 * labels; relative branches do not depend on it). On success *words is a
 * malloc'ed array of *n words. */
int gs_qpu_asm(const char *src, const char *filename, uint32_t base,
               uint64_t **words, size_t *n, gs_diag *d);
/* gs_qpu_asm that also gives, in *lines (malloc'ed, *n entries), the
 * source line (from 1) of each instruction, for messages about a word. */
int gs_qpu_asm_lines(const char *src, const char *filename, uint32_t base,
                     uint64_t **words, size_t *n, uint32_t **lines, gs_diag *d);

/* Assembles the one instruction (or `.word lo, hi` / `.dword`) in `line`,
 * placed at byte address addr, into *w. Labels are not known here: branch
 * targets are raw immediates. The disassembler uses it to check its text. */
int gs_qpu_asm_word(const char *line, uint32_t addr, uint64_t *w, gs_diag *d);

/* Disassembles one word into buf (always NUL-terminated). The text
 * assembles back to exactly w. Returns the text length. */
size_t gs_qpu_disasm_word(uint64_t w, char *buf, size_t len);

/* Disassembles n words loaded at bus address base into a malloc'ed text,
 * one instruction per line. */
int gs_qpu_disasm(const uint64_t *words, size_t n, uint32_t base, char **text, gs_diag *d);

typedef struct gs_qpu_program {
  gs_addr code;      /* bus address of the first instruction */
  gs_addr uniforms;  /* bus address of the uniform stream */
} gs_qpu_program;

typedef struct gs_qpu_status {
  int ended;             /* 1 if the program reached thread end */
  int host_interrupt;    /* 1 if it raised the host interrupt */
  int qpu;               /* QPU it ran on */
  uint64_t instructions; /* instructions it executed */
} gs_qpu_status;

/* Runs n user programs to completion on the context's QPUs; st (may be
 * NULL) receives one status per program. */
int gs_qpu_run_user(gs_gpu *g, const gs_qpu_program *progs, size_t n, gs_qpu_status *st);

#endif
