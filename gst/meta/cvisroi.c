#include "gst/cvis/cvisroi.h"

/**
 * gst_cvis_roi_to_structure:
 * @roi: a region of interest
 *
 * Returns: (transfer full): @roi as a "roi" structure (see cvisroi.h)
 */
GstStructure *
gst_cvis_roi_to_structure (const GstVideoRegionOfInterestMeta * roi)
{
  GstStructure *s;
  GList *l;
  g_return_val_if_fail (roi != NULL, NULL);
  s = gst_structure_new ("roi", "roi-type", G_TYPE_STRING, g_quark_to_string (roi->roi_type),
      "id", G_TYPE_INT, roi->id, "parent-id", G_TYPE_INT, roi->parent_id,
      "x", G_TYPE_UINT, roi->x, "y", G_TYPE_UINT, roi->y, "width", G_TYPE_UINT, roi->w,
      "height", G_TYPE_UINT, roi->h, NULL);
  for (l = roi->params; l; l = l->next) {
    const GstStructure *p = (const GstStructure *) l->data;
    gst_structure_set (s, gst_structure_get_name (p), GST_TYPE_STRUCTURE, p, NULL);
  }
  return s;
}

/**
 * gst_cvis_buffer_list_rois:
 * @buffer: a buffer
 * @roi_type: (nullable): only ROIs of this type; %NULL: all
 *
 * Returns: (transfer full) (element-type Gst.Structure): the ROIs as structures, in meta order
 */
GList *
gst_cvis_buffer_list_rois (GstBuffer * buffer, const gchar * roi_type)
{
  GList *out = NULL;
  gpointer state = NULL;
  GstMeta *meta;
  GQuark type = roi_type ? g_quark_from_string (roi_type) : 0;
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    const GstVideoRegionOfInterestMeta *roi = (const GstVideoRegionOfInterestMeta *) meta;
    if (roi_type && roi->roi_type != type)
      continue;
    out = g_list_prepend (out, gst_cvis_roi_to_structure (roi));
  }
  return g_list_reverse (out);
}
