/* cl.h — the VideoCore IV control-list packet table: the single source of
 * truth for every control-list packet and every record a packet points to
 * (one table, everything else derived from it). The encoder, the decoder, the dump, the text parser
 * and the typed structs below all derive from these X-macro lists; a
 * packet's layout is written here once.
 *
 * Facts: RG Table 38 (record table), Tables 45–47 (shader state
 * records), Table 44 (clipped primitive record), with corrections: Clipper
 * Z Scale and Offset is 106 (not RG's 105), Viewport Offset is 12.4 fixed
 * point, Clipper Z stores scale then offset, the GL record's VS uniforms
 * address is at byte 20. The public interface is include/gpusim/cl.h;
 * choices no source settles are in docs/control-lists.md.
 *
 * A field is F(name, byte, lo, width, kind, values):
 *   byte   offset of the little-endian word the field lives in: for a
 *          packet counted after the ID byte, for a record from its start;
 *   lo     lowest bit of the field in that word, width its bits (lo + width
 *          <= 64);
 *   kind   UINT (decimal), HEX (unsigned shown in hex), SINT (two's
 *          complement), FIX4 (signed, 4 fraction bits: 12.4 pixels), F32
 *          (IEEE float), F187 (float 1-8-7: the top 16 bits of a float32),
 *          ADDR (bus address: the value is the field shifted left by lo, so
 *          an address field at bits 31:4 holds a 16-byte aligned address),
 *          ENUM (named values), FLAG (one bit, shown in the flags= set);
 *   values the ENUM's value names (GS_CL_ENUMS), `none` for other kinds.
 */
#ifndef GS_V3D_CL_H
#define GS_V3D_CL_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/cl.h"

/* ---- Enum value names: E(name, value 0, value 1, ...); NULL = reserved -- */
#define GS_CL_ENUMS(E)                                                                       \
  E(prim_mode, "points", "lines", "line_loop", "line_strip", "triangles", "triangle_strip",  \
    "triangle_fan")                                                                          \
  E(index_type, "8bit", "16bit")                                                             \
  E(vg_prim_type, NULL, "rhts", NULL, "rht_strip", "triangles", "triangle_strip",            \
    "triangle_fan")                                                                          \
  E(store_buffer, "none", "color", "zs", "z_only", "vg_mask", "full_dump")                   \
  E(load_buffer, "none", "color", "zs", NULL, "vg_mask", "full_reload")                      \
  E(memory_format, "raster", "t", "lt")                                                      \
  E(store_mode, "sample0", "decimate4x", "decimate16x")                                      \
  E(pixel_format, "rgba8888", "bgr565_dithered", "bgr565")                                   \
  E(list_prim_type, "points", "lines", "triangles", "rhts")                                  \
  E(list_data_type, NULL, "index16", "index24", "xy32")                                      \
  E(threading, "dual", "single")                                                             \
  E(coverage_read_type, "level_4x8", "mask_16")                                              \
  E(oversample, "none", "4x", "16x")                                                         \
  E(coverage_update, "nonzero", "odd", "or", "zero")                                         \
  E(coverage_read_mode, "clear_on_read", "leave_on_read")                                    \
  E(depth_func, "never", "lt", "eq", "le", "gt", "ne", "ge", "always")                       \
  E(block_size, "32", "64", "128", "256")                                                    \
  E(fb_color_format, "bgr565_dithered", "rgba8888", "bgr565")                                \
  E(decimate, "1x", "4x", "16x")                                                             \
  E(early_z_direction, "lt_le", "gt_ge")

/* ---- Packet fields (RG Table 38) ------------------------------ */
#define GS_CL_F_BRANCH(F) F(address, 0, 0, 32, ADDR, none)

#define GS_CL_F_STORE_FULL_RESOLUTION_TILE_BUFFER(F) \
  F(address, 0, 4, 28, ADDR, none)                   \
  F(disable_color_write, 0, 0, 1, FLAG, none)        \
  F(disable_zs_write, 0, 1, 1, FLAG, none)           \
  F(disable_clear, 0, 2, 1, FLAG, none)              \
  F(last_tile, 0, 3, 1, FLAG, none)

