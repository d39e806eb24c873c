#!/usr/bin/env python3
"""The repository's text speaks of the project only: no file may tell how the work was organised
(the work's periods and their numbered iterations, lettered device runs, engineers' branch names,
the people involved) or point outside the repository (a `shared/` folder beside the clone,
absolute paths of one machine).
Such history belongs in commit messages; a clone must build, test and read without anything
beside it.

Files: those git tracks (`git ls-files`) when the source folder is a git checkout (and git runs),
else every file below it except build folders (a folder holding meson-private/) and hidden folders. Binary files
(a NUL byte in the first 8 KiB) are skipped. Prints every hit as `path:line: [rule] text` and
exits 1 when there is one.

Usage: test_repo_text.py [SOURCE_ROOT]   (default: the repository holding this file)
"""
import os
import re
import subprocess
import sys

# Built from pieces so that this file does not match its own rules.
RULES = [
    ("work period", re.compile(r"\b" + "sess" + r"ions?\b", re.I)),
    ("numbered round", re.compile(
        r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
        r"\d+(st|nd|rd|th)) " + "rou" + r"nds?\b", re.I)),
    ("lettered call", re.compile(r"\b[Cc]" + "alls? " + r"[A-Z][0-9]?\b(?![-\w])")),
    ("branch name", re.compile(r"\bs\d{2}-[a-z]{2,}[a-z0-9]*\b")),
    ("engineer", re.compile(r"\bhelpers?'?s? (branch|branches|worktree|" + "sess" + r"ion)\b|"
                            r"\bhelper [a-z]{2}\d+\b|\bthe " + "le" + r"ad\b(?! time)", re.I)),
    ("path outside the repository", re.compile(
        r"\.\./" + "shared" + r"\b|(?<![\w.-])" + "shared" +
        r"/(papers|design|notes|device|testdata|hooks)\b|(?<![\w.])/" + "work" + r"/")),
    ("work tool", re.compile(r"\b" + "dev" + r"ice tool\b|\.device/call", re.I)),
]


def tracked_files(root):
    """Paths relative to root: git's tracked files, or a walk of the tree without a .git."""
    if os.path.exists(os.path.join(root, ".git")):
        try:
            out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                                 capture_output=True).stdout
            return [p for p in out.decode("utf-8", "replace").split("\0") if p]
        except (OSError, subprocess.CalledProcessError):
            pass  # no git here (e.g. a build tree without it): walk the folder
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and
                       not os.path.isdir(os.path.join(dirpath, d, "meson-private"))]
        for name in filenames:
            files.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(files)


def scan(root, paths):
    this = os.path.realpath(__file__)
    hits = []
    for rel in paths:
        path = os.path.join(root, rel)
        if os.path.realpath(path) == this or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read(8192)
            if b"\0" in data:
                continue
            data += f.read()
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            for rule, rx in RULES:
                if rx.search(line):
                    hits.append("%s:%d: [%s] %s" % (rel, n, rule, line.strip()[:160]))
    return hits


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", ".."))
    hits = scan(root, tracked_files(root))
    for h in hits:
        print(h)
    if hits:
        print("%d line(s) tell how the work was done or point outside the repository: keep such "
              "history in commit messages (tests/scripts/test_repo_text.py)." % len(hits))
        return 1
    print("repository text: no history wording, no paths outside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
