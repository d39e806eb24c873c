// cudaactionmatch with backend=cpu (cpu suite): the blocks' results equal the library's (front end
// on the whole clip, cut_blocks, the matcher, the nearest model) on generated action clips, with
// their metas on the right frames, ROI boxes and messages; latency; EOS with a partial block; reset
// on flush; frames unchanged (GRAY8 and NV12); properties; bad dictionaries as element errors; the
// front-end options (speed-split flow histogram, Harris detector): defaults, round trip, bad
// values, a dictionary of another flow histogram, and the element's blocks equal to the library's.
#include "actionmatch_elem_util.hpp"

namespace {

using namespace am_elem;

class ActionMatchElement : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

// Blocks of 30 frames every 20: on the clips the boxing and the walking models were cut from (they
// match their own points: small distances, positive scores) and on another subject's clip of 100
// frames (starts 0, 20, 40, 60 and the tail block 70..99; blocks whose optimum matches no point
// report nothing).
class ActionMatchBlocks : public ::testing::TestWithParam<int> {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

TEST_P(ActionMatchBlocks, EqualTheLibrarys) {
  const bool own = GetParam() < 2;
  const std::vector<Gray> frames = GetParam() == 0   ? clip(1, 0, 70, 100)
                                   : GetParam() == 1 ? clip(1, 5, 70, 105)
                                                     : clip(2, 0, 100, 900);
  const std::vector<Expected> exp = expected(frames, 30, 10);
  if (own) {
    ASSERT_GE(exp.size(), 2u);
  }
  if (own) {
    const auto best = std::max_element(exp.begin(), exp.end(), [](const Expected& a,
                                                                   const Expected& b) {
      return a.pts.size() < b.pts.size();
    });
    EXPECT_GE(best->pts.size(), 10u);  // a model window lies inside the block
    EXPECT_GT(best->score, 0.0);
    EXPECT_EQ(best->model / 2, GetParam());  // boxing: models 0 and 1, walking: 2 and 3
  }
  GstHarness* hs = harness("block-frames=30 overlap=10");
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  guint64 outputs = 0;
  const std::vector<Got> got = run(hs, frames, true, GST_VIDEO_FORMAT_GRAY8, &outputs);
  EXPECT_EQ(outputs, frames.size());
  compare(got, exp);
  // One message per meta, with the same content.
  size_t k = 0;
  while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    const GstStructure* s = gst_message_get_structure(m);
    if (gst_structure_has_name(s, "cvis-action") && k < got.size()) {
      guint64 first = 0, last = 0;
      gint model = -2;
      EXPECT_TRUE(gst_structure_get_uint64(s, "first-frame", &first));
      EXPECT_TRUE(gst_structure_get_uint64(s, "last-frame", &last));
      EXPECT_TRUE(gst_structure_get_int(s, "model-id", &model));
      EXPECT_EQ(first, got[k].info.first_frame);
      EXPECT_EQ(last, got[k].info.last_frame);
      EXPECT_EQ(model, got[k].info.model_id);
      EXPECT_STREQ(gst_structure_get_string(s, "label"), got[k].label.c_str());
      const GValue* pts = gst_structure_get_value(s, "points");
      ASSERT_NE(pts, nullptr);
      EXPECT_EQ(gst_value_array_get_size(pts), got[k].pts.size());
      ++k;
    }
    gst_message_unref(m);
  }
  EXPECT_EQ(k, got.size());
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
}
INSTANTIATE_TEST_SUITE_P(Clips, ActionMatchBlocks, ::testing::Values(0, 1, 2));

TEST_F(ActionMatchElement, Nv12GivesTheSameBlocksAsGray8) {
  const std::vector<Gray> frames = clip(1, 5, 70, 105);
  GstHarness* a = harness("block-frames=30 overlap=0");
  GstHarness* b = harness("block-frames=30 overlap=0", GST_VIDEO_FORMAT_NV12);
  const std::vector<Got> ga = run(a, frames, true);
  const std::vector<Got> gb = run(b, frames, true, GST_VIDEO_FORMAT_NV12);
  ASSERT_EQ(ga.size(), gb.size());
  ASSERT_FALSE(ga.empty());
  for (size_t i = 0; i < ga.size(); ++i) {
    EXPECT_EQ(ga[i].frame, gb[i].frame);
    EXPECT_EQ(ga[i].info.model_id, gb[i].info.model_id);
    EXPECT_EQ(ga[i].info.distance, gb[i].info.distance);
  }
  gst_harness_teardown(a);
  gst_harness_teardown(b);
}

TEST_F(ActionMatchElement, ShortStreamIsOnePartialBlockAtEos) {
  const std::vector<Gray> frames = clip(1, 0, 40, 100);
  const std::vector<Expected> exp = expected(frames, 60, 30);
  ASSERT_EQ(exp.size(), 1u);
  EXPECT_FALSE(exp[0].complete);
  GstHarness* hs = harness("");
  // Nothing is final before EOS beyond the lag; no block completes.
  guint64 before = 0;
  EXPECT_TRUE(run(hs, frames, false, GST_VIDEO_FORMAT_GRAY8, &before).empty());
  EXPECT_EQ(before, frames.size() - 6);  // the default lag: 6 frames held
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_eos()));
  std::vector<Got> got;
  guint64 n = before;
  while (GstBuffer* b = gst_harness_try_pull(hs)) {
    if (GstCustomMeta* m = gst_buffer_get_cvis_action_meta(b)) {
      Got g;
      g.frame = n;
      ASSERT_TRUE(gst_cvis_action_meta_get(m, &g.info));
      got.push_back(g);
    }
    gst_buffer_unref(b);
    ++n;
  }
  EXPECT_EQ(n, frames.size());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].frame, frames.size() - 1);
  EXPECT_FALSE(got[0].info.complete);
  EXPECT_EQ(got[0].info.first_frame, 0u);
  EXPECT_EQ(got[0].info.last_frame, frames.size() - 1);
  EXPECT_EQ(got[0].info.model_id, exp[0].model);
  EXPECT_EQ(got[0].info.distance, exp[0].distance);
  gst_harness_teardown(hs);
}