#define GS_CL_F_RELOAD_FULL_RESOLUTION_TILE_BUFFER(F) \
  F(address, 0, 4, 28, ADDR, none)                    \
  F(disable_color_read, 0, 0, 1, FLAG, none)          \
  F(disable_zs_read, 0, 1, 1, FLAG, none)

#define GS_CL_F_STORE_TILE_BUFFER_GENERAL(F)        \
  F(buffer, 0, 0, 3, ENUM, store_buffer)            \
  F(format, 0, 4, 2, ENUM, memory_format)           \
  F(mode, 0, 6, 2, ENUM, store_mode)                \
  F(pixel_format, 0, 8, 2, ENUM, pixel_format)      \
  F(disable_double_buffer_swap, 0, 12, 1, FLAG, none) \
  F(disable_color_clear, 0, 13, 1, FLAG, none)      \
  F(disable_zs_clear, 0, 14, 1, FLAG, none)         \
  F(disable_vg_mask_clear, 0, 15, 1, FLAG, none)    \
  F(address, 2, 4, 28, ADDR, none)                  \
  F(disable_color_dump, 2, 0, 1, FLAG, none)        \
  F(disable_zs_dump, 2, 1, 1, FLAG, none)           \
  F(disable_vg_mask_dump, 2, 2, 1, FLAG, none)      \
  F(last_tile, 2, 3, 1, FLAG, none)

#define GS_CL_F_LOAD_TILE_BUFFER_GENERAL(F)   \
  F(buffer, 0, 0, 3, ENUM, load_buffer)       \
  F(format, 0, 4, 2, ENUM, memory_format)     \
  F(pixel_format, 0, 8, 2, ENUM, pixel_format) \
  F(address, 2, 4, 28, ADDR, none)            \
  F(disable_color_load, 2, 0, 1, FLAG, none)  \
  F(disable_zs_load, 2, 1, 1, FLAG, none)     \
  F(disable_vg_mask_load, 2, 2, 1, FLAG, none)

#define GS_CL_F_INDEXED_PRIMITIVE_LIST(F)  \
  F(mode, 0, 0, 4, ENUM, prim_mode)        \
  F(index_type, 0, 4, 4, ENUM, index_type) \
  F(length, 1, 0, 32, UINT, none)          \
  F(address, 5, 0, 32, ADDR, none)         \
  F(max_index, 9, 0, 32, UINT, none)

#define GS_CL_F_VERTEX_ARRAY_PRIMITIVES(F) \
  F(mode, 0, 0, 4, ENUM, prim_mode)        \
  F(length, 1, 0, 32, UINT, none)          \
  F(first_index, 5, 0, 32, UINT, none)

#define GS_CL_F_VG_COORDINATE_ARRAY_PRIMITIVES(F) \
  F(type, 0, 0, 4, ENUM, vg_prim_type)            \
  F(continuation, 0, 4, 4, UINT, none)            \
  F(length, 1, 0, 32, UINT, none)                 \
  F(address, 5, 0, 32, ADDR, none)

#define GS_CL_F_VG_INLINE_PRIMITIVES(F) \
  F(type, 0, 0, 4, ENUM, vg_prim_type)  \
  F(continuation, 0, 4, 4, UINT, none)

#define GS_CL_F_CLIPPED_PRIMITIVE(F)  \
  F(record, 0, 3, 29, ADDR, none)     \
  F(clip_v0, 0, 0, 1, FLAG, none)     \
  F(clip_v1, 0, 1, 1, FLAG, none)     \
  F(clip_v2, 0, 2, 1, FLAG, none)

#define GS_CL_F_PRIMITIVE_LIST_FORMAT(F)        \
  F(prim_type, 0, 0, 4, ENUM, list_prim_type)   \
  F(data_type, 0, 4, 4, ENUM, list_data_type)

