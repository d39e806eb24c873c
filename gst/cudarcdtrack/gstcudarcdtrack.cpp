/**
 * SECTION:element-cudarcdtrack
 * @title: cudarcdtrack
 *
 * Tracks targets, or detects a template, with region covariance descriptors [1][2] on the GPU or
 * with the CPU reference. A region is described by the covariance of per-pixel features (colour,
 * luma, Sobel derivatives, coordinates: `features`), computed exactly from integral images of the
 * features and their products, and regions are compared with the Jensen-Bregman LogDet divergence
 * (`distance=jbld`, the thesis's) or the Foerstner distance. With `parts=5` (default) a window is
 * described by five covariances (the window and its halves, Tuzel et al.'s detector), which encodes
 * the target's layout and tolerates one half being occluded.
 *
 * mode=track: every target is searched at `scales` window sizes from `scale-min` to `scale-max`
 * times its size, on a grid of `step` pixels around its predicted position (`search-radius`
 * target sizes; constant velocity), then refined on a finer grid; all targets of a frame go to the
 * GPU in one batched launch per stage and only the winners come back. Targets come from `roi`
 * ("x,y,w,h;..." in pixels of the first frame), from upstream ROI metas of roi_type
 * `init-roi-type` (e.g. "foreground" boxes of cudabgsub or cudamedian3d) that persist
 * `init-persistence` frames, from the "track" action signal, or from `model-location` (found by a
 * whole-frame search). A target farther than `lost-threshold` from its model is lost and searched
 * over the whole frame until re-acquired; one started from an init-roi-type box is searched within
 * `lost-radius` target sizes of where it was last seen, and removed after `lost-timeout` frames
 * lost in a row (its object, back, is a new box and a new target). The model follows the target as a log-Euclidean running
 * mean of the matched covariances (`update-rate`).
 *
 * mode=detect: every window of the `model-location` template's sizes under `threshold`, after
 * non-maximum suppression, each frame (the thesis's object detection).
 *
 * Output: frames pass unchanged (in-place analyser, CUDA or system memory). Per target and frame
 * one GstVideoRegionOfInterestMeta of roi_type "track" (id = target id) with a parameter structure
 * "rcdtrack": "id" (gint), "distance" (gdouble), "scale" (gdouble, size relative to the start),
 * "lost" (gboolean), "age" (guint64, frames since the target started). Target metas come first
 * among the buffer's ROI metas, in target order, so the first is the first `roi` box. Detections:
 * roi_type "detection" with "distance" and "scale". Element messages (seen with gst-launch-1.0 -m):
 * "cvis-rcdtrack-started", "cvis-rcdtrack-lost", "cvis-rcdtrack-reacquired",
 * "cvis-rcdtrack-removed" (lost-timeout) with "id", "frame",
 * "pts", "running-time", "x", "y", "width", "height", "distance".
 *
 * Action signals: "track" (x, y, w, h) starts a target on the next frame and returns its id (-1
 * when refused); "untrack" (id) stops one; "save-model" (id, location) writes a target's current
 * model for model-location. A flush or PAUSED->READY forgets every target and starts again from
 * `roi` / `model-location` on the next frame.
 *
 * [1] M. A. Asan, "CUDA based real time implementation of region covariance descriptors", MSc
 *     thesis, Hacettepe University, 2019.
 * [2] O. Tuzel, F. Porikli, P. Meer, "Region covariance: a fast descriptor for detection and
 *     classification", ECCV 2006.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m videotestsrc pattern=ball num-buffers=120 ! video/x-raw,format=RGBA,width=320,height=240 ! \
 *     cudarcdtrack roi="142,102,37,37" ! fakesink
 * gst-launch-1.0 -m filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudarcdtrack roi="600,300,120,90;100,80,60,60" ! fakesink
 * ]|
 * The second line keeps the decoded NV12 frames in CUDA memory end to end.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <algorithm>
#include <string>

#include "gstcudarcdtrack_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY (gst_cuda_rcd_track_debug);
#define GST_CAT_DEFAULT gst_cuda_rcd_track_debug

/* CUDA memory: the formats GStreamer 1.22's CUDA allocator can hold (no GRAY8, xRGB, xBGR). */
#define CUDA_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, NV12, I420 }"
#define SYS_FORMATS \
    "{ RGBA, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR, RGB, BGR, GRAY8, NV12, I420 }"

