#!/usr/bin/env python3
"""Counts test cases in Meson's JUnit log (gtest binaries count each of their cases) and prints the
closing line "N passed, N failed" (skipped cases are reported on the line before)."""
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
    for f in failures:
        print(f"FAILED: {f}")
    print(f"{skipped} skipped")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "build/meson-logs/testlog.junit.xml"))
