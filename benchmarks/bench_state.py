"""State costs of engine v2: clone, clone against the size of static data, save/load, views, a
Monte Carlo bot's time per decision.

Usage (from the repository root)::

    python benchmarks/bench_state.py [--nodes N] [--mc-games G] [--playouts P]
        [--skip-map] [--skip-mc] [--seed S]

Parts (times are medians of ``timeit`` repetitions, in process CPU time, per call):

(a) ``Game.clone()`` (a list copy of the compact state plus a ``Game``) and the bare
    ``game.raw[:]`` for every March of Progress scenario, at a mid-game position: ``Game.new``
    then 20 random decisions (fewer if the game ends first). ``slots`` is ``len(game.raw)``.
(b) Clone cost against the size of static data: the fixture game
    ``tests/fixtures/games/big_map/`` (a map of nodes with terrain, value, region and
    adjacency that no rule changes; what moves is two positions, VP, hands, four scouts and
    the round) with its checked-in 20-node scenario ``small_map`` and an ``N``-node scenario
    (default 2,000) written by its ``make_map.py`` into a scratch copy of the game. The copy
    is compiled with the real pipeline (``compile_project`` + ``write_outputs``) into a
    temporary project, and the generated package is imported as
    ``rulecraft.generated.big_map`` by putting the temporary ``generated/`` folder first on
    ``rulecraft.generated.__path__``. Compared with Thirty Years War at the same kind of
    position; the compile time of the scratch project is printed too.
(c) Save and load (``game.to_json()``, ``Game.from_json(text)``, save size in bytes) and the
    views (``game.view(p)``: JSON by field name; ``game.view_state(p)``: the compact view for
    bots) for every March of Progress scenario, at the same positions as (a).
(d) A Monte Carlo bot (``MonteCarloAgent(seed, playouts=P)``, default 16, its default
    depth) against a random bot in Thirty Years War, ``G`` games (default 3) with seats
    alternating: the time per bot decision, including building its view
    (``game.view_state``), as in ``rulecraft simulate``; reported over every decision the
    bot was asked and over those with >= 2 options (a forced one costs nothing), with the
    random playouts per second this implies.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import random
import shlex
import shutil
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAME = "march_of_progress"
BIG_MAP = ROOT / "tests" / "fixtures" / "games" / "big_map"
MID_GAME = 20  # random decisions played before measuring
LATE_GAME = 60  # ... and for a late position in (c)


def per_call_us(fn, repeat: int = 5, min_time: float = 0.02) -> float:
    """Median CPU time of one call of ``fn`` over ``repeat`` timeit runs, in µs."""
    timer = timeit.Timer(fn, timer=time.process_time)
    number = 1
    while True:  # like Timer.autorange, for at least min_time per run
        if timer.timeit(number) >= min_time:
            break
        number *= 2 if number < 1000 else 4
    return statistics.median(timer.repeat(repeat, number)) / number * 1e6


def mid_game(spec, seed: int, decisions: int = MID_GAME):
    """``Game.new`` then ``decisions`` random decisions (by option id, as a user would)."""
    from rulecraft.runtime import Game

    game = Game.new(spec, None, seed)
    rng = random.Random(seed)
    done = 0
    while done < decisions and not game.finished:
        for d in game.pending():
            game.apply(d.player, rng.choice(d.options).id)
            done += 1
    return game


def clone_row(game) -> tuple[float, float, int]:
    raw = game.raw
    return per_call_us(game.clone), per_call_us(raw.copy), len(raw)


# -- (a) and (c) ---------------------------------------------------------------------------
def part_a_c(seed: int) -> None:
    from rulecraft.runtime import Game, load_spec

    load_spec(GAME)
    package = importlib.import_module(f"rulecraft.generated.{GAME}")
    print(f"(a) clone and (c) save/load/views, {GAME}, after N random decisions")
    print("    µs per call, median cpu time; save in bytes; log: events in the log\n")
    head = (
        f"{'scenario':24}{'N':>4}{'log':>5}{'slots':>6}{'clone':>7}{'raw[:]':>7}{'to_json':>9}"
        f"{'from_json':>10}{'save B':>8}{'view':>8}{'view_state':>11}"
    )
    print(head)
    rows = [(sid, spec, MID_GAME) for sid, spec in package.SPECS.items()]
    rows.append(("thirty_years_war", package.SPECS["thirty_years_war"], LATE_GAME))
    for sid, spec, decisions in rows:
        game = mid_game(spec, seed, decisions)
        clone, raw, slots = clone_row(game)
        text = game.to_json()
        player = game.pending()[0].player if not game.finished else 0
        save = per_call_us(game.to_json)
        load = per_call_us(lambda text=text, spec=spec: Game.from_json(text, spec))
        view = per_call_us(lambda g=game, p=player: g.view(p))
        view_state = per_call_us(lambda g=game, p=player: g.view_state(p))
        print(
            f"{sid:24}{decisions:4}{log_length(game):5}{slots:6}{clone:7.2f}{raw:7.2f}"
            f"{save:9.1f}{load:10.1f}{len(text):8}{view:8.1f}{view_state:11.2f}"
        )
    print(
        "    clone: Game.clone(); raw[:]: the list copy alone; view: game.view(p) (JSON by field"
        "\n    name, log rendered); view_state: game.view_state(p) (compact, for bots)\n"
    )


def log_length(game) -> int:
    from rulecraft.runtime.layout import LOG

    n, node = 0, game.raw[LOG]
    while node:
        n, node = n + 1, node[3]
    return n


# -- (b) -------------------------------------------------------------------------------------
def compile_big_map(nodes: int, tmp: Path) -> tuple[object, float]:
    """Compile the Big Map game with an ``nodes``-node scenario into ``tmp``; import it."""
    from rulecraft.compiler.project import compile_project, new_sink, write_outputs

    sys.path.insert(0, str(BIG_MAP))
    try:
        import make_map
    finally:
        sys.path.remove(str(BIG_MAP))
    game_dir = tmp / "rules" / "big_map"
    shutil.copytree(BIG_MAP, game_dir, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (tmp / "generated").mkdir()
    make_map.write_scenario(game_dir, f"map_{nodes}", nodes)
    c0 = time.process_time()
    sink = new_sink(tmp)
    compiled = compile_project(tmp, sink)
    if sink.has_errors:
        raise SystemExit(sink.render_all())
    write_outputs(tmp, compiled.outputs)
    seconds = time.process_time() - c0
    import rulecraft.generated as generated

    generated.__path__.insert(0, str(tmp / "generated"))
    return importlib.import_module("rulecraft.generated.big_map"), seconds


def static_size(spec) -> int:
    """Elements of the scenario's static data (tuples counted element by element)."""

    def size(v) -> int:
        if isinstance(v, (tuple, list)):
            return sum(size(x) for x in v) or 1
        if isinstance(v, dict):
            return sum(size(x) for x in v.values()) or 1
        return 1

    return sum(size(v) for v in spec.data.values())


