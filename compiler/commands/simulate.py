"""`rulecraft simulate`: self-play games and their win rates; with `--all`, a game's balance
report."""

from __future__ import annotations

import argparse
import sys

from .registry import (
    CLIError,
    bot_games,
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


def _simulate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="game or game/scenario (with --all: a game)")
    p.add_argument(
        "--all",
        action="store_true",
        help="balance report: every scenario of the game, random vs random and mc vs mc",
    )
    p.add_argument(
        "--games",
        type=games,
        default=None,
        help="number of games (required; with --all: random-vs-random games per scenario, "
        "default 200)",
    )
    p.add_argument("--seed", type=seed, default=0, help="run seed (default 0)")
    p.add_argument(
        "--agents",
        type=names,
        default=None,
        help="per seat: random, mc, mc:PLAYOUTS, ismcts, ismcts:ITERATIONS, ismcts:SECONDSs "
        "or trader (one name for all seats; not with --all)",
    )
    executor_args(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--bot-games",
        type=bot_games,
        default=None,
        help="with --all: mc-vs-mc games per scenario (default 10; 0 skips them)",
    )
    p.add_argument(
        "--playouts",
        type=positive,
        default=None,
        help="with --all: playouts per option of the mc bot (default 4)",
    )
    p.add_argument(
        "--bot-max-turns",
        type=positive,
        default=None,
        help="games stop as draws after this many turns (with --all: the bot games only). "
        "Default: the scenario's simulate: bot_max_turns for games with a bot (with --all: "
        "200 where a scenario gives none), the scenario's own limit otherwise",
    )
    p.add_argument("--html", metavar="FILE", default=None, help="with --all: write an HTML page")
    p.add_argument(
        "--scenarios",
        type=names,
        default=None,
        help="with --all: only these scenarios (comma-separated ids)",
    )


def _simulate(args: argparse.Namespace) -> int:
    from rulecraft.runtime.registry import resolve
    from rulecraft.runtime.tools.simulate import simulate

    project_of(args, required=False)
    if args.all:
        return _simulate_all(args)
    for opt, value in (
        ("--bot-games", args.bot_games),
        ("--playouts", args.playouts),
        ("--html", args.html),
        ("--scenarios", args.scenarios),
    ):
        if value is not None:
            raise CLIError(f"{opt} needs --all")
    if args.games is None:
        raise CLIError("the following arguments are required: --games")
    spec, scenario = resolve(args.name)
    agents = args.agents or ["random"]
    limit = bot_limit(args, spec, agents)
    executor = make_executor(args)
    try:
        result = simulate(
            spec,
            scenario,
            args.games,
            args.seed,
            agents,
            progress=sys.stderr,
            max_turns=limit,
            executor=executor,
        )
    finally:
        executor.close()
    print(result.to_json() if args.json else result.report())
    return 0


def _simulate_all(args: argparse.Namespace) -> int:

    from rulecraft.runtime.tools import balance as bal

    if "/" in args.name:
        raise CLIError(f"--all takes a game name, not a scenario: {args.name!r}")
    if args.agents is not None:
        raise CLIError("--agents does not go with --all (it plays random and mc pairings)")
    check_page_folder(args.html)
    executor = make_executor(args)
    try:
        report = bal.balance(
            args.name,
            games=bal.DEFAULT_GAMES if args.games is None else args.games,
            bot_games=bal.DEFAULT_BOT_GAMES if args.bot_games is None else args.bot_games,
            playouts=bal.DEFAULT_PLAYOUTS if args.playouts is None else args.playouts,
            bot_max_turns=args.bot_max_turns,  # None: each scenario's own (or the default)
            seed=args.seed,
            jobs=args.jobs,
            progress=sys.stderr,
            scenarios=args.scenarios,
            executor=executor,
        )
    finally:
        executor.close()
    if args.html:
        write_page(args.html, report.html())
    print(report.to_json() if args.json else report.table())
    if report.failed:
        print("rulecraft: error: some pairings failed (see above)", file=sys.stderr)
        return 1
    return 0


command("simulate", "run self-play games and report win rates", _simulate_args, _simulate)
