"""``python -m rulecraft.compiler.builtins --write docs/language.md``: the table of builtins of
the language reference, made anew from the rows (``--check``: exit 1 if it differs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import with_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rulecraft.compiler.builtins",
        description="Write or check the table of builtins in the language reference.",
    )
    parser.add_argument("doc", type=Path, help="the language reference (docs/language.md)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the table in place")
    mode.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = parser.parse_args(argv)
    text = args.doc.read_text(encoding="utf-8")
    new = with_table(text)
    if args.check:
        if new != text:
            print(f"{args.doc}: the table of builtins differs from compiler/builtins.py")
            return 1
        return 0
    if new != text:
        args.doc.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
