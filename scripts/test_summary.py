#!/usr/bin/env python3
"""Counts test cases in Meson's JUnit log (gtest binaries count each of their cases) and prints the
closing line "N passed, N failed" (skipped cases are reported on the line before). A test that Meson
reports as failed (testlog.json beside the JUnit log: a crash, a kill, a timeout, a bad exit) without
a failed case of its own counts as one failure: it may have died before reporting its cases."""
import json
import os
import sys
import xml.etree.ElementTree as ET

def main(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"no test log ({e})")
        print("0 passed, 1 failed")
        return 1
    passed = failed = skipped = 0
    failures = []
    for suite in root.iter("testsuite"):
        for case in suite.findall("testcase"):
            name = f"{suite.get('name')} / {case.get('classname', '')}.{case.get('name')}"
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failures.append(name)
            elif case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
    log = os.path.join(os.path.dirname(path), "testlog.json")
    try:
        with open(log) as f:
            results = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        results = []
    for r in results:
        name = r.get("name", "?")
        if r.get("result") in ("OK", "SKIP", "EXPECTEDFAIL"):
            continue
        if not any(f.startswith(name + " ") or f == name for f in failures):
            failed += 1
            failures.append(f"{name} ({r.get('result')})")
    for f in failures:
        print(f"FAILED: {f}")
    print(f"{skipped} skipped")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build/meson-logs/testlog.junit.xml"))