enum { SIGNAL_TRACK, SIGNAL_UNTRACK, SIGNAL_SAVE_MODEL, LAST_SIGNAL };
static guint signals[LAST_SIGNAL];

G_DEFINE_TYPE (GstCudaRcdTrack, gst_cuda_rcd_track, GST_TYPE_CVIS_FILTER);

/* Targets the settings start on every (re)start: the roi boxes, then the model (track mode). */
static int
reserved_ids (const GstCudaRcdTrackSettings & s)
{
  std::vector < rcd::Box > boxes;
  std::string err;
  int n = (!s.roi.empty () && rcd::parse_boxes (s.roi, &boxes, &err)) ? (int) boxes.size () : 0;
  if (s.mode == GST_CUDA_RCD_TRACK_MODE_TRACK && !s.model_location.empty ())
    n++;
  return n;
}

/* --------------------------------------------------------------------------------------------- */
/* Action signals */

static gint
gst_cuda_rcd_track_track (GstCudaRcdTrack * self, gint x, gint y, gint w, gint h)
{
  std::lock_guard < std::mutex > lk (*self->lock);
  GstCudaRcdTrackRequests & r = *self->requests;
  if (w < 4 || h < 4) {
    GST_WARNING_OBJECT (self, "track: box %d,%d,%d,%d smaller than 4x4 refused", x, y, w, h);
    return -1;
  }
  if (r.ids.size () >= self->settings->max_targets) {
    GST_WARNING_OBJECT (self, "track: max-targets=%u reached", self->settings->max_targets);
    return -1;
  }
  r.next_id = MAX (r.next_id, reserved_ids (*self->settings));
  const int id = r.next_id++;
  r.add.push_back ({id, rcd::Box{x, y, w, h}});
  r.ids.push_back (id);
  GST_INFO_OBJECT (self, "track: target %d at %d,%d,%d,%d from the next frame", id, x, y, w, h);
  return id;
}

static gboolean
gst_cuda_rcd_track_untrack (GstCudaRcdTrack * self, gint id)
{
  std::lock_guard < std::mutex > lk (*self->lock);
  GstCudaRcdTrackRequests & r = *self->requests;
  auto it = std::find (r.ids.begin (), r.ids.end (), id);
  if (it == r.ids.end ())
    return FALSE;
  r.ids.erase (it);
  r.remove.push_back (id);
  return TRUE;
}

static gboolean
gst_cuda_rcd_track_save_model (GstCudaRcdTrack * self, gint id, const gchar * location)
{
  if (!location)
    return FALSE;
  std::lock_guard < std::mutex > lk (*self->state_lock);
  GstCudaRcdTrackState & st = *self->state;
  rcd::Model m;
  cvis::Status s = st.tracker ? st.tracker->get_model (id, &m) :
      cvis::invalid_argument ("not tracking");
  if (s.ok ())
    s = rcd::save_model (location, m);
  if (!s.ok ()) {
    GST_WARNING_OBJECT (self, "save-model %d to %s: %s", id, location, s.to_string ().c_str ());
    return FALSE;
  }
  return TRUE;
}

/* --------------------------------------------------------------------------------------------- */
/* Start / stop: settings that can be wrong are checked here, as element errors */

static gboolean
gst_cuda_rcd_track_start (GstBaseTransform * trans)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (trans);
  GstCudaRcdTrackSettings s;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    s = *self->settings;
  }
  std::lock_guard < std::mutex > lk (*self->state_lock);
  GstCudaRcdTrackState & st = *self->state;
  st.roi.clear ();
  st.have_model = false;
  st.mode = s.mode;
  std::string err;
  if (!s.roi.empty () && !rcd::parse_boxes (s.roi, &st.roi, &err)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Invalid roi \"%s\": %s", s.roi.c_str (),
            err.c_str ()), ("roi must be \"x,y,w,h\" or \"x,y,w,h;x,y,w,h;...\" in pixels"));
    return FALSE;
  }
  if (s.mode == GST_CUDA_RCD_TRACK_MODE_DETECT && s.model_location.empty ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("mode=detect needs model-location"), (NULL));
    return FALSE;
  }
  if (!s.model_location.empty ()) {
    cvis::Status ls = rcd::load_model (s.model_location, s.params.features, s.params.parts,
        &st.model);
    if (!ls.ok ()) {
      GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot use model-location \"%s\": %s",
              s.model_location.c_str (), ls.message ().c_str ()), ("%s", ls.to_string ().c_str ()));
      return FALSE;
    }
    st.have_model = true;
    GST_INFO_OBJECT (self, "model %s: %dx%d, features %s, %d part(s)", s.model_location.c_str (),
        st.model.width, st.model.height, rcd::feature_names (st.model.features).c_str (),
        st.model.parts);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_rcd_track_parent_class)->start (trans);
}

