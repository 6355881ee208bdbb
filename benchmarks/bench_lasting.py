"""What a lasting effect costs a rule that reads through it: a changed function against its
original (``f__base``), on the edicts fixture game (tests/fixtures/games/edicts/).

Usage (from the repository root)::

    python benchmarks/bench_lasting.py [--reps R] [--calls N]

The fixture is compiled into a scratch project. For ``income`` (an int function three
effects modify) and ``may_trade`` (a bool function an effect forbids) the script times ``N``
calls of the changed function and of its original, interleaved (a b a b ...) ``R`` times so
that other jobs on a shared machine weigh on both alike, with no effect in force and with
every effect in force on both players; it prints the median nanoseconds of one call of each.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def per_call(fn, S, n: int) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    for _ in range(n):
        fn(S, 1)
    return (time.perf_counter() - t0) / n * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    from compile_helpers import compile_into, import_generated
    from rulecraft.runtime import Game

    with tempfile.TemporaryDirectory(prefix="rulecraft-bench-lasting-") as tmp:
        root = Path(tmp)
        (root / "rules").mkdir()
        (root / "generated").mkdir()
        shutil.copytree(ROOT / "tests" / "fixtures" / "games" / "edicts", root / "rules" / "edicts")
        compile_into(root)
        spec = import_generated(root, "edicts").SPECS["realm"]
        for state in ("none in force", "all in force"):
            g = Game.new(spec, None, 1)
            if state == "all in force":
                for p in g.state["p"]:
                    p["effect__embargo"] = 1
                    p["effect__blockade"] = 1
                g.state["g"]["effect__festival"] = 1
                for t in g.state["e"]["town"]:
                    t["effect__plague"] = 1
            S, engine = g.raw, spec.engine
            for name in ("income", "may_trade"):
                changed, base = getattr(engine, f"f_{name}"), getattr(engine, f"f_{name}__base")
                a, b = [], []
                for _ in range(args.reps):
                    a.append(per_call(changed, S, args.calls))
                    b.append(per_call(base, S, args.calls))
                print(
                    f"{state:14} {name:10} changed {statistics.median(a):7.0f} ns"
                    f"   original {statistics.median(b):7.0f} ns"
                )


if __name__ == "__main__":
    main()
