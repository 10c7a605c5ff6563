#!/usr/bin/env python3
"""The layers of src/tremor include only what docs/architecture.md allows them: every
`#include "tremor/LAYER/..."` of every source is checked against the layer order. The shared
libraries refuse undefined symbols, so a call into a layer above fails to link; this check also
catches an upward include of a header's inline code. Exit 1, naming file and line, on a violation."""
import pathlib
import re
import sys

BELOW = ["core", "backend", "mesh", "model"]
ALLOWED = {
    "core": [],
    "backend": ["core"],
    "mesh": ["backend", "core"],
    "model": ["mesh", "backend", "core"],
    "io": BELOW,
    "fem": BELOW,
    "operator": ["fem"] + BELOW,
    "sparse": ["operator", "fem"] + BELOW,
    "partition": ["operator", "fem"] + BELOW,
    "parallel": ["partition"] + BELOW,
    "explicit": ["sem", "parallel", "partition", "sparse", "operator", "fem"] + BELOW,
    "static": ["partition", "sparse", "operator", "fem"] + BELOW,
    "bem": ["partition", "sparse", "operator", "fem"] + BELOW,
    "imaging": BELOW,
    "sem": ["operator", "fem"] + BELOW,
    "record": ["explicit", "static", "bem", "io", "imaging", "sem", "parallel", "partition", "sparse", "operator",
               "fem"] + BELOW,
    "bench": ["explicit", "static", "bem", "io", "imaging", "sem", "parallel", "partition", "sparse", "operator", "fem"] + BELOW,
    "cli": None,  # the command: everything
}

root = pathlib.Path(__file__).resolve().parent.parent / "src" / "tremor"
include = re.compile(r'^\s*#\s*include\s+"tremor/([a-z_]+)/')
violations = []
for path in sorted(root.rglob("*.[ch]pp")):
    layer = path.relative_to(root).parts[0]
    if layer not in ALLOWED:
        violations.append(f"{path}: the folder '{layer}' is not a layer of docs/architecture.md")
        continue
    allowed = ALLOWED[layer]
    if allowed is None:
        continue
    for number, line in enumerate(path.read_text().splitlines(), 1):
        match = include.match(line)
        if match and match.group(1) != layer and match.group(1) not in allowed:
            violations.append(f"{path}:{number}: {layer}/ includes {match.group(1)}/, a layer above it")
for v in violations:
    print(v)
print(f"{len(violations)} upward includes" if violations else "layers: every include points down")
sys.exit(1 if violations else 0)
