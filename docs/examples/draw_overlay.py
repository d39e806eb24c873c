#!/usr/bin/python3
"""Draws an application's own detections with cudaroioverlay, from Python.

    appsrc (RGBA frames + ROI metas) ! cudaroioverlay color-by=id ! appsink

The application pushes frames carrying GstVideoRegionOfInterestMetas (a "person" with a label and
a score in a param structure, as a detector would attach them) and reads the annotated frames
back. The box's outline must come back in the colour of its id (palette entry id mod 12 of
docs/elements/cudaroioverlay.md: id 3 is 0,130,200), its label's background above it in the same
colour, and the inside of the box untouched.

Run with the plugin on GST_PLUGIN_PATH and the system Python (it has the GStreamer bindings):
    GST_PLUGIN_PATH=build/gst /usr/bin/python3 docs/examples/draw_overlay.py --backend cpu
Exit status 0 only when every frame was drawn as expected.
"""
import argparse
import sys

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import Gst, GstVideo
except (ImportError, ValueError) as e:
    print("draw_overlay.py needs PyGObject and the Gst typelibs: %s" % e, file=sys.stderr)
    sys.exit(77)  # "skipped" for test harnesses

W, H = 320, 240
BLUE = (0, 130, 200)  # palette entry 3


def pixel(data, x, y):
    i = (y * W + x) * 4
    return tuple(data[i:i + 3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--num-buffers", type=int, default=5)
    args = ap.parse_args()

    Gst.init(None)
    pipeline = Gst.parse_launch(
        "appsrc name=src format=time caps=video/x-raw,format=RGBA,width=%d,height=%d,"
        "framerate=30/1 ! cudaroioverlay backend=%s color-by=id line-width=3 "
        "! appsink name=sink sync=false" % (W, H, args.backend))
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)

    good = 0
    for i in range(args.num_buffers):
        # A black frame and one detection moving right.
        buf = Gst.Buffer.new_wrapped(bytes(W * H * 4))
        buf.pts = Gst.util_uint64_scale(i, Gst.SECOND, 30)
        buf.duration = Gst.SECOND // 30
        x, y, w, h = 40 + 10 * i, 80, 100, 120
        roi = GstVideo.buffer_add_video_region_of_interest_meta(buf, "person", x, y, w, h)
        roi.id = 3
        param = Gst.Structure.new_empty("detection")
        param.set_value("label", "person")
        param.set_value("score", 0.9)
        roi.add_param(param)
        if src.emit("push-buffer", buf) != Gst.FlowReturn.OK:
            break
        sample = sink.emit("try-pull-sample", 10 * Gst.SECOND)
        if sample is None:
            break
        out = sample.get_buffer()
        ok, m = out.map(Gst.MapFlags.READ)
        data = bytes(m.data)
        out.unmap(m)
        outline = pixel(data, x, y + h // 2) == BLUE and pixel(data, x + w - 1, y + h - 1) == BLUE
        label = pixel(data, x, y - 1) == BLUE
        inside = pixel(data, x + w // 2, y + h // 2) == (0, 0, 0)
        print("frame %d: box %d,%d %dx%d  outline %s  label %s  inside %s"
              % (i, x, y, w, h, "ok" if outline else "WRONG", "ok" if label else "WRONG",
                 "untouched" if inside else "WRONG"))
        good += outline and label and inside
    src.emit("end-of-stream")
    msg = pipeline.get_bus().timed_pop_filtered(
        10 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    failed = msg is None or msg.type == Gst.MessageType.ERROR
    if msg is not None and msg.type == Gst.MessageType.ERROR:
        print("error: %s" % msg.parse_error()[0].message, file=sys.stderr)
    pipeline.set_state(Gst.State.NULL)
    print("%d of %d frames drawn as expected" % (good, args.num_buffers))
    return 0 if not failed and good == args.num_buffers else 1


if __name__ == "__main__":
    sys.exit(main())
