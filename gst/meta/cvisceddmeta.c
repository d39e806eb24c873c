#include "gst/cvis/cvisceddmeta.h"

#include <gst/video/video.h>
#include <string.h>

#include "cvismeta_priv.h"

#define REGION_INTS 5

/* Sets a GBytes field, taking ownership of `bytes`. */
static void
set_bytes (GstStructure * s, const gchar * field, GBytes * bytes)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_BYTES);
  g_value_take_boxed (&v, bytes);
  gst_structure_take_value (s, field, &v);
}

static gboolean
cedd_meta_transform (GstBuffer * dest, GstCustomMeta * meta, GstBuffer * src, GQuark type,
    gpointer data, gpointer user_data)
{
  GstStructure *s = gst_custom_meta_get_structure (meta);
  GstStructure *os;

  (void) src;
  (void) user_data;
  /* Region copies keep it too. GBytes are immutable and refcounted: the copy shares the
   * descriptor payload. */
  os = cvis_meta_transform_fields (dest, meta, GST_CVIS_CEDD_META_NAME, type, data, TRUE);
  if (!os)
    return FALSE;

  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    GstVideoMetaTransform *t = (GstVideoMetaTransform *) data;
    const GValue *v = gst_structure_get_value (s, "regions");
    gint iw = GST_VIDEO_INFO_WIDTH (t->in_info), ih = GST_VIDEO_INFO_HEIGHT (t->in_info);
    gint ow = GST_VIDEO_INFO_WIDTH (t->out_info), oh = GST_VIDEO_INFO_HEIGHT (t->out_info);
    if (v && iw > 0 && ih > 0) {
      gsize size = 0, k, count;
      const gint32 *r = g_bytes_get_data (g_value_get_boxed (v), &size);
      gint32 *nr = g_memdup2 (r, size);
      count = size / (REGION_INTS * sizeof (gint32));
      for (k = 0; k < count; k++) {
        gint32 *e = nr + k * REGION_INTS;
        e[1] = (gint32) gst_util_uint64_scale_int (e[1], ow, iw);
        e[2] = (gint32) gst_util_uint64_scale_int (e[2], oh, ih);
        e[3] = (gint32) gst_util_uint64_scale_int (e[3], ow, iw);
        e[4] = (gint32) gst_util_uint64_scale_int (e[4], oh, ih);
      }
      set_bytes (os, "regions", g_bytes_new_take (nr, size));
    }
  }
  return TRUE;
}

const GstMetaInfo *
gst_cvis_cedd_meta_get_info (void)
{
  /* The boxes are rescaled by the transform. */
  static const GstMetaInfo *info = NULL;
  return cvis_meta_register_video (&info, GST_CVIS_CEDD_META_NAME, cedd_meta_transform);
}

/**
 * gst_buffer_add_cvis_cedd_meta: (skip)
 *
 * C API (elements); see the header.
 */
