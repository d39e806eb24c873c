/**
 * SECTION:element-cudacedd
 * @title: cudacedd
 *
 * Computes the CEDD descriptor (Color and Edge Directivity Descriptor [1]) of every frame and/or
 * of every region of interest on the buffer, on the GPU [2] or with the CPU reference, bit-exact with
 * LIRE's CEDD for RGB input. Frames pass through unchanged; each buffer gets one
 * GstCvisCeddMeta (<gst/cvis/cvisceddmeta.h>) holding the 144 levels (0..7) and the 54-byte packed
 * form of each descriptor. Optionally every descriptor is written to an index (`index-location`:
 * a SQLite file, or a PostgreSQL server given as a URI or libpq connection string; see the store's
 * documentation), and a shot change (Tanimoto distance between consecutive frame descriptors
 * above `shot-threshold`) is posted as an element message "cvis-shot-change" (fields: stream,
 * frame, pts, stream-time, running-time, distance) and marked in the index.
 *
 * [1] S. A. Chatzichristofis, Y. S. Boutalis, "CEDD: Color and Edge Directivity Descriptor",
 *     ICVS 2008, LNCS 5008, pp. 312-322.
 * [2] L. Bampis et al., "Real-time indexing for large image databases: color and edge directivity
 *     descriptor on GPU", J. Supercomputing 71 (2015).
 *
 * Trade-offs: `regions=rois` describes only boxes found by an upstream detector or tracker (cheap on
 * large frames); `hybrid=true` moves the block sums to the CPU (the paper's hybrid scheme; pays off
 * only on weak GPUs with system-memory input). YUV input (NV12, I420) is converted with the caps'
 * colorimetry and cannot be bit-exact with LIRE, which defines CEDD on 8-bit RGB only.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=100 ! video/x-raw,format=RGBA ! \
 *     cudacedd index-location=index.db ! fakesink
 * gst-launch-1.0 -m filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudacedd index-location=index.db stream-name=in.mp4 ! fakesink
 * ]|
 * The second line keeps the decoded NV12 frames in CUDA memory (memory:CUDAMemory) end to end.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudacedd.h"

#include <gst/cvis/cvisceddmeta.h>

#include "gstcudacedd_priv.h"
#include "gstcvisutils.h"

GST_DEBUG_CATEGORY (gst_cuda_cedd_debug);
#define GST_CAT_DEFAULT gst_cuda_cedd_debug

enum {
  PROP_0,
  PROP_REGIONS,
  PROP_INDEX_LOCATION,
  PROP_STREAM_NAME,
  PROP_SHOT_THRESHOLD,
  PROP_HYBRID,
};

G_DEFINE_TYPE (GstCudaCedd, gst_cuda_cedd, GST_TYPE_CVIS_FILTER);

/* *INDENT-OFF* */
GST_CVIS_DEFINE_ENUM_TYPE (gst_cuda_cedd_regions_get_type, "GstCudaCeddRegions",
    {GST_CUDA_CEDD_REGIONS_FRAME, "One descriptor for the whole frame", "frame"},
    {GST_CUDA_CEDD_REGIONS_ROIS, "One descriptor per GstVideoRegionOfInterestMeta", "rois"},
    {GST_CUDA_CEDD_REGIONS_BOTH, "The frame and every region of interest", "both"})
