/* cudacedd: CEDD descriptors of video frames and regions, with optional SQLite indexing and shot
 * change detection. See gstcudacedd.cpp for the element documentation. */
#pragma once

#include "gstcvisfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_CEDD (gst_cuda_cedd_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaCedd, gst_cuda_cedd, GST, CUDA_CEDD, GstCvisFilter)

#define GST_TYPE_CUDA_CEDD_REGIONS (gst_cuda_cedd_regions_get_type ())
GType gst_cuda_cedd_regions_get_type (void);

/* Which descriptors are computed per buffer. */
typedef enum {
  GST_CUDA_CEDD_REGIONS_FRAME = 0,  /* the whole frame */
  GST_CUDA_CEDD_REGIONS_ROIS = 1,   /* one per GstVideoRegionOfInterestMeta on the buffer */
  GST_CUDA_CEDD_REGIONS_BOTH = 2,
} GstCudaCeddRegions;

G_END_DECLS
