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

Every command works on a project (:func:`project_of`): ``--project DIR``, else the nearest
folder at or above the working folder with a ``rulecraft.toml``; its games come before the
games bundled with rulecraft.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["CLIError", "Command", "COMMANDS", "command", "main", "project_of"]


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


def project_of(args: argparse.Namespace, required: bool = True) -> Any:
    """The project a command works on (a :class:`rulecraft.runtime.config.Project`):
    ``--project DIR``, else the nearest one at or above the working folder. Its engines are
    found by name from then on. Without ``required``, None outside any project."""
    from rulecraft.runtime.config import NoProject, ProjectError, find_project
    from rulecraft.runtime.registry import use_project

    explicit = getattr(args, "project", None)
    try:
        project = find_project(explicit=explicit)
    except NoProject as exc:  # outside any project: the bundled games only
        if required or explicit is not None:
            raise CLIError(str(exc)) from None
        return None
    except ProjectError as exc:  # a project whose configuration is broken
        raise CLIError(str(exc)) from None
    try:
        use_project(project)
    except ImportError as exc:
        raise CLIError(f"cannot import the engines of {project.root}: {exc}") from None
    return project


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


def _games(text: str) -> int:
    from rulecraft.runtime.tools.simulate import MAX_GAMES, too_many_games

    n = _positive(text)
    if n > MAX_GAMES:
        raise argparse.ArgumentTypeError(too_many_games(n))
    return n


def _jobs(text: str) -> int:
    from rulecraft.runtime.tools.executors import max_jobs, too_many_jobs

    n = _positive(text)
    if n > max_jobs():
        raise argparse.ArgumentTypeError(too_many_jobs(n))
    return n


def _names(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected names separated by commas, not {text!r}")
    return names


# -- play -------------------------------------------------------------------------------
def _play_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "name", help="GAME or GAME/SCENARIO (a folder under rules/ and a file under its scenarios/)"
    )
    p.add_argument(
        "--seats",
        type=_names,
        default=None,
        help="per seat: human, random, mc, mc:PLAYOUTS, ismcts, ismcts:ITERATIONS, "
        "ismcts:SECONDSs or trader (default: human first, random for the others); "
        "human:NAME for a person who holds several seats (human:ann,human:ann,human:bob)",
    )
    p.add_argument("--seed", type=_seed, default=None, help="random seed (default: time-based)")
    p.add_argument(
        "--load",
        metavar="SAVE",
        default=None,
        help="go on with a game saved with `save FILE` at the terminal, with its seed and "
        "seats (NAME must be its game; --seats gives the seats to others)",
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
    play(spec, scenario, args.seats, seed, auto=args.auto, start=start)
    return 0


# -- simulate ---------------------------------------------------------------------------
def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, not {text!r}")
    return n


def _bot_games(text: str) -> int:
    return 0 if _count(text) == 0 else _games(text)


def _executor_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        help="local worker processes (default 1; at most 4 per core)",
    )
    p.add_argument(
        "--executor",
        metavar="WHERE",
        default=None,
        help="where the games run: local (processes on this machine, the default) or "
        "dask://HOST:PORT (a Dask distributed scheduler; pip install 'rulecraft[distributed]')",
    )


def _executor(args: argparse.Namespace):  # -> Executor
    from rulecraft.runtime.tools.executors import executor_for

    if args.executor not in (None, "local") and args.jobs != 1:
        raise CLIError("--jobs is for --executor local (a Dask cluster has its own workers)")
    return executor_for(args.executor, args.jobs)


def _check_page_folder(path: str | None) -> None:
    """Refuse an --html page whose folder does not exist before the games, not after."""
    from pathlib import Path

    if path and not Path(path).resolve().parent.is_dir():
        raise CLIError(f"cannot write {path}: folder {Path(path).parent} does not exist")


def _write_page(path: str, text: str) -> None:
    from pathlib import Path

    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"rulecraft: wrote {path}", file=sys.stderr)


def _bot_limit(args: argparse.Namespace, spec: Any, agents: list[str]) -> int | None:
    """--bot-max-turns, else the scenario's bot limit for games with a bot in them."""
    from rulecraft.runtime.tools.simulate import default_max_turns

    if args.bot_max_turns is not None:
        return int(args.bot_max_turns)
    return default_max_turns(spec, agents)


