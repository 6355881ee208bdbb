"""Nothing hidden leaks: for every scenario of every bundled game, what a seat is given is the
same in two states that differ only in what that seat may not see.

The twin of a state is made here from the declarations alone, not from the runtime's view:
every field value hidden from the seat (``visible: owner`` of another seat or record owner,
``visible: none``, unless revealed to it), the generator and the seed, the locals of waiting
routines that the compiler declares secret (``spec.secrets``), deals the seat is no party to,
other seats' answers to a simultaneous decision, the options of their decisions and the
prompt arguments the compiler declares secret (``spec.secret_prompts``), and log lines
addressed to others. Then the seat's view, its export, its log, its view for bots, the
OpenSpiel/PettingZoo observation string and tensor must be byte-identical in both. A view that
leaks any of these fails (``test_a_leaking_view_is_caught``). A longer run is under ``soak``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import random
from typing import Any

import pytest
from rulecraft.runtime import Game, load_spec
from rulecraft.runtime.deals import is_deal, parties
from rulecraft.runtime.layout import ANSWERS, LOG, PENDING, RNG, SEED, STACK, bits, mask_of
from rulecraft.runtime.registry import known_games

view_module = importlib.import_module("rulecraft.runtime.view")

#: ``(game, scenario)`` of every compiled scenario of the bundled games
SCENARIOS = sorted(
    (game, sid)
    for game in {name.partition("/")[0] for name in known_games()}
    # the bundled games only: a test game registered by an earlier test module is not one
    if importlib.util.find_spec(f"rulecraft.generated.{game}") is not None
    for sid in importlib.import_module(f"rulecraft.generated.{game}").SPECS
)
#: the default suite: games per scenario, decisions per game, twins checked per game
GAMES, DECISIONS, CHECKS = 1, 120, 6


# ----------------------------------------------------------------------- the twin (oracle)


def _owner(spec: Any, slot: Any, i: int, S: list[Any]) -> Any:
    """Who owns value ``i`` of ``slot``: the seat of a player field, a record's ``owner``."""
    if slot.scope == "p":
        return i
    if slot.scope != "e":
        return None
    owner_slot = spec.layout.by_path.get(f"e.{slot.etype}.owner")
    if owner_slot is not None:
        return S[owner_slot.offset + i]
    owners = spec.data.get(f"s_e_{slot.etype}__owner")
    return None if owners is None else owners[i]


def hidden_values(spec: Any, S: list[Any], seat: int | None) -> list[tuple[Any, int]]:
    """``(slot, index in S)`` of every field value ``seat`` (None: a spectator) may not see,
    read from the declarations."""
    everyone = (1 << len(spec.seats)) - 1
    out = []
    for slot in spec.layout.slots:
        if slot.visible == "all":
            continue
        seen = spec.layout.by_path.get(slot.path + "_seen")
        for i in range(slot.count):
            if slot.visible == "owner" and seat is not None and _owner(spec, slot, i, S) == seat:
                continue
            if seen is not None:
                who = S[seen.offset + i]
                if (seat is not None and who >> seat & 1) or (seat is None and who == everyone):
                    continue
            out.append((slot, slot.offset + i))
    return out


def _other(rng: random.Random, v: Any) -> Any:
    """Another value of the same shape as a local ``v``."""
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + rng.randint(1, 9)
    if isinstance(v, str):
        return v + "x"
    if isinstance(v, (tuple, list)):
        return type(v)([*v, *v[:1]] if v else [rng.randint(0, 3)])
    return rng.randint(0, 3) if v is None else v


def _other_field(spec: Any, slot: Any, v: Any, rng: random.Random) -> Any:
    """Another value of field ``slot`` that keeps what a view shows of it (a list's size)."""
    if slot.kind == "set":
        universe = range(len(spec.ids[slot.ref]))
        return mask_of(rng.sample(universe, len(bits(v))))
    if slot.kind == "seq":
        if slot.ref:
            n = len(spec.ids[slot.ref])
            return tuple(rng.randrange(n) for _ in v)
        return tuple(x + rng.randint(1, 9) for x in v)
    if slot.kind == "ref":
        return rng.randrange(len(spec.ids[slot.ref]))
    if slot.kind == "enum":
        return rng.choice([x for x in spec.enums[slot.ref] if x != v] or [v])
    return _other(rng, v)


