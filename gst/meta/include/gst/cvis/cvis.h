/* gst-cuda-vision metadata library (libgstcvis-1.0): umbrella header. */
#ifndef __GST_CVIS_H__
#define __GST_CVIS_H__

#include <gst/cvis/cvisactionmeta.h>
#include <gst/cvis/cvisanalytics.h>
#include <gst/cvis/cvisceddmeta.h>
#include <gst/cvis/cvisforegroundmeta.h>
#include <gst/cvis/cvisroi.h>
#include <gst/cvis/cvisturns.h>

#endif /* __GST_CVIS_H__ */
