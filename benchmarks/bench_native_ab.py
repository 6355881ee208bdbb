"""Two native builds of a game side by side: random playouts, interleaved, in one run.

Usage (from the repository root)::

    python benchmarks/bench_native_ab.py BEFORE_DIR AFTER_DIR [--games 500] [--reps 9]
        [--game march_of_progress] [--scenario thirty_years_war]

``BEFORE_DIR`` and ``AFTER_DIR`` each hold ``<game>/`` with a native build (a copy of
``generated/<game>/`` after ``rulecraft compile --native``). Both must have been built
against the installed runtime (the runtime refuses a build whose runtime modules changed
since). Each build runs in a worker process of its own (a process imports either one build
or the other), put first on ``rulecraft.generated.__path__``; the worker refuses to run
unless it imported an extension module. The workers play the same seeds in the playout form
(``playout(spec, new_state(spec, seed), random.Random(seed).random)``), timed in CPU time
(``time.process_time``), the repetitions interleaved (before, after, before, ...), so a
noisy machine affects both alike; medians are quoted, with their ratio.

``--interpreted`` runs the Python sources of the two folders instead (copies of their
``<game>/*.py``, so a native build beside them is ignored): the same A/B for the
interpreted engine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import importlib, json, random, sys, time
import rulecraft.generated as gen
gen.__path__.insert(0, sys.argv[1])
pkg = importlib.import_module("rulecraft.generated." + sys.argv[2])
engine = sys.modules[pkg.__name__ + ".engine"].__file__
if sys.argv[4] == "native" and not engine.endswith((".so", ".pyd")):
    sys.exit(f"not a native build: {engine}")
from rulecraft.runtime import new_state, playout
spec = pkg.SPECS[sys.argv[3]]

def run(n):
    t = time.process_time()
    for seed in range(n):
        S = new_state(spec, seed)
        playout(spec, S, random.Random(seed).random)
    return n / (time.process_time() - t)

run(50)
print(json.dumps(engine), flush=True)
for line in sys.stdin:
    print(json.dumps(run(int(line))), flush=True)
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", help="a folder holding <game>/ with a native build")
    ap.add_argument("after", help="a folder holding <game>/ with a native build")
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--game", default="march_of_progress")
    ap.add_argument("--scenario", default="thirty_years_war")
    ap.add_argument(
        "--interpreted",
        action="store_true",
        help="run the Python sources of each folder (copies of its *.py), not a native build",
    )
    args = ap.parse_args(argv)
    scratch = tempfile.TemporaryDirectory(prefix="rulecraft-ab-")
    workers = {}
    for name in ("before", "after"):
        folder = str(Path(getattr(args, name)).resolve())
        if args.interpreted:  # the sources alone: Python prefers a .so beside a .py
            src = Path(folder) / args.game
            dst = Path(scratch.name) / name / args.game
            dst.mkdir(parents=True)
            for f in src.glob("*.py"):
                shutil.copy(f, dst / f.name)
            folder = str(dst.parent)
        kind = "python" if args.interpreted else "native"
        cmd = [sys.executable, "-c", WORKER, folder, args.game, args.scenario, kind]
        proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        line = proc.stdout.readline() if proc.stdout else ""
        if not line:
            print(f"{name}: the worker did not start (see above)", file=sys.stderr)
            return 1
        print(f"{name}: {json.loads(line)}")
        workers[name] = proc
    rates: dict[str, list[float]] = {name: [] for name in workers}
    for _ in range(args.reps):
        for name, proc in workers.items():
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(f"{args.games}\n")
            proc.stdin.flush()
            rates[name].append(json.loads(proc.stdout.readline()))
    for proc in workers.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    print(f"{args.game}/{args.scenario}: {args.games} games x {args.reps} reps, interleaved")
    for name, r in rates.items():
        print(f"  {name}: {statistics.median(r):,.0f} games/s (CPU), {min(r):,.0f}-{max(r):,.0f}")
    ratio = statistics.median(rates["after"]) / statistics.median(rates["before"])
    print(f"  after / before: {ratio:.2f}x")
    scratch.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
