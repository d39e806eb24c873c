/* gst-cuda-vision metadata library: the boxes as GStreamer analytics metadata (GStreamer >= 1.24).
 *
 * Built only against gstreamer-analytics-1.0 >= 1.24 (then <gst/cvis/cvisconfig.h> defines
 * GST_CVIS_HAVE_ANALYTICS to 1); GStreamer 1.22 has no analytics library and the plugin keeps
 * GstVideoRegionOfInterestMeta as its only box format there. The elements' `analytics-meta`
 * property (GstCvisFilter) calls this for the boxes each element attaches.
 *
 * Every GstVideoRegionOfInterestMeta converted becomes, in the buffer's GstAnalyticsRelationMeta
 * (added when there is none):
 * - an object-detection mtd: type = the roi_type quark, the box, confidence = the param field
 *   "score" (gdouble) when present, else 1.0;
 * - for roi_type "track" (cudarcdtrack) also a tracking mtd: id = the param field "id" (else the
 *   ROI's id), first seen = the buffer's PTS minus "age" (frames) x its duration (the PTS when
 *   either is unknown), last seen = the PTS, lost when the param field "lost" is TRUE; the
 *   detection and the tracking mtd RELATE_TO each other;
 * - a track's detection CONTAINs every "foreground" detection (cudabgsub / cudamedian3d blobs,
 *   converted earlier on the same buffer) whose centre lies inside the track's box, and each such
 *   blob IS_PART_OF the track.
 */
#ifndef __GST_CVIS_ANALYTICS_H__
#define __GST_CVIS_ANALYTICS_H__

#include <gst/cvis/cvisconfig.h>
#include <gst/gst.h>

#if GST_CVIS_HAVE_ANALYTICS
#include <gst/analytics/analytics.h>

G_BEGIN_DECLS

/* Converts the buffer's GstVideoRegionOfInterestMetas from the `first`-th on (in meta order: 0
 * converts all) as described above. The buffer must be writable. Returns the number of ROIs
 * converted. */
guint gst_cvis_analytics_add_rois (GstBuffer * buffer, guint first);

G_END_DECLS
#endif

#endif /* __GST_CVIS_ANALYTICS_H__ */
