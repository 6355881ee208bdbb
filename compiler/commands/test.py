"""`rulecraft test [FILES]`: run examples of play (``rules/<game>/examples/*.yaml``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .registry import CLIError, command, project_of


def _add(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "files", nargs="*", help="example files (default: every rules/*/examples/*.yaml)"
    )


def _run(args: argparse.Namespace) -> int:
    from ..examples import example_files, run_examples
    from ..project import new_sink

    root = project_of(args)
    files = example_files(root, args.files or None)
    missing = [f for f in files if not Path(f).exists()]
    if missing:
        raise CLIError(f"no such file: {missing[0]}")
    sink = new_sink(root)
    results = run_examples(root, files, sink)
    for r in results:
        mark = "ok  " if r.ok else "FAIL"
        print(f"{mark} {r.path}: {r.title} {r.summary}")
    if sink.has_errors:
        print(sink.render_all(), file=sys.stderr)
    passed = sum(r.ok for r in results)
    failed = len(files) - passed
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or sink.has_errors else 0


command("test", "run the examples of play (golden games written as data)", _add, _run)
