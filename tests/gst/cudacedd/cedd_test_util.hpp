// Helpers for the cudacedd element tests: frames in any format, the library's own result for a
// frame, and a bus to collect what the element posts.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/cvis/cvis.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cedd/cedd.hpp"

namespace cedd_test {

// A system-memory frame of `format` filled from `seed` (packed RGB and GRAY8 from a structured
// pattern, YUV planes with random smooth data), with GstVideoMeta.
GstBuffer* make_frame(GstVideoFormat format, int width, int height, guint32 seed);

// The descriptors the CEDD library (CPU reference) computes for `regions` of a system-memory `buf`
// (nullptr: whole frame).
std::vector<cvis::cedd::Levels> library_levels(GstBuffer* buf, GstVideoFormat format, int width,
                                               int height,
                                               const std::vector<cvis::cedd::Region>* regions);

std::string caps_string(GstVideoFormat format, int width, int height, bool cuda = false);

// Levels of entry `roi_id` in the buffer's CEDD meta (empty when absent).
std::vector<guint8> meta_levels(GstBuffer* buf, gint roi_id);

// Runs `launch` (a gst-launch description) to EOS or error; returns the error message (empty when
// none) and collects element messages named `collect`.
std::string run_pipeline(const std::string& launch, const char* collect,
                         std::vector<GstStructure*>* messages, int timeout_s = 60);

bool has_plugin_feature(const char* name);
bool gpu_available();

}  // namespace cedd_test
