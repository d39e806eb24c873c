#include "gstcvisutils.h"

#include <gst/base/gstbasetransform.h>

gboolean
gst_cvis_pixel_format_from_video (GstVideoFormat f, cvis::PixelFormat * out)
{
  using cvis::PixelFormat;
  switch (f) {
    case GST_VIDEO_FORMAT_RGBA: *out = PixelFormat::kRGBA; return TRUE;
    case GST_VIDEO_FORMAT_BGRA: *out = PixelFormat::kBGRA; return TRUE;
    case GST_VIDEO_FORMAT_RGBx: *out = PixelFormat::kRGBx; return TRUE;
    case GST_VIDEO_FORMAT_BGRx: *out = PixelFormat::kBGRx; return TRUE;
    case GST_VIDEO_FORMAT_xRGB: *out = PixelFormat::kxRGB; return TRUE;
    case GST_VIDEO_FORMAT_xBGR: *out = PixelFormat::kxBGR; return TRUE;
    case GST_VIDEO_FORMAT_ARGB: *out = PixelFormat::kARGB; return TRUE;
    case GST_VIDEO_FORMAT_ABGR: *out = PixelFormat::kABGR; return TRUE;
    case GST_VIDEO_FORMAT_RGB: *out = PixelFormat::kRGB; return TRUE;
    case GST_VIDEO_FORMAT_BGR: *out = PixelFormat::kBGR; return TRUE;
    case GST_VIDEO_FORMAT_GRAY8: *out = PixelFormat::kGRAY8; return TRUE;
    case GST_VIDEO_FORMAT_NV12: *out = PixelFormat::kNV12; return TRUE;
    case GST_VIDEO_FORMAT_I420: *out = PixelFormat::kI420; return TRUE;
    default: return FALSE;
  }
}

cvis::YuvColorimetry
gst_cvis_colorimetry_from_info (const GstVideoInfo * info)
{
  cvis::YuvColorimetry c;
  using M = cvis::YuvColorimetry::Matrix;
  switch (info->colorimetry.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT709: c.matrix = M::kBT709; break;
    case GST_VIDEO_COLOR_MATRIX_BT2020: c.matrix = M::kBT2020; break;
    case GST_VIDEO_COLOR_MATRIX_SMPTE240M: c.matrix = M::kSMPTE240M; break;
    default: c.matrix = M::kBT601; break;
  }
  c.full_range = info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
  return c;
}

gboolean
gst_cvis_view_from_frame (const GstVideoFrame * frame, cvis::MemorySpace space,
    cvis::ImageView * view)
{
  cvis::ImageView v;
  if (!gst_cvis_pixel_format_from_video (GST_VIDEO_FRAME_FORMAT (frame), &v.format))
    return FALSE;
  v.space = space;
  v.width = GST_VIDEO_FRAME_WIDTH (frame);
  v.height = GST_VIDEO_FRAME_HEIGHT (frame);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame) && p < 3; p++) {
    v.data[p] = static_cast<uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (frame, p));
    v.pitch[p] = static_cast<size_t> (GST_VIDEO_FRAME_PLANE_STRIDE (frame, p));
  }
  v.yuv = gst_cvis_colorimetry_from_info (&frame->info);
  *view = v;
  return TRUE;
}

void
gst_cvis_post_shot_change (GstElement * element, GstBuffer * buf, guint64 frame)
{
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  GstSegment *seg = &GST_BASE_TRANSFORM (element)->segment;
  const GstClockTime rt = GST_CLOCK_TIME_IS_VALID (pts) ?
      gst_segment_to_running_time (seg, GST_FORMAT_TIME, pts) : GST_CLOCK_TIME_NONE;
  gst_element_post_message (element, gst_message_new_element (GST_OBJECT (element),
          gst_structure_new ("cvis-shot-change", "frame", G_TYPE_UINT64, frame,
              "pts", G_TYPE_UINT64, pts, "running-time", G_TYPE_UINT64, rt, NULL)));
}
