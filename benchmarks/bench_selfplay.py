"""Random self-play speed: the generated March of Progress engine against the hand-written one.

Usage::

    python benchmarks/bench_selfplay.py [N_GAMES=300] [REPS=5] [--sim-games M] [--no-sim]

Measured, in one process, with the repetitions of the contenders interleaved (A B C A B C ...)
so that a shared, noisy machine affects them alike; medians over the repetitions are quoted:

* ``generated bare``: the generated engine (``resolve("march_of_progress/thirty_years_war")``
  from ``rulecraft.generated.march_of_progress``) driven directly: ``Game.new`` for the setup, then
  ``machine.answer(S, 0, option)`` with a uniform ``int(random() * n)`` pick and
  ``machine.run(S, SPEC.blocks, max_turns, origins)`` until the game has a result.
* ``handwritten``: ``benchmarks/handwritten_mop.py`` ``play_random_game`` (same seeds).
* ``simulate``: ``rulecraft.runtime.simulate(SPEC, "thirty_years_war", M, seed, ["random"])``,
  the public self-play path (``Game.pending``/``Game.apply``, agents, outcome bookkeeping).

Decisions: the hand-written engine counts only choice points with >= 2 legal options (it
applies forced ones without asking).  The generated engine asks every decision, also forced
ones, so it is reported both ways: ``all`` (every answered decision) and ``>=2`` (the
comparable count).  Games/s is the fair headline figure: both play complete games.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shlex
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import handwritten_mop  # noqa: E402
from rulecraft.runtime import Game, resolve, simulate  # noqa: E402
from rulecraft.runtime.machine import answer, run  # noqa: E402

# looked up through the registry, so the bench follows the generated package's layout
SPEC, SCENARIO = resolve("march_of_progress/thirty_years_war")


def generated_bare(n: int, first_seed: int = 0) -> tuple[int, int, int]:
    """Play ``n`` random games on the bare machine loop: (games, decisions, decisions >= 2)."""
    blocks = SPEC.blocks
    origins = SPEC.origins
    max_turns = SPEC.scenarios[SCENARIO].max_turns
    decisions = multi = 0
    for seed in range(first_seed, first_seed + n):
        S = Game.new(SPEC, SCENARIO, seed).state
        rand = random.Random(seed ^ handwritten_mop.AGENT_SEED_SALT).random
        while S["result"] is None:
            options = S["pending"][0]["options"]
            k = len(options)
            if k > 1:
                multi += 1
            answer(S, 0, options[int(rand() * k)])
            if S["pending"] is None:
                run(S, blocks, max_turns, origins)
            decisions += 1
    return n, decisions, multi


def handwritten(n: int, first_seed: int = 0) -> tuple[int, int, int]:
    """The hand-written engine: (games, -, decisions >= 2)."""
    play = handwritten_mop.play_random_game
    decisions = 0
    for seed in range(first_seed, first_seed + n):
        decisions += play(seed)[2]
    return n, decisions, decisions


def simulated(n: int, first_seed: int = 0) -> tuple[int, int, int]:
    """``simulate`` with two random agents: (games, decisions, -)."""
    r = simulate(SPEC, SCENARIO, n, first_seed, ["random"])
    return n, r.decisions, -1


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", nargs="?", type=int, default=300, help="games per repetition")
    ap.add_argument("reps", nargs="?", type=int, default=5, help="repetitions per contender")
    ap.add_argument("--sim-games", type=int, default=None, help="games per simulate() rep")
    ap.add_argument("--no-sim", action="store_true", help="skip the simulate() path")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    args = ap.parse_args(argv)
    n, reps = args.games, args.reps
    sim_n = args.sim_games if args.sim_games is not None else n

    cmd = shlex.join(["python", sys.argv[0], *argv])
    print(f"$ {cmd}")
    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cpus, {time.strftime('%Y-%m-%d %H:%M')}"
    )
    print(f"{n} games x {reps} reps per contender (simulate: {sim_n} games), interleaved\n")

    contenders = [("generated bare", generated_bare, n), ("handwritten", handwritten, n)]
    if not args.no_sim:
        contenders.append(("simulate random", simulated, sim_n))
    # warm-up (imports, caches) outside the measurement
    for _, fn, _ in contenders:
        fn(3, args.seed)

    rows: dict[str, list[tuple[float, int, int, int]]] = {c[0]: [] for c in contenders}
    for _ in range(reps):
        for name, fn, games in contenders:
            t0, c0 = time.perf_counter(), time.process_time()
            g, d, m = fn(games, args.seed)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
            rows[name].append((dt, g, d, m, dc))

    def med(name: str, col: int) -> float:
        return statistics.median(r[col] / r[0] for r in rows[name])

    def spread(name: str) -> str:
        v = [r[1] / r[0] for r in rows[name]]
        return f"min {min(v):.1f}, max {max(v):.1f}"

    def cpu(name: str) -> float:
        return statistics.median(r[1] / r[4] for r in rows[name])

    print("wall clock (cpu: games per second of process CPU time, steadier on a busy machine)")
    print(
        f"{'':18}{'games/s':>10}  {'cpu g/s':>9}  {'dec/s all':>11}  {'dec/s >=2':>11}  "
        f"{'dec/game':>9}  spread"
    )
    for name, _, games in contenders:
        r0 = rows[name][0]
        all_s = f"{med(name, 2):11.0f}" if name != "handwritten" else f"{'-':>11}"
        multi_s = f"{med(name, 3):11.0f}" if name != "simulate random" else f"{'-':>11}"
        per_game = (r0[2] if name != "handwritten" else r0[3]) / games
        print(
            f"{name:18}{med(name, 1):10.1f}  {cpu(name):9.1f}  {all_s}  {multi_s}  "
            f"{per_game:9.1f}  "
            f"games/s {spread(name)}"
        )
    gen, hand = med("generated bare", 1), med("handwritten", 1)
    print()
    print(
        f"ratio generated bare / handwritten (games/s): {gen / hand:.3f}  "
        f"({hand / gen:.1f}x slower; cpu: {cpu('generated bare') / cpu('handwritten'):.3f})"
    )
    print(
        "ratio generated bare / handwritten (decisions/s, >=2 options both): "
        f"{med('generated bare', 3) / med('handwritten', 3):.3f}"
    )
    if not args.no_sim:
        sim = med("simulate random", 1)
        print(
            f"ratio simulate random / generated bare (games/s): {sim / gen:.3f}  "
            f"(cpu: {cpu('simulate random') / cpu('generated bare'):.3f})"
        )
    print(
        "\nnote: the hand-written engine counts only decisions with >= 2 options; the generated"
        "\nengine asks forced (1-option) decisions too: 'dec/s all' counts them, 'dec/s >=2' does"
        "\nnot and is the comparable figure.  dec/game: all for generated and simulate, >=2 for"
        "\nhandwritten.  Same seeds for every contender; the engines read some rules differently"
        "\nand draw dice differently, so games are not identical, only equally distributed."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