def part_b(nodes: int, seed: int) -> None:
    from rulecraft.runtime import load_spec

    print(f"(b) clone against static data: Big Map (tests/fixtures/games/big_map/) vs {GAME}")
    with tempfile.TemporaryDirectory(prefix="rulecraft-bench-map-") as tmp:
        package, seconds = compile_big_map(nodes, Path(tmp))
        print(f"    compiled rules/big_map with a {nodes}-node scenario in {seconds:.1f} s cpu")
        gen = Path(tmp, "generated", "big_map")
        for p in sorted(gen.glob("*.py")):
            print(f"    generated/big_map/{p.name}: {p.stat().st_size:,} bytes")
        print()
        print(
            f"{'game/scenario':36}{'records':>8}{'static':>8}{'slots':>6}{'clone':>8}"
            f"{'raw[:]':>8}{'view_state':>11}"
        )
        rows = [(f"{GAME}/thirty_years_war", load_spec(GAME, "thirty_years_war"))]
        rows += [(f"big_map/{sid}", spec) for sid, spec in package.SPECS.items()]
        for name, spec in rows:
            game = mid_game(spec, seed)
            clone, raw, slots = clone_row(game)
            records = sum(len(spec.ids[t]) for t in spec.entity_fields)
            player = game.pending()[0].player if not game.finished else 0
            view = per_call_us(lambda g=game, p=player: g.view_state(p))
            print(
                f"{name:36}{records:8}{static_size(spec):8}{slots:6}{clone:8.2f}{raw:8.2f}"
                f"{view:11.2f}"
            )
    print(
        "    records: records of every entity type; static: elements of the scenario's static"
        "\n    data (spec.data, tuples counted element by element); clone, raw[:], view_state: µs\n"
    )


