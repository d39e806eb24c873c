// Property and error contracts of every element (cpu suite, backend=cpu):
// - an error found at caps or start time is posted once and the pipeline ends (each case 50
//   times: the failures it replaces were intermittent);
// - pad templates admit only the sizes the algorithms take;
// - settings valid only together are accepted in any order of setting, refused as a whole at start;
// - settings that only apply in NULL / READY are refused while playing, with a warning;
// - settings the current mode ignores are named in one warning at start;
// - out of memory is reported as such, with what it was for.
#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "../cudaactionmatch/actionmatch_elem_util.hpp"
#include "contracts_util.hpp"

namespace {

using contracts::Outcome;
using contracts::run_pipeline;
using contracts::WarningCapture;

class Contracts : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

const char* kSrc = "videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,width=64,height=48 ! ";

// The cases, 50 runs each: one error from the element, and the run ends.
void expect_one_error_each_time(const std::string& desc, const char* element, const char* word) {
  for (int i = 0; i < 50; ++i) {
    const Outcome o = run_pipeline(desc, element);
    ASSERT_TRUE(o.parsed) << desc << ": " << o.parse_error;
    ASSERT_TRUE(o.start_failed || o.ended) << "run " << i << " did not end: " << desc;
    ASSERT_EQ(o.errors_from, 1) << "run " << i << ": " << desc << " (" << o.first_error << ")";
    ASSERT_NE(o.first_error.find(word), std::string::npos) << o.first_error;
  }
}

TEST_F(Contracts, RoiOutsideTheFixedUpstreamSizeFailsTheStartOnce) {
  expect_one_error_each_time(std::string(kSrc) + "cudarcdtrack name=e backend=cpu "
                                                 "roi=100,100,10,10 ! fakesink",
                             "e", "roi box 1");
  // An error at start fails the state change itself: the application sees it synchronously.
  const Outcome o = run_pipeline(std::string(kSrc) + "cudarcdtrack name=e backend=cpu "
                                                     "roi=100,100,10,10 ! fakesink",
                                 "e");
  EXPECT_TRUE(o.start_failed);
}

TEST_F(Contracts, RoiOutsideTheNegotiatedSizeIsPostedOnce) {
  // Upstream leaves the width open at start: the caps event fails, and GstBaseTransform retries
  // it with every buffer; one error all the same.
  expect_one_error_each_time("videotestsrc num-buffers=5 ! video/x-raw,format=RGBA,"
                             "width=[32,64],height=48 ! cudarcdtrack name=e backend=cpu "
                             "roi=100,100,10,10 ! fakesink",
                             "e", "roi box 1");
}

TEST_F(Contracts, OverlapNotBelowBlockFramesFailsTheStartOnce) {
  expect_one_error_each_time(
      "videotestsrc num-buffers=5 ! video/x-raw,format=GRAY8,width=64,height=48 ! "
      "cudaactionmatch name=e backend=cpu model-location=" +
          am_elem::dictionary_path() + " block-frames=20 overlap=20 ! fakesink",
      "e", "overlap 20");
}

TEST_F(Contracts, InvalidPairFailsTheStartOnce) {
  for (int i = 0; i < 50; ++i) {
    const Outcome o = run_pipeline(std::string(kSrc) + "cudabgsub name=e backend=cpu "
                                                       "sigma-min=60 sigma-max=50 ! fakesink",
                                   "e");
    ASSERT_TRUE(o.start_failed) << i;
    ASSERT_EQ(o.errors_from, 1) << i;
    EXPECT_EQ(o.domain, GST_LIBRARY_ERROR);
    EXPECT_EQ(o.code, GST_LIBRARY_ERROR_SETTINGS);
    EXPECT_NE(o.first_error.find("sigma-min 60 is above sigma-max 50"), std::string::npos)
        << o.first_error;
  }
}

// Item 2: frames under 8 pixels are refused by the templates: a pipeline of fixed 4x4 caps does
// not link, and one that leaves the size open negotiates a size the element takes.
TEST_F(Contracts, TemplatesAdmitOnlyTheSizesTheAlgorithmsTake) {
  for (const char* name : {"cudarcdtrack", "cudaactionmatch"}) {
    GstElement* e = gst_element_factory_make(name, nullptr);
    ASSERT_NE(e, nullptr);
    for (const char* pad : {"sink", "src"}) {
      GstPad* p = gst_element_get_static_pad(e, pad);
      GstCaps* tmpl = gst_pad_get_pad_template_caps(p);
      for (guint i = 0; i < gst_caps_get_size(tmpl); ++i) {
        const GstStructure* s = gst_caps_get_structure(tmpl, i);
        for (const char* field : {"width", "height"}) {
          const GValue* v = gst_structure_get_value(s, field);
          ASSERT_TRUE(GST_VALUE_HOLDS_INT_RANGE(v)) << name;
          EXPECT_EQ(gst_value_get_int_range_min(v), 8) << name << " " << pad << " " << field;
          EXPECT_EQ(gst_value_get_int_range_max(v), 16384) << name << " " << pad << " " << field;
        }
      }
      gst_caps_unref(tmpl);
      gst_object_unref(p);
    }
    gst_object_unref(e);
  }
  const Outcome small =
      run_pipeline("videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=4,height=4 ! "
                   "cudarcdtrack name=e backend=cpu ! fakesink",
                   "e");
  EXPECT_FALSE(small.parsed);
  EXPECT_NE(small.parse_error.find("could not link"), std::string::npos) << small.parse_error;
  const Outcome open = run_pipeline("videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,"
                                    "width=[1,8],height=[1,8] ! cudarcdtrack name=e backend=cpu "
                                    "! fakesink",
                                    "e");
  EXPECT_TRUE(open.eos) << open.first_error;
  EXPECT_EQ(open.errors, 0) << open.first_error;
}

// Item 3: each pair, set in both orders before start, is kept as set and runs.
struct Pair {
  const char* element;
  const char* extra;
  const char* a;
  double va;
  const char* b;
  double vb;
};

double get_number(GstElement* e, const char* prop) {
  GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), prop);
  GValue v = G_VALUE_INIT;
  g_value_init(&v, ps->value_type);
  g_object_get_property(G_OBJECT(e), prop, &v);
  GValue d = G_VALUE_INIT;
  g_value_init(&d, G_TYPE_DOUBLE);
  g_value_transform(&v, &d);
  const double out = g_value_get_double(&d);
  g_value_unset(&v);
  return out;
}

