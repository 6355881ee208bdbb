"""The ``rulecraft`` command.

Subcommands live in a registry, :data:`COMMANDS`: ``(name, help, add_arguments, run)``.
``run(args)`` returns an exit code. Other modules register theirs with :func:`command`;
every module ``rulecraft.compiler.cmd_*`` is imported on start, so a new subcommand is a
new file::

    # compiler/cmd_check.py
    from rulecraft.compiler.cli import CLIError, command

    def add_arguments(p): p.add_argument("game")
    def run(args): ...; return 0

    command("check", "validate the rules of a game", add_arguments, run)

Errors meant for the user raise :class:`CLIError` (or a runtime ``GameError``): they print
one line ``rulecraft: error: ...`` and exit 1, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["CLIError", "Command", "COMMANDS", "command", "main"]


class CLIError(Exception):
    """A user error: printed as one line, exit status 1."""


class Command(NamedTuple):
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int | None]


COMMANDS: dict[str, Command] = {}
#: cmd_* modules that failed to import, with the reason (shown in --help)
UNAVAILABLE: dict[str, str] = {}


def command(
    name: str,
    help: str,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int | None],
) -> Command:
    """Register a subcommand (a later registration of the same name replaces it)."""
    cmd = Command(name, help, add_arguments, run)
    COMMANDS[name] = cmd
    return cmd


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise CLIError(message)


def _seed(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be an integer, not {text!r}") from None


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return n


def _names(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


# -- play -------------------------------------------------------------------------------
def _play_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="game or game/scenario, e.g. march_of_progress/thirty_years_war")
    p.add_argument(
        "--seats",
        type=_names,
        default=["human", "random"],
        help="per seat: human, random or mc (default human,random)",
    )
    p.add_argument("--seed", type=_seed, default=None, help="random seed (default: time-based)")


def _play(args: argparse.Namespace) -> int:
    import time

    from rulecraft.runtime.registry import resolve
    from rulecraft.runtime.terminal import play

    spec, scenario = resolve(args.name)
    seed = args.seed if args.seed is not None else time.time_ns() % 1_000_000
    for kind in args.seats:
        if kind not in ("human", "random", "mc") and not kind.startswith("mc:"):
            raise CLIError(f"unknown seat kind {kind!r} (use human, random or mc)")
    play(spec, scenario, args.seats, seed)
    return 0


# -- simulate ---------------------------------------------------------------------------
def _simulate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="game or game/scenario")
    p.add_argument("--games", type=_positive, required=True, help="number of games")
    p.add_argument("--seed", type=_seed, default=0, help="run seed (default 0)")
    p.add_argument(
        "--agents",
        type=_names,
        default=["random"],
        help="per seat: random, mc or mc:PLAYOUTS (one name for all seats)",
    )
    p.add_argument("--jobs", type=_positive, default=1, help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def _simulate(args: argparse.Namespace) -> int:
    from rulecraft.runtime.registry import resolve
    from rulecraft.runtime.simulate import simulate

    spec, scenario = resolve(args.name)
    result = simulate(
        spec, scenario, args.games, args.seed, args.agents, jobs=args.jobs, progress=sys.stderr
    )
    print(result.to_json() if args.json else result.report())
    return 0


command("play", "play a game at the terminal", _play_args, _play)
command("simulate", "run self-play games and report win rates", _simulate_args, _simulate)


def _discover() -> None:
    """Import every ``rulecraft.compiler.cmd_*`` module so that it registers its commands."""
    try:
        pkg = importlib.import_module("rulecraft.compiler")
    except ImportError:
        return
    for mod in sorted(m.name for m in pkgutil.iter_modules(pkg.__path__)):
        if mod.startswith("cmd_"):
            try:
                importlib.import_module(f"rulecraft.compiler.{mod}")
            except ImportError as exc:  # one broken optional command must not break the rest
                UNAVAILABLE[mod] = str(exc)


def build_parser() -> argparse.ArgumentParser:
    epilog = "; ".join(f"{m} unavailable ({why})" for m, why in sorted(UNAVAILABLE.items()))
    parser = _Parser(
        prog="rulecraft",
        description="Board-game rules as data, compiled to engines.",
        epilog=epilog or None,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in sorted(COMMANDS):
        cmd = COMMANDS[name]
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        cmd.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``rulecraft``; returns (and, as a script, exits with) the status."""
    from rulecraft.runtime.machine import GameError

    try:
        _discover()
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 1
        return int(COMMANDS[args.command].run(args) or 0)
    except (CLIError, GameError) as exc:
        print(f"rulecraft: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("rulecraft: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # `python -m rulecraft.compiler.cli`: use the registry that cmd_* modules import
    from rulecraft.compiler.cli import main as _main

    sys.exit(_main())
