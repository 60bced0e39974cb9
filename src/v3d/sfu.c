/* sfu.c — PLACEHOLDER, replaced by the SFU model. */
#include "v3d/sfu.h"
uint32_t sfu_recip(uint32_t x) { return x; }
uint32_t sfu_recipsqrt(uint32_t x) { return x; }
uint32_t sfu_exp2(uint32_t x) { return x; }
uint32_t sfu_log2(uint32_t x) { return x; }
