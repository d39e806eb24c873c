#!/usr/bin/python3
"""Builds the quality corpus of issue 12: real background video from Debian packages (opencv-doc's
sample videos, python3-imageio's sample clips), composited moving objects with cast shadows, stops
and a removed object (ghost), illumination changes with a tint, camera noise, shot changes, and
H.264 coding; exact per-pixel ground truth (CDnet labels) with don't-care bands at object edges.

Usage: /usr/bin/python3 tests/quality/corpus/make_corpus.py [--cache DIR] [--out DIR] [--only a,b]

Needs Debian's python3-opencv and numpy, gst-launch-1.0 with x264enc and avdec_h264, and apt-get
(the packages are downloaded with `apt-get download` and unpacked into the cache, never installed).
Defaults: cache build-quality/cache, corpus build-quality/corpus (ignored by git).

Per sequence, in OUT/<name>/:
  video.mp4     H.264 (x264, constant QP, no B-frames, a key frame every 2 s): the input of every run
  decoded.i420  its decoded frames (avdec_h264), raw I420: what the elements see, for the library
                driver and OpenCV
  truth.npz     labels (n, h, w) uint8: 0 background, 50 shadow (scored as background; shadow FPR),
                170 unknown (not scored: object edges, real people of the source video, an object
                before it first moves, frames just after a cut), 255 foreground; bg_y (n, h, w):
                luma (BT.601, studio range, as the I420) of the true background (no objects, no
                shadows, no added noise, no coding; the illumination applied)
  meta.json     size, frames, fps, warm-up, split, cut frame
OUT/list.txt: "name width height frames fps" per sequence (for tests/quality/run_elements.sh).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenes  # noqa: E402
import sprites  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def fetch(cache):
    """Downloads and unpacks the source packages (once); returns the directory of the videos."""
    src = os.path.join(cache, "src")
    if all(os.path.isfile(os.path.join(src, f)) for f in scenes.SOURCES):
        return src
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    os.makedirs(src, exist_ok=True)
    for pkg in sorted(set(scenes.SOURCES.values())):
        if not any(f.startswith(pkg + "_") for f in os.listdir(debs)):
            subprocess.run(["apt-get", "download", pkg], cwd=debs, check=True)
    root = os.path.join(cache, "unpacked")
    for f in os.listdir(debs):
        subprocess.run(["dpkg-deb", "-x", os.path.join(debs, f), root], check=True)
    for dirpath, _, files in os.walk(root):
        for f in files:
            name = f[:-3] if f.endswith(".gz") else f
            if name in scenes.SOURCES and not os.path.isfile(os.path.join(src, name)):
                if f.endswith(".gz"):
                    subprocess.run("gzip -dc '%s' > '%s'" % (os.path.join(dirpath, f), os.path.join(src, name)),
                                   shell=True, check=True)
                else:
                    shutil.copy(os.path.join(dirpath, f), os.path.join(src, name))
    missing = [f for f in scenes.SOURCES if not os.path.isfile(os.path.join(src, f))]
    if missing:
        sys.exit("make_corpus: not found in the packages: %s" % missing)
    return src


def read_video(path, step=1, limit=None):
    cap = cv2.VideoCapture(path)
    out, n = [], 0
    while True:
        ok, f = cap.read()
        if not ok or (limit is not None and n >= limit):
            break
        if n % step == 0:
            out.append(cv2.cvtColor(f, cv2.COLOR_BGR2RGB))
        n += 1
    return out


def texture_pool(src):
    pool = []
    for name in ("box.mp4", "cup.mp4", "Megamind.avi", "cockatoo.mp4"):
        frames = read_video(os.path.join(src, name), step=40)
        for f in frames[1:6]:
            s = 320.0 / f.shape[1]
            pool.append(cv2.resize(f, None, fx=s, fy=s, interpolation=cv2.INTER_AREA).astype(np.float32))
    return pool


class Source:
    """Frames of a source video through a view: crop (source pixels), scale to the target size,
    optional mirror. Also the real-motion mask of the source (people of the street video)."""

    def __init__(self, src_dir, name, crop, size, mirror, t0, frames, people):
        self.name, self.crop, self.size, self.mirror = name, crop, size, mirror
        x, y, w, h = crop
        self.scale = size[0] / float(w)
        if name == "tree.avi":
            clip = read_video(os.path.join(src_dir, name), limit=scenes.TREE_CLEAN)
            period = 2 * (len(clip) - 1)
            idx = [(t0 + t) % period for t in range(frames)]
            idx = [i if i < len(clip) else period - i for i in idx]
        else:
            clip = read_video(os.path.join(src_dir, name))
            idx = [min(t0 + t, len(clip) - 1) for t in range(frames)]
        self.frames = [self._view(clip[i].astype(np.float32)) for i in idx]
        self.people = None
        if people:
            plate = np.median(np.array(clip[::5]), axis=0).astype(np.float32)
            k = np.ones((7, 7), np.uint8)
            self.people = []
            for i in idx:
                d = np.abs(clip[i].astype(np.float32) - plate).max(axis=2)
                m = cv2.dilate((cv2.blur(d, (5, 5)) > 22).astype(np.uint8), k)
                m = self._view(m[..., None].repeat(3, 2).astype(np.float32), cv2.INTER_NEAREST)[..., 0] > 0
                self.people.append(m)

    def _view(self, img, interp=cv2.INTER_AREA):
        x, y, w, h = self.crop
        img = img[y:y + h, x:x + w]
        if self.scale > 1:
            interp = cv2.INTER_CUBIC if interp != cv2.INTER_NEAREST else interp
        img = cv2.resize(img, self.size, interpolation=interp)
        return img[:, ::-1].copy() if self.mirror else img

    def to_view(self, x, y):
        X = (x - self.crop[0]) * self.scale
        Y = (y - self.crop[1]) * self.scale
        return (self.size[0] - X if self.mirror else X), Y


def illumination(spec, t):
    """Per-channel gain at frame t: the piecewise-linear gain of the keys, tinted as it drops."""
    il = spec.get("illum")
    if not il:
        return np.ones(3, np.float32)
    keys = il["keys"]
    g = float(np.interp(t, [k[0] for k in keys], [k[1] for k in keys]))
    lo = min(k[1] for k in keys)
    amount = 0.0 if g >= 1 or lo >= 1 else min(1.0, (1 - g) / (1 - lo))
    tint = np.array(il["tint"], np.float32)
    return g * (1 + (tint - 1) * amount)


def rgb_to_y(rgb):
    """Studio-range BT.601 luma, as cv2's RGB -> I420 (the encoded frames)."""
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420)[:rgb.shape[0]]


