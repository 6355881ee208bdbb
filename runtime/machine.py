"""The state machine driver and the primitives generated blocks call.

A generated engine is a tuple of block functions ``block(S, F)``; ``F`` is the top frame
``[pc, locals]`` of ``S["stack"]``. :func:`run` calls the block of the top frame until a
decision is pending, the game has a result, or the stack is empty (a rules bug).

Contract for blocks (see ``docs/runtime.md``):

- continue: set ``F[0]``; call: set ``F[0]`` to the continuation, then
  ``S["stack"].append([callee, locals])`` (or :func:`call`); return: ``S["stack"].pop()``.
- a block that asks must not change ``S`` before calling :func:`ask`/:func:`ask_all`:
  :func:`rulecraft.runtime.view.determinize` re-enters it to rebuild options a bot cannot see.
- frame locals are public: secrets live in fields declared hidden in ``GameSpec.visibility``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "GameError",
    "IllegalDecision",
    "MalformedDecision",
    "DeadEnd",
    "TurnLimit",
    "RulesError",
    "UnknownGame",
    "run",
    "ask",
    "ask_all",
    "call",
    "ret",
    "log",
    "reveal",
    "reask",
    "finish",
]

State = dict[str, Any]
Frame = list[Any]
Block = Callable[[State, Frame], None]


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


class DeadEnd(RulesError):
    """The rules asked for a decision with no legal option."""


class TurnLimit(RulesError):
    """A game went past its scenario's ``max_turns`` (random or stubborn play, or a rules bug)."""


def run(
    S: State,
    blocks: Sequence[Block],
    max_turns: int | None = None,
    origins: Sequence[str] = (),
) -> None:
    """Run the machine until a decision is pending or the game is over.

    ``max_turns`` bounds ``S["turn"]`` (an endless game is a :class:`RulesError`);
    ``origins[i]`` names the rules position of block ``i`` for errors raised inside it.
    """
    stack = S["stack"]
    f: Frame | None = None
    try:
        if max_turns is None:
            while S["pending"] is None and S["result"] is None and stack:
                f = stack[-1]
                blocks[f[0]](S, f)
        else:
            while S["pending"] is None and S["result"] is None and stack:
                f = stack[-1]
                blocks[f[0]](S, f)
                if S["turn"] > max_turns:
                    raise TurnLimit(
                        f"game runs endlessly: turn {S['turn']} exceeds max_turns {max_turns}"
                    )
    except RulesError as exc:
        if exc.origin is None and f is not None and f[0] < len(origins):
            exc.origin = origins[f[0]]
            exc.args = (f"{exc.origin}: {exc.message}",)
        raise
    except GameError:
        raise
    except Exception as exc:  # a bug surfacing in generated code: point at the rules
        origin = origins[f[0]] if f is not None and f[0] < len(origins) else None
        where = f" in block {f[0]}" if f is not None else ""
        raise RulesError(f"{type(exc).__name__}: {exc}{where}", origin) from exc
    if not stack and S["pending"] is None and S["result"] is None:
        raise RulesError("the rules never ended the game (the state machine ran out of steps)")


def _check_options(player: int, kind: str, options: list[list[Any]]) -> None:
    if not options:
        raise DeadEnd(f"decision {kind!r} for player {player} has no legal option")


def ask(
    S: State,
    F: Frame,
    player: int,
    kind: str,
    prompt: str,
    options: list[list[Any]],
    resume: int,
) -> None:
    """Wait for ``player`` to pick one of ``options`` (``[id, label, value]``), then go on at
    block ``resume``; the chosen value is in ``S["answer"]``."""
    if not options:
        _check_options(player, kind, options)
    S["pending"] = [{"player": player, "kind": kind, "prompt": prompt, "options": options}]
    S["simultaneous"] = False
    S["asked"] = F[0]
    F[0] = resume


def ask_all(
    S: State,
    F: Frame,
    decisions: Sequence[tuple[int, str, str, list[list[Any]]]],
    resume: int,
) -> None:
    """Several players decide at once, in secret; go on at ``resume`` once all have answered.

    The values are in ``S["answers"][str(player)]``.
    """
    pending = []
    for player, kind, prompt, options in decisions:
        if not options:
            _check_options(player, kind, options)
        pending.append({"player": player, "kind": kind, "prompt": prompt, "options": options})
    if not pending:
        raise DeadEnd("a simultaneous decision with no player")
    S["pending"] = pending
    S["answers"] = {}
    S["simultaneous"] = True
    S["asked"] = F[0]
    F[0] = resume


def reask(S: State, blocks: Sequence[Block]) -> None:
    """Offer the pending decision again, from the block that asked it: its options follow
    the state (after the state was edited, or rebuilt for a bot). Answers given so far to a
    simultaneous decision are dropped."""
    S["stack"][-1][0] = S["asked"]
    S["pending"] = None
    S["answers"] = {}
    run(S, blocks)


def answer(S: State, index: int, option: list[Any]) -> None:
    """Record the answer ``option`` to pending decision ``index`` (no validation: trusted).

    The machine may resume once no decision is left pending (the caller then calls :func:`run`).
    """
    pending = S["pending"]
    S["steps"] += 1
    if not S["simultaneous"]:
        S["answer"] = option[2]
        S["pending"] = None
        return
    S["answers"][str(pending[index]["player"])] = option[2]
    if len(pending) == 1:
        S["pending"] = None
    else:
        S["pending"] = pending[:index] + pending[index + 1 :]


def call(S: State, F: Frame, callee: int, local: dict[str, Any], then: int) -> None:
    """Call block ``callee`` with fresh ``local``; the caller continues at ``then``."""
    F[0] = then
    S["stack"].append([callee, local])


def ret(S: State) -> None:
    """Return from the current frame."""
    S["stack"].pop()


def log(S: State, text: str, audience: list[int] | None = None) -> None:
    """Append a log line; ``audience`` None is everyone, else the list of players who see it."""
    S["log"].append([text, audience])


def reveal(S: State) -> None:
    """Mark that hidden information became known (undo cannot go back past it)."""
    S["reveals"] += 1


def finish(S: State, winners: list[int], tie: bool, reason: str) -> None:
    """End the game. ``tie`` means a draw among ``winners`` (all players if empty);
    several winners without ``tie`` is a shared victory."""
    S["result"] = {"winners": list(winners), "tie": bool(tie), "reason": reason}