TEST_F(ActionMatchElement, LatencyIsTheFrontEndsLag) {
  // lag = max(ceil(2 tau) + 1, cell-frames - 1) frames (the front end's, README.md).
  struct {
    const char* props;
    double tau;
    int cell_frames, lag;
  } cases[] = {{"", 2.5, 4, 6}, {"tau=1.5 cell-frames=8", 1.5, 8, 7}, {"tau=4", 4, 4, 9}};
  for (const auto& c : cases) {
    al::RecogniserParams p;
    p.frontend.tau = c.tau;
    p.frontend.cell_frames = c.cell_frames;
    EXPECT_EQ(al::Recogniser::lag_of(p), c.lag) << c.props;
    GstHarness* hs = harness(c.props);
    gst_harness_set_upstream_latency(hs, 5 * GST_MSECOND);
    ASSERT_EQ(gst_harness_push(hs, buffer(Gray(kW * kH, 90), 0)), GST_FLOW_OK);
    GstQuery* q = gst_query_new_latency();
    ASSERT_TRUE(gst_pad_peer_query(hs->sinkpad, q)) << c.props;
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency(q, &live, &min, &max);
    EXPECT_EQ(min, 5 * GST_MSECOND + c.lag * kDur) << c.props;
    gst_query_unref(q);
    gst_harness_teardown(hs);
  }
}

TEST_F(ActionMatchElement, FlushStartsAgain) {
  const std::vector<Gray> frames = clip(1, 5, 70, 105);
  GstHarness* fresh = harness("block-frames=30 overlap=10");
  const std::vector<Got> want = run(fresh, frames, true);
  gst_harness_teardown(fresh);
  ASSERT_FALSE(want.empty());

  GstHarness* hs = harness("block-frames=30 overlap=10");
  const std::vector<Gray> other = clip(4, 5, 45, 904);
  run(hs, other, false);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_start()));
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_flush_stop(TRUE)));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  ASSERT_TRUE(gst_harness_push_event(hs, gst_event_new_segment(&seg)));
  while (GstBuffer* b = gst_harness_try_pull(hs))  // nothing held survives the flush
    gst_buffer_unref(b);
  const std::vector<Got> got = run(hs, frames, true);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].frame, want[i].frame);
    EXPECT_EQ(got[i].info.first_frame, want[i].info.first_frame);
    EXPECT_EQ(got[i].info.model_id, want[i].info.model_id);
    EXPECT_EQ(got[i].info.distance, want[i].info.distance);
  }
  gst_harness_teardown(hs);
}

