/* bench_peer.h — `gpusim bench --peer PROGRAM`: gpusim's fill and triangle
 * frames side by side with Mesa's llvmpipe and softpipe rendering the same
 * frames through gpusim-peer-osmesa (src/bench/peer_osmesa.c), run
 * interleaved; medians, ranges, the ratios of issue 13's goals and a
 * comparison of the images (docs/pipeline.md, "Against llvmpipe and
 * softpipe"). `make bench-peer` builds the peer and runs it.
 */
#ifndef GS_BENCH_BENCH_PEER_H
#define GS_BENCH_BENCH_PEER_H

#include <stddef.h>
#include <stdint.h>

/* The QPU ALU chain of `gpusim bench` (src/app/bench.c) run once through the
 * fast interpreter: QPU instructions per second, or < 0 on an error (its
 * message already printed); called with end != 0 once at the end, to free
 * what it keeps. */
typedef double (*gs_bench_chain_fn)(int end);

/* argv[0] = "--peer", argv[1] = the peer program, then [--runs N]
 * [--quick]. Returns the exit status: 0 when every run worked (goals missed
 * or not), 1 on an error, 2 on a usage error. */
int gs_bench_peer_main(int argc, char **argv, gs_bench_chain_fn qpu_chain);

/* Median, smallest and largest of v[0..n-1] (n >= 1; v is sorted). */
typedef struct gs_bench_spread {
  double median, min, max;
} gs_bench_spread;
gs_bench_spread gs_bench_spread_of(double *v, size_t n);

/* Two RGBA8 images of n pixels compared: the pixels whose bytes differ, the
 * largest difference of one channel, and the first differing pixel (n if
 * none). */
typedef struct gs_bench_image_diff {
  size_t differing, first;
  unsigned max_error;
} gs_bench_image_diff;
gs_bench_image_diff gs_bench_image_compare(const uint8_t *a, const uint8_t *b, size_t n);

#endif
