/* GstCvisFilter: the per-buffer dispatch (context switch, analyse / process with the context
 * pushed, stream synchronisation), events, output metadata, and cvis::Status -> element errors. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvis.h>

#include "gstcvisfilter_priv.h"

#ifdef CVIS_HAVE_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

GST_DEBUG_CATEGORY_EXTERN (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

void
gst_cvis_filter_post_error (GstCvisFilter * self, const cvis::Status & status, const gchar * file,
    const gchar * function, gint line)
{
  GQuark domain = GST_RESOURCE_ERROR;
  gint code = GST_RESOURCE_ERROR_FAILED;
  const gchar *what = "Processing failed";
  if (status.ok ())
    return;
  /* Without a bus (an element not yet in a pipeline) the message reaches no one: not counted. */
  GstBus *bus = gst_element_get_bus (GST_ELEMENT (self));
  const bool delivered = bus != NULL;
  if (bus)
    gst_object_unref (bus);
  if (delivered && gst_cvis_filter_priv (self)->error_posted.exchange (true)) {
    /* The pipeline is already going down for the first one: a caps event retried with every
     * buffer, or buffers arriving while not configured, would only repeat it. */
    GST_DEBUG_OBJECT (self, "not posted (an error was): %s", status.to_string ().c_str ());
    return;
  }
  switch (status.code ()) {
    case cvis::StatusCode::kOk:
      return;
    case cvis::StatusCode::kUnsupportedFormat:
      domain = GST_CORE_ERROR;
      code = GST_CORE_ERROR_NEGOTIATION;
      what = "Unsupported input";
      break;
    case cvis::StatusCode::kInvalidArgument:
      domain = GST_LIBRARY_ERROR;
      code = GST_LIBRARY_ERROR_SETTINGS;
      what = "Invalid settings";
      break;
    case cvis::StatusCode::kIoError:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_READ;
      what = "Could not access a file";
      break;
    case cvis::StatusCode::kNoDevice:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_NOT_FOUND;
      what = "No usable CUDA device";
      break;
    case cvis::StatusCode::kCudaError:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_FAILED;
      what = "CUDA failure";
      break;
    case cvis::StatusCode::kOutOfMemory:
      domain = GST_RESOURCE_ERROR;
      code = GST_RESOURCE_ERROR_NO_SPACE_LEFT;
      what = "Out of memory";
      break;
    case cvis::StatusCode::kInternal:
      domain = GST_CORE_ERROR;
      code = GST_CORE_ERROR_FAILED;
      what = "Internal error";
      break;
  }
  std::string message = status.message ();
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  if (status.code () == cvis::StatusCode::kOutOfMemory && GST_VIDEO_INFO_WIDTH (&priv->in_info)) {
    /* std::bad_alloc does not say how much was asked for: say what it was for. */
    message += std::string (" (") + cvis::backend_name (priv->dev.backend) + " backend, " +
        std::to_string (GST_VIDEO_INFO_WIDTH (&priv->in_info)) + "x" +
        std::to_string (GST_VIDEO_INFO_HEIGHT (&priv->in_info)) + " " +
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&priv->in_info)) + " frames)";
  }
  gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, domain, code,
      g_strdup_printf ("%s: %s", what, message.c_str ()),
      g_strdup (status.to_string ().c_str ()), file, function, line);
}

/* CUDA memory of another context (GStreamer's CUDA base transform does the same): with
 * cuda-device-id -1, or the memory's device, the element moves to the memory's context: owed
 * outputs are drained, the backend is released in the old context and configured again in the
 * new one, and the source pad renegotiates so that output pools come from the new context. */
void
gst_cvis_filter_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  if (!priv->configured || priv->dev.backend != cvis::Backend::kCuda ||
      gst_buffer_n_memory (buf) == 0)
    return;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  if (gst_cvis_device_classify (&priv->dev, mem, gst_cvis_filter_device_id (self)) !=
      GstCvisForeign::kSwitch)
    return;
#ifdef CVIS_HAVE_CUDA
  GST_INFO_OBJECT (self, "moving from CUDA context %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT
      " (the input's)", priv->dev.ctx, GST_CUDA_MEMORY_CAST (mem)->context);
