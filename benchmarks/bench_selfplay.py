"""Random self-play speed of engine v2, side by side: interpreted, native, hand-written, CLI.

Usage (from the repository root)::

    python benchmarks/bench_selfplay.py [GAMES=1000] [REPS=5] [--scenario ID]
        [--sim-games M] [--no-sim] [--no-native] [--native-dir DIR] [--seed S]

Contenders (all play uniformly random games of The March of Progress, default scenario
``thirty_years_war``):

(a) ``v2 interpreted``: ``rulecraft.runtime.playout(spec, S, R)`` from
    ``new_state(spec, seed)``, the generated modules run as Python source. ``R`` is
    ``random.Random(...).random``, as a bot passes it. The decisions are counted in a second,
    untimed run of the same games with ``R`` wrapped in a counter: the engine draws only for a
    decision with a choice (a forced one draws nothing), so the count is the decisions with
    >= 2 options (an optional decision's "none" counts as an option). Until 2026-12-03 the
    timed run itself drew through the counter, a Python call per decision that the
    hand-written engine does not make (it counts with an int in its loop): about 14% of a
    native game's time (81 of 95 us a game on the machine of benchmarks/README.md).
(b) ``v2 native``: the same loop on the native build (``rulecraft compile --native
    march_of_progress``: mypyc extension modules beside the ``.py`` files in
    ``generated/march_of_progress/``). Run only when a build exists; the script never builds.
(c) ``hand-written``: ``benchmarks/handwritten_mop.py`` ``play_random_game(seed)``; it counts
    the decisions with >= 2 options (it applies forced ones without drawing). It plays only
    Thirty Years War.
(d) ``rulecraft simulate``: ``rulecraft simulate march_of_progress/<scenario> --games M
    --json`` as a whole process: games/s from the wall clock of the process, start-up
    included; CPU time is the child's user + system time (``getrusage``). It runs whatever
    ``generated/`` holds: the native build when one exists and is current, else the ``.py``.

How interpreted and native are kept apart: a Python process imports each module of a game
once, and Python prefers ``engine.cpython-*.so`` to ``engine.py`` in the same folder, so one
process cannot run both. Each of (a), (b) and (c) runs in a worker process of its own,
started once and kept waiting on its stdin between measurements:

- the (a) worker copies ``generated/<game>/*.py`` (sources only) into a temporary folder
  and puts that folder first on ``rulecraft.generated.__path__`` before importing the game:
  it always runs the sources, whether or not a native build exists beside them (and a
  stale native build cannot stop it);
- the (b) worker imports the game normally (or from ``--native-dir DIR``, a folder holding
  ``<game>/`` with a native build, put first on ``rulecraft.generated.__path__``) and
  refuses to run unless the engine module it got is an extension module;
- both check and print the file the engine class came from.

Measurement: every worker first plays a few games (imports, caches), then the parent runs
the repetitions interleaved (a b c d a b c d ...), so a noisy machine affects all contenders
alike; each worker times only its games, with ``time.process_time()`` (CPU time of the
process: the main figure, steadier on a shared machine) and ``time.perf_counter()``.
Medians over the repetitions are quoted, with the min-max spread of CPU games/s. All
contenders play the same seeds; the engines read some rules differently and draw dice
differently, so their games are equally distributed, not identical.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import platform
import random
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GAME = "march_of_progress"
SALT = 0x9E3779B97F4A7C15  # handwritten_mop.AGENT_SEED_SALT: the agent's generator
WARMUP_GAMES = 20
NATIVE_SUFFIXES = (".so", ".pyd")


# -- workers (child processes) ----------------------------------------------------------------
def _generated_package():
    import rulecraft.generated as generated

    return generated


def _import_sources(game: str) -> str:
    """Make ``rulecraft.generated.<game>`` import from a temporary copy of its ``.py`` files
    (no extension modules, no ``native.json``); returns the copy's folder."""
    src = Path(_generated_package().__path__[0]) / game
    tmp = tempfile.mkdtemp(prefix="rulecraft-bench-py-")
    atexit.register(shutil.rmtree, tmp, True)
    dst = Path(tmp) / game
    dst.mkdir()
    for p in src.glob("*.py"):
        shutil.copy(p, dst / p.name)
    _generated_package().__path__.insert(0, tmp)
    return tmp


def _engine_file(spec) -> str:
    """The file the engine class was loaded from (mypyc's shims report a mangled path: the
    package's folder and the file name are what counts)."""
    module = sys.modules[type(spec.engine).__module__]
    package = sys.modules[module.__name__.rpartition(".")[0]]
    return os.path.join(package.__path__[0], os.path.basename(module.__file__ or "?"))