GstCustomMeta *
gst_buffer_add_cvis_cedd_meta (GstBuffer * buffer, guint n, const GstCvisCeddRegion * regions,
    const guint8 * levels)
{
  GstCustomMeta *meta;
  GstStructure *s;
  guint8 *packed;
  gint32 *reg;
  guint i;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);
  g_return_val_if_fail (n == 0 || (regions != NULL && levels != NULL), NULL);
  for (i = 0; i < n * GST_CVIS_CEDD_BINS; i++)
    g_return_val_if_fail (levels[i] <= 7, NULL);

  gst_cvis_cedd_meta_get_info ();
  meta = gst_buffer_add_custom_meta (buffer, GST_CVIS_CEDD_META_NAME);
  if (!meta)
    return NULL;
  s = gst_custom_meta_get_structure (meta);

  packed = g_malloc0 ((gsize) MAX (n, 1) * GST_CVIS_CEDD_PACKED_SIZE);
  reg = g_malloc0 ((gsize) MAX (n, 1) * REGION_INTS * sizeof (gint32));
  for (i = 0; i < n; i++) {
    gst_cvis_cedd_pack (levels + (gsize) i * GST_CVIS_CEDD_BINS,
        packed + (gsize) i * GST_CVIS_CEDD_PACKED_SIZE);
    reg[i * REGION_INTS + 0] = regions[i].roi_id;
    reg[i * REGION_INTS + 1] = regions[i].x;
    reg[i * REGION_INTS + 2] = regions[i].y;
    reg[i * REGION_INTS + 3] = regions[i].width;
    reg[i * REGION_INTS + 4] = regions[i].height;
  }
  gst_structure_set (s, "count", G_TYPE_UINT, n, "frame-distance", G_TYPE_DOUBLE, -1.0,
      "shot-change", G_TYPE_BOOLEAN, FALSE, NULL);
  set_bytes (s, "levels", g_bytes_new (levels, (gsize) n * GST_CVIS_CEDD_BINS));
  set_bytes (s, "packed", g_bytes_new_take (packed, (gsize) n * GST_CVIS_CEDD_PACKED_SIZE));
  set_bytes (s, "regions", g_bytes_new_take (reg, (gsize) n * REGION_INTS * sizeof (gint32)));
  return meta;
}

/**
 * gst_buffer_get_cvis_cedd_meta:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the buffer's CEDD meta
 */
GstCustomMeta *
gst_buffer_get_cvis_cedd_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  gst_cvis_cedd_meta_get_info ();
  return gst_buffer_get_custom_meta (buffer, GST_CVIS_CEDD_META_NAME);
}

static const guint8 *
field_data (GstStructure * s, const gchar * name, gsize * size)
{
  const GValue *v = gst_structure_get_value (s, name);
  *size = 0;
  if (!v || !G_VALUE_HOLDS (v, G_TYPE_BYTES) || !g_value_get_boxed (v))
    return NULL;
  return g_bytes_get_data (g_value_get_boxed (v), size);
}

/**
 * gst_cvis_cedd_meta_get_count:
 * @meta: a CEDD meta
 *
 * Returns: the number of descriptors in @meta
 */
guint
gst_cvis_cedd_meta_get_count (GstCustomMeta * meta)
{
  guint n = 0;
  g_return_val_if_fail (meta != NULL, 0);
  gst_structure_get_uint (gst_custom_meta_get_structure (meta), "count", &n);
  return n;
}

/**
 * gst_cvis_cedd_meta_get_entry: (skip)
 *
 * C API: pointers into the meta (bindings: get_region, get_levels, get_packed).
 */
gboolean
gst_cvis_cedd_meta_get_entry (GstCustomMeta * meta, guint index, GstCvisCeddEntry * entry)
{
  GstStructure *s;
  gsize nl, np, nr;
  const guint8 *levels, *packed;
  const gint32 *r;

  g_return_val_if_fail (meta != NULL && entry != NULL, FALSE);
  if (index >= gst_cvis_cedd_meta_get_count (meta))
    return FALSE;
  s = gst_custom_meta_get_structure (meta);
  levels = field_data (s, "levels", &nl);
  packed = field_data (s, "packed", &np);
  r = (const gint32 *) field_data (s, "regions", &nr);
  if (!levels || !packed || !r || nl < (index + 1) * (gsize) GST_CVIS_CEDD_BINS ||
      np < (index + 1) * (gsize) GST_CVIS_CEDD_PACKED_SIZE ||
      nr < (index + 1) * REGION_INTS * sizeof (gint32))
    return FALSE;
  r += index * REGION_INTS;
  entry->roi_id = r[0];
  entry->x = r[1];
  entry->y = r[2];
  entry->width = r[3];
  entry->height = r[4];
  entry->levels = levels + (gsize) index * GST_CVIS_CEDD_BINS;
  entry->packed = packed + (gsize) index * GST_CVIS_CEDD_PACKED_SIZE;
  return TRUE;
}

/**
 * gst_cvis_cedd_meta_find: (skip)
 *
 * C API: pointers into the meta (bindings: find_index).
 */
