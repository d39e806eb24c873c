/* cudamedian3d internals shared by the element's source files. */
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "gstcudamedian3d.h"
#include "gstcvismask.h"
#include "median3d/median3d.hpp"
#include "median3d/motion.hpp"

/* Properties (under `lock`). Window and output settings take effect at the next configure. */
struct GstCudaMedian3dSettings {
  GstCudaMedian3dMode mode = GST_CUDA_MEDIAN3D_MODE_MOTION;
  cvis::median3d::MotionParams motion;  /* mode=motion; blob settings from min/max_blobs */
  cvis::median3d::Params params;  /* spatial_w/h unused: see spatial_size/spatial_height */
  gint spatial_size = 3;
  gint spatial_height = 0;  /* 0: spatial_size */
  GstCudaMedian3dWindow window = GST_CUDA_MEDIAN3D_WINDOW_CENTERED;
  GstCudaMedian3dOutput output = GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND;
  gint threshold = -1;
  guint min_blob_area = 0;  /* 0: cvis::ccl::auto_min_area of the frame */
  guint max_blobs = 64;
};

/* Streaming state (streaming thread, set_caps, state changes). The owed outputs themselves are
 * GstCvisTemporalFilter's. */
struct GstCudaMedian3dState {
  std::unique_ptr<cvis::median3d::Estimator> est;
  cvis::Backend backend = cvis::Backend::kCpu;
  bool configured = false;
  gint width = 0, height = 0;  /* of the frames, at configure */
  cvis::median3d::Params params;
  GstCudaMedian3dOutput output = GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND;
  cvis::median3d::WindowTracker tracker;
  int pops = 0, index = 0;  /* of the output `ready` announced */
  GstCvisMasks masks;       /* output=frame: masks referenced by the foreground meta */
  std::vector<cvis::median3d::Blob> blobs;
  guint64 outputs = 0;
  /* mode=motion: one output per frame, no lag. The frame's view (new outputs: it stays mapped
   * until its output was produced), or (output=frame) the mask computed at push. */
  bool motion_mode = false;
  std::unique_ptr<cvis::median3d::MotionDetector> motion;
  bool motion_pending = false;
  cvis::ImageView motion_in;
  GstBuffer *motion_mask = NULL;
  gint motion_stride = 0;
  cvis::median3d::MotionResult motion_result;
};

struct _GstCudaMedian3d {
  GstCvisTemporalFilter parent;
  std::mutex *lock;
  GstCudaMedian3dSettings *settings;
  GstCudaMedian3dState *state;
};

/* gstcudamedian3d_props.cpp: set_property/get_property and the properties. */
void gst_cuda_median3d_install_properties (GObjectClass * gobject_class);

/* gstcudamedian3d_motion.cpp: the same vfuncs in mode=motion (called by those below). */
cvis::Status gst_cuda_median3d_motion_configure (GstCudaMedian3d * self, cvis::Backend backend);
/* The min-blob-area setting for the configured frame size (0: automatic). */
guint gst_cuda_median3d_min_blob_area (const GstCudaMedian3dSettings & s,
    const GstCudaMedian3dState & st);
cvis::Status gst_cuda_median3d_motion_push (GstCudaMedian3d * self, GstBuffer * inbuf,
    const cvis::ImageView & in, cvis::StreamHandle stream);
cvis::Status gst_cuda_median3d_motion_produce (GstCudaMedian3d * self, GstBuffer * outbuf,
    const cvis::ImageView * out, cvis::StreamHandle stream);
void gst_cuda_median3d_motion_clear (GstCudaMedian3dState * st);

/* gstcudamedian3d_motion_props.cpp: mode=motion's GST_CUDA_MEDIAN3D_MOTION_PROPS properties, ids
 * first.. (set/get take ids relative to first; set is called only when not running). */
#define GST_CUDA_MEDIAN3D_MOTION_PROPS 19
void gst_cuda_median3d_install_motion_properties (GObjectClass * klass, guint first);
void gst_cuda_median3d_set_motion_property (cvis::median3d::MotionParams * m, guint id,
    const GValue * value, GParamSpec * pspec);
gboolean gst_cuda_median3d_get_motion_property (const cvis::median3d::MotionParams & m, guint id,
    GValue * value);
/* Their names, NULL-terminated. */
const gchar *const *gst_cuda_median3d_motion_property_names (void);

/* gstcudamedian3d_output.cpp: GstCvisTemporalFilter vfuncs (context pushed). */
cvis::Status gst_cuda_median3d_push (GstCvisTemporalFilter * filter, GstBuffer * inbuf,
    const cvis::ImageView & in, cvis::StreamHandle stream);
cvis::Status gst_cuda_median3d_ready (GstCvisTemporalFilter * filter, gboolean draining,
    gboolean * ready);
cvis::Status gst_cuda_median3d_produce (GstCvisTemporalFilter * filter, GstBuffer * outbuf,
    const cvis::ImageView * out, cvis::StreamHandle stream);
