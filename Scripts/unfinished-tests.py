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
event = re.compile(r'(?:Test|Suite) (.+?) (started|passed|failed|skipped|recorded)\b')
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
unfinished = [name for name in started if name not in finished]
for name in unfinished:
    print('  ' + name)
if not unfinished:
    print('  (none found)')