gboolean
gst_cvis_cedd_meta_find (GstCustomMeta * meta, gint roi_id, GstCvisCeddEntry * entry)
{
  guint i, n = gst_cvis_cedd_meta_get_count (meta);
  for (i = 0; i < n; i++) {
    if (gst_cvis_cedd_meta_get_entry (meta, i, entry) && entry->roi_id == roi_id)
      return TRUE;
  }
  return FALSE;
}

/**
 * gst_cvis_cedd_meta_set_shot:
 * @meta: a CEDD meta
 * @frame_distance: Tanimoto distance to the previous frame's descriptor (-1: none)
 * @shot_change: whether the frame starts a new shot
 */
void
gst_cvis_cedd_meta_set_shot (GstCustomMeta * meta, gdouble frame_distance, gboolean shot_change)
{
  g_return_if_fail (meta != NULL);
  gst_structure_set (gst_custom_meta_get_structure (meta), "frame-distance", G_TYPE_DOUBLE,
      frame_distance, "shot-change", G_TYPE_BOOLEAN, shot_change, NULL);
}

/**
 * gst_cvis_cedd_meta_get_shot:
 * @meta: a CEDD meta
 * @frame_distance: (out): Tanimoto distance to the previous frame's descriptor (-1: none)
 * @shot_change: (out): whether the frame starts a new shot
 *
 * Returns: %TRUE when @meta holds the shot annotation
 */
gboolean
gst_cvis_cedd_meta_get_shot (GstCustomMeta * meta, gdouble * frame_distance, gboolean * shot_change)
{
  GstStructure *s;
  g_return_val_if_fail (meta != NULL, FALSE);
  s = gst_custom_meta_get_structure (meta);
  return gst_structure_get_double (s, "frame-distance", frame_distance) &&
      gst_structure_get_boolean (s, "shot-change", shot_change);
}

/**
 * gst_cvis_cedd_tanimoto:
 * @a: (array fixed-size=144): levels of a descriptor (0..7)
 * @b: (array fixed-size=144): levels of another descriptor
 *
 * Returns: the Tanimoto distance as LIRE's CEDD.getDistance, 0 (identical) .. 100
 */
gdouble
gst_cvis_cedd_tanimoto (const guint8 * a, const guint8 * b)
{
  /* LIRE CEDD.getDistance; operation order as specified (sums in index order, no FMA: the
   * project builds with -ffp-contract=off). */
  gdouble ta = 0.0, tb = 0.0, p = 0.0, q = 0.0, r = 0.0;
  gint i;
  for (i = 0; i < GST_CVIS_CEDD_BINS; i++) {
    ta += a[i];
    tb += b[i];
  }
  if (ta == 0.0 && tb == 0.0)
    return 0.0;
  if (ta == 0.0 || tb == 0.0)
    return 100.0;
  for (i = 0; i < GST_CVIS_CEDD_BINS; i++) {
    gdouble x = a[i] / ta, y = b[i] / tb;
    p += x * y;
    q += y * y;
    r += x * x;
  }
  return 100.0 - 100.0 * (p / (q + r - p));
}

/**
 * gst_cvis_cedd_pack: (skip)
 *
 * C API: writes into caller memory (bindings: gst_cvis_cedd_pack_new).
 */
void
gst_cvis_cedd_pack (const guint8 * levels, guint8 * packed)
{
  gint i;
  memset (packed, 0, GST_CVIS_CEDD_PACKED_SIZE);
  for (i = 0; i < GST_CVIS_CEDD_BINS; i++) {
    guint bit = 3u * (guint) i;
    guint v = (guint) (levels[i] & 7u) << (bit % 8u);
    packed[bit / 8u] |= (guint8) (v & 0xFFu);
    if (v > 0xFFu)
      packed[bit / 8u + 1u] |= (guint8) (v >> 8);
  }
}

/**
 * gst_cvis_cedd_unpack: (skip)
 *
 * C API: writes into caller memory (bindings: gst_cvis_cedd_unpack_new).
 */
