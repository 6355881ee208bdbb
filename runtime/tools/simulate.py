"""Self-play: many games between agents, reported with confidence intervals."""

from __future__ import annotations

import importlib
import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from .. import registry
from ..game import Game, new_state
from ..layout import LIMIT, RESULT, TURN
from ..machine import GameError, TurnLimit, playout
from ..registry import load_spec
from ..rng import derive_seed
from ..spec import GameSpec
from .agents import make_agent
from .executors import Executor, LocalExecutor

__all__ = [
    "BALANCE_RULE",
    "MAX_GAMES",
    "off_even_share",
    "Progress",
    "run_chunk",
    "simulate",
    "SimResult",
    "play_one",
    "wilson",
    "bot_max_turns",
    "default_max_turns",
]

#: (index, winners, tie, turns, decisions)
Outcome = tuple[
    int, list[int], bool, int, int, bool, str
]  # index, winners, tie, turns, decisions, limit, reason
#: the result reason of a game stopped at its scenario's ``max_turns``
TURN_LIMIT = "turn limit reached"


#: what "balanced" means on every page (balance and sweep): a seat is judged by its share of
#: the decisive games, those one seat won alone, against an even share (1 / seats); games
#: nobody won alone (ties, shared victories and defeats, games stopped at the turn limit) are
#: counted beside the shares, never in them, so that draws do not read as a side behind
BALANCE_RULE = (
    "a seat's share of the decisive games (those one seat won alone) against an even share "
    "(1 / seats); games nobody won alone (ties, shared victories or defeats, games stopped at "
    "the turn limit) are counted beside, not in the shares"
)


def off_even_share(wins: dict[str, int], seats: list[str], z: float = 1.959964) -> dict[str, str]:
    """The seats whose share of the decisive games (``wins``: games each seat won alone), its
    Wilson interval at ``z``, excludes an even share: seat -> "above" or "below", in seat
    order. Empty: no evidence of a bias (see :data:`BALANCE_RULE`)."""
    decisive = sum(wins.get(s, 0) for s in seats)
    if not decisive or not seats:
        return {}
    even = 1 / len(seats)
    out: dict[str, str] = {}
    for s in seats:
        lo, hi = wilson(wins.get(s, 0), decisive, z)
        if lo > even:
            out[s] = "above"
        elif hi < even:
            out[s] = "below"
    return out


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``k / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def bot_max_turns(spec: GameSpec) -> int | None:
    """The scenario's turn limit for games with a bot in a seat, if its data gives one.

    A tooling setting, not a rule: the scenario file's ``simulate: {bot_max_turns: T}``,
    compiled into the engine data. Bots that each refuse every losing move can stall a
    scenario whose only end is decisive; the limit turns such a game into a draw.
    """
    value = spec.data.get("bot_max_turns")
    return value if isinstance(value, int) else None


def default_max_turns(spec: GameSpec, agents: list[str]) -> int | None:
    """The turn limit `simulate` plays ``agents`` at when none is asked for: the scenario's
    :func:`bot_max_turns` if a seat is not ``random``, else None (the scenario's own
    ``max_turns``)."""
    if all(a == "random" for a in agents):
        return None
    return bot_max_turns(spec)


def play_one(
    spec: GameSpec, scenario: str, seed: int, agents: list[str], max_turns: int | None = None
) -> tuple[Game, int]:
    """Play one game; the seed feeds the game and (derived per seat) the agents.

    An agent gets the view of its player (built for each decision) only if it ``needs_view``
    (see :class:`rulecraft.runtime.tools.agents.Agent`); the others get None. No agent ever
    gets the true state. When every seat is ``random``, the game is played by the engine's
    playout form instead (the same rules, no log, much faster): decisions are drawn from one
    generator seeded ``derive_seed(seed, 0)``, and only decisions with a choice are counted.
    """
    if all(a == "random" for a in agents):
        return _play_random(spec, seed, max_turns)
    game = Game.new(spec, scenario, seed)
    if max_turns is not None:
        game.max_turns = max_turns
    bots = [make_agent(name, derive_seed(seed, k)) for k, name in enumerate(agents)]
    chooser = [b.choose for b in bots]
    needs_view = [getattr(b, "needs_view", True) for b in bots]
    S = game.raw
    pending, view, apply = game.pending, game.view_state, game.apply
    decisions = 0
    try:
        while S[RESULT] is None:
            for d in pending():
                p = d.player
                apply(p, chooser[p](view(p) if needs_view[p] else None, d, spec))
                # decisions with a choice (a forced one is no decision), as in playouts
                decisions += len(d.options) > 1
    except TurnLimit:
        # Agents that never bring the game to an end (bots that avoid every losing move
        # in a scenario whose only end is a decisive result): a draw at the turn limit.
        S[RESULT] = ((), True, TURN_LIMIT)
    return game, decisions


