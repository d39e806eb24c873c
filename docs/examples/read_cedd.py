#!/usr/bin/python3
"""Reads the CEDD descriptors that cudacedd attaches to every frame, from Python (PyGObject).

    videotestsrc ! video/x-raw,format=RGBA ! cudacedd ! fakesink
                                                       ^ buffer probe: GstCvisCeddMeta

The descriptors travel in a GstCustomMeta named "GstCvisCeddMeta" whose structure holds (see
<gst/cvis/cvisceddmeta.h>): count (guint), levels (GBytes: count * 144 values 0..7), packed
(GBytes: count * 54 bytes, 3-bit packed), regions (GBytes: count * 5 native int32: roi_id, x, y,
width, height; roi_id -1 = the whole frame), frame-distance (gdouble) and shot-change (gboolean).
Shot changes are also posted on the bus as element messages "cvis-shot-change"; this example
switches the test pattern half-way through to cause one.

Run with the plugin on GST_PLUGIN_PATH and the system Python (it has the GStreamer bindings):
    GST_PLUGIN_PATH=build/gst /usr/bin/python3 docs/examples/read_cedd.py --backend cpu
Exit status 0 only when descriptors were read and valid (with --expect-shot: and a shot change
was reported).
"""
import argparse
import struct
import sys

try:
    import gi

    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print("read_cedd.py needs PyGObject and the Gst 1.0 typelib: %s" % e, file=sys.stderr)
    sys.exit(77)  # "skipped" for test harnesses (Meson, Automake)

BINS, PACKED = 144, 54


def unpack(packed):
    """The 3-bit packed form: level i is bits 3i..3i+2 of a little-endian bit string."""
    bits = int.from_bytes(packed, "little")
    return bytes((bits >> (3 * i)) & 7 for i in range(BINS))


def fmt_time(t):
    if t == Gst.CLOCK_TIME_NONE:
        return "-"
    return "%d:%02d:%06.3f" % (t // 3600000000000, t // 60000000000 % 60, t % 60000000000 / 1e9)


class Reader:
    def __init__(self, src, switch_at):
        self.src = src
        self.switch_at = switch_at
        self.frames = 0
        self.descriptors = 0
        self.errors = []

    def on_buffer(self, pad, info):
        buf = info.get_buffer()
        frame = self.frames
        self.frames += 1
        if frame + 1 == self.switch_at:
            # The next frame videotestsrc produces is noise: a new "shot".
            Gst.util_set_object_arg(self.src, "pattern", "snow")
        meta = buf.get_custom_meta("GstCvisCeddMeta")
        if meta is None:
            self.errors.append("frame %d: no GstCvisCeddMeta" % frame)
            return Gst.PadProbeReturn.OK
        s = meta.get_structure()  # a copy in Python: read-only
        count = s.get_value("count")
        levels = s.get_value("levels").get_data()
        packed = s.get_value("packed").get_data()
        regions = struct.unpack("=%di" % (5 * count), s.get_value("regions").get_data())
        ok_distance, distance = s.get_double("frame-distance")
        ok_shot, shot = s.get_boolean("shot-change")
        for i in range(count):
            lv = levels[i * BINS:(i + 1) * BINS]
            pk = packed[i * PACKED:(i + 1) * PACKED]
            roi_id, x, y, w, h = regions[5 * i:5 * i + 5]
            if len(lv) != BINS or max(lv) > 7 or unpack(pk) != lv:
                self.errors.append("frame %d descriptor %d: bad levels or packing" % (frame, i))
                continue
            self.descriptors += 1
            print("frame %3d pts %s %s box %d,%d %dx%d levels %s.. packed %s.. distance %s%s"
                  % (frame, fmt_time(buf.pts),
                     "frame" if roi_id == -1 else "roi %d" % roi_id, x, y, w, h,
                     " ".join(str(v) for v in lv[:12]), pk[:6].hex(),
                     "%.2f" % distance if ok_distance and distance >= 0 else "-",
                     " SHOT" if ok_shot and shot else ""))
        return Gst.PadProbeReturn.OK


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--num-buffers", type=int, default=20)
    ap.add_argument("--expect-shot", action="store_true",
                    help="fail unless a cvis-shot-change message arrives")
    args = ap.parse_args()

    Gst.init(None)
    pipeline = Gst.parse_launch(
        "videotestsrc name=src pattern=smpte num-buffers=%d ! "
        "video/x-raw,format=RGBA,width=320,height=240,framerate=25/1 ! "
        "cudacedd name=cedd backend=%s ! fakesink name=sink" % (args.num_buffers, args.backend))
    reader = Reader(pipeline.get_by_name("src"), args.num_buffers // 2)
    pipeline.get_by_name("sink").get_static_pad("sink").add_probe(
        Gst.PadProbeType.BUFFER, reader.on_buffer)

    shots = 0
    failure = None
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    while True:
        msg = bus.timed_pop_filtered(Gst.CLOCK_TIME_NONE, Gst.MessageType.ERROR
                                     | Gst.MessageType.EOS | Gst.MessageType.ELEMENT)
        if msg.type == Gst.MessageType.ERROR:
            err, _ = msg.parse_error()
            failure = "%s: %s" % (msg.src.get_name(), err.message)
            break
        if msg.type == Gst.MessageType.EOS:
            break
        s = msg.get_structure()
        if s is not None and s.get_name() == "cvis-shot-change":
            shots += 1
            print("shot change: stream %s frame %d pts %s distance %.2f"
                  % (s.get_string("stream"), s.get_uint64("frame")[1],
                     fmt_time(s.get_uint64("pts")[1]),
                     s.get_double("distance")[1]))
    pipeline.set_state(Gst.State.NULL)

    print("%d frames, %d descriptors, %d shot changes" % (reader.frames, reader.descriptors, shots))
    for e in reader.errors[:5]:
        print("error: " + e, file=sys.stderr)
    if failure:
        print("error: " + failure, file=sys.stderr)
    if failure or reader.errors or reader.descriptors < 1:
        return 1
    if args.expect_shot and shots < 1:
        print("error: no shot change reported", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