TEST_F(Contracts, PairsAreAcceptedInAnyOrder) {
  const Pair pairs[] = {
      {"cudabgsub", "num-samples=4", "sigma-min", 50, "sigma-max", 60},
      {"cudabgsub", "num-samples=4", "shadow-low", 0.8, "shadow-high", 0.9},
      {"cudarcdtrack", "roi=8,8,16,16", "scale-min", 3, "scale-max", 4},
      {"cudamedian3d", "", "tau-min", 60, "tau-max", 100},
  };
  for (const Pair& p : pairs) {
    for (bool a_first : {true, false}) {
      char props[160];
      if (a_first)
        g_snprintf(props, sizeof props, "%s=%g %s=%g", p.a, p.va, p.b, p.vb);
      else
        g_snprintf(props, sizeof props, "%s=%g %s=%g", p.b, p.vb, p.a, p.va);
      const std::string desc = std::string(kSrc) + p.element + " name=e backend=cpu " + p.extra +
                               " " + props + " ! fakesink";
      GstElement* pipeline = gst_parse_launch(desc.c_str(), nullptr);
      ASSERT_NE(pipeline, nullptr) << desc;
      GstElement* e = gst_bin_get_by_name(GST_BIN(pipeline), "e");
      EXPECT_FLOAT_EQ(get_number(e, p.a), p.va) << desc;
      EXPECT_FLOAT_EQ(get_number(e, p.b), p.vb) << desc;
      gst_object_unref(e);
      gst_object_unref(pipeline);
      const Outcome o = run_pipeline(desc, "e");
      EXPECT_TRUE(o.eos && o.errors == 0) << desc << ": " << o.first_error;
    }
  }
}

