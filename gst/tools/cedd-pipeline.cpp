#include "cedd-pipeline.h"

#include <gst/app/gstappsink.h>
#include <gst/cvis/cvisceddmeta.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

namespace cvis::tool {

namespace {

// cudacedd's packed RGB formats: a PNG's RGB/RGBA passes unchanged, GRAY expands exactly.
const char* kRgbCaps =
    "video/x-raw, format=(string){ RGB, RGBA, BGR, BGRA, RGBx, BGRx, xRGB, xBGR, ARGB, ABGR }";

const char* kFirstFrameMessage = "cvis-cedd-first-frame";
const char* kNoVideoMessage = "cvis-cedd-no-video";

struct Context {
  GstElement* pipeline = nullptr;
  GstElement* convert = nullptr;
  GstElement* sink = nullptr;
  bool first_frame_only = false;
  std::atomic<bool> video_linked{false};
  std::mutex lock; // guards `result` and `posted_first` (written on the streaming thread)
  RunResult result;
  bool posted_first = false;
};

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && (s.back() == ' ' || s.back() == '.'))
    s.pop_back();
  return s;
}

// Streams other than the first raw video stream end in a fakesink, so that they neither block
// the pipeline nor make the demuxer fail with not-linked.
void on_pad_added(GstElement* decodebin, GstPad* pad, gpointer user_data) {
  auto* ctx = static_cast<Context*>(user_data);
  (void)decodebin;
  GstCaps* caps = gst_pad_get_current_caps(pad);
  if (!caps)
    caps = gst_pad_query_caps(pad, nullptr);
  bool raw_video = false;
  if (caps && gst_caps_get_size(caps) > 0) {
    const gchar* name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
    raw_video = g_str_has_prefix(name, "video/x-raw");
  }
  if (caps)
    gst_caps_unref(caps);
  bool expected = false;
  if (raw_video && ctx->video_linked.compare_exchange_strong(expected, true)) {
    GstPad* sinkpad = gst_element_get_static_pad(ctx->convert, "sink");
    if (gst_pad_link(pad, sinkpad) != GST_PAD_LINK_OK)
      ctx->video_linked = false;
    gst_object_unref(sinkpad);
    if (ctx->video_linked)
      return;
  }
  GstElement* discard = gst_element_factory_make("fakesink", nullptr);
  if (!discard)
    return;
  g_object_set(discard, "sync", FALSE, "async", FALSE, nullptr);
  gst_bin_add(GST_BIN(ctx->pipeline), discard);
  gst_element_sync_state_with_parent(discard);
  GstPad* sinkpad = gst_element_get_static_pad(discard, "sink");
  (void)gst_pad_link(pad, sinkpad);
  gst_object_unref(sinkpad);
}

void on_no_more_pads(GstElement* decodebin, gpointer user_data) {
  auto* ctx = static_cast<Context*>(user_data);
  if (!ctx->video_linked) {
    gst_element_post_message(decodebin,
                             gst_message_new_application(GST_OBJECT(decodebin),
                                                         gst_structure_new_empty(kNoVideoMessage)));
  }
}

