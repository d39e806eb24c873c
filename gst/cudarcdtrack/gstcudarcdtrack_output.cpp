/* cudarcdtrack: region-of-interest metas and element messages. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <cmath>

#include "gstcudarcdtrack_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_rcd_track_debug);
#define GST_CAT_DEFAULT gst_cuda_rcd_track_debug

namespace {

/* A ROI meta's content, to put it back after ours. */
struct RoiCopy {
  GQuark type;
  gint id, parent_id;
  guint x, y, w, h;
  std::vector < GstStructure * >params;
};

gboolean
take_roi (GstBuffer * buf, GstMeta ** meta, gpointer data)
{
  (void) buf;
  if ((*meta)->info->api != GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)
    return TRUE;
  auto *roi = reinterpret_cast < GstVideoRegionOfInterestMeta * >(*meta);
  RoiCopy c{roi->roi_type, roi->id, roi->parent_id, roi->x, roi->y, roi->w, roi->h, {}};
  for (GList * l = roi->params; l; l = l->next)
    c.params.push_back (gst_structure_copy (GST_STRUCTURE (l->data)));
  static_cast < std::vector < RoiCopy > *>(data)->push_back (c);
  *meta = NULL;  /* removes it */
  return TRUE;
}

guint
clampu (int v)
{
  return v < 0 ? 0u : (guint) v;
}

}  // namespace

void
gst_cuda_rcd_track_attach_tracks (GstCudaRcdTrack * self, GstBuffer * buf)
{
  GstCudaRcdTrackState & st = *self->state;
  /* Upstream ROI metas move behind ours, so that the first ROI meta is the first target. */
  std::vector < RoiCopy > upstream;
  if (gst_buffer_get_video_region_of_interest_meta (buf))
    gst_buffer_foreach_meta (buf, take_roi, &upstream);
  for (const rcd::TargetResult & r : st.results) {
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf,
        GST_CUDA_RCD_TRACK_ROI_TYPE, clampu (r.box.x), clampu (r.box.y), clampu (r.box.w),
        clampu (r.box.h));
    m->id = r.id;
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new (GST_CUDA_RCD_TRACK_PARAM_NAME,
            "id", G_TYPE_INT, r.id, "distance", G_TYPE_DOUBLE, r.distance,
            "scale", G_TYPE_DOUBLE, r.scale, "lost", G_TYPE_BOOLEAN, (gboolean) r.lost,
            "age", G_TYPE_UINT64, (guint64) r.age, NULL));
  }
  for (RoiCopy & c : upstream) {
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta_id (buf,
        c.type, c.x, c.y, c.w, c.h);
    m->id = c.id;
    m->parent_id = c.parent_id;
    for (GstStructure * s : c.params)
      gst_video_region_of_interest_meta_add_param (m, s);
  }
}

void
gst_cuda_rcd_track_attach_detections (GstCudaRcdTrack * self, GstBuffer * buf)
{
  GstCudaRcdTrackState & st = *self->state;
  int id = 0;
  for (const rcd::Detection & d : st.detections) {
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf,
        GST_CUDA_RCD_TRACK_DETECTION_ROI_TYPE, clampu (d.box.x), clampu (d.box.y),
        clampu (d.box.w), clampu (d.box.h));
    m->id = id++;
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new (GST_CUDA_RCD_TRACK_PARAM_NAME,
            "distance", G_TYPE_DOUBLE, d.distance, "scale", G_TYPE_DOUBLE, d.scale, NULL));
  }
}

namespace {

void
post_target (GstCudaRcdTrack * self, GstBuffer * buf, const char *name,
    const rcd::TargetResult & r)
{
  GstCudaRcdTrackState & st = *self->state;
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  GstSegment *seg = &GST_BASE_TRANSFORM (self)->segment;
  const GstClockTime rt = GST_CLOCK_TIME_IS_VALID (pts) ?
      gst_segment_to_running_time (seg, GST_FORMAT_TIME, pts) : GST_CLOCK_TIME_NONE;
  GST_INFO_OBJECT (self, "%s: target %d at frame %" G_GUINT64_FORMAT " (%d,%d,%d,%d), "
      "distance %.4f", name, r.id, st.frame, r.box.x, r.box.y, r.box.w, r.box.h, r.distance);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
          gst_structure_new (name, "id", G_TYPE_INT, r.id, "frame", G_TYPE_UINT64, st.frame,
              "pts", G_TYPE_UINT64, pts, "running-time", G_TYPE_UINT64, rt,
              "x", G_TYPE_INT, r.box.x, "y", G_TYPE_INT, r.box.y, "width", G_TYPE_INT, r.box.w,
              "height", G_TYPE_INT, r.box.h, "distance", G_TYPE_DOUBLE, r.distance, NULL)));
}

}  // namespace

void
gst_cuda_rcd_track_post_events (GstCudaRcdTrack * self, GstBuffer * buf)
{
  using Kind = rcd::TargetEvent::Kind;
  for (const rcd::TargetEvent & e : self->state->events) {
    const rcd::TargetResult & r = e.target;
    switch (e.kind) {
      case Kind::kStarted:
        post_target (self, buf, GST_CUDA_RCD_TRACK_STARTED_MESSAGE, r);
        break;
      case Kind::kLost:
        post_target (self, buf, GST_CUDA_RCD_TRACK_LOST_MESSAGE, r);
        break;
      case Kind::kReacquired:
        post_target (self, buf, GST_CUDA_RCD_TRACK_REACQUIRED_MESSAGE, r);
        break;
      case Kind::kRemoved:
        GST_INFO_OBJECT (self, "target %d removed: %s", r.id, e.detail.c_str ());
        post_target (self, buf, GST_CUDA_RCD_TRACK_REMOVED_MESSAGE, r);
        break;
      case Kind::kRefused:
        /* Asked for before the frame size was known (or under other caps): the id the signal
         * returned ends here, with the box asked for and distance -1. */
        GST_WARNING_OBJECT (self, "track: target %d at %d,%d,%d,%d refused at the first frame: "
            "%s", r.id, r.box.x, r.box.y, r.box.w, r.box.h, e.detail.c_str ());
        post_target (self, buf, GST_CUDA_RCD_TRACK_REMOVED_MESSAGE, r);
        break;
    }
  }
}

void
gst_cuda_rcd_track_type_boxes (GstBuffer * buf, const std::string & type, rcd::InitBoxes * out)
{
  const GQuark q = g_quark_from_string (type.c_str ());
  gpointer iter = NULL;
  GstMeta *meta;
  out->boxes.clear ();
  out->pixels.clear ();
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto *roi = reinterpret_cast < GstVideoRegionOfInterestMeta * >(meta);
    if (roi->roi_type != q)
      continue;
    out->boxes.push_back ({(int) roi->x, (int) roi->y, (int) roi->w, (int) roi->h});
    /* The blob's pixel count, when the box carries one (a "foreground" structure's "area"). */
    guint area = 0;
    for (GList * l = roi->params; l; l = l->next)
      if (area == 0 && !gst_structure_get_uint ((GstStructure *) l->data, "area", &area))
        area = 0;
    out->pixels.push_back (area);
  }
}