def _worker(kind: str, scenario: str, native_dir: str | None) -> int:
    """Serve measurements on stdin/stdout: a line ``GAMES SEED`` -> one JSON line."""
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing but our replies on the pipe
    info: dict[str, object] = {"kind": kind}
    try:
        if kind == "hand":
            sys.path.insert(0, str(HERE))
            import handwritten_mop

            play_hand = handwritten_mop.play_random_game
            info["engine"] = handwritten_mop.__file__

            def play(n: int, seed0: int) -> tuple[int, int]:
                dec = 0
                for seed in range(seed0, seed0 + n):
                    dec += play_hand(seed)[2]
                return dec, 0

            count = None  # it counts its decisions as it plays (an int incremented inline)

        else:
            if kind == "interp":
                _import_sources(GAME)
            elif native_dir:
                _generated_package().__path__.insert(0, str(Path(native_dir).resolve()))
            from rulecraft.runtime import TurnLimit, load_spec, new_state, playout

            spec = load_spec(GAME, scenario)
            info["engine"] = _engine_file(spec)
            is_native = info["engine"].endswith(NATIVE_SUFFIXES)
            if is_native != (kind == "native"):
                raise RuntimeError(
                    f"the {kind} worker imported the engine from {info['engine']}"
                    + (" (no native build?)" if kind == "native" else "")
                )

            def count_one(seed: int) -> int:
                """One random game; returns the decisions drawn (-1: it hit the turn limit)."""
                S = new_state(spec, seed)
                draw = random.Random(seed ^ SALT).random
                drawn = 0

                def R() -> float:
                    nonlocal drawn
                    drawn += 1
                    return draw()

                try:
                    playout(spec, S, R)
                except TurnLimit:
                    return -1 - drawn
                return drawn

            def count(n: int, seed0: int) -> tuple[int, int]:
                dec = limited = 0
                for seed in range(seed0, seed0 + n):
                    d = count_one(seed)
                    if d < 0:
                        limited += 1
                        d = -1 - d
                    dec += d
                return dec, limited

            def play(n: int, seed0: int) -> tuple[int, int]:
                """The same games as ``count``, timed: the draws straight from the generator."""
                for seed in range(seed0, seed0 + n):
                    try:
                        playout(spec, new_state(spec, seed), random.Random(seed ^ SALT).random)
                    except TurnLimit:
                        pass
                return 0, 0

        play(WARMUP_GAMES, 10**6)
    except Exception as exc:  # reported to the parent, which skips this contender
        info["error"] = f"{type(exc).__name__}: {exc}"
        print(json.dumps(info), file=out, flush=True)
        return 1
    print(json.dumps(info), file=out, flush=True)
    for line in sys.stdin:
        n, seed0 = map(int, line.split())
        c0, w0 = time.process_time(), time.perf_counter()
        dec, limited = play(n, seed0)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        if count is not None:  # untimed: the same games again, each draw counted
            dec, limited = count(n, seed0)
        reply = {"games": n, "decisions": dec, "limited": limited, "cpu": cpu, "wall": wall}
        print(json.dumps(reply), file=out, flush=True)
    return 0


class Worker:
    def __init__(self, kind: str, scenario: str, native_dir: str | None) -> None:
        cmd = [sys.executable, __file__, "--worker", kind, "--scenario", scenario]
        if native_dir:
            cmd += ["--native-dir", native_dir]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        self.info = json.loads(self.proc.stdout.readline() or '{"error": "no reply"}')

    def run(self, games: int, seed: int) -> dict:
        self.proc.stdin.write(f"{games} {seed}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def _simulate_process(scenario: str, games: int, seed: int) -> dict:
    exe = Path(sys.executable).with_name("rulecraft")
    cmd = [str(exe) if exe.exists() else "rulecraft", "simulate", f"{GAME}/{scenario}"]
    cmd += ["--games", str(games), "--seed", str(seed), "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)} failed:\n{proc.stderr.strip()[-2000:]}")
    data = json.loads(proc.stdout)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "games": data["games"],
        "decisions": round(data["mean_decisions"] * data["games"]),
        "limited": data.get("turn_limit", 0),
        "cpu": cpu,
        "wall": wall,
    }