#define GS_CL_F_GL_SHADER_STATE(F)   \
  F(record, 0, 4, 28, ADDR, none)    \
  F(extended, 0, 3, 1, FLAG, none)   \
  F(attr_arrays, 0, 0, 3, UINT, none)

#define GS_CL_F_SHADER_STATE(F) F(record, 0, 4, 28, ADDR, none)

#define GS_CL_F_VG_INLINE_SHADER_RECORD(F) \
  F(fs_code, 0, 3, 29, ADDR, none)         \
  F(threading, 0, 0, 3, ENUM, threading)   \
  F(fs_uniforms, 4, 0, 32, ADDR, none)

#define GS_CL_F_CONFIGURATION_BITS(F)                         \
  F(enable_forward_facing, 0, 0, 1, FLAG, none)               \
  F(enable_reverse_facing, 0, 1, 1, FLAG, none)               \
  F(clockwise, 0, 2, 1, FLAG, none)                           \
  F(enable_depth_offset, 0, 3, 1, FLAG, none)                 \
  F(antialiased_points_lines, 0, 4, 1, FLAG, none)            \
  F(coverage_read_type, 0, 5, 1, ENUM, coverage_read_type)    \
  F(oversample, 0, 6, 2, ENUM, oversample)                    \
  F(coverage_pipe_select, 0, 8, 1, FLAG, none)                \
  F(coverage_update, 0, 9, 2, ENUM, coverage_update)          \
  F(coverage_read_mode, 0, 11, 1, ENUM, coverage_read_mode)   \
  F(depth_func, 0, 12, 3, ENUM, depth_func)                   \
  F(z_updates, 0, 15, 1, FLAG, none)                          \
  F(early_z, 0, 16, 1, FLAG, none)                            \
  F(early_z_updates, 0, 17, 1, FLAG, none)

#define GS_CL_F_FLAT_SHADE_FLAGS(F) F(flat_varyings, 0, 0, 32, HEX, none)
#define GS_CL_F_POINT_SIZE(F) F(size, 0, 0, 32, F32, none)
#define GS_CL_F_LINE_WIDTH(F) F(width, 0, 0, 32, F32, none)
#define GS_CL_F_RHT_X_BOUNDARY(F) F(x, 0, 0, 16, SINT, none)

#define GS_CL_F_DEPTH_OFFSET(F)      \
  F(factor, 0, 0, 16, F187, none)    \
  F(units, 2, 0, 16, F187, none)

#define GS_CL_F_CLIP_WINDOW(F)      \
  F(left, 0, 0, 16, UINT, none)     \
  F(bottom, 2, 0, 16, UINT, none)   \
  F(width, 4, 0, 16, UINT, none)    \
  F(height, 6, 0, 16, UINT, none)

/* 12.4 fixed point, not RG's "sint16" pixels (Mesa vc4_emit.c). */
#define GS_CL_F_VIEWPORT_OFFSET(F) \
  F(x, 0, 0, 16, FIX4, none)       \
  F(y, 2, 0, 16, FIX4, none)

#define GS_CL_F_Z_MIN_MAX_CLIPPING_PLANES(F) \
  F(min_zw, 0, 0, 32, F32, none)             \
  F(max_zw, 4, 0, 32, F32, none)

/* Viewport half-width and half-height in 1/16 pixel. */
#define GS_CL_F_CLIPPER_XY_SCALING(F)   \
  F(half_width, 0, 0, 32, F32, none)    \
  F(half_height, 4, 0, 32, F32, none)

/* Scale then offset (RG and current Mesa). */
#define GS_CL_F_CLIPPER_Z_SCALE_AND_OFFSET(F) \
  F(scale, 0, 0, 32, F32, none)               \
  F(offset, 4, 0, 32, F32, none)

