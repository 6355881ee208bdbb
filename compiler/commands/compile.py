"""`rulecraft check` and `rulecraft compile [--check]`.

Both print every error of the run at once as ``file:line:col: error: ...`` with the source
line and a caret, and exit 1.  `compile` writes `generated/` only when there is no error;
`compile --check` writes nothing and exits 1 with a diff when `generated/` is stale.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..codegen import CodegenError, FormatterMissing
from ..diagnostics import CompileError
from ..effects import EffectSyntaxError
from .registry import CLIError, command, project_of


def _add(p: argparse.ArgumentParser) -> None:
    p.add_argument("games", nargs="*", help="games to process (default: every game in rules/)")


def _add_compile(p: argparse.ArgumentParser) -> None:
    _add(p)
    p.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 with a diff if generated/ is not what the rules generate",
    )
    native = p.add_mutually_exclusive_group()
    native.add_argument(
        "--native",
        action="store_true",
        help="also compile the engines to C extension modules with mypyc (optional; faster)",
    )
    native.add_argument(
        "--no-native",
        action="store_true",
        help="remove the native build: the engines run as the generated Python again",
    )


def _compile(args: argparse.Namespace, generate: bool) -> int:
    from ..project import ProjectError, compile_project, diff_outputs, new_sink, write_outputs

    project = project_of(args)
    root = project.root
    if project.config is not None and project.config.name == "rulecraft.toml":
        from ..schema import stale_schemas

        if stale_schemas(root):
            print(
                "rulecraft: note: schemas/ is not this rulecraft's (completion in the editor "
                "may be out of date); `rulecraft init --schemas` refreshes it",
                file=sys.stderr,
            )
    gen = project.generated_rel.as_posix()
    try:
        sink = new_sink(project)
        result = compile_project(project, sink, args.games or None, generate=generate)
    except (ProjectError, FormatterMissing) as exc:
        raise CLIError(str(exc)) from None
    except (CodegenError, CompileError, EffectSyntaxError) as exc:
        # the stages report the designer's mistakes to the sink; reaching this is a bug
        raise CLIError(
            f"the compiler failed on these rules ({type(exc).__name__}: {exc}); this is a bug "
            "in rulecraft, not in the rules: please report it with the rules that cause it"
        ) from None
    if sink.has_errors:
        print(sink.render_all(), file=sys.stderr)
        return 1
    if not generate:
        scenarios: dict[str, list[str]] = {}
        for key in result.games:
            game, _, sid = key.partition("/")
            scenarios.setdefault(game, []).append(sid)
        names = args.games or project.games()
        for game in names:
            sids = scenarios.get(game)
            what = (
                f"{len(sids)} scenario{'s' if len(sids) != 1 else ''} ({', '.join(sids)})"
                if sids
                else "tables only (no scenario to play yet)"
            )
            print(f"rulecraft: {game}: {what}, no errors", file=sys.stderr)
        return 0
    if getattr(args, "check", False):
        diff = diff_outputs(project, result.outputs, args.games or None)
        if diff:
            sys.stdout.write(diff)
            print(f"rulecraft: {gen}/ is stale; run `rulecraft compile`", file=sys.stderr)
            return 1
        stale = stale_native(project.generated, result.outputs)
        if stale:
            print(
                f"rulecraft: the native build of {', '.join(stale)} is older than its "
                "generated modules; run `rulecraft compile --native`",
                file=sys.stderr,
            )
            return 1
        print(f"rulecraft: {gen}/ is up to date", file=sys.stderr)
        return 0
    try:
        changed = write_outputs(project, result.outputs, args.games or None)
    except ProjectError as exc:
        raise CLIError(str(exc)) from None
    for rel in changed:
        verb = "wrote" if (root / rel).exists() else "removed"
        print(f"{verb} {rel.as_posix()}", file=sys.stderr)
    if not changed:
        print(f"rulecraft: {gen}/ is up to date", file=sys.stderr)
    games = sorted({rel.parent.name for rel in result.outputs})
    if getattr(args, "native", False):
        return _native(project, games)
    if getattr(args, "no_native", False):
        from ..native import remove_native

        for game in games:
            for path in remove_native(project.generated / game):
                print(f"removed {path.relative_to(root).as_posix()}", file=sys.stderr)
    return 0


def stale_native(generated: Path, outputs: Iterable[Path]) -> list[str]:
    """Games whose native build was made from other generated modules than today's."""
    import json

    from ..native import NATIVE_MANIFEST, source_hashes

    out = []
    for game in sorted({rel.parent.name for rel in outputs}):
        folder = generated / game
        manifest = folder / NATIVE_MANIFEST
        if manifest.exists():
            try:
                built = json.loads(manifest.read_text(encoding="utf-8"))["sources"]
            except (OSError, ValueError, KeyError):
                built = None
            if built != source_hashes(folder):
                out.append(game)
    return out


def _native(project: Any, games: list[str]) -> int:
    import time

    from ..native import NativeError, build_native

    for game in games:
        print(f"rulecraft: building {game} natively with mypyc (a few minutes)...", file=sys.stderr)
        start = time.monotonic()
        try:
            written = build_native(project.generated, game, package=project.package)
        except NativeError as exc:
            raise CLIError(str(exc)) from None
        seconds = time.monotonic() - start
        print(
            f"rulecraft: {game}: {len(written) - 1} native modules in {seconds:.0f} s "
            f"({project.generated_rel.as_posix()}/{game}/*.so; `rulecraft compile` removes "
            "them when the rules change)",
            file=sys.stderr,
        )
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