def render_part(spec, src_dir, pool, frames, t_offset, out_frames, out_labels, out_bg):
    W, H = spec["size"]
    rng = np.random.default_rng(spec["seed"])
    source = Source(src_dir, spec["source"], spec["crop"], (W, H), spec.get("mirror", False),
                    spec.get("t0", 0), frames, spec.get("people_dontcare", False))
    k, yh = spec["perspective"]
    movers = []
    for m in spec["movers"]:
        mv = sprites.Mover(m["kind"], m["points"], m["speed"], m["start"], m.get("stops", ()),
                           m.get("hold_start", False))
        h0 = k * (m["points"][0][1] - yh) * source.scale
        mv.sprite = (sprites.Person if m["kind"] == "person" else sprites.Car)(
            rng, pool, h0 if m["kind"] == "person" else 0.55 * h0)
        mv.h0 = h0
        movers.append(mv)
    sh = spec.get("shadows")
    band_k = np.ones((3, 3), np.uint8)
    for t in range(frames):
        bg = source.frames[t].copy()
        cover = np.zeros((H, W), np.float32)
        shadow = np.zeros((H, W), np.float32)
        placed, dontcare = [], np.zeros((H, W), bool)
        for mv in movers:
            st = mv.state(t)
            if st is None:
                continue
            x, y, walked, facing, moving = st
            X, Y = source.to_view(x, y)
            if spec.get("mirror"):
                facing = -facing
            rgb, alpha = mv.sprite.render(walked * source.scale, facing)
            hc = k * (y - yh) * source.scale * (1.0 if mv.kind == "person" else 0.55)
            if abs(hc - rgb.shape[0]) > 0.03 * rgb.shape[0]:
                s = hc / rgb.shape[0]
                size = (max(2, int(round(rgb.shape[1] * s))), max(2, int(round(rgb.shape[0] * s))))
                rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
                alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
            x0, y0 = X - rgb.shape[1] / 2.0, Y - rgb.shape[0]
            if mv.hold_start and t < mv.start:
                # Part of the scene until it first moves (the removed object): in the background,
                # not scored while it stands.
                a = np.zeros((H, W), np.float32)
                sprites.paste(bg, a, rgb, alpha, x0, y0)
                dontcare |= a > 0.02
                continue
            placed.append((Y, rgb, alpha, x0, y0))
            if sh:
                shear = sh["shear"] * (-1 if spec.get("mirror") else 1)
                shadow = np.maximum(shadow, sprites.shadow_map(alpha, x0, y0, H, W, shear, sh["squash"],
                                                               sh["blur"] * source.scale))
        canvas = bg.copy()
        if sh:
            tint = np.array(sh["tint"], np.float32)
            f = (1 - sh["strength"] * shadow)[..., None] * (1 + (tint - 1) * shadow[..., None])
            canvas *= f
        for Y, rgb, alpha, x0, y0 in sorted(placed, key=lambda p: p[0]):
            sprites.paste(canvas, cover, rgb, alpha, x0, y0)
        fg = cover >= 0.5
        edge = cv2.dilate(fg.astype(np.uint8), band_k) != cv2.erode(fg.astype(np.uint8), band_k)
        band = edge | ((cover > 0.02) & (cover < 0.98))
        labels = np.zeros((H, W), np.uint8)
        labels[(shadow >= 0.3)] = 50
        if source.people is not None:
            dontcare |= source.people[t]
        labels[dontcare] = 170
        labels[fg] = 255
        labels[band] = 170
        gain = illumination(spec, t + t_offset)
        canvas *= gain
        bg *= gain
        noise = rng.normal(0.0, spec["noise"], canvas.shape).astype(np.float32)
        img = np.clip(np.rint(canvas + noise), 0, 255).astype(np.uint8)
        out_frames.write(cv2.cvtColor(img, cv2.COLOR_RGB2YUV_I420).tobytes())
        out_labels.append(labels)
        out_bg.append(rgb_to_y(np.clip(np.rint(bg), 0, 255).astype(np.uint8)))


