#!/usr/bin/python3
"""cvis-cedd command-line tests (TAP): good and bad inputs.

Usage: test_cvis_cedd.py CVIS_CEDD_EXE TESTDATA_DIR
Needs GST_PLUGIN_PATH (the built plugin) and the system plugins decodebin, pngdec/pngenc,
videoconvert, appsink, multifilesrc/multifilesink, avimux/avidemux (plugins-base/good).
CVIS_REQUIRE_GPU=1 (GPU host): backend=cuda must work and be bit-exact too.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

EXE = sys.argv[1]
DATA = os.path.join(sys.argv[2], "cedd")
RESULTS = []


def case(name, ok, diag=""):
    RESULTS.append(ok)
    print(("ok" if ok else "not ok") + " %d - %s" % (len(RESULTS), name))
    if not ok and diag:
        for line in str(diag).splitlines()[:20]:
            print("# " + line)
    sys.stdout.flush()
    return ok


def skip(name, why):
    RESULTS.append(True)
    print("ok %d - %s # SKIP %s" % (len(RESULTS), name, why))


# Cross builds run the tool through Meson's exe_wrapper (e.g. qemu-aarch64).
WRAPPER = os.environ.get("CVIS_EXE_WRAPPER", "").split()


def run(*args, env=None):
    p = subprocess.run(WRAPPER + [EXE] + [str(a) for a in args], capture_output=True, text=True,
                       env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def read_tsv(name):
    rows = {}
    with open(os.path.join(DATA, name)) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            rows[cols[0]] = cols[1:]
    return rows


def pack(levels):
    """The 3-bit packed form documented in cvisceddmeta.h."""
    bits = 0
    for i, v in enumerate(levels):
        bits |= (v & 7) << (3 * i)
    return bits.to_bytes(54, "little").hex()


def one_line_error(name, rc, out, err, expect=None):
    lines = err.splitlines()
    good = (rc != 0 and out == "" and len(lines) == 1 and lines[0].startswith("cvis-cedd: ")
            and (expect is None or expect in lines[0]))
    return case(name, good, "rc=%d\nstdout=%r\nstderr=%r" % (rc, out, err))


def comma_locale(tmp):
    """(LOCPATH, name) of a locale whose decimal separator is a comma, compiled into `tmp` with
    localedef (no system locale is needed), or None."""
    out = os.path.join(tmp, "locales")
    for src, name in (("de_DE", "de_DE.UTF-8"), ("fr_FR", "fr_FR.UTF-8")):
        try:
            os.makedirs(out, exist_ok=True)
            subprocess.run(["localedef", "-i", src, "-f", "UTF-8", os.path.join(out, name)],
                           check=True, capture_output=True, timeout=120)
            return out, name
        except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
            continue
    return None


def max_rss_kib(*args):
    """Peak resident memory (KiB) of one cvis-cedd run (it must succeed)."""
    code = ("import resource, subprocess, sys; "
            "r = subprocess.run(sys.argv[1:], capture_output=True); "
            "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    p = subprocess.run([sys.executable, "-c", code, EXE] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=300)
    rc, rss = p.stdout.split()
    return int(rss) if rc == "0" else -1


def make_video(tmp, path):
    """16 frames 160x120 in raw-video AVI: 8 of SMPTE bars then 8 of snow (a shot change at 8)."""
    seq = os.path.join(tmp, "seq")
    os.makedirs(seq)
    caps = "video/x-raw,format=RGB,width=160,height=120"
    for pattern, first in (("smpte", 0), ("snow", 8)):
        subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=8",
                        "pattern=" + pattern, "!", caps, "!", "pngenc", "!", "multifilesink",
                        "location=" + os.path.join(seq, "f%03d.png"), "index=%d" % first],
                       check=True, capture_output=True, timeout=120)
    subprocess.run(["gst-launch-1.0", "-q", "multifilesrc",
                    "location=" + os.path.join(seq, "f%03d.png"),
                    "caps=image/png,framerate=10/1", "!", "pngdec", "!", "videoconvert", "!",
                    "video/x-raw,format=I420", "!", "avimux", "!", "filesink",
                    "location=" + path], check=True, capture_output=True, timeout=120)
    shutil.rmtree(seq)


def postgres_cases(tmp, media, names, pngs):
    """index and search on the throw-away PostgreSQL server (scripts/pg-scratch.sh)."""
    uri = os.environ.get("CVIS_PG_URI")
    why = os.environ.get("CVIS_PG_SKIP") or ("" if uri else "no throw-away server")
    if why:
        skip("PostgreSQL: index and search", why)
        return
    dbname = "tool%d" % os.getpid()
    p = subprocess.run(["psql", uri, "-qc", "CREATE DATABASE " + dbname], capture_output=True,
                       text=True)
    if p.returncode != 0:
        skip("PostgreSQL: index and search", "psql: " + p.stderr.strip())
        return
    pg = uri.replace("/postgres?", "/%s?" % dbname)
    rc, out, err = run("index", media, "--db", pg, "--backend", "cpu")
    if rc != 0 and "no PostgreSQL support" in err:
        skip("PostgreSQL: index and search", "this build has no PostgreSQL back end")
        return
    case("PostgreSQL: index DIR exits 0", rc == 0, err)
    q = subprocess.run(["psql", pg, "-tAc", "SELECT COUNT(*) FROM descriptors WHERE roi_id = -1 "
                        "AND frame = 0 AND stream LIKE '%.png'"], capture_output=True, text=True)
    case("PostgreSQL: one frame row per PNG", q.stdout.strip() == str(len(names)), q.stdout + q.stderr)
    rc, out, err = run("search", pngs[2], "--db", pg, "-k", "3", "--json", "--backend", "cpu")
    try:
        js = json.loads(out)
        good = (rc == 0 and js[0]["distance"] == 0
                and js[0]["stream"] == os.path.join(media, names[2]))
    except (ValueError, KeyError, TypeError, IndexError) as e:
        good, err = False, "%s\n%s" % (e, out[:500])
    case("PostgreSQL: search finds the image itself first", good, err or out)
    secret = "NotThePw4711"
    bad = pg.replace("postgresql://cvis@", "postgresql://cvis:%s@" % secret)
    rc, out, err = run("search", pngs[0], "--db", bad)
    one_line_error("PostgreSQL: a wrong password: one line", rc, out, err,
                   "password authentication failed")
    case("PostgreSQL: the password is not in the message", secret not in err, err)
    rc, out, err = run("search", pngs[0], "--db", uri.replace("/postgres?", "/nosuchdb?"))
    one_line_error("PostgreSQL: a missing database: one line", rc, out, err, "nosuchdb")
    subprocess.run(["psql", uri, "-qc", "DROP DATABASE %s WITH (FORCE)" % dbname],
                   capture_output=True)


def main():
    expected = read_tsv("expected.tsv")           # name -> [w, h, sha, b000..b143]
    serialized = read_tsv("expected_serialized.tsv")  # name -> [num_bytes, hex]
    names = sorted(expected)
    pngs = [os.path.join(DATA, n) for n in names]

    # --- describe: bit-exact with LIRE's reference vectors (integer levels: exact) -----------
    rc, out, err = run("describe", "--backend", "cpu", *pngs)
    lines = out.splitlines()
    case("describe runs on the six PNGs", rc == 0 and len(lines) == len(names), err)
    for i, n in enumerate(names):
        want = " ".join(expected[n][3:])
        case("describe values bit-exact: " + n, i < len(lines) and lines[i] == want,
             "got  %s\nwant %s" % (lines[i] if i < len(lines) else None, want))
    rc, out, err = run("describe", "-b", "cpu", "--format", "lire", *pngs)
    lines = out.splitlines()
    for i, n in enumerate(names):
        want = serialized[n][1]
        case("describe lire bit-exact: " + n, rc == 0 and i < len(lines) and lines[i] == want,
             "rc=%d got %s want %s" % (rc, lines[i] if i < len(lines) else None, want))
    rc, out, err = run("describe", "-b", "cpu", "--format", "packed", *pngs)
    want = [pack([int(v) for v in expected[n][3:]]) for n in names]
    case("describe packed = 3-bit packing of the reference", rc == 0 and out.split() == want,
         err or out)
    rc, out, err = run("describe", "-b", "cpu", "--json", *pngs)
    try:
        js = json.loads(out)
        good = rc == 0 and len(js) == len(names) and all(
            o["file"] == p and o["width"] == int(expected[n][0])
            and o["height"] == int(expected[n][1])
            and o["levels"] == [int(v) for v in expected[n][3:]]
            and o["packed"] == pack(o["levels"]) and o["lire"] == serialized[n][1]
            for o, p, n in zip(js, pngs, names))
    except (ValueError, KeyError, TypeError) as e:
        good, err = False, "%s\n%s" % (e, out[:500])
    case("describe --json: file, size, levels, packed, lire", good, err)

    # backend=cuda: bit-exact on a GPU host, else one clean line.
    rc, out, err = run("describe", "--backend", "cuda", pngs[0])
    if rc == 0:
        case("describe --backend cuda bit-exact", out.strip() == " ".join(expected[names[0]][3:]),
             out)
    elif os.environ.get("CVIS_REQUIRE_GPU") == "1":
        case("describe --backend cuda (GPU required)", False, err)
    else:
        one_line_error("describe --backend cuda without a GPU: one line", rc, out, err, "CUDA")

    # --- index + search --------------------------------------------------------------------
    tmp = tempfile.mkdtemp(prefix="cvis-cedd-test-")
    try:
        media = os.path.join(tmp, "media")
        os.makedirs(os.path.join(media, "clips"))
        video = os.path.join(media, "clips", "shots.avi")
        text = os.path.join(tmp, "notes.txt")
        with open(text, "w") as f:
            f.write("not an image\n")
        shutil.copy(text, os.path.join(media, "readme.txt"))
        for p in pngs:
            shutil.copy(p, media)
        db = os.path.join(tmp, "index.db")
        try:
            make_video(tmp, video)
            have_video = True
        except (subprocess.CalledProcessError, OSError) as e:
            have_video = False
            skip("generate a test video", "gst-launch-1.0 / plugins unavailable: %s" % e)
        rc, out, err = run("index", media, "--db", db, "--backend", "cpu")
        lines = out.splitlines()
        case("index DIR exits 0", rc == 0, err)
        indexed = [line for line in lines if line.startswith("indexed\t")]
        case("index prints a line per file", len(indexed) == len(names) + (1 if have_video else 0),
             out)
        case("index skips the text file with one note on stderr",
             err.count("\n") == 1 and "readme.txt" in err and "skipping" in err, err)
        with sqlite3.connect(db) as con:
            total = con.execute("SELECT COUNT(*) FROM descriptors").fetchone()[0]
            per_png = [con.execute("SELECT COUNT(*), MIN(frame), MIN(roi_id) FROM descriptors "
                                   "WHERE stream = ?", (os.path.join(media, n),)).fetchone()
                       for n in names]
            vid = con.execute("SELECT COUNT(*), MAX(frame) FROM descriptors WHERE stream = ?",
                              (video,)).fetchone()
            shot_rows = [r[0] for r in con.execute(
                "SELECT frame FROM descriptors WHERE stream = ? AND shot_change = 1", (video,))]
        case("index: one frame row per PNG", per_png == [(1, 0, -1)] * len(names), per_png)
        if have_video:
            case("index: 16 rows for the video (frames 0..15)", vid == (16, 15), vid)
            case("index: total rows = PNGs + video frames", total == len(names) + 16, total)
            shots = [line.split("\t") for line in lines if line.startswith("shot\t")]
            case("index prints the shot change (stream, frame 8, pts, distance)",
                 len(shots) == 1 and shots[0][1] == video and shots[0][2] == "frame=8"
                 and shots[0][3] == "pts=0:00:00.800000000" and shots[0][4].startswith("distance="),
                 out)
            case("index: the shot change is marked in the database", shot_rows == [8], shot_rows)
            rc, out, err = run("index", video, "--db", db, "-b", "cpu", "--shot-threshold", "100")
            with sqlite3.connect(db) as con:
                again = con.execute("SELECT COUNT(*) FROM descriptors").fetchone()[0]
                vid2 = con.execute("SELECT COUNT(*), MIN(frame), MAX(frame), SUM(shot_change) "
                                   "FROM descriptors WHERE stream = ?", (video,)).fetchone()
            case("index a named file again replaces its rows (threshold 100: no shot)",
                 rc == 0 and again == total and vid2 == (16, 0, 15, 0) and "shot\t" not in out,
                 "%s %s %s" % (again, vid2, err or out))
        else:
            case("index: total rows = PNGs", total == len(names), total)

        for n in names:
            rc, out, err = run("search", os.path.join(DATA, n), "--db", db, "-k", "3", "--json",
                               "--backend", "cpu")
            try:
                js = json.loads(out)
                good = (rc == 0 and len(js) == 3 and js[0]["distance"] == 0
                        and js[0]["stream"] == os.path.join(media, n) and js[0]["frame"] == 0
                        and js[0]["roi_id"] == -1
                        and [o["distance"] for o in js] == sorted(o["distance"] for o in js))
            except (ValueError, KeyError, TypeError) as e:
                good, err = False, "%s\n%s" % (e, out[:500])
            case("search finds %s itself first at distance 0" % n, good, err or out)
        rc, out, err = run("search", pngs[0], "--db", db, "-b", "cpu")
        rows = out.splitlines()
        case("search text output: 10 rows, tab-separated",
             rc == 0 and len(rows) == 10 and rows[0].split("\t")[:3] == [
                 "0.0000", os.path.join(media, names[0]), "frame=0"], out)

        # --- --roi-type: only rows of one kind of region ---------------------------------------
        with sqlite3.connect(db) as con:
            con.execute("INSERT INTO descriptors(stream, frame, pts, roi_id, roi_type, x, y, w, h, "
                        "levels) SELECT 'tracks', 7, NULL, 4, 'track', 1, 2, 3, 4, levels "
                        "FROM descriptors WHERE roi_id = -1 LIMIT 1")
        rc, out, err = run("search", pngs[0], "--db", db, "-k", "50", "--json", "-b", "cpu",
                           "--roi-type", "track")
        rc2, out2, err2 = run("search", pngs[0], "--db", db, "-k", "50", "--json", "-b", "cpu",
                              "--roi-type", "frame")
        try:
            tracks, frames = json.loads(out), json.loads(out2)
            good = (rc == 0 and rc2 == 0 and len(tracks) == 1 and tracks[0]["roi_type"] == "track"
                    and tracks[0]["roi_id"] == 4 and tracks[0]["box"] == [1, 2, 3, 4]
                    and frames and all(o["roi_id"] == -1 for o in frames))
        except (ValueError, KeyError, TypeError) as e:
            good, err = False, "%s\n%s" % (e, out[:500])
        case("search --roi-type track / frame keeps only those rows", good, err or out + out2)
        with sqlite3.connect(db) as con:
            con.execute("DELETE FROM descriptors WHERE stream = 'tracks'")

        # --- numbers do not follow the locale (a decimal comma would break JSON) ------------
        comma = comma_locale(tmp)
        if comma is None:
            skip("search --json under a decimal-comma locale", "localedef / de_DE unavailable")
        else:
            env = dict(os.environ, LOCPATH=comma[0], LC_ALL=comma[1])
            rc, out, err = run("search", pngs[1], "--db", db, "-k", "4", "--json", "-b", "cpu",
                               env=env)
            try:
                js = json.loads(out)
                good = rc == 0 and len(js) == 4 and any(o["distance"] != int(o["distance"])
                                                        for o in js)
            except (ValueError, KeyError, TypeError) as e:
                good, err = False, "%s\n%s" % (e, out[:500])
            case("search --json under %s: numbers with a decimal point" % comma[1], good,
                 err or out)
            rc, out, err = run("search", pngs[1], "--db", db, "-k", "4", "-b", "cpu", env=env)
            case("search text under %s: distances with a decimal point" % comma[1],
                 rc == 0 and all("," not in line.split("\t")[0] for line in out.splitlines()),
                 out)

        # --- search streams the index: memory does not grow with the number of rows --------
        big = os.path.join(tmp, "big.db")
        shutil.copy(db, big)
        with sqlite3.connect(big) as con:
            rows = con.execute("SELECT stream, frame, pts, roi_id, roi_type, x, y, w, h, "
                               "shot_change, distance, levels FROM descriptors").fetchall()
            con.executemany("INSERT INTO descriptors(stream, frame, pts, roi_id, roi_type, x, y, "
                            "w, h, shot_change, distance, levels, region) "
                            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                            [("copy%d" % i,) + r[1:] + (j,) for i in range(20000)
                             for j, r in enumerate(rows[:10])])
        if WRAPPER:
            # Under an emulator the peak RSS is the emulator's: the case is skipped (TAP SKIP).
            RESULTS.append(True)
            print("ok %d - search streams 200 000 rows # SKIP peak RSS under an exe wrapper"
                  % len(RESULTS))
        else:
            small_rss = max_rss_kib("search", pngs[0], "--db", db, "-k", "3", "-b", "cpu")
            big_rss = max_rss_kib("search", pngs[0], "--db", big, "-k", "3", "-b", "cpu")
            # 200 000 rows take > 40 MiB as IndexRow objects; streamed, a few MiB of SQLite cache.
            case("search streams 200 000 rows (peak RSS %d KiB vs %d KiB for the small index)"
                 % (big_rss, small_rss), 0 < big_rss < small_rss + 16 * 1024,
                 (big_rss, small_rss))

        # --- a stored row as the query; filters by stream and time -----------------------------
        with sqlite3.connect(db) as con:
            row_id = con.execute("SELECT id FROM descriptors WHERE stream = ?",
                                 (os.path.join(media, names[0]),)).fetchone()[0]
        rc, out, err = run("search", "--row", row_id, "--db", db, "-k", "3", "--json", "-b", "cpu")
        try:
            js = json.loads(out)
            good = rc == 0 and js[0]["id"] == row_id and js[0]["distance"] == 0
        except (ValueError, KeyError, TypeError, IndexError) as e:
            good, err = False, "%s\n%s" % (e, out[:500])
        case("search --row ID: the stored row itself first", good, err or out)
        if have_video:
            rc, out, err = run("search", pngs[0], "--db", db, "-k", "50", "--json", "-b", "cpu",
                               "--stream", video, "--from", "0.5", "--to", "0:00:01")
            try:
                js = json.loads(out)
                good = (rc == 0 and sorted(o["frame"] for o in js) == list(range(5, 11))
                        and all(o["stream"] == video for o in js))
            except (ValueError, KeyError, TypeError) as e:
                good, err = False, "%s\n%s" % (e, out[:500])
            case("search --stream --from --to: frames 5..10 of the video only", good, err or out)

        # --- an index in a folder the user may not write (issue: 'attempt to write a readonly
        # database'): searched read-only, no side files needed -----------------------------------
        ro = os.path.join(tmp, "ro")
        os.makedirs(ro)
        shutil.copy(db, os.path.join(ro, "index.db"))
        os.chmod(tmp, 0o755)
        os.chmod(os.path.join(ro, "index.db"), 0o444)
        os.chmod(ro, 0o555)
        as_user = []
        if os.geteuid() == 0:
            # root writes anywhere: the case runs as nobody (setpriv, util-linux).
            as_user = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        # The query is a stored row: the case is about opening the index (no decoding needed).
        probe = None
        if not as_user or shutil.which("setpriv"):
            probe = subprocess.run(as_user + WRAPPER + [EXE, "--help"], capture_output=True)
        if probe is None or (as_user and probe.returncode != 0):
            skip("search an index in a read-only folder", "nobody cannot run the tool here")
        else:
            p = subprocess.run(as_user + WRAPPER + [EXE, "search", "--row", str(row_id), "--db",
                                                     os.path.join(ro, "index.db"), "-k", "2",
                                                     "--json", "-b", "cpu"],
                               capture_output=True, text=True, timeout=300)
            try:
                js = json.loads(p.stdout)
                good = p.returncode == 0 and js[0]["distance"] == 0 and js[0]["id"] == row_id
            except (ValueError, KeyError, TypeError, IndexError):
                good = False
            case("search an index in a read-only folder", good and sorted(os.listdir(ro)) ==
                 ["index.db"], "rc=%d %s %s %s" % (p.returncode, p.stderr, p.stdout[:300],
                                                  os.listdir(ro)))
        os.chmod(ro, 0o755)

        # --- a damaged page under the table 'info': said as such ------------------------------
        damaged = os.path.join(tmp, "damaged.db")
        shutil.copy(db, damaged)
        with sqlite3.connect(damaged) as con:
            page = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'info'").fetchone()[0]
            size = con.execute("PRAGMA page_size").fetchone()[0]
        with open(damaged, "r+b") as f:
            f.seek((page - 1) * size)
            f.write(b"\xa5" * size)
        rc, out, err = run("search", pngs[0], "--db", damaged, "-b", "cpu")
        one_line_error("search: a damaged table 'info' is reported as damaged", rc, out, err,
                       "cannot read the table 'info'")
        case("search: a damaged index is not called 'not a CEDD index'",
             "not a CEDD index" not in err, err)

        postgres_cases(tmp, media, names, pngs)

        # --- bad inputs: non-zero exit, one line on stderr, nothing on stdout -----------------
        other = os.path.join(tmp, "other.db")
        con = sqlite3.connect(other)
        con.execute("CREATE TABLE t(a)")
        con.commit()
        con.close()
        missing = os.path.join(tmp, "missing.png")
        bad = [
            ("describe: missing file", ["describe", missing], "missing.png"),
            ("describe: a text file as image", ["describe", text], "not an image"),
            ("describe: a directory as image", ["describe", tmp], "directory"),
            ("describe: unknown option", ["describe", "--frobnicate", pngs[0]], "frobnicate"),
            ("describe: bad --format", ["describe", "--format", "xml", pngs[0]], "--format"),
            ("describe: bad --backend", ["describe", "--backend", "gpu", pngs[0]], "--backend"),
            ("describe: no image", ["describe"], None),
            ("search: missing database", ["search", pngs[0], "--db", os.path.join(tmp, "no.db")],
             "no.db"),
            ("search: a non-index SQLite database", ["search", pngs[0], "--db", other],
             "not a CEDD index"),
            ("search: a text file as database", ["search", pngs[0], "--db", text], None),
            ("search: no --db", ["search", pngs[0]], "--db"),
            ("search: -k 0", ["search", pngs[0], "--db", db, "-k", "0"], "-k"),
            ("search: -k not a number", ["search", pngs[0], "--db", db, "-k", "x"], None),
            ("search: a text file as image", ["search", text, "--db", db], "not an image"),
            ("search: missing image", ["search", missing, "--db", db], "missing.png"),
            ("index: a named text file", ["index", text, "--db", db], "not an image"),
            ("index: missing file", ["index", missing, "--db", db], "missing.png"),
            ("index: a non-index SQLite database", ["index", pngs[0], "--db", other],
             "not a CEDD index"),
            ("index: bad --regions", ["index", pngs[0], "--db", db, "--regions", "all"],
             "--regions"),
            ("index: threshold out of range", ["index", pngs[0], "--db", db, "-t", "101"],
             "threshold"),
            ("unknown command", ["frobnicate"], "frobnicate"),
            ("no command", [], None),
        ]
        for name, args, expect in bad:
            rc, out, err = run(*args)
            one_line_error(name, rc, out, err, expect)
        with sqlite3.connect(other) as con:
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master")]
        case("a foreign database is left without our tables", tables == ["t"], tables)

        rc, out, err = run("--help")
        case("--help: usage on stdout, exit 0", rc == 0 and "Usage" in out and err == "", err)
        rc, out, err = run("search", "--help")
        case("search --help: options listed", rc == 0 and "--db" in out and "-k" in out, err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("1..%d" % len(RESULTS))
    return 0 if all(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