/* --------------------------------------------------------------------------------------------- */
/* GstCvisFilter vfuncs */

static cvis::Status
gst_cuda_rcd_track_configure (GstCvisFilter * filter, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, cvis::Backend backend)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (filter);
  (void) out_info;
  rcd::Params params;
  guint version;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    params = self->settings->params;
    version = self->settings->version;
  }
  std::lock_guard < std::mutex > lk (*self->state_lock);
  GstCudaRcdTrackState & st = *self->state;
  cvis::PixelFormat pf;
  if (!gst_cvis_pixel_format_from_video (GST_VIDEO_INFO_FORMAT (in_info), &pf))
    return cvis::unsupported_format ("unsupported format");
  st.width = GST_VIDEO_INFO_WIDTH (in_info);
  st.height = GST_VIDEO_INFO_HEIGHT (in_info);
  cvis::Status s;
  if (st.mode == GST_CUDA_RCD_TRACK_MODE_DETECT) {
    if (!st.detector || st.backend != backend)
      st.detector = rcd::make_detector (backend, &s);
    if (!st.detector)
      return s;
    CVIS_RETURN_IF_ERROR (st.detector->configure (params, st.model, st.width, st.height, pf));
  } else {
    if (!st.tracker || st.backend != backend)
      st.tracker = rcd::make_tracker (backend, &s);
    if (!st.tracker)
      return s;
    CVIS_RETURN_IF_ERROR (st.tracker->configure (params, st.width, st.height, pf));
    for (size_t k = 0; k < st.roi.size (); k++) {
      const rcd::Box & b = st.roi[k];
      if (b.x < 0 || b.y < 0 || b.x + b.w > st.width || b.y + b.h > st.height || b.w < 4 ||
          b.h < 4)
        return cvis::invalid_argument ("roi box " + std::to_string (k + 1) + " (" +
            std::to_string (b.x) + "," + std::to_string (b.y) + "," + std::to_string (b.w) + "," +
            std::to_string (b.h) + ") is not a box of at least 4x4 pixels inside the " +
            std::to_string (st.width) + "x" + std::to_string (st.height) + " frame");
    }
    if (st.have_model && !(st.model.features == params.features &&
            st.model.parts == params.parts))
      return cvis::invalid_argument ("model-location has features " +
          rcd::feature_names (st.model.features) + " and " + std::to_string (st.model.parts) +
          " part(s); set features and parts to match for mode=track");
  }
  st.backend = backend;
  st.applied_version = version;
  st.need_initial = true;
  GST_INFO_OBJECT (self, "%s, %dx%d %s, backend %s, features %s, %d part(s)",
      st.mode == GST_CUDA_RCD_TRACK_MODE_DETECT ? "detect" : "track", st.width, st.height,
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)), cvis::backend_name (backend),
      rcd::feature_names (params.features).c_str (), params.parts);
  return cvis::Status::Ok ();
}

static void
gst_cuda_rcd_track_reset (GstCvisFilter * filter)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (filter);
  {
    std::lock_guard < std::mutex > lk (*self->state_lock);
    GstCudaRcdTrackState & st = *self->state;
    if (st.tracker)
      st.tracker->reset ();
    st.candidates.clear ();
    st.auto_targets.clear ();
    st.need_initial = true;
    st.frame = 0;
  }
  std::lock_guard < std::mutex > lk (*self->lock);
  self->requests->add.clear ();
  self->requests->remove.clear ();
  self->requests->ids.clear ();
}