def _simulate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="game or game/scenario (with --all: a game)")
    p.add_argument(
        "--all",
        action="store_true",
        help="balance report: every scenario of the game, random vs random and mc vs mc",
    )
    p.add_argument(
        "--games",
        type=_games,
        default=None,
        help="number of games (required; with --all: random-vs-random games per scenario, "
        "default 200)",
    )
    p.add_argument("--seed", type=_seed, default=0, help="run seed (default 0)")
    p.add_argument(
        "--agents",
        type=_names,
        default=None,
        help="per seat: random, mc, mc:PLAYOUTS, ismcts, ismcts:ITERATIONS, ismcts:SECONDSs "
        "or trader (one name for all seats; not with --all)",
    )
    _executor_args(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--bot-games",
        type=_bot_games,
        default=None,
        help="with --all: mc-vs-mc games per scenario (default 10; 0 skips them)",
    )
    p.add_argument(
        "--playouts",
        type=_positive,
        default=None,
        help="with --all: playouts per option of the mc bot (default 4)",
    )
    p.add_argument(
        "--bot-max-turns",
        type=_positive,
        default=None,
        help="games stop as draws after this many turns (with --all: the bot games only). "
        "Default: the scenario's simulate: bot_max_turns for games with a bot (with --all: "
        "200 where a scenario gives none), the scenario's own limit otherwise",
    )
    p.add_argument("--html", metavar="FILE", default=None, help="with --all: write an HTML page")
    p.add_argument(
        "--scenarios",
        type=_names,
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
    limit = _bot_limit(args, spec, agents)
    executor = _executor(args)
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
    _check_page_folder(args.html)
    executor = _executor(args)
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
        _write_page(args.html, report.html())
    print(report.to_json() if args.json else report.table())
    if report.failed:
        print("rulecraft: error: some pairings failed (see above)", file=sys.stderr)
        return 1
    return 0


# -- sweep ------------------------------------------------------------------------------
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
        type=_games,
        default=DEFAULT_MAX_GAMES,
        help=f"games per point at most (default {DEFAULT_MAX_GAMES})",
    )
    p.add_argument(
        "--batch",
        type=_positive,
        default=DEFAULT_BATCH,
        help=f"games per point between looks at its interval (default {DEFAULT_BATCH})",
    )
    p.add_argument(
        "--no-stopping",
        action="store_true",
        help="play every point to --games, even once it is decided",
    )
    p.add_argument("--seed", type=_seed, default=0, help="run seed (default 0)")
    p.add_argument(
        "--agents",
        type=_names,
        default=None,
        help="per seat, as for simulate: random (default), mc, mc:N, ismcts, ismcts:N, "
        "ismcts:SECONDSs, trader",
    )
    p.add_argument(
        "--bot-max-turns",
        type=_positive,
        default=None,
        help="games stop as draws after this many turns (default as for simulate)",
    )
    _executor_args(p)
    p.add_argument("--html", metavar="FILE", default=None, help="also write the charts page")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def _sweep(args: argparse.Namespace) -> int:

    from rulecraft.runtime.registry import resolve
    from rulecraft.runtime.tools.sweep import parse_set, sweep

    project_of(args, required=False)
    _check_page_folder(args.html)
    spec, scenario = resolve(args.name)
    params = [parse_set(spec, text) for text in args.sets]
    agents = args.agents or ["random"]
    limit = _bot_limit(args, spec, agents)
    executor = _executor(args)
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
        _write_page(args.html, result.html())
    print(result.to_json() if args.json else result.table())
    return 0


command("play", "play a game at the terminal", _play_args, _play)
command("simulate", "run self-play games and report win rates", _simulate_args, _simulate)
command(
    "sweep",
    "vary constants and readings over a grid; win rates per point, with sequential stopping",
    _sweep_args,
    _sweep,
)


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


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rulecraft")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


# -- list -------------------------------------------------------------------------------
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


def build_parser() -> argparse.ArgumentParser:
    epilog = "; ".join(f"{m} unavailable ({why})" for m, why in sorted(UNAVAILABLE.items()))
    parser = _Parser(
        prog="rulecraft",
        description="Board-game rules as data, compiled to engines.",
        epilog=epilog or None,
    )
    parser.add_argument(
        "--version", action="version", version=f"rulecraft {_version()}", help="show the version"
    )
    project_help = (
        "the project folder (default: the nearest folder with a rulecraft.toml at or above "
        "the working folder)"
    )
    parser.add_argument("--project", metavar="DIR", default=None, help=project_help)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in sorted(COMMANDS):
        cmd = COMMANDS[name]
        p = sub.add_parser(name, help=cmd.help, description=cmd.help)
        cmd.add_arguments(p)
        if not any(a.dest == "project" for a in p._actions):
            # also after the command (`rulecraft check --project DIR`)
            p.add_argument("--project", metavar="DIR", default=argparse.SUPPRESS, help=project_help)
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
    except BrokenPipeError:
        # the reader went away (`rulecraft explain ... | head`): stop quietly, as a shell
        # command killed by SIGPIPE would, and keep Python from failing again at exit
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141


if __name__ == "__main__":
    # `python -m rulecraft.compiler.cli`: use the registry that cmd_* modules import
    from rulecraft.compiler.cli import main as _main

    sys.exit(_main())
