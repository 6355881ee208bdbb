"""Simulation throughput: games per second on 1, 2 and 4 local workers and on a local Dask cluster.

Usage (from the repository root)::

    python benchmarks/bench_throughput.py [--games N] [--agents random] [--reps R]
        [--scenario thirty_years_war] [--dask-workers 2] [--no-dask]

Every contender plays the same ``N`` games of The March of Progress (the same seeds, so the
same games) through ``rulecraft.runtime.tools.simulate.simulate``, only the executor
differing: ``LocalExecutor(1)`` (this process), ``LocalExecutor(2)`` and ``LocalExecutor(4)``
(forked worker processes, started once per contender and kept across its repetitions, as
``rulecraft sweep`` keeps them), and ``DaskExecutor`` on a ``distributed.LocalCluster`` of
``--dask-workers`` single-threaded worker processes with its scheduler in this process. The
contenders are interleaved within each repetition and the medians of wall-clock games/s are
quoted, with each one's ratio to one local worker. Every run checks that its results equal
the first one's, game for game.

The first repetition of each contender includes nothing of start-up (pools and the cluster
are started before timing); a pool's first map still forks and imports in the workers, which
the medians over ``R`` repetitions absorb. On a machine with C cores, more than C workers
cannot go faster than C: 4 workers on 2 cores measure the cost of oversubscription.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

from rulecraft.runtime.registry import load_spec
from rulecraft.runtime.tools.executors import DaskExecutor, LocalExecutor
from rulecraft.runtime.tools.simulate import simulate


def _rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--agents", default="random")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--scenario", default="thirty_years_war")
    ap.add_argument("--dask-workers", type=int, default=2)
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args(argv)
    spec = load_spec("march_of_progress", args.scenario)
    agents = args.agents.split(",")

    contenders: list[tuple[str, object]] = [
        ("local, 1 worker (this process)", LocalExecutor(1)),
        ("local, 2 workers", LocalExecutor(2)),
        ("local, 4 workers", LocalExecutor(4)),
    ]
    cluster = None
    if not args.no_dask:
        from distributed import LocalCluster

        cluster = LocalCluster(
            n_workers=args.dask_workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        ex = DaskExecutor(cluster.scheduler_address)
        ex.client.wait_for_workers(args.dask_workers)
        ex.workers = args.dask_workers
        contenders.append((f"dask LocalCluster, {args.dask_workers} workers", ex))

    print(
        f"# {platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores; march_of_progress/{args.scenario}, {args.games} games "
        f"of {','.join(agents)}, {args.reps} reps interleaved"
    )
    rates: dict[str, list[float]] = {name: [] for name, _ in contenders}
    reference = None
    try:
        for _ in range(args.reps):
            for name, executor in contenders:
                start = time.perf_counter()
                r = simulate(spec, args.scenario, args.games, 1, agents, executor=executor)
                rates[name].append(args.games / (time.perf_counter() - start))
                if reference is None:
                    reference = r.outcomes
                elif r.outcomes != reference:
                    print(f"error: {name} played different games", file=sys.stderr)
                    return 1
    finally:
        for _, executor in contenders:
            executor.close()  # type: ignore[attr-defined]
        if cluster is not None:
            cluster.close()
    base = statistics.median(rates[contenders[0][0]])
    print(f"{'executor':<34} {'games/s (median)':>17} {'min':>8} {'max':>8} {'vs 1':>6}")
    for name, _ in contenders:
        med = statistics.median(rates[name])
        print(
            f"{name:<34} {_rate(med):>17} {_rate(min(rates[name])):>8} "
            f"{_rate(max(rates[name])):>8} {med / base:>5.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