def _other_prompt(spec: Any, d: tuple[Any, ...], rng: random.Random) -> tuple[Any, ...]:
    """The prompt's arguments of a decision, changed where the compiler says they are secret."""
    if d[1] in spec.secret_prompts:
        return tuple(_other(rng, x) for x in d[3])
    return d[3]


def twin(spec: Any, S: list[Any], seat: int | None, rng: random.Random) -> list[Any]:
    """A state that differs from ``S`` only in what ``seat`` may not see."""
    T = S[:]
    T[RNG] = S[RNG] ^ rng.getrandbits(63) | 1
    T[SEED] = (S[SEED] or 0) + rng.randint(1, 999)
    for slot, k in hidden_values(spec, S, seat):
        T[k] = _other_field(spec, slot, S[k], rng)
    frames = []
    node = S[STACK]
    while node is not None:
        F = list(node[0])
        secret = {row[0] for row in spec.secrets.get((F[0], F[1]), ())}
        for k, x in enumerate(F[2:]):
            if is_deal(x):
                if seat is None or seat not in parties(x):
                    g, giver, receiver, arg = x[1]
                    F[2 + k] = (x[0], (g, giver, receiver, _other(rng, arg)), *x[2:])
            elif k in secret:
                F[2 + k] = _other(rng, x)
        frames.append(tuple(F))
        node = node[1]
    stack: Any = None
    for F in reversed(frames):
        stack = (F, stack)
    T[STACK] = stack
    if S[ANSWERS]:
        T[ANSWERS] = tuple((p, v if p == seat else _other(rng, v)) for p, v in S[ANSWERS])
    if S[PENDING]:
        T[PENDING] = tuple(
            d if d[0] == seat else (d[0], d[1], (), _other_prompt(spec, d, rng))
            for d in S[PENDING]
        )
    events = []
    node = S[LOG]
    while node:
        if node[2] is None or (seat is not None and seat in node[2]):
            events.append(node)
        node = node[3]
    chain: Any = None
    for e in reversed(events):
        chain = (e[0], e[1], e[2], chain)
    T[LOG] = chain if S[LOG] is not False else False
    return T


# ----------------------------------------------------------------------- what a seat is given


def given(spec: Any, S: list[Any], seat: int | None) -> dict[str, Any]:
    """Everything rulecraft hands ``seat``, as bytes or text."""
    g = Game(spec, S)
    out = {
        "view": json.dumps(g.view(seat), sort_keys=True),
        "export": g.export(seat),
        "log": "\n".join(g.log_for(seat)),
        "view_state": repr(g.view_state(seat, log=True)),
    }
    try:
        from rulecraft.runtime.adapters.encoding import ObservationEncoder, observation_text
    except ImportError:  # the research extras are not installed: the rest is still checked
        return out
    import numpy as np

    out["observation_string"] = observation_text(g, seat)
    encoder = spec.__dict__.get("_test_encoder")
    if encoder is None:
        encoder = spec.__dict__["_test_encoder"] = ObservationEncoder(spec)
    tensor = np.zeros(encoder.size)
    encoder.encode(g, seat, tensor)
    out["observation_tensor"] = tensor.tobytes()
    return out


def differences(spec: Any, S: list[Any], seat: int | None, rng: random.Random) -> list[str]:
    """What ``seat`` is given differently in ``S`` and a twin: empty when nothing leaks."""
    a = given(spec, S, seat)
    b = given(spec, twin(spec, S, seat, rng), seat)
    return [k for k in a if a[k] != b[k]]


def positions(game: str, scenario: str, seed: int, decisions: int) -> Any:
    """The states of a random game, one per decision."""
    spec = load_spec(game, scenario)
    g = Game.new(spec, None, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if g.finished:
            return
        yield g
        d = rng.choice(g.pending())
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)


# ----------------------------------------------------------------------- the tests


def _positions_copied(game: str, scenario: str, seed: int, decisions: int) -> list[Game]:
    """positions() moves one game on: a copy of each state for checking afterwards."""
    return [g.clone() for g in positions(game, scenario, seed, decisions)]


@pytest.mark.parametrize(("game", "scenario"), SCENARIOS, ids=[f"{g}/{s}" for g, s in SCENARIOS])
def test_no_seat_is_given_what_it_may_not_see(game, scenario):
    """Rules: MOP-SEQ-01, WEST-2-07, TR-DIP-COMMIT-01"""
    checked = _check(game, scenario, GAMES, DECISIONS, CHECKS)
    assert checked > 0