// A pipeline in PLAYING (live source: it stays there) with the element named e.
struct Playing {
  explicit Playing(const std::string& element_desc) {
    pipeline = gst_parse_launch(("videotestsrc is-live=true ! video/x-raw,format=RGBA,width=64,"
                                 "height=48,framerate=30/1 ! " +
                                 element_desc + " name=e ! fakesink")
                                    .c_str(),
                                nullptr);
    e = gst_bin_get_by_name(GST_BIN(pipeline), "e");
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    gst_element_get_state(pipeline, nullptr, nullptr, 10 * GST_SECOND);
  }
  ~Playing() {
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(e);
    gst_object_unref(pipeline);
  }
  GstElement* pipeline;
  GstElement* e;
};

std::string get_string(GstElement* e, const char* prop) {
  GParamSpec* ps = g_object_class_find_property(G_OBJECT_GET_CLASS(e), prop);
  GValue v = G_VALUE_INIT;
  g_value_init(&v, ps->value_type);
  g_object_get_property(G_OBJECT(e), prop, &v);
  gchar* s = gst_value_serialize(&v);
  std::string out = s ? s : "";
  g_free(s);
  g_value_unset(&v);
  return out;
}

// Item 3 while running: a value that breaks a pair is refused with a warning, the pair stays.
TEST_F(Contracts, InvalidPairWhilePlayingIsRefusedWithAWarning) {
  Playing p("cudabgsub backend=cpu num-samples=4 sigma-min=10 sigma-max=20");
  WarningCapture w;
  g_object_set(p.e, "sigma-min", 30.0f, nullptr);
  EXPECT_FLOAT_EQ(get_number(p.e, "sigma-min"), 10);
  EXPECT_EQ(w.count("sigma-min"), 1);
  g_object_set(p.e, "sigma-max", 40.0f, "sigma-min", 30.0f, nullptr); // the valid order
  EXPECT_FLOAT_EQ(get_number(p.e, "sigma-min"), 30);
  EXPECT_FLOAT_EQ(get_number(p.e, "sigma-max"), 40);
}

// Item 4: every element refuses, with a warning, a setting that only applies in NULL / READY.
TEST_F(Contracts, ReadyOnlySettingsAreRefusedWhilePlaying) {
  struct Case {
    const char* element;
    const char* prop;
    const char* value;
  };
  const std::string index =
      std::string(g_get_tmp_dir()) + "/cvis-contracts-" + std::to_string(getpid()) + ".db";
  const Case cases[] = {
      {"cudabgsub backend=cpu num-samples=4 output=frame", "output", "mask"},
      {"cudacedd backend=cpu", "index-location", index.c_str()},
      {"cudacedd backend=cpu", "backend", "cuda"},
      {"cudamedian3d backend=cpu", "bins", "64"},
      {"cudarcdtrack backend=cpu", "roi", "1,1,8,8"},
      {"cudaroioverlay backend=cpu", "cuda-device-id", "3"},
  };
  for (const Case& c : cases) {
    Playing p(c.element);
    ASSERT_EQ(GST_STATE(p.pipeline), GST_STATE_PLAYING) << c.element;
    const std::string before = get_string(p.e, c.prop);
    WarningCapture w;
    gst_util_set_object_arg(G_OBJECT(p.e), c.prop, c.value);
    EXPECT_EQ(get_string(p.e, c.prop), before) << c.element << " " << c.prop;
    EXPECT_EQ(w.count(std::string("'") + c.prop + "' can only be changed in the NULL or READY"), 1)
        << c.element << " " << c.prop;
  }
  std::remove(index.c_str());
}

