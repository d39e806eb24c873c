/* The cudavision plugin: registers every gst-cuda-vision element on every machine. Elements
 * without a usable GPU run their CPU reference (backend=auto) or fail cleanly at start
 * (backend=cuda); registration itself never depends on a GPU, so the registry stays right when it
 * is built on a GPU-less machine. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvis.h>
#include <gst/gst.h>

#include "gstcudaactionmatch.h"
#include "gstcudabgsub.h"
#include "gstcudacedd.h"
#include "gstcudamedian3d.h"
#include "gstcudarcdtrack.h"
#include "gstcudaroioverlay.h"
#include "gstcvisstore.h"
#include "gstcvisfilter.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gst_cvis_filter_plugin_init ();
  gst_cvis_cedd_meta_get_info ();
  gst_cvis_foreground_meta_get_info ();
  gst_cvis_action_meta_get_info ();

  gboolean ok = TRUE;
  ok &= gst_element_register (plugin, "cudacedd", GST_RANK_NONE, GST_TYPE_CUDA_CEDD);
  ok &= gst_element_register (plugin, "cudabgsub", GST_RANK_NONE, GST_TYPE_CUDA_BG_SUB);
  ok &= gst_element_register (plugin, "cudamedian3d", GST_RANK_NONE, GST_TYPE_CUDA_MEDIAN3D);
  ok &= gst_element_register (plugin, "cudarcdtrack", GST_RANK_NONE, GST_TYPE_CUDA_RCD_TRACK);
  ok &= gst_element_register (plugin, "cudaroioverlay", GST_RANK_NONE, GST_TYPE_CUDA_ROI_OVERLAY);
  ok &= gst_element_register (plugin, "cudaactionmatch", GST_RANK_NONE,
      GST_TYPE_CUDA_ACTION_MATCH);
  ok &= gst_element_register (plugin, "cvisstore", GST_RANK_NONE, GST_TYPE_CVIS_STORE);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudavision,
    "GPU computer-vision elements (CEDD, background subtraction, median, covariance tracking, "
    "action matching) with CPU reference backends, and a store for what they find",
    plugin_init, PACKAGE_VERSION, "LGPL", "gst-cuda-vision", "https://github.com/gst-cuda-vision")