def _check(game: str, scenario: str, games: int, decisions: int, checks: int) -> int:
    checked = 0
    for seed in range(games):
        rng = random.Random(1000 + seed)
        states = _positions_copied(game, scenario, seed, decisions)
        for i in sorted(rng.sample(range(len(states)), min(checks, len(states)))):
            g = states[i]
            spec = g.spec
            for seat in [None, *range(len(spec.seats))]:
                leaks = differences(spec, g.raw, seat, rng)
                assert not leaks, (
                    f"{game}/{scenario} seed {seed}, decision {i}: "
                    f"{'a spectator' if seat is None else spec.seats[seat]} is given "
                    f"{', '.join(leaks)} differently in two states that differ only in what "
                    "it may not see"
                )
                checked += 1
    return checked


@pytest.mark.soak
@pytest.mark.parametrize(("game", "scenario"), SCENARIOS, ids=[f"{g}/{s}" for g, s in SCENARIOS])
def test_no_seat_is_given_what_it_may_not_see_soak(game, scenario):
    # a twin check of every seat costs about 0.05 s: CI's 250 soak games make 2 games of 15
    # checks per scenario here (a few minutes in all)
    games = max(1, int(os.environ.get("RULECRAFT_SOAK_GAMES", "250")) // 125)
    assert _check(game, scenario, games, 300, 15) > 0


def westphalia_goals_drawn() -> Game:
    """Westphalia at set-up: Austria has drawn three Goal cards and chooses one to keep."""
    g = Game.named("westphalia", 3)
    d = g.pending()[0]
    assert g.spec.seats[d.player] == "austria" and len(d.options) == 3
    return g


def test_the_goal_cards_austria_drew_are_hidden_from_the_others():
    """Rules: WEST-2-07 (Austria draws three Goal cards and keeps one in secret). The drawn
    cards wait in a local of the set-up routine: no other seat, nor a spectator, sees them."""
    g = westphalia_goals_drawn()
    drawn = {o.id.split(":")[-1] for o in g.pending()[0].options}
    austria = g.spec.seats.index("austria")
    for seat in [None, *range(len(g.spec.seats))]:
        if seat == austria:
            continue
        text = g.export(seat)
        frames = json.loads(text)["view"]["stack"]
        assert frames[0]["locals"] == [{"hidden": True}], frames[0]
        assert g.view(seat)["stack"][0]["locals"] == [{"hidden": True}]
    # Austria is asked: its own options name the cards
    assert {o.id.split(":")[-1] for o in g.legal(austria)} == drawn


def test_a_leaking_view_is_caught(monkeypatch):
    """The check fails where a view shows what it should hide: the locals of a waiting
    routine, or a hidden field."""
    g = westphalia_goals_drawn()
    bavaria = g.spec.seats.index("bavaria")
    rng = random.Random(5)
    assert differences(g.spec, g.raw, bavaria, rng) == []
    # a view that shows the routines' locals as they are
    monkeypatch.setattr(view_module, "_stack_for", lambda spec, node, player: node)
    leaks = differences(g.spec, g.raw, bavaria, rng)
    assert "view" in leaks and "export" in leaks and "view_state" in leaks
    monkeypatch.undo()
    # a view that forgets the hidden fields (The March of Progress: the other's hand)
    mop = _positions_copied("march_of_progress", "thirty_years_war", 1, 6)[-1]
    assert differences(mop.spec, mop.raw, 0, rng) == []
    monkeypatch.setattr(mop.spec, "hidden_slots", ())
    leaks = differences(mop.spec, mop.raw, 0, rng)
    assert {"view", "export", "view_state"} <= set(leaks)


def test_the_compiler_marks_locals_that_hold_hidden_values():
    """The secrecy analysis marks the local that holds the drawn Goal cards (a hidden deck
    read), the cards The March of Progress's attacker may discard (read from its hand), and
    a Third Reich power's secret DP split (an answer in a ``simultaneously`` block)."""
    west = load_spec("westphalia", "congress")
    names = {west.routine_names[r] for r, _pc in west.secrets}
    assert "setup__decks" in names
    mop = load_spec("march_of_progress", "thirty_years_war")
    assert "attack" in {mop.routine_names[r] for r, _pc in mop.secrets}
    trd = load_spec("third_reich_diplomacy", "campaign_1939")
    assert "commit_dps" in {trd.routine_names[r] for r, _pc in trd.secrets}