// Item 5: what the mode ignores is named once, at start; nothing when the mode uses it.
TEST_F(Contracts, SettingsTheModeIgnoresAreNamedOnce) {
  {
    WarningCapture w;
    const Outcome o = run_pipeline(std::string(kSrc) + "cudamedian3d name=e backend=cpu bins=64 "
                                                       "window=causal ! fakesink",
                                   "e");
    EXPECT_TRUE(o.eos) << o.first_error;
    const std::vector<std::string> msgs = w.take();
    int ignored = 0;
    for (const std::string& m : msgs) {
      if (m.find("ignored with mode=motion") == std::string::npos)
        continue;
      ignored++;
      EXPECT_NE(m.find("bins"), std::string::npos) << m;
      EXPECT_NE(m.find("window"), std::string::npos) << m;
    }
    EXPECT_EQ(ignored, 1);
  }
  WarningCapture w;
  const Outcome o = run_pipeline(std::string(kSrc) + "cudamedian3d name=e backend=cpu mode=paper "
                                                     "bins=64 window=causal ! fakesink",
                                 "e");
  EXPECT_TRUE(o.eos) << o.first_error;
  EXPECT_EQ(w.count("ignored"), 0);
  const Outcome m = run_pipeline(std::string(kSrc) + "cudamedian3d name=e backend=cpu mode=paper "
                                                     "history=9 ! fakesink",
                                 "e");
  EXPECT_TRUE(m.eos) << m.first_error;
  EXPECT_EQ(w.count("ignored with mode=paper (they apply to mode=motion): history"), 1);
}

// Item 6: host memory running out (an address-space limit in a child process) is an out-of-memory
// error naming what it was for, not a CUDA failure.
#if defined(__SANITIZE_ADDRESS__)
#define CVIS_NO_ADDRESS_LIMIT 1 // AddressSanitizer reserves terabytes of address space
#endif
TEST_F(Contracts, OutOfHostMemoryIsReportedAsSuch) {
#ifdef CVIS_NO_ADDRESS_LIMIT
  GTEST_SKIP() << "address-space limits do not work under AddressSanitizer";
#else
  if (const char* emu = std::getenv("CVIS_TEST_EMULATOR"))
    GTEST_SKIP() << "under " << emu << ": an address-space limit would apply to the emulator";
  if (std::getenv("CVIS_CONTRACTS_OOM_CHILD")) {
    // 1920x1080 with 64 samples of 4 bytes a pixel: about 530 MB for the samples alone.
    const Outcome o = run_pipeline("videotestsrc num-buffers=2 ! video/x-raw,format=RGBA,"
                                   "width=1920,height=1080 ! cudabgsub name=e backend=cpu "
                                   "num-samples=64 ! fakesink",
                                   "e");
    ASSERT_EQ(o.errors_from, 1) << o.first_error;
    EXPECT_EQ(o.domain, GST_RESOURCE_ERROR);
    EXPECT_EQ(o.code, GST_RESOURCE_ERROR_NO_SPACE_LEFT);
    EXPECT_EQ(o.first_error.rfind("Out of memory", 0), 0u) << o.first_error;
    EXPECT_NE(o.first_error.find("cpu backend, 1920x1080 RGBA frames"), std::string::npos)
        << o.first_error;
    return;
  }
  // The child re-runs this test alone under the limit (GLib's threads do not survive a fork).
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    struct rlimit lim;
    getrlimit(RLIMIT_AS, &lim);
    lim.rlim_cur = 400ull << 20;
    setrlimit(RLIMIT_AS, &lim);
    setenv("CVIS_CONTRACTS_OOM_CHILD", "1", 1);
    execl("/proc/self/exe", "test_contracts",
          "--gtest_filter=Contracts.OutOfHostMemoryIsReportedAsSuch", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child crashed (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the child's output above";
#endif
}

} // namespace
