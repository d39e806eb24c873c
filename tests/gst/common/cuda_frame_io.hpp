// Video frames in and out of GStreamer CUDA memory for the gpu-suite element tests, through
// device copies of the visible bytes of each row only.
//
// Why not a CPU map: GStreamer 1.22's first CPU map of CUDA memory downloads the whole pitched
// allocation (rows of stride[0] bytes over every allocated row), so a test that writes a new pool
// buffer through a CPU map, or reads an element's output that way, copies device bytes nobody
// wrote (row padding, the unused half of I420 chroma rows): compute-sanitizer's initcheck reports
// each one. These helpers never touch a byte outside the image.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <vector>

namespace cvis_test {

// Copies the image of `src` into `dst` (either may be CUDA or system memory; both laid out as
// `info` with the strides of their video metas, or, without one, CUDA memory's own layout). Returns false when a map or copy fails.
bool copy_visible(GstBuffer* dst, GstBuffer* src, const GstVideoInfo& info);

// A buffer of `pool` (a GstCudaBufferPool) holding the image of `src` (system memory laid out as
// `info`), with src's timestamps, offsets and flags. Null (and a test failure) when it fails.
GstBuffer* cuda_copy_of(GstBufferPool* pool, GstBuffer* src, const GstVideoInfo& info);

// The visible bytes of every plane of `buf` (CUDA or system memory laid out as `info`), packed
// plane by plane, row by row. Empty when the buffer cannot be mapped.
std::vector<uint8_t> visible_bytes(GstBuffer* buf, const GstVideoInfo& info);

} // namespace cvis_test
