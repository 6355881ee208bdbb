"""`rulecraft sheet <game> [--scenario S] [--record SAVE.json] [--format html|pdf]
[--paper a4|letter] -o FILE`.

Writes a game's printable reference sheet (see `compiler/publish/`), or with `--record` its
record forms filled in from a saved game. The file is written whole or not at all: the sheet
is rendered first and then moved into place.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rulecraft.runtime.files import FileWriteError, write_file

from ..publish.sheets import PAPERS, SaveFileError, SheetError, render_html, render_pdf
from .registry import command

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "sheet"
HELP = "export a printable reference sheet (HTML or PDF)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of `rulecraft sheet`."""
    parser.add_argument("game", help="game id, a folder under rules/ (e.g. march_of_progress)")
    parser.add_argument("--scenario", default=None, help="only this scenario's set-up and aids")
    parser.add_argument(
        "--record",
        default=None,
        metavar="SAVE.json",
        help="print the game's record forms filled in from this saved game (JSON)",
    )
    parser.add_argument(
        "--format",
        choices=("html", "pdf"),
        default=None,
        help="output format (default: from the file name, else pdf)",
    )
    parser.add_argument(
        "--paper", choices=sorted(PAPERS), default="a4", help="paper size (default a4)"
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="file to write ('-' for standard output)",
    )
    parser.add_argument("--rules", default=None, metavar="DIR", help=argparse.SUPPRESS)


def _format_of(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    suffix = Path(args.output).suffix.lower()
    return "html" if suffix in (".html", ".htm") else "pdf"


def _write(output: str, data: bytes) -> None:
    if output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        write_file(output, data)
    except FileWriteError as exc:
        raise SheetError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Renders the sheet and writes it; a bad game, scenario or file is one error line, exit 1;
    a save given with --record that cannot be used (not JSON, another game) is one line, exit 2."""
    rules_root = Path(args.rules) if getattr(args, "rules", None) else None
    if rules_root is None:
        # the project the command runs in (as check and compile) if it has the game, else
        # rulecraft's own games
        from .registry import project_of

        project = project_of(args, required=False)
        if project is not None and (project.rules / args.game).is_dir():
            rules_root = project.rules
    record = getattr(args, "record", None)
    try:
        fmt = _format_of(args)
        if fmt == "html":
            html = render_html(
                args.game, args.scenario, args.paper, rules_root=rules_root, record=record
            )
            data = html.encode()
        else:
            data = render_pdf(
                args.game, args.scenario, args.paper, rules_root=rules_root, record=record
            )
        _write(args.output, data)
    except SaveFileError as exc:
        print(f"rulecraft: error: {exc}", file=sys.stderr)
        return 2
    except SheetError as exc:
        print(f"rulecraft: error: {exc}", file=sys.stderr)
        return 1
    return 0


command(NAME, HELP, add_arguments, run)
