"""Bytecodes the interpreter runs per random playout, by function: a generated engine
(interpreted) beside the hand-written one.

Usage (from the repository root)::

    python benchmarks/bench_opcodes.py [DIR] [--games 100] [--game march_of_progress]
        [--scenario thirty_years_war] [--top 20]

``DIR`` holds ``<game>/`` (the Python sources of a generated engine, as for
``bench_instructions.py``; default: ``generated/``). Each game is played in the playout form
with ``sys.settrace`` counting every opcode event (``frame.f_trace_opcodes``), then
``benchmarks/handwritten_mop.py`` the same way for as many games. A count of bytecodes does
not depend on the machine's load, and it says where the interpreted form's time goes in the
terms the interpreter pays: every bytecode costs about the same. Start-up and the set-up of
each game (``new_state``) are left out. Slow: the tracing makes a game about 50 times
slower.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _counting(counts: collections.Counter[str]) -> Any:
    def trace(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        name = frame.f_code.co_name

        def opcodes(frame: Any, event: str, arg: Any) -> Any:
            if event == "opcode":
                counts[name] += 1
            return opcodes

        return opcodes

    return trace


def generated(folder: Path, game: str, scenario: str, games: int) -> collections.Counter[str]:
    import rulecraft.generated as gen

    gen.__path__.insert(0, str(folder))
    pkg = importlib.import_module(f"rulecraft.generated.{game}")
    engine = sys.modules[pkg.__name__ + ".engine"].__file__ or ""
    if not engine.endswith(".py"):
        sys.exit(f"not the interpreted engine: {engine}")
    from rulecraft.runtime import new_state, playout

    spec = pkg.SPECS[scenario]
    counts: collections.Counter[str] = collections.Counter()
    for seed in range(games):
        S = new_state(spec, seed)
        R = random.Random(seed).random
        sys.settrace(_counting(counts))
        try:
            playout(spec, S, R)
        finally:
            sys.settrace(None)
    return counts


def handwritten(games: int) -> collections.Counter[str]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import handwritten_mop

    counts: collections.Counter[str] = collections.Counter()
    for seed in range(games):
        sys.settrace(_counting(counts))
        try:
            handwritten_mop.play_random_game(seed)
        finally:
            sys.settrace(None)
    return counts


def report(title: str, counts: collections.Counter[str], games: int, top: int) -> float:
    total = sum(counts.values()) / games
    print(f"{title}: {total:,.0f} bytecodes per game")
    for name, n in counts.most_common(top):
        print(f"  {n / games:9,.0f} {100 * n / games / total:5.1f}%  {name}")
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", nargs="?", default=str(ROOT / "generated"))
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--game", default="march_of_progress")
    ap.add_argument("--scenario", default="thirty_years_war")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args(argv)
    ours = generated(Path(args.dir), args.game, args.scenario, args.games)
    a = report(f"{args.game}/{args.scenario}, generated", ours, args.games, args.top)
    if (args.game, args.scenario) == ("march_of_progress", "thirty_years_war"):
        b = report("hand-written (handwritten_mop.py)", handwritten(args.games), args.games, 8)
        print(f"generated / hand-written: {a / b:.2f}x the bytecodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
