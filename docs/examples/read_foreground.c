/* Reads the foreground masks and blob boxes that cudabgsub or cudamedian3d (output=frame) attach
 * to every frame; both attach the same metadata.
 *
 *   videotestsrc pattern=ball ! cudabgsub output=frame ! fakesink
 *                               (or cudamedian3d)        ^ buffer probe: GstCvisForegroundMeta
 *                                                          + GstVideoRegionOfInterestMeta boxes
 *
 * Build against the installed library:
 *   cc read_foreground.c -o read_foreground $(pkg-config --cflags --libs gstreamer-cvis-1.0)
 * Run with the plugin on GST_PLUGIN_PATH:
 *   ./read_foreground --backend cpu [--element cudabgsub|cudamedian3d]
 *
 * For each frame it checks the timestamp (frame i at i/30 s: nothing lost or reordered, also with
 * cudamedian3d's centered window mode=paper, whose frames leave T/2 frames late and whose last T/2
 * frames leave at EOS), maps the mask (a GRAY8 buffer; in CUDA memory when the frame is, and a
 * plain map downloads it), counts its foreground pixels against the meta's fraction, checks the
 * boxes against the frame and prints them. Exit status 0 only when everything was consistent,
 * every frame came out and the moving ball was found in some frame.
 */
#include <gst/cvis/cvis.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <math.h>

typedef struct {
  guint frames, boxes, errors;
} Reader;

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Reader *r = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCustomMeta *meta = gst_buffer_get_cvis_foreground_meta (buf);
  GstCvisForegroundInfo fg;
  GstMapInfo map;
  guint frame = r->frames++, boxes = 0, pixels = 0;
  const GstClockTime want = gst_util_uint64_scale (frame, GST_SECOND, 30);
  gpointer state = NULL;
  GstMeta *m;

  (void) pad;
  if (GST_BUFFER_PTS (buf) != want) {
    g_printerr ("frame %u: pts %" GST_TIME_FORMAT ", expected %" GST_TIME_FORMAT "\n", frame,
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)), GST_TIME_ARGS (want));
    r->errors++;
  }
  if (!meta || !gst_cvis_foreground_meta_get (meta, &fg)) {
    g_printerr ("frame %u: no foreground meta\n", frame);
    r->errors++;
    return GST_PAD_PROBE_OK;
  }
  if (!gst_buffer_map (fg.mask, &map, GST_MAP_READ)) {
    g_printerr ("frame %u: cannot map the mask\n", frame);
    r->errors++;
    return GST_PAD_PROBE_OK;
  }
  for (gint y = 0; y < fg.height; y++)
    for (gint x = 0; x < fg.width; x++)
      pixels += map.data[(gsize) y * fg.stride + x] != 0;
  gst_buffer_unmap (fg.mask, &map);
  if (fabs (fg.fraction * fg.width * fg.height - pixels) > 0.5) {
    g_printerr ("frame %u: fraction %f but %u mask pixels\n", frame, fg.fraction, pixels);
    r->errors++;
  }

  g_print ("frame %3u pts %" GST_TIME_FORMAT " foreground %5.2f%%", frame,
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), 100.0 * fg.fraction);
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;
    const GstStructure *p = gst_video_region_of_interest_meta_get_param (roi, "foreground");
    guint area = 0;
    if (roi->roi_type != g_quark_from_static_string (GST_CVIS_FOREGROUND_ROI_TYPE))
      continue;
    if (!p || !gst_structure_get_uint (p, "area", &area) || area > roi->w * roi->h ||
        area > pixels || roi->x + roi->w > (guint) fg.width || roi->y + roi->h > (guint) fg.height) {
      g_printerr ("frame %u: bad box %d\n", frame, roi->id);
      r->errors++;
    }
    g_print ("  blob %d: %u,%u %ux%u %u px", roi->id, roi->x, roi->y, roi->w, roi->h, area);
    boxes++;
  }
  g_print ("\n");
  if (boxes != fg.blobs) {
    g_printerr ("frame %u: %u boxes, the meta says %u\n", frame, boxes, fg.blobs);
    r->errors++;
  }
  r->boxes += boxes;
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gchar *backend = NULL, *element = NULL;
  gint num_buffers = 40;
  GOptionEntry entries[] = {
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend, "auto (default), cpu or cuda", "B"},
    {"element", 'e', 0, G_OPTION_ARG_STRING, &element, "cudabgsub (default) or cudamedian3d",
        "E"},
    {"num-buffers", 'n', 0, G_OPTION_ARG_INT, &num_buffers, "frames (default 40)", "N"},
    {NULL, 0, 0, G_OPTION_ARG_NONE, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- read the foreground masks and blob boxes");
  const gchar *settings;
  GError *err = NULL;
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("read_foreground: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!element || g_str_equal (element, "cudabgsub")) {
    settings = "num-samples=8";         /* a small model: warmed up after 8 frames */
  } else if (g_str_equal (element, "cudamedian3d")) {
    settings = "mode=paper temporal-size=5";    /* a 3x3x5 centered window: outputs lag 2 frames */
  } else {
    g_printerr ("read_foreground: --element must be cudabgsub or cudamedian3d\n");
    return 2;
  }

  gchar *launch = g_strdup_printf ("videotestsrc pattern=ball motion=sweep num-buffers=%d ! "
      "video/x-raw,format=RGBA,width=160,height=120,framerate=30/1 ! "
      "%s backend=%s output=frame %s ! fakesink name=sink", num_buffers,
      element ? element : "cudabgsub", backend ? backend : "auto", settings);
  GstElement *pipeline = gst_parse_launch (launch, &err);
  g_free (launch);
  g_free (backend);
  g_free (element);
  if (!pipeline) {
    g_printerr ("read_foreground: %s\n", err->message);
    return 1;
  }
  Reader reader = { 0 };
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &reader, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gboolean failed = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR;
  if (failed) {
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("read_foreground: %s\n", err->message);
    g_clear_error (&err);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  g_print ("%u frames, %u blob boxes, %u errors\n", reader.frames, reader.boxes, reader.errors);
  if (failed || reader.errors > 0 || reader.frames != (guint) num_buffers)
    return 1;
  if (reader.boxes == 0) {
    g_printerr ("read_foreground: the ball was never segmented\n");
    return 1;
  }
  return 0;
}
