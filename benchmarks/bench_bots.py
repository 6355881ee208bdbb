"""Bot strength: the ISMCTS bot against flat Monte Carlo and against random, per scenario.

Usage (from the repository root)::

    python benchmarks/bench_bots.py [--games N] [--bot ismcts] [--opponents mc,random]
        [--scenarios a,b] [--game march_of_progress] [--seed S] [--jobs J]

For every scenario of the game (default: every March of Progress scenario) and every
opponent, ``N`` games are played with ``rulecraft.runtime.tools.simulate.simulate``: the bot
sits in each seat in turn (``N / seats`` games each, the rest to the first seats) and the
opponent in every other seat, at the scenario's bot turn limit (``simulate: bot_max_turns``;
a game stopped there is a tie). Every seat assignment plays the same game seeds, so the deals
and dice are paired across seats. Reported: the bot's wins, ties and losses, its win rate with
a 95% Wilson interval, its score rate ((wins + ties / 2) / games), the even share
(1 / seats), the mean length, and the wall seconds. A win rate whose interval lies above the
even share is a measured edge.

``--cost G`` measures thinking time instead: G games per scenario and opponent, played in
this process (the bot in each seat in turn), timing every decision with a choice in process
CPU time (``time.process_time``: steadier than wall clock on a shared machine), and prints
the mean milliseconds per decision of the bot and of the opponent.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from rulecraft.runtime import Game, TurnLimit
from rulecraft.runtime.registry import load_spec
from rulecraft.runtime.rng import derive_seed
from rulecraft.runtime.tools.agents import make_agent
from rulecraft.runtime.tools.simulate import bot_max_turns, simulate, wilson


def cost(
    game: str, scenario: str, bot: str, opponent: str, games: int, seed: int
) -> tuple[float, float, int]:
    """Mean CPU milliseconds per decision with a choice: (bot, opponent, decisions timed)."""
    spec = load_spec(game, scenario)
    n = len(spec.seats)
    spent = {bot: 0.0, opponent: 0.0}
    count = {bot: 0, opponent: 0}
    for i in range(games):
        k = i % n
        names = [bot if q == k else opponent for q in range(n)]
        s = derive_seed(seed, i)
        g = Game.new(spec, scenario, s)
        g.max_turns = bot_max_turns(spec) or g.max_turns
        agents = [make_agent(name, derive_seed(s, q)) for q, name in enumerate(names)]
        try:
            while not g.finished:
                for d in g.pending():
                    t = time.process_time()
                    oid = agents[d.player].choose(g.view_state(d.player), d, spec)
                    if len(d.options) > 1:
                        spent[names[d.player]] += time.process_time() - t
                        count[names[d.player]] += 1
                    g.apply(d.player, oid)
        except TurnLimit:  # a game stopped at the bot turn limit: its decisions still count
            pass
    return (
        1000 * spent[bot] / max(1, count[bot]),
        1000 * spent[opponent] / max(1, count[opponent]),
        count[bot],
    )


def bench(
    game: str, scenario: str, bot: str, opponent: str, games: int, seed: int, jobs: int
) -> dict[str, object]:
    spec = load_spec(game, scenario)
    seats = list(spec.scenarios[scenario].seats)
    n = len(seats)
    wins = ties = turns = 0
    start = time.perf_counter()
    for k in range(n):
        count = games // n + (k < games % n)
        if not count:
            continue
        agents = [bot if q == k else opponent for q in range(n)]
        r = simulate(spec, scenario, count, seed, agents, jobs=jobs, max_turns=bot_max_turns(spec))
        wins += r.wins[seats[k]]
        ties += r.ties
        turns += r.turns
    seconds = time.perf_counter() - start
    lo, hi = wilson(wins, games)
    return {
        "scenario": scenario,
        "opponent": opponent,
        "seats": n,
        "games": games,
        "wins": wins,
        "ties": ties,
        "losses": games - wins - ties,
        "win_rate": wins / games,
        "ci": (lo, hi),
        "score": (wins + ties / 2) / games,
        "even": 1 / n,
        "mean_turns": turns / games,
        "seconds": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--game", default="march_of_progress")
    ap.add_argument("--scenarios", default=None, help="comma-separated (default: every one)")
    ap.add_argument("--bot", default="ismcts", help="the bot measured (default ismcts)")
    ap.add_argument("--opponents", default="mc,random", help="comma-separated (default mc,random)")
    ap.add_argument("--games", type=int, default=20, help="games per scenario and opponent")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cost", type=int, default=0, metavar="G", help="time decisions instead")
    args = ap.parse_args(argv)
    from rulecraft.runtime.registry import known_games

    scenarios = (
        args.scenarios.split(",")
        if args.scenarios
        else list(load_spec(args.game).scenarios)
        if args.game in known_games()
        else []
    )
    if args.cost:
        print(f"# CPU ms per decision with a choice, {args.cost} games per row, seed {args.seed}")
        print(f"| scenario | opponent | {args.bot} ms | opponent ms | decisions timed |")
        print("|---|---|---:|---:|---:|")
        for sc in scenarios:
            for opp in args.opponents.split(","):
                a, b, k = cost(args.game, sc, args.bot, opp, args.cost, args.seed)
                print(f"| {sc} | {opp} | {a:.1f} | {b:.1f} | {k} |", flush=True)
        return 0
    print(
        f"# {args.game}: {args.bot} against {args.opponents}, {args.games} games per row, "
        f"seed {args.seed}, jobs {args.jobs}; Python {platform.python_version()}",
        flush=True,
    )
    print("| scenario | opponent | W-T-L | win rate (95% CI) | score | even | turns | s |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for sc in scenarios:
        for opp in args.opponents.split(","):
            r = bench(args.game, sc, args.bot, opp, args.games, args.seed, args.jobs)
            lo, hi = r["ci"]  # type: ignore[misc]
            print(
                f"| {sc} | {opp} | {r['wins']}-{r['ties']}-{r['losses']} | "
                f"{r['win_rate']:.0%} ({lo:.0%}-{hi:.0%}) | {r['score']:.2f} | "
                f"{r['even']:.2f} | {r['mean_turns']:.1f} | {r['seconds']:.0f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
