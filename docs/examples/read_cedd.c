/* Reads the CEDD descriptors that cudacedd attaches to every frame, with the libgstcvis-1.0 API.
 *
 *   videotestsrc ! video/x-raw,format=RGBA ! cudacedd ! fakesink
 *                                                      ^ buffer probe: GstCvisCeddMeta
 *
 * Build against the installed library:
 *   cc read_cedd.c -o read_cedd $(pkg-config --cflags --libs gstreamer-cvis-1.0)
 * (or `meson setup build && ninja -C build` in this folder). Run with the plugin on
 * GST_PLUGIN_PATH:  ./read_cedd --backend cpu
 *
 * This example switches the test pattern half-way through, so cudacedd also reports a shot
 * change, on the buffer's meta and as a "cvis-shot-change" element message on the bus.
 * Exit status 0 only when descriptors were read and valid (with --expect-shot: and a shot change
 * was reported).
 */
#include <gst/cvis/cvisceddmeta.h>
#include <gst/gst.h>

#include <string.h>

typedef struct {
  GstElement *src;
  guint switch_at;
  guint frames;
  guint descriptors;
  guint errors;
} Reader;

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Reader *r = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCustomMeta *meta = gst_buffer_get_cvis_cedd_meta (buf);
  guint frame = r->frames++;
  gdouble distance = -1.0;
  gboolean shot = FALSE;

  (void) pad;
  if (frame + 1 == r->switch_at)        /* the next frame is noise: a new "shot" */
    gst_util_set_object_arg (G_OBJECT (r->src), "pattern", "snow");
  if (!meta) {
    g_printerr ("frame %u: no GstCvisCeddMeta\n", frame);
    r->errors++;
    return GST_PAD_PROBE_OK;
  }
  gst_cvis_cedd_meta_get_shot (meta, &distance, &shot);
  for (guint i = 0; i < gst_cvis_cedd_meta_get_count (meta); i++) {
    GstCvisCeddEntry e;
    guint8 unpacked[GST_CVIS_CEDD_BINS];
    gboolean valid = gst_cvis_cedd_meta_get_entry (meta, i, &e);
    for (guint b = 0; valid && b < GST_CVIS_CEDD_BINS; b++)
      valid = e.levels[b] <= 7;
    if (valid) {
      gst_cvis_cedd_unpack (e.packed, unpacked);
      valid = memcmp (unpacked, e.levels, GST_CVIS_CEDD_BINS) == 0;
    }
    if (!valid) {
      g_printerr ("frame %u descriptor %u: bad levels or packing\n", frame, i);
      r->errors++;
      continue;
    }
    r->descriptors++;
    g_print ("frame %3u pts %" GST_TIME_FORMAT " %s %d box %d,%d %dx%d levels", frame,
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
        e.roi_id == GST_CVIS_CEDD_FRAME_ID ? "frame" : "roi", e.roi_id, e.x, e.y, e.width,
        e.height);
    for (guint b = 0; b < 12; b++)
      g_print (" %u", e.levels[b]);
    g_print (".. packed %02x%02x%02x..", e.packed[0], e.packed[1], e.packed[2]);
    if (e.roi_id == GST_CVIS_CEDD_FRAME_ID && distance >= 0)
      g_print (" distance %.2f%s", distance, shot ? " SHOT" : "");
    g_print ("\n");
  }
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gchar *backend = NULL;
  gint num_buffers = 20;
  gboolean expect_shot = FALSE;
  GOptionEntry entries[] = {
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend, "auto (default), cpu or cuda", "B"},
    {"num-buffers", 'n', 0, G_OPTION_ARG_INT, &num_buffers, "frames (default 20)", "N"},
    {"expect-shot", 0, 0, G_OPTION_ARG_NONE, &expect_shot,
        "fail unless a cvis-shot-change message arrives", NULL},
    {NULL, 0, 0, G_OPTION_ARG_NONE, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- read CEDD metadata from cudacedd");
  GError *err = NULL;
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("read_cedd: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  gchar *launch = g_strdup_printf ("videotestsrc name=src pattern=smpte num-buffers=%d ! "
      "video/x-raw,format=RGBA,width=320,height=240,framerate=25/1 ! "
      "cudacedd name=cedd backend=%s ! fakesink name=sink", num_buffers,
      backend ? backend : "auto");
  GstElement *pipeline = gst_parse_launch (launch, &err);
  g_free (launch);
  if (!pipeline) {
    g_printerr ("read_cedd: %s\n", err->message);
    return 1;
  }

  Reader reader = { 0 };
  reader.src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  reader.switch_at = (guint) num_buffers / 2;
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &reader, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);

  guint shots = 0;
  gboolean failed = FALSE;
  GstBus *bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (gboolean done = FALSE; !done;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_ELEMENT);
    const GstStructure *s = gst_message_get_structure (msg);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("read_cedd: %s: %s\n", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
      g_clear_error (&err);
      failed = done = TRUE;
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      done = TRUE;
    } else if (s && gst_structure_has_name (s, "cvis-shot-change")) {
      guint64 frame = 0, pts = GST_CLOCK_TIME_NONE;
      gdouble d = 0;
      gst_structure_get_uint64 (s, "frame", &frame);
      gst_structure_get_uint64 (s, "pts", &pts);
      gst_structure_get_double (s, "distance", &d);
      g_print ("shot change: stream %s frame %" G_GUINT64_FORMAT " pts %" GST_TIME_FORMAT
          " distance %.2f\n", gst_structure_get_string (s, "stream"), frame,
          GST_TIME_ARGS (pts), d);
      shots++;
    }
    gst_message_unref (msg);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (reader.src);
  gst_object_unref (pipeline);
  g_free (backend);

  g_print ("%u frames, %u descriptors, %u shot changes\n", reader.frames, reader.descriptors,
      shots);
  if (failed || reader.errors > 0 || reader.descriptors < 1)
    return 1;
  if (expect_shot && shots < 1) {
    g_printerr ("read_cedd: no shot change reported\n");
    return 1;
  }
  return 0;
}
