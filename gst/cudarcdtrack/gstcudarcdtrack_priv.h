/* cudarcdtrack internals shared by the element's source files. */
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gstcudarcdtrack.h"
#include "rcdtrack.hpp"
#include "rcdtrack_lifecycle.hpp"

namespace rcd = cvis::rcdtrack;

/* Properties (under `lock`). */
struct GstCudaRcdTrackSettings {
  GstCudaRcdTrackMode mode = GST_CUDA_RCD_TRACK_MODE_TRACK;
  rcd::Params params;
  std::string roi;            /* "x,y,w,h;..." (checked at start) */
  std::string init_roi_type;  /* empty: off */
  guint init_min_area = 0;    /* pixels; 0: automatic (rcd::auto_min_area) */
  guint init_persistence = 3;
  guint max_targets = 64;
  guint lost_timeout = 30;    /* frames; 0: never */
  guint static_timeout = 60;  /* frames off every init-roi-type box; 0: never */
  guint duplicate_timeout = 10;  /* frames a duplicate of an older target; 0: never */
  guint still_timeout = 20;      /* frames to move after the start; 0: never */
  bool init_aligned_steps = true;
  gdouble lost_radius = 3.0;  /* target sizes; < 0: the whole frame */
  std::string model_location;
  guint version = 0;          /* bumped by every change the streaming thread must apply */
};

/* Streaming state (streaming thread and state changes, under `state_lock`). */
struct GstCudaRcdTrackState {
  std::unique_ptr<rcd::Tracker> tracker;
  std::unique_ptr<rcd::Detector> detector;
  cvis::Backend backend = cvis::Backend::kCpu;
  GstCudaRcdTrackMode mode = GST_CUDA_RCD_TRACK_MODE_TRACK;
  std::vector<rcd::Box> roi;       /* parsed at start */
  rcd::Model model;                /* model-location, loaded at start */
  bool have_model = false;
  guint applied_version = 0;
  int width = 0, height = 0;
  std::vector<rcd::TargetResult> results;
  std::vector<rcd::TargetEvent> events;
  std::vector<rcd::Detection> detections;
  guint64 frame = 0;
};

struct _GstCudaRcdTrack {
  GstCvisFilter parent;
  std::mutex *lock;           /* settings */
  std::mutex *state_lock;     /* the tracker (streaming thread, save-model) */
  GstCudaRcdTrackSettings *settings;
  GstCudaRcdTrackState *state;
  /* The targets' ids, requests and timeouts: its request_* methods are called from the signals
   * without `state_lock` (it locks itself), the others under `state_lock`. */
  rcd::Lifecycle *lifecycle;
};

/* gstcudarcdtrack_props.cpp */
void gst_cuda_rcd_track_install_properties (GObjectClass * gobject_class);

/* gstcudarcdtrack_output.cpp: metas on the buffer (targets first among its ROI metas) and element
 * messages. */
void gst_cuda_rcd_track_attach_tracks (GstCudaRcdTrack * self, GstBuffer * buf);
void gst_cuda_rcd_track_attach_detections (GstCudaRcdTrack * self, GstBuffer * buf);
/* Posts the element message of each of `state->events` (a track request refused at its first
 * frame: a warning and a removed message). */
void gst_cuda_rcd_track_post_events (GstCudaRcdTrack * self, GstBuffer * buf);
/* Every box of roi_type `type` on `buf`. */
void gst_cuda_rcd_track_type_boxes (GstBuffer * buf, const std::string & type,
    rcd::InitBoxes * out);