static void
gst_cuda_rcd_track_release (GstCvisFilter * filter)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (filter);
  std::lock_guard < std::mutex > lk (*self->state_lock);
  self->state->tracker.reset ();
  self->state->detector.reset ();
}

/* Targets of the settings (first frame after a start, flush or caps change), then the requests,
 * then targets from the frame's init-roi-type boxes (`init`). */
static cvis::Status
apply_targets (GstCudaRcdTrack * self, const GstCudaRcdTrackInitBoxes & init)
{
  GstCudaRcdTrackState & st = *self->state;
  GstCudaRcdTrackRequests req;
  guint persistence, max_targets;
  gdouble lost_radius;
  bool aligned;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    GstCudaRcdTrackRequests & r = *self->requests;
    if (st.need_initial) {
      /* The ids of the settings' targets (reset() dropped the others, except requests made
       * since). */
      const int n = (int) st.roi.size () + (st.have_model ? 1 : 0);
      for (int id = 0; id < n; id++)
        if (std::find (r.ids.begin (), r.ids.end (), id) == r.ids.end ())
          r.ids.push_back (id);
      r.next_id = MAX (r.next_id, n);
    }
    req.add.swap (r.add);
    req.remove.swap (r.remove);
    persistence = self->settings->init_persistence;
    max_targets = self->settings->max_targets;
    lost_radius = self->settings->lost_radius;
    aligned = self->settings->init_aligned_steps;
  }
  if (st.need_initial) {
    st.tracker->reset ();
    st.auto_targets.clear ();
    for (size_t k = 0; k < st.roi.size (); k++)
      CVIS_RETURN_IF_ERROR (st.tracker->add_target ((int) k, st.roi[k]));
    if (st.have_model)
      CVIS_RETURN_IF_ERROR (st.tracker->add_target_model ((int) st.roi.size (), st.model));
    st.need_initial = false;
  }
  for (int id : req.remove) {
    st.tracker->remove_target (id);
    st.auto_targets.erase (id);
  }
  for (const auto & a : req.add) {
    cvis::Status s = st.tracker->add_target (a.first, a.second);
    if (!s.ok ()) {
      GST_WARNING_OBJECT (self, "track signal target %d: %s", a.first, s.message ().c_str ());
      std::lock_guard < std::mutex > lk (*self->lock);
      auto & ids = self->requests->ids;
      ids.erase (std::remove (ids.begin (), ids.end (), a.first), ids.end ());
    }
  }
  if (!init.type.empty ()) {
    for (const rcd::Box & b : gst_cuda_rcd_track_init_boxes (self, init, persistence)) {
      if ((guint) st.tracker->target_count () >= max_targets)
        break;
      int id;
      {
        std::lock_guard < std::mutex > lk (*self->lock);
        GstCudaRcdTrackRequests & r = *self->requests;
        r.next_id = MAX (r.next_id, reserved_ids (*self->settings));
        id = r.next_id++;
        r.ids.push_back (id);
      }
      /* Upstream boxes are data, not settings: one the tracker cannot start from (less than
       * 4x4 pixels inside the frame, e.g. a 2-pixel-wide blob at the border) is skipped. */
      const cvis::Status added = st.tracker->add_target (id, b, lost_radius, aligned);
      if (!added.ok ()) {
        GST_DEBUG_OBJECT (self, "%s box %d,%d,%d,%d skipped: %s", init.type.c_str (), b.x,
            b.y, b.w, b.h, added.message ().c_str ());
        std::lock_guard < std::mutex > lk (*self->lock);
        auto & ids = self->requests->ids;
        ids.erase (std::remove (ids.begin (), ids.end (), id), ids.end ());
        continue;
      }
      st.auto_targets[id] = {};
      GST_INFO_OBJECT (self, "target %d from %s box %d,%d,%d,%d", id, init.type.c_str (), b.x,
          b.y, b.w, b.h);
    }
  }
  return cvis::Status::Ok ();
}

/* Targets from init-roi-type boxes lost `lost_timeout` frames in a row are removed: a detector
 * starts them again when their object comes back, and each lost one costs a wide search. So are
 * those that overlapped no box of that type (of init-min-area) for `static_timeout` frames: a target started on a
 * moving object that has stopped, or that stayed on the background the object left (its model
 * holds background too), would otherwise be tracked for ever and, with every new object, fill
 * max-targets. */
