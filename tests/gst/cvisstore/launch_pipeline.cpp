// Runs one gst-launch description to EOS, as a separate process (the cvisstore tests start
// several at once): exit status 0 at EOS, 1 on an error (its message on stderr), 2 on bad usage.
//   launch_pipeline "videotestsrc num-buffers=10 ! ... ! cvisstore location=... ! fakesink"
#include <gst/gst.h>

#include <cstdio>

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  if (argc != 2) {
    fprintf(stderr, "usage: launch_pipeline DESCRIPTION\n");
    return 2;
  }
  GError* err = nullptr;
  GstElement* p = gst_parse_launch(argv[1], &err);
  if (!p) {
    fprintf(stderr, "launch_pipeline: %s\n", err ? err->message : "parse failed");
    return 1;
  }
  GstBus* bus = gst_element_get_bus(p);
  int rc = 0;
  if (gst_element_set_state(p, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    rc = 1;
  GstMessage* m = gst_bus_timed_pop_filtered(
      bus, 300 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  if (!m || GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
    GError* e = nullptr;
    if (m)
      gst_message_parse_error(m, &e, nullptr);
    fprintf(stderr, "launch_pipeline: %s\n", e ? e->message : "timeout");
    g_clear_error(&e);
    rc = 1;
  }
  if (m)
    gst_message_unref(m);
  gst_element_set_state(p, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(p);
  return rc;
}
