#include "gst/cvis/cvisanalytics.h"

#include <gst/video/video.h>

static gdouble
param_double (GstVideoRegionOfInterestMeta * roi, const gchar * field, gdouble fallback)
{
  GList *l;
  gdouble v;
  for (l = roi->params; l; l = l->next)
    if (gst_structure_get_double ((const GstStructure *) l->data, field, &v))
      return v;
  return fallback;
}

static gboolean
param_uint64 (GstVideoRegionOfInterestMeta * roi, const gchar * field, guint64 * out)
{
  GList *l;
  for (l = roi->params; l; l = l->next) {
    const GstStructure *s = (const GstStructure *) l->data;
    gint i;
    guint u;
    if (gst_structure_get_uint (s, field, &u)) {
      *out = u;
      return TRUE;
    }
    if (gst_structure_get_int (s, field, &i) && i >= 0) {
      *out = (guint64) i;
      return TRUE;
    }
  }
  return FALSE;
}

static gboolean
param_true (GstVideoRegionOfInterestMeta * roi, const gchar * field)
{
  GList *l;
  gboolean b;
  for (l = roi->params; l; l = l->next)
    if (gst_structure_get_boolean ((const GstStructure *) l->data, field, &b) && b)
      return TRUE;
  return FALSE;
}

/* Every "foreground" detection whose centre lies inside the box: part of the track. */
static void
relate_blobs (GstAnalyticsRelationMeta * rmeta, GstAnalyticsODMtd * track, gint x, gint y, gint w,
    gint h)
{
  static GQuark fg = 0;
  gpointer state = NULL;
  GstAnalyticsODMtd od;
  if (!fg)
    fg = g_quark_from_static_string ("foreground");
  while (gst_analytics_relation_meta_iterate (rmeta, &state, gst_analytics_od_mtd_get_mtd_type (),
          &od)) {
    gint bx, by, bw, bh;
    gfloat conf;
    if (gst_analytics_od_mtd_get_obj_type (&od) != fg ||
        !gst_analytics_od_mtd_get_location (&od, &bx, &by, &bw, &bh, &conf))
      continue;
    const gint cx = bx + bw / 2, cy = by + bh / 2;
    if (cx < x || cy < y || cx >= x + w || cy >= y + h)
      continue;
    gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_CONTAIN, track->id,
        od.id);
    gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_IS_PART_OF, od.id,
        track->id);
  }
}

guint
gst_cvis_analytics_add_rois (GstBuffer * buffer, guint first)
{
  GstAnalyticsRelationMeta *rmeta;
  gpointer state = NULL;
  GstMeta *meta;
  guint index = 0, converted = 0;
  const GQuark track_type = g_quark_from_static_string ("track");

  g_return_val_if_fail (GST_IS_BUFFER (buffer), 0);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), 0);
  rmeta = gst_buffer_get_analytics_relation_meta (buffer);
  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GstAnalyticsODMtd od;
    const gint x = (gint) MIN (roi->x, (guint) G_MAXINT), y = (gint) MIN (roi->y, (guint) G_MAXINT);
    const gint w = (gint) MIN (roi->w, (guint) G_MAXINT), h = (gint) MIN (roi->h, (guint) G_MAXINT);
    if (index++ < first)
      continue;
    if (!rmeta && !(rmeta = gst_buffer_add_analytics_relation_meta (buffer)))
      return converted;
    if (!gst_analytics_relation_meta_add_od_mtd (rmeta, roi->roi_type, x, y, w, h,
            (gfloat) param_double (roi, "score", 1.0), &od))
      continue;
    converted++;
    if (roi->roi_type != track_type)
      continue;
    guint64 id = roi->id >= 0 ? (guint64) roi->id : 0, age = 0;
    GstClockTime pts = GST_BUFFER_PTS (buffer), first_seen = pts;
    GstAnalyticsTrackingMtd trk;
    param_uint64 (roi, "id", &id);
    if (GST_CLOCK_TIME_IS_VALID (pts) && GST_BUFFER_DURATION_IS_VALID (buffer) &&
        param_uint64 (roi, "age", &age)) {
      const GstClockTime back = age * GST_BUFFER_DURATION (buffer);
      first_seen = back <= pts ? pts - back : 0;
    }
    if (!gst_analytics_relation_meta_add_tracking_mtd (rmeta, id, first_seen, &trk))
      continue;
    gst_analytics_tracking_mtd_update_last_seen (&trk, pts);
    if (param_true (roi, "lost"))
      gst_analytics_tracking_mtd_set_lost (&trk);
    gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id,
        trk.id);
    gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO, trk.id,
        od.id);
    relate_blobs (rmeta, &od, x, y, w, h);
  }
  return converted;
}
