#!/usr/bin/python3
"""libgstcvis-1.0 from Python through its typelib (GstCvis-1.0), cpu suite.

Every meta the plugin attaches, read from Python, against what the C side wrote: the CEDD meta
(count, levels, packed form, regions, index of a ROI, shot annotation) of cudacedd (backend=cpu),
the foreground meta (mask buffer and fields) and the blob boxes of cudabgsub, ROIs with param
structures (tracks as cudarcdtrack attaches them) as GstStructures, and the helpers (Tanimoto,
pack / unpack, LIRE bytes) against independent Python implementations of the documented formats.

Needs GI_TYPELIB_PATH and LD_LIBRARY_PATH on the build's gst/ folder and GST_PLUGIN_PATH (meson
sets them). Exit 77 (skipped) when the typelib is not there.
"""
import random
import struct
import sys
import unittest

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    gi.require_version("GstCvis", "1.0")
    from gi.repository import GLib, Gst, GstCvis, GstVideo
except (ImportError, ValueError) as e:
    print("GstCvis typelib not available: %s" % e, file=sys.stderr)
    sys.exit(77)

BINS, PACKED = 144, 54


def py_pack(levels):
    bits = 0
    for i, v in enumerate(levels):
        bits |= (v & 7) << (3 * i)
    return bits.to_bytes(PACKED, "little")


def py_tanimoto(a, b):
    ta, tb = float(sum(a)), float(sum(b))
    if ta == 0 and tb == 0:
        return 0.0
    if ta == 0 or tb == 0:
        return 100.0
    p = q = r = 0.0
    for x, y in zip(a, b):
        x, y = x / ta, y / tb
        p += x * y
        q += y * y
        r += x * x
    return 100.0 - 100.0 * (p / (q + r - p))


def py_lire(levels):
    """CEDD.getByteArrayRepresentation: pairs of 4-bit values up to the trailing zeros, ^0x80."""
    p = BINS - 1
    if levels[p] == 0:
        while p > 0 and levels[p - 1] == 0:
            p -= 1
    n = (p + 2) // 2
    return bytes(((levels[2 * k] << 4) | levels[2 * k + 1]) ^ 0x80 for k in range(n))


def run_and_pull(launch, frames):
    """Buffers reaching the appsink named `sink` of `launch`."""
    pipeline = Gst.parse_launch(launch)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    out = []
    for _ in range(frames):
        sample = sink.emit("try-pull-sample", 20 * Gst.SECOND)
        if sample is None:
            break
        out.append(sample.get_buffer())
    bus = pipeline.get_bus()
    msg = bus.pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg:
        raise AssertionError("pipeline error: %s" % msg.parse_error()[0].message)
    return out


class Helpers(unittest.TestCase):
    def test_tanimoto_pack_lire(self):
        rng = random.Random(7)
        for trial in range(200):
            a = bytes(rng.randrange(8) if rng.random() < 0.6 else 0 for _ in range(BINS))
            b = bytes(rng.randrange(8) for _ in range(BINS))
            if trial == 0:
                a = bytes(BINS)
            self.assertAlmostEqual(GstCvis.cedd_tanimoto(a, b), py_tanimoto(a, b), places=9)
            self.assertEqual(GstCvis.cedd_tanimoto(b, b), 0.0)
            packed = GstCvis.cedd_pack(a)
            self.assertEqual(packed, py_pack(a))
            self.assertEqual(GstCvis.cedd_unpack(packed), a)
            lire = GstCvis.cedd_to_lire_bytes(a)
            self.assertEqual(lire, py_lire(a))
            self.assertEqual(GstCvis.cedd_from_lire_bytes(lire), a)
        with self.assertRaises(GLib.Error):
            GstCvis.cedd_from_lire_bytes(bytes(GstCvis.CEDD_LIRE_MAX_BYTES + 1))
        with self.assertRaises((ValueError, TypeError)):
            GstCvis.cedd_tanimoto(bytes(10), bytes(BINS))

    def test_constants(self):
        self.assertEqual(GstCvis.CEDD_BINS, BINS)
        self.assertEqual(GstCvis.CEDD_PACKED_SIZE, PACKED)
        self.assertEqual(GstCvis.CEDD_FRAME_ID, -1)
        self.assertEqual(GstCvis.CEDD_META_NAME, "GstCvisCeddMeta")
        self.assertEqual(GstCvis.FOREGROUND_META_NAME, "GstCvisForegroundMeta")