def encode(raw, spec, out_mp4, decoded):
    W, H = spec["size"]
    fps = spec["fps"]
    subprocess.run(
        "gst-launch-1.0 -q filesrc location='%s' ! rawvideoparse width=%d height=%d format=i420 "
        "framerate=%d/1 colorimetry=bt601 ! x264enc pass=quant quantizer=%d speed-preset=faster "
        "key-int-max=%d bframes=0 ! video/x-h264,profile=high ! h264parse ! mp4mux ! filesink location='%s'"
        % (raw, W, H, fps, spec["qp"], 2 * fps, out_mp4), shell=True, check=True)
    subprocess.run(
        "gst-launch-1.0 -q filesrc location='%s' ! qtdemux ! h264parse ! avdec_h264 ! "
        "video/x-raw,format=I420 ! filesink location='%s'" % (out_mp4, decoded), shell=True, check=True)
    n = os.path.getsize(decoded) // (W * H * 3 // 2)
    if n != spec["frames_total"]:
        sys.exit("make_corpus: %s decoded %d frames, expected %d" % (out_mp4, n, spec["frames_total"]))


def make(spec, src_dir, pool, out):
    d = os.path.join(out, spec["name"])
    os.makedirs(d, exist_ok=True)
    W, H = spec["size"]
    assert W % 8 == 0 and H % 2 == 0, "width must be a multiple of 8, height even"
    cut = spec.get("cut")
    spec["frames_total"] = spec["frames"] + (cut["frames"] if cut else 0)
    labels, bgy = [], []
    with tempfile.NamedTemporaryFile(suffix=".i420", dir=d, delete=False) as raw:
        render_part(spec, src_dir, pool, spec["frames"], 0, raw, labels, bgy)
        if cut:
            second = dict(spec, **{k: v for k, v in cut.items() if k not in ("grace",)})
            second.setdefault("t0", 0)
            second["people_dontcare"] = second["source"] == "vtest.avi"
            second["perspective"] = (scenes.VTEST_PERSPECTIVE if second["source"] == "vtest.avi"
                                     else scenes.TREE_PERSPECTIVE)
            second["illum"] = None
            render_part(second, src_dir, pool, cut["frames"], spec["frames"], raw, labels, bgy)
            for t in range(spec["frames"], spec["frames"] + cut["grace"]):
                labels[t][:] = 170
    try:
        encode(raw.name, spec, os.path.join(d, "video.mp4"), os.path.join(d, "decoded.i420"))
    finally:
        os.unlink(raw.name)
    np.savez_compressed(os.path.join(d, "truth.npz"), labels=np.array(labels), bg_y=np.array(bgy))
    meta = dict(name=spec["name"], split=spec["split"], width=W, height=H, frames=spec["frames_total"],
                fps=spec["fps"], warmup=spec["warmup"], cut=spec["frames"] if cut else None,
                grace=cut["grace"] if cut else 0, source=spec["source"],
                cut_source=cut["source"] if cut else None)
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return meta


def write_list(out):
    with open(os.path.join(out, "list.txt"), "w") as f:
        for name in sorted(os.listdir(out)):
            p = os.path.join(out, name, "meta.json")
            if os.path.isfile(p):
                m = json.load(open(p))
                f.write("%s %d %d %d %d\n" % (m["name"], m["width"], m["height"], m["frames"], m["fps"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=os.path.join(REPO, "build-quality", "cache"))
    ap.add_argument("--out", default=os.path.join(REPO, "build-quality", "corpus"))
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    src = fetch(a.cache)
    pool = texture_pool(src)
    only = set(filter(None, a.only.split(",")))
    os.makedirs(a.out, exist_ok=True)
    for spec in scenes.corpus(lambda s: np.random.default_rng(s)):
        if only and spec["name"] not in only:
            continue
        m = make(spec, src, pool, a.out)
        print("%-14s %-5s %4dx%-4d %3d frames  %6.1f kB" % (
            m["name"], m["split"], m["width"], m["height"], m["frames"],
            os.path.getsize(os.path.join(a.out, m["name"], "video.mp4")) / 1024.0))
        sys.stdout.flush()
        write_list(a.out)


if __name__ == "__main__":
    main()
