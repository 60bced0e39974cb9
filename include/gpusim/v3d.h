/* gpusim/v3d.h — running VideoCore IV control lists: the control-list
 * executor (CLE) with its two threads, the binning pass and the rendering
 * pass that make a frame from lists in GPU memory.
 *
 * A frame is two control lists in GPU memory, as a VC4 driver builds them
 * (Broadcom's VideoCore IV 3D Architecture Reference Guide, "RG", §8-9 and
 * Table 38): the binning list (CLE thread 0) configures
 * the tile grid (packet 112), sets state, selects shaders (64 GL, 65 NV,
 * 66/67 VG) and draws (32, 33; VG: 41, 42 with screen XY vertices);
 * coordinate shaders run on a QPU (none for VG), the PTB bins the
 * primitives and gpusim writes one tile list per tile into the
 * tile-allocation memory (format: docs/control-lists.md, "The tile lists
 * gpusim's PTB writes"). The rendering list (CLE thread 1) configures the
 * frame buffer (113, 114) and, per tile, loads, sets the tile coordinates
 * (115), branches into the tile's list (17) and stores (24, 25, 28); there
 * vertex shaders, the PSE, fragment shaders and the tile buffer make the
 * pixels. docs/pipeline.md describes the whole flow and every choice.
 *
 *   gs_v3d_options o = {0};
 *   o.threads = 4;                                   // 0: all cores
 *   if (gs_v3d_run(g, bin, bin_end, rend, rend_end, &o) < 0)
 *     fprintf(stderr, "%s\n", gs_gpu_error(g));
 *
 * The two threads run as CT0 and CT1 do: each from its start address until
 * its current address equals its end address (or a Halt); thread 0 first,
 * thread 1 when thread 0 has ended or waits on its semaphore; Increment
 * Semaphore (7) in one thread releases a Wait on Semaphore (8) in the
 * other. An empty list (start == end) does nothing, so a rendering list
 * whose tile lists are already in memory runs alone.
 *
 * Tiles render in parallel on `threads` host threads; the frame is
 * bit-identical for any thread count.
 *
 * ERRORS. The result is GS_OK or a negative GS_E* code, and gs_gpu_error(g)
 * says what and where:
 *   GS_EINVAL    an unknown or malformed packet, a packet of the other
 *                thread, a packet out of place (a draw before 112, a
 *                primitive before 115), a loop (more than max_packets
 *                packets), sub-lists nested too deep, both threads waiting,
 *                what gpusim does not model (RHTs, the VG mask buffer,
 *                coverage mode and its 16x oversampling and decimation;
 *                docs/pipeline.md "Not modelled") — naming the
 *                packet's bus address (and thread);
 *   GS_EFAULT    a list, record, index or vertex array outside allocated
 *                GPU memory, naming the address;
 *   GS_ENOMEM    the tile-allocation memory is full, or the host is out
 *                of memory;
 *   QPU errors   (GS_EFAULT, GS_EINVAL, GS_EHANG, GS_EWATCHDOG, ...) from a
 *                shader, naming the shader, the QPU, its pc, the draw
 *                packet (binning) or the tile (rendering).
 * Nothing is stored for the tiles after the failing one when one thread
 * renders; with several threads, tiles that were already running when the
 * failure happened complete (docs/pipeline.md).
 */
#ifndef GPUSIM_V3D_H
#define GPUSIM_V3D_H

#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/gpu.h"
#include "gpusim/mem.h"

/* A uniform stream a driver wrote: `words` uniforms from addr. */
typedef struct gs_v3d_unif_stream {
  gs_addr addr;
  uint32_t words;
} gs_v3d_unif_stream;

typedef struct gs_v3d_options {
  unsigned threads;         /* host threads for tiles; 0 = all cores */
  uint32_t max_packets;     /* per CLE thread, against loops; 0 = 1 << 24 */
  int max_depth;            /* sub-list nesting; 0 = 2 (RG §9) */
  /* The uniform streams the driver wrote, sorted by address (GS_EARG
   * otherwise): a shader whose record's uniforms address starts one may
   * read only its `words` uniforms, and a read past them is a QPU error
   * (GS_EFAULT) naming the shader and pc — the draw gave too few. Shaders
   * of other streams, and every shader without this list, read on into
   * whatever memory follows, as the hardware does. */
  const gs_v3d_unif_stream *unif_streams;
  unsigned n_unif_streams;
} gs_v3d_options;

