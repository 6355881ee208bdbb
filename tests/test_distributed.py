"""Simulation on a real Dask cluster: a scheduler and two workers started as separate processes
on this machine, against the local executor; a worker killed mid-run loses no games."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rulecraft.runtime.machine import GameError
from rulecraft.runtime.registry import load_spec
from rulecraft.runtime.tools.executors import DaskExecutor, LocalExecutor, executor_for
from rulecraft.runtime.tools.simulate import simulate
from rulecraft.runtime.tools.sweep import parse_set, sweep

if os.environ.get("CI") != "true":  # CI installs the extra, and there the test must run
    pytest.importorskip("distributed")

BIN = Path(sys.executable).parent
# one worker of a parallel run starts the cluster (the module's fixture), not each
pytestmark = pytest.mark.xdist_group("distributed")


def _start(args: list[str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [str(BIN / "dask"), *args],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _scheduler(tmp: Path) -> tuple[subprocess.Popen, str]:
    """A Dask scheduler on a free port, and its address once it listens."""
    info = tmp / "scheduler.json"
    args = ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
    proc = _start([*args, "--scheduler-file", str(info)], tmp / "scheduler.log")
    deadline = time.monotonic() + 60
    while not info.exists() or not info.read_text().strip():
        if time.monotonic() > deadline or proc.poll() is not None:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("the Dask scheduler did not start: " + (tmp / "scheduler.log").read_text())
        time.sleep(0.2)
    return proc, json.loads(info.read_text())["address"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list]]:
    """A scheduler and two single-threaded workers (no nanny: a killed worker stays dead)."""
    tmp = tmp_path_factory.mktemp("dask")
    scheduler, address = _scheduler(tmp)
    procs = [scheduler]
    try:
        workers = [
            _start(
                [
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--name",
                    f"w{i}",
                ],
                tmp / f"worker{i}.log",
            )
            for i in range(2)
        ]
        procs += workers
        yield address, workers
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=3)  # then killed: a teardown never waits long
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


def _connect(address: str) -> DaskExecutor:
    ex = DaskExecutor(address)
    ex.client.wait_for_workers(2, timeout=60)
    ex.workers = sum(ex.client.nthreads().values())
    return ex


def test_dask_results_equal_local_results(cluster: tuple[str, list]) -> None:
    address, _ = cluster
    spec = load_spec("march_of_progress", "thirty_years_war")
    local = simulate(spec, "thirty_years_war", 300, 7, ["random"], executor=LocalExecutor(2))
    ex = _connect(address)
    try:
        assert ex.workers == 2
        remote = simulate(spec, "thirty_years_war", 300, 7, ["random"], executor=ex)
        # a scenario constant changed here reaches the workers too
        variant = spec.with_constants(victory_vps=6)
        short = simulate(variant, "thirty_years_war", 60, 7, ["random"], executor=ex)
        params = [parse_set(spec, "victory_vps=6,12"), parse_set(spec, "army_limit=2,3")]
        on_dask = sweep(spec, "thirty_years_war", params, ["random"], 100, 50, 4, executor=ex)
    finally:
        ex.close()
    assert remote.outcomes == local.outcomes
    assert (remote.wins, remote.ties, remote.turns) == (local.wins, local.ties, local.turns)
    assert short.outcomes == simulate(variant, "thirty_years_war", 60, 7, ["random"]).outcomes
    assert short.mean_turns < remote.mean_turns  # 6 VPs are won sooner than 18
    here = sweep(spec, "thirty_years_war", params, ["random"], 100, 50, 4, LocalExecutor(1))
    assert on_dask.to_dict()["points"] == here.to_dict()["points"]


def test_a_projects_games_are_found_on_the_workers(
    cluster: tuple[str, list], tmp_path: Path
) -> None:
    """A designer's project (rulecraft.toml) is not importable on the workers: they import
    its engines from the same folder, as the task names it."""
    from rulecraft.compiler.cli import main
    from rulecraft.runtime import registry

    saved = list(registry.PACKAGES), dict(registry._SPECS), set(sys.modules)
    root = tmp_path / "race"
    try:
        assert main(["init", str(root)]) == 0
        assert main(["compile", "--project", str(root)]) == 0
        registry.use_project(root)
        spec = load_spec("race")
        assert type(spec.engine).__module__.startswith("race_engines.")
        ex = _connect(cluster[0])
        try:
            remote = simulate(spec, spec.scenario, 200, 9, ["random"], executor=ex)
        finally:
            ex.close()
        assert remote.outcomes == simulate(spec, spec.scenario, 200, 9, ["random"]).outcomes
    finally:
        registry.PACKAGES[:] = saved[0]
        registry._SPECS.clear()
        registry._SPECS.update(saved[1])
        for name in set(sys.modules) - saved[2]:
            if not name.startswith("rulecraft."):
                del sys.modules[name]


class _KillAfterFirstChunk(DaskExecutor):
    """Kills a worker as soon as the first chunk of games comes back."""

    def __init__(self, address: str, victim: subprocess.Popen) -> None:
        super().__init__(address)
        self.victim, self.held = victim, 0

    def map_unordered(self, fn, tasks):  # type: ignore[no-untyped-def]
        for i, result in enumerate(super().map_unordered(fn, tasks)):
            if i == 0:
                workers = self.client.scheduler_info()["workers"]
                (where,) = [a for a, w in workers.items() if w["name"] == "w1"]
                self.held = len(self.client.processing()[where])  # games that must be re-run
                os.killpg(self.victim.pid, signal.SIGKILL)
                self.victim.wait(timeout=20)
            yield result


def test_a_lost_workers_games_are_run_again(cluster: tuple[str, list]) -> None:
    """The second test: it kills one of the two workers, so it runs last."""
    address, workers = cluster
    spec = load_spec("march_of_progress", "thirty_years_war")
    agents = ["random"]
    ex = _KillAfterFirstChunk(address, workers[1])
    ex.client.wait_for_workers(2, timeout=60)
    ex.workers = 2
    try:
        # 60 chunks of 50 games: both workers hold chunks when one dies
        remote = simulate(spec, "thirty_years_war", 3000, 3, agents, executor=ex)
        alive = len(ex.client.nthreads())
    finally:
        ex.close()
    assert workers[1].poll() is not None  # it is dead
    assert alive == 1
    assert ex.held >= 1  # the dead worker held a chunk, now played elsewhere
    local = simulate(spec, "thirty_years_war", 3000, 3, agents)
    assert [o[0] for o in remote.outcomes] == list(range(3000))
    assert remote.outcomes == local.outcomes


def test_a_scheduler_without_workers_is_an_error(tmp_path: Path) -> None:
    scheduler, address = _scheduler(tmp_path)
    try:
        with pytest.raises(GameError, match="has no workers .* start some with `dask worker"):
            DaskExecutor(address, timeout=0.5)
    finally:
        os.killpg(scheduler.pid, signal.SIGTERM)
        scheduler.wait(timeout=20)


def test_executor_names() -> None:
    assert isinstance(executor_for(None, 3), LocalExecutor)
    assert executor_for("local", 3).workers == 3
    with pytest.raises(GameError, match="unknown executor 'ray'"):
        executor_for("ray")
    with pytest.raises(GameError, match="expected dask://HOST:PORT"):
        executor_for("dask://nohost")


def test_an_unreachable_scheduler_is_an_error_not_a_traceback() -> None:
    with pytest.raises(GameError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        DaskExecutor("tcp://127.0.0.1:9", timeout=1)
    out = subprocess.run(
        [
            str(BIN / "rulecraft"),
            "simulate",
            "march_of_progress/thirty_years_war",
            "--games",
            "5",
            "--executor",
            "dask://127.0.0.1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert "expected dask://HOST:PORT" in out.stderr
