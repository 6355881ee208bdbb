"""`rulecraft list [GAME]`: the compiled games, their scenarios and their seats."""

from __future__ import annotations

import argparse

from .registry import CLIError, command, project_of


def _list_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", nargs="?", help="only this game")


def _list(args: argparse.Namespace) -> int:
    """Every compiled game, its scenarios and their seats: what `play` and `simulate` take."""
    from rulecraft.runtime.registry import known_games, load_spec
    from rulecraft.runtime.tools.balance import scenarios_of

    project_of(args, required=False)
    games = [g for g in known_games() if "/" not in g]
    if args.game is not None:
        if args.game not in games:
            known = ", ".join(games) or "none"
            raise CLIError(f"unknown game {args.game!r} (compiled games: {known})")
        games = [args.game]
    if not games:
        raise CLIError("no compiled game: run `rulecraft compile` in a project (`rulecraft init`)")
    for game in games:
        load_spec(game)  # a clear error if it is not compiled
        scenarios = scenarios_of(game)
        print(f"{game}: {scenarios[0][0].title}")
        for spec, sid in scenarios:
            seats = ", ".join(
                f"{seat} ({label})" if label.lower() != seat else seat
                for seat, label in zip(spec.seats, spec.seat_labels, strict=True)
            )
            print(f"  {game}/{sid}: {spec.scenarios[sid].title}")
            print(f"      seats: {seats}")
    return 0


command("list", "the compiled games, their scenarios and seats", _list_args, _list)


command("list", "the compiled games, their scenarios and seats", _list_args, _list)
