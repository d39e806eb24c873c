/**
 * SECTION:element-cudaactionmatch
 * @title: cudaactionmatch
 *
 * Recognises actions (walking, boxing, ...) in video [1]: space-time interest points (Dollar's
 * periodic detector) with HoG/HoF descriptors are collected over scene blocks of `block-frames`
 * frames (a block starts every block-frames - overlap frames), and each block is matched exactly
 * (dynamic programming over the hypergraph of point triples) against every model of a dictionary
 * made by `cvis-action train`. The nearest model, by its distance per model node, names the
 * block's action; with a ridge dictionary (`cvis-action train --classifier ridge`) the tool's
 * ridge classifier over the distances to every model, averaged over the block and the two before
 * it, names it (and the model is the nearest of that class).
 *
 * [1] O. Celiktutan, C. Wolf, B. Sankur, E. Lombardi, "Fast exact hyper-graph matching with
 *     dynamic programming for spatio-temporal data", J. Math. Imaging Vis. 2015.
 *
 * Output: frames pass unchanged, in CUDA or system memory (GRAY8, or the luma of NV12/I420 is
 * read). On the last frame of every block in which an action was recognised with a score of at
 * least `min-score`: a GstCvisActionMeta (gst/cvis/cvisactionmeta.h: label, model id, distance,
 * energy, score, the block's frames and times, the matched points), a GstVideoRegionOfInterestMeta
 * of roi_type "action" around the matched points (with a param structure "action": "label",
 * "model-id", "score", "distance"), and an element message "cvis-action" with the meta's fields
 * and "running-time", "x", "y", "width", "height" (for `gst-launch-1.0 -m`). The score is the
 * margin to the nearest model of another class, (d_other - d) / d_other: 0 is a tie, 1 an
 * unopposed match (ridge dictionaries: half the difference of the two best class scores).
 *
 * Timing: a frame's points are final `lag` frames after it (the detector's temporal support, the
 * descriptors' cells ahead: 6 frames with the defaults), so frames leave `lag` frames late; the
 * element reports that latency and holds no other frames. At EOS the last frames are drained
 * with the stream's last block: the regular blocks plus, when they leave frames uncovered, one
 * block of block-frames frames ending at the last frame (a stream shorter than a block is one
 * short block, "complete" FALSE). A flush, a caps change and PAUSED->READY start counting again.
 *
 * The detector and descriptor properties must be those the dictionary was trained with
 * (`cvis-action train` has the same options and defaults); the matching parameters (lambdas, T,
 * dummy cost) come from the dictionary. A missing or bad dictionary is an element error at
 * start. With the CPU backend each block is matched on all cores when it completes; the CUDA
 * backend computes the front end and the matching on the GPU.
 *
 * ## Example launch lines
 * |[
 * cvis-action train actions/ -o actions.cvad
 * gst-launch-1.0 -m filesrc location=person01_boxing_d1.avi ! decodebin ! videoconvert ! \
 *     video/x-raw,format=GRAY8 ! cudaactionmatch model-location=actions.cvad ! fakesink
 * gst-launch-1.0 -m filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudaactionmatch model-location=actions.cvad min-score=0.05 ! fakesink
 * ]|
 * The second line keeps the decoded NV12 frames in CUDA memory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvisactionmeta.h>

#include "gstcudaactionmatch_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY (gst_cuda_action_match_debug);
#define GST_CAT_DEFAULT gst_cuda_action_match_debug

namespace al = cvis::actionlearn;

G_DEFINE_TYPE (GstCudaActionMatch, gst_cuda_action_match, GST_TYPE_CVIS_TEMPORAL_FILTER);

/* The dictionary is a setting that can be wrong: loaded here, as an element error. */
static gboolean
gst_cuda_action_match_start (GstBaseTransform * trans)
{
  GstCudaActionMatch *self = GST_CUDA_ACTION_MATCH (trans);
  std::string location;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    location = self->settings->model_location;
  }
  GstCudaActionMatchState & st = *self->state;
  st.dict = al::Dictionary ();
  if (location.empty ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No dictionary: set model-location"),
        ("cvis-action train DIR -o FILE makes one"));
    return FALSE;
  }
  const cvis::Status s = al::load_dictionary (location, &st.dict);
  if (!s.ok ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Cannot use model-location \"%s\": %s",
            location.c_str (), s.message ().c_str ()), ("%s", s.to_string ().c_str ()));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "dictionary %s: %zu models of dimension %d, %s", location.c_str (),
      st.dict.models.size (), st.dict.dim, st.dict.has_ridge ()? "ridge classifier" :
      "nearest model");
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_action_match_parent_class)->start (trans);
}

/* --------------------------------------------------------------------------------------------- */
/* GstCvisFilter vfuncs (called with the CUDA context pushed) */

