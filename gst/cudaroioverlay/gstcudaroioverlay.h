/* cudaroioverlay: draws the regions of interest, labels, track trails and foreground masks that
 * the other elements attach, onto the frames in place. See gstcudaroioverlay.cpp for the element
 * documentation. */
#pragma once

#include "gstcvisfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_ROI_OVERLAY (gst_cuda_roi_overlay_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaRoiOverlay, gst_cuda_roi_overlay, GST, CUDA_ROI_OVERLAY,
    GstCvisFilter)

#define GST_TYPE_CUDA_ROI_OVERLAY_COLOR_BY (gst_cuda_roi_overlay_color_by_get_type ())
GType gst_cuda_roi_overlay_color_by_get_type (void);

/* How a box's colour is chosen. */
typedef enum {
  GST_CUDA_ROI_OVERLAY_COLOR_BY_AUTO = 0,   /* tracks by id, other boxes by roi_type */
  GST_CUDA_ROI_OVERLAY_COLOR_BY_TYPE = 1,   /* every box by its roi_type */
  GST_CUDA_ROI_OVERLAY_COLOR_BY_ID = 2,     /* every box by its id */
} GstCudaRoiOverlayColorBy;

G_END_DECLS
