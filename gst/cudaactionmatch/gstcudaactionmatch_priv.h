/* cudaactionmatch internals shared by the element's source files. */
#pragma once

#include <deque>
#include <mutex>
#include <string>

#include "actionlearn/actionlearn_recognise.hpp"
#include "gstcudaactionmatch.h"

/* Properties (under `lock`); they take effect at the next start (model-location) or configure. */
struct GstCudaActionMatchSettings {
  std::string model_location;
  cvis::actionlearn::RecogniserParams params;
  gdouble min_score = 0.0;
};

/* Timestamps of a frame that entered the window, for the meta and the message of the block it
 * ends or starts. */
struct GstCudaActionMatchStamp {
  GstClockTime pts = GST_CLOCK_TIME_NONE, duration = GST_CLOCK_TIME_NONE;
};

/* Streaming state (streaming thread, start, set_caps, state changes). */
struct GstCudaActionMatchState {
  cvis::actionlearn::Dictionary dict;  /* loaded at start */
  cvis::actionlearn::Recogniser rec;
  bool configured = false;
  gdouble cell_size = 6.0;             /* of the configured front end: the points' box margin */
  gint width = 0, height = 0, block_frames = 0;
  guint64 pushed = 0, produced = 0;    /* frames entered / left since the last reset */
  bool finished = false;               /* the stream's end was drained into `pending` */
  std::deque<cvis::actionlearn::BlockResult> pending;  /* by last_frame */
  std::deque<GstCudaActionMatchStamp> stamps;  /* of frames produced - stamps_base.. pushed - 1 */
  guint64 stamps_base = 0;
  std::vector<cvis::actionlearn::BlockResult> out;  /* scratch */
};

struct _GstCudaActionMatch {
  GstCvisTemporalFilter parent;
  std::mutex *lock;
  GstCudaActionMatchSettings *settings;
  GstCudaActionMatchState *state;
};

/* gstcudaactionmatch_props.cpp: set_property/get_property and the properties. */
void gst_cuda_action_match_install_properties (GObjectClass * gobject_class);

/* gstcudaactionmatch_output.cpp: GstCvisTemporalFilter vfuncs (context pushed). */
cvis::Status gst_cuda_action_match_push (GstCvisTemporalFilter * filter, GstBuffer * inbuf,
    const cvis::ImageView & in, cvis::StreamHandle stream);
cvis::Status gst_cuda_action_match_ready (GstCvisTemporalFilter * filter, gboolean draining,
    gboolean * ready);
cvis::Status gst_cuda_action_match_produce (GstCvisTemporalFilter * filter, GstBuffer * outbuf,
    const cvis::ImageView * out, cvis::StreamHandle stream);
