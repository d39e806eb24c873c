// Every element of the plugin on a machine without a usable CUDA device (CI, the aarch64 build
// under qemu-user, a Jetson without a driver): the plugin loads, and backend=auto falls back to the
// CPU backend and runs a stream to EOS without an error. Skipped where a GPU is usable (auto then
// picks CUDA; the gpu suite covers that).
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include <unistd.h>
#include <vector>

#include "actionlearn.hpp"
#include "test_images.hpp"

namespace {

// The plugin's elements; `with_backend`: only those with a `backend` property (the GPU ones, not
// cvisstore).
std::vector<std::string> plugin_elements(bool with_backend = false) {
  std::vector<std::string> names;
  GList* features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "cudavision");
  for (GList* l = features; l; l = l->next) {
    if (!GST_IS_ELEMENT_FACTORY(l->data)) continue;
    if (with_backend) {
      GstElement* e = gst_element_factory_create(GST_ELEMENT_FACTORY(l->data), nullptr);
      const bool has = e && g_object_class_find_property(G_OBJECT_GET_CLASS(e), "backend");
      if (e) gst_object_unref(e);
      if (!has) continue;
    }
    names.push_back(gst_plugin_feature_get_name(l->data));
  }
  gst_plugin_feature_list_free(features);
  return names;
}

class BackendFallback : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { gst_init(nullptr, nullptr); }
};

TEST_F(BackendFallback, PluginLoadsWithItsElements) {
  std::vector<std::string> names = plugin_elements();
  // The three elements available when this test was written; more may follow.
  for (const char* e : {"cudacedd", "cudabgsub", "cudamedian3d"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), e), names.end()) << e << " not registered";
  }
}

// What an element needs besides the stream: cudaactionmatch reads luma and a dictionary (one
// three-node model, written here).
std::string element_args(const std::string& e, std::string* format) {
  *format = "RGBA";
  if (e != "cudaactionmatch")
    return "";
  namespace al = cvis::actionlearn;
  static struct Temp {
    std::string path;
    ~Temp() { std::remove(path.c_str()); }
  } temp;
  std::string& path = temp.path;
  if (path.empty()) {
    al::Dictionary d;
    cvis::actionmatch::Model m;
    m.label = "wave";
    std::vector<float> desc(d.dim, 0.1f);
    for (int n = 0; n < 3; ++n)
      m.graph.add(n, 10.0f + n, 12.0f, desc.data());
    d.models.push_back(m);
    path = std::string(g_get_tmp_dir()) + "/cvis-fallback-" + std::to_string(getpid()) + ".cvad";
    EXPECT_TRUE(al::save_dictionary(path, d).ok());
  }
  *format = "GRAY8";
  return " model-location=" + path;
}

TEST_F(BackendFallback, AutoRunsOnTheCpuWithoutAGpu) {
  if (cvis::test::gpu_available()) GTEST_SKIP() << "a GPU is usable: auto picks CUDA";
  std::vector<std::string> names = plugin_elements(true);
  ASSERT_FALSE(names.empty());
  for (const std::string& e : names) {
    SCOPED_TRACE(e);
    std::string format;
    const std::string args = element_args(e, &format);
    std::string launch = "videotestsrc num-buffers=6 pattern=ball ! video/x-raw,format=" + format +
                         ",width=48,height=36 ! " + e + " backend=auto name=under_test" + args +
                         " ! fakesink";
    GError* perr = nullptr;
    GstElement* pipe = gst_parse_launch(launch.c_str(), &perr);
    ASSERT_NE(pipe, nullptr) << (perr ? perr->message : "");
    g_clear_error(&perr);
    ASSERT_NE(gst_element_set_state(pipe, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
    GstBus* bus = gst_element_get_bus(pipe);
    GstMessage* msg = gst_bus_timed_pop_filtered(
        bus, 60 * GST_SECOND, static_cast<GstMessageType>(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    ASSERT_NE(msg, nullptr) << "no EOS within 60 s";
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
      GError* err = nullptr;
      gst_message_parse_error(msg, &err, nullptr);
      ADD_FAILURE() << "error: " << (err ? err->message : "?");
      g_clear_error(&err);
    }
    gst_message_unref(msg);
    gst_object_unref(bus);
    gst_element_set_state(pipe, GST_STATE_NULL);
    gst_object_unref(pipe);
  }
}

}  // namespace