#define GS_CL_F_TILE_BINNING_MODE_CONFIGURATION(F)   \
  F(tile_alloc, 0, 0, 32, ADDR, none)                \
  F(tile_alloc_size, 4, 0, 32, UINT, none)           \
  F(tsda, 8, 0, 32, ADDR, none)                      \
  F(width_tiles, 12, 0, 8, UINT, none)               \
  F(height_tiles, 13, 0, 8, UINT, none)              \
  F(ms4x, 14, 0, 1, FLAG, none)                      \
  F(color64, 14, 1, 1, FLAG, none)                   \
  F(auto_init_tsda, 14, 2, 1, FLAG, none)            \
  F(initial_block_size, 14, 3, 2, ENUM, block_size)  \
  F(block_size, 14, 5, 2, ENUM, block_size)          \
  F(double_buffer, 14, 7, 1, FLAG, none)

#define GS_CL_F_TILE_RENDERING_MODE_CONFIGURATION(F)         \
  F(address, 0, 0, 32, ADDR, none)                           \
  F(width, 4, 0, 16, UINT, none)                             \
  F(height, 6, 0, 16, UINT, none)                            \
  F(ms4x, 8, 0, 1, FLAG, none)                               \
  F(color64, 8, 1, 1, FLAG, none)                            \
  F(color_format, 8, 2, 2, ENUM, fb_color_format)            \
  F(decimate, 8, 4, 2, ENUM, decimate)                       \
  F(memory_format, 8, 6, 2, ENUM, memory_format)             \
  F(vg_mask, 8, 8, 1, FLAG, none)                            \
  F(coverage_mode, 8, 9, 1, FLAG, none)                      \
  F(early_z_direction, 8, 10, 1, ENUM, early_z_direction)    \
  F(early_z_disable, 8, 11, 1, FLAG, none)                   \
  F(double_buffer, 8, 12, 1, FLAG, none)

/* Two 32-bit halves (the same rgba8888 value twice, or one 64-bit colour). */
#define GS_CL_F_CLEAR_COLORS(F)       \
  F(color0, 0, 0, 32, HEX, none)      \
  F(color1, 4, 0, 32, HEX, none)      \
  F(zs, 8, 0, 24, HEX, none)          \
  F(vg_mask, 11, 0, 8, HEX, none)     \
  F(stencil, 12, 0, 8, UINT, none)

#define GS_CL_F_TILE_COORDINATES(F) \
  F(column, 0, 0, 8, UINT, none)    \
  F(row, 1, 0, 8, UINT, none)

/* ---- Packets ------------------------------------------------------------
 * P(id, NAME, lname, size, mode, tail, FIELDS) for packets with fields,
 * P0(id, NAME, lname, size, mode, tail) for the ID-only ones. size counts
 * the ID byte and the fixed payload; tail says what follows it (NONE, PRIMS
 * = an escape-terminated compressed primitive list, VG = XY words up to the
 * escape word). mode: B binning, R rendering, BR both (RG Table 38). */
