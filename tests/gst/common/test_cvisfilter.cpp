// GstCvisFilter contracts shared by every element (cpu suite): the one list of formats, no caps
// leaked by transform_caps (GStreamer's leaks tracer counts live GstCaps), and outputs that are
// other images (masks) not inheriting metadata computed from the input's pixels.
#include <gst/check/gstharness.h>
#include <gst/cvis/cvis.h>
#include <gst/cvis/cvisconfig.h>
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gstcvisutils.h"

namespace {

// The leaks tracer must be named before gst_init (static initialisation runs before main).
const bool kTracer = g_setenv("GST_TRACERS", "leaks(filters=GstCaps)", TRUE);

class CvisFilter : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    (void)kTracer;
    gst_init(nullptr, nullptr);
  }
};

std::vector<std::string> split_formats(const char* list) {
  std::vector<std::string> out;
  gchar** parts = g_strsplit(list, ",", -1);
  for (gchar** p = parts; *p; ++p)
    out.push_back(g_strstrip(*p));
  g_strfreev(parts);
  return out;
}

TEST_F(CvisFilter, OneListOfFormats) {
  const std::vector<std::string> sys = split_formats(GST_CVIS_SYS_FORMATS);
  const std::vector<std::string> cuda = split_formats(GST_CVIS_CUDA_FORMATS);
  EXPECT_EQ(sys.size(), 13u);
  for (const std::string& f : sys) {
    cvis::PixelFormat pf;
    EXPECT_TRUE(gst_cvis_pixel_format_from_video(gst_video_format_from_string(f.c_str()), &pf))
        << f;
  }
  for (const std::string& f : cuda) {
    EXPECT_NE(std::find(sys.begin(), sys.end(), f), sys.end()) << f;
    // GStreamer 1.22's CUDA allocator aborts on these.
    EXPECT_NE(f, "GRAY8");
    EXPECT_NE(f, "xRGB");
    EXPECT_NE(f, "xBGR");
  }
  // Every element's sink template is made of these lists.
  for (const char* name : {"cudacedd", "cudabgsub", "cudamedian3d"}) {
    GstElementFactory* fac = gst_element_factory_find(name);
    ASSERT_NE(fac, nullptr) << name;
    GstCaps* expect = gst_caps_from_string(
        (std::string("video/x-raw, format=(string){ ") + GST_CVIS_SYS_FORMATS +
         " }, width=(int)[1,max], height=(int)[1,max], framerate=(fraction)[0/1,max]")
            .c_str());
    GstElement* e = gst_element_factory_create(fac, nullptr);
    GstCaps* tmpl = gst_pad_get_pad_template_caps(gst_element_get_static_pad(e, "sink"));
    EXPECT_TRUE(gst_caps_is_subset(expect, tmpl)) << name;
    gst_caps_unref(tmpl);
    gst_caps_unref(expect);
    gst_object_unref(e);
    gst_object_unref(fac);
  }
}

GstTracer* leaks_tracer() {
  GList* tracers = gst_tracing_get_active_tracers();
  GstTracer* found = nullptr;
  for (GList* l = tracers; l; l = l->next) {
    if (!found && g_strcmp0(G_OBJECT_TYPE_NAME(l->data), "GstLeaksTracer") == 0)
      found = GST_TRACER(gst_object_ref(l->data));
  }
  g_list_free_full(tracers, gst_object_unref);
  return found;
}

guint live_caps(GstTracer* tracer) {
  GstStructure* info = nullptr;
  g_signal_emit_by_name(tracer, "get-live-objects", &info);
  guint n = 0;
  if (info) {
    n = gst_value_list_get_size(gst_structure_get_value(info, "live-objects-list"));
    gst_structure_free(info);
  }
  return n;
}

void query_both_pads(GstElement* e) {
  for (const char* name : {"src", "sink"}) {
    GstPad* pad = gst_element_get_static_pad(e, name);
    GstCaps* c = gst_pad_query_caps(pad, nullptr);
    gst_caps_unref(c);
    gst_object_unref(pad);
  }
}

