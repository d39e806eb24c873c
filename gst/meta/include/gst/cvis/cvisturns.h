/* GPU turns: first-come, first-served admission of the elements' per-frame GPU work, shared by
 * every pipeline of a process. */
#ifndef __GST_CVIS_TURNS_H__
#define __GST_CVIS_TURNS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GST_CVIS_GPU_TURNS_DEFAULT_SLOTS:
 *
 * The limit of a device nobody has set one for: 24 frames in work at once (on an H200, 16 to 32
 * slots kept the slowest of 40-48 streams within 4% of the mean, against 80% without a limit, at
 * 2-4% less aggregate throughput: docs/benchmarks.md).
 */
#define GST_CVIS_GPU_TURNS_DEFAULT_SLOTS 24

/**
 * gst_cvis_gpu_turns_set_slots:
 * @device: a CUDA device index (0 .. 15)
 * @slots: how many frames the cvis elements of this process may have in work on @device at once;
 *     0 for no limit (default: #GST_CVIS_GPU_TURNS_DEFAULT_SLOTS)
 *
 * With a limit, an element's frame (its GPU work and the wait for it) starts only when a slot is
 * free, and waiting frames get slots in the order they asked for one. Pipelines that share one
 * GPU then take turns on it at the same rate when the GPU is the bottleneck, instead of the
 * faster-scheduled threads getting more of it. A limit too low leaves the GPU idle; see
 * docs/benchmarks.md for measured values. May be called at any time: a raised limit or 0 admits
 * waiting frames at once. Devices outside 0 .. 15 are ignored.
 */
void gst_cvis_gpu_turns_set_slots (gint device, guint slots);

/**
 * gst_cvis_gpu_turns_get_slots:
 * @device: a CUDA device index
 *
 * Returns: the limit of @device (0: none; also 0 for devices outside 0 .. 15).
 */
guint gst_cvis_gpu_turns_get_slots (gint device);

/**
 * gst_cvis_gpu_turn_acquire: (skip)
 * @device: a CUDA device index
 *
 * Waits for a slot on @device (used by the elements around each frame's work).
 *
 * Returns: TRUE when a slot is held: give it back with gst_cvis_gpu_turn_release(); FALSE when
 *     @device has no limit (nothing to give back).
 */
gboolean gst_cvis_gpu_turn_acquire (gint device);

/**
 * gst_cvis_gpu_turn_release: (skip)
 * @device: the device of a successful gst_cvis_gpu_turn_acquire()
 *
 * Gives the slot to the frame that has waited longest, or frees it.
 */
void gst_cvis_gpu_turn_release (gint device);

G_END_DECLS

#endif /* __GST_CVIS_TURNS_H__ */
