"""What a board costs: building a Marlborough-sized grid, walking it, and random games of the
invented marches (tests/fixtures/games/marches/).

Usage (from the repository root)::

    python benchmarks/bench_board.py [--columns 60] [--rows 40] [--reps 7] [--games 200]

Prints medians of ``--reps`` runs, side by side:

- ``build``: the board of a ``columns x rows`` grid (every hex, its neighbours, one river
  hexside in ten, a cost scheme) from its data, as the compiler builds it (``build_board``);
- ``steps``: that board's per-hex steps with their costs (``step_costs``, the engine's data);
- ``reach plain`` / ``reach costs`` / ``reach costs+stop``: ``reachable(h, hexes, within=6)``
  from the middle hex, plain steps, with the cost scheme, and with a zone of control of 60
  hexes (the runtime's ``reach``);
- ``marches game``: one random game of the marches, and its decisions per second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def grid_doc(columns: int, rows: int):  # a loaded board.yaml, made in memory
    from rulecraft.compiler.diagnostics import DiagnosticSink
    from rulecraft.compiler.loader import load_yaml

    lines = [
        "board:",
        "  entity: hex",
        f"  columns: [1, {columns}]",
        f"  rows: [1, {rows}]",
        "  terrain: {clear: {}, woods: {}, mountain: {}}",
        "  default: clear",
        "  features: {river: {}}",
        "  hexes:",
    ]
    rng = random.Random(1)
    for c in range(1, columns + 1):
        for r in range(1, rows + 1):
            if rng.random() < 0.3:
                lines.append(f'    "{c:02d}{r:02d}": {rng.choice(["woods", "mountain"])}')
    lines.append("  hexsides:")
    for c in range(1, columns, 3):
        for r in range(1, rows):
            lines.append(f'    "{c:02d}{r:02d}/{c:02d}{r + 1:02d}": river')
    lines += [
        "  costs:",
        "    march: {terrain: {clear: 1, woods: 2, mountain: 3}, hexsides: {river: 1}}",
    ]
    path = Path("/tmp/rulecraft-bench-board.yaml")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_yaml(path, str(path), DiagnosticSink(root=ROOT))


def median_of(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--columns", type=int, default=60)
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--games", type=int, default=200)
    a = ap.parse_args()

    from rulecraft.compiler import ir
    from rulecraft.compiler.board import build_board, step_costs
    from rulecraft.compiler.diagnostics import DiagnosticSink, Position
    from rulecraft.runtime.prelude import reach

    doc = grid_doc(a.columns, a.rows)

    def game() -> ir.Game:
        g = ir.Game("bench", "bench", "", ir.Origin(Position("x", 1, 1)))
        g.entities["hex"] = ir.EntityType("hex", "hexes", ir.Origin(Position("x", 1, 1)), None)
        return g

    sink = DiagnosticSink(root=ROOT)
    board = build_board(doc, game(), sink)
    assert board is not None, sink.render_all()
    index = {c.id: i for i, c in enumerate(board.cells)}
    adj = tuple(tuple(index[n] for n in board.adjacent[c.id]) for c in board.cells)
    steps = step_costs(board, "march", index)
    everywhere = set(range(len(index)))
    mid = index[f"h{a.columns // 2:02d}{a.rows // 2:02d}"]
    zoc = set(rng_pick(everywhere, 60))
    rows = [
        ("build", median_of(lambda: build_board(doc, game(), DiagnosticSink(root=ROOT)), a.reps)),
        ("steps", median_of(lambda: step_costs(board, "march", index), a.reps)),
        ("reach plain", median_of(lambda: reach(adj, None, mid, everywhere, 6, None), a.reps)),
        ("reach costs", median_of(lambda: reach(adj, steps, mid, everywhere, 6, None), a.reps)),
        (
            "reach costs+stop",
            median_of(lambda: reach(adj, steps, mid, everywhere, 6, zoc), a.reps),
        ),
    ]
    print(f"board {a.columns}x{a.rows} ({len(index)} hexes), medians of {a.reps}:")
    for name, secs in rows:
        print(f"  {name:18} {secs * 1000:9.3f} ms")

    from fixtures.marches import SPEC
    from rulecraft.runtime import Game
    from rulecraft.runtime.tools.agents import RandomAgent

    decisions = 0
    t = time.perf_counter()
    for seed in range(a.games):
        g = Game.new(SPEC, None, seed)
        agents = [RandomAgent(seed * 7 + i) for i in range(2)]
        while not g.finished:
            d = g.pending()[0]
            g.apply(d.player, agents[d.player].choose(None, d, g.spec))
            decisions += 1
    secs = time.perf_counter() - t
    print(
        f"marches: {a.games} random games in {secs:.2f} s: {a.games / secs:.0f} games/s, "
        f"{decisions / secs:.0f} decisions/s (Game.apply, log kept)"
    )


def rng_pick(pool: set[int], n: int) -> list[int]:
    return random.Random(2).sample(sorted(pool), n)


if __name__ == "__main__":
    main()
