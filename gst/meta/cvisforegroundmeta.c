#include "gst/cvis/cvisforegroundmeta.h"

#include "cvismeta_priv.h"

/* A whole-buffer copy, or a "scale" to the same size (a colour conversion), keeps the meta (a deep
 * copy of the structure, which refs the mask buffer); anything else (a partial copy, another size)
 * makes the mask not match the frame: dropped. */
static gboolean
foreground_meta_transform (GstBuffer * dest, GstCustomMeta * meta, GstBuffer * src, GQuark type,
    gpointer data, gpointer user_data)
{
  (void) src;
  (void) user_data;
  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    const GstVideoMetaTransform *t = (const GstVideoMetaTransform *) data;
    if (GST_VIDEO_INFO_WIDTH (t->in_info) != GST_VIDEO_INFO_WIDTH (t->out_info) ||
        GST_VIDEO_INFO_HEIGHT (t->in_info) != GST_VIDEO_INFO_HEIGHT (t->out_info))
      return FALSE;
  }
  return cvis_meta_transform_fields (dest, meta, GST_CVIS_FOREGROUND_META_NAME, type, data,
      FALSE) != NULL;
}

const GstMetaInfo *
gst_cvis_foreground_meta_get_info (void)
{
  /* The mask is bound to the frame's geometry (see the transform). */
  static const GstMetaInfo *info = NULL;
  return cvis_meta_register_video (&info, GST_CVIS_FOREGROUND_META_NAME,
      foreground_meta_transform);
}

/**
 * gst_buffer_add_cvis_foreground_meta:
 * @buffer: a writable buffer
 * @mask: (transfer none): the GRAY8 mask (a reference is taken)
 * @width: mask width
 * @height: mask height
 * @stride: bytes per mask row
 * @fraction: foreground share, 0..1
 * @cuda_memory: whether @mask holds memory:CUDAMemory
 * @blobs: foreground boxes attached to @buffer
 *
 * Returns: (transfer none) (nullable): the meta
 */
GstCustomMeta *
gst_buffer_add_cvis_foreground_meta (GstBuffer * buffer, GstBuffer * mask, gint width, gint height,
    gint stride, gdouble fraction, gboolean cuda_memory, guint blobs)
{
  GstCustomMeta *meta;
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (GST_IS_BUFFER (mask), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);
  g_return_val_if_fail (width > 0 && height > 0 && stride >= width, NULL);
  g_return_val_if_fail (fraction >= 0.0 && fraction <= 1.0, NULL);

  gst_cvis_foreground_meta_get_info ();
  meta = gst_buffer_add_custom_meta (buffer, GST_CVIS_FOREGROUND_META_NAME);
  if (!meta)
    return NULL;
  gst_structure_set (gst_custom_meta_get_structure (meta),
      "mask", GST_TYPE_BUFFER, mask,
      "width", G_TYPE_INT, width, "height", G_TYPE_INT, height, "stride", G_TYPE_INT, stride,
      "fraction", G_TYPE_DOUBLE, fraction, "cuda-memory", G_TYPE_BOOLEAN, cuda_memory,
      "blobs", G_TYPE_UINT, blobs, NULL);
  return meta;
}

/**
 * gst_buffer_get_cvis_foreground_meta:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the buffer's foreground meta
 */
GstCustomMeta *
gst_buffer_get_cvis_foreground_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  gst_cvis_foreground_meta_get_info ();
  return gst_buffer_get_custom_meta (buffer, GST_CVIS_FOREGROUND_META_NAME);
}

/**
 * gst_cvis_foreground_meta_get:
 * @meta: a foreground meta
 * @info: (out caller-allocates): its fields (the mask is owned by the meta)
 *
 * Returns: %FALSE when a field is missing
 */
gboolean
gst_cvis_foreground_meta_get (GstCustomMeta * meta, GstCvisForegroundInfo * info)
{
  GstStructure *s;
  const GValue *v;
  g_return_val_if_fail (meta != NULL && info != NULL, FALSE);
  s = gst_custom_meta_get_structure (meta);
  v = gst_structure_get_value (s, "mask");
  if (!v || !GST_VALUE_HOLDS_BUFFER (v))
    return FALSE;
  info->mask = gst_value_get_buffer (v);
  return info->mask != NULL &&
      gst_structure_get_int (s, "width", &info->width) &&
      gst_structure_get_int (s, "height", &info->height) &&
      gst_structure_get_int (s, "stride", &info->stride) &&
      gst_structure_get_double (s, "fraction", &info->fraction) &&
      gst_structure_get_boolean (s, "cuda-memory", &info->cuda_memory) &&
      gst_structure_get_uint (s, "blobs", &info->blobs);
}

/**
 * gst_buffer_add_cvis_foreground_box:
 * @buffer: a writable buffer
 * @x: left
 * @y: top
 * @width: width
 * @height: height
 * @id: blob id
 * @area: the blob's pixel count
 *
 * Returns: (transfer none): the ROI meta
 */
GstVideoRegionOfInterestMeta *
gst_buffer_add_cvis_foreground_box (GstBuffer * buffer, guint x, guint y, guint width,
    guint height, gint id, guint area)
{
  GstVideoRegionOfInterestMeta *roi;
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);
  roi = gst_buffer_add_video_region_of_interest_meta (buffer, GST_CVIS_FOREGROUND_ROI_TYPE, x, y,
      width, height);
  roi->id = id;
  gst_video_region_of_interest_meta_add_param (roi, gst_structure_new ("foreground", "area",
          G_TYPE_UINT, area, NULL));
  return roi;
}
