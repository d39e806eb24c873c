#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcvisstorelink.h"

GST_DEBUG_CATEGORY_STATIC (gst_cvis_store_debug);
#define GST_CAT_DEFAULT gst_cvis_store_debug

static void
ensure_debug (void)
{
  static gsize once = 0;
  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_cvis_store_debug, "cvisstorelink", 0, "store writers");
    g_once_init_leave (&once, 1);
  }
}

/* A URI without the password of its user information (camera URIs often carry one). */
static std::string
uri_without_password (const gchar * text)
{
  GstUri *uri = gst_uri_from_string (text);
  if (!uri)
    return text;
  std::string out = text;
  const gchar *userinfo = gst_uri_get_userinfo (uri);
  if (userinfo && strchr (userinfo, ':')) {
    gchar *user = g_strndup (userinfo, strchr (userinfo, ':') - userinfo);
    GstUri *w = gst_uri_make_writable (uri);
    gst_uri_set_userinfo (w, user);
    uri = w;
    g_free (user);
    gchar *s = gst_uri_to_string (uri);
    out = s;
    g_free (s);
  }
  gst_uri_unref (uri);
  return out;
}

std::string
gst_cvis_store_stream_name (GstPad * sinkpad, GstEvent * stream_start)
{
  ensure_debug ();
  GstQuery *q = gst_query_new_uri ();
  std::string name;
  if (gst_pad_peer_query (sinkpad, q)) {
    gchar *uri = NULL;
    gst_query_parse_uri (q, &uri);
    if (uri) {
      gchar *path = g_filename_from_uri (uri, NULL, NULL);
      name = path ? path : uri_without_password (uri);
      g_free (path);
      g_free (uri);
    }
  }
  gst_query_unref (q);
  if (name.empty () && stream_start) {
    const gchar *id = NULL;
    gst_event_parse_stream_start (stream_start, &id);
    if (id)
      name = id;
  }
  GST_DEBUG_OBJECT (sinkpad, "stream name '%s'", name.c_str ());
  return name.empty ()? "stream" : name;
}

guint64
gst_cvis_frame_number (const GstVideoInfo * info, GstClockTime stream_time)
{
  if (!GST_CLOCK_TIME_IS_VALID (stream_time) || GST_VIDEO_INFO_FPS_N (info) <= 0 ||
      GST_VIDEO_INFO_FPS_D (info) <= 0)
    return 0;
  /* Rounded: timestamps of 30000/1001 fps streams are truncated to nanoseconds. */
  return gst_util_uint64_scale_round (stream_time, GST_VIDEO_INFO_FPS_N (info),
      (guint64) GST_VIDEO_INFO_FPS_D (info) * GST_SECOND);
}

guint64
GstCvisFramePosition::advance (GstBuffer * buf, const GstSegment * segment,
    const GstVideoInfo * info, GstClockTime * stream_time)
{
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  *stream_time = GST_CLOCK_TIME_IS_VALID (pts) && segment->format == GST_FORMAT_TIME ?
      gst_segment_to_stream_time (segment, GST_FORMAT_TIME, pts) : GST_CLOCK_TIME_NONE;
  if (resync) {
    next = gst_cvis_frame_number (info, *stream_time);
    resync = false;
  }
  return next++;
}

gboolean
GstCvisStoreLink::open (GstElement * element, const char *property,
    const std::string & location, const cvis::store::WriterOptions & options)
{
  ensure_debug ();
  /* Called on the writer thread; posting messages is thread-safe. */
  auto on_event =[element] (const cvis::store::WriterEvent & e) {
    using K = cvis::store::WriterEventKind;
    if (e.kind == K::kRecovered)
      GST_ELEMENT_INFO (element, RESOURCE, WRITE, ("%s", e.message.c_str ()), (NULL));
    else
      GST_ELEMENT_WARNING (element, RESOURCE, WRITE, ("%s", e.message.c_str ()),
          ("%" G_GUINT64_FORMAT " rows not stored yet", e.pending_rows));
  };
  cvis::Status s = writer_.open (location, options, on_event);
  if (!s.ok ()) {
    cvis::store::Location loc;
    const std::string shown = cvis::store::parse_location (location, &loc).ok ()?
        loc.display : std::string ("(unparsable)");
    if (s.code () == cvis::StatusCode::kInvalidArgument)
      GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("Cannot use %s '%s': %s", property,
              shown.c_str (), s.message ().c_str ()), (NULL));
    else
      GST_ELEMENT_ERROR (element, RESOURCE, OPEN_READ_WRITE, ("Cannot use %s '%s': %s",
              property, shown.c_str (), s.message ().c_str ()), (NULL));
    return FALSE;
  }
  reported_ = false;
  GST_INFO_OBJECT (element, "writing to %s (run %s)", display ().c_str (),
      run_id ().c_str ());
  return TRUE;
}

gboolean
GstCvisStoreLink::drain (GstElement * element, guint timeout_s)
{
  if (!writer_.is_open ())
    return TRUE;
  cvis::Status s = writer_.flush ((int) timeout_s * 1000);
  if (!s.ok ()) {
    GST_ELEMENT_ERROR (element, RESOURCE, WRITE, ("Not every row was stored at the end of the "
            "stream: %s", s.message ().c_str ()), (NULL));
    reported_ = true;
    return FALSE;
  }
  return TRUE;
}

void
GstCvisStoreLink::close (GstElement * element, guint timeout_s)
{
  if (!writer_.is_open ())
    return;
  const bool reachable = writer_.stats ().connected;
  cvis::Status s = writer_.close (reachable ? (int) timeout_s * 1000 : 0);
  if (!s.ok () && !reported_)
    GST_ELEMENT_ERROR (element, RESOURCE, WRITE, ("Not every row was stored: %s",
            s.message ().c_str ()), (NULL));
}