#define GS_CL_PACKETS(P, P0)                                                                  \
  P0(0, HALT, halt, 1, BR, NONE)                                                              \
  P0(1, NOP, nop, 1, BR, NONE)                                                                \
  P0(4, FLUSH, flush, 1, B, NONE)                                                             \
  P0(5, FLUSH_ALL_STATE, flush_all_state, 1, B, NONE)                                         \
  P0(6, START_TILE_BINNING, start_tile_binning, 1, B, NONE)                                   \
  P0(7, INCREMENT_SEMAPHORE, increment_semaphore, 1, BR, NONE)                                \
  P0(8, WAIT_ON_SEMAPHORE, wait_on_semaphore, 1, BR, NONE)                                    \
  P(16, BRANCH, branch, 5, BR, NONE, GS_CL_F_BRANCH)                                          \
  P(17, BRANCH_TO_SUB_LIST, branch_to_sub_list, 5, BR, NONE, GS_CL_F_BRANCH)                  \
  P0(18, RETURN_FROM_SUB_LIST, return_from_sub_list, 1, BR, NONE)                             \
  P0(24, STORE_MS_RESOLVED_TILE_COLOR_BUFFER, store_ms_resolved_tile_color_buffer, 1, R,      \
     NONE)                                                                                    \
  P0(25, STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF,                                         \
     store_ms_resolved_tile_color_buffer_and_eof, 1, R, NONE)                                 \
  P(26, STORE_FULL_RESOLUTION_TILE_BUFFER, store_full_resolution_tile_buffer, 5, R, NONE,     \
    GS_CL_F_STORE_FULL_RESOLUTION_TILE_BUFFER)                                                \
  P(27, RELOAD_FULL_RESOLUTION_TILE_BUFFER, reload_full_resolution_tile_buffer, 5, R, NONE,   \
    GS_CL_F_RELOAD_FULL_RESOLUTION_TILE_BUFFER)                                               \
  P(28, STORE_TILE_BUFFER_GENERAL, store_tile_buffer_general, 7, R, NONE,                     \
    GS_CL_F_STORE_TILE_BUFFER_GENERAL)                                                        \
  P(29, LOAD_TILE_BUFFER_GENERAL, load_tile_buffer_general, 7, R, NONE,                       \
    GS_CL_F_LOAD_TILE_BUFFER_GENERAL)                                                         \
  P(32, INDEXED_PRIMITIVE_LIST, indexed_primitive_list, 14, BR, NONE,                         \
    GS_CL_F_INDEXED_PRIMITIVE_LIST)                                                           \
  P(33, VERTEX_ARRAY_PRIMITIVES, vertex_array_primitives, 10, BR, NONE,                       \
    GS_CL_F_VERTEX_ARRAY_PRIMITIVES)                                                          \
  P(41, VG_COORDINATE_ARRAY_PRIMITIVES, vg_coordinate_array_primitives, 10, BR, NONE,         \
    GS_CL_F_VG_COORDINATE_ARRAY_PRIMITIVES)                                                   \
  P(42, VG_INLINE_PRIMITIVES, vg_inline_primitives, 2, BR, VG, GS_CL_F_VG_INLINE_PRIMITIVES)  \
  P0(48, COMPRESSED_PRIMITIVE_LIST, compressed_primitive_list, 1, R, PRIMS)                   \
  P(49, CLIPPED_PRIMITIVE, clipped_primitive, 5, R, PRIMS, GS_CL_F_CLIPPED_PRIMITIVE)         \
  P(56, PRIMITIVE_LIST_FORMAT, primitive_list_format, 2, BR, NONE,                            \
    GS_CL_F_PRIMITIVE_LIST_FORMAT)                                                            \
  P(64, GL_SHADER_STATE, gl_shader_state, 5, BR, NONE, GS_CL_F_GL_SHADER_STATE)               \
  P(65, NV_SHADER_STATE, nv_shader_state, 5, BR, NONE, GS_CL_F_SHADER_STATE)                  \
  P(66, VG_SHADER_STATE, vg_shader_state, 5, BR, NONE, GS_CL_F_SHADER_STATE)                  \
  P(67, VG_INLINE_SHADER_RECORD, vg_inline_shader_record, 9, BR, NONE,                        \
    GS_CL_F_VG_INLINE_SHADER_RECORD)                                                          \
  P(96, CONFIGURATION_BITS, configuration_bits, 4, BR, NONE, GS_CL_F_CONFIGURATION_BITS)      \
  P(97, FLAT_SHADE_FLAGS, flat_shade_flags, 5, BR, NONE, GS_CL_F_FLAT_SHADE_FLAGS)            \
  P(98, POINT_SIZE, point_size, 5, BR, NONE, GS_CL_F_POINT_SIZE)                              \
  P(99, LINE_WIDTH, line_width, 5, BR, NONE, GS_CL_F_LINE_WIDTH)                              \
  P(100, RHT_X_BOUNDARY, rht_x_boundary, 3, BR, NONE, GS_CL_F_RHT_X_BOUNDARY)                 \
  P(101, DEPTH_OFFSET, depth_offset, 5, BR, NONE, GS_CL_F_DEPTH_OFFSET)                       \
  P(102, CLIP_WINDOW, clip_window, 9, BR, NONE, GS_CL_F_CLIP_WINDOW)                          \
  P(103, VIEWPORT_OFFSET, viewport_offset, 5, BR, NONE, GS_CL_F_VIEWPORT_OFFSET)              \
  P(104, Z_MIN_MAX_CLIPPING_PLANES, z_min_max_clipping_planes, 9, BR, NONE,                   \
    GS_CL_F_Z_MIN_MAX_CLIPPING_PLANES)                                                        \
  P(105, CLIPPER_XY_SCALING, clipper_xy_scaling, 9, BR, NONE, GS_CL_F_CLIPPER_XY_SCALING)     \
  P(106, CLIPPER_Z_SCALE_AND_OFFSET, clipper_z_scale_and_offset, 9, BR, NONE,                 \
    GS_CL_F_CLIPPER_Z_SCALE_AND_OFFSET)                                                       \
  P(112, TILE_BINNING_MODE_CONFIGURATION, tile_binning_mode_configuration, 16, B, NONE,       \
    GS_CL_F_TILE_BINNING_MODE_CONFIGURATION)                                                  \
  P(113, TILE_RENDERING_MODE_CONFIGURATION, tile_rendering_mode_configuration, 11, R, NONE,   \
    GS_CL_F_TILE_RENDERING_MODE_CONFIGURATION)                                                \
  P(114, CLEAR_COLORS, clear_colors, 14, R, NONE, GS_CL_F_CLEAR_COLORS)                       \
  P(115, TILE_COORDINATES, tile_coordinates, 3, R, NONE, GS_CL_F_TILE_COORDINATES)

