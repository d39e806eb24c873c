// Several CUDA devices in one process (gpu suite). Pipelines
//   videotestsrc ! NV12 ! cudaupload cuda-device-id=D ! CHAIN ! fakesink
// run at the same time on devices 0 and 1: every element's context is on the device asked for and
// is the one its neighbours use, every buffer leaving an element (and every foreground mask it
// carries) is CUDA memory of that context, so no pipeline touches another device's memory, and
// the two devices give the same frames and metadata (the same kernels on the same input; two
// devices of one model), whose frames and frame descriptors also equal the CPU backend's (CEDD is
// exact). With cuda-device-id left at -1 the elements follow cudaupload's device, or take the
// context the application set on the pipeline. Tests needing two devices skip with "needs 2 CUDA
// devices, found N"; two pipelines on one device, a context set on the pipeline and an absent
// device id run on one GPU. With CVIS_REQUIRE_GPU=1 and no device, every test fails.
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cvis/cvisceddmeta.h>
#include <gst/cvis/cvisforegroundmeta.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "cuda_frame_io.hpp"
#include "test_images.hpp"

namespace {

// Frames per pipeline: cudamedian3d's motion detector reports its first regions at frame 31 of this
// input (its sample history fills first), cudabgsub (4 samples) at frame 4.
constexpr int kWidth = 192, kHeight = 144, kFrames = 40;

// Fails without a device when CVIS_REQUIRE_GPU=1 (as CVIS_REQUIRE_GPU() does), else skips below
// `n` devices; a GPU host without GStreamer's cudaupload (nvcodec) is skipped (failed if required).
#define REQUIRE_DEVICES(n)                                                                         \
  do {                                                                                             \
    const int have_ = cvis::cuda_device_count();                                                   \
    if (have_ == 0 && cvis::test::gpu_required())                                                  \
      FAIL() << "CVIS_REQUIRE_GPU=1 but no usable GPU";                                            \
    if (have_ < (n))                                                                               \
      GTEST_SKIP() << "needs " << (n) << " CUDA device" << ((n) > 1 ? "s" : "") << ", found "      \
                   << have_;                                                                       \
    if (!has_element("cudaupload")) {                                                              \
      if (cvis::test::gpu_required())                                                              \
        FAIL() << "no cudaupload (GStreamer's nvcodec plugin)";                                    \
      GTEST_SKIP() << "no cudaupload (GStreamer's nvcodec plugin)";                                \
    }                                                                                              \
  } while (0)

bool has_element(const char* name) {
  GstElementFactory* f = gst_element_factory_find(name);
  if (f)
    gst_object_unref(f);
  return f != nullptr;
}

// The chains under test: our elements, each named e0, e1, ... in the pipeline.
const std::vector<std::vector<std::string>>& chains() {
  static const std::vector<std::vector<std::string>> c = {
      {"cudabgsub output=frame num-samples=4", "cudacedd regions=both"},
      {"cudamedian3d output=frame", "cudarcdtrack init-roi-type=foreground",
       "cudacedd regions=both", "cudaroioverlay"},
  };
  return c;
}

bool has_overlay(const std::vector<std::string>& chain) {
  for (const std::string& e : chain)
    if (e.rfind("cudaroioverlay", 0) == 0)
      return true;
  return false;
}

// What leaves a pipeline, per frame.
struct Frame {
  std::vector<uint8_t> pixels;       // NV12, visible bytes
  std::vector<uint8_t> frame_levels; // CEDD of the whole frame
  std::vector<std::string> regions;  // ROI metas and ROI descriptors, sorted (ids left out)
};

// The device and context of every buffer (and foreground mask) leaving one element.
struct PadWatch {
  guint want_device = 0;
  std::mutex lock;
  std::vector<GstCudaContext*> contexts; // distinct, not referenced (compared only)
  int buffers = 0, not_cuda = 0, wrong_device = 0;
};

struct Run {
  GstElement* pipeline = nullptr;
  std::mutex lock;
  std::vector<Frame> frames;
  std::deque<PadWatch> watches; // one per element of the chain (stable addresses)
  std::vector<GstElement*> elements;
  GstElement* upload = nullptr;
};

std::string box(const char* type, int x, int y, int w, int h) {
  std::ostringstream s;
  s << type << " " << x << "," << y << " " << w << "x" << h;
  return s.str();
}

void note_memory(PadWatch* w, GstMemory* mem) {
  if (!gst_is_cuda_memory(mem)) {
    ++w->not_cuda;
    return;
  }
  GstCudaContext* ctx = GST_CUDA_MEMORY_CAST(mem)->context;
  guint device = 0;
  g_object_get(ctx, "cuda-device-id", &device, nullptr);
  w->wrong_device += device != w->want_device;
  if (std::find(w->contexts.begin(), w->contexts.end(), ctx) == w->contexts.end())
    w->contexts.push_back(ctx);
}

GstPadProbeReturn watch_buffer(GstPad*, GstPadProbeInfo* info, gpointer data) {
  PadWatch* w = static_cast<PadWatch*>(data);
  GstBuffer* buf = GST_PAD_PROBE_INFO_BUFFER(info);
  std::lock_guard<std::mutex> lk(w->lock);
  ++w->buffers;
  for (guint i = 0; i < gst_buffer_n_memory(buf); ++i)
    note_memory(w, gst_buffer_peek_memory(buf, i));
  GstCvisForegroundInfo fg;
  if (GstCustomMeta* m = gst_buffer_get_cvis_foreground_meta(buf))
    if (gst_cvis_foreground_meta_get(m, &fg) && fg.mask)
      for (guint i = 0; i < gst_buffer_n_memory(fg.mask); ++i)
        note_memory(w, gst_buffer_peek_memory(fg.mask, i));
  return GST_PAD_PROBE_OK;
}

GstPadProbeReturn keep_frame(GstPad*, GstPadProbeInfo* info, gpointer data) {
  Run* run = static_cast<Run*>(data);
  GstBuffer* buf = GST_PAD_PROBE_INFO_BUFFER(info);
  GstVideoInfo vi;
  gst_video_info_set_format(&vi, GST_VIDEO_FORMAT_NV12, kWidth, kHeight);
  Frame f;
  f.pixels = cvis_test::visible_bytes(buf, vi);
  if (GstCustomMeta* m = gst_buffer_get_cvis_cedd_meta(buf)) {
    for (guint i = 0; i < gst_cvis_cedd_meta_get_count(m); ++i) {
      GstCvisCeddEntry e;
      if (!gst_cvis_cedd_meta_get_entry(m, i, &e))
        continue;
      std::vector<uint8_t> levels(e.levels, e.levels + GST_CVIS_CEDD_BINS);
      if (e.roi_id == GST_CVIS_CEDD_FRAME_ID)
        f.frame_levels = levels;
      else
        f.regions.push_back(box("cedd", e.x, e.y, e.width, e.height) + " " +
                            std::string(levels.begin(), levels.end()));
    }
  }
  gpointer state = nullptr;
  while (GstMeta* m = gst_buffer_iterate_meta_filtered(
             buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
    auto* r = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
    f.regions.push_back(box(g_quark_to_string(r->roi_type), r->x, r->y, r->w, r->h));
  }
  std::sort(f.regions.begin(), f.regions.end());
  std::lock_guard<std::mutex> lk(run->lock);
  run->frames.push_back(std::move(f));
  return GST_PAD_PROBE_OK;
}

// ` cuda-device-id=D` (D >= 0) or nothing (-1: the element's default), with ` backend=B`.
std::string props(const char* backend, int device) {
  std::string p = std::string(" backend=") + backend;
  if (device >= 0)
    p += " cuda-device-id=" + std::to_string(device);
  return p;
}

// Builds (not started) the pipeline of `chain`: on `upload_device` through cudaupload with our
// elements on `element_device` (-1: their default), or, with upload_device < 0, the CPU backend on
// system memory.
std::unique_ptr<Run> build(const std::vector<std::string>& chain, int upload_device,
                           int element_device) {
  const bool cpu = upload_device < 0;
  std::string desc = "videotestsrc num-buffers=" + std::to_string(kFrames) +
                     " pattern=ball ! video/x-raw,format=NV12,width=" + std::to_string(kWidth) +
                     ",height=" + std::to_string(kHeight) + ",framerate=30/1 ! ";
  if (!cpu)
    desc += "cudaupload name=up cuda-device-id=" + std::to_string(upload_device) +
            " ! video/x-raw(memory:CUDAMemory) ! ";
  for (size_t i = 0; i < chain.size(); ++i)
    desc += chain[i] + " name=e" + std::to_string(i) +
            props(cpu ? "cpu" : "cuda", cpu ? -1 : element_device) + " ! ";
  desc += "fakesink name=sink sync=false";
  auto run = std::make_unique<Run>();
  GError* err = nullptr;
  run->pipeline = gst_parse_launch(desc.c_str(), &err);
  EXPECT_TRUE(run->pipeline) << desc << ": " << (err ? err->message : "");
  g_clear_error(&err);
  if (!run->pipeline)
    return run;
  const guint want = static_cast<guint>(upload_device < 0 ? 0 : upload_device);
  for (size_t i = 0; i < chain.size(); ++i) {
    GstElement* e = gst_bin_get_by_name(GST_BIN(run->pipeline), ("e" + std::to_string(i)).c_str());
    run->elements.push_back(e);
    run->watches.emplace_back();
    run->watches.back().want_device = want;
    if (!cpu) {
      GstPad* src = gst_element_get_static_pad(e, "src");
      gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, watch_buffer, &run->watches.back(),
                        nullptr);
      gst_object_unref(src);
    }
  }
  if (!cpu)
    run->upload = gst_bin_get_by_name(GST_BIN(run->pipeline), "up");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(run->pipeline), "sink");
  GstPad* pad = gst_element_get_static_pad(sink, "sink");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, keep_frame, run.get(), nullptr);
  gst_object_unref(pad);
  gst_object_unref(sink);
  return run;
}

