"""One game played by both forms of an engine in lockstep (tests/test_forms.py, the effect
fuzzer, the native build's check).

The *machine form* is driven through :meth:`Game.apply` with option ids, choosing at every
decision from one seeded sequence of choices; each decision is recorded with the state it
was asked in. The *playout form* (``q_main``) then plays the same game from the same seed:
its decisions are drawn with ``R()``, and the ``R`` given here answers each draw with the
choice the machine form made, so both forms see the same decisions and the same dice.

``R()`` learns what the playout form knows of a decision from how it uses the draw:
``int(R() * n)`` picks one of ``n`` options, ``R() < 0.5`` answers yes or no (or declines a
report or an offer). At each decision the lockstep compares the kind of draw, the number of
options and the whole state of the game (every slot but the machine's own: stack, pending
decisions, log), and at the end the state and the result, or the error both forms stop with.

The game is also played out from its middle decision, as bots play out a position: the
runtime's driver (:func:`rulecraft.runtime.machine.playout`) finishes the flow step under way
in the machine form, then hands over to the playout form.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from rulecraft.runtime import Game, GameError, new_state
from rulecraft.runtime.layout import (
    ANSWERS,
    HEADER_NAMES,
    LOG,
    PENDING,
    RESULT,
    STACK,
    STEPS,
    TURN,
    UNWIND,
)
from rulecraft.runtime.machine import GameEnded, origin_of, playout

#: header slots that belong to the machine form alone (its stack, questions, log)
MACHINE_ONLY = frozenset({STEPS, STACK, PENDING, ANSWERS, LOG, UNWIND})
#: decisions a random player declines half of the time, in both forms
DECLINE_HALF = frozenset({"report", "propose"})


class FormsDiffer(AssertionError):
    """The two forms of an engine played the same decisions differently."""


def game_slots(S: list[Any]) -> tuple[Any, ...]:
    """The state of the game in ``S``: every slot but the machine form's own."""
    return tuple(x for i, x in enumerate(S) if i not in MACHINE_ONLY)


def slot_name(spec: Any, i: int) -> str:
    """A slot's name, for a message: a header slot or a field's path."""
    if i < len(HEADER_NAMES):
        return HEADER_NAMES[i]
    for s in spec.layout.slots:
        if s.offset <= i < s.offset + max(1, s.count):
            return f"{s.path}[{i - s.offset}]"
    return f"slot {i}"


def state_diff(spec: Any, a: list[Any], b: list[Any]) -> str:
    """The first slots where two states differ (machine form ``a``, playout form ``b``)."""
    rows = [
        f"  {slot_name(spec, i)}: machine {x!r}, playout {y!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True))
        if i not in MACHINE_ONLY and x != y
    ]
    return "\n".join(rows[:8])


@dataclass
class Asked:
    """One decision of the machine form: what the playout form must draw to make it."""

    kind: str  # the site's kind
    n: int  # options listed
    optional: bool  # may be declined (choose_optional)
    index: int  # the option chosen; n for "none" (declined)
    value: Any  # the answer given
    state: list[Any]  # the state it was asked in
    label: str  # for messages: the decision and the answer

    def draws(self) -> list[tuple[str, Any]]:
        """The draws the playout form makes for it: ``("lt", answer)`` for ``R() < 0.5``,
        ``("mul", (factor, index))`` for ``int(R() * factor)``."""
        declined = self.index >= self.n
        if self.kind == "yes-no":
            return [("lt", self.value is True)]
        if self.kind == "report":
            # `None if R() < 0.5 else _pick(R, opts)`: a pick of one option draws nothing
            return [("lt", declined)] + (
                [] if declined or self.n == 1 else [("mul", (self.n, self.index))]
            )
        if self.kind == "propose":
            return [("lt", declined)] + ([] if declined else [("mul", (self.n + 1, self.index))])
        if self.optional:
            return [("mul", (self.n + 1, self.index))]
        return [] if self.n == 1 else [("mul", (self.n, self.index))]

    def runtime_draws(self) -> list[tuple[str, Any]]:
        """The draws :func:`rulecraft.runtime.machine.playout` makes for it while it finishes
        a routine in the machine form: ``int(R() * n)`` over the options and "none" (for a
        report or an offer a draw it drops, then ``R() < 0.5`` to decline, then a pick)."""
        out: list[tuple[str, Any]] = []
        if self.n + self.optional > 1:
            keep = self.kind not in DECLINE_HALF
            out.append(("mul", (self.n + self.optional, self.index if keep else None)))
        if self.kind in DECLINE_HALF:
            declined = self.index >= self.n
            out.append(("lt", declined))
            if not declined:
                out.append(("mul", (self.n, self.index)))
        return out


