/* cudarcdtrack: region covariance tracking and detection. See gstcudarcdtrack.cpp for the
 * element documentation. */
#pragma once

#include "gstcvisfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_RCD_TRACK (gst_cuda_rcd_track_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaRcdTrack, gst_cuda_rcd_track, GST, CUDA_RCD_TRACK, GstCvisFilter)

typedef enum {
  GST_CUDA_RCD_TRACK_MODE_TRACK = 0,   /* follow targets from roi, init-roi-type, signals, a model */
  GST_CUDA_RCD_TRACK_MODE_DETECT = 1,  /* every window like a template, each frame */
} GstCudaRcdTrackMode;

/* Values follow cvis::rcdtrack::Distance. */
typedef enum {
  GST_CUDA_RCD_TRACK_DISTANCE_JBLD = 0,
  GST_CUDA_RCD_TRACK_DISTANCE_FOERSTNER = 1,
} GstCudaRcdTrackDistance;

/* Values follow cvis::rcdtrack::RotationSource. */
typedef enum {
  GST_CUDA_RCD_TRACK_ROTATION_TENSOR = 0,
  GST_CUDA_RCD_TRACK_ROTATION_LAYOUT = 1,
  GST_CUDA_RCD_TRACK_ROTATION_FALLBACK = 2,
  GST_CUDA_RCD_TRACK_ROTATION_BOTH = 3,
} GstCudaRcdTrackRotationSource;

GType gst_cuda_rcd_track_mode_get_type (void);
GType gst_cuda_rcd_track_distance_get_type (void);
GType gst_cuda_rcd_track_rotation_source_get_type (void);

/* ROI metas and element messages. */
#define GST_CUDA_RCD_TRACK_ROI_TYPE "track"
#define GST_CUDA_RCD_TRACK_DETECTION_ROI_TYPE "detection"
#define GST_CUDA_RCD_TRACK_PARAM_NAME "rcdtrack"
#define GST_CUDA_RCD_TRACK_LOST_MESSAGE "cvis-rcdtrack-lost"
#define GST_CUDA_RCD_TRACK_REACQUIRED_MESSAGE "cvis-rcdtrack-reacquired"
#define GST_CUDA_RCD_TRACK_STARTED_MESSAGE "cvis-rcdtrack-started"
#define GST_CUDA_RCD_TRACK_REMOVED_MESSAGE "cvis-rcdtrack-removed"

G_END_DECLS
