#!/usr/bin/env python3
"""Names the Swift Testing tests a log shows as started and never passed, failed or skipped.

Used by .ci/run when the test process dies (a crash prints no test name of its own).
Usage: Scripts/unfinished-tests.py LOG
"""
import re
import sys

started = {}
finished = set()
# Swift Testing prints `Test name() started.` and `Test name() passed|failed|skipped ...`;
# the symbols in front of them differ by terminal, so only the words are matched.
# A parameterized test's cases (`Test case passing …`) and the whole run (`Test run`) are left
# out; a parameterized test ends with `Test name with N test cases passed`.
# Suites are left out too: they hold tests and say nothing of their own.
event = re.compile(r'Test (?!case passing )(?!run )(.+?)(?: with \d+ test cases?)? (started|passed|failed|skipped|recorded)\b')
with open(sys.argv[1], errors='replace') as log:
    for number, line in enumerate(log):
        match = event.search(line)
        if not match:
            continue
        name, what = match.groups()
        if what == 'started':
            started.setdefault(name, number)
        elif what != 'recorded':
            finished.add(name)
# The last ones started first: tests are announced as they are scheduled, so the ones announced
# last are nearest to what ran when the process died. At most 40, so a log shown by its end
# still shows the crash above them.
unfinished = sorted((name for name in started if name not in finished), key=lambda name: -started[name])
for name in unfinished[:40]:
    print('  ' + name)
if len(unfinished) > 40:
    print(f'  … and {len(unfinished) - 40} more')
if not unfinished:
    print('  (none found)')