/* ---- Records that packets point to ---------------------------------------
 * R(NAME, lname, size, FIELDS); byte offsets from the record's start. */

/* GL Shader State Record, fixed part (RG Table 45); the
 * attribute records follow at byte 36 + 8i. VS uniforms at byte 20 (§8.3). */
#define GS_CL_F_GL_SHADER_RECORD(F)            \
  F(fs_single_threaded, 0, 0, 1, FLAG, none)   \
  F(point_size, 0, 1, 1, FLAG, none)           \
  F(clipping, 0, 2, 1, FLAG, none)             \
  F(fs_uniform_count, 2, 0, 8, UINT, none)     \
  F(fs_varyings, 3, 0, 8, UINT, none)          \
  F(fs_code, 4, 0, 32, ADDR, none)             \
  F(fs_uniforms, 8, 0, 32, ADDR, none)         \
  F(vs_uniform_count, 12, 0, 16, UINT, none)   \
  F(vs_attr_select, 14, 0, 8, HEX, none)       \
  F(vs_attr_size, 15, 0, 8, UINT, none)        \
  F(vs_code, 16, 0, 32, ADDR, none)            \
  F(vs_uniforms, 20, 0, 32, ADDR, none)        \
  F(cs_uniform_count, 24, 0, 16, UINT, none)   \
  F(cs_attr_select, 26, 0, 8, HEX, none)       \
  F(cs_attr_size, 27, 0, 8, UINT, none)        \
  F(cs_code, 28, 0, 32, ADDR, none)            \
  F(cs_uniforms, 32, 0, 32, ADDR, none)

/* One attribute array: the VCD reads bytes_minus_1 + 1 bytes at
 * base + vertex * stride. */
#define GS_CL_F_GL_ATTRIBUTE_RECORD(F)      \
  F(base, 0, 0, 32, ADDR, none)             \
  F(bytes_minus_1, 4, 0, 8, UINT, none)     \
  F(stride, 5, 0, 8, UINT, none)            \
  F(vs_vpm_offset, 6, 0, 8, UINT, none)     \
  F(cs_vpm_offset, 7, 0, 8, UINT, none)

/* Extended record: one word per attribute at byte 100 + 4i; Linux's vc4_validate.c forms the
 * stride as (word & ~0xff) | the attribute record's stride byte. */
#define GS_CL_F_GL_EXTENDED_STRIDE(F) F(stride_word, 0, 0, 32, HEX, none)

