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
 * "cvis-rcdtrack-removed" (lost-timeout, static-timeout, duplicate-timeout, still-timeout, or a track signal's
 * box refused at its first frame: distance -1) with "id", "frame", "pts", "running-time", "x",
 * "y", "width", "height", "distance".
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
  int first_id;
  guint max_targets;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    first_id = reserved_ids (*self->settings);
    max_targets = self->settings->max_targets;
  }
  std::string why;
  const int id = self->lifecycle->request_track (rcd::Box{x, y, w, h}, first_id, max_targets,
      &why);
  if (id < 0) {
    GST_WARNING_OBJECT (self, "track: box %d,%d,%d,%d refused: %s", x, y, w, h, why.c_str ());
    return -1;
  }
  GST_INFO_OBJECT (self, "track: target %d at %d,%d,%d,%d from the next frame", id, x, y, w, h);
  return id;
}

static gboolean
gst_cuda_rcd_track_untrack (GstCudaRcdTrack * self, gint id)
{
  return self->lifecycle->request_untrack (id) ? TRUE : FALSE;
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
  self->lifecycle->set_initial (st.roi, st.have_model ? &st.model : nullptr);
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
  self->lifecycle->set_frame_size (st.width, st.height);
  self->lifecycle->restart ();
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
  std::lock_guard < std::mutex > lk (*self->state_lock);
  GstCudaRcdTrackState & st = *self->state;
  if (st.tracker)
    st.tracker->reset ();
  self->lifecycle->reset ();
  st.frame = 0;
}

static void
gst_cuda_rcd_track_release (GstCvisFilter * filter)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (filter);
  std::lock_guard < std::mutex > lk (*self->state_lock);
  self->state->tracker.reset ();
  self->state->detector.reset ();
  self->lifecycle->set_frame_size (0, 0);
}

static cvis::Status
gst_cuda_rcd_track_analyse (GstCvisFilter * filter, GstBuffer * buf, const cvis::ImageView & frame,
    cvis::StreamHandle stream)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (filter);
  rcd::Params params;
  rcd::LifecycleParams life;
  std::string init_type;
  guint version;
  int first_id;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    const GstCudaRcdTrackSettings & s = *self->settings;
    params = s.params;
    version = s.version;
    life.max_targets = s.max_targets;
    life.persistence = s.init_persistence;
    life.min_area = s.init_min_area;
    life.lost_timeout = s.lost_timeout;
    life.static_timeout = s.static_timeout;
    life.duplicate_timeout = s.duplicate_timeout;
    life.still_timeout = s.still_timeout;
    life.lost_radius = s.lost_radius;
    life.aligned_steps = s.init_aligned_steps;
    init_type = s.init_roi_type;
    first_id = reserved_ids (s);
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
    /* The frame's upstream init-roi-type boxes, read before our own metas are attached: the new
     * targets and the removal of the static ones use them. */
    rcd::InitBoxes init;
    init.enabled = !init_type.empty ();
    if (init.enabled)
      gst_cuda_rcd_track_type_boxes (buf, init_type, &init);
    st.events.clear ();
    CVIS_RETURN_IF_ERROR (self->lifecycle->begin_frame (st.tracker.get (), life, first_id, init,
            &st.events));
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
    self->lifecycle->end_frame (st.tracker.get (), st.results, life, init, &st.events);
    gst_cuda_rcd_track_post_events (self, buf);
  }
  st.frame++;
  return cvis::Status::Ok ();
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_rcd_track_finalize (GObject * object)
{
  GstCudaRcdTrack *self = GST_CUDA_RCD_TRACK (object);
  delete self->lifecycle;
  delete self->state;
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
   * Starts a target on the next frame (the part of the box inside the frame). Returns its id, or
   * -1 with a warning when refused: smaller than 4x4, max-targets reached, or, once the caps are
   * known, fewer than 4x4 pixels of the box inside the frame. Before the caps are known such a
   * box gets an id and is refused at the first frame: a warning and a "cvis-rcdtrack-removed"
   * message for that id with the box asked for and distance -1 (so is any box the frame of the
   * caps it is applied under cannot hold).
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
  self->state = new GstCudaRcdTrackState ();
  self->lifecycle = new rcd::Lifecycle ();
}