void
gst_cvis_cedd_unpack (const guint8 * packed, guint8 * levels)
{
  gint i;
  for (i = 0; i < GST_CVIS_CEDD_BINS; i++) {
    guint bit = 3u * (guint) i;
    guint v = packed[bit / 8u];
    if (bit / 8u + 1u < GST_CVIS_CEDD_PACKED_SIZE)
      v |= (guint) packed[bit / 8u + 1u] << 8;
    levels[i] = (guint8) ((v >> (bit % 8u)) & 7u);
  }
}

/**
 * gst_cvis_cedd_to_lire_bytes: (skip)
 *
 * C API: writes into caller memory (bindings: gst_cvis_cedd_to_lire_new).
 */
guint
gst_cvis_cedd_to_lire_bytes (const guint8 * levels, guint8 * out)
{
  gint p = GST_CVIS_CEDD_BINS - 1, k, n;
  /* p: first index of the trailing run of zeros (143 when the last level is non-zero). */
  if (levels[p] == 0) {
    while (p > 0 && levels[p - 1] == 0)
      p--;
  }
  n = (p + 2) / 2;
  for (k = 0; k < n; k++)
    out[k] = (guint8) ((((guint) levels[2 * k] << 4) | levels[2 * k + 1]) ^ 0x80u);
  return (guint) n;
}

/**
 * gst_cvis_cedd_from_lire_bytes: (skip)
 *
 * C API: writes into caller memory (bindings: gst_cvis_cedd_from_lire_new).
 */
gboolean
gst_cvis_cedd_from_lire_bytes (const guint8 * bytes, guint n, guint8 * levels)
{
  guint k;
  if (n > GST_CVIS_CEDD_LIRE_MAX_BYTES)
    return FALSE;
  memset (levels, 0, GST_CVIS_CEDD_BINS);
  for (k = 0; k < n; k++) {
    guint v = bytes[k] ^ 0x80u;
    levels[2 * k] = (guint8) (v >> 4);
    levels[2 * k + 1] = (guint8) (v & 0xFu);
  }
  return TRUE;
}

/* Binding-friendly accessors (no pointers into the meta). */

static GBytes *
slice_bytes (GstCustomMeta * meta, const gchar * field, guint index, gsize size)
{
  const GValue *v;
  GBytes *all;
  g_return_val_if_fail (meta != NULL, NULL);
  if (index >= gst_cvis_cedd_meta_get_count (meta))
    return NULL;
  v = gst_structure_get_value (gst_custom_meta_get_structure (meta), field);
  if (!v || !G_VALUE_HOLDS (v, G_TYPE_BYTES) || !(all = g_value_get_boxed (v)) ||
      g_bytes_get_size (all) < (index + 1) * size)
    return NULL;
  return g_bytes_new_from_bytes (all, index * size, size);
}

/**
 * gst_cvis_cedd_meta_get_levels:
 * @meta: a CEDD meta
 * @index: descriptor index, below gst_cvis_cedd_meta_get_count()
 *
 * Returns: (transfer full) (nullable): the 144 levels (0..7) of descriptor @index
 */
GBytes *
gst_cvis_cedd_meta_get_levels (GstCustomMeta * meta, guint index)
{
  return slice_bytes (meta, "levels", index, GST_CVIS_CEDD_BINS);
}

/**
 * gst_cvis_cedd_meta_get_packed:
 * @meta: a CEDD meta
 * @index: descriptor index
 *
 * Returns: (transfer full) (nullable): the 54-byte packed form of descriptor @index
 */
GBytes *
gst_cvis_cedd_meta_get_packed (GstCustomMeta * meta, guint index)
{
  return slice_bytes (meta, "packed", index, GST_CVIS_CEDD_PACKED_SIZE);
}

/**
 * gst_cvis_cedd_meta_get_region:
 * @meta: a CEDD meta
 * @index: descriptor index
 * @region: (out caller-allocates): where descriptor @index was computed
 *
 * Returns: %TRUE when @index exists
 */
