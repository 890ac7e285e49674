#!/usr/bin/env python3
"""Fails if a public symbol declared in this package's sources has no documentation comment.

Reads the symbol graphs `swift package generate-documentation` extracted (under .build), keeps
the symbols whose declaration is in Sources/ (members a protocol gives by default — Sequence's
`map`, Equatable's `!=` — are declared elsewhere and left out) and lists those without a doc
comment. Usage: Scripts/check-doc-coverage.py [build folder]
"""
import glob, json, os, sys

build = sys.argv[1] if len(sys.argv) > 1 else ".build"
sources = os.path.abspath("Sources") + "/"
missing = []
graphs = glob.glob(os.path.join(build, "*/extracted-symbols/*/*/*.symbols.json"))
if not graphs:
    sys.exit("no symbol graphs under %s: run swift package generate-documentation first" % build)
for graph in graphs:
    with open(graph) as file:
        data = json.load(file)
    for symbol in data.get("symbols", []):
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        # `extension Foo` itself: its members are checked one by one.
        if symbol.get("kind", {}).get("identifier", "").endswith("extension"):
            continue
        uri = symbol.get("location", {}).get("uri", "")
        path = uri[len("file://"):] if uri.startswith("file://") else uri
        if not path.startswith(sources):
            continue
        if symbol.get("docComment", {}).get("lines"):
            continue
        line = symbol["location"].get("position", {}).get("line", 0) + 1
        missing.append("%s:%d: %s" % (os.path.relpath(path), line, ".".join(symbol["pathComponents"])))
for entry in sorted(set(missing)):
    print(entry)
if missing:
    sys.exit("%d public symbols have no documentation comment" % len(set(missing)))
print("every public symbol declared in Sources/ is documented (%d symbol graphs)" % len(graphs))