@dataclass
class Ending:
    """How a form's game ended: its result, or the error it stopped with (type, origin,
    message), or ``cut`` after the most decisions the lockstep plays."""

    result: Any = None
    error: tuple[str, str | None, str] | None = None
    cut: bool = False


@dataclass
class Lockstep:
    """The record of one game played by both forms."""

    decisions: list[Asked] = field(default_factory=list)
    draws: int = 0
    #: the machine form's state at its end, or at the cut
    final: list[Any] | None = None
    machine: Ending = field(default_factory=Ending)
    playout: Ending = field(default_factory=Ending)
    #: the playout from the middle of the game (the runtime's driver, then the playout form)
    handover: Ending | None = None


def choose(rng: random.Random, kind: str, n: int, optional: bool) -> int:
    """The index chosen among ``n`` options (``n`` for none): uniform, but a report or an
    offer is declined half of the time (or a game would never stop reporting)."""
    if kind in DECLINE_HALF:
        return n if rng.random() < 0.5 or n == 0 else rng.randrange(n)
    return rng.randrange(n + optional)


def _error(exc: BaseException) -> tuple[str, str | None, str]:
    """An error as the runtime reports it (a Python error in generated code is a RulesError
    with the message ``"<type>: <text>"``): its type, rules position and message."""
    if isinstance(exc, GameError):
        origin = getattr(exc, "origin", None) or origin_of(exc)
        return (type(exc).__name__, origin, getattr(exc, "message", str(exc)))
    return ("RulesError", origin_of(exc), f"{type(exc).__name__}: {exc}")


def play_machine(spec: Any, seed: int, choices: int, most: int) -> Lockstep:
    """Play seed ``seed`` with the machine form, through ``Game.apply``, choosing with
    ``random.Random(choices)``; cut after ``most`` decisions, before one the playout form
    draws (a decision with one option it takes without a draw)."""
    rec = Lockstep()
    rng = random.Random(choices)
    g = None
    try:
        g = Game.new(spec, None, seed)
        while not g.finished:
            S = g.raw
            state = S[:]
            d = g.pending()[0]
            raw = S[PENDING][0]
            site = spec.sites[raw[1]]
            n = len(raw[2])
            if (
                len(rec.decisions) >= most
                and Asked(site.kind, n, site.optional, 0, None, [], "").draws()
            ):
                rec.machine.cut = True
                break
            i = choose(rng, site.kind, n, site.optional)
            value = raw[2][i] if i < n else None
            if len(d.options) != n + site.optional:
                raise FormsDiffer(
                    f"{d.kind} lists {len(d.options)} options, not {n + site.optional}"
                )
            option = d.options[i]
            label = f"{d.kind} of {d.seat}: {option.id}"
            rec.decisions.append(Asked(site.kind, n, site.optional, i, value, state, label))
            g.apply(d.player, option.id)
        else:
            rec.machine.result = g.raw[RESULT]
    except GameError as exc:
        rec.machine.error = _error(exc)
    rec.final = g.raw[:] if g is not None else None
    return rec


class _Cut(Exception):
    """The playout form reached the decision the machine form stopped before."""