def _play_random(spec: GameSpec, seed: int, max_turns: int | None) -> tuple[Game, int]:
    S = new_state(spec, seed)
    if max_turns is not None:
        S[LIMIT] = max_turns
    rand = random.Random(derive_seed(seed, 0)).random
    drawn = 0

    def R() -> float:
        nonlocal drawn
        drawn += 1
        return rand()

    try:
        playout(spec, S, R)
    except TurnLimit:
        S[RESULT] = ((), True, TURN_LIMIT)
    return Game(spec, S), drawn


@dataclass
class SimResult:
    """Totals of a simulation run."""

    game: str
    scenario: str
    seats: list[str]
    agents: list[str]
    seed: int
    games: int
    wins: dict[str, int]
    ties: int
    turns: int
    decisions: int
    seconds: float
    outcomes: list[Outcome] = field(default_factory=list, repr=False)

    @property
    def turn_limit(self) -> int:
        """Games stopped at the scenario's turn limit (counted as draws)."""
        return sum(1 for o in self.outcomes if len(o) > 5 and o[5])

    @property
    def sole_wins(self) -> dict[str, int]:
        """Games each seat won alone (the decisive games, :data:`BALANCE_RULE`); without the
        games' outcomes, the wins counted."""
        if not self.outcomes:
            return {s: self.wins.get(s, 0) for s in self.seats}
        out = dict.fromkeys(self.seats, 0)
        for o in self.outcomes:
            if not o[2] and len(o[1]) == 1:
                out[self.seats[o[1][0]]] += 1
        return out

    @property
    def decisive(self) -> int:
        """Games one seat won alone."""
        return sum(self.sole_wins.values())

    @property
    def shared_victories(self) -> int:
        """Games that several players won together (not a tie)."""
        return sum(1 for o in self.outcomes if not o[2] and len(o[1]) > 1)

    @property
    def shared_defeats(self) -> int:
        """Games nobody won, all sharing in defeat (not a tie)."""
        return sum(1 for o in self.outcomes if not o[2] and not o[1])

    #: the reasons the rules give for ending a game (the engine's ``end_reasons``)
    reasons: tuple[str, ...] = ()

    @property
    def endings(self) -> dict[str, int]:
        """How many games ended for each reason the rules give (`end_game`), zeros included."""
        out: dict[str, int] = dict.fromkeys(self.reasons, 0)
        for o in self.outcomes:
            if len(o) > 6:
                out[o[6]] = out.get(o[6], 0) + 1
        return out

    @property
    def mean_turns(self) -> float:
        return self.turns / self.games if self.games else 0.0

    @property
    def mean_decisions(self) -> float:
        return self.decisions / self.games if self.games else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict[str, Any]:
        n = self.games
        return {
            "game": self.game,
            "scenario": self.scenario,
            "agents": dict(zip(self.seats, self.agents, strict=True)),
            "seed": self.seed,
            "games": n,
            "wins": dict(self.wins),
            "win_rate": {s: self.wins[s] / n if n else 0.0 for s in self.seats},
            "win_ci95": {s: list(wilson(self.wins[s], n)) for s in self.seats},
            "ties": self.ties,
            "turn_limit": self.turn_limit,
            "tie_rate": self.ties / n if n else 0.0,
            "tie_ci95": list(wilson(self.ties, n)),
            "mean_turns": self.mean_turns,
            "mean_decisions": self.mean_decisions,
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games_per_second, 2) if self.seconds > 0 else None,
            "shared_victories": self.shared_victories,
            "shared_victory_rate": self.shared_victories / n if n else 0.0,
            "shared_defeats": self.shared_defeats,
            "endings": self.endings,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def report(self) -> str:
        n = self.games
        agents = ", ".join(f"{s}={a}" for s, a in zip(self.seats, self.agents, strict=True))
        lines = [f"{self.game}/{self.scenario}: {n} games, seed {self.seed}, agents {agents}"]
        width = max(len(s) for s in [*self.seats, "ties"])
        for s in self.seats:
            lo, hi = wilson(self.wins[s], n)
            rate = self.wins[s] / n if n else 0.0
            lines.append(
                f"  {s:<{width}}  wins {self.wins[s]:>6}  {rate:6.1%}  (95% CI {lo:.1%}-{hi:.1%})"
            )
        lo, hi = wilson(self.ties, n)
        rate = self.ties / n if n else 0.0
        lines.append(
            f"  {'ties':<{width}}       {self.ties:>6}  {rate:6.1%}  (95% CI {lo:.1%}-{hi:.1%})"
        )
        if self.turn_limit:
            lines.append(f"  ({self.turn_limit} of the ties stopped at the turn limit)")
        for what, k in (
            ("shared victories", self.shared_victories),
            ("shared defeats", self.shared_defeats),
        ):
            if k:
                lo, hi = wilson(k, n)
                lines.append(f"  {what}: {k} ({k / n:.1%}, 95% CI {lo:.1%}-{hi:.1%})")
        endings = self.endings
        if endings:
            lines.append("  endings:")
            for reason, k in endings.items():
                lines.append(f"    {k:>6}  {k / n:6.1%}  {reason}")
        gps = f"{self.games_per_second:.1f}" if self.seconds > 0 else "-"
        lines.append(
            f"  mean turns {self.mean_turns:.2f}, mean decisions {self.mean_decisions:.2f}, "
            f"{gps} games/s ({self.seconds:.2f} s)"
        )
        return "\n".join(lines)


