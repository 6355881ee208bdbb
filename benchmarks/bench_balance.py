"""Where the time of `rulecraft simulate --all` goes, and how long games last (for turn limits).

Usage (from the repository root)::

    python benchmarks/bench_balance.py [GAME=march_of_progress] [--reps R] [--jobs J]
        [--contender NAME=ARGS ...] [--common ARGS]
    python benchmarks/bench_balance.py [GAME] --lengths [--random-games N] [--bot-games M]
        [--bot-seed S] [--bot-max-turns T] [--playouts P]

Timing (the default): each contender is ``rulecraft simulate --all GAME --json`` with the
common arguments (default ``--jobs 2``) plus its own, run as a whole process. The contenders
run interleaved (a b a b ...) so that other jobs on a shared machine weigh on all alike; for
each the script prints the median wall clock and the median CPU time of the process and its
workers (``getrusage(RUSAGE_CHILDREN)``), then, from the JSON of its last run, the seconds of
every scenario and pairing and the games that stopped at a turn limit. The default
contenders compare the bot turn limits: ``limit 200`` (``--bot-max-turns 200`` for every
scenario, the setting before scenarios gave their own) and ``scenario limits`` (each
scenario's ``simulate: bot_max_turns``).

Lengths (``--lengths``): per scenario, the turns of ``N`` random games (seed 0: mean,
median, 90th, 95th and 99th percentile, longest) and of ``M`` games of ``mc:P`` against
itself (seed ``S``, stopped at ``T`` turns: every length, and how many reached ``T``). A
scenario's ``bot_max_turns`` is chosen from these: about 1.5 times the longest bot game that its
rules ended (at a limit of 300), rounded up to ten.
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULECRAFT = Path(sys.executable).parent / "rulecraft"  # the virtualenv's, beside its python


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(argv: list[str]) -> tuple[float, float, dict]:
    """Wall and CPU seconds of one ``rulecraft`` process (workers included) and its JSON."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [str(RULECRAFT), *argv], cwd=ROOT, capture_output=True, text=True, check=False
    )
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode not in (0, 1):
        sys.exit(f"{shlex.join(argv)} failed:\n{done.stderr}")
    return wall, cpu, json.loads(done.stdout)


def timing(args: argparse.Namespace) -> None:
    contenders = [c.split("=", 1) for c in args.contender] or [
        ["limit 200", "--bot-max-turns 200"],
        ["scenario limits", ""],
    ]
    common = ["simulate", "--all", args.game, "--json", *shlex.split(args.common)]
    runs: dict[str, list[tuple[float, float, dict]]] = {name: [] for name, _ in contenders}
    for rep in range(args.reps):
        for name, extra in contenders:
            wall, cpu, data = run_once([*common, *shlex.split(extra)])
            runs[name].append((wall, cpu, data))
            print(f"rep {rep + 1} {name}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    print(f"\nrulecraft {shlex.join(common)} ...; medians of {args.reps} interleaved runs")
    first = statistics.median(c for _, c, _ in runs[contenders[0][0]])
    for name, extra in contenders:
        walls = [w for w, _, _ in runs[name]]
        cpus = [c for _, c, _ in runs[name]]
        cpu = statistics.median(cpus)
        print(
            f"  {name:<16} {extra or '(no extra arguments)':<24} "
            f"wall {statistics.median(walls):6.1f} s  CPU {cpu:6.1f} s  "
            f"CPU / first {cpu / first:.2f}"
        )
    for name, _ in contenders:
        data = runs[name][-1][2]
        print(f"\n{name}: seconds per scenario and pairing (last run; wall, as reported)")
        for sc in data["scenarios"]:
            cells = []
            for r in sc["results"]:
                stop = f", {r['turn_limit']} at the limit" if r["turn_limit"] else ""
                cells.append(
                    f"{r['agent']} {r['seconds']:6.1f} s ({r['mean_turns']:.0f} turns{stop})"
                )
            limit = sc.get("bot_max_turns", "-")
            print(f"  {sc['scenario']:<26} limit {limit!s:>4}  " + "  ".join(cells))


def _pct(xs: list[int], q: float) -> int:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def lengths(args: argparse.Namespace) -> None:
    from rulecraft.runtime.tools.balance import scenarios_of
    from rulecraft.runtime.tools.simulate import TURN_LIMIT, bot_max_turns, simulate

    print(
        f"{args.game}: turns of {args.random_games} random games (seed 0) and of "
        f"{args.bot_games} mc:{args.playouts} games (seed {args.bot_seed}, limit "
        f"{args.bot_max_turns})"
    )
    for spec, sid in scenarios_of(args.game):
        turns: list[int] = []
        simulate(
            spec, sid, args.random_games, 0, ["random"], on_game=lambda o, t=turns: t.append(o[3])
        )
        print(
            f"{sid}\n  random: mean {statistics.mean(turns):.1f}, median {_pct(turns, 0.5)}, "
            f"p90 {_pct(turns, 0.9)}, p95 {_pct(turns, 0.95)}, p99 {_pct(turns, 0.99)}, "
            f"longest {max(turns)}",
            flush=True,
        )
        if not args.bot_games:
            continue
        bot: list[tuple[int, bool]] = []
        r = simulate(
            spec,
            sid,
            args.bot_games,
            args.bot_seed,
            [f"mc:{args.playouts}"],
            jobs=args.jobs,
            max_turns=args.bot_max_turns,
            on_game=lambda o, b=bot: b.append((o[3], o[6] == TURN_LIMIT)),
        )
        ended = sorted(t for t, stopped in bot if not stopped)
        stalled = sum(stopped for _, stopped in bot)
        longest = max(ended, default=0)
        print(
            f"  mc:{args.playouts}: {ended} (+{stalled} at the limit), longest ended "
            f"{longest}: 1.5 times, rounded up to ten, {-(-3 * longest // 20) * 10}; "
            f"the scenario's bot_max_turns {bot_max_turns(spec)}; {r.seconds:.0f} s",
            flush=True,
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("game", nargs="?", default="march_of_progress")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--common", default=None, help="arguments for every contender")
    p.add_argument("--contender", action="append", default=[], metavar="NAME=ARGS")
    p.add_argument("--lengths", action="store_true")
    p.add_argument("--random-games", type=int, default=2000)
    p.add_argument("--bot-games", type=int, default=30)
    p.add_argument("--bot-seed", type=int, default=100)
    p.add_argument("--bot-max-turns", type=int, default=200)
    p.add_argument("--playouts", type=int, default=4)
    args = p.parse_args()
    if args.common is None:
        args.common = f"--jobs {args.jobs}"
    lengths(args) if args.lengths else timing(args)


if __name__ == "__main__":
    main()
