"""Instructions per random playout of two builds of a game, counted by callgrind.

Usage (from the repository root)::

    python benchmarks/bench_instructions.py BEFORE_DIR AFTER_DIR [--games 300]
        [--game march_of_progress] [--scenario thirty_years_war] [--interpreted]

``BEFORE_DIR`` and ``AFTER_DIR`` each hold ``<game>/`` (as for ``bench_native_ab.py``: a
native build, or with ``--interpreted`` the Python sources, copied so a native build beside
them is ignored). Each build plays seeds ``0..N-1`` in the playout form under ``valgrind
--tool=callgrind``, once with N games and once with none; the difference divided by N is
the instructions per game, start-up and imports left out. A count of instructions does not
depend on what else the machine runs, so on a shared machine it tells a few percent apart
where timings cannot (it does not see cache misses or branch mispredictions: a check, not a
replacement for the timed runs). Slow: about a minute per build under valgrind.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER = r"""
import importlib, random, sys
import rulecraft.generated as gen
gen.__path__.insert(0, sys.argv[1])
pkg = importlib.import_module("rulecraft.generated." + sys.argv[2])
engine = sys.modules[pkg.__name__ + ".engine"].__file__
if (sys.argv[5] == "native") != engine.endswith((".so", ".pyd")):
    sys.exit(f"not the {sys.argv[5]} engine: {engine}")
from rulecraft.runtime import new_state, playout
spec = pkg.SPECS[sys.argv[3]]
for seed in range(int(sys.argv[4])):
    playout(spec, new_state(spec, seed), random.Random(seed).random)
"""


def instructions(folder: Path, args: argparse.Namespace, games: int, mode: str) -> int:
    """The instructions callgrind counts for a process playing ``games`` games."""
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        "-c",
        WORKER,
        str(folder),
        args.game,
        args.scenario,
        str(games),
        mode,
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        sys.exit(f"no count from callgrind:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--game", default="march_of_progress")
    ap.add_argument("--scenario", default="thirty_years_war")
    ap.add_argument("--interpreted", action="store_true", help="run the Python sources")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    mode = "interpreted" if args.interpreted else "native"
    per_game: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="rulecraft-ir-") as tmp:
        for label, folder in (("before", args.before), ("after", args.after)):
            if args.interpreted:  # the sources alone: Python prefers a .so beside them
                copy = Path(tmp) / label / args.game
                copy.mkdir(parents=True)
                for src in (folder / args.game).glob("*.py"):
                    shutil.copy(src, copy / src.name)
                folder = copy.parent
            zero = instructions(folder, args, 0, mode)
            full = instructions(folder, args, args.games, mode)
            per_game[label] = (full - zero) / args.games
            print(f"{label}: {per_game[label] / 1e6:.3f} M instructions per game ({mode})")
    print(f"before / after: {per_game['before'] / per_game['after']:.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
