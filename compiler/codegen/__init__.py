"""Generate a game's engine from its checked scenarios (see ``module.py``).

``generate_game`` gives the text of every module of ``generated/<game>/``; ``format_many``
formats them with the pinned ruff and turns the rules-position markers into each module's
``_ORIGINS`` table.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from .exprs import CodegenError
from .module import extract_origins, generate_game

__all__ = [
    "CodegenError",
    "FormatterMissing",
    "format_many",
    "format_python",
    "generate_game",
]

RUFF = [sys.executable, "-m", "ruff", "format", "--isolated", "--line-length", "100"]
TIDY = [
    *(sys.executable, "-m", "ruff", "check", "--isolated", "--quiet"),
    # imports sorted, and parentheses an inlined function's body leaves around a lone
    # generator argument (`any((x for x in xs))`) dropped
    *("--select", "I,UP034", "--fix", "--exit-zero", "--line-length", "100"),
]


class FormatterMissing(Exception):
    """The pinned formatter (ruff, the `compile` extra) is not installed."""


def format_many(texts: dict[str, str]) -> dict[str, str]:
    """Format generated modules with one run of ruff (names are file names)."""
    import importlib.util

    if importlib.util.find_spec("ruff") is None:
        raise FormatterMissing(
            "generating engines needs the pinned formatter ruff: "
            "pip install 'rulecraft[compile]' (scripts/bootstrap installs everything)"
        )
    with tempfile.TemporaryDirectory(prefix="rulecraft-") as tmp:
        for name, text in texts.items():
            Path(tmp, name).write_text(text, encoding="utf-8")
        subprocess.run([*TIDY, tmp], capture_output=True, text=True, check=False)
        proc = subprocess.run([*RUFF, tmp], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CodegenError("generated code does not parse:\n" + proc.stderr)
        return {
            name: extract_origins(Path(tmp, name).read_text(encoding="utf-8")) for name in texts
        }


def format_python(text: str) -> str:
    """Format one generated module."""
    return format_many({"module.py": text})["module.py"]
