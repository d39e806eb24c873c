/* gst-cuda-vision metadata library: the regions of interest of a buffer as plain structures.
 *
 * Boxes (foreground blobs, tracks, actions, detections) are GstVideoRegionOfInterestMetas with
 * param structures. Iterating metas is awkward from bindings (GStreamer 1.22's Python cannot cast
 * a GstMeta to the ROI meta), so this returns each ROI as a GstStructure:
 *
 *   for roi in GstCvis.buffer_list_rois(buf, "track"):   # Python, with the GstCvis typelib
 *       x, y = roi.get_uint("x")[1], roi.get_uint("y")[1]
 *       track = roi.get_value("track")                    # the param structure named "track"
 *       print(roi.get_string("roi-type"), roi.get_int("id")[1], track.get_double("distance"))
 *
 * Structure "roi": "roi-type" (string), "id", "parent-id" (gint), "x", "y", "width", "height"
 * (guint), and one GstStructure field per param structure of the ROI, named after it (e.g.
 * "foreground" with "area", "track" with "id", "distance", "scale", "lost", "age").
 */
#ifndef __GST_CVIS_ROI_H__
#define __GST_CVIS_ROI_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The buffer's ROIs of `roi_type` (NULL: all), in the buffer's meta order, as structures (above).
 * Free with g_list_free_full (list, (GDestroyNotify) gst_structure_free). */
GList *gst_cvis_buffer_list_rois (GstBuffer * buffer, const gchar * roi_type);

/* One ROI as such a structure (newly allocated). */
GstStructure *gst_cvis_roi_to_structure (const GstVideoRegionOfInterestMeta * roi);

G_END_DECLS

#endif /* __GST_CVIS_ROI_H__ */
