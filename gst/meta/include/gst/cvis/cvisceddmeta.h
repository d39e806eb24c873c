/* gst-cuda-vision metadata library: CEDD descriptor meta.
 *
 * One GstCvisCeddMeta per buffer carries every CEDD descriptor computed for that frame: the whole
 * frame and/or regions of interest. It is a GstCustomMeta (name GST_CVIS_CEDD_META_NAME) so that
 * Python reads it without bindings of its own:
 *
 *   m = buf.get_custom_meta("GstCvisCeddMeta")
 *   s = m.get_structure()
 *   n = s.get_value("count")                       # descriptors in this meta
 *   levels = s.get_value("levels").get_data()     # n * 144 bytes, values 0..7
 *   packed = s.get_value("packed").get_data()     # n * 54 bytes (3-bit packed form)
 *   regions = s.get_value("regions").get_data()   # n * 5 int32 (native byte order):
 *                                                 #   roi_id, x, y, width, height
 *
 * Structure fields: "count" (guint), "levels", "packed", "regions" (GBytes, layouts above),
 * "frame-distance" (gdouble: Tanimoto distance of the frame descriptor to the previous frame's,
 * -1 when there is none) and "shot-change" (gboolean). roi_id is GST_CVIS_CEDD_FRAME_ID for the
 * whole-frame descriptor, else the id of the GstVideoRegionOfInterestMeta it was computed for.
 * Boxes are in pixels of the frame the descriptor was computed on; a scale transform rescales them.
 *
 * Packed form: level i occupies bits 3i .. 3i+2 of the 432-bit little-endian bit string, i.e. bit
 * (3i + k) is bit ((3i + k) % 8) of byte (3i + k) / 8.
 */
#ifndef __GST_CVIS_CEDD_META_H__
#define __GST_CVIS_CEDD_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_CVIS_CEDD_META_NAME "GstCvisCeddMeta"
#define GST_CVIS_CEDD_BINS 144
#define GST_CVIS_CEDD_PACKED_SIZE 54
#define GST_CVIS_CEDD_LIRE_MAX_BYTES 72
#define GST_CVIS_CEDD_FRAME_ID (-1)

/* One descriptor. `levels` and `packed` point into the meta (valid while the meta lives). */
typedef struct {
  gint roi_id;
  gint x, y, width, height;
  const guint8 *levels;   /* GST_CVIS_CEDD_BINS values, 0..7 */
  const guint8 *packed;   /* GST_CVIS_CEDD_PACKED_SIZE bytes */
} GstCvisCeddEntry;

/* Where a descriptor was computed: the whole frame (roi_id = GST_CVIS_CEDD_FRAME_ID) or a ROI. */
typedef struct {
  gint roi_id;
  gint x, y, width, height;
} GstCvisCeddRegion;

/* Registers the meta (idempotent, thread-safe) and returns its info. */
const GstMetaInfo *gst_cvis_cedd_meta_get_info (void);

/* Adds a meta holding `n` descriptors: regions[i] and levels[i*144 .. i*144+143] (each 0..7).
 * The buffer must be writable. Returns NULL (with a critical) on invalid input. */
GstCustomMeta *gst_buffer_add_cvis_cedd_meta (GstBuffer * buffer, guint n,
    const GstCvisCeddRegion * regions, const guint8 * levels);

/* The buffer's CEDD meta, or NULL. */
GstCustomMeta *gst_buffer_get_cvis_cedd_meta (GstBuffer * buffer);

guint gst_cvis_cedd_meta_get_count (GstCustomMeta * meta);
gboolean gst_cvis_cedd_meta_get_entry (GstCustomMeta * meta, guint index, GstCvisCeddEntry * entry);
/* The entry for `roi_id` (GST_CVIS_CEDD_FRAME_ID: the frame's). */
gboolean gst_cvis_cedd_meta_find (GstCustomMeta * meta, gint roi_id, GstCvisCeddEntry * entry);

/* The same without pointers into the meta (for bindings; Python: GstCvis.cedd_meta_get_levels):
 * copies of descriptor `index`'s levels (144 bytes) and packed form (54 bytes), NULL when there
 * is no such index; its region; the index of the descriptor of `roi_id` (-1: none). */
GBytes *gst_cvis_cedd_meta_get_levels (GstCustomMeta * meta, guint index);
GBytes *gst_cvis_cedd_meta_get_packed (GstCustomMeta * meta, guint index);
gboolean gst_cvis_cedd_meta_get_region (GstCustomMeta * meta, guint index,
    GstCvisCeddRegion * region);
gint gst_cvis_cedd_meta_find_index (GstCustomMeta * meta, gint roi_id);

/* Shot-change annotation of the frame descriptor (set by cudacedd). */
void gst_cvis_cedd_meta_set_shot (GstCustomMeta * meta, gdouble frame_distance, gboolean shot_change);
gboolean gst_cvis_cedd_meta_get_shot (GstCustomMeta * meta, gdouble * frame_distance,
    gboolean * shot_change);

/* Tanimoto distance of two descriptors as LIRE's CEDD.getDistance: 0 (identical) .. 100. */
gdouble gst_cvis_cedd_tanimoto (const guint8 * a, const guint8 * b);

/* 3-bit packing (layout above): `levels` holds GST_CVIS_CEDD_BINS values 0..7 (only the low 3 bits
 * of each are used), `packed` GST_CVIS_CEDD_PACKED_SIZE bytes. */
void gst_cvis_cedd_pack (const guint8 * levels, guint8 * packed);
void gst_cvis_cedd_unpack (const guint8 * packed, guint8 * levels);

/* LIRE's byte serialisation (CEDD.getByteArrayRepresentation): writes at most
 * GST_CVIS_CEDD_LIRE_MAX_BYTES bytes, returns how many. lire_decode is its inverse. */
guint gst_cvis_cedd_to_lire_bytes (const guint8 * levels, guint8 * out);
gboolean gst_cvis_cedd_from_lire_bytes (const guint8 * bytes, guint n, guint8 * levels);

/* The same returning newly allocated arrays (g_free them): what bindings call (Python:
 * GstCvis.cedd_pack(levels) -> bytes, cedd_unpack, cedd_to_lire_bytes, cedd_from_lire_bytes; the
 * last fails with a GError when n > GST_CVIS_CEDD_LIRE_MAX_BYTES). */
guint8 *gst_cvis_cedd_pack_new (const guint8 * levels);
guint8 *gst_cvis_cedd_unpack_new (const guint8 * packed);
guint8 *gst_cvis_cedd_to_lire_new (const guint8 * levels, gsize * n);
guint8 *gst_cvis_cedd_from_lire_new (const guint8 * bytes, gsize n, GError ** error);

G_END_DECLS

#endif /* __GST_CVIS_CEDD_META_H__ */