class Rois(unittest.TestCase):
    def test_tracks_and_filter(self):
        buf = Gst.Buffer.new_allocate(None, 64, None)
        GstCvis.buffer_add_cvis_foreground_box(buf, 1, 2, 30, 40, 0, 777)
        roi = GstVideo.buffer_add_video_region_of_interest_meta(buf, "track", 10, 20, 30, 40)
        roi.id = 12
        track = Gst.Structure.new_from_string(
            "track, id=(int)12, distance=(double)0.5, scale=(double)1.25, lost=(boolean)true, "
            "age=(uint)9")
        roi.add_param(track)
        rois = GstCvis.buffer_list_rois(buf, None)
        self.assertEqual([r.get_string("roi-type") for r in rois], ["foreground", "track"])
        fg = rois[0]
        self.assertEqual([fg.get_uint(k)[1] for k in ("x", "y", "width", "height")], [1, 2, 30, 40])
        self.assertEqual(fg.get_value("foreground").get_uint("area"), (True, 777))
        tracks = GstCvis.buffer_list_rois(buf, "track")
        self.assertEqual(len(tracks), 1)
        t = tracks[0]
        self.assertEqual(t.get_int("id"), (True, 12))
        p = t.get_value("track")
        self.assertEqual(p.get_double("distance"), (True, 0.5))
        self.assertEqual(p.get_double("scale"), (True, 1.25))
        self.assertEqual(p.get_boolean("lost"), (True, True))
        self.assertEqual(p.get_uint("age"), (True, 9))
        self.assertEqual(GstCvis.buffer_list_rois(buf, "action"), [])


