/* GstCvisTemporalFilter (gstcvistemporal.h): owed outputs, serialised events, draining, latency
 * and upstream buffers for filters whose outputs lag their inputs. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvistemporal.h"

#include <deque>
#include <utility>
#include <vector>

#include "gstcvisfilter_priv.h"

GST_DEBUG_CATEGORY_STATIC (gst_cvis_temporal_debug);
#define GST_CAT_DEFAULT gst_cvis_temporal_debug

namespace {

/* An output still owed: the frame (frame outputs) or a buffer with its timestamps, flags and
 * metadata, and the serialised events that arrived after that frame. */
struct Owed {
  GstBuffer *frame = nullptr;
  std::vector<GstEvent *> events;
};

}  // namespace

struct GstCvisTemporalFilterPrivate {
  std::deque<Owed> owed;    /* oldest first */
  gboolean frame_output = FALSE;
  GstClockTime posted_latency = GST_CLOCK_TIME_NONE;
};

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCvisTemporalFilter, gst_cvis_temporal_filter,
    GST_TYPE_CVIS_FILTER, G_ADD_PRIVATE (GstCvisTemporalFilter);
    GST_DEBUG_CATEGORY_INIT (gst_cvis_temporal_debug, "cvistemporal", 0,
        "gst-cuda-vision temporal base class"));

static GstCvisTemporalFilterPrivate *
tpriv (GstCvisTemporalFilter * self)
{
  return static_cast<GstCvisTemporalFilterPrivate *>
      (gst_cvis_temporal_filter_get_instance_private (self));
}

void
gst_cvis_temporal_filter_set_frame_output (GstCvisTemporalFilter * self, gboolean frames)
{
  tpriv (self)->frame_output = frames;
}

/* Pushes `events` in order (a flow error of the outputs does not hold back sticky events). */
static void
push_events (GstCvisTemporalFilter * self, std::vector<GstEvent *> & events)
{
  for (GstEvent *e : events)
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (self), e);
  events.clear ();
}

/* Drops every owed output. Their sticky events (STREAM_START, SEGMENT, TAG, ...) still leave
 * when `push_sticky`, so downstream knows the stream; the others (GAP) go with the outputs. */
static void
clear_owed (GstCvisTemporalFilter * self, gboolean push_sticky)
{
  std::deque<Owed> owed;
  owed.swap (tpriv (self)->owed);
  std::vector<GstEvent *> keep;
  for (Owed & o : owed) {
    gst_clear_buffer (&o.frame);
    for (GstEvent *e : o.events) {
      if (push_sticky && GST_EVENT_IS_STICKY (e))
        keep.push_back (e);
      else
        gst_event_unref (e);
    }
  }
  push_events (self, keep);
}

static GstFlowReturn
error_flow (GstCvisTemporalFilter * self, const cvis::Status & st)
{
  GST_CVIS_FILTER_ERROR (self, st);
  return GST_FLOW_ERROR;
}

/* Produces and pushes the output of the oldest owed frame when the subclass says it is ready.
 * *synced: the stream was synchronised. */