// Plays every run at once until each has posted EOS (or an error: a test failure).
void play_all(const std::vector<Run*>& runs) {
  for (Run* r : runs)
    ASSERT_NE(gst_element_set_state(r->pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
  for (Run* r : runs) {
    GstBus* bus = gst_element_get_bus(r->pipeline);
    GstMessage* msg = gst_bus_timed_pop_filtered(
        bus, 120 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    ASSERT_NE(msg, nullptr) << "no EOS within 120 s";
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
      GError* err = nullptr;
      gchar* dbg = nullptr;
      gst_message_parse_error(msg, &err, &dbg);
      ADD_FAILURE() << GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)) << ": " << err->message << " ("
                    << (dbg ? dbg : "") << ")";
      g_clear_error(&err);
      g_free(dbg);
    }
    gst_message_unref(msg);
    gst_object_unref(bus);
  }
}

void stop(Run* r) {
  if (!r->pipeline)
    return;
  gst_element_set_state(r->pipeline, GST_STATE_NULL);
  for (GstElement* e : r->elements)
    gst_object_unref(e);
  if (r->upload)
    gst_object_unref(r->upload);
  gst_object_unref(r->pipeline);
  r->pipeline = nullptr;
}

// The CUDA context `e` answers a CONTEXT query with (a reference), or null.
GstCudaContext* context_of(GstElement* e) {
  GstQuery* q = gst_query_new_context(GST_CUDA_CONTEXT_TYPE);
  GstPad* pad = gst_element_get_static_pad(e, "sink");
  GstCudaContext* ctx = nullptr;
  if (gst_pad_query(pad, q)) {
    GstContext* c = nullptr;
    gst_query_parse_context(q, &c);
    if (c)
      gst_structure_get(gst_context_get_structure(c), GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT,
                        &ctx, nullptr);
  }
  gst_object_unref(pad);
  gst_query_unref(q);
  return ctx;
}

