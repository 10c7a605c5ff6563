#!/usr/bin/env python3
"""Runs the test_* functions of one test module of this folder where pytest is not installed (a
GPU host's Python, scripts/gpu-check): what those modules use of pytest (mark.parametrize, skip,
importorskip, raises with match, the tmp_path fixture) and nothing more. Prints PASSED, SKIPPED or
FAILED (with the traceback) per test and a last line of counts; exit 1 when one failed.

    python3 tests/python/run_without_pytest.py tests/python/test_gpu.py
"""
import contextlib
import importlib.util
import inspect
import pathlib
import re
import sys
import tempfile
import traceback
import types


class Skipped(Exception):
    pass


def parametrize(name, values):
    def mark(test):
        test.parameters = getattr(test, "parameters", []) + [(name, list(values))]
        return test
    return mark


@contextlib.contextmanager
def raises(expected, match=None):
    try:
        yield
    except expected as e:
        if match is not None and not re.search(match, str(e)):
            raise AssertionError(f"{e!r} does not match {match!r}") from e
        return
    raise AssertionError(f"did not raise {expected.__name__}")


def skip(reason=""):
    raise Skipped(reason)


def importorskip(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        raise Skipped(f"no module {name}") from None


sys.modules["pytest"] = types.SimpleNamespace(mark=types.SimpleNamespace(parametrize=parametrize), skip=skip,
                                              raises=raises, importorskip=importorskip, main=lambda *a, **k: 0)


def main(path):
    spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for name, test in list(vars(module).items()):
        if not name.startswith("test_") or not callable(test):
            continue
        cases = [{}]
        for parameter, values in getattr(test, "parameters", []):
            cases = [dict(case, **{parameter: v}) for case in cases for v in values]
        for case in cases:
            arguments = dict(case)
            if "tmp_path" in inspect.signature(test).parameters:
                arguments["tmp_path"] = pathlib.Path(tempfile.mkdtemp(prefix=name + "-"))
            label = name + (f"[{','.join(map(str, case.values()))}]" if case else "")
            try:
                test(**arguments)
                counts["passed"] += 1
                print("PASSED ", label, flush=True)
            except Skipped as e:
                counts["skipped"] += 1
                print("SKIPPED", label, e, flush=True)
            except Exception:  # noqa: BLE001 (a failing test, reported)
                counts["failed"] += 1
                print("FAILED ", label, flush=True)
                traceback.print_exc()
    print(", ".join(f"{n} {k}" for k, n in counts.items()))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: run_without_pytest.py TEST_MODULE.py")
    sys.exit(main(sys.argv[1]))
