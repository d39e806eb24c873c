/* Small conversions between GStreamer video types and cvis (cuda/common) types. */
#pragma once

#include <gst/video/video.h>

#include "common/image.hpp"

/* The cvis format of a GStreamer video format; FALSE when there is none. */
gboolean gst_cvis_pixel_format_from_video (GstVideoFormat f, cvis::PixelFormat * out);

/* YUV matrix and range of a GstVideoInfo (BT.601 limited range when unknown). */
cvis::YuvColorimetry gst_cvis_colorimetry_from_info (const GstVideoInfo * info);

/* A view of a mapped frame: planes and strides from the frame's GstVideoMeta (the real layout:
 * CUDA memory has a driver-chosen pitch), format and colorimetry from its info. */
gboolean gst_cvis_view_from_frame (const GstVideoFrame * frame, cvis::MemorySpace space,
    cvis::ImageView * view);