class ElementMetas(unittest.TestCase):
    def test_cedd_meta(self):
        # cudabgsub's blob boxes are the ROIs: regions=both gives the frame's descriptor and one
        # per blob.
        bufs = run_and_pull(
            "videotestsrc num-buffers=12 pattern=ball motion=sweep ! "
            "video/x-raw,format=RGBA,width=96,height=72 ! cudabgsub backend=cpu output=frame "
            "num-samples=4 ! cudacedd backend=cpu regions=both ! appsink name=sink", 12)
        self.assertEqual(len(bufs), 12)
        counts = [GstCvis.cedd_meta_get_count(GstCvis.buffer_get_cvis_cedd_meta(b)) for b in bufs]
        k = counts.index(max(counts))
        self.assertGreater(counts[k], 1, "no blob descriptors")
        meta = GstCvis.buffer_get_cvis_cedd_meta(bufs[k])
        s = meta.get_structure()
        n = GstCvis.cedd_meta_get_count(meta)
        self.assertEqual(n, s.get_value("count"))
        levels_all = s.get_value("levels").get_data()
        packed_all = s.get_value("packed").get_data()
        regions = struct.unpack("=%di" % (5 * n), s.get_value("regions").get_data())
        for i in range(n):
            lv = GstCvis.cedd_meta_get_levels(meta, i).get_data()
            self.assertEqual(lv, levels_all[i * BINS:(i + 1) * BINS])
            self.assertEqual(GstCvis.cedd_meta_get_packed(meta, i).get_data(),
                             packed_all[i * PACKED:(i + 1) * PACKED])
            self.assertEqual(GstCvis.cedd_pack(lv), packed_all[i * PACKED:(i + 1) * PACKED])
            ok, region = GstCvis.cedd_meta_get_region(meta, i)
            self.assertTrue(ok)
            self.assertEqual((region.roi_id, region.x, region.y, region.width, region.height),
                             regions[5 * i:5 * i + 5])
            self.assertEqual(GstCvis.cedd_meta_find_index(meta, region.roi_id), i)
        self.assertIsNone(GstCvis.cedd_meta_get_levels(meta, n))
        self.assertEqual(GstCvis.cedd_meta_find_index(meta, 12345), -1)
        first = GstCvis.buffer_get_cvis_cedd_meta(bufs[0])
        ok, distance, shot = GstCvis.cedd_meta_get_shot(first)
        self.assertTrue(ok)
        self.assertEqual(distance, -1.0)  # first frame: no previous descriptor
        # The frame-to-frame distance is the Tanimoto distance of consecutive frame descriptors.
        for a, b in zip(bufs, bufs[1:]):
            ma, mb = GstCvis.buffer_get_cvis_cedd_meta(a), GstCvis.buffer_get_cvis_cedd_meta(b)
            prev = GstCvis.cedd_meta_get_levels(ma, GstCvis.cedd_meta_find_index(ma, -1))
            cur = GstCvis.cedd_meta_get_levels(mb, GstCvis.cedd_meta_find_index(mb, -1))
            ok, distance, shot = GstCvis.cedd_meta_get_shot(mb)
            self.assertAlmostEqual(
                distance, GstCvis.cedd_tanimoto(prev.get_data(), cur.get_data()), places=9)

    def test_foreground_meta_and_boxes(self):
        bufs = run_and_pull(
            "videotestsrc num-buffers=16 pattern=ball motion=sweep ! "
            "video/x-raw,format=RGBA,width=96,height=72 ! cudabgsub backend=cpu output=frame "
            "num-samples=4 ! appsink name=sink", 16)
        self.assertEqual(len(bufs), 16)
        seen_blobs = 0
        for buf in bufs:
            meta = GstCvis.buffer_get_cvis_foreground_meta(buf)
            self.assertIsNotNone(meta)
            ok, info = GstCvis.foreground_meta_get(meta)
            self.assertTrue(ok)
            s = meta.get_structure()
            self.assertEqual((info.width, info.height, info.stride),
                             (s.get_value("width"), s.get_value("height"), s.get_value("stride")))
            self.assertEqual((info.width, info.height), (96, 72))
            self.assertFalse(info.cuda_memory)
            ok, m = info.mask.map(Gst.MapFlags.READ)
            self.assertTrue(ok)
            data = bytes(m.data)
            info.mask.unmap(m)
            fg = sum(1 for y in range(72) for x in range(96) if data[y * info.stride + x])
            self.assertAlmostEqual(info.fraction, fg / (96 * 72), places=9)
            boxes = GstCvis.buffer_list_rois(buf, "foreground")
            self.assertEqual(len(boxes), info.blobs)
            for b in boxes:
                area = b.get_value("foreground").get_uint("area")[1]
                w, h = b.get_uint("width")[1], b.get_uint("height")[1]
                self.assertLessEqual(area, w * h)
                self.assertLessEqual(area, fg)
            seen_blobs += len(boxes)
        self.assertGreater(seen_blobs, 0, "the ball was never segmented")

    def test_action_meta(self):
        buf = Gst.Buffer.new()
        info = GstCvis.ActionInfo()
        info.label = "walking"
        info.model_source = "person02_walking_d1 frames 0-23"
        info.model_id = 4
        info.score = 0.75
        info.first_frame, info.last_frame = 30, 89
        info.complete = True
        meta = GstCvis.buffer_add_cvis_action_meta(buf, info)
        GstCvis.action_meta_add_point(meta, 31, 12.0, 20.5)
        GstCvis.action_meta_add_point(meta, 33, 14.0, 21.5)
        got = GstCvis.buffer_get_cvis_action_meta(buf)
        ok, out = GstCvis.action_meta_get(got)
        self.assertTrue(ok)
        self.assertEqual((out.label, out.model_id, out.score), ("walking", 4, 0.75))
        self.assertEqual((out.first_frame, out.last_frame, out.n_points), (30, 89, 2))
        self.assertEqual(GstCvis.action_meta_get_point(got, 1), (True, 33, 14.0, 21.5))
        self.assertFalse(GstCvis.action_meta_get_point(got, 2)[0])
        s = got.get_structure()
        self.assertEqual(s.get_string("label"), "walking")
        self.assertEqual(GstCvis.ACTION_META_NAME, "GstCvisActionMeta")
        self.assertEqual(GstCvis.ACTION_ROI_TYPE, "action")


if __name__ == "__main__":
    Gst.init(None)
    unittest.main(verbosity=2)