guint device_of(GstCudaContext* ctx) {
  guint d = 0;
  g_object_get(ctx, "cuda-device-id", &d, nullptr);
  return d;
}

// After EOS, before stop: cudaupload and every element hold one context, on `device`; every
// buffer they pushed was CUDA memory of that context. Returns the context (not referenced).
GstCudaContext* check_placement(Run* r, guint device, const std::string& what) {
  GstCudaContext* shared = context_of(r->upload);
  EXPECT_NE(shared, nullptr) << what << ": cudaupload has no context";
  if (!shared)
    return nullptr;
  EXPECT_EQ(device_of(shared), device) << what << ": cudaupload";
  for (size_t i = 0; i < r->elements.size(); ++i) {
    const std::string name = what + ", " + GST_OBJECT_NAME(r->elements[i]);
    GstCudaContext* ctx = context_of(r->elements[i]);
    EXPECT_EQ(ctx, shared) << name << ": not the context of its neighbours";
    if (ctx) {
      EXPECT_EQ(device_of(ctx), device) << name;
    }
    gst_clear_object(&ctx);
    PadWatch& w = r->watches[i];
    std::lock_guard<std::mutex> lk(w.lock);
    EXPECT_EQ(w.buffers, kFrames) << name;
    EXPECT_EQ(w.not_cuda, 0) << name << ": buffers or masks left CUDA memory";
    EXPECT_EQ(w.wrong_device, 0) << name << ": memory of another device";
    EXPECT_EQ(w.contexts, std::vector<GstCudaContext*>{shared}) << name << ": memory contexts";
  }
  GstCudaContext* out = shared;
  gst_object_unref(shared); // the pipeline keeps it alive until stop()
  return out;
}