// transform_caps (with every output kind) returns what it creates: no live GstCaps accumulate.
TEST_F(CvisFilter, TransformCapsLeaksNoCaps) {
  GstTracer* tracer = leaks_tracer();
  if (!tracer)
    GTEST_SKIP() << "GStreamer's leaks tracer (coretracers) is not available";
  for (const char* desc :
       {"cudamedian3d backend=cpu output=mask", "cudamedian3d backend=cpu output=background",
        "cudabgsub backend=cpu output=mask", "cudabgsub backend=cpu output=frame",
        "cudacedd backend=cpu"}) {
    GstElement* e = gst_parse_launch(desc, nullptr);
    ASSERT_NE(e, nullptr) << desc;
    query_both_pads(e); // caches (templates) settle
    const guint before = live_caps(tracer);
    for (int i = 0; i < 20; ++i)
      query_both_pads(e);
    EXPECT_EQ(live_caps(tracer), before) << desc;
    gst_object_unref(e);
  }
  gst_object_unref(tracer);
}

// A mask is another image: the frame's CEDD descriptor and foreground mask do not describe it;
// untagged metadata (a reference timestamp) follows as GstBaseTransform does.
TEST_F(CvisFilter, MaskOutputDoesNotInheritPixelMetadata) {
  GstHarness* hs = gst_harness_new_parse("cudabgsub backend=cpu output=mask num-samples=2");
  gst_harness_set_src_caps_str(hs, "video/x-raw,format=RGBA,width=16,height=8,framerate=30/1");
  GstCaps* ref = gst_caps_from_string("timestamp/x-test");
  GstBuffer* mask = gst_buffer_new_allocate(nullptr, 16 * 8, nullptr);
  for (int t = 0; t < 3; ++t) {
    GstBuffer* in = gst_buffer_new_allocate(nullptr, 16 * 8 * 4, nullptr);
    gst_buffer_memset(in, 0, static_cast<guint8>(40 * t), 16 * 8 * 4);
    GST_BUFFER_PTS(in) = t * GST_SECOND / 30;
    const GstCvisCeddRegion r = {GST_CVIS_CEDD_FRAME_ID, 0, 0, 16, 8};
    std::vector<guint8> levels(GST_CVIS_CEDD_BINS, 2);
    ASSERT_NE(gst_buffer_add_cvis_cedd_meta(in, 1, &r, levels.data()), nullptr);
    ASSERT_NE(gst_buffer_add_cvis_foreground_meta(in, mask, 16, 8, 16, 0.1, FALSE, 0), nullptr);
    gst_buffer_add_reference_timestamp_meta(in, ref, 500 + t, GST_CLOCK_TIME_NONE);
    ASSERT_EQ(gst_harness_push(hs, in), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(hs);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(gst_buffer_get_cvis_cedd_meta(out), nullptr) << t;
    EXPECT_EQ(gst_buffer_get_cvis_foreground_meta(out), nullptr) << t;
    GstReferenceTimestampMeta* m = gst_buffer_get_reference_timestamp_meta(out, ref);
    ASSERT_NE(m, nullptr) << t;
    EXPECT_EQ(m->timestamp, static_cast<guint64>(500 + t));
    gst_buffer_unref(out);
  }
  gst_buffer_unref(mask);
  gst_caps_unref(ref);
  gst_harness_teardown(hs);
}

} // namespace

// analytics-meta on every element: settable where the build has GStreamer >= 1.24's analytics
// library, refused (stays FALSE, with a warning) on 1.22 builds.
TEST(CvisFilterProps, AnalyticsMetaFollowsTheBuild) {
  gst_init(nullptr, nullptr);
  for (const char* name : {"cudacedd", "cudabgsub", "cudamedian3d", "cudaroioverlay"}) {
    GstElement* e = gst_element_factory_make(name, nullptr);
    ASSERT_NE(e, nullptr) << name;
    g_object_set(e, "analytics-meta", TRUE, NULL);
    gboolean on = FALSE;
    g_object_get(e, "analytics-meta", &on, NULL);
    EXPECT_EQ(on, GST_CVIS_HAVE_ANALYTICS ? TRUE : FALSE) << name;
    gst_object_unref(e);
  }
}
