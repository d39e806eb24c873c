/* GstCvisFilter: the optional GStreamer >= 1.24 analytics output (property analytics-meta): the
 * boxes an element attaches to a buffer are also written as GstAnalyticsRelationMeta mtds
 * (<gst/cvis/cvisanalytics.h>). Built against 1.22 the property refuses TRUE with a warning. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvisanalytics.h>
#include <gst/video/video.h>

#include "gstcvisfilter_priv.h"

guint
gst_cvis_filter_roi_count (GstBuffer * buf)
{
  guint n = 0;
  gpointer state = NULL;
  while (gst_buffer_iterate_meta_filtered (buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    n++;
  return n;
}

gboolean
gst_cvis_filter_analytics_supported (void)
{
  return GST_CVIS_HAVE_ANALYTICS;
}

void
gst_cvis_filter_publish_analytics (GstCvisFilter * self, GstBuffer * buf, guint first)
{
#if GST_CVIS_HAVE_ANALYTICS
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  {
    std::lock_guard<std::mutex> lk (priv->lock);
    if (!priv->analytics)
      return;
  }
  gst_cvis_analytics_add_rois (buf, first);
#else
  (void) self;
  (void) buf;
  (void) first;
#endif
}
