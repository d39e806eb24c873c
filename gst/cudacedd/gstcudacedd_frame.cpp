/* cudacedd: per frame (called by GstCvisFilter with the CUDA context pushed): regions, descriptors,
 * shot detection, the meta, the index rows. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvisceddmeta.h>

#include "gstcudacedd_priv.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_cedd_debug);
#define GST_CAT_DEFAULT gst_cuda_cedd_debug

/* Collects the regions to describe: the frame first (when wanted or needed for shot detection),
 * then the buffer's ROI metas clipped to the frame. Returns whether the frame is described. */
static bool
collect_regions (State & st, GstBuffer * buf, const cvis::ImageView & frame,
    GstCudaCeddRegions mode, bool need_frame)
{
  st.regions.clear ();
  st.roi_ids.clear ();
  st.roi_types.clear ();
  const bool with_frame = mode != GST_CUDA_CEDD_REGIONS_ROIS || need_frame;
  if (with_frame) {
    st.regions.push_back ({0, 0, frame.width, frame.height});
    st.roi_ids.push_back (GST_CVIS_CEDD_FRAME_ID);
    st.roi_types.emplace_back ();
  }
  if (mode == GST_CUDA_CEDD_REGIONS_FRAME)
    return with_frame;
  gpointer iter = NULL;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    auto *roi = reinterpret_cast<GstVideoRegionOfInterestMeta *> (m);
    const gint x0 = CLAMP ((gint) roi->x, 0, frame.width);
    const gint y0 = CLAMP ((gint) roi->y, 0, frame.height);
    const gint x1 = CLAMP ((gint) (roi->x + roi->w), 0, frame.width);
    const gint y1 = CLAMP ((gint) (roi->y + roi->h), 0, frame.height);
    if (x1 <= x0 || y1 <= y0)
      continue;
    st.regions.push_back ({x0, y0, x1 - x0, y1 - y0});
    st.roi_ids.push_back (roi->id);
    st.roi_types.emplace_back (g_quark_to_string (roi->roi_type));
  }
  return with_frame;
}

cvis::Status
gst_cuda_cedd_analyse (GstCvisFilter * filter, GstBuffer * buf, const cvis::ImageView & frame,
    cvis::StreamHandle stream)
{
  GstCudaCedd *self = GST_CUDA_CEDD (filter);
  State & st = *self->state;
  GstCudaCeddRegions mode;
  gdouble threshold;
  {
    std::lock_guard<std::mutex> lk (*self->lock);
    mode = self->settings->regions;
    threshold = self->settings->shot_threshold;
  }
  const bool shots = threshold < 100.0;
  const bool has_frame = collect_regions (st, buf, frame, mode, shots);
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  GstClockTime stream_time;
  const guint64 frame_no = st.position.advance (buf, &GST_BASE_TRANSFORM (self)->segment,
      gst_cvis_filter_get_in_info (filter), &stream_time);
  if (st.regions.empty ())
    return cvis::Status::Ok ();   /* rois mode, no ROI on this buffer */

  st.results.resize (st.regions.size ());
  CVIS_RETURN_IF_ERROR (st.extractor->describe (frame, st.regions.data (),
          (int) st.regions.size (), st.results.data (), stream));

  /* Shot detection on the frame descriptor. */
  gdouble distance = -1.0;
  gboolean shot = FALSE;
  if (has_frame && shots) {
    const cvis::cedd::Levels & cur = st.results[0].levels;
    if (st.have_prev) {
      distance = gst_cvis_cedd_tanimoto (st.prev.data (), cur.data ());
      shot = distance > threshold;
    }
    st.prev = cur;
    st.have_prev = true;
  }
  if (shot) {
    GstSegment *seg = &GST_BASE_TRANSFORM (self)->segment;
    GstClockTime rt = GST_CLOCK_TIME_IS_VALID (pts) ?
        gst_segment_to_running_time (seg, GST_FORMAT_TIME, pts) : GST_CLOCK_TIME_NONE;
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("cvis-shot-change", "stream", G_TYPE_STRING, st.stream.c_str (),
                "frame", G_TYPE_UINT64, frame_no, "pts", G_TYPE_UINT64, pts,
                "stream-time", G_TYPE_UINT64, stream_time, "running-time", G_TYPE_UINT64, rt,
                "distance", G_TYPE_DOUBLE, distance, NULL)));
    GST_INFO_OBJECT (self, "shot change at frame %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT
        " distance %.3f", frame_no, GST_TIME_ARGS (pts), distance);
  }

  /* Attach (and index) what was asked for; a frame descriptor computed only for shot detection in
   * rois mode is not attached. */
  const size_t first = (has_frame && mode == GST_CUDA_CEDD_REGIONS_ROIS) ? 1 : 0;
  const size_t n = st.regions.size () - first;
  if (n == 0)
    return cvis::Status::Ok ();
  std::vector<GstCvisCeddRegion> regs (n);
  std::vector<guint8> levels (n * GST_CVIS_CEDD_BINS);
  for (size_t i = 0; i < n; i++) {
    const cvis::cedd::Region & r = st.regions[first + i];
    regs[i] = {st.roi_ids[first + i], r.x, r.y, r.w, r.h};
    std::copy (st.results[first + i].levels.begin (), st.results[first + i].levels.end (),
        levels.begin () + i * GST_CVIS_CEDD_BINS);
  }
  GstCustomMeta *meta = gst_buffer_add_cvis_cedd_meta (buf, (guint) n, regs.data (),
      levels.data ());
  if (!meta)
    return cvis::internal_error ("could not attach the CEDD meta");
  if (has_frame && shots)
    gst_cvis_cedd_meta_set_shot (meta, distance, shot);

  if (st.index.is_open ()) {
    /* Queued for the store's writer thread (transactions happen there). */
    cvis::store::Batch batch;
    batch.descriptors.resize (n);
    for (size_t i = 0; i < n; i++) {
      cvis::store::DescriptorRow & row = batch.descriptors[i];
      row.key.stream = st.stream;
      row.key.frame = (int64_t) frame_no;
      row.key.region = (int32_t) i;
      row.pts = GST_CLOCK_TIME_IS_VALID (stream_time) ? (int64_t) stream_time : -1;
      row.roi_id = regs[i].roi_id;
      row.roi_type = st.roi_types[first + i];
      row.x = regs[i].x;
      row.y = regs[i].y;
      row.w = regs[i].width;
      row.h = regs[i].height;
      const bool is_frame = regs[i].roi_id == GST_CVIS_CEDD_FRAME_ID;
      row.shot_change = is_frame && shot;
      row.distance = is_frame ? distance : -1.0;
      std::copy (levels.begin () + i * GST_CVIS_CEDD_BINS,
          levels.begin () + (i + 1) * GST_CVIS_CEDD_BINS, row.levels);
    }
    if (shot) {
      cvis::store::ShotRow sr;
      sr.key = batch.descriptors[0].key;
      sr.key.region = 0;
      sr.pts = batch.descriptors[0].pts;
      sr.distance = distance;
      sr.source = "cedd";
      batch.shots.push_back (std::move (sr));
    }
    CVIS_RETURN_IF_ERROR (st.index.add (std::move (batch)));
  }
  return cvis::Status::Ok ();
}

