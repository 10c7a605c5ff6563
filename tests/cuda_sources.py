#!/usr/bin/env python3
"""cuda_sources.py BUILD_DIR: fails when a file that holds a kernel is compiled by the C++ compiler
in a CUDA build.

The files nvcc compiles are listed by hand in CMake (tremor_layer(... CUDA files) in
src/tremor/CMakeLists.txt, tremor_test_folder(... CUDA files) in tests/CMakeLists.txt). A file left
off that list still builds: forall's CUDA branch becomes a call of
tremor::detail::throw_not_compiled_for_cuda (backend/forall.hpp), and the GPU path fails at run
time. So every object the C++ compiler made (compile_commands.json) is read with nm: one that
refers to that function instantiates a kernel and names its source here. Exit 77 (skipped) in a
build without CUDA, where every file is compiled by the C++ compiler by design.
"""
import json
import os
import shlex
import subprocess
import sys

MARK = "throw_not_compiled_for_cuda"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def object_of(entry):
    args = shlex.split(entry["command"])
    for i, arg in enumerate(args):
        if arg == "-o" and i + 1 < len(args):
            return os.path.join(entry["directory"], args[i + 1])
    return None


def sources_of(source):
    """The files a source compiles: those a unit of a unity build (tests/CMakeLists.txt) includes."""
    if "/Unity/unity_" not in source:
        return [source]
    with open(source) as f:
        return [line.split('"')[1] for line in f if line.startswith("#include \"")]


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    nvcc = [e for e in entries if os.path.basename(shlex.split(e["command"])[0]) == "nvcc"]
    if not nvcc:
        print("skipped: no file is compiled by nvcc in this build (no CUDA)")
        return 77
    missing = []
    offenders = []
    checked = 0
    for entry in entries:
        if entry in nvcc:
            continue
        source = entry["file"]
        obj = object_of(entry)
        if obj is None or obj.endswith(".gch"):  # (a precompiled header: no code)
            continue
        if not os.path.exists(obj):
            missing.append(obj)
            continue
        symbols = subprocess.run(["nm", "-u", obj], capture_output=True, text=True, check=True).stdout
        checked += 1
        if MARK in symbols:
            names = [os.path.relpath(name, ROOT) for name in sources_of(source)]
            offenders.append(names[0] if len(names) == 1 else "one of " + ", ".join(names))
    if missing:
        print(f"error: {len(missing)} objects of compile_commands.json are not built (build every target "
              f"first), e.g. {missing[0]}")
        return 1
    if offenders:
        print("error: these files are compiled by the C++ compiler but launch kernels (their CUDA branch "
              "would throw at run time); add each to the CUDA list of its tremor_layer() in "
              "src/tremor/CMakeLists.txt or tremor_test_folder() in tests/CMakeLists.txt:")
        for name in sorted(offenders):
            print("  " + name)
        return 1
    print(f"ok: {len(nvcc)} files compiled by nvcc; none of the {checked} compiled by the C++ compiler holds a kernel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
