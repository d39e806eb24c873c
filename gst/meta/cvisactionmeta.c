#include "gst/cvis/cvisactionmeta.h"

#include "cvismeta_priv.h"

static GstStructure *
point_new (guint64 frame, gdouble x, gdouble y)
{
  return gst_structure_new ("point", "frame", G_TYPE_UINT64, frame, "x", G_TYPE_DOUBLE, x,
      "y", G_TYPE_DOUBLE, y, NULL);
}

static void
append_point (GValue * array, GstStructure * point)
{
  GValue v = G_VALUE_INIT;
  g_value_init (&v, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&v, point);
  gst_value_array_append_and_take_value (array, &v);
}

/* A whole-buffer copy keeps the meta; a scale rescales the matched points with the frame. */
static gboolean
action_meta_transform (GstBuffer * dest, GstCustomMeta * meta, GstBuffer * src, GQuark type,
    gpointer data, gpointer user_data)
{
  GstStructure *from = gst_custom_meta_get_structure (meta), *to;

  (void) src;
  (void) user_data;
  to = cvis_meta_transform_fields (dest, meta, GST_CVIS_ACTION_META_NAME, type, data, FALSE);
  if (!to)
    return FALSE;
  if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    const GstVideoMetaTransform *t = (const GstVideoMetaTransform *) data;
    const gdouble iw = GST_VIDEO_INFO_WIDTH (t->in_info), ih = GST_VIDEO_INFO_HEIGHT (t->in_info);
    const gdouble sx = iw > 0 ? GST_VIDEO_INFO_WIDTH (t->out_info) / iw : 1.0;
    const gdouble sy = ih > 0 ? GST_VIDEO_INFO_HEIGHT (t->out_info) / ih : 1.0;
    const GValue *pts = gst_structure_get_value (from, "points");
    GValue scaled = G_VALUE_INIT;
    guint i, n = pts ? gst_value_array_get_size (pts) : 0;
    g_value_init (&scaled, GST_TYPE_ARRAY);
    for (i = 0; i < n; i++) {
      const GstStructure *p = gst_value_get_structure (gst_value_array_get_value (pts, i));
      guint64 f = 0;
      gdouble x = 0, y = 0;
      gst_structure_get (p, "frame", G_TYPE_UINT64, &f, "x", G_TYPE_DOUBLE, &x, "y",
          G_TYPE_DOUBLE, &y, NULL);
      append_point (&scaled, point_new (f, x * sx, y * sy));
    }
    gst_structure_take_value (to, "points", &scaled);
  }
  return TRUE;
}

const GstMetaInfo *
gst_cvis_action_meta_get_info (void)
{
  /* The points are in the frame's pixels (see the transform). */
  static const GstMetaInfo *info = NULL;
  return cvis_meta_register_video (&info, GST_CVIS_ACTION_META_NAME, action_meta_transform);
}

/**
 * gst_buffer_add_cvis_action_meta:
 * @buffer: a writable buffer
 * @info: the fields (n_points ignored)
 *
 * Returns: (transfer none) (nullable): the meta, without points
 */
GstCustomMeta *
gst_buffer_add_cvis_action_meta (GstBuffer * buffer, const GstCvisActionInfo * info)
{
  GstCustomMeta *meta;
  GValue points = G_VALUE_INIT;
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);
  g_return_val_if_fail (info != NULL && info->label != NULL, NULL);

  gst_cvis_action_meta_get_info ();
  meta = gst_buffer_add_custom_meta (buffer, GST_CVIS_ACTION_META_NAME);
  if (!meta)
    return NULL;
  gst_structure_set (gst_custom_meta_get_structure (meta),
      "label", G_TYPE_STRING, info->label,
      "model-id", G_TYPE_INT, info->model_id,
      "model-source", G_TYPE_STRING, info->model_source ? info->model_source : "",
      "distance", G_TYPE_DOUBLE, info->distance, "energy", G_TYPE_DOUBLE, info->energy,
      "appearance", G_TYPE_DOUBLE, info->appearance, "score", G_TYPE_DOUBLE, info->score,
      "dummies", G_TYPE_INT, info->dummies, "nodes", G_TYPE_INT, info->nodes,
      "first-frame", G_TYPE_UINT64, info->first_frame,
      "last-frame", G_TYPE_UINT64, info->last_frame,
      "start", G_TYPE_UINT64, info->start, "end", G_TYPE_UINT64, info->end,
      "complete", G_TYPE_BOOLEAN, info->complete, NULL);
  g_value_init (&points, GST_TYPE_ARRAY);
  gst_structure_take_value (gst_custom_meta_get_structure (meta), "points", &points);
  return meta;
}

