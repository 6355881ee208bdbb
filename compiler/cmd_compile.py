"""`rulecraft check` and `rulecraft compile [--check]`.

Both print every error of the run at once as ``file:line:col: error: ...`` with the source
line and a caret, and exit 1.  `compile` writes `generated/` only when there is no error;
`compile --check` writes nothing and exits 1 with a diff when `generated/` is stale.
"""

from __future__ import annotations

import argparse
import sys

from .cli import CLIError, command
from .project import ProjectError, compile_project, diff_outputs, find_root, new_sink, write_outputs


def _add(p: argparse.ArgumentParser) -> None:
    p.add_argument("games", nargs="*", help="games to process (default: every game in rules/)")


def _add_compile(p: argparse.ArgumentParser) -> None:
    _add(p)
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 with a diff if generated/ is not what the rules generate",
    )


def _compile(args: argparse.Namespace, generate: bool) -> int:
    try:
        root = find_root()
        sink = new_sink(root)
        result = compile_project(root, sink, args.games or None, generate=generate)
    except ProjectError as exc:
        raise CLIError(str(exc)) from None
    if sink.has_errors:
        print(sink.render_all(), file=sys.stderr)
        return 1
    if not generate:
        print(f"rulecraft: {len(result.games)} engine game(s) checked, no errors", file=sys.stderr)
        return 0
    if getattr(args, "check", False):
        diff = diff_outputs(root, result.outputs, args.games or None)
        if diff:
            sys.stdout.write(diff)
            print("rulecraft: generated/ is stale; run `rulecraft compile`", file=sys.stderr)
            return 1
        print("rulecraft: generated/ is up to date", file=sys.stderr)
        return 0
    changed = write_outputs(root, result.outputs, args.games or None)
    for rel in changed:
        print(f"wrote {rel.as_posix()}", file=sys.stderr)
    if not changed:
        print("rulecraft: generated/ is up to date", file=sys.stderr)
    return 0


command(
    "check",
    "validate the rules of every game (or the named ones)",
    _add,
    lambda a: _compile(a, False),
)
command(
    "compile", "generate the engines into generated/", _add_compile, lambda a: _compile(a, True)
)