// Frame by frame: everything equal (`all`), or only the pixels (unless the chain draws) and the
// frame descriptors (a GPU run against the CPU backend).
void expect_same(const Run& a, const Run& b, bool all, bool pixels, const std::string& what) {
  ASSERT_EQ(a.frames.size(), static_cast<size_t>(kFrames)) << what;
  ASSERT_EQ(b.frames.size(), static_cast<size_t>(kFrames)) << what;
  int differing = 0;
  for (int t = 0; t < kFrames && differing < 3; ++t) {
    const Frame &x = a.frames[t], &y = b.frames[t];
    const bool same = x.frame_levels == y.frame_levels && (!pixels || x.pixels == y.pixels) &&
                      (!all || x.regions == y.regions);
    if (!same) {
      ++differing;
      ADD_FAILURE() << what << ": frame " << t << " differs (frame descriptor "
                    << (x.frame_levels == y.frame_levels ? "same" : "differs") << ", pixels "
                    << (x.pixels == y.pixels ? "same" : "differ") << ", regions "
                    << x.regions.size() << " vs " << y.regions.size() << ")";
    }
    EXPECT_EQ(x.frame_levels.size(), static_cast<size_t>(GST_CVIS_CEDD_BINS)) << what << " " << t;
  }
}

size_t regions_seen(const Run& r) {
  size_t n = 0;
  for (const Frame& f : r.frames)
    n += f.regions.size();
  return n;
}

