/* cudabgsub: nonparametric (KDE) background subtraction with CPWL-approximated Gaussian kernels.
 * See gstcudabgsub.cpp for the element documentation. */
#pragma once

#include "gstcvisfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_BG_SUB (gst_cuda_bg_sub_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaBgSub, gst_cuda_bg_sub, GST, CUDA_BG_SUB, GstCvisFilter)

/* What leaves the source pad. */
typedef enum {
  GST_CUDA_BG_SUB_OUTPUT_MASK = 0,   /* GRAY8 mask, 255 = foreground, blob boxes on it */
  GST_CUDA_BG_SUB_OUTPUT_FRAME = 1,  /* the frames, with foreground meta and blob boxes */
} GstCudaBgSubOutput;

GType gst_cuda_bg_sub_output_get_type (void);
/* Values follow cvis::bgsub::Kernel, cvis::cpwl::Fit, cvis::bgsub::ColorSpace and Cleanup. */
GType gst_cuda_bg_sub_kernel_get_type (void);
GType gst_cuda_bg_sub_fit_get_type (void);
GType gst_cuda_bg_sub_color_space_get_type (void);
GType gst_cuda_bg_sub_cleanup_get_type (void);

G_END_DECLS
