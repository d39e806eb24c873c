/* cudaactionmatch: frames entering the recogniser and leaving with the results of the blocks they
 * end (GstCvisTemporalFilter vfuncs, called with the CUDA context pushed; the base class holds the
 * frames and pushes them). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <algorithm>
#include <cmath>

#include <gst/cvis/cvisactionmeta.h>

#include "gstcudaactionmatch_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_action_match_debug);
#define GST_CAT_DEFAULT gst_cuda_action_match_debug

namespace am = cvis::actionmatch;
namespace al = cvis::actionlearn;

cvis::Status
gst_cuda_action_match_push (GstCvisTemporalFilter * filter, GstBuffer * inbuf,
    const cvis::ImageView & in, cvis::StreamHandle stream)
{
  GstCudaActionMatchState & st = *GST_CUDA_ACTION_MATCH (filter)->state;
  if (!st.configured)
    return cvis::internal_error ("buffer before caps were configured");
  GstCudaActionMatchStamp stamp;
  stamp.pts = GST_BUFFER_PTS (inbuf);
  stamp.duration = GST_BUFFER_DURATION (inbuf);
  st.stamps.push_back (stamp);
  st.pushed++;
  /* Kept: the frames a block still to come may start at (a tail block: block-frames before the
   * last final frame). */
  while (st.stamps.size () > (size_t) (st.block_frames + st.rec.lag () + 1)) {
    st.stamps.pop_front ();
    st.stamps_base++;
  }
  st.out.clear ();
  CVIS_RETURN_IF_ERROR (st.rec.push (in, stream, &st.out));
  for (al::BlockResult & r : st.out)
    st.pending.push_back (std::move (r));
  return cvis::Status::Ok ();
}

cvis::Status
gst_cuda_action_match_ready (GstCvisTemporalFilter * filter, gboolean draining,
    gboolean * ready)
{
  GstCudaActionMatchState & st = *GST_CUDA_ACTION_MATCH (filter)->state;
  *ready = FALSE;
  if (!st.configured)
    return cvis::Status::Ok ();
  if (draining && !st.finished && st.produced < st.pushed) {
    st.out.clear ();
    const cvis::Status s = st.rec.finish (gst_cvis_filter_get_stream (GST_CVIS_FILTER (filter)),
        &st.out);
    st.finished = true;
    CVIS_RETURN_IF_ERROR (s);
    for (al::BlockResult & r : st.out)
      st.pending.push_back (std::move (r));
  }
  const guint64 final_frames = st.finished ? st.pushed : (guint64) st.rec.final_frames ();
  *ready = st.produced < final_frames;
  return cvis::Status::Ok ();
}

static GstClockTime
stamp_pts (const GstCudaActionMatchState & st, guint64 frame)
{
  if (frame < st.stamps_base || frame - st.stamps_base >= st.stamps.size ())
    return GST_CLOCK_TIME_NONE;
  return st.stamps[frame - st.stamps_base].pts;
}

/* The box of the matched points, widened by half a descriptor patch (1.5 cells) and clipped. */
static void
points_box (const GstCudaActionMatchState & st, const al::BlockResult & r, guint * x, guint * y,
    guint * w, guint * h)
{
  float x0 = r.points[0].x, x1 = x0, y0 = r.points[0].y, y1 = y0;
  for (const al::MatchedPoint & p : r.points) {
    x0 = std::min (x0, p.x);
    x1 = std::max (x1, p.x);
    y0 = std::min (y0, p.y);
    y1 = std::max (y1, p.y);
  }
  const double m = 1.5 * st.cell_size;
  const double bx0 = std::max (0.0, std::floor (x0 - m)), by0 = std::max (0.0, std::floor (y0 - m));
  const double bx1 = std::min ((double) st.width, std::ceil (x1 + m + 1));
  const double by1 = std::min ((double) st.height, std::ceil (y1 + m + 1));
  *x = (guint) bx0;
  *y = (guint) by0;
  *w = (guint) std::max (1.0, bx1 - bx0);
  *h = (guint) std::max (1.0, by1 - by0);
}

