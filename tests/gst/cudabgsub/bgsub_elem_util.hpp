// Helpers for the cudabgsub element tests: generated frames as GstBuffers, the library's own
// results for them, and readers for the element's metadata.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/cvis/cvis.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bgsub/bgsub.hpp"
#include "synth_sequence.hpp"

namespace bgsub_elem {

// Frame t of a small generated sequence (moving objects from frame `first_object`), as a
// system-memory buffer of `format` (packed RGB formats, GRAY8 as luma) with a GstVideoMeta.
struct Sequence {
  Sequence(int w, int h, int frames, int first_object, uint32_t seed);
  GstBuffer* buffer(int t, GstVideoFormat format) const;
  // The same frame as a host image the library reads (same bytes as buffer()).
  cvis::test::HostImage image(int t, GstVideoFormat format) const;
  int width, height;
  cvis::test::SyntheticSequence seq;
};

std::string caps_string(GstVideoFormat format, int width, int height, bool cuda = false);

// The library's masks (width*height each) and results for frames 0..n-1 of `seq`.
struct Expected {
  std::vector<std::vector<uint8_t>> masks;
  std::vector<cvis::bgsub::FrameResult> results;
};
Expected library_run(const Sequence& seq, GstVideoFormat format, int n,
                     const cvis::bgsub::Params& params);

// width*height bytes of a GRAY8 buffer (any memory; mapped through its video meta).
std::vector<uint8_t> read_mask(GstBuffer* buf, int width, int height);

// ROI metas of roi_type "foreground", by id 0..n-1 (stops at the first missing id).
std::vector<cvis::bgsub::Blob> read_blobs(GstBuffer* buf);

// Applies `max_blobs` the way the element does (largest first, then raster order).
std::vector<cvis::bgsub::Blob> limit_blobs(const std::vector<cvis::bgsub::Blob>& b, size_t max);

// Params matching "num-samples=8 kernel=<k>" and the other element defaults.
cvis::bgsub::Params small_params(cvis::bgsub::Kernel k);
std::string small_props(cvis::bgsub::Kernel k);

bool has_feature(const char* name);

} // namespace bgsub_elem