TEST_F(ActionMatchElement, MinScoreFiltersBlocks) {
  const std::vector<Gray> frames = clip(1, 0, 70, 100);
  const std::vector<Expected> exp = expected(frames, 30, 10);
  double top = 0;
  for (const Expected& e : exp)
    top = std::max(top, e.score);
  ASSERT_GT(top, 0.0);
  const double cut = top / 2;
  size_t kept = 0;
  for (const Expected& e : exp)
    kept += e.score >= cut;
  GstHarness* hs = harness("block-frames=30 overlap=10 min-score=" + std::to_string(cut));
  const std::vector<Got> got = run(hs, frames, true);
  EXPECT_EQ(got.size(), kept);
  for (const Got& g : got)
    EXPECT_GE(g.info.score, cut);
  gst_harness_teardown(hs);
}

// Start fails with an element error naming the problem; nothing streams.
std::string start_error(const std::string& props) {
  GstElement* e = gst_element_factory_make("cudaactionmatch", nullptr);
  EXPECT_NE(e, nullptr);
  GstElement* pipe = gst_pipeline_new(nullptr);
  GstElement* src = gst_element_factory_make("videotestsrc", nullptr);
  GstElement* sink = gst_element_factory_make("fakesink", nullptr);
  gst_bin_add_many(GST_BIN(pipe), src, e, sink, NULL);
  EXPECT_TRUE(gst_element_link_many(src, e, sink, NULL));
  gst_util_set_object_arg(G_OBJECT(e), "backend", "cpu");
  gst_util_set_object_arg(G_OBJECT(src), "num-buffers", "5");
  if (!props.empty()) {
    const size_t eq = props.find('=');
    gst_util_set_object_arg(G_OBJECT(e), props.substr(0, eq).c_str(),
                            props.substr(eq + 1).c_str());
  }
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipe);
  GstMessage* m = gst_bus_timed_pop_filtered(
      bus, 20 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  std::string text = "(no error)";
  if (m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
    GError* err = nullptr;
    gst_message_parse_error(m, &err, nullptr);
    text = err->message;
    g_clear_error(&err);
  }
  if (m)
    gst_message_unref(m);
  gst_object_unref(bus);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(pipe);
  return text;
}

TEST_F(ActionMatchElement, BadDictionariesAreElementErrors) {
  EXPECT_NE(start_error("").find("model-location"), std::string::npos) << start_error("");
  const std::string missing = "/nonexistent/actions.cvad";
  EXPECT_NE(start_error("model-location=" + missing).find(missing), std::string::npos);
  const std::string junk = std::string(g_get_tmp_dir()) + "/cvis-test-junk.cvad";
  FILE* f = std::fopen(junk.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("this is not a dictionary", f);
  std::fclose(f);
  const std::string text = start_error("model-location=" + junk);
  EXPECT_NE(text.find("not a cvis-action dictionary"), std::string::npos) << text;
  std::remove(junk.c_str());
}

TEST_F(ActionMatchElement, BadBlockSettingsAreElementErrors) {
  // overlap >= block-frames: refused at start (the state change fails), whatever the order the
  // two were set in; one settings error.
  GstElement* e = gst_element_factory_make("cudaactionmatch", nullptr);
  ASSERT_NE(e, nullptr);
  g_object_set(e, "overlap", 20u, "block-frames", 20u, "model-location",
               dictionary_path().c_str(), nullptr);
  gst_util_set_object_arg(G_OBJECT(e), "backend", "cpu");
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(e, bus);
  EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(m, nullptr);
  GError* err = nullptr;
  gst_message_parse_error(m, &err, nullptr);
  EXPECT_TRUE(g_error_matches(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS));
  EXPECT_NE(std::string(err->message).find("overlap 20 must be less than block-frames 20"),
            std::string::npos)
      << err->message;
  g_clear_error(&err);
  gst_message_unref(m);
  EXPECT_EQ(gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR), nullptr);
  gst_element_set_state(e, GST_STATE_NULL);
  gst_element_set_bus(e, nullptr);
  gst_object_unref(bus);
  gst_object_unref(e);
}

