"""The bytes a play page receives for a hex board's map (issue 26 item 4): the board, once per
page from ``/api/T/map``, and per frame the pieces (the frame's ``map``), beside the whole
frame, for every scenario of every compiled game with a hex board, each seat and the
spectators, at the start and after some random moves.

    .venv/bin/python benchmarks/bench_serve_map.py [MOVES]
"""

from __future__ import annotations

import random
import sys

from rulecraft.runtime.game import Game
from rulecraft.runtime.registry import known_games
from rulecraft.runtime.serve.frames import encode, frame
from rulecraft.runtime.tools.balance import scenarios_of
from rulecraft.runtime.tools.text_map import map_data


def main(moves: int = 30) -> None:
    print(f"{'game/scenario':34} {'board':>8} {'seat':>16} {'frame':>7} {'map':>6} (bytes)")
    for name in known_games():
        if "/" in name:
            continue
        for spec, sid in scenarios_of(name):
            data = map_data(spec)
            if data is None:
                continue
            board = len(encode({"map": data}).encode())
            g = Game.new(spec, sid, 1)
            rng = random.Random(1)
            for moment in ("start", f"after {moves}"):
                if moment != "start":
                    for _ in range(moves):
                        if g.finished:
                            break
                        d = rng.choice(g.pending())
                        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
                for p in (*range(len(spec.seat_labels)), None):
                    f = frame(g, p)
                    label = "spectators" if p is None else spec.seat_labels[p]
                    print(
                        f"{name + '/' + sid:34} {board:8} {label[:16]:>16} "
                        f"{len(encode(f).encode()):7} {len(encode({'m': f['map']}).encode()):6}"
                        f"  {moment}"
                    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
