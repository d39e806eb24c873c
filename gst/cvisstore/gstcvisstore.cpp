/**
 * SECTION:element-cvisstore
 * @title: cvisstore
 *
 * Writes what the elements upstream found on each buffer to a store that many hosts can share:
 * a SQLite file, or a PostgreSQL server (docs/store.md). Frames pass through untouched (any
 * memory, CUDA included: the pixels are never read). Per buffer it reads
 *
 * - the CEDD meta (cudacedd): every descriptor, table `descriptors`; the frame's shot-change
 *   mark, table `shots`;
 * - every GstVideoRegionOfInterestMeta (cudabgsub / cudamedian3d foreground blobs, cudarcdtrack
 *   tracks and detections, cudaactionmatch actions, anything upstream): table `boxes`, with the
 *   ROI's parameter structures as text;
 * - the boxes of roi_type "track" not marked lost: the first and last frame of each track id,
 *   table `tracks`;
 * - GstCvisActionMeta (cudaactionmatch): label, score, frames, times and box, table `actions`.
 *
 * Rows are keyed by stream, run_id (one per start), frame number and their index within the
 * frame, so a batch sent twice is stored once. The streaming thread only queues rows; a writer
 * thread sends them in batches (one transaction each, at least every `commit-interval`). While
 * the store cannot be reached, rows wait in a bounded on-disk queue (`queue-location`,
 * `queue-size`) and the element posts a warning; they are sent when it is back. At EOS the
 * element waits up to `eos-timeout` for every row to be stored, else posts an error saying how
 * many rows are not stored and where they are kept (the next writer of the same store sends
 * them).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! videoconvert ! \
 *     cudabgsub output=frame ! cudacedd regions=both ! \
 *     cvisstore location=postgresql://cvis@db.example/cvis ! fakesink
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! \
 *     cudacedd ! cvisstore location=/var/lib/cvis/index.db stream-name=cam1 ! fakesink
 * ]|
 * The second line keeps the frames in CUDA memory end to end.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvisstore.h"

#include "gstcvisstore_priv.h"

GST_DEBUG_CATEGORY (gst_cvis_store_debug);
#define GST_CAT_DEFAULT gst_cvis_store_debug

enum {
  PROP_0,
  PROP_LOCATION,
  PROP_STREAM_NAME,
  PROP_RECORDS,
  PROP_QUEUE_LOCATION,
  PROP_QUEUE_SIZE,
  PROP_COMMIT_INTERVAL,
  PROP_EOS_TIMEOUT,
};

G_DEFINE_TYPE (GstCvisStore, gst_cvis_store, GST_TYPE_BASE_TRANSFORM);

GType
gst_cvis_store_records_get_type (void)
{
  static gsize type = 0;
  static const GFlagsValue values[] = {
    {GST_CVIS_STORE_RECORDS_DESCRIPTORS, "CEDD descriptors", "descriptors"},
    {GST_CVIS_STORE_RECORDS_SHOTS, "Shot changes", "shots"},
    {GST_CVIS_STORE_RECORDS_BOXES, "Regions of interest", "boxes"},
    {GST_CVIS_STORE_RECORDS_TRACKS, "Track spans", "tracks"},
    {GST_CVIS_STORE_RECORDS_ACTIONS, "Recognised actions", "actions"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_flags_register_static ("GstCvisStoreRecords", values));
  return (GType) type;
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK,
    GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC,
    GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

/* --------------------------------------------------------------------------------------------- */