TEST_F(ActionMatchElement, PropertiesRoundTrip) {
  GstElement* e = gst_element_factory_make("cudaactionmatch", nullptr);
  ASSERT_NE(e, nullptr);
  g_object_set(e, "model-location", "/x.cvad", "block-frames", 45u, "overlap", 15u, "min-score",
               0.25, "min-points", 7u, "sigma", 3.0, "tau", 2.0, "threshold", 2e-4, "max-points",
               3u, "cell-size", 8.0, "cell-frames", 3u, NULL);
  gst_util_set_object_arg(G_OBJECT(e), "distance", "energy");
  gchar* loc = nullptr;
  guint bf, ov, mp, mx, cf;
  gdouble ms, sg, tau, th, cs;
  gint dist;
  g_object_get(e, "model-location", &loc, "block-frames", &bf, "overlap", &ov, "min-score", &ms,
               "min-points", &mp, "sigma", &sg, "tau", &tau, "threshold", &th, "max-points", &mx,
               "cell-size", &cs, "cell-frames", &cf, "distance", &dist, NULL);
  EXPECT_STREQ(loc, "/x.cvad");
  EXPECT_EQ(bf, 45u);
  EXPECT_EQ(ov, 15u);
  EXPECT_EQ(ms, 0.25);
  EXPECT_EQ(mp, 7u);
  EXPECT_EQ(sg, 3.0);
  EXPECT_EQ(tau, 2.0);
  EXPECT_EQ(th, 2e-4);
  EXPECT_EQ(mx, 3u);
  EXPECT_EQ(cs, 8.0);
  EXPECT_EQ(cf, 3u);
  EXPECT_EQ(dist, 0);
  g_free(loc);
  gst_object_unref(e);
}


// ---------------------------------------------------------------------------------------------
// Front-end options: flow-histogram / speed-split and detector / harris-k / harris-scale.

TEST_F(ActionMatchElement, FrontEndOptionDefaults) {
  GstElement* e = gst_element_factory_make("cudaactionmatch", nullptr);
  ASSERT_NE(e, nullptr);
  gint flow = -1, det = -1;
  gdouble split = 0, hk = 0, hs = 0;
  g_object_get(e, "flow-histogram", &flow, "speed-split", &split, "detector", &det, "harris-k",
               &hk, "harris-scale", &hs, NULL);
  // The documented defaults (docs/elements/cudaactionmatch.md), which are the library's.
  const stip::FrontEndParams fp;
  EXPECT_EQ(flow, static_cast<gint>(stip::FlowHistogram::kPaper));
  EXPECT_EQ(flow, static_cast<gint>(fp.flow_histogram));
  EXPECT_EQ(split, 2.0);
  EXPECT_EQ(split, fp.speed_split);
  EXPECT_EQ(det, static_cast<gint>(stip::Detector::kPeriodic));
  EXPECT_EQ(det, static_cast<gint>(fp.detector));
  EXPECT_EQ(hk, 0.005);
  EXPECT_EQ(hk, fp.harris_k);
  EXPECT_EQ(hs, 2.0);
  EXPECT_EQ(hs, fp.harris_scale);
  // The enum nicks a launch line uses.
  GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "flow-histogram");
  ASSERT_NE(ps, nullptr);
  GEnumClass* ec = G_ENUM_CLASS(g_type_class_ref(ps->value_type));
  EXPECT_STREQ(g_enum_get_value(ec, flow)->value_nick, "paper");
  ASSERT_NE(g_enum_get_value_by_nick(ec, "speed"), nullptr);
  EXPECT_EQ(g_enum_get_value_by_nick(ec, "speed")->value,
            static_cast<gint>(stip::FlowHistogram::kSpeed));
  g_type_class_unref(ec);
  ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "detector");
  ASSERT_NE(ps, nullptr);
  ec = G_ENUM_CLASS(g_type_class_ref(ps->value_type));
  EXPECT_STREQ(g_enum_get_value(ec, det)->value_nick, "periodic");
  ASSERT_NE(g_enum_get_value_by_nick(ec, "harris"), nullptr);
  EXPECT_EQ(g_enum_get_value_by_nick(ec, "harris")->value,
            static_cast<gint>(stip::Detector::kHarris));
  g_type_class_unref(ec);
  gst_object_unref(e);
}