static void
remove_auto_targets (GstCudaRcdTrack * self, GstBuffer * buf,
    const GstCudaRcdTrackInitBoxes & init, guint lost_timeout, guint static_timeout)
{
  GstCudaRcdTrackState & st = *self->state;
  if (st.auto_targets.empty ())
    return;
  for (const rcd::TargetResult & r : st.results) {
    auto it = st.auto_targets.find (r.id);
    if (it == st.auto_targets.end ())
      continue;
    bool on = init.type.empty ();  /* no init-roi-type any more: nothing to be off */
    for (const rcd::Box & b : init.boxes)  /* the boxes that could start a target: not noise */
      on = on || ((guint64) b.w * (guint64) b.h >= init.min_area && rcd::iou (b, r.box) > 0.0);
    it->second.lost = r.lost ? it->second.lost + 1 : 0;
    it->second.off = on ? 0 : it->second.off + 1;
    const bool gone = (lost_timeout > 0 && it->second.lost >= lost_timeout) ||
        (static_timeout > 0 && it->second.off >= static_timeout);
    if (!gone)
      continue;
    st.tracker->remove_target (r.id);
    st.auto_targets.erase (it);
    {
      std::lock_guard < std::mutex > lk (*self->lock);
      auto & ids = self->requests->ids;
      ids.erase (std::remove (ids.begin (), ids.end (), r.id), ids.end ());
    }
    gst_cuda_rcd_track_post_target (self, buf, GST_CUDA_RCD_TRACK_REMOVED_MESSAGE, r);
  }
}

static cvis::Status
gst_cuda_rcd_track_analyse (GstCvisFilter * filter, GstBuffer * buf, const cvis::ImageView & frame,
    cvis::StreamHandle stream)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (filter);
  rcd::Params params;
  guint version, lost_timeout, static_timeout, min_area;
  GstCudaRcdTrackInitBoxes init;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    params = self->settings->params;
    version = self->settings->version;
    lost_timeout = self->settings->lost_timeout;
    static_timeout = self->settings->static_timeout;
    init.type = self->settings->init_roi_type;
    min_area = self->settings->init_min_area;
  }
  std::lock_guard < std::mutex > lk (*self->state_lock);
  GstCudaRcdTrackState & st = *self->state;
  if (version != st.applied_version) {
    /* Settings that may change while playing; the others were refused (mutable in READY). */
    cvis::Status s = st.mode == GST_CUDA_RCD_TRACK_MODE_DETECT ?
        st.detector->update_params (params) : st.tracker->update_params (params);
    if (!s.ok ())
      return s;
    st.applied_version = version;
  }
  if (st.mode == GST_CUDA_RCD_TRACK_MODE_DETECT) {
    CVIS_RETURN_IF_ERROR (st.detector->process (frame, stream, &st.detections));
    gst_cuda_rcd_track_attach_detections (self, buf);
  } else {
    /* The frame's upstream init-roi-type boxes and the min area, once: the new targets and the
     * removal of the static ones use them (read before our own metas are attached). */
    if (!init.type.empty ()) {
      init.boxes = gst_cuda_rcd_track_type_boxes (buf, init.type);
      init.min_area = gst_cuda_rcd_track_min_area (min_area, st.width, st.height);
    }
    CVIS_RETURN_IF_ERROR (apply_targets (self, init));
    CVIS_RETURN_IF_ERROR (st.tracker->process (frame, stream, &st.results));
    const rcd::FrameStats & fs = st.tracker->last_stats ();
    GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT ": %d tracked, %d lost, %d started; "
        "coarse %d groups, %d integrals, %" G_GINT64_FORMAT " pixels, %" G_GINT64_FORMAT
        " windows; fine %d groups, %d integrals, %" G_GINT64_FORMAT " pixels, %" G_GINT64_FORMAT
        " windows", (guint64) st.frame, fs.tracked, fs.lost, fs.started, fs.coarse.groups,
        fs.coarse.integrals, (gint64) fs.coarse.integral_pixels, (gint64) fs.coarse.windows,
        fs.fine.groups, fs.fine.integrals, (gint64) fs.fine.integral_pixels,
        (gint64) fs.fine.windows);
    gst_cuda_rcd_track_attach_tracks (self, buf);
    gst_cuda_rcd_track_post_events (self, buf);
    remove_auto_targets (self, buf, init, lost_timeout, static_timeout);
  }
  st.frame++;
  return cvis::Status::Ok ();
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_rcd_track_finalize (GObject * object)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (object);
  delete self->state;
  delete self->requests;
  delete self->settings;
  delete self->state_lock;
  delete self->lock;
  G_OBJECT_CLASS (gst_cuda_rcd_track_parent_class)->finalize (object);
}

