/* GstCvisFilter internals shared by gst/common's sources (elements use gstcvisfilter.h). */
#pragma once

#include <mutex>

#include "gstcvisdevice.h"
#include "gstcvisfilter.h"

/* CVIS_PROFILE=1 (gstcvisprofile.cpp). */
struct GstCvisProfile {
  gboolean enabled = FALSE;
  cvis::StreamProfiler gpu;
  guint64 frames = 0, calls = 0;
  gint64 host_us = 0, call_start_us = 0;
  GstCvisProfile & operator= (GstCvisProfile && o) {
    gpu.release ();
    enabled = o.enabled;
    frames = o.frames;
    calls = o.calls;
    host_us = o.host_us;
    call_start_us = o.call_start_us;
    return *this;
  }
};

struct GstCvisFilterPrivate {
  /* Settings (properties), under `lock`. */
  std::mutex lock;
  cvis::Backend backend_setting = cvis::Backend::kAuto;
  gint device_id = -1;
  gboolean analytics = FALSE;  /* analytics-meta */

  /* State: streaming thread and state changes only. */
  GstCvisDevice dev;
  gboolean started = FALSE;
  gboolean configured = FALSE;
  gboolean in_cuda = FALSE, out_cuda = FALSE;
  GstVideoInfo in_info, out_info;
  gboolean warned_foreign = FALSE;
  GstCvisProfile profile;
};

GstCvisFilterPrivate *gst_cvis_filter_priv (GstCvisFilter * self);

/* The GstBaseTransform class above `type` (GST_TYPE_CVIS_FILTER or GST_TYPE_CVIS_TEMPORAL_FILTER):
 * what gst/common's vfuncs chain up to. */
static inline GstBaseTransformClass *
gst_cvis_parent_class (GType type)
{
  return GST_BASE_TRANSFORM_CLASS (g_type_class_peek_parent (g_type_class_peek (type)));
}

/* The device id property (-1: any). */
gint gst_cvis_filter_device_id (GstCvisFilter * self);

/* gstcvisfilter.cpp: reset + release with the context pushed. */
void gst_cvis_filter_release_backend (GstCvisFilter * self);

/* gstcviscaps.cpp */
/* Lets a temporal subclass push what it owes (klass->drain) when configured. */
void gst_cvis_filter_drain_owed (GstCvisFilter * self);
/* reset (when configured) then configure, with the context pushed. */
cvis::Status gst_cvis_filter_reconfigure (GstCvisFilter * self);
/* With the CPU backend (chosen, or auto without a GPU) CUDA memory is not offered. */
gboolean gst_cvis_filter_cuda_caps_allowed (GstCvisFilter * self);
GstCaps *gst_cvis_filter_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter);
gboolean gst_cvis_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps);

/* gstcvisdispatch.cpp: GstBaseTransform vfuncs */
void gst_cvis_filter_before_transform (GstBaseTransform * trans, GstBuffer * buf);
GstFlowReturn gst_cvis_filter_transform_ip (GstBaseTransform * trans, GstBuffer * buf);
GstFlowReturn gst_cvis_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf);
gboolean gst_cvis_filter_sink_event (GstBaseTransform * trans, GstEvent * event);
gboolean gst_cvis_filter_transform_meta (GstBaseTransform * trans, GstBuffer * outbuf,
    GstMeta * meta, GstBuffer * inbuf);

/* gstcvisanalytics.cpp: the analytics-meta output. Subclass calls are bracketed by
 * `first = gst_cvis_filter_roi_count (buf)` and `gst_cvis_filter_publish_analytics (self, buf,
 * first)`: the ROIs the call attached become analytics mtds when the property is set. */
guint gst_cvis_filter_roi_count (GstBuffer * buf);
gboolean gst_cvis_filter_analytics_supported (void);
void gst_cvis_filter_publish_analytics (GstCvisFilter * self, GstBuffer * buf, guint first);

/* gstcvisprofile.cpp: start (reads CVIS_PROFILE), begin/end around each subclass call (`frame`:
 * the call takes a new input), stop (context pushed: posts "cvis-profile"). */
void gst_cvis_profile_start (GstCvisFilter * self);
void gst_cvis_profile_begin (GstCvisFilter * self, gboolean frame);
void gst_cvis_profile_end (GstCvisFilter * self);
void gst_cvis_profile_stop (GstCvisFilter * self);

/* gstcvisalloc.cpp: GstBaseTransform vfuncs */
gboolean gst_cvis_filter_propose_allocation (GstBaseTransform * trans, GstQuery * decide_query,
    GstQuery * query);
gboolean gst_cvis_filter_decide_allocation (GstBaseTransform * trans, GstQuery * query);
/* The caps' first structure is memory:CUDAMemory. */
gboolean gst_cvis_caps_is_cuda (GstCaps * caps);