class _Draw(float):
    """A draw of the scripted ``R``: learns how the playout form uses it. Its value is the
    machine form's answer too (``int(d * n)`` its index for ``n`` options, ``d < 0.5`` its
    yes or no): the native build types ``R() -> float``, and multiplies and compares it
    unboxed, without calling ``__mul__`` or ``__lt__``. There, a playout that picks among
    other options than the machine form offered is not told apart at the draw, only where
    the states part (:meth:`Script._next` compares them at every decision)."""

    __slots__ = ("script", "want")

    def __mul__(self, factor: Any) -> float:  # type: ignore[override]
        return self.script.take(self.want, "mul", factor)

    def __lt__(self, other: Any) -> bool:  # type: ignore[override]
        return self.script.take(self.want, "lt", other)


def _value(want: tuple[str, Any]) -> float:
    """What a draw is worth, to give the answer ``want`` unboxed (see :class:`_Draw`)."""
    op, answer = want
    if op == "lt":
        return 0.25 if answer else 0.75
    factor, index = answer
    return (0.5 if index is None else index + 0.5) / factor


def _activation(S: list[Any]) -> tuple[Any, ...]:
    """Which run of a flow step a state is in: the step the flow goes on with, and the turn."""
    st = S[STACK]
    while st[1] is not None:
        st = st[1]
    return (st[0][2] if len(st[0]) > 2 else 0, S[TURN])


class Script:
    """The ``R`` of the playout form: answers every draw as the machine form chose.

    From decision ``start`` on (a playout from the middle of a game, as bots run one), the
    decisions of the flow step under way are drawn by the runtime's driver of the machine
    form (:meth:`Asked.runtime_draws`), the rest by the playout form."""

    def __init__(self, spec: Any, rec: Lockstep, S: list[Any], start: int = 0) -> None:
        self.spec = spec
        self.rec = rec
        self.S = S
        self.k = start - 1  # the decision drawn now
        self.left: list[tuple[str, Any]] = []  # its draws still to come
        self.step = _activation(rec.decisions[start].state) if start else None

    def _next(self) -> bool:
        """On to the next decision that draws; False after the last."""
        decisions = self.rec.decisions
        while self.k + 1 < len(decisions):
            self.k += 1
            asked = decisions[self.k]
            driver = self.step is not None and _activation(asked.state) == self.step
            self.left = asked.runtime_draws() if driver else asked.draws()
            if self.left:
                if game_slots(self.S) != game_slots(asked.state):
                    raise FormsDiffer(
                        f"{self._where()}: the states differ:\n"
                        f"{state_diff(self.spec, asked.state, self.S)}"
                    )
                return True
        return False

    def __call__(self) -> float:
        if not self.left and not self._next():
            if self.rec.machine.cut:
                final = self.rec.final
                assert final is not None
                if game_slots(self.S) != game_slots(final):
                    raise FormsDiffer(
                        f"at the decision after the last: the states differ:\n"
                        f"{state_diff(self.spec, final, self.S)}"
                    )
                raise _Cut
            m = self.rec.machine
            end = f"stopped with {m.error}" if m.error else f"ended ({m.result})"
            raise FormsDiffer(
                f"the machine form {end} after {len(self.rec.decisions)} decisions; "
                "the playout form plays on"
            )
        want = self.left.pop(0)
        self.rec.draws += 1
        d = _Draw(_value(want))
        d.script = self
        d.want = want
        return d

    def _where(self) -> str:
        if self.k < 0:
            return "before the first decision"
        return f"at decision {self.k + 1} ({self.rec.decisions[self.k].label})"

    def done(self) -> bool:
        """Whether every draw of the machine form's decisions was made (those of the flow step
        under way at the start as the runtime's driver draws them, as :meth:`_next` reads
        them: a last decision with a single option there draws nothing)."""
        if self.left:
            return False
        for asked in self.rec.decisions[self.k + 1 :]:
            driver = self.step is not None and _activation(asked.state) == self.step
            if asked.runtime_draws() if driver else asked.draws():
                return False
        return True

    def take(self, drawn: tuple[str, Any], op: str, arg: Any) -> Any:
        want_op, want = drawn
        if op != want_op:
            raise FormsDiffer(
                f"{self._where()}: the playout form draws {op!r}, the machine form "
                f"asked for {want_op!r}"
            )
        if op == "lt":
            if arg != 0.5:
                raise FormsDiffer(f"{self._where()}: R() < {arg!r}")
            return want
        factor, index = want
        if arg != factor:
            raise FormsDiffer(
                f"{self._where()}: the playout form picks among {arg} options, "
                f"the machine form offered {factor}"
            )
        return 0.5 if index is None else index + 0.5