static void
gst_cuda_rcd_track_class_init (GstCudaRcdTrackClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvisFilterClass *filter_class = GST_CVIS_FILTER_CLASS (klass);

  gobject_class->finalize = gst_cuda_rcd_track_finalize;
  gst_cuda_rcd_track_install_properties (gobject_class);

  /**
   * GstCudaRcdTrack::track:
   * @x, @y, @w, @h: the target's box in pixels of the next frame
   *
   * Starts a target on the next frame. Returns its id, or -1 when refused (smaller than 4x4,
   * max-targets reached; a box outside the frame is dropped with a warning when it is applied).
   */
  signals[SIGNAL_TRACK] = g_signal_new ("track", G_TYPE_FROM_CLASS (klass),
      (GSignalFlags) (G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION), 0, NULL, NULL, NULL, G_TYPE_INT, 4,
      G_TYPE_INT, G_TYPE_INT, G_TYPE_INT, G_TYPE_INT);
  /**
   * GstCudaRcdTrack::untrack:
   * @id: a target id
   *
   * Stops target @id from the next frame. Returns FALSE when there is no such target.
   */
  signals[SIGNAL_UNTRACK] = g_signal_new ("untrack", G_TYPE_FROM_CLASS (klass),
      (GSignalFlags) (G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION), 0, NULL, NULL, NULL, G_TYPE_BOOLEAN,
      1, G_TYPE_INT);
  /**
   * GstCudaRcdTrack::save-model:
   * @id: a target id
   * @location: file to write
   *
   * Writes the current model of target @id (a file for model-location). Returns FALSE when the
   * target has not started or the file cannot be written.
   */
  signals[SIGNAL_SAVE_MODEL] = g_signal_new ("save-model", G_TYPE_FROM_CLASS (klass),
      (GSignalFlags) (G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION), 0, NULL, NULL, NULL, G_TYPE_BOOLEAN,
      2, G_TYPE_INT, G_TYPE_STRING);
  g_signal_override_class_handler ("track", G_TYPE_FROM_CLASS (klass),
      G_CALLBACK (gst_cuda_rcd_track_track));
  g_signal_override_class_handler ("untrack", G_TYPE_FROM_CLASS (klass),
      G_CALLBACK (gst_cuda_rcd_track_untrack));
  g_signal_override_class_handler ("save-model", G_TYPE_FROM_CLASS (klass),
      G_CALLBACK (gst_cuda_rcd_track_save_model));

  gst_element_class_set_static_metadata (element_class, "Region covariance tracker",
      "Filter/Analyzer/Video",
      "Tracks targets or detects a template with region covariance descriptors (CUDA or CPU) and "
      "attaches the boxes as region-of-interest metadata", "gst-cuda-vision");
  /* The tracker and detector take frames of 8..16384 pixels a side (rcdtrack.hpp). */
  gst_cvis_filter_class_add_pad_templates_sized (element_class, CUDA_FORMATS, SYS_FORMATS, 8,
      16384);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_rcd_track_start);

  filter_class->in_place = TRUE;
  filter_class->configure = gst_cuda_rcd_track_configure;
  filter_class->analyse = gst_cuda_rcd_track_analyse;
  filter_class->reset = gst_cuda_rcd_track_reset;
  filter_class->release = gst_cuda_rcd_track_release;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_rcd_track_debug, "cudarcdtrack", 0,
      "region covariance tracking");
}

static void
gst_cuda_rcd_track_init (GstCudaRcdTrack * self)
{
  self->lock = new std::mutex ();
  self->state_lock = new std::mutex ();
  self->settings = new GstCudaRcdTrackSettings ();
  self->requests = new GstCudaRcdTrackRequests ();
  self->state = new GstCudaRcdTrackState ();
}