def run_chunk(args: tuple[Any, ...]) -> list[Outcome]:
    module, where, game, scenario, seed, indices, agents, max_turns, constants = args
    if where is not None and where[0] not in registry.PACKAGES:
        # a project's games on a worker that has not imported them: from the same folder
        registry.use_package(*where)
    spec = _spec_with(module, where, game, scenario, constants)
    out = []
    for i in indices:
        g, decisions = play_one(spec, scenario, derive_seed(seed, i), agents, max_turns)
        winners, tie, reason = g.raw[RESULT]
        out.append((i, list(winners), tie, g.raw[TURN], decisions, reason == TURN_LIMIT, reason))
    return out


def _find_spec(module: str, game: str) -> GameSpec:
    try:
        spec = getattr(importlib.import_module(module), "SPEC", None)
    except ImportError:
        spec = None
    if isinstance(spec, GameSpec) and spec.game == game:
        return spec
    return load_spec(game)


_VARIANTS: dict[tuple[Any, ...], GameSpec] = {}


def _spec_with(
    module: str,
    where: tuple[str, str] | None,
    game: str,
    scenario: str,
    constants: tuple[tuple[str, Any], ...],
) -> GameSpec:
    """The scenario's spec in a worker (with the same constants as the caller's)."""
    key = (module, where, game, scenario, constants)
    spec = _VARIANTS.get(key)
    if spec is None or not _current(spec):
        spec = _find_spec(module, game)
        if spec.scenario != scenario:
            spec = load_spec(game, scenario)
        if constants:
            spec = spec.with_constants(**dict(constants))
        _VARIANTS[key] = spec
    return spec


def _current(spec: GameSpec) -> bool:
    """Whether ``spec``'s engine is still the one its module holds (not an engine of a
    module imported again since, as after a recompile or another project's)."""
    cls = type(spec.engine)
    return getattr(sys.modules.get(cls.__module__), cls.__name__, None) is cls