/* Meta, ROI and message of one recognised block, on `buf` (the block's last frame). */
static void
attach_result (GstCudaActionMatch * self, GstBuffer * buf, const al::BlockResult & r)
{
  GstCudaActionMatchState & st = *self->state;
  const am::Model & m = st.dict.models[r.model];
  GstCvisActionInfo info = { };
  info.label = r.label.c_str ();
  info.model_source = m.source.c_str ();
  info.model_id = r.model;
  info.distance = r.distance;
  info.energy = r.energy;
  info.appearance = r.appearance;
  info.score = r.score;
  info.dummies = r.dummies;
  info.nodes = r.nodes;
  info.first_frame = (guint64) r.first_frame;
  info.last_frame = (guint64) r.last_frame;
  info.start = stamp_pts (st, info.first_frame);
  const GstClockTime last = GST_BUFFER_PTS (buf), dur = GST_BUFFER_DURATION (buf);
  info.end = GST_CLOCK_TIME_IS_VALID (last) && GST_CLOCK_TIME_IS_VALID (dur) ? last + dur : last;
  info.complete = r.complete;
  GstCustomMeta *meta = gst_buffer_add_cvis_action_meta (buf, &info);
  GValue points = G_VALUE_INIT;
  g_value_init (&points, GST_TYPE_ARRAY);
  for (const al::MatchedPoint & p : r.points) {
    if (meta)
      gst_cvis_action_meta_add_point (meta, (guint64) p.frame, p.x, p.y);
    GValue v = G_VALUE_INIT;
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, gst_structure_new ("point", "frame", G_TYPE_UINT64,
            (guint64) p.frame, "x", G_TYPE_DOUBLE, (gdouble) p.x, "y", G_TYPE_DOUBLE,
            (gdouble) p.y, NULL));
    gst_value_array_append_and_take_value (&points, &v);
  }
  guint bx = 0, by = 0, bw = (guint) st.width, bh = (guint) st.height;
  if (!r.points.empty ())
    points_box (st, r, &bx, &by, &bw, &bh);
  GstVideoRegionOfInterestMeta *roi = gst_buffer_add_video_region_of_interest_meta (buf,
      GST_CVIS_ACTION_ROI_TYPE, bx, by, bw, bh);
  roi->id = r.model;
  gst_video_region_of_interest_meta_add_param (roi, gst_structure_new ("action",
          "label", G_TYPE_STRING, info.label, "model-id", G_TYPE_INT, r.model,
          "score", G_TYPE_DOUBLE, r.score, "distance", G_TYPE_DOUBLE, r.distance, NULL));

  GstSegment *seg = &GST_BASE_TRANSFORM (self)->segment;
  const GstClockTime rt = GST_CLOCK_TIME_IS_VALID (last) ?
      gst_segment_to_running_time (seg, GST_FORMAT_TIME, last) : GST_CLOCK_TIME_NONE;
  GstStructure *s = gst_structure_new (GST_CUDA_ACTION_MATCH_MESSAGE,
      "label", G_TYPE_STRING, info.label, "model-id", G_TYPE_INT, r.model,
      "model-source", G_TYPE_STRING, info.model_source, "distance", G_TYPE_DOUBLE, r.distance,
      "energy", G_TYPE_DOUBLE, r.energy, "appearance", G_TYPE_DOUBLE, r.appearance,
      "score", G_TYPE_DOUBLE, r.score, "dummies", G_TYPE_INT, r.dummies,
      "nodes", G_TYPE_INT, r.nodes, "first-frame", G_TYPE_UINT64, info.first_frame,
      "last-frame", G_TYPE_UINT64, info.last_frame, "start", G_TYPE_UINT64, info.start,
      "end", G_TYPE_UINT64, info.end, "complete", G_TYPE_BOOLEAN, info.complete,
      "running-time", G_TYPE_UINT64, rt, "x", G_TYPE_UINT, bx, "y", G_TYPE_UINT, by,
      "width", G_TYPE_UINT, bw, "height", G_TYPE_UINT, bh, NULL);
  gst_structure_take_value (s, "points", &points);
  GST_INFO_OBJECT (self, "frames %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ": %s (model %d), "
      "distance %.4f, score %.3f, %zu points", r.first_frame, r.last_frame, info.label, r.model,
      r.distance, r.score, r.points.size ());
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self), s));
}

/* `outbuf` is the oldest owed frame (number st.produced): the results of the blocks it ends. */
cvis::Status
gst_cuda_action_match_produce (GstCvisTemporalFilter * filter, GstBuffer * outbuf,
    const cvis::ImageView *, cvis::StreamHandle)
{
  GstCudaActionMatch *self = GST_CUDA_ACTION_MATCH (filter);
  GstCudaActionMatchState & st = *self->state;
  const guint64 frame = st.produced++;
  gdouble min_score;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    min_score = self->settings->min_score;  /* mutable while playing */
  }
  while (!st.pending.empty () && (guint64) st.pending.front ().last_frame <= frame) {
    const al::BlockResult & r = st.pending.front ();
    if (r.model >= 0 && r.score >= min_score)
      attach_result (self, outbuf, r);
    else
      GST_DEBUG_OBJECT (self, "frames %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ": no action (%d "
          "points, model %d, score %.3f)", r.first_frame, r.last_frame, r.nodes, r.model,
          r.score);
    st.pending.pop_front ();
  }
  return cvis::Status::Ok ();
}