GstFlowReturn on_new_sample(GstAppSink* appsink, gpointer user_data) {
  auto* ctx = static_cast<Context*>(user_data);
  GstSample* sample = gst_app_sink_pull_sample(appsink);
  if (!sample)
    return GST_FLOW_EOS;
  GstBuffer* buf = gst_sample_get_buffer(sample);
  GstCustomMeta* meta = buf ? gst_buffer_get_cvis_cedd_meta(buf) : nullptr;
  bool post = false;
  {
    std::lock_guard<std::mutex> lk(ctx->lock);
    RunResult& r = ctx->result;
    r.frames++;
    GstCvisCeddEntry entry;
    if (meta)
      r.descriptors += gst_cvis_cedd_meta_get_count(meta);
    if (meta && !r.have_first && gst_cvis_cedd_meta_find(meta, GST_CVIS_CEDD_FRAME_ID, &entry)) {
      r.have_first = true;
      std::copy(entry.levels, entry.levels + GST_CVIS_CEDD_BINS, r.first.levels.begin());
      r.first.width = entry.width;
      r.first.height = entry.height;
      GstCaps* caps = gst_sample_get_caps(sample);
      if (caps && gst_caps_get_size(caps) > 0) {
        const GstStructure* s = gst_caps_get_structure(caps, 0);
        gst_structure_get_int(s, "width", &r.first.width);
        gst_structure_get_int(s, "height", &r.first.height);
      }
    }
    if (ctx->first_frame_only && r.have_first && !ctx->posted_first) {
      ctx->posted_first = true;
      post = true;
    }
  }
  gst_sample_unref(sample);
  if (post) {
    gst_element_post_message(GST_ELEMENT(appsink),
                             gst_message_new_application(
                                 GST_OBJECT(appsink), gst_structure_new_empty(kFirstFrameMessage)));
  }
  return GST_FLOW_OK;
}

// "msg (detail)" for our own element, whose debug string carries the reason (index, backend).
std::string describe_error(GstMessage* msg, bool with_detail) {
  GError* err = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(msg, &err, &debug);
  std::string text = err && err->message ? err->message : "unknown error";
  if (err && err->domain == GST_STREAM_ERROR && err->code == GST_STREAM_ERROR_TYPE_NOT_FOUND) {
    text = "not an image or video (unknown file type)";
  } else if (err && err->domain == GST_CORE_ERROR && err->code == GST_CORE_ERROR_MISSING_PLUGIN) {
    text = "no decoder for this file type (" + one_line(text) + ")";
  } else if (!with_detail && err && err->domain == GST_STREAM_ERROR &&
             err->code == GST_STREAM_ERROR_FAILED) {
    // A decoder that only returns a flow error (pngdec on a damaged chunk posts nothing; libpng
    // prints its reason on stderr) leaves the source's generic "Internal data stream error".
    const char* nl = debug ? strchr(debug, '\n') : nullptr;
    text = "decoding failed: the file is damaged or not supported";
    if (nl && nl[1])
      text += " (" + one_line(nl + 1) + ")";
  } else if (with_detail && debug) {
    // GStreamer debug strings are "file(line): function (): /object/path:\ndetail".
    const char* nl = strchr(debug, '\n');
    std::string detail = nl ? one_line(nl + 1) : std::string();
    // Our Status texts start with their code ("io-error: ..."), which adds nothing here.
    const size_t colon = detail.find(": ");
    if (colon != std::string::npos &&
        detail.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == colon)
      detail = detail.substr(colon + 2);
    if (!detail.empty() && one_line(text).find(detail) == std::string::npos)
      text = one_line(text) + " (" + detail + ")";
  }
  if (err)
    g_error_free(err);
  g_free(debug);
  return one_line(text);
}

GstElement* make(const char* factory, const char* name, std::string* error) {
  GstElement* e = gst_element_factory_make(factory, name);
  if (!e && error->empty())
    *error = std::string("GStreamer element '") + factory + "' is missing";
  return e;
}

} // namespace