/* NV Shader State Record (RG Table 46). */
#define GS_CL_F_NV_SHADER_RECORD(F)           \
  F(fs_single_threaded, 0, 0, 1, FLAG, none)  \
  F(point_size, 0, 1, 1, FLAG, none)          \
  F(clipping, 0, 2, 1, FLAG, none)            \
  F(clip_header, 0, 3, 1, FLAG, none)         \
  F(vertex_stride, 1, 0, 8, UINT, none)       \
  F(fs_uniform_count, 2, 0, 8, UINT, none)    \
  F(fs_varyings, 3, 0, 8, UINT, none)         \
  F(fs_code, 4, 0, 32, ADDR, none)            \
  F(fs_uniforms, 8, 0, 32, ADDR, none)        \
  F(vertex_data, 12, 0, 32, ADDR, none)

/* VG Shader State Record (RG Table 47). */
#define GS_CL_F_VG_SHADER_RECORD(F)           \
  F(fs_single_threaded, 0, 0, 1, FLAG, none)  \
  F(fs_uniform_count, 2, 0, 8, UINT, none)    \
  F(fs_varyings, 3, 0, 8, UINT, none)         \
  F(fs_code, 4, 0, 32, ADDR, none)            \
  F(fs_uniforms, 8, 0, 32, ADDR, none)

/* One vertex of a Clipped Primitive Record (RG Table 44);
 * bytes 24..31 are unused. */
#define GS_CL_F_CLIPPED_VERTEX(F)     \
  F(xs, 0, 0, 16, FIX4, none)         \
  F(ys, 2, 0, 16, FIX4, none)         \
  F(zs, 4, 0, 32, F32, none)          \
  F(inv_wc, 8, 0, 32, F32, none)      \
  F(coeff0, 12, 0, 32, F32, none)     \
  F(coeff1, 16, 0, 32, F32, none)     \
  F(coeff2, 20, 0, 32, F32, none)

#define GS_CL_RECORDS(R)                                                   \
  R(GL_SHADER_RECORD, gl_shader_record, 36, GS_CL_F_GL_SHADER_RECORD)      \
  R(GL_ATTRIBUTE_RECORD, gl_attribute_record, 8, GS_CL_F_GL_ATTRIBUTE_RECORD) \
  R(GL_EXTENDED_STRIDE, gl_extended_stride, 4, GS_CL_F_GL_EXTENDED_STRIDE) \
  R(NV_SHADER_RECORD, nv_shader_record, 16, GS_CL_F_NV_SHADER_RECORD)      \
  R(VG_SHADER_RECORD, vg_shader_record, 12, GS_CL_F_VG_SHADER_RECORD)      \
  R(CLIPPED_VERTEX, clipped_vertex, 32, GS_CL_F_CLIPPED_VERTEX)

/* Where the parts of a GL shader record live (RG Table 45). */
#define GS_CL_GL_ATTR_OFFSET 36u      /* attribute record i at 36 + 8i */
#define GS_CL_GL_EXT_STRIDE_OFFSET 100u /* extended stride i at 100 + 4i */
#define GS_CL_CLIPPED_VERTEX_SIZE 32u /* clipped vertex i at record + 32i */
/* The escape word that ends VG inline primitives, and the padding word. */
#define GS_CL_VG_ESCAPE 0xbfff0000u
#define GS_CL_VG_PADDING 0xbfff0001u
/* The buffer code of 28 (full dump) and 29 (full reload). */
#define GS_CL_BUFFER_FULL 5u

/* ---- Derived: packet IDs, record numbers, typed structs ----------------- */
#define GS_CL_ID_(id, NAME, ...) GS_CL_##NAME = id,
enum gs_cl_id { GS_CL_PACKETS(GS_CL_ID_, GS_CL_ID_) };
#undef GS_CL_ID_

#define GS_CL_REC_(NAME, lname, size, FIELDS) GS_CL_REC_##NAME,
enum gs_cl_record_no { GS_CL_RECORDS(GS_CL_REC_) GS_CL_REC_COUNT };
#undef GS_CL_REC_

