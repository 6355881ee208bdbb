"""The driver of a generated engine, and the errors of the runtime.

A generated engine has two forms of every routine that may wait for a decision:

- the *machine* form (``r_<name>``): straight-line Python between resume points. A routine
  that must wait (a decision, or a call into a routine that waits) returns :data:`SUSPEND`
  after appending its frame ``(routine id, resume pc, *locals)`` to ``S[UNWIND]``; each
  caller appends its own frame and returns :data:`SUSPEND` too. :func:`run` links the
  frames onto ``S[STACK]`` (innermost on top) and returns. Answering a decision resumes the
  top frame with the answer; a routine that finishes returns its value to the frame below.
- the *playout* form (``q_<name>``): the same rules as plain nested calls, each decision
  drawn uniformly at random and no log written. :func:`playout` finishes the routines a
  state is suspended in with the machine form, then plays the rest of the game with the
  playout form.

The end of the game is the exception :class:`GameEnded` (the result is in ``S[RESULT]``).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any, NoReturn

from .layout import ANSWERS, LIMIT, LOG, PENDING, RESULT, STACK, STEPS, TURN, UNWIND

__all__ = [
    "GameError",
    "IllegalDecision",
    "MalformedDecision",
    "DeadEnd",
    "TurnLimit",
    "RulesError",
    "UnknownGame",
    "GameEnded",
    "SUSPEND",
    "run",
    "answer",
    "reask",
    "playout",
    "origin_of",
]


class GameError(Exception):
    """Base class of every error the runtime raises."""


class IllegalDecision(GameError):
    """A well-formed decision that is not among the legal options."""


class MalformedDecision(GameError):
    """A decision that does not even have the right shape (wrong player, not an id)."""


class UnknownGame(GameError, LookupError):
    """A game or scenario name that is not compiled."""


class RulesError(GameError):
    """The rules themselves failed; ``origin`` is ``rules/<game>/<file>.yaml:LINE:COL`` if known."""

    def __init__(self, message: str, origin: str | None = None) -> None:
        self.message = message
        self.origin = origin
        super().__init__(f"{origin}: {message}" if origin else message)

    def locate(self, origin: str | None) -> None:
        """Give the error a rules position if it has none yet."""
        if self.origin is None and origin is not None:
            self.origin = origin
            self.args = (f"{origin}: {self.message}",)


class DeadEnd(RulesError):
    """The rules asked for a decision with no legal option."""


class TurnLimit(RulesError):
    """A game went past its turn limit (random or stubborn play, or a rules bug)."""


class GameEnded(Exception):
    """Raised by ``end_game``: unwinds the routines; the result is in ``S[RESULT]``."""


class _Suspend:
    __slots__ = ()

    def __repr__(self) -> str:
        return "SUSPEND"


#: what a machine-form routine returns when it has to wait
SUSPEND: Any = _Suspend()


def origin_of(exc: BaseException) -> str | None:
    """The rules position of the innermost generated-engine line in ``exc``'s traceback.

    Generated modules carry ``_ORIGINS``: one ``"<line> <rules position>"`` row for each rules
    statement, in line order; the nearest at or above the failing line is the one.
    """
    tb = exc.__traceback__
    found = None
    while tb is not None:
        g = tb.tb_frame.f_globals
        table = _origin_table(g)
        if table is not None:
            lines, positions = table
            i = bisect.bisect_right(lines, tb.tb_lineno) - 1
            if i >= 0:
                found = positions[i]
        tb = tb.tb_next
    return found


_TABLES: dict[str, tuple[list[int], list[str]]] = {}


def _origin_table(g: dict[str, Any]) -> tuple[list[int], list[str]] | None:
    text = g.get("_ORIGINS")
    if not isinstance(text, str):
        return None
    name = g.get("__name__", "")
    table = _TABLES.get(name)
    if table is None:
        lines, positions = [], []
        for row in text.split("\n"):
            line, _, pos = row.partition(" ")
            lines.append(int(line))
            positions.append(pos)
        table = _TABLES[name] = (lines, positions)
    return table


def _reraise(exc: Exception) -> NoReturn:
    """Raise ``exc`` as the runtime reports it: a :class:`RulesError` gets the rules position
    of the generated line that failed; another :class:`GameError` passes unchanged; any other
    exception is a rules bug surfacing in generated code, raised as a located RulesError."""
    if isinstance(exc, GameError):
        if isinstance(exc, RulesError):
            exc.locate(origin_of(exc))
        raise exc
    if isinstance(exc, RecursionError):
        message = "the rules call themselves too deeply (an endless recursion?)"
    else:
        message = f"{type(exc).__name__}: {exc}"
    raise RulesError(message, origin_of(exc)) from exc


def run(spec: Any, S: list[Any], v: Any = None, until_main: bool = False) -> None:
    """Resume the machine with ``v`` (an answer, or None) until it waits or the game ends.

    ``spec`` is the scenario's :class:`~rulecraft.runtime.spec.GameSpec`. With
    ``until_main``, stop before resuming the flow of play itself (for :func:`playout`)."""
    routines = spec.routines
    main = spec.main_rid if until_main else -1
    unwound: list[tuple[Any, ...]] = []
    S[UNWIND] = unwound
    try:
        while True:
            st = S[STACK]
            if st is None:
                raise RulesError("the rules never ended the game (the state machine ran out)")
            F = st[0]
            if F[0] == main and st[1] is None:
                return
            S[STACK] = st[1]
            v = routines[F[0]](S, F, v)
            if v is SUSPEND:
                st = S[STACK]
                for f in reversed(unwound):
                    st = (f, st)
                S[STACK] = st
                if not S[STEPS] & 63:  # now and then: rules that call themselves endlessly
                    _check_depth(spec, st)
                return
    except GameEnded:
        S[PENDING] = None
    except Exception as exc:
        _reraise(exc)
    finally:
        S[UNWIND] = None


#: the most routines that may wait at once (each call that asks a decision waits in its
#: caller): a bound on rules that call themselves endlessly across decisions (a card that
#: plays itself again), far above what a game needs
MAX_DEPTH = 500


def _check_depth(spec: Any, st: Any) -> None:
    depth, top = 0, st
    while st is not None:
        depth += 1
        st = st[1]
    if depth > MAX_DEPTH:
        routine = spec.routines[top[0][0]]
        doc = getattr(routine, "__doc__", None) or ""
        origin = doc.rsplit("[", 1)[1].rstrip("]") if doc.endswith("]") else None
        raise RulesError(
            f"the rules call themselves too deeply: {depth} routines wait at once "
            "(an endless recursion?)",
            origin,
        )


def answer(S: list[Any], index: int, value: Any, simultaneous: bool) -> tuple[bool, Any]:
    """Record the answer ``value`` to pending decision ``index`` (trusted: no validation).

    Returns ``(ready, v)``: whether the machine may resume, and the value to resume it
    with (the answer; for a simultaneous decision, ``((player, answer), ...)`` in the order
    the players were asked).
    """
    pending = S[PENDING]
    S[STEPS] += 1
    if not simultaneous:
        S[PENDING] = None
        return True, value
    d = pending[index]
    given = (*(S[ANSWERS] or ()), (d[0], value))
    rest = pending[:index] + pending[index + 1 :]
    if rest:
        S[ANSWERS] = given
        S[PENDING] = rest
        return False, None
    S[ANSWERS] = None
    S[PENDING] = None
    return True, given


def reask(spec: Any, S: list[Any]) -> None:
    """Ask the pending decision again, from the point it was asked at: its options follow
    the state (after the state was edited, or rebuilt for a bot). Answers given so far to a
    simultaneous decision are dropped."""
    pending = S[PENDING]
    if not pending:
        raise GameError("no decision is pending")
    site = spec.sites[pending[0][1]]
    F = S[STACK][0]
    S[STACK] = ((F[0], site.ask_pc, *F[2:]), S[STACK][1])
    S[PENDING] = None
    S[ANSWERS] = None
    run(spec, S, None)


#: decisions random players decline half of the time (a report: nothing changed; an offer:
#: pass), or a game would only ever report, a window never close (the generated playout form
#: does the same)
DECLINE_HALF = frozenset({"report", "propose"})


def playout(spec: Any, S: list[Any], R: Callable[[], float]) -> None:
    """Play the game in ``S`` to its end with uniformly random decisions, in place.

    ``R`` draws the decisions (``random.Random(...).random``); dice still come from the
    game's own generator. The log is turned off (``S[LOG] = False``): a playout writes none.
    A game that runs past ``S[LIMIT]`` raises :class:`TurnLimit`.
    """
    sites = spec.sites
    main = spec.main_rid
    S[LOG] = False  # the log is off for the rest of this game
    try:
        while S[RESULT] is None:
            pending = S[PENDING]
            if pending is not None:
                simultaneous = sites[pending[0][1]].simultaneous
                ready, v = False, None
                while not ready:
                    d = S[PENDING][0]
                    opts = d[2]
                    n = len(opts) + sites[d[1]].optional
                    i = int(R() * n) if n > 1 else 0
                    if sites[d[1]].kind in DECLINE_HALF:
                        i = len(opts) if R() < 0.5 or not opts else int(R() * len(opts))
                    ready, v = answer(S, 0, opts[i] if i < len(opts) else None, simultaneous)
                run(spec, S, v, until_main=True)
                continue
            st = S[STACK]
            if st is not None and st[1] is None and st[0][0] == main:
                # Only the flow of play is left: hand over to the playout form.
                S[STACK] = None
                spec.engine.q_main(S, R, st[0][2] if len(st[0]) > 2 else 0)
                return
            raise RulesError("the game is neither waiting for a decision nor finished")
    except GameEnded:
        S[PENDING] = None
    except Exception as exc:
        _reraise(exc)


def check_turn(S: list[Any]) -> None:
    """Raise :class:`TurnLimit` if the game went past its turn limit."""
    if S[TURN] > S[LIMIT]:
        raise TurnLimit(f"game runs endlessly: turn {S[TURN]} exceeds the limit of {S[LIMIT]}")