#endif
  gst_cvis_filter_drain_owed (self);
  gst_cvis_filter_release_backend (self);
  priv->configured = FALSE;
  cvis::Status st = gst_cvis_device_adopt (&priv->dev, mem);
  if (st.ok ())
    st = gst_cvis_filter_reconfigure (self);
  if (!st.ok ()) {
    /* transform() reports it: not configured. */
    GST_CVIS_FILTER_ERROR (self, st);
    return;
  }
  priv->configured = TRUE;
  priv->warned_foreign = FALSE;
  gst_base_transform_reconfigure_src (trans);
}

static GstFlowReturn
finish (GstCvisFilter * self, const cvis::Status & st)
{
  if (st.ok ())
    return GST_FLOW_OK;
  GST_CVIS_FILTER_ERROR (self, st);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
not_configured (GstCvisFilter * self)
{
  /* An error was posted when configuring failed; this one says why no frame is processed. */
  return finish (self, cvis::internal_error ("buffer while not configured (no caps, or the "
          "configuration failed)"));
}

GstFlowReturn
gst_cvis_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);

  if (!priv->configured || !klass->analyse)
    return not_configured (self);
  GstCvisContextScope scope (&priv->dev);
  if (!scope.ok ())
    return finish (self, GstCvisContextScope::push_failed ());
  return finish (self, gst_cvis_guarded ([&] {
        GstCvisFrame in;
        CVIS_RETURN_IF_ERROR (in.map (self, buf, &priv->in_info, klass->writable ?
                GST_MAP_READWRITE : GST_MAP_READ));
        const guint first = gst_cvis_filter_roi_count (buf);
        GstCvisGpuTurn turn (&priv->dev);
        gst_cvis_profile_begin (self, TRUE);
        cvis::Status st = klass->analyse (self, buf, in.view (), priv->dev.stream);
        gst_cvis_profile_end (self);
        CVIS_RETURN_IF_ERROR (st);
        gst_cvis_filter_publish_analytics (self, buf, first);
        /* 1.22 buffers carry no stream: finish our work before the buffer leaves. */
        return gst_cvis_filter_sync (self);
      }));
}

GstFlowReturn
gst_cvis_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);

  if (!priv->configured || !klass->process)
    return not_configured (self);
  GstCvisContextScope scope (&priv->dev);
  if (!scope.ok ())
    return finish (self, GstCvisContextScope::push_failed ());
  return finish (self, gst_cvis_guarded ([&] {
        GstCvisFrame in, out;
        CVIS_RETURN_IF_ERROR (in.map (self, inbuf, &priv->in_info, GST_MAP_READ));
        CVIS_RETURN_IF_ERROR (out.map (self, outbuf, &priv->out_info, GST_MAP_WRITE));
        const guint first = gst_cvis_filter_roi_count (outbuf);
        GstCvisGpuTurn turn (&priv->dev);
        gst_cvis_profile_begin (self, TRUE);
        cvis::Status st = klass->process (self, inbuf, in.view (), outbuf, out.view (),
            priv->dev.stream);
        gst_cvis_profile_end (self);
        CVIS_RETURN_IF_ERROR (st);
        gst_cvis_filter_publish_analytics (self, outbuf, first);
        return gst_cvis_filter_sync (self);
      }));
}

gboolean
gst_cvis_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCvisFilter *self = GST_CVIS_FILTER (trans);
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisFilterClass *klass = GST_CVIS_FILTER_GET_CLASS (self);
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    priv->error_posted = false;  /* a new start of the stream (a seek after an error) */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP && priv->configured && klass->reset) {
    GstCvisContextScope scope (&priv->dev);
    cvis::Status st = gst_cvis_guarded ([&] {
          klass->reset (self);
          return cvis::Status::Ok ();
        });
    if (!st.ok ())
      GST_WARNING_OBJECT (self, "reset failed: %s", st.to_string ().c_str ());
  }
  return gst_cvis_parent_class (GST_TYPE_CVIS_FILTER)->sink_event (trans, event);
}

/* Reached only for outputs that are other images than the input (masks, background images; in
 * place nothing is copied): what was computed from the input's pixels does not describe them. */
gboolean
gst_cvis_filter_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf, GstMeta * meta,
    GstBuffer * inbuf)
{
  const GType api = meta->info->api;
  if (api == gst_cvis_cedd_meta_get_info ()->api ||
      api == gst_cvis_foreground_meta_get_info ()->api)
    return FALSE;
  return gst_cvis_parent_class (GST_TYPE_CVIS_FILTER)->transform_meta (trans, outbuf,
      meta, inbuf);
}

