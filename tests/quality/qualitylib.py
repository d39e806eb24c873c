"""Loading and scoring for the quality corpus (tests/quality/corpus/make_corpus.py): CDnet-style
metrics of foreground masks and the error of background images. numpy only (OpenCV is needed by
score.py's baselines, not here).

Metrics, per sequence, summed over the frames from the warm-up on (meta "warmup", 100) and over the
pixels whose label is not 170 (unknown):
  TP: mask set, label 255; FP: mask set, label 0 or 50; FN: mask clear, label 255
  precision TP/(TP+FP), recall TP/(TP+FN), F = 2PR/(P+R)
  shadow FPR: (mask set, label 50) / (label 50) (CDnet's FPR-S)
  background MAE: mean |estimate luma - true background luma| over the same frames and pixels
A sequence's mean over several sequences is the plain mean of their per-sequence values.
"""
import bz2
import gzip
import json
import lzma
import os

import numpy as np


def sequences(corpus, split="all"):
    out = []
    for name in sorted(os.listdir(corpus)):
        p = os.path.join(corpus, name, "meta.json")
        if os.path.isfile(p):
            m = json.load(open(p))
            if split in ("all", m["split"]):
                out.append(m)
    return out


def load_truth(corpus, name):
    t = np.load(os.path.join(corpus, name, "truth.npz"))
    return t["labels"], t["bg_y"]


def load_i420(corpus, meta):
    """The decoded frames, (n, h*3/2, w) uint8 I420."""
    w, h, n = meta["width"], meta["height"], meta["frames"]
    return np.fromfile(os.path.join(corpus, meta["name"], "decoded.i420"), np.uint8).reshape(n, h * 3 // 2, w)


def _read(path, frame_bytes, n):
    op = {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}.get(os.path.splitext(path)[1], open)
    with op(path, "rb") as f:
        data = np.frombuffer(f.read(), np.uint8)
    if data.size != frame_bytes * n:
        raise ValueError("%s: %d bytes, expected %d frames of %d" % (path, data.size, n, frame_bytes))
    return data.reshape(n, frame_bytes)


def find_dump(directory, name, kind):
    """The dump of `kind` ("mask", "bg" or "bgyd") of sequence `name` in `directory`, whatever its
    compression; None when there is none."""
    for ext in (".xz", ".gz", ".bz2", ""):
        p = os.path.join(directory, "%s.%s%s" % (name, kind, ext))
        if os.path.isfile(p):
            return p
    return None


def load_masks(path, meta):
    w, h, n = meta["width"], meta["height"], meta["frames"]
    return _read(path, w * h, n).reshape(n, h, w) > 0


def load_background_y(path, meta):
    """The luma of a background dump: "<name>.bg*" holds 4:2:0 frames (luma first), "<name>.bgyd*"
    luma planes stored as differences from the previous frame modulo 256 (bg_luma_delta.py)."""
    w, h, n = meta["width"], meta["height"], meta["frames"]
    if ".bgyd" in os.path.basename(path):
        d = _read(path, w * h, n).reshape(n, h, w)
        return np.cumsum(d, axis=0, dtype=np.uint8)  # the running sum wraps like the encoder
    return _read(path, w * h * 3 // 2, n)[:, :w * h].reshape(n, h, w)


class Counts:
    def __init__(self):
        self.tp = self.fp = self.fn = self.tn = self.shadow = self.shadow_fp = 0
        self.frames = 0

    def add(self, mask, labels):
        fg, bg = labels == 255, (labels == 0) | (labels == 50)
        sh = labels == 50
        self.tp += int(np.count_nonzero(mask & fg))
        self.fn += int(np.count_nonzero(~mask & fg))
        self.fp += int(np.count_nonzero(mask & bg))
        self.tn += int(np.count_nonzero(~mask & bg))
        self.shadow += int(np.count_nonzero(sh))
        self.shadow_fp += int(np.count_nonzero(mask & sh))
        self.frames += 1

    def metrics(self):
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return dict(F=f, precision=p, recall=r,
                    shadow_fpr=(self.shadow_fp / self.shadow) if self.shadow else None,
                    fpr=self.fp / (self.fp + self.tn) if self.fp + self.tn else 0.0)


def score_masks(masks, labels, meta):
    """Metrics of a (n, h, w) bool mask stack; plus, for a sequence with a cut, `recovery`: frames
    after the cut until the false-positive rate of a frame first drops below 1% (None: never)."""
    c = Counts()
    for t in range(meta["warmup"], meta["frames"]):
        c.add(masks[t], labels[t])
    out = c.metrics()
    if meta.get("cut"):
        out["recovery"] = None
        for t in range(meta["cut"], meta["frames"]):
            bg = labels[t] == 0
            if meta.get("grace"):
                bg = ~np.isin(labels[min(meta["frames"] - 1, meta["cut"] + meta["grace"])], (170, 255))
            fpr = np.count_nonzero(masks[t] & bg) / max(1, np.count_nonzero(bg))
            if fpr < 0.01:
                out["recovery"] = t - meta["cut"]
                break
    return out


def background_mae(est_y, bg_y, labels, meta):
    err, cnt = 0.0, 0
    for t in range(meta["warmup"], meta["frames"]):
        keep = labels[t] != 170
        err += float(np.abs(est_y[t].astype(np.int32) - bg_y[t].astype(np.int32))[keep].sum())
        cnt += int(np.count_nonzero(keep))
    return err / cnt if cnt else None


def running_median_y(frames_y, window):
    """The plain per-pixel median of the last `window` frames (causal; the issue's baseline)."""
    n = frames_y.shape[0]
    out = np.empty_like(frames_y)
    for t in range(n):
        out[t] = np.median(frames_y[max(0, t - window + 1):t + 1], axis=0).astype(np.uint8)
    return out
