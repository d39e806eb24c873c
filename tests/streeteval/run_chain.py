#!/usr/bin/python3
"""Runs the street chain on a sequence of make_street.py, every element at its defaults:

    filesrc ! qtdemux ! h264parse ! DECODER ! cudamedian3d output=frame
      ! cudarcdtrack init-roi-type=foreground ! cudacedd regions=rois ! cudaroioverlay ! appsink

and dumps what reaches the overlay: every GstVideoRegionOfInterestMeta of every frame (roi_type,
id, box, parameter structures) as one JSON line per frame (OUT/rois.jsonl, frame index from the
buffer's timestamp), plus the overlay's output of a few frames as PNG (OUT/overlay-NNNN.png).
The ROIs are read with the GstCvis typelib (GstCvis.buffer_list_rois) in a pad probe.

Usage: run_chain.py SEQDIR OUTDIR [--backend cpu|cuda] [--png 40,80,...] [--frames N]
                    [--tracker 'PROP=VALUE ...']
  --frames N: only the first N frames (identity eos-after=N after the decoder)
  --tracker: cudarcdtrack properties set besides the defaults (to measure a choice against them)
  cpu:  avdec_h264 ! videoconvert ! NV12 in system memory, every element backend=cpu
  cuda: nvh264dec (CUDA memory), every element backend=cuda, cudadownload before the sink
Run with GST_PLUGIN_PATH=build/gst GI_TYPELIB_PATH=build/gst LD_LIBRARY_PATH=build/gst.
"""
import argparse
import json
import os
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstCvis", "1.0")
from gi.repository import Gst, GstCvis  # noqa: E402

import numpy as np  # noqa: E402


def value(v):
    if isinstance(v, Gst.Structure):
        return struct_dict(v)
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    return str(v)


def struct_dict(s):
    out = {}
    for i in range(s.n_fields()):
        k = s.nth_field_name(i)
        out[k] = value(s.get_value(k))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seq")
    ap.add_argument("out")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--png", default="")
    ap.add_argument("--frames", type=int, default=0)
    ap.add_argument("--tracker", default="",
                    help="cudarcdtrack properties other than the defaults (to compare a choice), "
                         "e.g. 'still-timeout=0'")
    a = ap.parse_args()
    meta = json.load(open(os.path.join(a.seq, "meta.json")))
    fps = meta["fps"] if "fps" in meta else 10
    os.makedirs(a.out, exist_ok=True)
    want_png = set(int(v) for v in a.png.split(",") if v)
    Gst.init(None)
    b = a.backend
    expected = min(a.frames, meta["frames"]) if a.frames > 0 else meta["frames"]
    limit = "identity eos-after=%d ! " % expected if a.frames > 0 else ""
    if b == "cpu":
        dec = "avdec_h264 ! videoconvert ! video/x-raw,format=NV12"
        down = ""
    else:
        dec = "nvh264dec"
        down = "cudadownload ! "
    desc = ("filesrc location=%s ! qtdemux ! h264parse ! %s ! %scudamedian3d backend=%s output=frame "
            "! cudarcdtrack backend=%s init-roi-type=foreground %s ! cudacedd backend=%s regions=rois "
            "! cudaroioverlay name=ovl backend=%s ! %svideoconvert ! video/x-raw,format=RGB "
            "! appsink name=sink sync=false emit-signals=false"
            % (os.path.join(a.seq, "video.mp4"), dec, limit, b, b, a.tracker, b, b, down))
    pipe = Gst.parse_launch(desc)
    rois_out = open(os.path.join(a.out, "rois.jsonl"), "w")

    def probe(pad, info):
        buf = info.get_buffer()
        frame = int(round(buf.pts * fps / Gst.SECOND))
        rois = [struct_dict(s) for s in GstCvis.buffer_list_rois(buf, None)]
        rois_out.write(json.dumps(dict(frame=frame, rois=rois)) + "\n")
        return Gst.PadProbeReturn.OK

    pipe.get_by_name("ovl").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, probe)
    sink = pipe.get_by_name("sink")
    t0 = time.time()
    pipe.set_state(Gst.State.PLAYING)
    n = 0
    import cv2
    while True:
        sample = sink.emit("try-pull-sample", 120 * Gst.SECOND)
        if sample is None:
            break
        buf = sample.get_buffer()
        frame = int(round(buf.pts * fps / Gst.SECOND))
        n += 1
        if frame in want_png:
            s = sample.get_caps().get_structure(0)
            w, h = s.get_value("width"), s.get_value("height")
            ok, m = buf.map(Gst.MapFlags.READ)
            stride = len(m.data) // h
            img = np.frombuffer(m.data, np.uint8).reshape(h, stride)[:, :w * 3].reshape(h, w, 3)
            cv2.imwrite(os.path.join(a.out, "overlay-%04d.png" % frame), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
            buf.unmap(m)
    bus = pipe.get_bus()
    msg = bus.pop_filtered(Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    rois_out.close()
    secs = time.time() - t0
    if msg is not None:
        err, dbg = msg.parse_error()
        sys.exit("run_chain: %s (%s)" % (err.message, dbg))
    if n != expected:
        sys.exit("run_chain: %d frames came out, expected %d" % (n, expected))
    json.dump(dict(frames=n, seconds=round(secs, 1), backend=b, pipeline=desc),
              open(os.path.join(a.out, "run.json"), "w"), indent=1)
    print("%s: %d frames in %.1f s (%.2f s/frame, %s)" % (meta["name"], n, secs, secs / max(n, 1), b))


if __name__ == "__main__":
    main()
