"""The registry of ``rulecraft`` subcommands and what they share.

A command is a module of this package that calls :func:`command` with its name, its help and
two functions: ``add_arguments(parser)`` and ``run(args) -> exit status``.
:mod:`rulecraft.compiler.cli` imports every module of the package on start, so a new
subcommand is a new file::

    # compiler/commands/check.py
    from .registry import CLIError, command

    def add_arguments(p): p.add_argument("game")
    def run(args): ...; return 0

    command("check", "validate the rules of a game", add_arguments, run)

Errors meant for the user raise :class:`CLIError` (or a runtime ``GameError``): they print
one line ``rulecraft: error: ...`` and exit 1, never a traceback. The argument types here
(:func:`seed`, :func:`positive`, :func:`games`, ...) and the executor options are shared by
the commands that play games; a command never imports another command.

Every command works on a project (:func:`project_of`): ``--project DIR``, else the nearest
folder at or above the working folder with a ``rulecraft.toml``; its games come before the
games bundled with rulecraft.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = [
    "CLIError",
    "Command",
    "COMMANDS",
    "UNAVAILABLE",
    "command",
    "project_of",
    "version",
    "seed",
    "positive",
    "count",
    "games",
    "bot_games",
    "jobs",
    "names",
    "executor_args",
    "make_executor",
    "check_page_folder",
    "write_page",
    "bot_limit",
]


class CLIError(Exception):
    """A user error: printed as one line, exit status 1."""


class Command(NamedTuple):
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int | None]


COMMANDS: dict[str, Command] = {}
#: command modules that failed to import, with the reason (shown in --help)
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


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rulecraft")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def seed(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be an integer, not {text!r}") from None


def positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}")
    return n


def games(text: str) -> int:
    from rulecraft.runtime.tools.simulate import MAX_GAMES, too_many_games

    n = positive(text)
    if n > MAX_GAMES:
        raise argparse.ArgumentTypeError(too_many_games(n))
    return n


def jobs(text: str) -> int:
    from rulecraft.runtime.tools.executors import max_jobs, too_many_jobs

    n = positive(text)
    if n > max_jobs():
        raise argparse.ArgumentTypeError(too_many_jobs(n))
    return n


def names(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected names separated by commas, not {text!r}")
    return names


def count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, not {text!r}")
    return n


def bot_games(text: str) -> int:
    return 0 if count(text) == 0 else games(text)


def executor_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        type=jobs,
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


def make_executor(args: argparse.Namespace):  # -> Executor
    from rulecraft.runtime.tools.executors import executor_for

    if args.executor not in (None, "local") and args.jobs != 1:
        raise CLIError("--jobs is for --executor local (a Dask cluster has its own workers)")
    return executor_for(args.executor, args.jobs)


def check_page_folder(path: str | None) -> None:
    """Refuse an --html page whose folder does not exist before the games, not after."""
    from pathlib import Path

    if path and not Path(path).resolve().parent.is_dir():
        raise CLIError(f"cannot write {path}: folder {Path(path).parent} does not exist")


def write_page(path: str, text: str) -> None:
    from pathlib import Path

    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"rulecraft: wrote {path}", file=sys.stderr)


def bot_limit(args: argparse.Namespace, spec: Any, agents: list[str]) -> int | None:
    """--bot-max-turns, else the scenario's bot limit for games with a bot in them."""
    from rulecraft.runtime.tools.simulate import default_max_turns

    if args.bot_max_turns is not None:
        return int(args.bot_max_turns)
    return default_max_turns(spec, agents)
