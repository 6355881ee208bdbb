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

from ..cache import CACHE_DIR, CompileCache, game_key
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
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="compile every game, also those unchanged since the last compile "
        f"(the cache in {CACHE_DIR}/)",
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
    project = project_of(args)
    root = project.root
    if project.config is not None and project.config.name == "rulecraft.toml":
        from ..schema_files import stale_schemas

        if stale_schemas(root):
            print(
                "rulecraft: note: schemas/ is not this rulecraft's (completion in the editor "
                "may be out of date); `rulecraft init --schemas` refreshes it",
                file=sys.stderr,
            )
    gen = project.generated_rel.as_posix()
    check = getattr(args, "check", False)
    names = args.games or project.games()
    # The cache vouches for the games unchanged since the last compile: their generated
    # files, as on disk, stand in for what the pipeline would make of them.
    cache = CompileCache.load(project) if generate else None
    fresh: dict[Path, str] = {}
    skipped: list[str] = []
    # the formatter is part of the compiler: without it the cache vouches for nothing, and
    # compiling says which extra to install
    if cache is not None and not getattr(args, "no_cache", False) and _have_formatter():
        for game in names:
            files = cache.fresh(game)
            if files is not None:
                fresh.update(files)
                skipped.append(game)
    todo = [game for game in names if game not in skipped]
    if skipped:
        print(
            f"rulecraft: unchanged since the last compile: {', '.join(skipped)}",
            file=sys.stderr,
        )
        if not todo and _still_current(project, cache, names, args.games, check):
            return _finish(project, args, fresh, [], check)

    from ..codegen import CodegenError, FormatterMissing
    from ..diagnostics import CompileError
    from ..effects import EffectSyntaxError
    from ..project import Compiled, ProjectError, compile_project, diff_outputs, new_sink

    keys = {game: game_key(project, game) for game in todo} if cache is not None else {}
    try:
        sink = new_sink(project)
        if todo:
            result = compile_project(
                project, sink, todo if skipped else args.games or None, generate=generate
            )
        else:
            result = Compiled({}, {})
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
    outputs = {**fresh, **result.outputs}
    changed: list[Path] = []
    if check:
        diff = diff_outputs(project, outputs, args.games or None)
        if diff:
            sys.stdout.write(diff)
            print(f"rulecraft: {gen}/ is stale; run `rulecraft compile`", file=sys.stderr)
            return 1
    else:
        from ..project import write_outputs

        try:
            changed = write_outputs(project, outputs, args.games or None)
        except ProjectError as exc:
            raise CLIError(str(exc)) from None
        for rel in changed:
            verb = "wrote" if (root / rel).exists() else "removed"
            print(f"{verb} {rel.as_posix()}", file=sys.stderr)
    if cache is not None:
        # generated/ now holds what the rules of these games make (written, or checked)
        for game in todo:
            made = [rel for rel in result.outputs if _game_of(project, rel) == game]
            cache.record(game, keys[game], made)
        cache.forget_except(project.games())
        cache.save()
    return _finish(project, args, outputs, changed, check)


def _have_formatter() -> bool:
    import importlib.util

    return importlib.util.find_spec("ruff") is not None


def _game_of(project: Any, rel: Path) -> str:
    """The game a generated file (relative to the root) belongs to."""
    return rel.relative_to(project.generated_rel).parts[0]


def _still_current(
    project: Any, cache: CompileCache, games: list[str], only: list[str], check: bool
) -> bool:
    """With every game vouched for by the cache: True if nothing else in the generated folder
    needs the pipeline (a module of a game no longer in the rules is removed by it, the
    folder's ``__init__.py`` written)."""
    if not only and cache.strays(games):
        return False
    return check or (project.generated / "__init__.py").is_file()


def _finish(
    project: Any,
    args: argparse.Namespace,
    outputs: dict[Path, str],
    changed: list[Path],
    check: bool,
) -> int:
    """After generated/ is written or checked: the native builds, and the last word."""
    gen = project.generated_rel.as_posix()
    if check:
        stale = stale_native(project.generated, outputs)
        if stale:
            print(
                f"rulecraft: the native build of {', '.join(stale)} is older than its "
                "generated modules; run `rulecraft compile --native`",
                file=sys.stderr,
            )
            return 1
        print(f"rulecraft: {gen}/ is up to date", file=sys.stderr)
        return 0
    if not changed:
        print(f"rulecraft: {gen}/ is up to date", file=sys.stderr)
    games = sorted({_game_of(project, rel) for rel in outputs})
    if getattr(args, "native", False):
        return _native(project, games)
    if getattr(args, "no_native", False):
        from ..native import remove_native

        for game in games:
            for path in remove_native(project.generated / game):
                print(f"removed {path.relative_to(project.root).as_posix()}", file=sys.stderr)
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
        print(
            f"rulecraft: building {game} natively with mypyc (half a minute to a minute "
            "and a half on 2 cores)...",
            file=sys.stderr,
        )
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
