/* GstCvisFilter: optional per-element profiling (environment CVIS_PROFILE=1, read at start).
 * Each buffer's subclass calls are bracketed by CUDA events on the element's stream (GPU time from
 * the first to the last operation queued by the call, host gaps inside the call included) and by
 * the host clock (the whole call, waits included). At stop the element posts an element message
 * "cvis-profile" (element, backend, frames, calls, gpu-ms, host-ms) and logs it at INFO:
 * tests/bench/streams collects them. Off, it costs one branch per buffer. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <cstdlib>
#include <cstring>

#include "gstcvisfilter_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cvis_filter_debug);
#define GST_CAT_DEFAULT gst_cvis_filter_debug

static gboolean
profiling_requested (void)
{
  const char *e = std::getenv ("CVIS_PROFILE");
  return e && *e && std::strcmp (e, "0") != 0;
}

void
gst_cvis_profile_start (GstCvisFilter * self)
{
  GstCvisProfile & p = gst_cvis_filter_priv (self)->profile;
  p = GstCvisProfile ();
  p.enabled = profiling_requested ();
}

void
gst_cvis_profile_begin (GstCvisFilter * self, gboolean frame)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisProfile & p = priv->profile;
  if (!p.enabled)
    return;
  p.call_start_us = g_get_monotonic_time ();
  p.frames += frame ? 1 : 0;
  if (priv->dev.backend == cvis::Backend::kCuda) {
    cvis::Status st = p.gpu.begin (priv->dev.stream);
    if (!st.ok ())
      GST_DEBUG_OBJECT (self, "profiler: %s", st.to_string ().c_str ());
  }
}

void
gst_cvis_profile_end (GstCvisFilter * self)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisProfile & p = priv->profile;
  if (!p.enabled)
    return;
  if (priv->dev.backend == cvis::Backend::kCuda)
    (void) p.gpu.end (priv->dev.stream);
  p.host_us += g_get_monotonic_time () - p.call_start_us;
  p.calls++;
}

/* With the context pushed (stop). */
void
gst_cvis_profile_stop (GstCvisFilter * self)
{
  GstCvisFilterPrivate *priv = gst_cvis_filter_priv (self);
  GstCvisProfile & p = priv->profile;
  if (!p.enabled)
    return;
  (void) p.gpu.flush ();
  const double gpu_ms = p.gpu.total_ms (), host_ms = p.host_us / 1000.0;
  GST_INFO_OBJECT (self, "profile: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " calls, "
      "GPU %.3f ms, host %.3f ms", p.frames, p.calls, gpu_ms, host_ms);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("cvis-profile", "element", G_TYPE_STRING, GST_OBJECT_NAME (self),
              "factory", G_TYPE_STRING,
              gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (gst_element_get_factory
                      (GST_ELEMENT (self)))), "backend", G_TYPE_STRING,
              cvis::backend_name (priv->dev.backend), "frames", G_TYPE_UINT64, p.frames,
              "calls", G_TYPE_UINT64, p.calls, "gpu-ms", G_TYPE_DOUBLE, gpu_ms, "host-ms",
              G_TYPE_DOUBLE, host_ms, NULL)));
  p.gpu.release ();
  p.enabled = FALSE;
}
