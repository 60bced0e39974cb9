/* frag_port.h — a tile port that records what a unit's fragment stage hands
 * it (gs_tile_port, src/isa/isa.h): the fragment-unit tests' view of the
 * tile buffer (test_agx_frag.c, test_sass_frag.c). Each batch gets its own
 * port_rec; port_of makes the port that writes into it. */
#ifndef GS_TESTS_FRAG_PORT_H
#define GS_TESTS_FRAG_PORT_H

#include <stdint.h>
#include <string.h>
#include "isa/isa.h"

typedef struct port_rec {
  int begins, zs, colours, stencils;
  uint16_t z_lanes, c_lanes;
  uint32_t z[16], z_cov[16], c_cov[16], rgba[16];
} port_rec;
static void p_begin(void *c) { ((port_rec *)c)->begins++; }
static void p_stencil(void *c, uint32_t config) { (void)config, ((port_rec *)c)->stencils++; }
static void p_z(void *c, const uint32_t *z, uint32_t *cov, uint16_t lanes) {
  port_rec *r = c;
  r->zs++, r->z_lanes = lanes;
  memcpy(r->z, z, sizeof r->z), memcpy(r->z_cov, cov, sizeof r->z_cov);
}
static void p_colour(void *c, int all, const uint32_t *rgba, const uint32_t *cov, uint16_t lanes) {
  port_rec *r = c;
  (void)all;
  r->colours++, r->c_lanes = lanes;
  memcpy(r->rgba, rgba, sizeof r->rgba), memcpy(r->c_cov, cov, sizeof r->c_cov);
}
static void p_load(void *c, uint32_t *rgba) { (void)c, memset(rgba, 0, 16 * sizeof *rgba); }

static inline gs_tile_port port_of(port_rec *r) { return (gs_tile_port){r, p_begin, p_stencil, p_z, p_colour, p_load}; }

#endif
