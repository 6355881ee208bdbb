"""Random playouts of the games with big option spaces, before and after a change, side by side.

Usage (from the repository root)::

    python benchmarks/bench_options.py [--games westphalia/congress:20,...] [--reps 5]
        [--before REV] [--seed S] [--mc N]

Plays uniformly random games in the playout form (``rulecraft.runtime.playout(spec, S, R)``
from ``new_state(spec, seed)``, interpreted) of Westphalia ``congress`` and Third Reich
``situation_1941`` (by default), where a playout draws offers of a negotiation window and
countries to name from large option spaces. ``R`` counts its draws, as in
``bench_selfplay.py``: the decisions with a choice.

``--before REV`` also measures the code of a git revision (default: none): its ``compiler/``,
``runtime/``, ``generated/``, ``schemas/`` and ``rules/`` are extracted with ``git archive``
into a temporary folder and imported from there as ``rulecraft`` by a worker process of its
own. Both workers play the same seeds; every game's final state is hashed and the two must
agree game for game (the same seed plays the same game), or the script says so and exits 1.
The workers run interleaved (before, after, before, ...), each timing only its games in CPU
time (``time.process_time``); medians over the repetitions are quoted, with their ratio.

``--mc N`` first times a Monte Carlo bot (``MonteCarloAgent`` with its defaults: 16
playouts of at most 24 sampled options) on its first N decisions with a choice at
Westphalia's first seat, the other seats random (CPU ms per decision); the bot's choices
must be the same before and after.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SALT = 0x9E3779B97F4A7C15
DEFAULT = "westphalia/congress:20,third_reich_diplomacy/situation_1941:300"
FOLDERS = ("compiler", "runtime", "generated", "schemas", "rules")
MC_GAME = "westphalia/congress"


def _use_tree(tree: str) -> None:
    """Import ``rulecraft`` from ``tree`` (a folder holding ``rulecraft/``), not the install."""
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in getattr(f, "__module__", "")]
    sys.path[:] = [p for p in sys.path if "__editable__" not in p]
    sys.path.insert(0, tree)


class Counted:
    """A generator of floats that counts its draws (the decisions with a choice)."""

    def __init__(self, draw) -> None:
        self.draw, self.n = draw, 0

    def __call__(self) -> float:
        self.n += 1
        return self.draw()


def _worker(tree: str | None) -> int:
    out = sys.stdout
    sys.stdout = sys.stderr
    if tree:
        _use_tree(tree)
    import rulecraft.runtime as rt
    from rulecraft.runtime import TurnLimit, load_spec, new_state, playout

    info = {"runtime": os.path.dirname(rt.__file__ or "?")}
    print(json.dumps(info), file=out, flush=True)
    specs: dict[str, object] = {}
    for line in sys.stdin:
        if line.startswith("mc "):
            print(json.dumps(_mc(*line.split()[1:])), file=out, flush=True)
            continue
        name, n, seed0 = line.split()
        game, scenario = name.split("/")
        spec = specs.get(name) or specs.setdefault(name, load_spec(game, scenario))
        digest = hashlib.sha256()
        drawn = 0
        t0 = time.process_time()
        for seed in range(int(seed0), int(seed0) + int(n)):
            S = new_state(spec, seed)
            R = Counted(random.Random(seed ^ SALT).random)
            try:
                playout(spec, S, R)
            except TurnLimit:
                pass
            drawn += R.n
            digest.update(repr(S).encode())
        cpu = time.process_time() - t0
        reply = {"games": int(n), "decisions": drawn, "cpu": cpu, "digest": digest.hexdigest()}
        print(json.dumps(reply), file=out, flush=True)
    return 0


def _mc(name: str, n: str, seed: str) -> dict:
    """CPU seconds of a Monte Carlo bot's first ``n`` decisions with a choice at one seat
    (``MonteCarloAgent(seed)``, its defaults), the other seats random, game ``seed``."""
    from rulecraft.runtime import Game, load_spec
    from rulecraft.runtime.tools.agents import MonteCarloAgent, RandomAgent

    game, scenario = name.split("/")
    spec = load_spec(game, scenario)
    g = Game.new(spec, None, int(seed))
    mc, rnd = MonteCarloAgent(int(seed)), RandomAgent(int(seed))
    times: list[float] = []
    chosen: list[str] = []
    while not g.finished and len(times) < int(n):
        d = g.pending()[0]
        if d.player == 0 and len(d.options) > 1:
            t0 = time.process_time()
            choice = mc.choose(g.view_state(0), d, spec)
            times.append(time.process_time() - t0)
            chosen.append(choice)
        else:
            choice = rnd.choose(None, d, spec)
        g.apply(d.player, choice)
    digest = hashlib.sha256(repr(chosen).encode()).hexdigest()
    return {"decisions": len(times), "cpu": sum(times), "digest": digest}


class Worker:
    def __init__(self, tree: str | None) -> None:
        cmd = [sys.executable, __file__, "--worker"] + (["--tree", tree] if tree else [])
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
        )
        self.info = json.loads(self.proc.stdout.readline())

    def run(self, name: str, games: int, seed: int) -> dict:
        self.proc.stdin.write(f"{name} {games} {seed}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def mc(self, name: str, n: int, seed: int) -> dict:
        self.proc.stdin.write(f"mc {name} {n} {seed}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def _extract(rev: str) -> str:
    tmp = tempfile.mkdtemp(prefix="rulecraft-before-")
    src = Path(tmp) / "src"
    src.mkdir()
    archive = subprocess.run(
        ["git", "archive", rev, *FOLDERS], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    pkg = Path(tmp) / "rulecraft"
    pkg.mkdir()
    for folder in FOLDERS:
        os.symlink(src / folder, pkg / folder)
    return tmp


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default=DEFAULT, help="GAME/SCENARIO:N,... (N games per rep)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--before", default=None, help="a git revision to compare with")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--mc",
        type=int,
        default=0,
        help="also time N decisions of a Monte Carlo bot at Westphalia's first seat (default 0)",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tree", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return _worker(args.tree)
    games = [(g.split(":")[0], int(g.split(":")[1])) for g in args.games.split(",")]
    tree = _extract(args.before) if args.before else None
    workers = {"after": Worker(None)}
    if tree:
        workers = {"before": Worker(tree), **workers}
    print(
        f"# python {platform.python_version()}, {os.cpu_count()} cpus, load "
        f"{os.getloadavg()[0]:.2f}; {args.reps} reps interleaved, CPU time, interpreted"
    )
    for label, w in workers.items():
        print(f"# {label}: {w.info['runtime']}")
    rows: dict[tuple[str, str], list[dict]] = {}
    same = True
    bots: dict[str, dict] = {}
    try:
        if args.mc:
            for label, w in workers.items():
                bots[label] = w.mc(MC_GAME, args.mc, args.seed)
        for _ in range(args.reps):
            for name, n in games:
                digests = set()
                for label, w in workers.items():
                    r = w.run(name, n, args.seed)
                    rows.setdefault((name, label), []).append(r)
                    digests.add(r["digest"])
                same = same and len(digests) == 1
    finally:
        for w in workers.values():
            w.close()
        if tree:
            shutil.rmtree(tree, ignore_errors=True)
    print("\n| game | code | games/s | decisions/s | decisions/game |")
    print("|---|---|---:|---:|---:|")
    for name, _n in games:
        rates = {}
        for label in workers:
            rs = rows[(name, label)]
            gs = statistics.median(r["games"] / r["cpu"] for r in rs)
            ds = statistics.median(r["decisions"] / r["cpu"] for r in rs)
            per = sum(r["decisions"] for r in rs) / sum(r["games"] for r in rs)
            rates[label] = gs
            print(f"| {name} | {label} | {gs:,.1f} | {ds:,.0f} | {per:.1f} |")
        if len(rates) == 2:
            print(f"| {name} | after / before | {rates['after'] / rates['before']:.2f}x | | |")
    if bots:
        print(f"\nMonte Carlo bot (MonteCarloAgent defaults) at the first seat of {MC_GAME}:")
        for label, r in bots.items():
            ms = r["cpu"] / max(r["decisions"], 1) * 1e3
            n = r["decisions"]
            print(f"  {label}: {ms:,.0f} ms per decision ({n} decisions with a choice)")
        if len(bots) == 2:
            a, b = bots["before"], bots["after"]
            agree = a["digest"] == b["digest"]
            ratio = a["cpu"] / b["cpu"]
            print(f"  before / after: {ratio:.2f}x; the same choices: {'yes' if agree else 'NO'}")
            same = same and agree
    if tree:
        print(
            "\nthe same games before and after (final states hashed, game for game): "
            + ("yes" if same else "NO")
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