TEST_F(ActionMatchElement, FrontEndOptionsRoundTrip) {
  GstElement* e = gst_element_factory_make("cudaactionmatch", nullptr);
  ASSERT_NE(e, nullptr);
  // As a launch line sets them (strings), then read back as values.
  gst_util_set_object_arg(G_OBJECT(e), "flow-histogram", "speed");
  gst_util_set_object_arg(G_OBJECT(e), "speed-split", "1.25");
  gst_util_set_object_arg(G_OBJECT(e), "detector", "harris");
  gst_util_set_object_arg(G_OBJECT(e), "harris-k", "0.04");
  gst_util_set_object_arg(G_OBJECT(e), "harris-scale", "1.5");
  gint flow = -1, det = -1;
  gdouble split = 0, hk = 0, hs = 0;
  g_object_get(e, "flow-histogram", &flow, "speed-split", &split, "detector", &det, "harris-k",
               &hk, "harris-scale", &hs, NULL);
  EXPECT_EQ(flow, static_cast<gint>(stip::FlowHistogram::kSpeed));
  EXPECT_EQ(split, 1.25);
  EXPECT_EQ(det, static_cast<gint>(stip::Detector::kHarris));
  EXPECT_EQ(hk, 0.04);
  EXPECT_EQ(hs, 1.5);
  // And back to the defaults by value.
  g_object_set(e, "flow-histogram", static_cast<gint>(stip::FlowHistogram::kPaper), "detector",
               static_cast<gint>(stip::Detector::kPeriodic), NULL);
  g_object_get(e, "flow-histogram", &flow, "detector", &det, NULL);
  EXPECT_EQ(flow, static_cast<gint>(stip::FlowHistogram::kPaper));
  EXPECT_EQ(det, static_cast<gint>(stip::Detector::kPeriodic));
  gst_object_unref(e);
}

// Warnings GLib logs while a bad value is set (the refusal), collected instead of printed.
struct LogCatcher {
  std::vector<std::string> lines;
  std::vector<guint> ids;
  LogCatcher() {
    for (const char* domain : {"GLib-GObject", "GStreamer"})
      ids.push_back(g_log_set_handler(
          domain,
          static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL |
                                      G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION),
          [](const gchar*, GLogLevelFlags, const gchar* msg, gpointer self) {
            static_cast<LogCatcher*>(self)->lines.push_back(msg ? msg : "");
          },
          this));
  }
  ~LogCatcher() {
    const char* domains[] = {"GLib-GObject", "GStreamer"};
    for (size_t i = 0; i < ids.size(); ++i)
      g_log_remove_handler(domains[i], ids[i]);
  }
  bool said(const std::string& what) const {
    for (const std::string& l : lines)
      if (l.find(what) != std::string::npos)
        return true;
    return false;
  }
};

TEST_F(ActionMatchElement, BadFrontEndValuesAreRefused) {
  GstElement* e = gst_element_factory_make("cudaactionmatch", nullptr);
  ASSERT_NE(e, nullptr);
  g_object_set(e, "speed-split", 3.0, "harris-k", 0.01, "harris-scale", 3.0, NULL);
  gst_util_set_object_arg(G_OBJECT(e), "flow-histogram", "speed");
  gst_util_set_object_arg(G_OBJECT(e), "detector", "harris");
  struct {
    const char* name;
    double bad;
  } doubles[] = {{"speed-split", stip::kMinSpeedSplit / 2},
                 {"speed-split", stip::kMaxSpeedSplit * 2},
                 {"harris-k", -0.001},
                 {"harris-k", 0.5},
                 {"harris-scale", 0.5},
                 {"harris-scale", 5.0}};
  for (const auto& c : doubles) {
    LogCatcher log;
    g_object_set(e, c.name, c.bad, NULL);
    // GObject refuses an out-of-range value with a warning naming the property; the previous
    // value stays (nothing is clamped silently).
    EXPECT_TRUE(log.said(c.name)) << c.name << " = " << c.bad;
    EXPECT_TRUE(log.said("out of range")) << c.name << " = " << c.bad;
  }
  gdouble split = 0, hk = 0, hs = 0;
  g_object_get(e, "speed-split", &split, "harris-k", &hk, "harris-scale", &hs, NULL);
  EXPECT_EQ(split, 3.0);
  EXPECT_EQ(hk, 0.01);
  EXPECT_EQ(hs, 3.0);
  // Unknown enum nicks: a launch line fails to parse, naming the property; set as a string on
  // the element, the previous value stays.
  for (const char* name : {"flow-histogram", "detector"}) {
    GError* err = nullptr;
    GstElement* parsed =
        gst_parse_launch((std::string("cudaactionmatch ") + name + "=bogus").c_str(), &err);
    ASSERT_NE(err, nullptr) << name;
    EXPECT_TRUE(g_error_matches(err, GST_PARSE_ERROR, GST_PARSE_ERROR_COULD_NOT_SET_PROPERTY))
        << err->message;
    EXPECT_NE(std::string(err->message).find(name), std::string::npos) << err->message;
    g_clear_error(&err);
    if (parsed)
      gst_object_unref(parsed);
    gst_util_set_object_arg(G_OBJECT(e), name, "bogus");
  }
  gint flow = -1, det = -1;
  g_object_get(e, "flow-histogram", &flow, "detector", &det, NULL);
  EXPECT_EQ(flow, static_cast<gint>(stip::FlowHistogram::kSpeed));
  EXPECT_EQ(det, static_cast<gint>(stip::Detector::kHarris));
  gst_object_unref(e);
}

