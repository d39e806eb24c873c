/* GstCvisTemporalFilter internals shared by gstcvistemporal.cpp (owed outputs, production,
 * draining) and gstcvistemporal_events.cpp (events, latency, allocation). */
#pragma once

#include <deque>
#include <vector>

#include "gstcvistemporal.h"

/* An output still owed: the frame (frame outputs) or a buffer with its timestamps, flags and
 * metadata, and the serialised events that arrived after that frame. */
struct Owed {
  GstBuffer *frame = nullptr;
  std::vector<GstEvent *> events;
};

struct GstCvisTemporalFilterPrivate {
  std::deque<Owed> owed;    /* oldest first */
  gboolean frame_output = FALSE;
  GstClockTime posted_latency = GST_CLOCK_TIME_NONE;
};

GstCvisTemporalFilterPrivate *gst_cvis_temporal_filter_priv (GstCvisTemporalFilter * self);
/* Drops every owed output. Their sticky events (STREAM_START, SEGMENT, TAG, ...) still leave
 * when `push_sticky`, so downstream knows the stream; the others (GAP) go with the outputs. */
void gst_cvis_temporal_filter_clear_owed (GstCvisTemporalFilter * self, gboolean push_sticky);

/* gstcvistemporal_events.cpp: GstBaseTransform vfuncs */
gboolean gst_cvis_temporal_filter_sink_event (GstBaseTransform * trans, GstEvent * event);
gboolean gst_cvis_temporal_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query);
gboolean gst_cvis_temporal_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps);
gboolean gst_cvis_temporal_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query);
