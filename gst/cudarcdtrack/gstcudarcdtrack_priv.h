/* cudarcdtrack internals shared by the element's source files. */
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gstcudarcdtrack.h"
#include "rcdtrack.hpp"

namespace rcd = cvis::rcdtrack;

/* Properties (under `lock`). */
struct GstCudaRcdTrackSettings {
  GstCudaRcdTrackMode mode = GST_CUDA_RCD_TRACK_MODE_TRACK;
  rcd::Params params;
  std::string roi;            /* "x,y,w,h;..." (checked at start) */
  std::string init_roi_type;  /* empty: off */
  guint init_min_area = 0;    /* pixels; 0: automatic (gst_cuda_rcd_track_min_area) */
  guint init_persistence = 3;
  guint max_targets = 64;
  guint lost_timeout = 30;    /* frames; 0: never */
  guint static_timeout = 60;  /* frames off every init-roi-type box; 0: never */
  bool init_aligned_steps = true;
  gdouble lost_radius = 3.0;  /* target sizes; < 0: the whole frame */
  std::string model_location;
  guint version = 0;          /* bumped by every change the streaming thread must apply */
};

/* A box of init-roi-type seen on consecutive frames. */
struct GstCudaRcdTrackCandidate {
  rcd::Box box;
  guint frames = 0;
  bool seen = false;
};

/* A frame's boxes of init-roi-type, read once per frame (upstream metas, before ours are attached)
 * for the new targets and the static-timeout test; type empty: off. */
struct GstCudaRcdTrackInitBoxes {
  std::string type;
  std::vector<rcd::Box> boxes;
  guint min_area = 0;  /* gst_cuda_rcd_track_min_area of the frame */
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
  bool need_initial = true;        /* add the roi / model targets on the next frame */
  guint applied_version = 0;
  int width = 0, height = 0;
  std::vector<GstCudaRcdTrackCandidate> candidates;
  /* Targets from init-roi-type boxes: frames in a row lost, and frames in a row overlapping no
   * box of that type. */
  struct AutoTarget {
    guint lost = 0, off = 0;
  };
  std::map<int, AutoTarget> auto_targets;
  std::vector<rcd::TargetResult> results;
  std::vector<rcd::Detection> detections;
  guint64 frame = 0;
};

/* Requests from the action signals, applied by the streaming thread (under `lock`). */
struct GstCudaRcdTrackRequests {
  std::vector<std::pair<int, rcd::Box>> add;
  std::vector<int> remove;
  std::vector<int> ids;  /* every id handed out and not removed (signal replies) */
  int next_id = 0;
};

struct _GstCudaRcdTrack {
  GstCvisFilter parent;
  std::mutex *lock;           /* settings and requests */
  std::mutex *state_lock;     /* the tracker (streaming thread, save-model) */
  GstCudaRcdTrackSettings *settings;
  GstCudaRcdTrackRequests *requests;
  GstCudaRcdTrackState *state;
};

/* gstcudarcdtrack_props.cpp */
void gst_cuda_rcd_track_install_properties (GObjectClass * gobject_class);

/* gstcudarcdtrack_output.cpp: metas on the buffer (targets first among its ROI metas) and element
 * messages for the events of this frame; init-roi-type candidates. */
void gst_cuda_rcd_track_attach_tracks (GstCudaRcdTrack * self, GstBuffer * buf);
void gst_cuda_rcd_track_attach_detections (GstCudaRcdTrack * self, GstBuffer * buf);
void gst_cuda_rcd_track_post_events (GstCudaRcdTrack * self, GstBuffer * buf);
/* Posts element message `name` for target `r` on the frame `buf`. */
void gst_cuda_rcd_track_post_target (GstCudaRcdTrack * self, GstBuffer * buf, const char *name,
    const rcd::TargetResult & r);
/* Boxes of `init` that have persisted `persistence` frames with at least `init.min_area` pixels
 * and overlap no current target: returned once each. */
std::vector<rcd::Box> gst_cuda_rcd_track_init_boxes (GstCudaRcdTrack * self,
    const GstCudaRcdTrackInitBoxes & init, guint persistence);
/* Every box of roi_type `type` on `buf`. */
std::vector<rcd::Box> gst_cuda_rcd_track_type_boxes (GstBuffer * buf, const std::string & type);
/* init-min-area for a frame of width x height: `min_area`, or when 0 the automatic value. */
guint gst_cuda_rcd_track_min_area (guint min_area, int width, int height);