# -- (d) -------------------------------------------------------------------------------------
def part_d(games: int, playouts: int, seed: int) -> None:
    from rulecraft.runtime import Game, TurnLimit, load_spec
    from rulecraft.runtime.tools.agents import MonteCarloAgent, RandomAgent

    spec = load_spec(GAME, "thirty_years_war")
    print(
        f"(d) MonteCarloAgent(playouts={playouts}) against RandomAgent, {GAME}/thirty_years_war,"
        f" {games} game(s), seats alternating"
    )
    times: list[float] = []  # cpu seconds per bot decision
    forced: list[float] = []
    options: list[int] = []
    turns = wins = 0
    for g in range(games):
        mc_seat = g % 2
        game = Game.new(spec, None, seed + g)
        bots = {mc_seat: MonteCarloAgent(seed + g, playouts), 1 - mc_seat: RandomAgent(seed + g)}
        try:
            while not game.finished:
                for d in game.pending():
                    p = d.player
                    if p == mc_seat:
                        c0 = time.process_time()
                        choice = bots[p].choose(game.view_state(p), d, spec)
                        dt = time.process_time() - c0
                        if len(d.options) > 1:
                            times.append(dt)
                            options.append(len(d.options))
                        else:
                            forced.append(dt)
                    else:
                        choice = bots[p].choose(None, d, spec)
                    game.apply(p, choice)
        except TurnLimit:
            pass
        turns += game.turn
        wins += bool(game.result and mc_seat in game.result["winners"])
    if not times:
        print("    the bot had no decision with a choice\n")
        return
    every = times + forced
    mean_opts = sum(options) / len(options)
    mean = sum(times) / len(times)
    print(
        f"    {len(every)} bot decisions ({len(times)} with >= 2 options, {mean_opts:.1f} "
        f"options on average); {turns / games:.0f} turns per game; the bot won {wins}/{games}"
    )
    print(f"    ms per decision, all:           mean {sum(every) / len(every) * 1e3:8.1f}")
    print(
        f"    ms per decision, >= 2 options:  mean {mean * 1e3:8.1f}   median "
        f"{statistics.median(times) * 1e3:8.1f}   max {max(times) * 1e3:8.1f}"
    )
    print(
        f"    random playouts per second (options x {playouts} per decision): "
        f"{sum(options) * playouts / sum(times):,.0f}\n"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=2000, help="nodes of the big map (2000)")
    ap.add_argument("--mc-games", type=int, default=3, help="games of the MC bot (3)")
    ap.add_argument("--playouts", type=int, default=16, help="MC playouts per option (16)")
    ap.add_argument("--skip-map", action="store_true", help="skip (b)")
    ap.add_argument("--skip-mc", action="store_true", help="skip (d)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the positions and bots")
    args = ap.parse_args(argv)
    print(f"$ {shlex.join(['python', 'benchmarks/bench_state.py', *argv])}")
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus, "
        f"load {os.getloadavg()[0]:.2f}, {time.strftime('%Y-%m-%d %H:%M')}\n"
    )
    part_a_c(args.seed)
    if not args.skip_map:
        part_b(args.nodes, args.seed)
    if not args.skip_mc:
        part_d(args.mc_games, args.playouts, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
