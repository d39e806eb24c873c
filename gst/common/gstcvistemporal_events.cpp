/* GstCvisTemporalFilter: serialised events behind owed outputs, latency (query and message) and
 * the upstream buffers frame outputs hold. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvisfilter_priv.h"
#include "gstcvistemporal_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cvis_temporal_debug);
#define GST_CAT_DEFAULT gst_cvis_temporal_debug

gboolean
gst_cvis_temporal_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  GstCvisTemporalFilterPrivate *tp = gst_cvis_temporal_filter_priv (self);
  GstBaseTransformClass *parent = gst_cvis_parent_class (GST_TYPE_CVIS_TEMPORAL_FILTER);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      gst_cvis_filter_drain_owed (GST_CVIS_FILTER (self));
      return parent->sink_event (trans, event);
    case GST_EVENT_FLUSH_STOP:{
      /* Owed outputs are dropped; sticky events among them still leave, after FLUSH_STOP. */
      std::deque<Owed> owed;
      owed.swap (tp->owed);
      const gboolean ret = parent->sink_event (trans, event);
      tp->owed.swap (owed);
      gst_cvis_temporal_filter_clear_owed (self, TRUE);
      return ret;
    }
    case GST_EVENT_CAPS:
      /* A caps change drains in set_caps (GstCvisFilter), before the new caps leave. */
      return parent->sink_event (trans, event);
    default:
      break;
  }
  if (!GST_EVENT_IS_SERIALIZED (event) || tp->owed.empty ())
    return parent->sink_event (trans, event);
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEGMENT) {
    /* The input side follows the new segment now (what GstBaseTransform would do). */
    gst_event_copy_segment (event, &trans->segment);
    trans->have_segment = TRUE;
  }
  GST_DEBUG_OBJECT (self, "%s waits behind %zu owed outputs", GST_EVENT_TYPE_NAME (event),
      tp->owed.size ());
  tp->owed.back ().events.push_back (event);
  return TRUE;
}

/* The frame duration of `caps` (NULL: the sink pad's current caps), GST_CLOCK_TIME_NONE when
 * the frame rate is not known. */
static GstClockTime
frame_duration (GstCvisTemporalFilter * self, GstCaps * caps)
{
  GstClockTime duration = GST_CLOCK_TIME_NONE;
  GstCaps *current = caps ? gst_caps_ref (caps) :
      gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
  GstVideoInfo info;
  if (current && gst_video_info_from_caps (&info, current) && GST_VIDEO_INFO_FPS_N (&info) > 0)
    duration = gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (&info),
        GST_VIDEO_INFO_FPS_N (&info));
  gst_clear_caps (&current);
  return duration;
}

/* Our latency with input `caps` (NULL: the current ones), or GST_CLOCK_TIME_NONE when the frame
 * rate is not known (0 without lag). */
static GstClockTime
own_latency (GstCvisTemporalFilter * self, GstCaps * caps, guint * lag_out)
{
  GstCvisTemporalFilterClass *klass = GST_CVIS_TEMPORAL_FILTER_GET_CLASS (self);
  const guint lag = klass->get_lag ? klass->get_lag (self) : 0;
  if (lag_out)
    *lag_out = lag;
  if (lag == 0)
    return 0;
  const GstClockTime d = frame_duration (self, caps);
  return GST_CLOCK_TIME_IS_VALID (d) ? lag * d : GST_CLOCK_TIME_NONE;
}

gboolean
gst_cvis_temporal_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  if (!gst_cvis_parent_class (GST_TYPE_CVIS_TEMPORAL_FILTER)->query (trans, direction,
          query))
    return FALSE;
  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY || direction != GST_PAD_SRC)
    return TRUE;
  guint lag = 0;
  const GstClockTime ours = own_latency (self, NULL, &lag);
  if (!GST_CLOCK_TIME_IS_VALID (ours)) {
    GST_WARNING_OBJECT (self, "latency of %u frames unknown: no framerate yet", lag);
    return TRUE;
  }
  if (ours == 0)
    return TRUE;
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (query, &live, &min, &max);
  GST_DEBUG_OBJECT (self, "adding %u frames = %" GST_TIME_FORMAT " of latency", lag,
      GST_TIME_ARGS (ours));
  gst_query_set_latency (query, live, min + ours,
      GST_CLOCK_TIME_IS_VALID (max) ? max + ours : GST_CLOCK_TIME_NONE);
  return TRUE;
}

gboolean
gst_cvis_temporal_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  GstCvisTemporalFilterPrivate *tp = gst_cvis_temporal_filter_priv (self);
  if (!gst_cvis_parent_class (GST_TYPE_CVIS_TEMPORAL_FILTER)->set_caps (trans, incaps,
          outcaps))
    return FALSE;
  /* The pipeline computed its latency with what the query said before the frame rate was known
   * (or with another one): have it ask again. (The sink pad's current caps are still the old
   * ones here.) */
  const GstClockTime ours = own_latency (self, incaps, NULL);
  if (GST_CLOCK_TIME_IS_VALID (ours) && ours != tp->posted_latency) {
    const gboolean first = !GST_CLOCK_TIME_IS_VALID (tp->posted_latency);
    tp->posted_latency = ours;
    if (ours > 0 || !first) {
      GST_DEBUG_OBJECT (self, "latency now %" GST_TIME_FORMAT, GST_TIME_ARGS (ours));
      gst_element_post_message (GST_ELEMENT (self), gst_message_new_latency (GST_OBJECT (self)));
    }
  }
  return TRUE;
}

/* Frame outputs hold up to lag + 1 upstream buffers (the owed frames and the one arriving). */
gboolean
gst_cvis_temporal_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  if (!gst_cvis_parent_class (GST_TYPE_CVIS_TEMPORAL_FILTER)->propose_allocation
      (trans, decide_query, query))
    return FALSE;
  if (!gst_cvis_temporal_filter_priv (self)->frame_output || decide_query == NULL)
    return TRUE;
  GstCvisTemporalFilterClass *klass = GST_CVIS_TEMPORAL_FILTER_GET_CLASS (self);
  const guint held = (klass->get_lag ? klass->get_lag (self) : 0) + 1;
  GstCaps *caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return TRUE;
  const guint n = gst_query_get_n_allocation_pools (query);
  if (n == 0)
    gst_query_add_allocation_pool (query, NULL, (guint) GST_VIDEO_INFO_SIZE (&info), held, 0);
  for (guint i = 0; i < n; i++) {
    GstBufferPool *pool = NULL;
    guint size = 0, min = 0, max = 0;
    gst_query_parse_nth_allocation_pool (query, i, &pool, &size, &min, &max);
    min += held;
    if (max != 0 && max < min)
      max = min;
    gst_query_set_nth_allocation_pool (query, i, pool, size, min, max);
    gst_clear_object (&pool);
  }
  GST_DEBUG_OBJECT (self, "asking upstream for %u more buffers", held);
  return TRUE;
}