static GstFlowReturn
produce_one (GstCvisTemporalFilter * self, gboolean draining, gboolean * produced,
    gboolean * synced)
{
  GstCvisTemporalFilterClass *klass = GST_CVIS_TEMPORAL_FILTER_GET_CLASS (self);
  GstCvisTemporalFilterPrivate *tp = tpriv (self);
  GstCvisFilter *filter = GST_CVIS_FILTER (self);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (filter);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  *produced = FALSE;
  Owed o;
  GstBuffer *out = NULL;
  GstFlowReturn flow = GST_FLOW_OK;
  cvis::Status st;
  {
    GstCvisContextScope scope (&priv->dev);
    if (!scope.ok ())
      return error_flow (self, GstCvisContextScope::push_failed ());
    st = gst_cvis_guarded ([&] {
          gboolean ready = FALSE;
          CVIS_RETURN_IF_ERROR (klass->ready (self, draining, &ready));
          if (!ready)
            return cvis::Status::Ok ();
          if (tp->owed.empty ())
            return cvis::internal_error ("an output is due but no frame is owed");
          o = std::move (tp->owed.front ());
          tp->owed.pop_front ();
          if (tp->frame_output) {
            out = gst_buffer_make_writable (o.frame);
            o.frame = NULL;
            CVIS_RETURN_IF_ERROR (klass->produce (self, out, NULL, priv->dev.stream));
          } else {
            flow = GST_BASE_TRANSFORM_GET_CLASS (trans)->prepare_output_buffer (trans, o.frame,
                &out);
            gst_clear_buffer (&o.frame);
            if (flow != GST_FLOW_OK || !out) {
              if (flow == GST_FLOW_OK)
                flow = GST_FLOW_ERROR;
              return flow == GST_FLOW_ERROR ? cvis::Status (cvis::StatusCode::kOutOfMemory,
                  "no output buffer") : cvis::Status::Ok ();
            }
            GstCvisFrame view;
            CVIS_RETURN_IF_ERROR (view.map (filter, out, &priv->out_info, GST_MAP_WRITE));
            CVIS_RETURN_IF_ERROR (klass->produce (self, out, &view.view (), priv->dev.stream));
          }
          *produced = TRUE;
          *synced = TRUE;
          return gst_cvis_filter_sync (filter);
        });
  }
  if (!st.ok ()) {
    *produced = FALSE;
    gst_clear_buffer (&out);
    gst_clear_buffer (&o.frame);
    for (GstEvent *e : o.events)
      gst_event_unref (e);
    return error_flow (self, st);
  }
  if (*produced) {
    /* Pushed with the context popped: downstream runs in this thread. */
    flow = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  } else {
    gst_clear_buffer (&out);
  }
  push_events (self, o.events);
  return flow;
}

static GstFlowReturn
produce_ready (GstCvisTemporalFilter * self, gboolean draining, gboolean * synced)
{
  GstFlowReturn flow = GST_FLOW_OK;
  gboolean produced = TRUE;
  while (flow == GST_FLOW_OK && produced)
    flow = produce_one (self, draining, &produced, synced);
  return flow;
}

/* GstCvisFilter::drain: every owed output, then the window is forgotten. */
static GstFlowReturn
gst_cvis_temporal_filter_drain (GstCvisFilter * filter)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (filter);
  GstCvisFilterClass *fklass = GST_CVIS_FILTER_GET_CLASS (filter);
  GST_DEBUG_OBJECT (self, "draining %zu owed outputs", tpriv (self)->owed.size ());
  gboolean synced = FALSE;
  GstFlowReturn flow = produce_ready (self, TRUE, &synced);
  /* Whatever happened, the old window is done with; what could not be produced is dropped. */
  clear_owed (self, TRUE);
  if (fklass->reset) {
    GstCvisContextScope scope (&gst_cvis_filter_priv (filter)->dev);
    cvis::Status st = gst_cvis_guarded ([&] {
          fklass->reset (filter);
          return cvis::Status::Ok ();
        });
    if (!st.ok ())
      GST_WARNING_OBJECT (self, "reset after drain failed: %s", st.to_string ().c_str ());
  }
  return flow;
}

