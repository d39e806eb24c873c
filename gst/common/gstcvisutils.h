/* Small conversions between GStreamer video types and cvis (cuda/common) types, the formats the
 * elements accept and the enum-type macro every element uses. */
#pragma once

#include <gst/video/video.h>

#include "common/image.hpp"

/* The formats, one list for every element (comma-separated, no braces: wrap them in "{ }" in caps).
 * System memory: every format gst_cvis_pixel_format_from_video() maps. CUDA memory: the formats
 * GStreamer 1.22's CUDA allocator can hold (it aborts on GRAY8, xRGB and xBGR); a GRAY8 mask in
 * CUDA memory is an NV12 allocation whose video meta describes plane 0 only (gstcvismask.h). */
#define GST_CVIS_SYS_FORMATS \
    "RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR, RGB, BGR, GRAY8, NV12, I420"
#define GST_CVIS_CUDA_FORMATS "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, NV12, I420"

/* Defines `GType fn (void)` registering the GEnum `name` once (thread-safe), from the GEnumValue
 * initialisers given after the name (the terminating {0, NULL, NULL} is added):
 *   GST_CVIS_DEFINE_ENUM_TYPE (gst_foo_mode_get_type, "GstFooMode",
 *       {GST_FOO_MODE_A, "Mode A", "a"}, {GST_FOO_MODE_B, "Mode B", "b"})
 */
#define GST_CVIS_DEFINE_ENUM_TYPE(fn, name, ...)                             \
  GType fn (void)                                                            \
  {                                                                          \
    static gsize type_ = 0;                                                  \
    static const GEnumValue values_[] = { __VA_ARGS__, {0, NULL, NULL} };    \
    if (g_once_init_enter (&type_))                                          \
      g_once_init_leave (&type_, g_enum_register_static (name, values_));    \
    return (GType) type_;                                                    \
  }

/* The cvis format of a GStreamer video format; FALSE when there is none. */
gboolean gst_cvis_pixel_format_from_video (GstVideoFormat f, cvis::PixelFormat * out);

/* YUV matrix and range of a GstVideoInfo (BT.601 limited range when unknown). */
cvis::YuvColorimetry gst_cvis_colorimetry_from_info (const GstVideoInfo * info);

/* A view of a mapped frame: planes and strides from the frame's GstVideoMeta (the real layout:
 * CUDA memory has a driver-chosen pitch), format and colorimetry from its info. */
gboolean gst_cvis_view_from_frame (const GstVideoFrame * frame, cvis::MemorySpace space,
    cvis::ImageView * view);

/* Posts the "cvis-shot-change" element message of `element` (a GstBaseTransform: its segment gives
 * the running time) for buffer `buf`: fields frame (G_TYPE_UINT64, the element's own count), pts
 * and running-time (G_TYPE_UINT64, GST_CLOCK_TIME_NONE when unknown). The one form every
 * segmentation element posts when a cut restarts its model (cudamedian3d mode=motion,
 * cudabgsub). */
void gst_cvis_post_shot_change (GstElement * element, GstBuffer * buf, guint64 frame);