static void
gst_cvis_store_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstCvisStore *self = GST_CVIS_STORE (object);
  /* Everything is read at start: refused later rather than silently ignored. */
  if (GST_STATE (self) > GST_STATE_READY) {
    g_warning ("cvisstore: '%s' can only be changed in the NULL or READY state", pspec->name);
    return;
  }
  std::lock_guard < std::mutex > lk (*self->lock);
  GstCvisStoreSettings & s = *self->settings;
  switch (prop_id) {
    case PROP_LOCATION:{
      const gchar *v = g_value_get_string (value);
      s.location = v ? v : "";
      break;
    }
    case PROP_STREAM_NAME:{
      const gchar *v = g_value_get_string (value);
      s.stream_name = v ? v : "";
      break;
    }
    case PROP_RECORDS:
      s.records = (GstCvisStoreRecords) g_value_get_flags (value);
      break;
    case PROP_QUEUE_LOCATION:{
      const gchar *v = g_value_get_string (value);
      s.queue_location = v ? v : "";
      break;
    }
    case PROP_QUEUE_SIZE:
      s.queue_size_mb = g_value_get_uint (value);
      break;
    case PROP_COMMIT_INTERVAL:
      s.commit_interval_ms = g_value_get_uint (value);
      break;
    case PROP_EOS_TIMEOUT:
      s.eos_timeout_s = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cvis_store_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCvisStore *self = GST_CVIS_STORE (object);
  std::lock_guard < std::mutex > lk (*self->lock);
  const GstCvisStoreSettings & s = *self->settings;
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, s.location.empty ()? NULL : s.location.c_str ());
      break;
    case PROP_STREAM_NAME:
      g_value_set_string (value, s.stream_name.empty ()? NULL : s.stream_name.c_str ());
      break;
    case PROP_RECORDS:
      g_value_set_flags (value, s.records);
      break;
    case PROP_QUEUE_LOCATION:
      g_value_set_string (value, s.queue_location.empty ()? NULL : s.queue_location.c_str ());
      break;
    case PROP_QUEUE_SIZE:
      g_value_set_uint (value, s.queue_size_mb);
      break;
    case PROP_COMMIT_INTERVAL:
      g_value_set_uint (value, s.commit_interval_ms);
      break;
    case PROP_EOS_TIMEOUT:
      g_value_set_uint (value, s.eos_timeout_s);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* --------------------------------------------------------------------------------------------- */

static gboolean
gst_cvis_store_start (GstBaseTransform * trans)
{
  GstCvisStore *self = GST_CVIS_STORE (trans);
  GstCvisStoreState & st = *self->state;
  GstCvisStoreSettings s;
  {
    std::lock_guard < std::mutex > lk (*self->lock);
    s = *self->settings;
  }
  if (s.location.empty ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND, ("No store given (the location property)"),
        (NULL));
    return FALSE;
  }
  cvis::store::WriterOptions opt;
  opt.commit_interval_ms = (int) s.commit_interval_ms;
  opt.queue_root = s.queue_location;
  opt.queue_max_bytes = (uint64_t) s.queue_size_mb << 20;
  st.stream = s.stream_name.empty ()? "stream" : s.stream_name;
  st.records = s.records;
  st.eos_timeout_s = s.eos_timeout_s;
  st.position.start ();
  st.tracks.clear ();
  st.frames_since_tracks = 0;
  gst_video_info_init (&st.info);
  st.have_info = false;
  return st.link.open (GST_ELEMENT (self), "location", s.location, opt);
}

/* Queues the track spans gathered so far (EOS, flush, stop). */
static void
send_tracks (GstCvisStore * self)
{
  cvis::store::Batch batch;
  gst_cvis_store_take_tracks (self, &batch);
  if (!batch.empty () && self->state->link.is_open ())
    (void) self->state->link.add (std::move (batch));
}

static gboolean
gst_cvis_store_stop (GstBaseTransform * trans)
{
  GstCvisStore *self = GST_CVIS_STORE (trans);
  send_tracks (self);
  self->state->link.close (GST_ELEMENT (self), self->state->eos_timeout_s);
  return TRUE;
}

static gboolean
gst_cvis_store_set_caps (GstBaseTransform * trans, GstCaps * incaps, GstCaps * outcaps)
{
  GstCvisStoreState & st = *GST_CVIS_STORE (trans)->state;
  (void) outcaps;
  st.have_info = gst_video_info_from_caps (&st.info, incaps);
  if (!st.have_info)
    gst_video_info_init (&st.info);  /* frame numbers after a seek: from 0 then */
  return TRUE;
}

static gboolean
gst_cvis_store_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCvisStore *self = GST_CVIS_STORE (trans);
  GstCvisStoreState & st = *self->state;
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_STREAM_START:{
      bool named;
      {
        std::lock_guard < std::mutex > lk (*self->lock);
        named = !self->settings->stream_name.empty ();
      }
      if (!named)
        st.stream = gst_cvis_store_stream_name (trans->sinkpad, event);
      break;
    }
    case GST_EVENT_FLUSH_STOP:
      send_tracks (self);
      st.position.flushed ();
      break;
    case GST_EVENT_EOS:
      send_tracks (self);
      st.link.drain (GST_ELEMENT (self), st.eos_timeout_s);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cvis_store_parent_class)->sink_event (trans, event);
}

