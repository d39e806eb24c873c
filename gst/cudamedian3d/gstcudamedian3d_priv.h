/* cudamedian3d internals shared by the element's two source files. */
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "gstcudamedian3d.h"
#include "median3d/median3d.hpp"

/* Properties (under `lock`). Window and output settings take effect at the next configure. */
struct GstCudaMedian3dSettings {
  cvis::median3d::Params params;  /* spatial_w/h unused: see spatial_size/spatial_height */
  gint spatial_size = 3;
  gint spatial_height = 0;  /* 0: spatial_size */
  GstCudaMedian3dWindow window = GST_CUDA_MEDIAN3D_WINDOW_CENTERED;
  GstCudaMedian3dOutput output = GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND;
  gint threshold = -1;
  guint min_blob_area = 25;
  guint max_blobs = 64;
};

/* Streaming state (streaming thread, set_caps, state changes). */
struct GstCudaMedian3dState {
  std::unique_ptr<cvis::median3d::Estimator> est;
  cvis::Backend backend = cvis::Backend::kCpu;
  bool configured = false;
  cvis::median3d::Params params;
  GstCudaMedian3dOutput output = GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND;
  cvis::median3d::WindowTracker tracker;
  /* One entry per frame whose output is still owed, oldest first: the frame itself
   * (output=frame) or an empty buffer carrying its timestamps, flags and metadata. */
  std::deque<GstBuffer *> pending;
  GstBufferPool *mask_pool = nullptr; /* output=frame: masks referenced by the foreground meta */
  bool mask_cuda = false;
  GstClockTime frame_duration = GST_CLOCK_TIME_NONE;
  std::vector<cvis::median3d::Blob> blobs;
  guint64 outputs = 0;
};

struct _GstCudaMedian3d {
  GstCvisFilter parent;
  std::mutex *lock;
  GstCudaMedian3dSettings *settings;
  GstCudaMedian3dState *state;
};

/* gstcudamedian3d_props.cpp: set_property/get_property and the properties. */
void gst_cuda_median3d_install_properties (GObjectClass * gobject_class);

/* gstcudamedian3d_output.cpp. All return a flow; errors are posted as element errors there. */
/* The queued input buffer of GstBaseTransform enters the window; *outbuf gets the output that
 * became ready, if any. */
GstFlowReturn gst_cuda_median3d_arrive (GstCudaMedian3d * self, GstBuffer * inbuf,
    GstBuffer ** outbuf);
/* End of stream or caps change: pushes every output still owed, then forgets the window. */
GstFlowReturn gst_cuda_median3d_drain (GstCudaMedian3d * self);
/* Drops the owed outputs (flush, reset). */
void gst_cuda_median3d_clear_pending (GstCudaMedian3dState * st);
