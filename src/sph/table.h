/* table.h — the SPH field table: the single source of truth for where every
 * field of the 80-byte Shader Program Header lives in both layouts. The
 * codec, the validator's messages, the dump and the linkage
 * maps all walk this list; a bit position is written here once.
 *
 * Facts: NVIDIA's Shader Program Header description in open-gpu-doc (field
 * names, widths and order) and its classes/3d/cla097sph.h (bit positions).
 */
#ifndef GS_SPH_TABLE_H
#define GS_SPH_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/sph.h"

/* ---- Fields -------------------------------------------------------------
 * X(id, name, member, names, vbit, vn, vw, pbit, pn, pw, fmt, map, k0)
 *   name     the field's name in NVIDIA's SPH description (elements add
 *            their suffix)
 *   member   the gs_sph member: uint32_t if a scalar, else a uint8_t array
 *   names    how an element is named (enum sph_names)
 *   vbit, vn, vw   VTG layout: SPH bit of element 0, elements, bits each
 *   pbit, pn, pw   PS layout: the same; vn or pn = 0: absent from the layout
 *   fmt      how the dump prints a value (enum sph_fmt)
 *   map      SPH_MAP_IMAP / SPH_MAP_OMAP: element i is the map entry of
 *            attribute component k0 + i (byte address 4 (k0 + i));
 *            SPH_MAP_NONE otherwise
 * SPH bit n is bit n % 32 of word n / 32. Element i occupies bits
 * [bit + i w, bit + (i + 1) w). Rows run in bit order in both layouts. */
