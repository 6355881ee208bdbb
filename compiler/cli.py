"""The ``rulecraft`` command: ``main`` parses the command line and runs a subcommand.

The subcommands are the modules of :mod:`rulecraft.compiler.commands`, each registered in
:data:`~rulecraft.compiler.commands.registry.COMMANDS`; every one of them is imported on start
(:func:`discover`), so a new subcommand is a new file there.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from .commands.registry import COMMANDS, UNAVAILABLE, CLIError, version

__all__ = ["COMMANDS", "build_parser", "discover", "main"]

#: modules of the commands package that are not commands
_NOT_COMMANDS = {"registry"}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise CLIError(message)


def discover(first: str | None = None) -> None:
    """Import every module of ``rulecraft.compiler.commands`` so that it registers its command.

    With ``first``, the name of a command: if a module of that name registers it, that module
    alone (a command that runs does not pay for importing the others: a no-op ``rulecraft
    compile`` is a fraction of a second)."""
    from . import commands

    def load(mod: str) -> None:
        try:
            importlib.import_module(f"{commands.__name__}.{mod}")
        except ImportError as exc:  # one broken optional command must not break the rest
            UNAVAILABLE[mod] = str(exc)

    modules = [m.name for m in pkgutil.iter_modules(commands.__path__)]
    names = sorted(m for m in modules if m not in _NOT_COMMANDS)
    if first in names:
        load(first)
        if first in COMMANDS:
            return
    for mod in names:
        load(mod)


def _command_word(argv: list[str]) -> str | None:
    """The command named in ``argv`` (the first word that is not an option), if any."""
    words = iter(argv)
    for word in words:
        if word == "--project":
            next(words, None)
        elif word == "--" or not word.startswith("-"):
            return None if word == "--" else word
    return None


def build_parser() -> argparse.ArgumentParser:
    epilog = "; ".join(f"{m} unavailable ({why})" for m, why in sorted(UNAVAILABLE.items()))
    parser = _Parser(
        prog="rulecraft",
        description="Board-game rules as data, compiled to engines.",
        epilog=epilog or None,
    )
    parser.add_argument(
        "--version", action="version", version=f"rulecraft {version()}", help="show the version"
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

    argv = sys.argv[1:] if argv is None else argv
    try:
        discover(_command_word(argv))
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


if __name__ == "__main__":  # `python -m rulecraft.compiler.cli`
    sys.exit(main())