gboolean
gst_cvis_cedd_meta_get_region (GstCustomMeta * meta, guint index, GstCvisCeddRegion * region)
{
  GstCvisCeddEntry e;
  g_return_val_if_fail (region != NULL, FALSE);
  if (!gst_cvis_cedd_meta_get_entry (meta, index, &e))
    return FALSE;
  region->roi_id = e.roi_id;
  region->x = e.x;
  region->y = e.y;
  region->width = e.width;
  region->height = e.height;
  return TRUE;
}

/**
 * gst_cvis_cedd_meta_find_index:
 * @meta: a CEDD meta
 * @roi_id: a ROI id, or %GST_CVIS_CEDD_FRAME_ID for the whole frame's descriptor
 *
 * Returns: the index of the descriptor computed for @roi_id, -1 when there is none
 */
gint
gst_cvis_cedd_meta_find_index (GstCustomMeta * meta, gint roi_id)
{
  GstCvisCeddEntry e;
  guint i, n = gst_cvis_cedd_meta_get_count (meta);
  for (i = 0; i < n; i++) {
    if (gst_cvis_cedd_meta_get_entry (meta, i, &e) && e.roi_id == roi_id)
      return (gint) i;
  }
  return -1;
}

/**
 * gst_cvis_cedd_pack_new: (rename-to gst_cvis_cedd_pack)
 * @levels: (array fixed-size=144): levels (low 3 bits used)
 *
 * Returns: (transfer full) (array fixed-size=54): the 3-bit packed form
 */
guint8 *
gst_cvis_cedd_pack_new (const guint8 * levels)
{
  guint8 *packed = g_malloc (GST_CVIS_CEDD_PACKED_SIZE);
  gst_cvis_cedd_pack (levels, packed);
  return packed;
}

/**
 * gst_cvis_cedd_unpack_new: (rename-to gst_cvis_cedd_unpack)
 * @packed: (array fixed-size=54): the 3-bit packed form
 *
 * Returns: (transfer full) (array fixed-size=144): the levels
 */
guint8 *
gst_cvis_cedd_unpack_new (const guint8 * packed)
{
  guint8 *levels = g_malloc (GST_CVIS_CEDD_BINS);
  gst_cvis_cedd_unpack (packed, levels);
  return levels;
}

/**
 * gst_cvis_cedd_to_lire_new: (rename-to gst_cvis_cedd_to_lire_bytes)
 * @levels: (array fixed-size=144): the levels
 * @n: (out): length of the result
 *
 * Returns: (transfer full) (array length=n): LIRE's byte form
 */
guint8 *
gst_cvis_cedd_to_lire_new (const guint8 * levels, gsize * n)
{
  guint8 *out = g_malloc (GST_CVIS_CEDD_LIRE_MAX_BYTES);
  *n = gst_cvis_cedd_to_lire_bytes (levels, out);
  return out;
}

/**
 * gst_cvis_cedd_from_lire_new: (rename-to gst_cvis_cedd_from_lire_bytes)
 * @bytes: (array length=n): LIRE's byte form
 * @n: its length (at most 72)
 * @error: set when @n is too long
 *
 * Returns: (transfer full) (array fixed-size=144): the levels (%NULL on error)
 */
guint8 *
gst_cvis_cedd_from_lire_new (const guint8 * bytes, gsize n, GError ** error)
{
  guint8 *levels;
  if (n > GST_CVIS_CEDD_LIRE_MAX_BYTES) {
    g_set_error (error, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
        "a LIRE CEDD descriptor has at most %d bytes, not %" G_GSIZE_FORMAT,
        GST_CVIS_CEDD_LIRE_MAX_BYTES, n);
    return NULL;
  }
  levels = g_malloc (GST_CVIS_CEDD_BINS);
  gst_cvis_cedd_from_lire_bytes (bytes, (guint) n, levels);
  return levels;
}
