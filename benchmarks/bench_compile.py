"""Compile time of every game in ``rules/`` (the whole pipeline and its stages) and the size
of the generated engines.

Usage (from the repository root)::

    python benchmarks/bench_compile.py [REPS=3] [--native]

Measured, ``REPS`` times each, medians quoted (wall clock and process CPU time):

* ``compile_project``: ``rulecraft.compiler.project.compile_project(root, sink)`` as the
  ``rulecraft compile`` command runs it (nothing is written).
* the same work split into stages, by calling the stage functions the way ``compile_project``
  does, game by game:

  - ``load tables``: ``tables.load_tables`` (games with ``tables/``: load and validate);
  - ``load+validate``: ``SchemaStore()`` (reads and meta-checks the JSON schemas), the
    ``game.yaml`` schema check of table-only games and
    ``builder.load_sources`` (YAML + JSON schemas) of games with a flow;
  - ``build+check``: ``variants.resolve_scenarios`` (build one model per scenario, with the
    game's tables) and ``checker.check_game`` per scenario;
  - ``generate``: ``codegen.generate_game`` (engine v2: ``engine.py``, one data module per
    scenario and ``__init__.py``, unformatted) with ``project.looked_up`` (the range tables
    the rules look up);
  - ``format``: ``codegen.format_many``: one ``ruff format`` (and import sort) subprocess
    for all modules of a game, then the rules-position tables.

``staged`` mirrors ``compile_project`` step by step: when the pipeline changes, change it too.
The schemas are loaded once per process (``SchemaStore.default()``), as ``compile_project``
does: the cold run pays for it.

Generated size: lines and bytes of ``generated/<game>/*.py`` as checked in (and whether the
pipeline's output equals them), per module; for The March of Progress the ratio against
15,040 lines, what engine v1 generated for its six scenarios (issue 7 aims at <= 40%).

With ``--native`` (it takes minutes), also the native build of each game with generated
engines: ``rulecraft.compiler.native.build_native`` as ``rulecraft compile --native GAME``
runs it, on a copy of ``generated/<game>/`` in a temporary folder (a native build in
``generated/`` is left alone), once per game: wall clock, the CPU time of the build's
processes (mypyc and the C compilers), the load before and after, the modules compiled and
the C compilations run at once (``RULECRAFT_NATIVE_JOBS``, default the cores).

The stage sum can differ slightly from ``compile_project`` (timer overhead, noise).
The first repetition also pays for imports and caches and is
reported separately as ``cold``.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from rulecraft.compiler import builder, checker, codegen, project
from rulecraft.compiler.schema import SchemaStore
from rulecraft.compiler.variants import resolve_scenarios

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("load tables", "load+validate", "build+check", "generate", "format")
V1_LINES = {"march_of_progress": 15_040}  # engine v1's generated lines (all scenarios)


class _Clock:
    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)

    def time(self, stage: str, fn, *args, **kw):
        w, c = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kw)
        finally:
            self.wall[stage] += time.perf_counter() - w
            self.cpu[stage] += time.process_time() - c


def staged(root: Path) -> tuple[_Clock, int, int]:
    """One pass over the project, stage by stage: (clock, scenarios, diagnostics)."""
    clock = _Clock()
    sink = project.new_sink(root)
    schemas = clock.time("load+validate", SchemaStore.default)
    scenarios = 0
    for gdir in project.game_dirs(root):
        tables = {}
        if (gdir / "tables").is_dir():
            from rulecraft.compiler.tables import load_tables

            tables = clock.time("load tables", load_tables, gdir, sink)
        if not (gdir / "flow.yaml").exists():
            if (gdir / "game.yaml").exists():
                from rulecraft.compiler.loader import load_yaml

                def validate(gdir=gdir):
                    path = gdir / "game.yaml"
                    doc = load_yaml(path, path.relative_to(root).as_posix(), sink)
                    if doc is not None:
                        schemas.validate(doc, "game", sink)

                clock.time("load+validate", validate)
            continue
        src = clock.time("load+validate", builder.load_sources, gdir, root, sink, schemas)
        if src is None:
            continue
        before = len(sink.diagnostics)
        resolved = clock.time("build+check", resolve_scenarios, src, sink, tables)
        if len(sink.diagnostics) > before:
            continue
        ok = []
        for sid, game in resolved.items():
            clock.time("build+check", checker.check_game, game, sink)
            if len(sink.diagnostics) == before:
                ok.append(sid)
        if len(sink.diagnostics) > before or not ok:
            continue
        scenarios += len(ok)

        def generate(resolved=resolved, ok=ok):
            return codegen.generate_game(
                {sid: resolved[sid] for sid in ok}, project.looked_up(resolved)
            )

        texts = clock.time("generate", generate)
        clock.time("format", codegen.format_many, texts)
    return clock, scenarios, len(sink.diagnostics)


def whole(root: Path) -> tuple[float, float, int, int, dict[Path, str]]:
    w, c = time.perf_counter(), time.process_time()
    sink = project.new_sink(root)
    compiled = project.compile_project(root, sink)
    return (
        time.perf_counter() - w,
        time.process_time() - c,
        len(compiled.games),
        len(sink.diagnostics),
        compiled.outputs,
    )


def sizes(outputs: dict[Path, str]) -> None:
    """Lines and bytes of the generated modules, per game and module."""
    games = sorted({rel.parts[1] for rel in outputs} | {p.name for p in game_dirs_generated()})
    print("generated engines (generated/<game>/*.py as checked in):")
    print(f"  {'module':48}{'lines':>8}{'bytes':>10}")
    for game in games:
        folder = ROOT / "generated" / game
        files = sorted(folder.glob("*.py"))
        total_lines = total_bytes = 0
        same = all(
            (ROOT / rel).exists() and (ROOT / rel).read_text(encoding="utf-8") == text
            for rel, text in outputs.items()
            if rel.parts[1] == game
        )
        for p in files:
            text = p.read_text(encoding="utf-8")
            lines, size = text.count("\n"), len(text.encode("utf-8"))
            total_lines += lines
            total_bytes += size
            print(f"  {game + '/' + p.name:48}{lines:8,}{size:10,}")
        note = "" if same else "  (differs from what the rules generate now: recompile)"
        print(f"  {game + ' total':48}{total_lines:8,}{total_bytes:10,}{note}")
        if game in V1_LINES:
            v1 = V1_LINES[game]
            print(f"  {'':48}{total_lines / v1:8.1%} of engine v1's {v1:,} lines (aim <= 40%)")
    print()


def native_builds() -> None:
    """The native build of each game with generated engines, timed on a copy."""
    from rulecraft.compiler.native import build_jobs, build_native, native_modules

    jobs = build_jobs()
    print(f"native builds (rulecraft compile --native GAME; {jobs} C compilations at once):")
    print(f"  {'game':24}{'wall s':>8}{'cpu s':>8}  {'load':>11}  modules compiled")
    for folder in game_dirs_generated():
        game = folder.name
        with tempfile.TemporaryDirectory(prefix="bench-native-") as tmp:
            copy = Path(tmp) / game
            copy.mkdir()
            for p in folder.glob("*.py"):
                shutil.copy(p, copy / p.name)
            compiled = [p.name for p in native_modules(copy)]
            load = os.getloadavg()[0]
            before, wall = os.times(), time.perf_counter()
            build_native(Path(tmp), game)
            wall = time.perf_counter() - wall
            after = os.times()
            cpu = (after.children_user - before.children_user) + (
                after.children_system - before.children_system
            )
        print(
            f"  {game:24}{wall:8.1f}{cpu:8.1f}  {load:5.2f}-{os.getloadavg()[0]:<5.2f}  "
            f"{', '.join(compiled)}"
        )
    print()


def game_dirs_generated() -> list[Path]:
    gen = ROOT / "generated"
    return sorted(p for p in gen.iterdir() if (p / "__init__.py").is_file())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    native = "--native" in argv
    counts = [a for a in argv if a != "--native"]
    reps = int(counts[0]) if counts else 3
    print(f"$ {shlex.join(['python', 'benchmarks/bench_compile.py', *argv])}")
    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}"
    )
    games = sorted(p.name for p in project.game_dirs(ROOT))
    print(f"project {ROOT}: rules/ {', '.join(games)}; {reps} reps, interleaved\n")

    cold = whole(ROOT)
    runs_whole, runs_staged = [], []
    for _ in range(reps):
        runs_whole.append(whole(ROOT))
        runs_staged.append(staged(ROOT))

    sizes(cold[4])
    if native:
        native_builds()

    def ms(x: float) -> str:
        return f"{x * 1000:9.1f}"

    print(f"{'':22}{'wall ms':>9}  {'cpu ms':>9}   (median of {reps}; wall min-max)")
    wl = [r[0] for r in runs_whole]
    print(
        f"{'compile_project':22}{ms(statistics.median(wl))}  "
        f"{ms(statistics.median(r[1] for r in runs_whole))}   "
        f"{min(wl) * 1000:.0f}-{max(wl) * 1000:.0f}"
    )
    print(f"{'  cold (1st run)':22}{ms(cold[0])}  {ms(cold[1])}")
    total_w = total_c = 0.0
    for st in STAGES:
        w = statistics.median(r[0].wall[st] for r in runs_staged)
        c = statistics.median(r[0].cpu[st] for r in runs_staged)
        total_w += w
        total_c += c
        print(f"{'  ' + st:22}{ms(w)}  {ms(c)}")
    print(f"{'  sum of stages':22}{ms(total_w)}  {ms(total_c)}")
    print(
        f"\n{cold[2]} scenario(s) checked, {len(cold[4])} module(s) generated, {cold[3]} "
        "diagnostics; format = ruff in a subprocess (its cpu time is not in this process's "
        "cpu column)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
