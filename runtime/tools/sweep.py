"""Parameter sweeps: a scenario played at every point of a grid of constants and readings.

``rulecraft sweep GAME/SCENARIO --set NAME=VALUES ...`` varies scenario constants and
switchable readings (``choices``) over ranges and lists, several at once as a grid, and plays
each point on an executor (local processes or a Dask cluster). Every point uses the same run
seed, so game ``i`` of one point and game ``i`` of another start from the same random stream:
the difference between two points is the rule change's, not the dice's (common random
numbers).

**Win shares.** Balance is measured on the *decisive* games, those one seat won alone: a
seat's win share is its part of them, and the even share is one in the number of seats.
Draws (ties, shared victories and defeats, games stopped at the turn limit) are reported
beside it, so a rule that makes games end in draws does not look like one that favours a side.

**Sequential stopping.** A point is played in batches, up to ``max_games``. After each batch,
every seat's win share is compared with the even share: once a seat's interval lies wholly
above or below it, the point is *decided* and plays no more, so a
sweep spends its games on the points near balance, where they matter. Looking after every
batch would make a 95% interval stop wrongly more often than 5% of the time, so the stopping
test uses a wider interval: the Wilson interval at confidence ``1 - 0.05 / looks`` (Bonferroni
over the planned looks, ``looks = ceil(max_games / batch)``), which keeps the chance that a
balanced point is ever called decided under 5%. The intervals *reported* are plain 95% Wilson
intervals of the games played.

Standard library only, like the rest of the runtime; :mod:`.sweep_html` draws the page.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from statistics import NormalDist
from typing import Any, TextIO

from ..machine import GameError
from ..spec import GameSpec
from .executors import Executor, LocalExecutor
from .simulate import Outcome, Progress, game_tasks, run_chunk, seat_agents, wilson
from .sweep_html import render_html
from .sweep_model import Param, Point, SweepData

__all__ = [
    "Param",
    "Point",
    "SweepResult",
    "parse_set",
    "sweep",
    "DEFAULT_MAX_GAMES",
    "DEFAULT_BATCH",
]

DEFAULT_MAX_GAMES = 400
DEFAULT_BATCH = 50
#: the largest grid a sweep plays (a typo in a range should not start a night's run)
MAX_POINTS = 1000


class SweepResult(SweepData):
    """What a sweep measured (:class:`~.sweep_model.SweepData`), and its page."""

    def html(self) -> str:
        """The self-contained HTML page of the sweep (:mod:`.sweep_html`)."""
        return render_html(self)


# -- --set NAME=VALUES -------------------------------------------------------------------------
_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?::\s*(\d+)\s*)?$")


def parse_set(spec: GameSpec, text: str) -> Param:
    """``NAME=VALUES``: a list (``12,15,18``; ``true,false``; ``both`` for a yes/no reading)
    or a range of whole numbers (``12..20``, ``12..20:2`` in steps of 2), of the type of the
    constant or reading ``NAME``."""
    name, eq, values = text.partition("=")
    name, values = name.strip(), values.strip()
    where = f"--set {text}"
    if not eq or not name or not values:
        raise GameError(f"{where}: expected NAME=VALUES (e.g. victory_vps=12..20:2)")
    if name not in spec.constants:
        known = ", ".join(sorted(spec.constants))
        raise GameError(f"{where}: {spec.game} has no constant or reading {name!r} ({known})")
    old = spec.constants[name]
    kind = "reading" if name in spec.data.get("choice_names", ()) else "constant"
    out: list[Any]
    if isinstance(old, bool):
        words = [v.strip().lower() for v in values.split(",")]
        if words == ["both"]:
            out = [old, not old]
        else:
            bad = [w for w in words if w not in ("true", "false")]
            if bad:
                raise GameError(f"{where}: {name} is true or false (or both), not {bad[0]!r}")
            out = [w == "true" for w in words]
    elif isinstance(old, int):
        m = _RANGE.match(values)
        try:
            if m:
                lo, hi, step = int(m[1]), int(m[2]), int(m[3] or 1)
                if step <= 0:
                    raise GameError(f"{where}: the step of a range must be positive")
                if hi < lo:
                    raise GameError(f"{where}: the range runs down, from {lo} to {hi}")
                if (hi - lo) // step + 1 > MAX_POINTS:
                    raise GameError(f"{where}: more than {MAX_POINTS} values")
                out = list(range(lo, hi + 1, step))
            else:
                out = [int(v) for v in values.split(",")]
        except ValueError:
            raise GameError(
                f"{where}: {name} is a whole number (e.g. {name}=1,2,3 or {name}=1..5 or "
                f"{name}=0..10:2)"
            ) from None
        _check_count(where, name, old, out)
    else:
        out = [v.strip() for v in values.split(",")]
    if len(set(out)) != len(out):
        raise GameError(f"{where}: a value is given twice")
    return Param(name, tuple(out), kind)


#: a count constant's sweep values go up to this many times its value in the rules (at
#: least to COUNT_FLOOR): the rules declare a constant's type, not its range, and a limit of
#: armies or points a million times the printed one would build a million options
COUNT_TIMES = 10
COUNT_FLOOR = 100


def _check_count(where: str, name: str, old: int, values: list[int]) -> None:
    """A constant the rules give as a count (a whole number, not negative) stays one: not
    negative, and at most :data:`COUNT_TIMES` its rules value."""
    if old < 0:
        return
    most = max(COUNT_TIMES * old, COUNT_FLOOR)
    for v in values:
        if v < 0:
            raise GameError(f"{where}: {name} is a count (the rules give {old}); it cannot be {v}")
        if v > most:
            raise GameError(
                f"{where}: {name} is at most {most} in a sweep ({COUNT_TIMES} times the rules' "
                f"{old}), not {v}"
            )


# -- the sweep ---------------------------------------------------------------------------------
def _run_point_chunk(task: tuple[int, tuple[Any, ...]]) -> tuple[int, list[Outcome]]:
    return task[0], run_chunk(task[1])


def stop_confidence(max_games: int, batch: int) -> float:
    """The confidence of the stopping test: 95% shared over the planned looks."""
    looks = max(1, math.ceil(max_games / batch))
    return 1 - 0.05 / looks


def _decided(point: Point, seats: list[str], z: float) -> tuple[str, tuple[str, ...]] | None:
    """Once some seat's share of the decisive games, its interval at ``z``, excludes the even
    share: the seats clearly ahead of it, else those clearly behind (of two seats, the other
    one is then ahead); None while the point is not decided."""
    even = 1 / len(seats)
    above, below = [], []
    for s in seats:
        lo, hi = wilson(point.wins.get(s, 0), point.decisive, z)
        if lo > even:
            above.append(s)
        elif hi < even:
            below.append(s)
    if above:
        return "ahead", tuple(above)
    if not below:
        return None
    if len(seats) == 2:
        return "ahead", tuple(s for s in seats if s not in below)
    return "behind", tuple(below)


def sweep(
    spec: GameSpec,
    scenario: str,
    params: list[Param],
    agents: list[str],
    max_games: int = DEFAULT_MAX_GAMES,
    batch: int = DEFAULT_BATCH,
    seed: int = 0,
    executor: Executor | None = None,
    max_turns: int | None = None,
    progress: TextIO | None = None,
    sequential: bool = True,
) -> SweepResult:
    """Play every point of the grid of ``params`` (their values' product, the first
    parameter varying slowest) up to ``max_games`` games each, in batches of ``batch``,
    stopping a point early once it is decided (``sequential``). ``max_turns`` stops games
    as draws earlier than the scenario's own limit; the games run on ``executor`` (default:
    this process)."""
    if not params:
        raise GameError("nothing to sweep: give at least one --set NAME=VALUES")
    names = [p.name for p in params]
    if len(set(names)) != len(names):
        raise GameError(f"--set {next(n for n in names if names.count(n) > 1)} is given twice")
    if max_games < 1 or batch < 1:
        raise GameError("--games and --batch must be at least 1")
    combos = itertools.product(*(p.values for p in params))
    grid = [dict(zip(names, combo, strict=True)) for combo in combos]
    if len(grid) > MAX_POINTS:
        raise GameError(f"the grid has {len(grid)} points (at most {MAX_POINTS})")
    variants = [spec.with_constants(**values) for values in grid]  # refuses bad values first
    seats, agents = seat_agents(spec, scenario, agents)
    points = [Point(values, seats, wins=dict.fromkeys(seats, 0)) for values in grid]
    conf = stop_confidence(max_games, batch) if sequential else 0.95
    z = NormalDist().inv_cdf(1 - (1 - conf) / 2)
    ex = executor or LocalExecutor(1)
    bar = Progress(max_games * len(points), progress, f"{spec.game}/{scenario} sweep")
    start = time.perf_counter()
    try:
        open_points = list(range(len(points)))
        first = 0
        while open_points and first < max_games:
            # a round: the next batch of every open point, all on the executor at once
            n = min(batch, max_games - first)
            share = -(-ex.workers // len(open_points))  # workers per point, rounded up
            tasks = [
                (i, task)
                for i in open_points
                for task in game_tasks(
                    variants[i], scenario, seed, first, n, agents, max_turns, share
                )
            ]
            for i, outcomes in ex.map_unordered(_run_point_chunk, tasks):
                points[i].add(outcomes)
                bar.update(len(outcomes))
            first += n
            for i in list(open_points):
                p = points[i]
                p.decided = _decided(p, seats, z)
                if sequential and p.decided is not None:
                    p.stopped_early = first < max_games
                    open_points.remove(i)
                    bar.update(max_games - p.games)  # the games it will not play
    finally:
        bar.close()
        if executor is None:
            ex.close()
    return SweepResult(
        spec.game,
        scenario,
        spec.scenario_title,
        seats,
        list(spec.seat_labels or seats),
        list(agents),
        seed,
        list(params),
        points,
        max_games,
        batch,
        conf,
        time.perf_counter() - start,
        repr(ex),
    )