#define SPH_FIELDS(X)                                                                      \
  /* common words 0-4 */                                                                   \
  X(SPH_TYPE, "SphType", sph_type, SPH_NM_NONE, 0, 1, 5, 0, 1, 5, SPH_FMT_SPH_TYPE, SPH_MAP_NONE, 0) \
  X(VERSION, "Version", version, SPH_NM_NONE, 5, 1, 5, 5, 1, 5, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(SHADER_TYPE, "ShaderType", shader_type, SPH_NM_NONE, 10, 1, 4, 10, 1, 4, SPH_FMT_SHADER_TYPE, SPH_MAP_NONE, 0) \
  X(MRT_ENABLE, "MrtEnable", mrt_enable, SPH_NM_NONE, 14, 1, 1, 14, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(KILLS_PIXELS, "KillsPixels", kills_pixels, SPH_NM_NONE, 15, 1, 1, 15, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(DOES_GLOBAL_STORE, "DoesGlobalStore", does_global_store, SPH_NM_NONE, 16, 1, 1, 16, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(SASS_VERSION, "SassVersion", sass_version, SPH_NM_NONE, 17, 1, 4, 17, 1, 4, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(RESERVED_W0, "Reserved", reserved_w0, SPH_NM_NONE, 21, 1, 3, 21, 1, 3, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(GEOMETRY_PASSTHROUGH, "GeometryPassthrough", geometry_passthrough, SPH_NM_NONE, 24, 1, 1, 24, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(ISBE_SPACE_SHARING, "IsbeSpaceSharing", isbe_space_sharing, SPH_NM_NONE, 25, 1, 1, 25, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(DOES_LOAD_OR_STORE, "DoesLoadOrStore", does_load_or_store, SPH_NM_NONE, 26, 1, 1, 26, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(DOES_FP64, "DoesFp64", does_fp64, SPH_NM_NONE, 27, 1, 1, 27, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(STREAM_OUT_MASK, "StreamOutMask", stream_out_mask, SPH_NM_NONE, 28, 1, 4, 28, 1, 4, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(LOCAL_LOW, "ShaderLocalMemoryLowSize", shader_local_memory_low_size, SPH_NM_NONE, 32, 1, 24, 32, 1, 24, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(PER_PATCH, "PerPatchAttributeCount", per_patch_attribute_count, SPH_NM_NONE, 56, 1, 8, 56, 1, 8, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(LOCAL_HIGH, "ShaderLocalMemoryHighSize", shader_local_memory_high_size, SPH_NM_NONE, 64, 1, 24, 64, 1, 24, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(THREADS_PER_PRIM, "ThreadsPerInputPrimitive", threads_per_input_primitive, SPH_NM_NONE, 88, 1, 8, 88, 1, 8, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(LOCAL_CRS, "ShaderLocalMemoryCrsSize", shader_local_memory_crs_size, SPH_NM_NONE, 96, 1, 24, 96, 1, 24, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(OUTPUT_TOPOLOGY, "OutputTopology", output_topology, SPH_NM_NONE, 120, 1, 4, 120, 1, 4, SPH_FMT_TOPOLOGY, SPH_MAP_NONE, 0) \
  X(RESERVED_W3, "Reserved", reserved_w3, SPH_NM_NONE, 124, 1, 4, 124, 1, 4, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(MAX_OUTPUT_VERTICES, "MaxOutputVertexCount", max_output_vertex_count, SPH_NM_NONE, 128, 1, 12, 128, 1, 12, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(STORE_REQ_START, "StoreReqStart", store_req_start, SPH_NM_NONE, 140, 1, 8, 140, 1, 8, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(RESERVED_W4, "Reserved", reserved_w4, SPH_NM_NONE, 148, 1, 4, 148, 1, 4, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(STORE_REQ_END, "StoreReqEnd", store_req_end, SPH_NM_NONE, 152, 1, 8, 152, 1, 8, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  /* IMAP: system values A and B (same bits in both layouts) */                            \
  X(IMAP_RESERVED_A_LO, "ImapSystemValuesA.Reserved", imap_reserved_a_lo, SPH_NM_NONE, 160, 1, 4, 160, 1, 4, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(IMAP_TESS_LOD, "ImapTessellationLod", imap_tess_lod, SPH_NM_LOD, 164, 4, 1, 164, 4, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 4) \
  X(IMAP_TESS_INTERIOR, "ImapTessellationInterior", imap_tess_interior, SPH_NM_UV, 168, 2, 1, 168, 2, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 8) \
  X(IMAP_RESERVED_A_HI, "ImapSystemValuesA.Reserved", imap_reserved_a_hi, SPH_NM_NONE, 170, 1, 14, 170, 1, 14, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(IMAP_PRIMITIVE_ID, "ImapPrimitiveId", imap_primitive_id, SPH_NM_NONE, 184, 1, 1, 184, 1, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 24) \
  X(IMAP_RT_ARRAY_INDEX, "ImapRtArrayIndex", imap_rt_array_index, SPH_NM_NONE, 185, 1, 1, 185, 1, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 25) \
  X(IMAP_VIEWPORT_INDEX, "ImapViewportIndex", imap_viewport_index, SPH_NM_NONE, 186, 1, 1, 186, 1, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 26) \
  X(IMAP_POINT_SIZE, "ImapPointSize", imap_point_size, SPH_NM_NONE, 187, 1, 1, 187, 1, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 27) \
  X(IMAP_POSITION, "ImapPosition", imap_position, SPH_NM_XYZW, 188, 4, 1, 188, 4, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 28) \
  /* IMAP: vectors, colours, system values C, texture coordinates, reserved */            \
  X(IMAP_GENERIC, "ImapGenericVector", imap_generic, SPH_NM_VEC_XYZW, 192, 128, 1, 192, 128, 2, SPH_FMT_MAP, SPH_MAP_IMAP, 32) \
  X(IMAP_COLOR, "ImapColor", imap_color, SPH_NM_COLOR, 320, 16, 1, 448, 8, 2, SPH_FMT_MAP, SPH_MAP_IMAP, 160) \
  X(IMAP_CLIP_DISTANCE, "ImapClipDistance", imap_clip_distance, SPH_NM_DIGIT, 336, 8, 1, 464, 8, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 176) \
  X(IMAP_POINT_SPRITE, "ImapPointSprite", imap_point_sprite, SPH_NM_ST, 344, 2, 1, 472, 2, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 184) \
  X(IMAP_FOG_COORDINATE, "ImapFogCoordinate", imap_fog_coordinate, SPH_NM_NONE, 346, 1, 1, 474, 1, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 186) \
  X(IMAP_RESERVED_C, "ImapSystemValuesC.Reserved", imap_reserved_c, SPH_NM_NONE, 347, 1, 1, 475, 1, 1, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(IMAP_TESS_EVAL_POINT, "ImapTessellationEvaluationPoint", imap_tess_eval_point, SPH_NM_UV, 348, 2, 1, 476, 2, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 188) \
  X(IMAP_INSTANCE_ID, "ImapInstanceId", imap_instance_id, SPH_NM_NONE, 350, 1, 1, 478, 1, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 190) \
  X(IMAP_VERTEX_ID, "ImapVertexId", imap_vertex_id, SPH_NM_NONE, 351, 1, 1, 479, 1, 1, SPH_FMT_DEC, SPH_MAP_IMAP, 191) \
  X(IMAP_TEXTURE, "ImapFixedFncTexture", imap_texture, SPH_NM_VEC_STRQ, 352, 40, 1, 480, 40, 2, SPH_FMT_MAP, SPH_MAP_IMAP, 192) \
  X(IMAP_RESERVED, "ImapReserved", imap_reserved, SPH_NM_NONE, 392, 1, 8, 560, 1, 16, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  /* OMAP of the VTG layout: the IMAP rows moved up by 240 bits */                        \
  X(OMAP_RESERVED_A_LO, "OmapSystemValuesA.Reserved", omap_reserved_a_lo, SPH_NM_NONE, 400, 1, 4, 0, 0, 0, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(OMAP_TESS_LOD, "OmapTessellationLod", omap_tess_lod, SPH_NM_LOD, 404, 4, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 4) \
  X(OMAP_TESS_INTERIOR, "OmapTessellationInterior", omap_tess_interior, SPH_NM_UV, 408, 2, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 8) \
  X(OMAP_RESERVED_A_HI, "OmapSystemValuesA.Reserved", omap_reserved_a_hi, SPH_NM_NONE, 410, 1, 14, 0, 0, 0, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(OMAP_PRIMITIVE_ID, "OmapPrimitiveId", omap_primitive_id, SPH_NM_NONE, 424, 1, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 24) \
  X(OMAP_RT_ARRAY_INDEX, "OmapRtArrayIndex", omap_rt_array_index, SPH_NM_NONE, 425, 1, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 25) \
  X(OMAP_VIEWPORT_INDEX, "OmapViewportIndex", omap_viewport_index, SPH_NM_NONE, 426, 1, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 26) \
  X(OMAP_POINT_SIZE, "OmapPointSize", omap_point_size, SPH_NM_NONE, 427, 1, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 27) \
  X(OMAP_POSITION, "OmapPosition", omap_position, SPH_NM_XYZW, 428, 4, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 28) \
  X(OMAP_GENERIC, "OmapGenericVector", omap_generic, SPH_NM_VEC_XYZW, 432, 128, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 32) \
  X(OMAP_COLOR, "OmapColor", omap_color, SPH_NM_COLOR, 560, 16, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 160) \
  X(OMAP_CLIP_DISTANCE, "OmapClipDistance", omap_clip_distance, SPH_NM_DIGIT, 576, 8, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 176) \
  X(OMAP_POINT_SPRITE, "OmapPointSprite", omap_point_sprite, SPH_NM_ST, 584, 2, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 184) \
  X(OMAP_FOG_COORDINATE, "OmapFogCoordinate", omap_fog_coordinate, SPH_NM_NONE, 586, 1, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 186) \
  X(OMAP_RESERVED_C, "OmapSystemValuesReserved17", omap_reserved_c, SPH_NM_NONE, 587, 1, 1, 0, 0, 0, SPH_FMT_HEX, SPH_MAP_NONE, 0) \
  X(OMAP_TESS_EVAL_POINT, "OmapTessellationEvaluationPoint", omap_tess_eval_point, SPH_NM_UV, 588, 2, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 188) \
  X(OMAP_INSTANCE_ID, "OmapInstanceId", omap_instance_id, SPH_NM_NONE, 590, 1, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 190) \
  X(OMAP_VERTEX_ID, "OmapVertexId", omap_vertex_id, SPH_NM_NONE, 591, 1, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 191) \
  X(OMAP_TEXTURE, "OmapFixedFncTexture", omap_texture, SPH_NM_VEC_STRQ, 592, 40, 1, 0, 0, 0, SPH_FMT_DEC, SPH_MAP_OMAP, 192) \
  /* outputs of the PS layout */                                                           \
  X(OMAP_TARGET, "OmapTarget", omap_target, SPH_NM_VEC_RGBA, 0, 0, 0, 576, 32, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(OMAP_SAMPLE_MASK, "OmapSampleMask", omap_sample_mask, SPH_NM_NONE, 0, 0, 0, 608, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(OMAP_DEPTH, "OmapDepth", omap_depth, SPH_NM_NONE, 0, 0, 0, 609, 1, 1, SPH_FMT_DEC, SPH_MAP_NONE, 0) \
  X(OMAP_RESERVED, "OmapReserved", omap_reserved, SPH_NM_NONE, 632, 1, 8, 610, 1, 30, SPH_FMT_HEX, SPH_MAP_NONE, 0)

enum sph_field_id {
#define X(id, name, member, names, vbit, vn, vw, pbit, pn, pw, fmt, map, k0) SPH_F_##id,
  SPH_FIELDS(X)
#undef X
  SPH_F_COUNT
};

/* How the elements of a field are named: the field name, then for a field
 * of several vectors "[v]." and the component, else the element's suffix
 * (ImapPositionW, ImapClipDistance3, ImapColorFrontDiffuseRed). */
enum sph_names {
  SPH_NM_NONE,      /* a scalar */
  SPH_NM_XYZW,      /* one vector: X Y Z W */
  SPH_NM_LOD,       /* Left Right Bottom Top */
  SPH_NM_UV,        /* U V */
  SPH_NM_ST,        /* S T */
  SPH_NM_DIGIT,     /* 0 1 ... 7 */
  SPH_NM_COLOR,     /* {Front,Back}{Diffuse,Specular}{Red,...}; PS: {Diffuse,Specular}{Red,...} */
  SPH_NM_VEC_XYZW,  /* [v].X ... */
  SPH_NM_VEC_STRQ,  /* [v].S ... */
  SPH_NM_VEC_RGBA   /* [v].Red ... */
};

/* How the dump prints a value. SPH_FMT_MAP prints PixelImap names for the
 * 2-bit elements of a PS and numbers otherwise. */
enum sph_fmt {
  SPH_FMT_DEC, SPH_FMT_HEX, SPH_FMT_SPH_TYPE, SPH_FMT_SHADER_TYPE, SPH_FMT_TOPOLOGY, SPH_FMT_MAP
};

enum sph_map { SPH_MAP_NONE, SPH_MAP_IMAP, SPH_MAP_OMAP };

/* Where a field sits in one layout; n == 0: not in that layout. */
typedef struct sph_place {
  uint16_t bit;
  uint8_t n, width;
} sph_place;

typedef struct sph_field {
  const char *name;
  uint16_t offset;    /* offsetof(gs_sph, member) */
  uint8_t count;      /* elements the member holds (1: a uint32_t scalar) */
  uint8_t names, fmt, map;
  uint8_t k0;         /* first attribute component (address / 4) of a map */
  sph_place at[2];    /* [0] VTG layout, [1] PS layout */
} sph_field;

extern const sph_field sph_fields[SPH_F_COUNT];

/* Layout index of a valid SphType: 0 VTG, 1 PS. */
static inline int sph_layout(uint32_t sph_type) { return sph_type == GS_SPH_TYPE_PS; }

/* Element i of field f of s (a scalar has only element 0). */
uint32_t sph_field_get(const gs_sph *s, const sph_field *f, unsigned i);
void sph_field_set(gs_sph *s, const sph_field *f, unsigned i, uint32_t v);

/* The field of layout (0 VTG, 1 PS) that holds the map entry (SPH_MAP_IMAP
 * or SPH_MAP_OMAP) of attribute component k (address / 4), with the
 * element in *elem; NULL if that layout has none (link.c). */
const sph_field *sph_find_map(int layout, int map, unsigned k, unsigned *elem);

/* Writes the name of element i of f in layout (0 VTG, 1 PS) into buf:
 * "ImapGenericVector[3].Z"; a PS's colours are "ImapColorDiffuseRed", as
 * NVIDIA's SPH description names them in that layout. */
void sph_element_name(const sph_field *f, int layout, unsigned i, char *buf, size_t len);

#endif