// The caps configure the element: a setting the front end or the dictionary refuses with the
// stream's caps is an element error there (LIBRARY/SETTINGS, the library's message), posted once
// (the bus is set before the caps), and nothing flows.
std::string configure_error(const std::string& props, const stip::FrontEndParams& dict,
                            GError** out) {
  GstHarness* hs = gst_harness_new_parse(
      ("cudaactionmatch backend=cpu model-location=" + dictionary_path(dict) + " " + props).c_str());
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(hs->element, bus);
  gst_harness_set_caps_str(hs, caps(GST_VIDEO_FORMAT_GRAY8).c_str(),
                           caps(GST_VIDEO_FORMAT_GRAY8).c_str());
  EXPECT_NE(gst_harness_push(hs, buffer(Gray(kW * kH, 90), 0)), GST_FLOW_OK);
  GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  std::string text = "(no error)";
  if (m) {
    GError* err = nullptr;
    gst_message_parse_error(m, &err, nullptr);
    text = err->message;
    if (out)
      *out = err;
    else
      g_clear_error(&err);
    gst_message_unref(m);
  }
  EXPECT_EQ(gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR), nullptr) << "posted twice";
  gst_element_set_bus(hs->element, nullptr);
  gst_object_unref(bus);
  gst_harness_teardown(hs);
  return text;
}

TEST_F(ActionMatchElement, HarrisScaleTooLargeForSigmaIsAnElementError) {
  // harris-scale x sigma at most 8 (the kernels' tap tables): each property alone is in range;
  // the pair is judged at start, which fails with one settings error.
  GstElement* e = gst_parse_launch(("cudaactionmatch backend=cpu detector=harris harris-scale=3 "
                                    "sigma=3 model-location=" +
                                    dictionary_path())
                                       .c_str(),
                                   nullptr);
  ASSERT_NE(e, nullptr);
  GstBus* bus = gst_bus_new();
  gst_element_set_bus(e, bus);
  EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
  GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
  ASSERT_NE(m, nullptr);
  GError* err = nullptr;
  gst_message_parse_error(m, &err, nullptr);
  EXPECT_NE(std::string(err->message).find("harris-scale x sigma"), std::string::npos)
      << err->message;
  EXPECT_TRUE(g_error_matches(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS));
  g_clear_error(&err);
  gst_message_unref(m);
  gst_element_set_state(e, GST_STATE_NULL);
  gst_element_set_bus(e, nullptr);
  gst_object_unref(bus);
  gst_object_unref(e);
  // The same with the periodic detector: harris-scale is not used, nothing refused.
  GstHarness* hs = harness("harris-scale=3 sigma=3");
  EXPECT_EQ(gst_harness_push(hs, buffer(Gray(kW * kH, 90), 0)), GST_FLOW_OK);
  gst_harness_teardown(hs);
}