static void
gst_cuda_action_match_reset (GstCvisFilter * filter)
{
  GstCudaActionMatchState & st = *GST_CUDA_ACTION_MATCH (filter)->state;
  st.rec.reset ();
  st.pushed = st.produced = 0;
  st.finished = false;
  st.pending.clear ();
  st.stamps.clear ();
  st.stamps_base = 0;
}

static cvis::Status
gst_cuda_action_match_configure (GstCvisFilter * filter, const GstVideoInfo * in_info,
    const GstVideoInfo *, cvis::Backend backend)
{
  GstCudaActionMatch *self = GST_CUDA_ACTION_MATCH (filter);
  GstCudaActionMatchState & st = *self->state;
  al::RecogniserParams p;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    p = self->settings->params;
  }
  st.configured = false;
  const GstVideoFormat f = GST_VIDEO_INFO_FORMAT (in_info);
  if (f != GST_VIDEO_FORMAT_GRAY8 && f != GST_VIDEO_FORMAT_NV12 && f != GST_VIDEO_FORMAT_I420)
    return cvis::unsupported_format ("input format (GRAY8, NV12 or I420)");
  st.width = GST_VIDEO_INFO_WIDTH (in_info);
  st.height = GST_VIDEO_INFO_HEIGHT (in_info);
  st.cell_size = p.frontend.cell_size;
  st.block_frames = p.block_frames;
  CVIS_RETURN_IF_ERROR (st.rec.configure (backend, backend, st.width, st.height, p, st.dict));
  gst_cvis_temporal_filter_set_frame_output (GST_CVIS_TEMPORAL_FILTER (self), TRUE);
  gst_cuda_action_match_reset (filter);
  st.configured = true;
  GST_INFO_OBJECT (self, "%s %dx%d, blocks of %d frames every %d, lag %d, %zu models",
      cvis::backend_name (backend), st.width, st.height, p.block_frames,
      p.block_frames - p.overlap, st.rec.lag (), st.dict.models.size ());
  return cvis::Status::Ok ();
}

static void
gst_cuda_action_match_release (GstCvisFilter * filter)
{
  GstCudaActionMatchState & st = *GST_CUDA_ACTION_MATCH (filter)->state;
  st.rec = al::Recogniser ();
  st.configured = false;
  st.pending.clear ();
  st.stamps.clear ();
}

static guint
gst_cuda_action_match_get_lag (GstCvisTemporalFilter * filter)
{
  GstCudaActionMatch *self = GST_CUDA_ACTION_MATCH (filter);
  std::lock_guard < std::mutex > lk (*self->lock);
  return (guint) al::Recogniser::lag_of (self->settings->params);
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_action_match_finalize (GObject * object)
{
  GstCudaActionMatch *self = GST_CUDA_ACTION_MATCH (object);
  delete self->state;
  delete self->settings;
  delete self->lock;
  G_OBJECT_CLASS (gst_cuda_action_match_parent_class)->finalize (object);
}

static void
gst_cuda_action_match_class_init (GstCudaActionMatchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvisFilterClass *filter_class = GST_CVIS_FILTER_CLASS (klass);
  GstCvisTemporalFilterClass *temporal_class = GST_CVIS_TEMPORAL_FILTER_CLASS (klass);

  gobject_class->finalize = gst_cuda_action_match_finalize;
  gst_cuda_action_match_install_properties (gobject_class);

  gst_element_class_set_static_metadata (element_class, "CUDA action recognition",
      "Filter/Analyzer/Video",
      "Recognises actions by exact hyper-graph matching of space-time interest points against "
      "a dictionary of models (Celiktutan et al., JMIV 2015)", "gst-cuda-vision");
  /* The front end takes frames of 8..16384 pixels a side (its CPU and CUDA configure). */
  gst_cvis_filter_class_add_pad_templates_sized (element_class, "{ NV12, I420 }",
      "{ GRAY8, NV12, I420 }", 8, 16384);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_action_match_start);
  filter_class->configure = gst_cuda_action_match_configure;
  filter_class->reset = gst_cuda_action_match_reset;
  filter_class->release = gst_cuda_action_match_release;
  temporal_class->get_lag = gst_cuda_action_match_get_lag;
  temporal_class->push = gst_cuda_action_match_push;
  temporal_class->ready = gst_cuda_action_match_ready;
  temporal_class->produce = gst_cuda_action_match_produce;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_action_match_debug, "cudaactionmatch", 0,
      "CUDA action recognition");
}

static void
gst_cuda_action_match_init (GstCudaActionMatch * self)
{
  self->lock = new std::mutex ();
  self->settings = new GstCudaActionMatchSettings ();
  self->state = new GstCudaActionMatchState ();
}
