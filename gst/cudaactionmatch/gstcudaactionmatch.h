/* cudaactionmatch: recognises actions in video by exact hypergraph matching of space-time interest
 * points against a dictionary of model actions. See gstcudaactionmatch.cpp for the element
 * documentation. */
#pragma once

#include "gstcvistemporal.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_ACTION_MATCH (gst_cuda_action_match_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaActionMatch, gst_cuda_action_match, GST, CUDA_ACTION_MATCH,
    GstCvisTemporalFilter)

/* What is compared between a scene block and a model (values follow
 * cvis::actionmatch::Distance). */
typedef enum {
  GST_CUDA_ACTION_MATCH_DISTANCE_ENERGY = 0,      /* the optimum's whole energy */
  GST_CUDA_ACTION_MATCH_DISTANCE_APPEARANCE = 1,  /* its appearance part (the paper's best) */
} GstCudaActionMatchDistance;

GType gst_cuda_action_match_distance_get_type (void);

/* How the descriptors bin the optical flow (values follow cvis::stip::FlowHistogram). */
typedef enum {
  GST_CUDA_ACTION_MATCH_FLOW_HISTOGRAM_PAPER = 0, /* 4 directions + no motion (162 values) */
  GST_CUDA_ACTION_MATCH_FLOW_HISTOGRAM_SPEED = 1, /* directions split by speed (234 values) */
} GstCudaActionMatchFlowHistogram;

GType gst_cuda_action_match_flow_histogram_get_type (void);

/* The interest point detector (values follow cvis::stip::Detector). */
typedef enum {
  GST_CUDA_ACTION_MATCH_DETECTOR_PERIODIC = 0, /* Dollar et al.: Gaussian x temporal Gabor pair */
  GST_CUDA_ACTION_MATCH_DETECTOR_HARRIS = 1,   /* Laptev: space-time Harris corners */
} GstCudaActionMatchDetector;

GType gst_cuda_action_match_detector_get_type (void);

/* Element messages (structure names). */
#define GST_CUDA_ACTION_MATCH_MESSAGE "cvis-action"

G_END_DECLS