# -- the parent --------------------------------------------------------------------------------
def _native_build(native_dir: str | None) -> Path | None:
    folder = (Path(native_dir) if native_dir else ROOT / "generated") / GAME
    if any(p.suffix in NATIVE_SUFFIXES for p in folder.glob("*")):
        return folder
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="?", type=int, default=1000, help="games per repetition")
    ap.add_argument("reps", nargs="?", type=int, default=5, help="repetitions per contender")
    ap.add_argument("--scenario", default="thirty_years_war", help="March of Progress scenario")
    ap.add_argument("--sim-games", type=int, default=None, help="games per simulate process")
    ap.add_argument("--no-sim", action="store_true", help="skip (d) rulecraft simulate")
    ap.add_argument("--no-native", action="store_true", help="skip (b) even if a build exists")
    ap.add_argument(
        "--native-dir",
        default=None,
        help="a folder holding march_of_progress/ with a native build (default: generated/)",
    )
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--worker", choices=("interp", "native", "hand"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    scenario = args.scenario.rpartition("/")[2]
    if args.worker:
        return _worker(args.worker, scenario, args.native_dir)
    n, reps = args.games, args.reps
    sim_n = args.sim_games if args.sim_games is not None else n

    print(f"$ {shlex.join(['python', 'benchmarks/bench_selfplay.py', *argv])}")
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus, "
        f"load {os.getloadavg()[0]:.2f}, {time.strftime('%Y-%m-%d %H:%M')}"
    )
    print(f"{GAME}/{scenario}: {n} games x {reps} reps per contender, interleaved\n")

    workers: dict[str, Worker] = {}
    names = {
        "interp": "(a) v2 interpreted",
        "native": "(b) v2 native",
        "hand": "(c) hand-written",
        "sim": "(d) rulecraft simulate",
    }
    kinds = ["interp"]
    build = None if args.no_native else _native_build(args.native_dir)
    if build is not None:
        kinds.append("native")
    kinds.append("hand")
    for kind in kinds:
        w = Worker(kind, scenario, args.native_dir)
        if "error" in w.info:
            print(f"{names[kind]}: skipped: {w.info['error']}")
            w.close()
            continue
        workers[kind] = w
        where = str(w.info["engine"])
        if where.startswith(str(ROOT)):
            where = os.path.relpath(where, ROOT)
        if kind == "interp":
            where += f" (a copy of generated/{GAME}/*.py)"
        print(f"{names[kind]}: {where}")
    if build is None and not args.no_native:
        print(
            f"{names['native']}: no native build in {GAME}/ "
            f"(build one with `.venv/bin/rulecraft compile --native {GAME}`, ~2.5 min)"
        )
    if not args.no_sim:
        mode = "native build" if _native_build(None) else "interpreted"
        print(f"{names['sim']}: {sim_n} games per process ({mode}: generated/{GAME}/)")
    if scenario != "thirty_years_war" and "hand" in workers:
        print("note: the hand-written engine plays Thirty Years War only")
    print()

    rows: dict[str, list[dict]] = {k: [] for k in [*workers, *([] if args.no_sim else ["sim"])]}
    startup = None
    if "sim" in rows:
        try:
            startup = statistics.median(
                _simulate_process(scenario, 1, args.seed)["wall"] for _ in range(3)
            )
        except RuntimeError as exc:  # e.g. a stale native build in generated/
            print(f"{names['sim']}: skipped: {exc}\n")
            del rows["sim"]
    sys.stdout.flush()
    try:
        for _rep in range(reps):
            for kind in rows:
                if kind == "sim":
                    rows[kind].append(_simulate_process(scenario, sim_n, args.seed))
                else:
                    rows[kind].append(workers[kind].run(n, args.seed))
    finally:
        for w in workers.values():
            w.close()

    def med(kind: str, key: str, clock: str) -> float:
        return statistics.median(r[key] / r[clock] for r in rows[kind])

    head = (
        f"{'':24}{'cpu g/s':>10}{'cpu dec/s':>12}{'wall g/s':>10}{'wall dec/s':>12}"
        f"{'dec/game':>10}  cpu g/s min-max"
    )
    print(head)
    for kind, rs in rows.items():
        g = [r["games"] / r["cpu"] for r in rs]
        dec_game = sum(r["decisions"] for r in rs) / sum(r["games"] for r in rs)
        limited = sum(r["limited"] for r in rs)
        print(
            f"{names[kind]:24}{med(kind, 'games', 'cpu'):10,.0f}"
            f"{med(kind, 'decisions', 'cpu'):12,.0f}{med(kind, 'games', 'wall'):10,.0f}"
            f"{med(kind, 'decisions', 'wall'):12,.0f}{dec_game:10.1f}  "
            f"{min(g):,.0f}-{max(g):,.0f}"
            + (f"  ({limited} games hit the turn limit)" if limited else "")
        )
    if "hand" in rows:
        other = scenario != "thirty_years_war"
        print(
            "\nratio to the hand-written engine (median cpu games/s | cpu decisions/s | "
            "wall games/s):"
            + ("\n  (a different scenario: only decisions/s compare)" if other else "")
        )
        aims = {"interp": "  aim >= 0.5", "native": "  aim >= 2.0", "sim": ""}
        for kind in rows:
            if kind == "hand":
                continue
            ratios = [
                med(kind, key, clock) / med("hand", key, clock)
                for key, clock in (("games", "cpu"), ("decisions", "cpu"), ("games", "wall"))
            ]
            print(f"  {names[kind]:24}" + " | ".join(f"{r:6.3f}" for r in ratios) + aims[kind])
    if "interp" in rows and "native" in rows:
        speedup = med("native", "games", "cpu") / med("interp", "games", "cpu")
        print(f"\nnative / interpreted (cpu games/s): {speedup:.2f}x")
    if startup is not None:
        print(
            f"\n(d) start-up: `rulecraft simulate ... --games 1` takes {startup:.2f} s wall "
            "(median of 3), included in its figures above"
        )
    print(
        "\ndecisions: those with >= 2 options, for every contender; (d)'s cpu is the child's"
        "\nuser + system time."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
