"""A negotiation window's whole list of offers, as views, leak checks and OpenSpiel's legal
actions build it, before and after a change, side by side.

Usage (from the repository root)::

    python benchmarks/bench_offer_list.py [--before REV] [--reps 7] [--seed 0]

Plays Westphalia ``congress`` (the rules as they are, ``keep_out_any_area`` read literally)
at random from ``--seed`` until a decision is an offer (``propose``), then times, in CPU
time, ``list(spec.options(d, S))`` (every ``(id, label, value)`` row) and
``game.legal(player)`` (every option, cache dropped each time). ``--before REV`` runs the
same in a worker importing the code of a git revision (extracted as ``bench_options.py``
does); the workers alternate, and the rows must hash the same in both.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _worker(tree: str | None, seed: int, reps: int) -> dict:
    if tree:
        sys.path.insert(0, str(HERE))
        import bench_options

        bench_options._use_tree(tree)
    from rulecraft.runtime import Game, load_spec
    from rulecraft.runtime.prelude import PENDING

    spec = load_spec("westphalia", "congress")
    g = Game.new(spec, None, seed)
    rng = random.Random(seed)
    while True:
        offers = [d for d in g.raw[PENDING] or () if spec.sites[d[1]].options == "offer"]
        if offers:
            break
        d = g.pending()[0]
        opts = list(d.options)
        g.apply(d.player, opts[rng.randrange(len(opts))].id)
    d = offers[0]
    rows_t, legal_t = [], []
    for _ in range(reps):
        t = time.process_time()
        rows = list(spec.options(d, g.raw))
        rows_t.append(time.process_time() - t)
        g._decisions = None
        t = time.process_time()
        legal = g.legal(d[0])
        legal_t.append(time.process_time() - t)
    digest = hashlib.sha256(repr([r[:2] for r in rows]).encode())
    digest.update(repr([(o.id, o.label) for o in legal]).encode())
    return {
        "rows": len(rows),
        "options_ms": statistics.median(rows_t) * 1000,
        "legal_ms": statistics.median(legal_t) * 1000,
        "digest": digest.hexdigest()[:16],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default=None)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker is not None:
        print(json.dumps(_worker(a.worker or None, a.seed, a.reps)))
        return 0
    trees = {"after": ""}
    if a.before:
        sys.path.insert(0, str(HERE))
        import bench_options

        trees = {"before": bench_options._extract(a.before), "after": ""}
    results: dict[str, list[dict]] = {k: [] for k in trees}
    for _round in range(3):  # each worker a fresh process, alternating
        for name, tree in trees.items():
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--worker",
                    tree,
                    "--seed",
                    str(a.seed),
                    "--reps",
                    str(a.reps),
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            results[name].append(json.loads(out.strip().splitlines()[-1]))
    print(f"westphalia/congress, seed {a.seed}, first offer decision; CPU ms, medians")
    print(f"{'code':<8} {'rows':>7} {'options()':>10} {'legal()':>9}  digest")
    for name, rs in results.items():
        o = statistics.median(r["options_ms"] for r in rs)
        lg = statistics.median(r["legal_ms"] for r in rs)
        print(f"{name:<8} {rs[0]['rows']:>7,} {o:>10.1f} {lg:>9.1f}  {rs[0]['digest']}")
    if a.before:
        b, f = results["before"], results["after"]
        ob = statistics.median(r["options_ms"] for r in b)
        of = statistics.median(r["options_ms"] for r in f)
        lb = statistics.median(r["legal_ms"] for r in b)
        lf = statistics.median(r["legal_ms"] for r in f)
        print(f"before / after: options() {ob / of:.2f}x, legal() {lb / lf:.2f}x")
        same = b[0]["digest"] == f[0]["digest"]
        print("the same rows before and after:", "yes" if same else "NO")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
