/* cudarcdtrack: region-of-interest metas, element messages and init-roi-type candidates. */
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

void
gst_cuda_rcd_track_post_events (GstCudaRcdTrack * self, GstBuffer * buf)
{
  GstCudaRcdTrackState & st = *self->state;
  for (const rcd::TargetResult & r : st.results) {
    const char *name = r.event == rcd::Event::kLost ? GST_CUDA_RCD_TRACK_LOST_MESSAGE :
        r.event == rcd::Event::kReacquired ? GST_CUDA_RCD_TRACK_REACQUIRED_MESSAGE :
        r.event == rcd::Event::kStarted ? GST_CUDA_RCD_TRACK_STARTED_MESSAGE : NULL;
    if (name)
      gst_cuda_rcd_track_post_target (self, buf, name, r);
  }
}

void
gst_cuda_rcd_track_post_target (GstCudaRcdTrack * self, GstBuffer * buf, const char *name,
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

std::vector < rcd::Box > gst_cuda_rcd_track_type_boxes (GstBuffer * buf, const std::string & type)
{
  const GQuark q = g_quark_from_string (type.c_str ());
  std::vector < rcd::Box > boxes;
  gpointer iter = NULL;
  GstMeta *meta;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto *roi = reinterpret_cast < GstVideoRegionOfInterestMeta * >(meta);
    if (roi->roi_type == q)
      boxes.push_back ({(int) roi->x, (int) roi->y, (int) roi->w, (int) roi->h});
  }
  return boxes;
}

guint
gst_cuda_rcd_track_min_area (guint min_area, int width, int height)
{
  /* Automatic: a 1/5000 of the frame (the objects of the 1080p street sequence of the
   * segmentation corpus are 99% larger; 40 of the ~48 foreground boxes per frame of vtest.avi at
   * 1080p are smaller, compression noise and slivers), at least the former fixed 64. */
  if (min_area > 0)
    return min_area;
  return MAX (64, (guint) ((guint64) MAX (width, 0) * (guint64) MAX (height, 0) / 5000));
}

std::vector < rcd::Box > gst_cuda_rcd_track_init_boxes (GstCudaRcdTrack * self,
    const GstCudaRcdTrackInitBoxes & init, guint persistence)
{
  GstCudaRcdTrackState & st = *self->state;
  const guint min_area = init.min_area;
  for (GstCudaRcdTrackCandidate & c : st.candidates)
    c.seen = false;
  for (const rcd::Box & b : init.boxes) {
    GstCudaRcdTrackCandidate *best = nullptr;
    double best_iou = 0.5;  /* the same object on consecutive frames */
    for (GstCudaRcdTrackCandidate & c : st.candidates) {
      const double o = rcd::iou (c.box, b);
      if (!c.seen && o >= best_iou) {
        best = &c;
        best_iou = o;
      }
    }
    if (best) {
      best->box = b;
      best->frames++;
      best->seen = true;
    } else {
      st.candidates.push_back ({b, 1, true});
    }
  }
  std::vector < rcd::Box > ready;
  std::vector < GstCudaRcdTrackCandidate > keep;
  for (const GstCudaRcdTrackCandidate & c : st.candidates) {
    if (!c.seen)
      continue;  /* gone: starts again from one frame */
    const bool big = (guint64) c.box.w * (guint64) c.box.h >= min_area;
    if (c.frames < persistence || !big) {
      keep.push_back (c);
      continue;
    }
    /* Not a second target on an object already tracked (or started just now). */
    bool taken = false;
    const double cx = c.box.x + 0.5 * c.box.w, cy = c.box.y + 0.5 * c.box.h;
    auto covers = [&](const rcd::Box & t) {
      return rcd::iou (t, c.box) > 0.2 || (cx >= t.x && cx < t.x + t.w && cy >= t.y &&
          cy < t.y + t.h);
    };
    for (const rcd::TargetResult & r : st.results)
      taken = taken || covers (r.box);
    for (const rcd::Box & r : ready)
      taken = taken || covers (r);
    if (!taken)
      ready.push_back (c.box);
    else
      keep.push_back (c);
  }
  st.candidates.swap (keep);
  return ready;
}
