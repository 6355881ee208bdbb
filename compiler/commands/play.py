"""`rulecraft play GAME[/SCENARIO]`: play a game at the terminal, against bots or people."""

from __future__ import annotations

import argparse

from .registry import CLIError, command, names, project_of, seed


def _play_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "name", help="GAME or GAME/SCENARIO (a folder under rules/ and a file under its scenarios/)"
    )
    p.add_argument(
        "--seats",
        type=names,
        default=None,
        help="per seat: human, random, mc, mc:PLAYOUTS, ismcts, ismcts:ITERATIONS, "
        "ismcts:SECONDSs or trader (default: human first, random for the others); "
        "human:NAME for a person who holds several seats (human:ann,human:ann,human:bob)",
    )
    p.add_argument("--seed", type=seed, default=None, help="random seed (default: time-based)")
    p.add_argument(
        "--load",
        metavar="SAVE",
        default=None,
        help="go on with a game saved with `save FILE` at the terminal, with its seed and "
        "seats (NAME must be its game; --seats gives the seats to others)",
    )
    p.add_argument(
        "--save-to",
        metavar="FILE",
        default=None,
        help="where the game is saved when you quit (quit asks first) or the input ends "
        "(default: GAME-SCENARIO-SEED.save.json in this folder, or the --load file)",
    )
    p.add_argument(
        "--auto",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="answer a decision with a single option at once (default: on against bots)",
    )


def _play(args: argparse.Namespace) -> int:
    import time

    from rulecraft.runtime.registry import resolve
    from rulecraft.runtime.tools.terminal import play

    project_of(args, required=False)
    spec, scenario = resolve(args.name)
    start = None
    if args.load is not None:
        from rulecraft.runtime import Game
        from rulecraft.runtime.saves import read_text

        start = Game.from_json(read_text(args.load))  # replayed: every decision checked
        if start.spec.game != spec.game:
            raise CLIError(f"{args.load} is a game of {start.spec.game}, not of {spec.game}")
        spec, scenario = start.spec, start.spec.scenario
        # the same seed (the bots' seeds come from it) and, unless --seats says, the same seats
        saved = start.state["seed"]
        if args.seed is not None and args.seed != saved:
            raise CLIError(
                f"{args.load} was played with seed {saved}: --seed cannot change it "
                "(leave --seed out)"
            )
        args.seed = saved
        if args.seats is None and start.seat_kinds is not None:
            args.seats = list(start.seat_kinds)
    seed = args.seed if args.seed is not None else time.time_ns() % 1_000_000
    if args.seats is None:
        args.seats = ["human"] + ["random"] * (len(spec.seats) - 1)
    for kind in args.seats:
        if kind not in ("human", "random", "mc", "ismcts", "trader") and not kind.startswith(
            ("mc:", "ismcts:", "human:")
        ):
            raise CLIError(
                f"unknown seat kind {kind!r} (use human, human:NAME, random, mc, ismcts or trader)"
            )
    save_to = args.save_to or args.load or f"{spec.game}-{scenario}-{seed}.save.json"
    play(spec, scenario, args.seats, seed, auto=args.auto, start=start, save_to=save_to)
    return 0


command("play", "play a game at the terminal", _play_args, _play)
