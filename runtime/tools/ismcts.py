"""Information-set Monte Carlo tree search: a bot that looks ahead, from its own view only.

:class:`ISMCTSAgent` is single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information
Set Monte Carlo Tree Search", 2012). One tree is grown per decision, rooted at the agent's
information set: every iteration draws a fresh world from the agent's view with
:func:`~rulecraft.runtime.view.determinize` (never from the true state, which the agent is
not given), walks the tree in that world choosing by UCB1 among the options that exist in
it (counting, for each option, how often it was available), adds one node, finishes the game
with a random playout and credits every seat on the path with its own score.

- **Chance** (dice, draws) comes from the world's generator: a node is the sequence of
  decisions that led to it, whatever the dice did (an open-loop tree).
- **Simultaneous decisions** (secret picks): every seat asked chooses from its own
  statistics at the node, without seeing the others' choices (decoupled UCT); the child
  is the combination.
- **Decisions with too many options to list** (allocations, reports): the agent's own is
  judged on a fixed random sample of options, as the flat Monte Carlo bot does; deeper in the
  tree the options of such a decision grow by progressive widening (a new sampled option
  each time the node's visits allow ``2 * sqrt(visits)`` of them), and offers in a
  negotiation window are drawn at random. Deals the agent proposes or answers itself are
  judged by the game's declared value, as the other bots do (:func:`.judging.trade`).

Budget: a number of iterations, or seconds of thinking per decision (wall clock: the
choices then depend on the machine's speed; an iteration budget is reproducible).
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from ..game import Decision
from ..layout import LIMIT, PENDING, RESULT, TURN
from ..machine import DECLINE_HALF, RulesError, answer, playout, run
from ..spec import GameSpec
from ..view import determinize
from .judging import forced_or_traded, sample_options, score

__all__ = ["ISMCTSAgent", "DEFAULT_ITERATIONS", "MAX_ITERATIONS", "MAX_SECONDS"]

#: iterations per decision of ``ismcts``: an iteration costs about one playout, so this thinks
#: 2-4 times as long as ``mc`` on a March of Progress decision, about as long as ``mc:40``
#: (measured in benchmarks/README.md)
DEFAULT_ITERATIONS = 200
#: the most iterations per decision ``ismcts:N`` may ask (a bound on thinking time)
MAX_ITERATIONS = 100_000
#: the most seconds per decision ``ismcts:Ts`` may ask
MAX_SECONDS = 600.0


class _Node:
    """A node of the tree: the decisions that led here from the agent's information set."""

    __slots__ = ("children", "stats", "widen", "visits")

    def __init__(self) -> None:
        #: the combination of choices made here -> the node it leads to
        self.children: dict[tuple[Any, ...], _Node] = {}
        #: ``(player, site, value)`` -> ``[visits, total score of player, times available]``
        self.stats: dict[tuple[Any, ...], list[Any]] = {}
        #: ``(player, site)`` -> the options sampled so far of a decision too large to list
        self.widen: dict[tuple[int, int], list[Any]] = {}
        self.visits = 0


def _has_decline(spec: GameSpec, d: tuple[Any, ...]) -> bool:
    site = spec.sites[d[1]]
    return site.optional or site.options in ("report", "offer")


def _can_test(opts: Any) -> bool:
    """Whether ``v in opts`` is cheap (a list, a split, a report's changes; not offers)."""
    return isinstance(opts, (tuple, list)) or "__contains__" in type(opts).__dict__