def play_playout(spec: Any, seed: int, rec: Lockstep, start: int | None = None) -> list[Any]:
    """Play seed ``seed`` with the playout form, every decision as ``rec`` made it: from
    the start (``q_main``), or with ``start`` from the machine form's state at that
    decision, as bots do (:func:`rulecraft.runtime.machine.playout`)."""
    if start is None:
        S = new_state(spec, seed)
        S[STACK] = None
        S[LOG] = False
    else:
        S = rec.decisions[start].state[:]
    script = Script(spec, rec, S, start or 0)
    ending = Ending()
    try:
        if start is None:
            spec.engine.q_main(S, script, 0)
            raise FormsDiffer("the playout form returned without ending the game")
        playout(spec, S, script)
        ending.result = S[RESULT]
    except GameEnded:
        ending.result = S[RESULT]
    except _Cut:
        ending.cut = True
    except FormsDiffer:
        raise
    except Exception as exc:
        cause = exc.__cause__  # the runtime's driver reports what R raised as a RulesError
        if isinstance(cause, FormsDiffer):
            raise cause from None
        if isinstance(cause, _Cut):
            ending.cut = True
        else:
            ending.error = _error(exc)
    if start is None:
        rec.playout = ending
    else:
        rec.handover = ending
    if not ending.cut and not script.done():
        raise FormsDiffer(
            f"the playout form ended ({ending}) before the machine form's last draw "
            f"({script._where()})"
        )
    return S


def lockstep(
    spec: Any, seed: int, choices: int | None = None, most: int = 400, middle: bool = True
) -> Lockstep:
    """Play one game with both forms (seed ``seed``, choices from ``choices``, at most
    ``most`` decisions) and raise :class:`FormsDiffer` where they differ. With ``middle``,
    also play it out from its middle decision on as bots do (the runtime's driver finishes
    the flow step under way, the playout form plays the rest)."""
    rec = play_machine(spec, seed, seed if choices is None else choices, most)
    where = f"{spec.game}/{spec.scenario} seed {seed}"
    S = play_playout(spec, seed, rec)
    _compare(where, spec, rec, rec.playout, S)
    if middle and rec.decisions:
        start = len(rec.decisions) // 2
        S = play_playout(spec, seed, rec, start)
        assert rec.handover is not None
        _compare(f"{where} from decision {start + 1}", spec, rec, rec.handover, S)
    return rec


def _compare(where: str, spec: Any, rec: Lockstep, p: Ending, S: list[Any]) -> None:
    """How the playout form ended (``p``, state ``S``) against the machine form."""
    m = rec.machine
    if m.error is not None or p.error is not None:
        # the same error at the same rules line (a dead end words its message by form)
        if m.error is None or p.error is None or m.error[:2] != p.error[:2]:
            raise FormsDiffer(
                f"{where}: the machine form stopped with {m.error}, the playout form with {p.error}"
            )
        return
    if m.cut != p.cut:
        raise FormsDiffer(f"{where}: the machine form {m}, the playout form {p}")
    if m.result != p.result:
        raise FormsDiffer(f"{where}: results differ: machine {m.result}, playout {p.result}")
    assert rec.final is not None
    if game_slots(S) != game_slots(rec.final):
        raise FormsDiffer(f"{where}: the final states differ:\n{state_diff(spec, rec.final, S)}")