RunError run_file(const std::string& path, const RunOptions& options, RunResult* result,
                  const std::function<void(const ShotChange&)>& on_shot, std::string* error) {
  error->clear();
  Context ctx;
  ctx.first_frame_only = options.first_frame_only;
  GstElement* src = make("filesrc", "src", error);
  GstElement* dec = make("decodebin", "decode", error);
  ctx.convert = make("videoconvert", "convert", error);
  GstElement* filter = make("capsfilter", "rgb", error);
  GstElement* cedd = make("cudacedd", "cedd", error);
  ctx.sink = make("appsink", "sink", error);
  GstElement* elements[] = {src, dec, ctx.convert, filter, cedd, ctx.sink};
  if (!error->empty()) {
    for (GstElement* e : elements)
      if (e)
        gst_object_unref(gst_object_ref_sink(e));
    return RunError::kAnalysis;
  }
  ctx.pipeline = gst_pipeline_new("cvis-cedd");
  for (GstElement* e : elements)
    gst_bin_add(GST_BIN(ctx.pipeline), e);

  g_object_set(src, "location", path.c_str(), nullptr);
  gst_util_set_object_arg(G_OBJECT(ctx.convert), "dither", "none");
  GstCaps* caps = gst_caps_from_string(kRgbCaps);
  g_object_set(filter, "caps", caps, nullptr);
  gst_caps_unref(caps);
  gst_util_set_object_arg(G_OBJECT(cedd), "backend", options.backend.c_str());
  gst_util_set_object_arg(G_OBJECT(cedd), "regions", options.regions.c_str());
  if (options.shot_threshold >= 0)
    g_object_set(cedd, "shot-threshold", options.shot_threshold, nullptr);
  if (!options.index_location.empty())
    g_object_set(cedd, "index-location", options.index_location.c_str(), nullptr);
  if (!options.stream_name.empty())
    g_object_set(cedd, "stream-name", options.stream_name.c_str(), nullptr);
  g_object_set(ctx.sink, "sync", FALSE, nullptr);
  GstAppSinkCallbacks callbacks = {};
  callbacks.new_sample = on_new_sample;
  gst_app_sink_set_callbacks(GST_APP_SINK(ctx.sink), &callbacks, &ctx, nullptr);
  g_signal_connect(dec, "pad-added", G_CALLBACK(on_pad_added), &ctx);
  g_signal_connect(dec, "no-more-pads", G_CALLBACK(on_no_more_pads), &ctx);
  gst_element_link(src, dec);
  gst_element_link_many(ctx.convert, filter, cedd, ctx.sink, nullptr);

  RunError status = RunError::kNone;
  GstBus* bus = gst_element_get_bus(ctx.pipeline);
  const bool started =
      gst_element_set_state(ctx.pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
  const auto types = static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS |
                                                 GST_MESSAGE_ELEMENT | GST_MESSAGE_APPLICATION);
  for (bool done = false; !done;) {
    // After a failed start, only what is already on the bus matters.
    GstMessage* msg = gst_bus_timed_pop_filtered(bus, started ? GST_CLOCK_TIME_NONE : 0, types);
    if (!msg) {
      *error = "could not start the decoding pipeline";
      status = RunError::kAnalysis;
      break;
    }
    const GstStructure* s = gst_message_get_structure(msg);
    switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_ERROR: {
      const bool ours = GST_MESSAGE_SRC(msg) == GST_OBJECT(cedd);
      *error = describe_error(msg, ours);
      status = ours ? RunError::kAnalysis : RunError::kInput;
      done = true;
      break;
    }
    case GST_MESSAGE_EOS:
      done = true;
      break;
    case GST_MESSAGE_APPLICATION:
      if (gst_structure_has_name(s, kFirstFrameMessage)) {
        done = true;
      } else if (gst_structure_has_name(s, kNoVideoMessage)) {
        *error = "no decodable video or image stream";
        status = RunError::kInput;
        done = true;
      }
      break;
    case GST_MESSAGE_ELEMENT:
      if (on_shot && s && gst_structure_has_name(s, "cvis-shot-change")) {
        ShotChange shot;
        const gchar* stream = gst_structure_get_string(s, "stream");
        shot.stream = stream ? stream : "";
        gst_structure_get_uint64(s, "frame", &shot.frame);
        gst_structure_get_uint64(s, "pts", &shot.pts);
        gst_structure_get_double(s, "distance", &shot.distance);
        on_shot(shot);
      }
      break;
    default:
      break;
    }
    gst_message_unref(msg);
  }
  gst_element_set_state(ctx.pipeline, GST_STATE_NULL); // joins the streaming threads
  gst_object_unref(bus);
  gst_object_unref(ctx.pipeline);

  *result = ctx.result;
  if (status == RunError::kNone && options.first_frame_only && !result->have_first) {
    *error = "no frame could be decoded";
    status = RunError::kInput;
  }
  return status;
}

} // namespace cvis::tool