class ISMCTSAgent:
    """Single-observer information-set MCTS with UCB1 (see the module's documentation).

    ``iterations``: determinized worlds per decision; ``seconds``: a time budget instead.
    ``depth``: a playout runs at most this many more turns and counts as a draw beyond
    them (as in :class:`~.agents.MonteCarloAgent`); ``c``: the UCB1 exploration constant
    (scores are 0..1)."""

    needs_view = True

    #: the agent's own decision with more options than this is judged on a random sample;
    #: a deeper one grows its options by progressive widening
    sample = 24

    def __init__(
        self,
        seed: int,
        iterations: int = DEFAULT_ITERATIONS,
        seconds: float | None = None,
        depth: int = 100,
        c: float = 0.7,
    ) -> None:
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.depth = depth
        self.c = c
        #: iterations run for the last decision, and its tree (for benchmarks and tests)
        self.last_iterations = 0
        self.last_tree: _Node | None = None

    def determinize(self, spec: GameSpec, view: list[Any]) -> list[Any]:
        """A world consistent with ``view``: the only way the search learns about the game."""
        return determinize(spec, view, self.rng)

    def choose(self, view: list[Any], decision: Decision, spec: GameSpec) -> str:
        picked = forced_or_traded(view, decision, spec, self.rng)
        if picked is not None:
            return picked
        options: Any = decision.options
        me = decision.player
        own = next(d for d in view[PENDING] if d[0] == me)  # its own: never hidden
        picks = sample_options(len(options), self.sample, self.rng)
        # option index -> value of the answer (the decline, "none"/"done"/"pass", is last)
        values = {i: own[2][i] if i < len(own[2]) else None for i in picks}
        root = _Node()
        if self.seconds is not None:
            deadline = time.perf_counter() + self.seconds
            done = 0
            while done < MAX_ITERATIONS and (done == 0 or time.perf_counter() < deadline):
                self._iterate(spec, view, root, me, values)
                done += 1
        else:
            for _ in range(self.iterations):
                self._iterate(spec, view, root, me, values)
            done = self.iterations
        self.last_iterations = done
        self.last_tree = root
        best, best_key = picks[0], (-1, 0.0)
        for i in picks:
            st = root.stats.get((me, own[1], values[i]))
            if st is None or st[0] == 0:
                continue
            key = (st[0], st[1] / st[0])  # the most visited; the better mean on a tie
            if key > best_key:
                best, best_key = i, key
        return options[best].id

    # -- one iteration --------------------------------------------------------------------

    def _iterate(
        self, spec: GameSpec, view: list[Any], root: _Node, me: int, values: dict[int, Any]
    ) -> None:
        rng = self.rng
        S = self.determinize(spec, view)
        S[LIMIT] = min(S[LIMIT], S[TURN] + self.depth)
        path: list[tuple[_Node, list[tuple[Any, ...]]]] = []
        node = root
        seats = len(spec.seats)
        try:
            while S[RESULT] is None:
                pending = S[PENDING]
                simultaneous = spec.sites[pending[0][1]].simultaneous
                asked = pending if simultaneous else pending[:1]
                if all(len(d[2]) + _has_decline(spec, d) == 1 for d in asked):
                    # forced: no choice, no node
                    ready, v = False, None
                    for d in asked:
                        k = next(i for i, e in enumerate(S[PENDING]) if e[0] == d[0])
                        ready, v = answer(S, k, d[2][0] if len(d[2]) else None, simultaneous)
                    if ready:
                        run(spec, S, v)
                    continue
                node.visits += 1
                chosen: list[tuple[int, Any]] = []
                keys: list[tuple[Any, ...]] = []
                fresh = False
                for d in asked:
                    cands: list[Any] | None
                    if node is root and d[0] == me:
                        cands = self._root_candidates(spec, d, values)
                    else:
                        cands = self._candidates(spec, node, d)
                    if cands is None:  # drawn at random, no statistics
                        chosen.append((d[0], self._random_value(spec, d)))
                        continue
                    key, tried = self._select(node, d, cands)
                    fresh = fresh or not tried
                    chosen.append((d[0], key[2]))
                    keys.append(key)
                path.append((node, keys))
                ready, v = False, None
                for p, value in chosen:
                    k = next(i for i, d in enumerate(S[PENDING]) if d[0] == p)
                    ready, v = answer(S, k, value, simultaneous)
                if ready:
                    run(spec, S, v)
                joint = tuple(keys)
                child = node.children.get(joint)
                if child is None:
                    node.children[joint] = _Node()
                    break  # expanded: the rest is a playout
                node = child
                if fresh:
                    break
            if S[RESULT] is None:
                playout(spec, S, rng.random)
        except RulesError:
            # An impossible world (unseen cards dealt at random, stand-ins for hidden locals)
            # or a playout past its depth: it says nothing, a draw for everyone (as the flat
            # bot counts it).
            rewards = [0.5] * seats
        else:
            result = S[RESULT]
            rewards = [score(result, q) if result is not None else 0.5 for q in range(seats)]
        for n, keys in path:
            for key in keys:
                st = n.stats[key]
                st[0] += 1
                st[1] += rewards[key[0]]

    def _select(
        self, node: _Node, d: tuple[Any, ...], cands: list[Any]
    ) -> tuple[tuple[Any, ...], bool]:
        """UCB1 over the options available in this world; an untried one first (at random).
        Returns the key and whether it had been tried."""
        p, site = d[0], d[1]
        stats = node.stats
        untried = []
        best, best_ucb = None, -1.0
        c = self.c
        for v in cands:
            key = (p, site, v)
            st = stats.get(key)
            if st is None:
                st = stats[key] = [0, 0.0, 0]
            st[2] += 1
            if st[0] == 0:
                untried.append(key)
            elif not untried:
                ucb = st[1] / st[0] + c * math.sqrt(math.log(st[2]) / st[0])
                if ucb > best_ucb:
                    best, best_ucb = key, ucb
        if untried:
            return untried[self.rng.randrange(len(untried))], False
        assert best is not None
        return best, True

    def _root_candidates(
        self, spec: GameSpec, d: tuple[Any, ...], values: dict[int, Any]
    ) -> list[Any]:
        """The agent's own options at the root that this world allows (all of them, unless
        the world was drawn such that the rules offer something else)."""
        opts = d[2]
        decline = _has_decline(spec, d)
        if not _can_test(opts):
            return list(values.values())
        return [
            v for v in values.values() if (v is None and decline) or (v is not None and v in opts)
        ]

    def _candidates(self, spec: GameSpec, node: _Node, d: tuple[Any, ...]) -> list[Any] | None:
        """The options of ``d`` to choose among at ``node``; None: draw one at random."""
        opts = d[2]
        decline = _has_decline(spec, d)
        n = len(opts) + decline
        if n <= self.sample:
            return [*opts, None] if decline else list(opts)
        if not _can_test(opts):
            return None
        widen = node.widen.setdefault((d[0], d[1]), [])
        allowed = max(2, int(2 * math.sqrt(node.visits)))
        if len(widen) < allowed:
            v = self._random_value(spec, d)
            if v not in widen:
                widen.append(v)
        here = [v for v in widen if (v is None and decline) or (v is not None and v in opts)]
        if not here:
            v = self._random_value(spec, d)
            widen.append(v)
            here = [v]
        return here

    def _random_value(self, spec: GameSpec, d: tuple[Any, ...]) -> Any:
        """A uniformly random answer to ``d``, as a playout draws it."""
        rng = self.rng
        opts = d[2]
        if spec.sites[d[1]].kind in DECLINE_HALF and (not len(opts) or rng.random() < 0.5):
            return None
        n = len(opts) + _has_decline(spec, d)
        i = rng.randrange(n)
        return opts[i] if i < len(opts) else None