/* What a run did, for the benchmark and for teaching. Counts do not
 * depend on the thread count; times do. */
typedef struct gs_v3d_stats {
  double bin_seconds;       /* CLE thread 0: walking, coordinate shading, PTB */
  double render_seconds;    /* CLE thread 1: walking and rendering the tiles */
  uint64_t packets[2];      /* packets executed by thread 0 and thread 1 */
  uint64_t cs_vertices;     /* vertices shaded by coordinate shaders (or fetched in NV mode, read in VG mode) */
  uint64_t prims_binned;    /* primitives the PTB stored (clipped fans count each piece) */
  uint64_t tile_refs;       /* primitive entries written into tile lists */
  uint64_t tiles;           /* tile jobs rendered (a 115 that starts a tile) */
  uint64_t vs_vertices;     /* vertices shaded by vertex shaders in the tiles */
  uint64_t prims_drawn;     /* primitives the PSE set up in the tiles */
  uint64_t fs_batches;      /* fragment-shader invocations (4x4 blocks) */
  uint64_t fragments;       /* covered pixels shaded */
  /* Shader exceptions: a program did what its SPH's flags do not allow
   * (docs/pipeline.md, "Shader units and the SPH"); the run goes on with
   * the behaviour NVIDIA's SPH description gives. One message, naming the
   * shader and its pc, the same whatever the thread count. */
  uint64_t exceptions;
  char exception[256];
} gs_v3d_stats;

/* Runs the binning list [bin_start, bin_end) and the rendering list
 * [render_start, render_end) to their ends; opt may be NULL. */
int gs_v3d_run(gs_gpu *g, gs_addr bin_start, gs_addr bin_end, gs_addr render_start, gs_addr render_end,
               const gs_v3d_options *opt);

/* After a failed gs_v3d_run: the bus address of the GL, NV or VG shader record
 * in force at the draw packet (binning) or primitive list (rendering) that
 * failed, so that a driver can name the draw call; 0 when the failure was
 * not in a draw, or no shader state (or a 67, which has no record) was set. */
gs_addr gs_v3d_fault_record(const gs_gpu *g);

/* As gs_v3d_run, and fills *stats (may be NULL) with what the run did and
 * how long each pass took: the hook `gpusim bench` uses. */
int gs_v3d_run_stats(gs_gpu *g, gs_addr bin_start, gs_addr bin_end, gs_addr render_start, gs_addr render_end,
                     const gs_v3d_options *opt, gs_v3d_stats *stats);

/* ---- benchmarks ------------------------------------------------------------
 * Two frames built as control lists in a context of their own (NV mode,
 * pre-shaded vertices, a fragment shader that depth-tests and writes a
 * constant colour) and run with `threads` threads (0 = all cores):
 *   fill:      width x height, `layers` full-screen quads drawn back to
 *              front with the depth test "less", so every layer is shaded;
 *   triangles: n right triangles with 6-pixel legs at random positions.
 * Frames are 1..2048 pixels a side (Xs is 12.4 in 16 bits). */
typedef struct gs_v3d_bench_result {
  double bin_seconds, render_seconds, seconds;
  uint64_t fragments, triangles;
  double mpixels_per_second;     /* fragments / seconds */
  double mtriangles_per_second;  /* triangles / seconds */
} gs_v3d_bench_result;

/* isa: the instruction set of the fragment program ("qpu", or NULL, or
 * "sass"): the same shortest program in each (the rasterised Z and one
 * colour, 0xff336699). */
int gs_v3d_bench_fill(uint32_t width, uint32_t height, unsigned layers, unsigned threads, const char *isa,
                      gs_v3d_bench_result *r, gs_diag *d);
int gs_v3d_bench_triangles(uint32_t width, uint32_t height, uint32_t n, unsigned threads, const char *isa,
                           gs_v3d_bench_result *r, gs_diag *d);
/* The same, and the frame as stored copied to image (width x height x 4
 * bytes, RGBA8888: R, G, B, A per pixel, top row first), unless it is NULL:
 * what `gpusim bench --peer` compares with Mesa's image of the same frame. */
int gs_v3d_bench_fill_image(uint32_t width, uint32_t height, unsigned layers, unsigned threads, const char *isa,
                            gs_v3d_bench_result *r, uint8_t *image, gs_diag *d);
int gs_v3d_bench_triangles_image(uint32_t width, uint32_t height, uint32_t n, unsigned threads, const char *isa,
                                 gs_v3d_bench_result *r, uint8_t *image, gs_diag *d);

#endif