// The dictionary records its flow histogram and speed split (FORMAT.md version 2); an element set
// to another one refuses it with a settings error naming both (docs/elements/cudaactionmatch.md).
TEST_F(ActionMatchElement, DictionaryOfAnotherFlowHistogramIsRefused) {
  stip::FrontEndParams speed2;
  speed2.flow_histogram = stip::FlowHistogram::kSpeed;
  speed2.speed_split = 2.0;
  struct {
    const char* props;
    stip::FrontEndParams dict;
    const char* says;
  } cases[] = {
      {"flow-histogram=speed", stip::FrontEndParams(), "paper flow histogram"},
      {"", speed2, "speed flow histogram"},
      {"flow-histogram=speed speed-split=3", speed2, "speed split 3"},
  };
  for (const auto& c : cases) {
    GError* err = nullptr;
    const std::string text = configure_error(c.props, c.dict, &err);
    EXPECT_NE(text.find("dictionary"), std::string::npos) << c.props << ": " << text;
    EXPECT_NE(text.find(c.says), std::string::npos) << c.props << ": " << text;
    ASSERT_NE(err, nullptr) << c.props;
    EXPECT_TRUE(g_error_matches(err, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS)) << text;
    g_clear_error(&err);
  }
  // The matching settings are accepted.
  GstHarness* hs = harness("flow-histogram=speed speed-split=2", GST_VIDEO_FORMAT_GRAY8, speed2);
  EXPECT_EQ(gst_harness_push(hs, buffer(Gray(kW * kH, 90), 0)), GST_FLOW_OK);
  gst_harness_teardown(hs);
}

// With the front-end options, the element's blocks equal the library's computation with the same
// front end (dictionary and scene by it), bit for bit, as ActionMatchBlocks for the defaults.
struct OptionCase {
  const char* name;
  const char* props;
  stip::FrontEndParams fp;
};
OptionCase option_case(int i) {
  OptionCase c{"", "", stip::FrontEndParams()};
  if (i == 0) {
    c.name = "speed";
    c.props = "flow-histogram=speed speed-split=1.5";
    c.fp.flow_histogram = stip::FlowHistogram::kSpeed;
    c.fp.speed_split = 1.5;
  } else {
    c.name = "harris";
    // k = 0 (H = det mu): on these small clips Laptev's k = 0.005 leaves 5 to 12 points per
    // 70-frame clip, too few for a model window (measured); not the default, so an element that
    // ignored harris-k would differ from the library.
    c.props = "detector=harris tau=1.5 threshold=0 harris-k=0 harris-scale=2";
    c.fp.detector = stip::Detector::kHarris;
    c.fp.tau = 1.5;
    c.fp.threshold = 0;
    c.fp.harris_k = 0;
  }
  return c;
}

class ActionMatchOptionBlocks : public ::testing::TestWithParam<int> {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

TEST_P(ActionMatchOptionBlocks, EqualTheLibrarys) {
  const OptionCase c = option_case(GetParam());
  SCOPED_TRACE(c.name);
  al::Dictionary d;
  ASSERT_TRUE(al::load_dictionary(dictionary_path(c.fp), &d).ok());
  al::Dictionary want;
  al::describe(c.fp, &want);
  EXPECT_EQ(d.dim, want.dim);  // 234 with the speed split, 162 otherwise
  EXPECT_EQ(d.flow, c.fp.flow_histogram);
  // The clip boxing models 0 and 1 were cut from, then another subject's walking. On the own clip the block holding a model window matches its points (distance 0, so the
  // comparison covers matched points, not only dummies); with the 4 models of the test dictionary
  // another subject's blocks mostly match only dummies and report nothing (measured: 0 or 1 block),
  // which the element must reproduce as well.
  bool own = true;
  for (const std::vector<Gray>& frames : {clip(1, 0, 70, 100), clip(2, 5, 100, 905)}) {
    SCOPED_TRACE(own ? "own clip" : "another subject");
    const std::vector<Expected> exp = expected(frames, 30, 10, c.fp);
    if (own) {
      ASSERT_GE(exp.size(), 2u);
      size_t most = 0;
      for (const Expected& e : exp)
        most = std::max(most, e.pts.size());
      EXPECT_GE(most, 10u);
    }
    own = false;
    GstHarness* hs = harness(std::string("block-frames=30 overlap=10 ") + c.props,
                             GST_VIDEO_FORMAT_GRAY8, c.fp);
    guint64 outputs = 0;
    const std::vector<Got> got = run(hs, frames, true, GST_VIDEO_FORMAT_GRAY8, &outputs);
    EXPECT_EQ(outputs, frames.size());
    compare(got, exp, c.fp);
    gst_harness_teardown(hs);
  }
}
INSTANTIATE_TEST_SUITE_P(Options, ActionMatchOptionBlocks, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return std::string(option_case(i.param).name);
                         });

}  // namespace
