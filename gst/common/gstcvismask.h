/* GRAY8 foreground masks, shared by the segmentation elements (cudabgsub, cudamedian3d): the caps of
 * a mask output, the pools (side masks referenced by GstCvisForegroundMeta; CUDA-memory mask
 * outputs), attaching the meta and the blob boxes. Masks are 0 (background) / 255 (foreground),
 * the frame's size. */
#pragma once

#include <gst/cvis/cvisforegroundmeta.h>

#include <vector>

#include "gstcvisfilter.h"

/* transform_caps of an element whose output is the GRAY8 mask of its input (output=mask).
 * Towards the source pad: GRAY8 in system memory, and also in CUDA memory for CUDA input when
 * `cuda_masks`. Towards the sink pad: any format the sink template has; a CUDA mask only from CUDA
 * input. CUDA structures are removed with the CPU backend; `filter` applies last. */
GstCaps *gst_cvis_mask_transform_caps (GstCvisFilter * self, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter, gboolean cuda_masks);

/* The masks of one element instance (streaming thread and state changes only). */
struct GstCvisMasks {
  GstVideoInfo info;                    /* GRAY8, the frame's size (after configure) */
  GstBufferPool *pool = nullptr;        /* side masks: the foreground meta's (output=frame) */
  gboolean cuda = FALSE;                /* `pool` holds CUDA memory (CUDA backend, CUDA input) */
  GstBufferPool *out_pool = nullptr;    /* output=mask in CUDA memory (decide_allocation) */
};

/* For `width` x `height` frames: drops the pools, then creates the side-mask pool when
 * `side_masks` (in the input's memory kind). Call from configure. */
cvis::Status gst_cvis_masks_configure (GstCvisMasks * masks, GstCvisFilter * self, gint width,
    gint height, gboolean side_masks);
/* Deactivates and drops both pools (release, finalize). */
void gst_cvis_masks_clear (GstCvisMasks * masks);

/* A side mask from the pool, mapped by the caller with gst_cvis_filter_map_frame (GstCvisFrame)
 * and `masks->info`. kOutOfMemory (or OK with *flow FLUSHING) when none can be had. */
cvis::Status gst_cvis_masks_acquire (GstCvisMasks * masks, GstBuffer ** mask, GstFlowReturn * flow);
/* Gives `mask` (the reference is taken) `frame`'s timestamps and attaches the foreground meta
 * referencing it to `frame` (writable): `stride` its row pitch, `fraction` the foreground share
 * (clamped to 0..1), `boxes` the number of foreground boxes attached. NULL on failure. */
GstCustomMeta *gst_cvis_masks_attach (GstCvisMasks * masks, GstBuffer * frame, GstBuffer * mask,
    gint stride, gdouble fraction, guint boxes);

/* decide_allocation for a mask output: with CUDA caps the output pool is GRAY8-as-NV12 on our
 * context (GstCudaBufferPool cannot be configured with GRAY8 in 1.22) and *handled is TRUE (the
 * query is answered); otherwise *handled is FALSE and the caller chains up. */
gboolean gst_cvis_masks_decide_allocation (GstCvisMasks * masks, GstCvisFilter * self,
    GstQuery * query, gboolean * handled);
/* prepare_output_buffer for a mask output with `masks->out_pool` (else chain up): a GRAY8 buffer
 * with the input's timestamps, flags and metadata (copy_metadata). */
GstFlowReturn gst_cvis_masks_prepare_output_buffer (GstCvisMasks * masks, GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf);

/* Blob boxes: one GstVideoRegionOfInterestMeta of roi_type "foreground" per blob, ids 0..n-1 in
 * the order given, with the blob's area (gst_buffer_add_cvis_foreground_box). `Blob` has x, y,
 * area and w/h or width/height. Returns the number of boxes. */
namespace gst_cvis_detail {
template <typename B>
auto blob_w (const B & b, int) -> decltype (b.width) { return b.width; }
template <typename B>
auto blob_w (const B & b, long) -> decltype (b.w) { return b.w; }
template <typename B>
auto blob_h (const B & b, int) -> decltype (b.height) { return b.height; }
template <typename B>
auto blob_h (const B & b, long) -> decltype (b.h) { return b.h; }
}  // namespace gst_cvis_detail

template <typename Blob>
guint
gst_cvis_add_foreground_boxes (GstBuffer * buf, const std::vector<Blob> & blobs)
{
  guint id = 0;
  for (const Blob & b : blobs) {
    gst_buffer_add_cvis_foreground_box (buf, (guint) b.x, (guint) b.y,
        (guint) gst_cvis_detail::blob_w (b, 0), (guint) gst_cvis_detail::blob_h (b, 0), (gint) id,
        (guint) b.area);
    id++;
  }
  return id;
}