/* Field members: integers as uint32_t/int32_t (FIX4 holds 1/16 units),
 * floats as float (F187 is widened; packing keeps its top 16 bits). */
#define GS_CL_CTYPE_UINT uint32_t
#define GS_CL_CTYPE_HEX uint32_t
#define GS_CL_CTYPE_SINT int32_t
#define GS_CL_CTYPE_FIX4 int32_t
#define GS_CL_CTYPE_F32 float
#define GS_CL_CTYPE_F187 float
#define GS_CL_CTYPE_ADDR uint32_t
#define GS_CL_CTYPE_ENUM uint32_t
#define GS_CL_CTYPE_FLAG uint32_t

#define GS_CL_MEMBER_(name, byte, lo, width, kind, values) GS_CL_CTYPE_##kind name;
#define GS_CL_STRUCT_(id, NAME, lname, size, mode, tail, FIELDS) \
  typedef struct gs_cl_##lname { FIELDS(GS_CL_MEMBER_) } gs_cl_##lname;
#define GS_CL_RSTRUCT_(NAME, lname, size, FIELDS) \
  typedef struct gs_cl_##lname { FIELDS(GS_CL_MEMBER_) } gs_cl_##lname;
#define GS_CL_NONE_(...)
GS_CL_PACKETS(GS_CL_STRUCT_, GS_CL_NONE_)
GS_CL_RECORDS(GS_CL_RSTRUCT_)

/* Typed packers, one per packet with fields and per record:
 *   gs_cl_pack_<name>(dst, cap, &s, d)   bytes into a host buffer; returns
 *                                        the size or a GS_E* code;
 *   gs_cl_emit_<name>(w, &s, d)          appends the packet to a writer
 *                                        (packets only);
 *   gs_cl_unpack_<name>(values, &s)      decoded values -> struct.
 * Range errors name the packet and the field (see gs_cl_pack). */
#define GS_CL_PROTO_(id, NAME, lname, size, mode, tail, FIELDS)                       \
  int gs_cl_pack_##lname(uint8_t *dst, size_t cap, const gs_cl_##lname *s, gs_diag *d); \
  int gs_cl_emit_##lname(gs_cl_writer *w, const gs_cl_##lname *s, gs_diag *d);         \
  void gs_cl_unpack_##lname(const uint32_t *values, gs_cl_##lname *s);
#define GS_CL_RPROTO_(NAME, lname, size, FIELDS)                                      \
  int gs_cl_pack_##lname(uint8_t *dst, size_t cap, const gs_cl_##lname *s, gs_diag *d); \
  void gs_cl_unpack_##lname(const uint32_t *values, gs_cl_##lname *s);
GS_CL_PACKETS(GS_CL_PROTO_, GS_CL_NONE_)
GS_CL_RECORDS(GS_CL_RPROTO_)
#undef GS_CL_PROTO_
#undef GS_CL_RPROTO_

/* Compressed lists read many items at a time, with the items of
 * gs_cl_prim_read's loop, its errors and the reader left as it leaves it:
 * gs_cl_prim_read_prims reads up to cap primitives into out (*n of them;
 * fewer at the escape), following branches; gs_cl_prim_skip reads the rest
 * of the list without decoding its primitives, to find its end (r->cur),
 * and leaves r->prev undefined. The items inside the reader's window go
 * without gs_cl_prim_read's per-item look-ups and checks. */
int gs_cl_prim_read_prims(gs_cl_prim_reader *r, gs_cl_prim *out, unsigned cap, unsigned *n, gs_diag *d);
int gs_cl_prim_skip(gs_cl_prim_reader *r, gs_diag *d);

/* Appends p[0..n) to the open compressed list as n gs_cl_put_prim calls
 * do (same bytes, blocks, errors), the items that fit the current block
 * written straight into its memory, looked up once per block. */
int gs_cl_put_prims(gs_cl_writer *w, const gs_cl_prim *p, size_t n, gs_diag *d);

/* The descriptor of record number r (enum gs_cl_record_no). */
const gs_cl_format_info *gs_cl_record_info(int r);

#endif