class Progress:
    """A tqdm bar on a terminal, else a plain line about every 10%."""

    def __init__(self, total: int, stream: TextIO | None, label: str) -> None:
        self.total, self.done, self.stream, self.label = total, 0, stream, label
        self.start = time.perf_counter()
        self.bar = None
        self.next_mark = max(1, total // 10)
        if stream is not None and stream.isatty():
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, file=stream, unit="game", desc=label, leave=False)
            except ImportError:
                pass

    def update(self, n: int) -> None:
        if n == 0:
            return
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.stream is not None and (self.done >= self.next_mark or self.done == self.total):
            elapsed = time.perf_counter() - self.start
            left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
            eta = f", about {_duration(left)} left" if self.done < self.total else ""
            print(
                f"{self.label}: {self.done}/{self.total} games, {_duration(elapsed)}{eta}",
                file=self.stream,
                flush=True,
            )
            while self.next_mark <= self.done:
                self.next_mark += max(1, self.total // 10)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _duration(seconds: float) -> str:
    """``8 s``, ``2 min 05 s``, ``1 h 03 min``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def game_tasks(
    spec: GameSpec,
    scenario: str,
    seed: int,
    first: int,
    games: int,
    agents: list[str],
    max_turns: int | None,
    workers: int,
) -> list[tuple[Any, ...]]:
    """Games ``first`` to ``first + games - 1`` of ``spec`` as chunks for :func:`run_chunk`,
    sized so that ``workers`` workers each get several (a chunk's results come back at once)."""
    module = type(spec.engine).__module__
    where = _project_package(module)
    constants = tuple(sorted(spec.overrides.items()))
    workers = max(1, min(workers, games)) if games else 1
    size = max(1, min(50, games // (workers * 8) or 1))
    return [
        (module, where, spec.game, scenario, seed, idx, list(agents), max_turns, constants)
        for idx in _chunks(first, games, size)
    ]


def _chunks(first: int, games: int, size: int) -> Iterator[list[int]]:
    end = first + games
    for start in range(first, end, size):
        yield list(range(start, min(end, start + size)))


def _project_package(module: str) -> tuple[str, str] | None:
    """The package of a project's games and the folder it was imported from (workers in
    other processes import it from there); None for a package found on the path."""
    for package, folder in registry.folders().items():
        if module.startswith(package + "."):
            return package, str(folder)
    return None


def seat_agents(spec: GameSpec, scenario: str, agents: list[str]) -> tuple[list[str], list[str]]:
    """The scenario's seats and an agent for each (one name is for every seat); unknown
    scenarios, agent names and counts are refused before any worker starts."""
    sc = spec.scenarios.get(scenario)
    if sc is None:
        raise GameError(f"game {spec.game!r} has no scenario {scenario!r}")
    seats = list(sc.seats)
    if len(agents) == 1:
        agents = agents * len(seats)
    if len(agents) != len(seats):
        raise GameError(f"{len(agents)} agents for {len(seats)} seats ({', '.join(seats)})")
    for name in agents:
        make_agent(name, 0)
    return seats, list(agents)


#: the most games one run plays: each keeps its outcome in memory until the report
MAX_GAMES = 10_000_000


def too_many_games(games: int) -> str:
    return (
        f"{games} games is too many for one run: at most {MAX_GAMES:,} (each game's outcome is "
        "kept in memory); run several seeds and add them up"
    )


def simulate(
    spec: GameSpec,
    scenario: str,
    games: int,
    seed: int,
    agents: list[str],
    jobs: int = 1,
    progress: TextIO | bool | None = None,
    on_game: Callable[[Outcome], None] | None = None,
    label: str | None = None,
    max_turns: int | None = None,
    executor: Executor | None = None,
    first: int = 0,
) -> SimResult:
    """Play games ``first`` to ``first + games - 1``; game ``i`` is seeded
    ``derive_seed(seed, i)`` whatever runs it.

    ``executor``: where the games run (default: :class:`LocalExecutor` with ``jobs``
    processes; the caller closes one it passes). ``progress``: a stream to report on (True:
    ``sys.stderr``; None/False: silent); ``label`` names the run in progress lines (default
    ``game/scenario``); ``max_turns`` stops games earlier than the scenario's own limit (they
    count as draws at the limit).
    """
    seats, agents = seat_agents(spec, scenario, agents)
    if games < 0:
        raise GameError("the number of games cannot be negative")
    if games > MAX_GAMES:
        raise GameError(too_many_games(games))
    stream = sys.stderr if progress is True else (progress or None)
    bar = Progress(games, stream, label or f"{spec.game}/{scenario}")
    if executor is None:
        executor = own = LocalExecutor(jobs)
    else:
        own = None
    tasks = game_tasks(spec, scenario, seed, first, games, agents, max_turns, executor.workers)
    outcomes: list[Outcome] = []
    start = time.perf_counter()
    try:
        for chunk in executor.map_unordered(run_chunk, tasks):
            outcomes.extend(chunk)
            bar.update(len(chunk))
    finally:
        bar.close()
        if own is not None:
            own.close()
    seconds = time.perf_counter() - start
    outcomes.sort(key=lambda o: o[0])
    wins = dict.fromkeys(seats, 0)
    ties = turns = decisions = 0
    for o in outcomes:
        if on_game is not None:
            on_game(o)
        if o[2]:
            ties += 1
        else:
            for w in o[1]:
                wins[seats[w]] += 1
        turns += o[3]
        decisions += o[4]
    return SimResult(
        spec.game,
        scenario,
        seats,
        list(agents),
        seed,
        games,
        wins,
        ties,
        turns,
        decisions,
        seconds,
        outcomes,
        tuple(spec.data.get("end_reasons", ())),
    )
