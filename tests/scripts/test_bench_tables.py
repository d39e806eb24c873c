#!/usr/bin/env python3
"""scripts/gpu/bench_tables.py on a made-up results archive: device and commit from summary.txt,
a benchmark's Markdown table copied, its csv block turned into a table, its other text kept
preformatted, the decode pipelines' times and rate, --only, and exit status 1 without results."""
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu",
                      "bench_tables.py")

SUMMARY = """name, driver_version, memory.total [MiB], clocks.sm [MHz], clocks.max.sm [MHz]
NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB, 1980 MHz, 1980 MHz
commit: 0123456789abcdef0123456789abcdef01234567
pipeline nvh264dec ! fakesink sync=false: 0:00:00.400 0:00:00.375 0:00:00.380
"""
BENCH = """# bench_x; frames in device memory
| size | fps |
| --- | --- |
| 640x480 | 9670 |

checked: 0 mismatches

# csv
width,height,fps
640,480,9670.2
"""


def run(path, *args):
    p = subprocess.run([sys.executable, SCRIPT, path] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout


class BenchTables(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        for name, text in [("summary.txt", SUMMARY), ("bench_x.md", BENCH),
                           ("bench_x.cmd", "bench_x --out bench_x.md --quick\n"),
                           ("bench_y.md", "| a |\n| --- |\n| 1 |\n")]:
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        self.tgz = os.path.join(d, "results.tgz")
        with tarfile.open(self.tgz, "w:gz") as tar:
            for name in ["summary.txt", "bench_x.md", "bench_x.cmd", "bench_y.md"]:
                tar.add(os.path.join(d, name), arcname="./" + name)

    def tearDown(self):
        self.dir.cleanup()

    def test_archive(self):
        rc, out = run(self.tgz)
        self.assertEqual(rc, 0)
        self.assertIn("### bench_x\n", out)
        self.assertIn("NVIDIA H100 80GB HBM3 (driver 580.159.04), commit 0123456: "
                      "`bench_x --out bench_x.md --quick`", out)
        self.assertIn("| size | fps |\n| --- | --- |\n| 640x480 | 9670 |", out)
        self.assertIn("```\nchecked: 0 mismatches\n```", out)
        self.assertIn("| width | height | fps |\n| --- | --- | --- |\n| 640 | 480 | 9670.2 |", out)
        # 300 frames in the best of 0.400, 0.375, 0.380 s: 800 fps.
        self.assertIn("| `fakesink sync=false` | 0.400, 0.375, 0.380 | 800 |", out)
        # A benchmark without a .cmd file is named by itself.
        self.assertIn("commit 0123456: `bench_y`", out)

    def test_folder_and_only(self):
        rc, out = run(self.dir.name, "--only", "bench_y")
        self.assertEqual(rc, 0)
        self.assertIn("### bench_y", out)
        self.assertNotIn("### bench_x", out)
        self.assertNotIn("Decode pipelines", out)

    def test_nothing_to_print(self):
        with tempfile.TemporaryDirectory() as empty:
            rc, out = run(empty)
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")


if __name__ == "__main__":
    unittest.main()