class MultiDevice : public ::testing::Test {
protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }

  // Each chain on devices a and b at the same time, compared with each other and with the CPU.
  void two_pipelines(int a, int b) {
    for (const auto& chain : chains()) {
      const std::string what = chain[0] + " chain";
      auto ra = build(chain, a, a), rb = build(chain, b, b), cpu = build(chain, -1, -1);
      ASSERT_TRUE(ra->pipeline && rb->pipeline && cpu->pipeline);
      play_all({ra.get(), rb.get(), cpu.get()});
      GstCudaContext* ca = check_placement(ra.get(), a, what + " on device " + std::to_string(a));
      GstCudaContext* cb = check_placement(rb.get(), b, what + " on device " + std::to_string(b));
      EXPECT_NE(ca, cb) << what << ": two pipelines share a context";
      EXPECT_GT(regions_seen(*ra), 0u) << what << ": nothing was found (the test needs regions)";
      expect_same(*ra, *rb, true, true,
                  what + ", device " + std::to_string(a) + " vs " + std::to_string(b));
      expect_same(*ra, *cpu, false, !has_overlay(chain), what + ", CUDA vs CPU backend");
      stop(ra.get());
      stop(rb.get());
      stop(cpu.get());
    }
  }
};

TEST_F(MultiDevice, PipelinesOnTwoDevicesAtOnce) {
  REQUIRE_DEVICES(2);
  two_pipelines(0, 1);
}

// The same machinery on one device: two pipelines, a context each, the same results.
TEST_F(MultiDevice, TwoPipelinesOnOneDevice) {
  REQUIRE_DEVICES(1);
  two_pipelines(0, 0);
}

// cuda-device-id -1: the elements move to the context of the CUDA memory they receive (device 1).
TEST_F(MultiDevice, ElementsFollowTheUploadersDevice) {
  REQUIRE_DEVICES(2);
  const auto& chain = chains()[1];
  auto r = build(chain, 1, -1), cpu = build(chain, -1, -1);
  ASSERT_TRUE(r->pipeline && cpu->pipeline);
  play_all({r.get(), cpu.get()});
  check_placement(r.get(), 1, "cuda-device-id -1 after cudaupload on device 1");
  expect_same(*r, *cpu, false, false, "cuda-device-id -1 on device 1 vs CPU backend");
  stop(r.get());
  stop(cpu.get());
}

// The application's way to place a pipeline: a GstCudaContext of the device set on the pipeline
// before it starts. Every element (cuda-device-id -1, cudaupload's matching) takes that context.
TEST_F(MultiDevice, ContextSetOnThePipeline) {
  REQUIRE_DEVICES(1);
  const int device = cvis::cuda_device_count() - 1; // the second device where there are two
  ASSERT_TRUE(gst_cuda_load_library());
  GstCudaContext* ctx = gst_cuda_context_new(static_cast<guint>(device));
  ASSERT_NE(ctx, nullptr);
  const auto& chain = chains()[1];
  auto r = build(chain, device, -1);
  ASSERT_TRUE(r->pipeline);
  GstContext* c = gst_context_new_cuda_context(ctx);
  gst_element_set_context(r->pipeline, c);
  gst_context_unref(c);
  play_all({r.get()});
  EXPECT_EQ(check_placement(r.get(), static_cast<guint>(device), "context set on the pipeline"),
            ctx);
  stop(r.get());
  gst_object_unref(ctx);
}

// A device id beyond the devices present: the element does not start, with an error message.
TEST_F(MultiDevice, AbsentDeviceIsAnError) {
  REQUIRE_DEVICES(1);
  const int absent = cvis::cuda_device_count();
  for (const char* factory :
       {"cudabgsub", "cudamedian3d", "cudacedd", "cudarcdtrack", "cudaroioverlay"}) {
    GstElement* e = gst_element_factory_make(factory, nullptr);
    ASSERT_NE(e, nullptr) << factory;
    gst_util_set_object_arg(G_OBJECT(e), "backend", "cuda");
    g_object_set(e, "cuda-device-id", absent, nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    EXPECT_EQ(gst_element_set_state(e, GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE)
        << factory << " started on absent device " << absent;
    GstMessage* msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    EXPECT_NE(msg, nullptr) << factory << ": no error message";
    if (msg)
      gst_message_unref(msg);
    gst_element_set_state(e, GST_STATE_NULL);
    gst_element_set_bus(e, nullptr);
    gst_object_unref(bus);
    gst_object_unref(e);
  }
}

} // namespace