/* *INDENT-ON* */

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_cedd_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCudaCedd *self = GST_CUDA_CEDD (object);
  if (!gst_cvis_filter_property_settable (GST_CVIS_FILTER (self), pspec))
    return;
  std::lock_guard<std::mutex> lk (*self->lock);
  Settings & s = *self->settings;
  switch (prop_id) {
    case PROP_REGIONS:
      s.regions = (GstCudaCeddRegions) g_value_get_enum (value);
      break;
    case PROP_INDEX_LOCATION:{
      const gchar *v = g_value_get_string (value);
      s.index_location = v ? v : "";
      break;
    }
    case PROP_STREAM_NAME:{
      const gchar *v = g_value_get_string (value);
      s.stream_name = v ? v : "";
      break;
    }
    case PROP_SHOT_THRESHOLD:
      s.shot_threshold = g_value_get_double (value);
      break;
    case PROP_HYBRID:
      s.hybrid = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_cedd_get_property (GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GstCudaCedd *self = GST_CUDA_CEDD (object);
  std::lock_guard<std::mutex> lk (*self->lock);
  const Settings & s = *self->settings;
  switch (prop_id) {
    case PROP_REGIONS:
      g_value_set_enum (value, s.regions);
      break;
    case PROP_INDEX_LOCATION:
      g_value_set_string (value, s.index_location.empty ()? NULL : s.index_location.c_str ());
      break;
    case PROP_STREAM_NAME:
      g_value_set_string (value, s.stream_name.empty ()? NULL : s.stream_name.c_str ());
      break;
    case PROP_SHOT_THRESHOLD:
      g_value_set_double (value, s.shot_threshold);
      break;
    case PROP_HYBRID:
      g_value_set_boolean (value, s.hybrid);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* --------------------------------------------------------------------------------------------- */

static gboolean
gst_cuda_cedd_start (GstBaseTransform * trans)
{
  GstCudaCedd *self = GST_CUDA_CEDD (trans);
  State & st = *self->state;
  std::string location, name;
  {
    std::lock_guard<std::mutex> lk (*self->lock);
    location = self->settings->index_location;
    name = self->settings->stream_name;
  }
  st.position.start ();  /* from 0: a live source's first timestamp is not 0 */
  st.have_prev = false;
  st.stream = name.empty ()? "stream" : name;
  /* An unusable index is an error now, before any frame flows. */
  if (!location.empty () && !st.index.open (GST_ELEMENT (self), "index-location", location,
          cvis::store::WriterOptions ()))
    return FALSE;
  if (!GST_BASE_TRANSFORM_CLASS (gst_cuda_cedd_parent_class)->start (trans)) {
    st.index.close (GST_ELEMENT (self), 0);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cuda_cedd_stop (GstBaseTransform * trans)
{
  GstCudaCedd *self = GST_CUDA_CEDD (trans);
  self->state->index.close (GST_ELEMENT (self), GST_CVIS_STORE_DEFAULT_EOS_TIMEOUT_S);
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_cedd_parent_class)->stop (trans);
}

static gboolean
gst_cuda_cedd_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaCedd *self = GST_CUDA_CEDD (trans);
  State & st = *self->state;
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_STREAM_START:{
      bool named;
      {
        std::lock_guard<std::mutex> lk (*self->lock);
        named = !self->settings->stream_name.empty ();
      }
      if (!named)
        st.stream = gst_cvis_store_stream_name (trans->sinkpad, event);
      break;
    }
    case GST_EVENT_FLUSH_STOP:
      /* After a flush (a seek) frames are numbered from where the stream is. */
      st.position.flushed ();
      break;
    case GST_EVENT_EOS:
      st.index.drain (GST_ELEMENT (self), GST_CVIS_STORE_DEFAULT_EOS_TIMEOUT_S);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_cedd_parent_class)->sink_event (trans, event);
}

/* --------------------------------------------------------------------------------------------- */

static cvis::Status
gst_cuda_cedd_configure (GstCvisFilter * filter, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info, cvis::Backend backend)
{
  GstCudaCedd *self = GST_CUDA_CEDD (filter);
  State & st = *self->state;
  (void) in_info;
  (void) out_info;
  cvis::cedd::Params params;
  {
    std::lock_guard<std::mutex> lk (*self->lock);
    params.mode = self->settings->hybrid ? cvis::cedd::Mode::kHybrid : cvis::cedd::Mode::kGpuOnly;
  }
  if (!st.extractor || st.backend != backend) {
    cvis::Status s;
    st.extractor = cvis::cedd::make_extractor (backend, &s);
    if (!st.extractor)
      return s;
    st.backend = backend;
  }
  return st.extractor->configure (params);
}

static void
gst_cuda_cedd_reset (GstCvisFilter * filter)
{
  GST_CUDA_CEDD (filter)->state->have_prev = false;
}

static void
gst_cuda_cedd_release (GstCvisFilter * filter)
{
  GST_CUDA_CEDD (filter)->state->extractor.reset ();
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cuda_cedd_finalize (GObject * object)
{
  GstCudaCedd *self = GST_CUDA_CEDD (object);
  delete self->state;
  delete self->settings;
  delete self->lock;
  G_OBJECT_CLASS (gst_cuda_cedd_parent_class)->finalize (object);
}

static void
gst_cuda_cedd_class_init (GstCudaCeddClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCvisFilterClass *filter_class = GST_CVIS_FILTER_CLASS (klass);
  const GParamFlags rw = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_cuda_cedd_set_property;
  gobject_class->get_property = gst_cuda_cedd_get_property;
  gobject_class->finalize = gst_cuda_cedd_finalize;

  g_object_class_install_property (gobject_class, PROP_REGIONS,
      g_param_spec_enum ("regions", "Regions",
          "Which descriptors to compute: the frame, one per GstVideoRegionOfInterestMeta, or both",
          GST_TYPE_CUDA_CEDD_REGIONS, DEFAULT_REGIONS,
          (GParamFlags) (rw | GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property (gobject_class, PROP_INDEX_LOCATION,
      g_param_spec_string ("index-location", "Index location",
          "Index to append every descriptor to: a SQLite file (created if missing) or a "
          "PostgreSQL URI / connection string (NULL: no index)",
          NULL, (GParamFlags) (rw | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_STREAM_NAME,
      g_param_spec_string ("stream-name", "Stream name",
          "Name recorded in the index and shot messages (NULL: the upstream source's location, "
          "else the stream-start event's stream id)",
          NULL, (GParamFlags) (rw | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property (gobject_class, PROP_SHOT_THRESHOLD,
      g_param_spec_double ("shot-threshold", "Shot threshold",
          "Tanimoto distance (0..100) between consecutive frame descriptors above which a shot "
          "change is reported; 100 disables shot detection", 0.0, 100.0, DEFAULT_SHOT_THRESHOLD,
          (GParamFlags) (rw | GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property (gobject_class, PROP_HYBRID,
      g_param_spec_boolean ("hybrid", "Hybrid",
          "CUDA backend: sum the blocks on the CPU and run the fuzzy stages on the GPU (the "
          "paper's hybrid scheme) instead of everything on the GPU", DEFAULT_HYBRID,
          (GParamFlags) (rw | GST_PARAM_MUTABLE_READY)));

  gst_element_class_set_static_metadata (element_class, "CEDD descriptor",
      "Filter/Analyzer/Video",
      "Computes CEDD colour and edge directivity descriptors of frames and regions (CUDA or CPU), "
      "attaches them as metadata, indexes them (SQLite or PostgreSQL) and detects shot changes",
      "gst-cuda-vision");
  gst_cvis_filter_class_add_pad_templates (element_class, "{ " GST_CVIS_CUDA_FORMATS " }",
      "{ " GST_CVIS_SYS_FORMATS " }");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_cedd_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_cedd_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_cedd_sink_event);

  filter_class->in_place = TRUE;
  filter_class->configure = gst_cuda_cedd_configure;
  filter_class->analyse = gst_cuda_cedd_analyse;
  filter_class->reset = gst_cuda_cedd_reset;
  filter_class->release = gst_cuda_cedd_release;

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_CEDD_REGIONS, (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_cedd_debug, "cudacedd", 0, "CEDD descriptors");
}

static void
gst_cuda_cedd_init (GstCudaCedd * self)
{
  self->lock = new std::mutex ();
  self->settings = new Settings ();
  self->state = new State ();
}
