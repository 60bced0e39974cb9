/* fuzz_common.h — what the fuzz targets (tests/fuzz/fuzz_*.c) share: a
 * failure that stops the run with a message (libFuzzer keeps the input as
 * a crash reproducer), little-endian reads from the input, the random
 * data generator of the executor targets, and the QPU round trip the
 * assembler and the disassembler targets both check.
 * docs/fuzzing.md describes the targets.
 */
#ifndef GS_FUZZ_COMMON_H
#define GS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prints "fuzz: " and the message to stderr, then aborts. */
void fuzz_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

/* The little-endian 32-bit word at p. */
uint32_t fuzz_le32(const uint8_t *p);

/* The executor targets' data generator (xorshift64): fuzz_seed seeds it
 * with the input's FNV-1a hash, so that every mutation of the input also
 * changes the data drawn; fuzz_rnd gives the next 32 bits. */
void fuzz_seed(const uint8_t *data, size_t size);
uint32_t fuzz_rnd(void);

/* Checks the disassembler's promise on n words loaded at base: the whole
 * listing (gs_qpu_disasm) assembles back to exactly the words, and so does
 * every word's text on its own (gs_qpu_disasm_word, gs_qpu_asm_word).
 * fuzz_fail()s with the word and both texts otherwise. */
void fuzz_qpu_roundtrip(const uint64_t *words, size_t n, uint32_t base);

#endif
