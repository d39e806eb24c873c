/* cudacedd internals shared by the element's source files. */
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cedd/cedd.hpp"
#include "gstcudacedd.h"
#include "gstcvisstorelink.h"

#define DEFAULT_REGIONS GST_CUDA_CEDD_REGIONS_FRAME
#define DEFAULT_SHOT_THRESHOLD 35.0
#define DEFAULT_HYBRID FALSE

/* Properties (under `lock`). */
struct Settings {
  GstCudaCeddRegions regions = DEFAULT_REGIONS;
  std::string index_location;
  std::string stream_name;
  gdouble shot_threshold = DEFAULT_SHOT_THRESHOLD;
  gboolean hybrid = DEFAULT_HYBRID;
};

/* Streaming state (streaming thread, state changes). */
struct State {
  std::unique_ptr<cvis::cedd::Extractor> extractor;
  cvis::Backend backend = cvis::Backend::kCpu;
  GstCvisStoreLink index;      /* index-location's writer */
  std::string stream;          /* name written to the index and messages */
  GstCvisFramePosition position;
  bool have_prev = false;
  cvis::cedd::Levels prev{};
  std::vector<cvis::cedd::Region> regions;
  std::vector<gint> roi_ids;
  std::vector<std::string> roi_types;
  std::vector<cvis::cedd::Result> results;
};

struct _GstCudaCedd {
  GstCvisFilter parent;
  std::mutex *lock;
  Settings *settings;
  State *state;
};

/* gstcudacedd_frame.cpp: GstCvisFilter::analyse (context pushed). */
cvis::Status gst_cuda_cedd_analyse (GstCvisFilter * filter, GstBuffer * buf,
    const cvis::ImageView & frame, cvis::StreamHandle stream);
