/* cudabgsub internals shared by its two source files. */
#pragma once

#include <memory>
#include <mutex>

#include "bgsub/bgsub.hpp"
#include "ccl/ccl.hpp"
#include "gstcudabgsub.h"
#include "gstcvismask.h"

/* Settings: written by property setters (under `lock`), read by the streaming thread. */
struct GstCudaBgSubSettings {
  cvis::bgsub::Params params;
  GstCudaBgSubOutput output = GST_CUDA_BG_SUB_OUTPUT_MASK;
  guint max_blobs = 64;
  guint min_blob_area = 0;  /* 0: cvis::ccl::auto_min_area of the frame */
  bool dirty = true;  /* params changed since the streaming thread last applied them */
};

/* State: streaming thread and state changes only. */
struct GstCudaBgSubState {
  std::unique_ptr<cvis::bgsub::Subtractor> sub;
  cvis::Backend backend = cvis::Backend::kCpu;
  GstCudaBgSubOutput output = GST_CUDA_BG_SUB_OUTPUT_MASK;
  guint max_blobs = 64;
  gint width = 0, height = 0;  /* of the configured input (the relative min-blob-area) */
  GstCvisMasks masks;  /* side masks (output=frame), CUDA-memory mask outputs (output=mask) */
  guint64 frames = 0;  /* frames processed since start (the shot-change message's "frame") */
};

struct _GstCudaBgSub {
  GstCvisFilter parent;
  std::mutex *lock;
  GstCudaBgSubSettings *settings;
  GstCudaBgSubState *state;
};

/* Properties (gstcudabgsub_props.cpp). */
void gst_cuda_bg_sub_install_properties (GObjectClass * klass);
void gst_cuda_bg_sub_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec);
void gst_cuda_bg_sub_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec);

/* The parameters as a whole (GstCvisFilter::check_settings, at start). */
cvis::Status gst_cuda_bg_sub_check_settings (GstCvisFilter * filter);

/* Applies pending settings to the subtractor (streaming thread, context pushed). */
cvis::Status gst_cuda_bg_sub_apply_settings (GstCudaBgSub * self);

/* Per-buffer work (gstcudabgsub_frame.cpp), called with the CUDA context pushed. */
cvis::Status gst_cuda_bg_sub_analyse (GstCvisFilter * filter, GstBuffer * buf,
    const cvis::ImageView & frame, cvis::StreamHandle stream);
cvis::Status gst_cuda_bg_sub_process (GstCvisFilter * filter, GstBuffer * inbuf,
    const cvis::ImageView & in, GstBuffer * outbuf, const cvis::ImageView & out,
    cvis::StreamHandle stream);