/**
 * gst_cvis_action_meta_add_point:
 * @meta: an action meta
 * @frame: the point's frame number
 * @x: column (pixels)
 * @y: row (pixels)
 */
void
gst_cvis_action_meta_add_point (GstCustomMeta * meta, guint64 frame, gdouble x, gdouble y)
{
  GstStructure *s;
  GValue points = G_VALUE_INIT;
  const GValue *old;
  g_return_if_fail (meta != NULL);
  s = gst_custom_meta_get_structure (meta);
  old = gst_structure_get_value (s, "points");
  g_value_init (&points, GST_TYPE_ARRAY);
  if (old && GST_VALUE_HOLDS_ARRAY (old))
    g_value_copy (old, &points);
  append_point (&points, point_new (frame, x, y));
  gst_structure_take_value (s, "points", &points);
}

/**
 * gst_buffer_get_cvis_action_meta:
 * @buffer: a buffer
 *
 * Returns: (transfer none) (nullable): the buffer's action meta
 */
GstCustomMeta *
gst_buffer_get_cvis_action_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  gst_cvis_action_meta_get_info ();
  return gst_buffer_get_custom_meta (buffer, GST_CVIS_ACTION_META_NAME);
}

/**
 * gst_cvis_action_meta_get:
 * @meta: an action meta
 * @info: (out caller-allocates): its fields (strings owned by the meta)
 *
 * Returns: %FALSE when a field is missing
 */
gboolean
gst_cvis_action_meta_get (GstCustomMeta * meta, GstCvisActionInfo * info)
{
  GstStructure *s;
  const GValue *pts;
  g_return_val_if_fail (meta != NULL && info != NULL, FALSE);
  s = gst_custom_meta_get_structure (meta);
  info->label = gst_structure_get_string (s, "label");
  info->model_source = gst_structure_get_string (s, "model-source");
  pts = gst_structure_get_value (s, "points");
  info->n_points = pts && GST_VALUE_HOLDS_ARRAY (pts) ? gst_value_array_get_size (pts) : 0;
  return info->label != NULL && info->model_source != NULL && pts != NULL &&
      gst_structure_get (s, "model-id", G_TYPE_INT, &info->model_id,
      "distance", G_TYPE_DOUBLE, &info->distance, "energy", G_TYPE_DOUBLE, &info->energy,
      "appearance", G_TYPE_DOUBLE, &info->appearance, "score", G_TYPE_DOUBLE, &info->score,
      "dummies", G_TYPE_INT, &info->dummies, "nodes", G_TYPE_INT, &info->nodes,
      "first-frame", G_TYPE_UINT64, &info->first_frame,
      "last-frame", G_TYPE_UINT64, &info->last_frame,
      "start", G_TYPE_UINT64, &info->start, "end", G_TYPE_UINT64, &info->end,
      "complete", G_TYPE_BOOLEAN, &info->complete, NULL);
}

/**
 * gst_cvis_action_meta_get_point:
 * @meta: an action meta
 * @index: point index
 * @frame: (out): its frame number
 * @x: (out): column
 * @y: (out): row
 *
 * Returns: %FALSE when @index is out of range
 */
gboolean
gst_cvis_action_meta_get_point (GstCustomMeta * meta, guint index, guint64 * frame, gdouble * x,
    gdouble * y)
{
  const GValue *pts;
  const GstStructure *p;
  g_return_val_if_fail (meta != NULL, FALSE);
  pts = gst_structure_get_value (gst_custom_meta_get_structure (meta), "points");
  if (!pts || !GST_VALUE_HOLDS_ARRAY (pts) || index >= gst_value_array_get_size (pts))
    return FALSE;
  p = gst_value_get_structure (gst_value_array_get_value (pts, index));
  return p && gst_structure_get (p, "frame", G_TYPE_UINT64, frame, "x", G_TYPE_DOUBLE, x,
      "y", G_TYPE_DOUBLE, y, NULL);
}
