#!/usr/bin/python3
"""Reads the foreground masks and blob boxes that cudabgsub or cudamedian3d attach, from Python.

    videotestsrc pattern=ball ! cudabgsub output=frame ! fakesink
                                (or cudamedian3d)        ^ buffer probe: GstCvisForegroundMeta
                                                           + "foreground" boxes

The mask is a GstCustomMeta named "GstCvisForegroundMeta" whose structure holds the mask buffer
(GRAY8; CUDA memory when the frame is: a plain map downloads it), width, height, stride, fraction
and blobs (see <gst/cvis/cvisforegroundmeta.h>). The boxes are GstVideoRegionOfInterestMetas;
GStreamer 1.22's Python cannot iterate them, so this uses the GstCvis typelib (libgstcvis-1.0):
GstCvis.buffer_list_rois(buf, "foreground") returns them as GstStructures. Frame i must arrive
with pts i/30 s: also with cudamedian3d's centered window (mode=paper), whose frames leave T/2
frames late and whose last T/2 frames leave at EOS.

Run with the plugin on GST_PLUGIN_PATH, the typelib on GI_TYPELIB_PATH and the library on
LD_LIBRARY_PATH (an installed gst-cuda-vision puts both where they are found):
    GST_PLUGIN_PATH=build/gst GI_TYPELIB_PATH=build/gst LD_LIBRARY_PATH=build/gst \\
        /usr/bin/python3 docs/examples/read_foreground.py --backend cpu [--element cudamedian3d]
Exit status 0 only when every frame was consistent, every frame came out and the ball was found.
"""
import argparse
import sys

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstCvis", "1.0")
    from gi.repository import Gst, GstCvis
except (ImportError, ValueError) as e:
    print("read_foreground.py needs PyGObject and the Gst and GstCvis typelibs: %s" % e,
          file=sys.stderr)
    sys.exit(77)  # "skipped" for test harnesses


# Small settings: cudabgsub's model of 8 samples is warmed up after 8 frames; cudamedian3d's 3x3x5
# centered window makes its outputs lag 2 frames.
SETTINGS = {"cudabgsub": "num-samples=8", "cudamedian3d": "mode=paper temporal-size=5"}


class Reader:
    def __init__(self):
        self.frames = self.boxes = 0
        self.errors = []

    def on_buffer(self, pad, info):
        buf = info.get_buffer()
        frame = self.frames
        self.frames += 1
        if buf.pts != Gst.util_uint64_scale(frame, Gst.SECOND, 30):
            self.errors.append("frame %d: pts %d" % (frame, buf.pts))
        meta = buf.get_custom_meta("GstCvisForegroundMeta")
        if meta is None:
            self.errors.append("frame %d: no foreground meta" % frame)
            return Gst.PadProbeReturn.OK
        s = meta.get_structure()
        mask, w, h = s.get_value("mask"), s.get_value("width"), s.get_value("height")
        stride, fraction = s.get_value("stride"), s.get_value("fraction")
        ok, m = mask.map(Gst.MapFlags.READ)
        if not ok:
            self.errors.append("frame %d: cannot map the mask" % frame)
            return Gst.PadProbeReturn.OK
        data = bytes(m.data)
        mask.unmap(m)
        pixels = sum(1 for y in range(h) for b in data[y * stride:y * stride + w] if b)
        if abs(fraction * w * h - pixels) > 0.5:
            self.errors.append("frame %d: fraction %f but %d mask pixels" % (frame, fraction, pixels))
        line = "frame %3d pts %.3f s foreground %5.2f%%" % (frame, buf.pts / Gst.SECOND, 100 * fraction)
        rois = GstCvis.buffer_list_rois(buf, "foreground")
        for roi in rois:
            x, y = roi.get_uint("x")[1], roi.get_uint("y")[1]
            bw, bh = roi.get_uint("width")[1], roi.get_uint("height")[1]
            area = roi.get_value("foreground").get_uint("area")[1]
            if area > bw * bh or area > pixels or x + bw > w or y + bh > h:
                self.errors.append("frame %d: bad box %s" % (frame, roi.to_string()))
            line += "  blob %d: %d,%d %dx%d %d px" % (roi.get_int("id")[1], x, y, bw, bh, area)
        if len(rois) != s.get_value("blobs"):
            self.errors.append("frame %d: %d boxes, the meta says %d"
                               % (frame, len(rois), s.get_value("blobs")))
        self.boxes += len(rois)
        print(line)
        return Gst.PadProbeReturn.OK


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--element", default="cudabgsub", choices=sorted(SETTINGS))
    ap.add_argument("--num-buffers", type=int, default=40)
    args = ap.parse_args()

    Gst.init(None)
    pipeline = Gst.parse_launch(
        "videotestsrc pattern=ball motion=sweep num-buffers=%d ! "
        "video/x-raw,format=RGBA,width=160,height=120,framerate=30/1 ! "
        "%s backend=%s output=frame %s ! fakesink name=sink"
        % (args.num_buffers, args.element, args.backend, SETTINGS[args.element]))
    reader = Reader()
    pipeline.get_by_name("sink").get_static_pad("sink").add_probe(
        Gst.PadProbeType.BUFFER, reader.on_buffer)
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        Gst.CLOCK_TIME_NONE, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    failure = msg.parse_error()[0].message if msg.type == Gst.MessageType.ERROR else None
    pipeline.set_state(Gst.State.NULL)

    print("%d frames, %d blob boxes, %d errors" % (reader.frames, reader.boxes, len(reader.errors)))
    for e in reader.errors[:5] + ([failure] if failure else []):
        print("error: " + e, file=sys.stderr)
    if failure or reader.errors or reader.frames != args.num_buffers:
        return 1
    if reader.boxes == 0:
        print("error: the ball was never segmented", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
