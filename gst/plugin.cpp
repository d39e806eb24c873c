/* The cudavision plugin: registers every gst-cuda-vision element on every machine. Elements
 * without a usable GPU run their CPU reference (backend=auto) or fail cleanly at start
 * (backend=cuda); registration itself never depends on a GPU, so the registry stays right when it
 * is built on a GPU-less machine. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/cvis/cvis.h>
#include <gst/gst.h>

#ifdef CVIS_HAVE_CUDA
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#endif

#include "cudabgsub/gstcudabgsub.h"
#include "cudacedd/gstcudacedd.h"
#include "cudamedian3d/gstcudamedian3d.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
#ifdef CVIS_HAVE_CUDA
  /* Needed before any GstCudaBufferPool::set_config; safe without a driver. */
  gst_cuda_load_library ();
  gst_cuda_memory_init_once ();
#endif
  gst_cvis_cedd_meta_get_info ();

  gboolean ok = TRUE;
  ok &= gst_element_register (plugin, "cudacedd", GST_RANK_NONE, GST_TYPE_CUDA_CEDD);
  ok &= gst_element_register (plugin, "cudabgsub", GST_RANK_NONE, GST_TYPE_CUDA_BG_SUB);
  ok &= gst_element_register (plugin, "cudamedian3d", GST_RANK_NONE, GST_TYPE_CUDA_MEDIAN3D);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudavision,
    "GPU computer-vision elements (CEDD, background subtraction, median, covariance tracking, "
    "action matching) with CPU reference backends",
    plugin_init, PACKAGE_VERSION, "LGPL", "gst-cuda-vision", "https://github.com/gst-cuda-vision")