/* The queued input of GstBaseTransform enters the window; the outputs that became ready leave. */
static GstFlowReturn
gst_cvis_temporal_filter_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  GstCvisTemporalFilterClass *klass = GST_CVIS_TEMPORAL_FILTER_GET_CLASS (self);
  GstCvisTemporalFilterPrivate *tp = tpriv (self);
  GstCvisFilter *filter = GST_CVIS_FILTER (self);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (filter);
  GstBuffer *inbuf = trans->queued_buf;
  trans->queued_buf = NULL;
  *outbuf = NULL;
  if (!inbuf)
    return GST_FLOW_OK;
  if (!priv->configured) {
    gst_buffer_unref (inbuf);
    return error_flow (self, cvis::internal_error ("buffer while not configured (no caps, or "
            "the configuration failed)"));
  }

  /* Frame outputs: the owed entry is the only reference (writable later without a copy), and it
   * keeps the frame alive for the kernels. New outputs: no memory is held (it could starve an
   * upstream pool); `inbuf` is released once the stream was synchronised. */
  Owed o;
  if (tp->frame_output) {
    o.frame = inbuf;
  } else {
    o.frame = gst_buffer_new ();
    gst_buffer_copy_into (o.frame, inbuf, GST_BUFFER_COPY_METADATA, 0, -1);
  }
  tp->owed.push_back (std::move (o));
  GstCvisFrame in;
  cvis::Status st;
  {
    GstCvisContextScope scope (&priv->dev);
    st = scope.ok ()? gst_cvis_guarded ([&] {
          CVIS_RETURN_IF_ERROR (in.map (filter, inbuf, &priv->in_info, GST_MAP_READ));
          return klass->push (self, inbuf, in.view (), priv->dev.stream);
        }) : GstCvisContextScope::push_failed ();
    if (tp->frame_output)
      in.unmap ();
  }
  GstFlowReturn flow = st.ok ()? GST_FLOW_OK : error_flow (self, st);
  gboolean synced = FALSE;
  if (flow == GST_FLOW_OK)
    flow = produce_ready (self, FALSE, &synced);
  if (!tp->frame_output) {
    GstCvisContextScope scope (&priv->dev);
    if (!synced) {
      /* The kernels read the input asynchronously: finish before it is released. */
      cvis::Status s = gst_cvis_filter_sync (filter);
      if (!s.ok () && flow == GST_FLOW_OK)
        flow = error_flow (self, s);
    }
    in.unmap ();
    gst_buffer_unref (inbuf);
  }
  return flow;
}

static gboolean
gst_cvis_temporal_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  GstCvisTemporalFilterPrivate *tp = tpriv (self);
  GstBaseTransformClass *parent =
      GST_BASE_TRANSFORM_CLASS (gst_cvis_temporal_filter_parent_class);
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
      clear_owed (self, TRUE);
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

static gboolean
gst_cvis_temporal_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  if (!GST_BASE_TRANSFORM_CLASS (gst_cvis_temporal_filter_parent_class)->query (trans, direction,
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

static gboolean
gst_cvis_temporal_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  GstCvisTemporalFilterPrivate *tp = tpriv (self);
  if (!GST_BASE_TRANSFORM_CLASS (gst_cvis_temporal_filter_parent_class)->set_caps (trans, incaps,
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
static gboolean
gst_cvis_temporal_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  if (!GST_BASE_TRANSFORM_CLASS (gst_cvis_temporal_filter_parent_class)->propose_allocation
      (trans, decide_query, query))
    return FALSE;
  if (!tpriv (self)->frame_output || decide_query == NULL)
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

static gboolean
gst_cvis_temporal_filter_stop (GstBaseTransform * trans)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  clear_owed (self, FALSE);
  tpriv (self)->posted_latency = GST_CLOCK_TIME_NONE;
  return GST_BASE_TRANSFORM_CLASS (gst_cvis_temporal_filter_parent_class)->stop (trans);
}

static void
gst_cvis_temporal_filter_finalize (GObject * object)
{
  GstCvisTemporalFilterPrivate *tp = tpriv (GST_CVIS_TEMPORAL_FILTER (object));
  for (Owed & o : tp->owed) {
    gst_clear_buffer (&o.frame);
    for (GstEvent *e : o.events)
      gst_event_unref (e);
  }
  tp->~GstCvisTemporalFilterPrivate ();
  G_OBJECT_CLASS (gst_cvis_temporal_filter_parent_class)->finalize (object);
}

static void
gst_cvis_temporal_filter_class_init (GstCvisTemporalFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvisFilterClass *filter_class = GST_CVIS_FILTER_CLASS (klass);

  gobject_class->finalize = gst_cvis_temporal_filter_finalize;
  trans_class->generate_output = GST_DEBUG_FUNCPTR (gst_cvis_temporal_filter_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cvis_temporal_filter_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cvis_temporal_filter_query);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cvis_temporal_filter_set_caps);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cvis_temporal_filter_propose_allocation);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cvis_temporal_filter_stop);
  filter_class->in_place = FALSE;
  filter_class->drain = gst_cvis_temporal_filter_drain;

  gst_type_mark_as_plugin_api (GST_TYPE_CVIS_TEMPORAL_FILTER, (GstPluginAPIFlags) 0);
}

static void
gst_cvis_temporal_filter_init (GstCvisTemporalFilter * self)
{
  new (gst_cvis_temporal_filter_get_instance_private (self)) GstCvisTemporalFilterPrivate ();
}
