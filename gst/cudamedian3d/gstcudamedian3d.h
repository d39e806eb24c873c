/* cudamedian3d: spatio-temporal median background model and motion segmentation. See
 * gstcudamedian3d.cpp for the element documentation. */
#pragma once

#include "gstcvistemporal.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_MEDIAN3D (gst_cuda_median3d_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaMedian3d, gst_cuda_median3d, GST, CUDA_MEDIAN3D,
    GstCvisTemporalFilter)

/* What the element computes. */
typedef enum {
  GST_CUDA_MEDIAN3D_MODE_MOTION = 0,  /* motion detector: long per-pixel sample history (no lag) */
  GST_CUDA_MEDIAN3D_MODE_PAPER = 1,   /* the paper's m x n x (T+1) median, Otsu threshold */
} GstCudaMedian3dMode;

/* What leaves the source pad. */
typedef enum {
  GST_CUDA_MEDIAN3D_OUTPUT_BACKGROUND = 0,  /* the median image, in the input's format */
  GST_CUDA_MEDIAN3D_OUTPUT_MASK = 1,        /* GRAY8 (system memory): 255 = foreground */
  GST_CUDA_MEDIAN3D_OUTPUT_FRAME = 2,       /* the frames, with foreground meta and blob boxes */
} GstCudaMedian3dOutput;

typedef enum {
  GST_CUDA_MEDIAN3D_WINDOW_CENTERED = 0,  /* frames k-T/2..k+T/2: output lags T/2 frames */
  GST_CUDA_MEDIAN3D_WINDOW_CAUSAL = 1,    /* frames k-T..k: no lag (live sources) */
} GstCudaMedian3dWindow;

/* Values follow cvis::median3d::Method and cvis::median3d::Channels. */
typedef enum {
  GST_CUDA_MEDIAN3D_METHOD_INTEGRAL_HISTOGRAM = 0,
  GST_CUDA_MEDIAN3D_METHOD_SEPARABLE = 1,
  GST_CUDA_MEDIAN3D_METHOD_SLIDING_HISTOGRAM = 2,
} GstCudaMedian3dMethod;

typedef enum {
  GST_CUDA_MEDIAN3D_CHANNELS_LUMA = 0,
  GST_CUDA_MEDIAN3D_CHANNELS_RGB = 1,
} GstCudaMedian3dChannels;

GType gst_cuda_median3d_mode_get_type (void);
GType gst_cuda_median3d_output_get_type (void);
GType gst_cuda_median3d_window_get_type (void);
GType gst_cuda_median3d_method_get_type (void);
GType gst_cuda_median3d_channels_get_type (void);

G_END_DECLS
