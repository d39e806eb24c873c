#!/usr/bin/python3
"""Helpers of scripts/demo.sh (GStreamer through PyGObject; the plugin on GST_PLUGIN_PATH).

  demo_tools.py pick DB ROI_TYPE NEAR_FRAME
      prints "frame x y w h" of a person-shaped region of ROI_TYPE in the CEDD index DB, near
      frame NEAR_FRAME (the query of the demo's search)
  demo_tools.py crop CLIP OUT.png FRAME X Y W H [OUT2.png FRAME X Y W H ...]
      decodes CLIP once and writes the boxes of the given frames (numbered from 0) as PNGs
  demo_tools.py sheet OUT.png TILE_WxH ROW [ROW ...]
      a contact sheet: one row per ROW = "NAME|IMAGE[@CAPTION],IMAGE[@CAPTION],...", a title tile
      then the images scaled into tiles; titles and captions are drawn by cudaroioverlay
      (backend=cpu), each tile framed in its row's colour
"""
import sqlite3
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstVideo  # noqa: E402


def pull_all(launch, limit=None, keep=None):
    """(caps structure, buffer bytes) of the buffers reaching appsink `sink` of `launch`: all, or
    the first `limit`; with `keep` (a set of indices) None in place of the others."""
    p = Gst.parse_launch(launch)
    sink = p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    out = []
    while limit is None or len(out) < limit:
        s = sink.emit("try-pull-sample", 30 * Gst.SECOND)
        if s is None:
            break
        if keep is not None and len(out) not in keep:
            out.append(None)
            continue
        b = s.get_buffer()
        ok, m = b.map(Gst.MapFlags.READ)
        out.append((s.get_caps().get_structure(0), bytes(m.data)))
        b.unmap(m)
    msg = p.get_bus().pop_filtered(Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)
    if msg:
        sys.exit("demo_tools: %s" % msg.parse_error()[0].message)
    return out


def write_png(path, rgba, w, h):
    p = Gst.parse_launch("appsrc name=src caps=video/x-raw,format=RGBA,width=%d,height=%d,"
                         "framerate=1/1 ! videoconvert ! pngenc ! filesink location=%s"
                         % (w, h, path))
    src = p.get_by_name("src")
    p.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(rgba)
    buf.pts = 0
    src.emit("push-buffer", buf)
    src.emit("end-of-stream")
    p.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    p.set_state(Gst.State.NULL)


def cmd_pick(db, roi_type, near):
    con = sqlite3.connect(db)
    row = con.execute(
        "SELECT frame, x, y, w, h FROM descriptors WHERE roi_type = ? AND h > w AND w * h >= 1200 "
        "ORDER BY abs(frame - ?), w * h DESC LIMIT 1", (roi_type, int(near))).fetchone()
    if row is None:
        sys.exit("demo_tools: no %s region in %s" % (roi_type, db))
    print(" ".join(str(v) for v in row))


def cmd_crop(clip, specs):
    jobs = {}
    for i in range(0, len(specs), 6):
        out, frame, x, y, w, h = specs[i:i + 6]
        jobs.setdefault(int(frame), []).append((out, int(x), int(y), int(w), int(h)))
    last = max(jobs)
    frames = pull_all("filesrc location=%s ! decodebin ! videoconvert ! video/x-raw,format=RGBA "
                      "! appsink name=sink sync=false" % clip, limit=last + 1, keep=set(jobs))
    for n, crops in jobs.items():
        if n >= len(frames):
            sys.exit("demo_tools: %s has no frame %d" % (clip, n))
        caps, data = frames[n]
        fw = caps.get_value("width")
        stride = fw * 4
        for out, x, y, w, h in crops:
            rows = [data[(y + r) * stride + 4 * x:(y + r) * stride + 4 * (x + w)] for r in range(h)]
            write_png(out, b"".join(rows), w, h)


def overlay_caption(rgba, w, h, kind, text, font_scale):
    """`rgba` with a frame in `kind`'s colour and `text` at its top-left, by cudaroioverlay."""
    p = Gst.parse_launch("appsrc name=src caps=video/x-raw,format=RGBA,width=%d,height=%d,"
                         "framerate=1/1 ! cudaroioverlay backend=cpu color-by=type line-width=2 "
                         "font-scale=%d ! appsink name=sink" % (w, h, font_scale))
    src, sink = p.get_by_name("src"), p.get_by_name("sink")
    p.set_state(Gst.State.PLAYING)
    buf = Gst.Buffer.new_wrapped(rgba)
    buf.pts = 0
    roi = GstVideo.buffer_add_video_region_of_interest_meta(buf, kind, 0, 0, w, h)
    roi.id = -1
    if text:
        s = Gst.Structure.new_empty("caption")
        s.set_value("label", text)
        roi.add_param(s)
    src.emit("push-buffer", buf)
    sample = sink.emit("try-pull-sample", 30 * Gst.SECOND)
    out = sample.get_buffer()
    ok, m = out.map(Gst.MapFlags.READ)
    data = bytes(m.data)
    out.unmap(m)
    src.emit("end-of-stream")
    p.set_state(Gst.State.NULL)
    return data


def tile(path, w, h):
    caps, data = pull_all("filesrc location=%s ! decodebin ! videoconvert ! videoscale "
                          "add-borders=true ! video/x-raw,format=RGBA,width=%d,height=%d,"
                          "pixel-aspect-ratio=1/1 ! appsink name=sink" % (path, w, h), 1)[0]
    return data


def cmd_sheet(out, size, rows):
    tw, th = (int(v) for v in size.split("x"))
    title_w = 180
    parsed = []
    for r in rows:
        name, _, items = r.partition("|")
        cells = [i.partition("@") for i in items.split(",") if i]
        parsed.append((name, [(c[0], c[2]) for c in cells]))
    cols = max(len(c) for _, c in parsed)
    W, H = title_w + cols * tw, len(parsed) * th
    sheet = bytearray(b"\x20\x20\x20\xff" * (W * H))  # opaque dark grey where rows are short
    for ri, (name, cells) in enumerate(parsed):
        scale = 2 if (6 * len(name) + 1) * 2 <= title_w - 4 else 1  # the label's width
        black = b"\0\0\0\xff" * (title_w * th)  # opaque
        title = overlay_caption(black, title_w, th, name, name, scale)
        kind = name.split()[0]
        for y in range(th):
            o = ((ri * th + y) * W) * 4
            sheet[o:o + title_w * 4] = title[y * title_w * 4:(y + 1) * title_w * 4]
        for ci, (path, caption) in enumerate(cells):
            t = overlay_caption(tile(path, tw, th), tw, th, kind, caption, 1)
            x0 = title_w + ci * tw
            for y in range(th):
                o = ((ri * th + y) * W + x0) * 4
                sheet[o:o + tw * 4] = t[y * tw * 4:(y + 1) * tw * 4]
    write_png(out, bytes(sheet), W, H)


def main():
    Gst.init(None)
    if len(sys.argv) >= 5 and sys.argv[1] == "pick":
        cmd_pick(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) >= 9 and sys.argv[1] == "crop" and (len(sys.argv) - 3) % 6 == 0:
        cmd_crop(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 5 and sys.argv[1] == "sheet":
        cmd_sheet(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
