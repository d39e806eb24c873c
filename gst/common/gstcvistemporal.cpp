/* GstCvisTemporalFilter (gstcvistemporal.h): owed outputs, serialised events, draining, latency
 * and upstream buffers for filters whose outputs lag their inputs; events, latency and allocation:
 * gstcvistemporal_events.cpp. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvistemporal.h"

#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "gstcvisfilter_priv.h"
#include "gstcvistemporal_priv.h"

GST_DEBUG_CATEGORY (gst_cvis_temporal_debug);
#define GST_CAT_DEFAULT gst_cvis_temporal_debug

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstCvisTemporalFilter, gst_cvis_temporal_filter,
    GST_TYPE_CVIS_FILTER, G_ADD_PRIVATE (GstCvisTemporalFilter);
    GST_DEBUG_CATEGORY_INIT (gst_cvis_temporal_debug, "cvistemporal", 0,
        "gst-cuda-vision temporal base class"));

GstCvisTemporalFilterPrivate *
gst_cvis_temporal_filter_priv (GstCvisTemporalFilter * self)
{
  return static_cast<GstCvisTemporalFilterPrivate *>
      (gst_cvis_temporal_filter_get_instance_private (self));
}

void
gst_cvis_temporal_filter_set_frame_output (GstCvisTemporalFilter * self, gboolean frames)
{
  gst_cvis_temporal_filter_priv (self)->frame_output = frames;
}

/* Pushes `events` in order (a flow error of the outputs does not hold back sticky events). */
static void
push_events (GstCvisTemporalFilter * self, std::vector<GstEvent *> & events)
{
  for (GstEvent *e : events)
    gst_pad_push_event (GST_BASE_TRANSFORM_SRC_PAD (self), e);
  events.clear ();
}

void
gst_cvis_temporal_filter_clear_owed (GstCvisTemporalFilter * self, gboolean push_sticky)
{
  std::deque<Owed> owed;
  owed.swap (gst_cvis_temporal_filter_priv (self)->owed);
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
  GstCvisTemporalFilterPrivate *tp = gst_cvis_temporal_filter_priv (self);
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
          std::optional < GstCvisGpuTurn > turn;
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
            const guint first = gst_cvis_filter_roi_count (out);
            turn.emplace (&priv->dev);
            gst_cvis_profile_begin (filter, FALSE);
            cvis::Status ps = klass->produce (self, out, NULL, priv->dev.stream);
            gst_cvis_profile_end (filter);
            CVIS_RETURN_IF_ERROR (ps);
            gst_cvis_filter_publish_analytics (filter, out, first);
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
            const guint first = gst_cvis_filter_roi_count (out);
            turn.emplace (&priv->dev);
            gst_cvis_profile_begin (filter, FALSE);
            cvis::Status ps = klass->produce (self, out, &view.view (), priv->dev.stream);
            gst_cvis_profile_end (filter);
            CVIS_RETURN_IF_ERROR (ps);
            gst_cvis_filter_publish_analytics (filter, out, first);
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
  GST_DEBUG_OBJECT (self, "draining %zu owed outputs", gst_cvis_temporal_filter_priv (self)->owed.size ());
  gboolean synced = FALSE;
  GstFlowReturn flow = produce_ready (self, TRUE, &synced);
  /* Whatever happened, the old window is done with; what could not be produced is dropped. */
  gst_cvis_temporal_filter_clear_owed (self, TRUE);
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
  GstCvisTemporalFilterPrivate *tp = gst_cvis_temporal_filter_priv (self);
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
          GstCvisGpuTurn turn (&priv->dev);
          gst_cvis_profile_begin (filter, TRUE);
          cvis::Status ps = klass->push (self, inbuf, in.view (), priv->dev.stream);
          gst_cvis_profile_end (filter);
          return ps;
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
gst_cvis_temporal_filter_stop (GstBaseTransform * trans)
{
  GstCvisTemporalFilter *self = GST_CVIS_TEMPORAL_FILTER (trans);
  gst_cvis_temporal_filter_clear_owed (self, FALSE);
  gst_cvis_temporal_filter_priv (self)->posted_latency = GST_CLOCK_TIME_NONE;
  return GST_BASE_TRANSFORM_CLASS (gst_cvis_temporal_filter_parent_class)->stop (trans);
}

static void
gst_cvis_temporal_filter_finalize (GObject * object)
{
  GstCvisTemporalFilterPrivate *tp = gst_cvis_temporal_filter_priv (GST_CVIS_TEMPORAL_FILTER (object));
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