static GstFlowReturn
gst_cvis_store_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstCvisStore *self = GST_CVIS_STORE (trans);
  cvis::store::Batch batch;
  gst_cvis_store_collect (self, buf, &batch);
  if (batch.empty ())
    return GST_FLOW_OK;
  cvis::Status s = self->state->link.add (std::move (batch));
  if (!s.ok ()) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("Cannot queue rows for '%s': %s",
            self->state->link.display ().c_str (), s.message ().c_str ()), (NULL));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* --------------------------------------------------------------------------------------------- */

static void
gst_cvis_store_finalize (GObject * object)
{
  GstCvisStore *self = GST_CVIS_STORE (object);
  delete self->state;
  delete self->settings;
  delete self->lock;
  G_OBJECT_CLASS (gst_cvis_store_parent_class)->finalize (object);
}

static void
gst_cvis_store_class_init (GstCvisStoreClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);

  gobject_class->set_property = gst_cvis_store_set_property;
  gobject_class->get_property = gst_cvis_store_get_property;
  gobject_class->finalize = gst_cvis_store_finalize;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "The store: a SQLite file (created if missing) or a PostgreSQL URI / libpq "
          "connection string (postgresql://user@host/db, 'host=... dbname=...'); passwords "
          "from the URI, PGPASSWORD or the password file, never shown in messages", NULL, rw));
  g_object_class_install_property (gobject_class, PROP_STREAM_NAME,
      g_param_spec_string ("stream-name", "Stream name",
          "Name the rows are stored under (NULL: the upstream source's location, else the "
          "stream-start event's stream id)", NULL, rw));
  g_object_class_install_property (gobject_class, PROP_RECORDS,
      g_param_spec_flags ("records", "Records", "Which records to write",
          GST_TYPE_CVIS_STORE_RECORDS, DEFAULT_RECORDS, rw));
  g_object_class_install_property (gobject_class, PROP_QUEUE_LOCATION,
      g_param_spec_string ("queue-location", "Queue location",
          "Folder of the on-disk queue that holds rows while the store cannot be reached "
          "(NULL: $XDG_CACHE_HOME/cvis-store, else ~/.cache/cvis-store)", NULL, rw));
  g_object_class_install_property (gobject_class, PROP_QUEUE_SIZE,
      g_param_spec_uint ("queue-size", "Queue size",
          "Largest size of the on-disk queue in MiB (when full, the pipeline waits)", 1,
          G_MAXUINT / 2, DEFAULT_QUEUE_SIZE_MB, rw));
  g_object_class_install_property (gobject_class, PROP_COMMIT_INTERVAL,
      g_param_spec_uint ("commit-interval", "Commit interval",
          "Longest time in ms a row waits before its batch is written", 1, 600000,
          DEFAULT_COMMIT_INTERVAL_MS, rw));
  g_object_class_install_property (gobject_class, PROP_EOS_TIMEOUT,
      g_param_spec_uint ("eos-timeout", "EOS timeout",
          "At EOS, how long to wait in s for a store that cannot be reached before posting an "
          "error (the rows stay in the disk queue)", 0, 86400, DEFAULT_EOS_TIMEOUT_S, rw));

  gst_element_class_set_static_metadata (element_class, "Analysis store writer",
      "Filter/Metadata/Video",
      "Writes CEDD descriptors, shot changes, boxes, tracks and actions found upstream to a "
      "SQLite or PostgreSQL store; frames pass through", "gst-cuda-vision");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cvis_store_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cvis_store_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cvis_store_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cvis_store_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_cvis_store_transform_ip);
  trans_class->transform_ip_on_passthrough = TRUE;
  trans_class->passthrough_on_same_caps = TRUE;

  gst_type_mark_as_plugin_api (GST_TYPE_CVIS_STORE_RECORDS, (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cvis_store_debug, "cvisstore", 0, "analysis store writer");
}

static void
gst_cvis_store_init (GstCvisStore * self)
{
  self->lock = new std::mutex ();
  self->settings = new GstCvisStoreSettings ();
  self->state = new GstCvisStoreState ();
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}
