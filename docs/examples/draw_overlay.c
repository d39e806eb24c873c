/* Draws an application's own detections with cudaroioverlay: the application pushes frames with
 * GstVideoRegionOfInterestMetas (a "person" with a label and a score, as a detector would attach
 * them) and reads the annotated frames back.
 *
 *   appsrc (RGBA frames + ROI metas) ! cudaroioverlay color-by=id ! appsink
 *
 * Build against the installed library:
 *   cc draw_overlay.c -o draw_overlay $(pkg-config --cflags --libs gstreamer-cvis-1.0 \
 *       gstreamer-app-1.0)
 * Run with the plugin on GST_PLUGIN_PATH:  ./draw_overlay --backend cpu
 *
 * The box's outline must come back in the colour of its id (palette entry id mod 12 of
 * docs/elements/cudaroioverlay.md: id 3 is 0,130,200), its label's background above it in the
 * same colour, and the inside of the box untouched. Exit status 0 only then, for every frame.
 */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <string.h>

#define W 320
#define H 240

static gboolean
pixel_is (const guint8 * rgba, gint x, gint y, guint8 r, guint8 g, guint8 b)
{
  const guint8 *p = rgba + ((gsize) y * W + x) * 4;
  return p[0] == r && p[1] == g && p[2] == b;
}

int
main (int argc, char **argv)
{
  gchar *backend = NULL;
  gint frames = 5;
  GOptionEntry entries[] = {
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend, "auto (default), cpu or cuda", "B"},
    {"num-buffers", 'n', 0, G_OPTION_ARG_INT, &frames, "frames (default 5)", "N"},
    {NULL, 0, 0, G_OPTION_ARG_NONE, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- draw detections with cudaroioverlay");
  GError *err = NULL;
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("draw_overlay: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  gchar *launch = g_strdup_printf ("appsrc name=src format=time caps=video/x-raw,format=RGBA,"
      "width=%d,height=%d,framerate=30/1 ! cudaroioverlay backend=%s color-by=id line-width=3 "
      "! appsink name=sink sync=false", W, H, backend ? backend : "auto");
  GstElement *pipeline = gst_parse_launch (launch, &err);
  g_free (launch);
  g_free (backend);
  if (!pipeline) {
    g_printerr ("draw_overlay: %s\n", err->message);
    return 1;
  }
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  guint ok_frames = 0;
  for (gint i = 0; i < frames; i++) {
    /* A black frame and one detection moving right. */
    GstBuffer *buf = gst_buffer_new_allocate (NULL, W * H * 4, NULL);
    gst_buffer_memset (buf, 0, 0, W * H * 4);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, 30);
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    const gint x = 40 + 10 * i, y = 80, w = 100, h = 120;
    GstVideoRegionOfInterestMeta *roi =
        gst_buffer_add_video_region_of_interest_meta (buf, "person", x, y, w, h);
    roi->id = 3;
    gst_video_region_of_interest_meta_add_param (roi, gst_structure_new ("detection",
            "label", G_TYPE_STRING, "person", "score", G_TYPE_DOUBLE, 0.9, NULL));
    if (gst_app_src_push_buffer (GST_APP_SRC (src), buf) != GST_FLOW_OK)
      break;

    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
    if (!sample)
      break;
    GstBuffer *out = gst_sample_get_buffer (sample);
    GstMapInfo map;
    gst_buffer_map (out, &map, GST_MAP_READ);
    const gboolean outline = pixel_is (map.data, x, y + h / 2, 0, 130, 200) &&
        pixel_is (map.data, x + w - 1, y + h - 1, 0, 130, 200);
    const gboolean label = pixel_is (map.data, x, y - 1, 0, 130, 200);
    const gboolean inside = pixel_is (map.data, x + w / 2, y + h / 2, 0, 0, 0);
    gst_buffer_unmap (out, &map);
    g_print ("frame %d: box %d,%d %dx%d  outline %s  label %s  inside %s\n", i, x, y, w, h,
        outline ? "ok" : "WRONG", label ? "ok" : "WRONG", inside ? "untouched" : "WRONG");
    ok_frames += outline && label && inside;
    gst_sample_unref (sample);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gboolean failed = !msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR;
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("draw_overlay: %s\n", err->message);
    g_clear_error (&err);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_print ("%u of %d frames drawn as expected\n", ok_frames, frames);
  return (!failed && ok_frames == (guint) frames) ? 0 : 1;
}
