#!/usr/bin/env python3
"""How long a run of the test suite took, from meson's log: the run's wall time, the longest tests,
and every test that took more than a tenth of its timeout (a test near its timeout fails on a loaded
machine).

Usage: tools/test-times.py BUILD_DIR [LOG_NAME]   (LOG_NAME: testlog, testlog-intel, ...)
Exit 1 when a test took more than a tenth of its timeout, else 0."""
import json
import subprocess
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split('\n\n')[1])
    build = sys.argv[1]
    log = sys.argv[2] if len(sys.argv) == 3 else 'testlog'
    with open(f'{build}/meson-logs/{log}.json', encoding='utf-8') as f:
        rows = [json.loads(line) for line in f if line.strip()]
    tests = json.loads(subprocess.run(['meson', 'introspect', '--tests', build], check=True,
                                      capture_output=True, text=True).stdout)
    timeout = {t['name']: t['timeout'] for t in tests}
    if not rows:
        sys.exit('no tests in the log')
    start = min(r['starttime'] for r in rows)
    end = max(r['starttime'] + r['duration'] for r in rows)
    print(f'{len(rows)} tests, wall {end - start:.0f} s, '
          f'sum of their times {sum(r["duration"] for r in rows):.0f} s')
    print('longest:')
    for r in sorted(rows, key=lambda r: -r['duration'])[:10]:
        print(f'  {r["duration"]:7.1f} s  {r["name"]}')
    near = []
    for r in rows:
        name = r['name'].split(' / ', 1)[-1]
        limit = timeout.get(name)
        if limit and r['duration'] > limit / 10:
            near.append(f'  {r["duration"]:7.1f} s of {limit} s  {r["name"]}')
    print('over a tenth of their timeout: ' + (str(len(near)) if near else 'none'))
    print('\n'.join(near)) if near else None
    sys.exit(1 if near else 0)


if __name__ == '__main__':
    main()
