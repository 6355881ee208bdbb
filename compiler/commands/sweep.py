"""`rulecraft sweep`: vary constants and readings over a grid, with win rates per point."""

from __future__ import annotations

import argparse
import sys

from .registry import (
    bot_limit,
    check_page_folder,
    command,
    executor_args,
    games,
    make_executor,
    names,
    positive,
    project_of,
    seed,
    write_page,
)


def _sweep_args(p: argparse.ArgumentParser) -> None:
    from rulecraft.runtime.tools.sweep import DEFAULT_BATCH, DEFAULT_MAX_GAMES

    p.add_argument("name", help="game/scenario (a game alone: its first scenario)")
    p.add_argument(
        "--set",
        dest="sets",
        metavar="NAME=VALUES",
        action="append",
        required=True,
        help="a constant or reading and its values: a list (12,15,18; true,false; both) or a "
        "range (12..20, 12..20:2). Several --set make a grid",
    )
    p.add_argument(
        "--games",
        type=games,
        default=DEFAULT_MAX_GAMES,
        help=f"games per point at most (default {DEFAULT_MAX_GAMES})",
    )
    p.add_argument(
        "--batch",
        type=positive,
        default=DEFAULT_BATCH,
        help=f"games per point between looks at its interval (default {DEFAULT_BATCH})",
    )
    p.add_argument(
        "--no-stopping",
        action="store_true",
        help="play every point to --games, even once it is decided",
    )
    p.add_argument("--seed", type=seed, default=0, help="run seed (default 0)")
    p.add_argument(
        "--agents",
        type=names,
        default=None,
        help="per seat, as for simulate: random (default), mc, mc:N, ismcts, ismcts:N, "
        "ismcts:SECONDSs, trader",
    )
    p.add_argument(
        "--bot-max-turns",
        type=positive,
        default=None,
        help="games stop as draws after this many turns (default as for simulate)",
    )
    executor_args(p)
    p.add_argument("--html", metavar="FILE", default=None, help="also write the charts page")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def _sweep(args: argparse.Namespace) -> int:

    from rulecraft.runtime.registry import resolve
    from rulecraft.runtime.tools.sweep import parse_set, sweep

    project_of(args, required=False)
    check_page_folder(args.html)
    spec, scenario = resolve(args.name)
    params = [parse_set(spec, text) for text in args.sets]
    agents = args.agents or ["random"]
    limit = bot_limit(args, spec, agents)
    executor = make_executor(args)
    try:
        result = sweep(
            spec,
            scenario,
            params,
            agents,
            max_games=args.games,
            batch=min(args.batch, args.games),
            seed=args.seed,
            executor=executor,
            max_turns=limit,
            progress=sys.stderr,
            sequential=not args.no_stopping,
        )
    finally:
        executor.close()
    if args.html:
        write_page(args.html, result.html())
    print(result.to_json() if args.json else result.table())
    return 0


command(
    "sweep",
    "vary constants and readings over a grid; win rates per point, with sequential stopping",
    _sweep_args,
    _sweep,
)
