/* Internal helpers of the metadata library's modules (not installed). */
#ifndef __GST_CVIS_META_PRIV_H__
#define __GST_CVIS_META_PRIV_H__

#include <gst/gst.h>
#include <gst/video/video.h>

/* Copies every field of `from` into `to` (values are copied: buffers and GBytes are shared by
 * reference, as immutable payloads). */
static inline void
cvis_meta_copy_fields (const GstStructure * from, GstStructure * to)
{
  gint i, n = gst_structure_n_fields (from);
  for (i = 0; i < n; i++) {
    const gchar *name = gst_structure_nth_field_name (from, i);
    gst_structure_set_value (to, name, gst_structure_get_value (from, name));
  }
}

/* Registers the custom meta `name` once (`*info`: the module's static) with the video, size and
 * orientation tags: video metadata bound to the frame's geometry, so scalers call `transform`
 * (which rescales what is in pixels) and elements that change the orientation or are not
 * geometry-aware drop it. Returns `*info`. */
static inline const GstMetaInfo *
cvis_meta_register_video (const GstMetaInfo ** info, const gchar * name,
    GstCustomMetaTransformFunction transform)
{
  if (g_once_init_enter ((GstMetaInfo **) info)) {
    const gchar *tags[] = { GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_SIZE_STR,
      GST_META_TAG_VIDEO_ORIENTATION_STR, NULL
    };
    const GstMetaInfo *mi = gst_meta_register_custom (name, tags, transform, NULL, NULL);
    g_once_init_leave ((GstMetaInfo **) info, (GstMetaInfo *) mi);
  }
  return *info;
}

/* The common part of the metas' transforms. The meta follows a whole-buffer copy (a region copy
 * too when `region_copies`) and a video scale; anything else drops it (NULL). When it follows, the
 * meta `name` is added to `dest` with every field of `meta` (cvis_meta_copy_fields), and the new
 * structure is returned for the caller's adjustments (a scale's coordinates); NULL when it could
 * not be added. */
static inline GstStructure *
cvis_meta_transform_fields (GstBuffer * dest, GstCustomMeta * meta, const gchar * name,
    GQuark type, gpointer data, gboolean region_copies)
{
  GstCustomMeta *out;
  GstStructure *to;
  if (GST_META_TRANSFORM_IS_COPY (type)) {
    if (!region_copies && ((GstMetaTransformCopy *) data)->region)
      return NULL;
  } else if (!GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    return NULL;
  }
  out = gst_buffer_add_custom_meta (dest, name);
  if (!out)
    return NULL;
  to = gst_custom_meta_get_structure (out);
  cvis_meta_copy_fields (gst_custom_meta_get_structure (meta), to);
  return to;
}

#endif /* __GST_CVIS_META_PRIV_H__ */
