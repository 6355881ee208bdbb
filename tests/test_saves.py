"""Saves cannot lie: a save is the game's seed and decisions, and loading it replays them
through ``Game.apply``, so a save loads into a position the rules reach or is refused with
one message naming what is wrong (the decision, the field). A position without decisions (a
save of rulecraft before version 3, ``Game.position_json``) is read only by the explicit,
trusting ``Game.from_position``."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rulecraft.runtime import Game, GameSpec, RulesError
from rulecraft.runtime.named import SaveError
from rulecraft.runtime.saves import MAX_DECISIONS, MAX_NESTING, MAX_SAVE_CHARS


def _played(name: str = "march_of_progress/thirty_years_war", n: int = 5, seed: int = 1) -> Game:
    g = Game.named(name, seed)
    for _ in range(n):
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    return g


GAME = _played()
SAVE = GAME.to_json()
POSITION = GAME.position_json()


def _put(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        *head, last = path.split(".")
        for part in head:
            d = d[int(part)] if isinstance(d, list) else d[part]
        if isinstance(d, list):
            d[int(last)] = value
        else:
            d[last] = value

    return edit


def _refused(text: str, spec: GameSpec | None = None) -> str:
    with pytest.raises(SaveError) as caught:
        Game.from_json(text, spec)
    return str(caught.value)


# -- the format ----------------------------------------------------------------------------


def test_a_save_is_the_seed_and_the_decisions() -> None:
    data = json.loads(SAVE)
    assert data["rulecraft"] == 3
    assert (data["game"], data["scenario"], data["seed"]) == (
        "march_of_progress",
        "thirty_years_war",
        1,
    )
    assert data["limit"] == GAME.max_turns and "constants" not in data
    assert data["decisions"] == [[GAME.spec.seats[p], oid] for p, oid in GAME.decisions()]
    assert len(data["decisions"]) == 5 and all(isinstance(oid, str) for _, oid in data["decisions"])
    assert data["position"]["p"]["blue"]["vp"] == GAME.state["p"][0]["vp"]
    assert "log" not in data["position"]  # the replay writes the log again


def test_the_untouched_save_loads_to_the_same_game() -> None:
    h = Game.from_json(SAVE)
    assert h.raw == GAME.raw  # the log too
    assert h.to_json() == SAVE
    assert h.decisions() == GAME.decisions()


def test_a_save_without_its_position_loads_from_its_decisions() -> None:
    data = json.loads(SAVE)
    del data["position"]
    assert Game.from_json(json.dumps(data)).raw == GAME.raw


def test_apply_index_and_clones_are_recorded() -> None:
    g = Game.named("march_of_progress/thirty_years_war", 2)
    g.apply_index(g.pending()[0].player, 1)
    c = g.clone()
    d = c.pending()[0]
    c.apply(d.player, d.options[0].id)
    assert len(g.decisions()) == 1 and len(c.decisions()) == 2
    assert c.decisions()[0] == g.decisions()[0] == (0, g.decisions()[0][1])
    assert Game.from_json(c.to_json()).raw == c.raw


def test_seats_ride_along() -> None:
    g = GAME.clone()
    g.seat_kinds = ("human:ann", "mc:4")
    data = json.loads(g.to_json())
    assert data["seats"] == {"blue": "human:ann", "orange": "mc:4"}
    assert Game.from_json(g.to_json()).seat_kinds == ("human:ann", "mc:4")
    assert Game.from_json(SAVE).seat_kinds is None


def test_constants_are_replayed() -> None:
    spec = GAME.spec.with_constants(victory_vps=12)
    g = Game.new(spec, None, 3)
    d = g.pending()[0]
    g.apply(d.player, d.options[-1].id)
    h = Game.from_json(g.to_json())
    assert h.spec.constants["victory_vps"] == 12 and h.raw == g.raw


# -- a decision that is not legal ------------------------------------------------------------


@pytest.mark.parametrize(
    ("forge", "message"),
    [
        (_put("decisions.2.1", "card:nope"), "decision 3 of the save (orange: 'card:nope') cannot"),
        (_put("decisions.3.0", "orange"), "decision 4 of the save (orange: 'army:blue_1') cannot"),
        (_put("decisions.0.0", "orange"), "decision 2 of the save (orange: 'card:move_1') cannot"),
        (_put("decisions.1.0", "green"), "decision 2 of the save is made by 'green', who is not"),
        (_put("decisions.1.0", 40), "decision 2 of the save is made by 40, who is not a seat"),
        (_put("decisions.1.1", 7), "decision 2 of the save (orange) must be an option id"),
        (_put("decisions.1", ["blue"]), "decision 2 of the save is not a pair [seat, option id]"),
        (_put("decisions", {}), "the save has no list of 'decisions'"),
        (_put("seed", "1"), "'seed' in the save must be a whole number"),
        (_put("seed", True), "'seed' in the save must be a whole number"),
        (_put("limit", 0), "'limit' in the save must be a turn from 1"),
        (_put("seats", {"blue": "human"}), "'seats' in the save does not say who plays 'orange'"),
        (_put("seats", {"blue": "", "orange": "mc"}), "'seats.blue' in the save must be who"),
        (_put("cheat", 1), "the save has an entry 'cheat'"),
        (_put("constants", {"luck": 3}), "'constants' in the save: no constant 'luck'"),
        (_put("rulecraft", 3.0), "not a rulecraft save of version 3 (it says 3.0)"),
    ],
)
def test_a_decision_or_setting_that_is_not_legal_is_named(forge: Any, message: str) -> None:
    data = json.loads(SAVE)
    forge(data)
    assert message in _refused(json.dumps(data))


def test_the_reason_game_apply_gave_is_in_the_message() -> None:
    data = json.loads(SAVE)
    data["decisions"].append([GAME.pending()[0].seat, "card:nope"])
    message = _refused(json.dumps(data))
    assert message.startswith("decision 6 of the save (")
    assert "is not a legal option" in message and "legal: " in message


def test_a_decision_after_the_game_ended_is_refused() -> None:
    g = Game.named("march_of_progress/thirty_years_war", 3)
    while not g.finished:
        d = g.pending()[0]
        g.apply(d.player, d.options[-1].id)
    data = json.loads(g.to_json())
    n = len(data["decisions"])
    data["decisions"].append(data["decisions"][-1])
    del data["position"]
    assert f"decision {n + 1} of the save" in _refused(json.dumps(data))
    assert "the game is over" in _refused(json.dumps(data))


# -- the position rides along, checked -------------------------------------------------------


@pytest.mark.parametrize(
    ("forge", "where"),
    [
        (_put("position.p.blue.vp", 50), "position.p.blue.vp: the save says 50, the replay 0"),
        (
            _put("position.p.blue.vp", False),
            "position.p.blue.vp: the save says False, the replay 0",
        ),
        (_put("position.rng", 5), "position.rng: the save says 5"),
        (_put("position.p.blue.hand", ["score", "score"]), "position.p.blue.hand"),
        (_put("position.e.army.blue_1.location", "mars"), "position.e.army.blue_1.location"),
        (_put("position.p.green", {}), "position.p.green: the save has it, the replay does not"),
        (lambda d: d["position"].pop("stack"), "position.stack: the save does not have it"),
        (_put("position.stack.0.locals", [40]), "position.stack[0].locals"),
        (_put("position.result", {"winners": ["blue"]}), "position.result: the save says"),
    ],
)
def test_a_forged_position_is_refused_naming_the_field(forge: Any, where: str) -> None:
    data = json.loads(SAVE)
    forge(data)
    message = _refused(json.dumps(data))
    assert message.startswith("the position in the save is not the one its decisions reach")
    assert where in message


def test_a_position_of_another_layout_is_not_compared() -> None:
    data = json.loads(SAVE)
    data["layout"] = "0123"
    assert "written for another version of march_of_progress/thirty_years_war" in _refused(
        json.dumps(data)
    )
    del data["position"]
    assert Game.from_json(json.dumps(data)).raw == GAME.raw  # the decisions alone: replayed


# -- Westphalia: an offer waiting for its answer (found by fuzzing) ---------------------------


def _westphalia_offer() -> Game:
    """Austria chose its goal; Sweden offered the Dutch 1 Unit, who have not answered."""
    g = Game.named("westphalia/congress", 4)
    g.apply(0, g.pending()[0].options[0].id)
    d = g.pending()[0]
    assert d.seat == "sweden" and d.kind == "propose"
    g.apply(d.player, "offer:units:sweden>dutch=1")
    assert [(d.seat, d.kind) for d in g.pending()] == [("dutch", "yes-no")]
    return g


OFFER = _westphalia_offer()


@pytest.mark.parametrize(
    ("offer", "why"),
    [
        ("offer:units:sweden>austria=50", "Sweden can give at most 5 Units to Austria"),
        ("offer:units:sweden>austria=-5", "say how many"),
        ("offer:prestige:sweden>austria=15", "Sweden can give at most 1 Prestige to Austria"),
        ("offer:peace:spain>dutch", "a player may only propose a deal they are a party to"),
    ],
)
def test_an_edited_offer_is_refused_with_its_decision(offer: str, why: str) -> None:
    data = json.loads(OFFER.to_json())
    data["decisions"][1] = ["sweden", offer]
    del data["position"]
    message = _refused(json.dumps(data))
    assert message.startswith(f"decision 2 of the save (sweden: {offer!r}) cannot be replayed")
    assert why in message


def test_an_edited_offer_in_the_position_is_refused() -> None:
    """The offer waiting for the Dutch answer lives in the negotiation's locals: 50 Units
    there, or a seat index of 40, are not what the decisions made."""
    data = json.loads(OFFER.to_json())
    frame = data["position"]["stack"][0]
    assert frame["routine"] == "negotiate"
    deal = next(
        i for i, x in enumerate(frame["locals"]) if isinstance(x, list) and x[:1] == ["deal"]
    )
    for forged in (["deal", [0, 4, 5, 50]], ["deal", [0, 40, 5, 1]]):
        frame["locals"][deal] = forged
        message = _refused(json.dumps(data))
        assert f"position.stack[0].locals[{deal}][1]" in message


def test_the_offer_is_answered_after_loading() -> None:
    h = Game.from_json(OFFER.to_json())
    h.apply(5, "yes")
    g = OFFER.clone()
    g.apply(5, "yes")
    assert h.raw == g.raw and h.state["p"][5]["units"] == g.state["p"][5]["units"]


@pytest.mark.parametrize(
    ("forge", "where"),
    [
        (lambda p: p["g"]["goal_deck"].append(p["g"]["goal_deck"][0]), "position.g.goal_deck"),
        (lambda p: p["g"]["goal_deck"].append(p["p"]["austria"]["goal"]), "position.g.goal_deck"),
    ],
    ids=["a card twice in a deck", "a card in the deck and in Austria's hand"],
)
def test_a_card_in_two_places_is_refused(forge: Any, where: str) -> None:
    data = json.loads(OFFER.to_json())
    forge(data["position"])
    assert where in _refused(json.dumps(data))


# -- what cannot be verified ------------------------------------------------------------------


def test_a_position_is_not_a_save_of_a_game() -> None:
    """Saves written before version 3 are positions: refused by from_json, in words."""
    message = _refused(POSITION)
    assert "this save (version 2) is a position without the decisions that led to it" in message
    assert "Game.from_position" in message
    h = Game.from_position(POSITION)  # the explicit, trusting load
    assert h.state["p"] == GAME.state["p"] and h.pending() == GAME.pending()
    assert h.unverified is not None
    with pytest.raises(SaveError, match="loaded from a position"):
        h.to_json()
    with pytest.raises(SaveError, match=r"a save of a game \(version 3\): load it with"):
        Game.from_position(SAVE)


def _edit_vp(g: Game) -> None:
    g.state["p"][0]["vp"] = 3


def _edit_hand(g: Game) -> None:
    del g.state["p"][0]["hand"][0]


def _constant(g: Game) -> None:
    g.state["c"]["victory_vps"] = 12


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (_edit_vp, "its state was edited by name"),
        (_edit_hand, "its state was edited by name"),
        (lambda g: g.reask(), "asked again (Game.reask"),
        (_constant, "its constant 'victory_vps' was changed during play"),
        (lambda g: g.state.__setitem__("seed", 9), "its state was edited by name"),
    ],
)
def test_a_game_edited_by_hand_cannot_be_saved_as_a_game(edit: Any, why: str) -> None:
    g = GAME.clone()
    edit(g)
    with pytest.raises(SaveError) as caught:
        g.to_json()
    assert "this game cannot be saved as a game" in str(caught.value)
    assert why in str(caught.value) and "Game.position_json()" in str(caught.value)
    g.position_json()  # the position alone can still be written
    assert GAME.to_json() == SAVE  # the clone's edit did not touch the original


def test_a_lower_turn_limit_is_saved_and_replayed() -> None:
    g = GAME.clone()
    g.max_turns = 9
    h = Game.from_json(g.to_json())
    assert h.max_turns == 9 and h.raw == g.raw


def test_a_decision_answered_past_game_apply_cannot_be_saved() -> None:
    from rulecraft.runtime.tools.agents import apply_id

    g = GAME.clone()
    d = g.pending()[0]
    apply_id(g.spec, g.raw, d.player, d.options[0].id)  # on the compact state: not recorded
    with pytest.raises(SaveError, match="its state counts 6 decisions, but 5 were applied"):
        g.to_json()


def test_a_game_made_from_a_compact_state_cannot_be_saved() -> None:
    with pytest.raises(SaveError, match=r"made from a compact state \(Game\(spec, raw\)\)"):
        Game(GAME.spec, GAME.raw[:]).to_json()


def test_a_game_with_a_set_up_written_by_hand_cannot_be_saved() -> None:
    spec = GAME.spec.with_after_setup(lambda S: None)
    with pytest.raises(SaveError, match="its set-up is written by hand"):
        Game.new(spec, None, 1).to_json()


# -- huge and deep --------------------------------------------------------------------------


def test_a_local_nested_900_deep_is_refused_in_words() -> None:
    data = json.loads(OFFER.to_json())
    deep: Any = 0
    for _ in range(900):
        deep = [deep]
    data["position"]["stack"][0]["locals"][0] = deep
    text = json.dumps(data)
    message = _refused(text)
    assert f"nests lists and objects more than {MAX_NESTING} levels deep" in message
    position = json.loads(OFFER.position_json())
    position["stack"][0]["locals"][0] = deep
    with pytest.raises(SaveError, match="levels deep"):
        Game.from_position(json.dumps(position))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (SAVE[: len(SAVE) // 2], "not JSON"),
        ("", "not JSON"),
        ("[1]", "not a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "not JSON: nested too deeply"),
        (SAVE.replace('"seed":1', '"seed":' + "9" * 5000, 1), "not JSON"),
        (" " * (MAX_SAVE_CHARS + 1), "characters long; a save is at most"),
        ('{"rulecraft": 3, "game": "march_of_progress"}', "no game and scenario named"),
        # found by the save fuzzer (--fuzz-budget 1500, input 385): an empty scenario loaded
        # as the game's first one, another game than the one saved
        (
            '{"rulecraft": 3, "game": "march_of_progress", "scenario": "", "seed": 5}',
            "the save's 'game' and 'scenario' must name them, not be empty",
        ),
        (
            '{"game": "nope", "scenario": "x", "rulecraft": 3}',
            "the save is of nope/x: no compiled game named 'nope'",
        ),
    ],
)
def test_a_broken_file_is_refused(text: str, message: str) -> None:
    assert message in _refused(text)


def test_too_many_decisions_are_refused_before_replaying() -> None:
    data = json.loads(SAVE)
    data["decisions"] = [["blue", "x"]] * (MAX_DECISIONS + 1)
    assert f"holds {MAX_DECISIONS + 1:,} decisions; a save holds at most" in _refused(
        json.dumps(data)
    )


def test_a_giant_list_in_the_position_is_refused() -> None:
    data = json.loads(SAVE)
    data["position"]["p"]["blue"]["hand"] = ["score"] * 500_000
    assert "position.p.blue.hand" in _refused(json.dumps(data))


def test_a_long_game_replays_from_its_save() -> None:
    """A Westphalia game of 200 decisions or more replays from its save to the same game (its
    load time is measured in benchmarks/bench_state.py, not here)."""
    import random

    g = Game.named("westphalia", 3)
    rng = random.Random(3)
    while not g.finished and len(g.decisions()) < 400:
        d = g.pending()[0]
        n = len(d.options)
        i = n - 1 if d.kind in ("propose", "report") and rng.random() < 0.7 else rng.randrange(n)
        g.apply(d.player, d.options[i].id)
    assert len(g.decisions()) >= 200
    h = Game.from_json(g.to_json())
    assert h.state["p"] == g.state["p"] and h.log_for(None) == g.log_for(None)


# -- the positions' own checks (Game.from_position, for tests that trust their source) ---------

FORGED_POSITIONS = [
    (lambda d: d.pop("p"), "the save has no 'p.blue.vp'"),
    (_put("p.blue.vp", -50), "'p.blue.vp' in the save is -50, outside its bounds 0..None"),
    (_put("p.blue.strength", 99), "outside its bounds 1..6"),
    (_put("p.blue.vp", 2**200), "'p.blue.vp' in the save is out of range (61 digits)"),
    (_put("p.blue.vp", True), "must be a whole number, not True"),
    (_put("e.country.neutral.vp_die", 9), "outside its bounds 0..2"),
    (_put("p.green", {}), "the save has a seat 'green', which this game does not have"),
    (_put("p.blue.luck", 3), "for blue a field 'luck'"),
    (_put("e.army.blue_9", {}), "a army 'blue_9'"),
    (_put("cheat", 1), "an entry 'cheat'"),
    (_put("result", "over"), "'result' in the save must be an object or null"),
    (_put("result", {"winners": 1.5}), "'result.winners' in the save must be a list of seats"),
    (_put("turn", -5), "'turn' and 'limit' in the save are out of range"),
    (_put("asked", 3), "does not ask the decision the save names"),
    (_put("answers", [["blue", 99]]), "an answer of blue, who is not asked"),
    (_put("e.army.blue_1.location", "mars"), "'mars' is not a country of this game"),
    (_put("p.blue.hand", ["score", "score"]), "names an element twice"),
]


@pytest.mark.parametrize("forge, message", FORGED_POSITIONS)
def test_a_forged_position_is_refused_by_from_position(forge: Any, message: str) -> None:
    data = json.loads(POSITION)
    forge(data)
    with pytest.raises(SaveError) as caught:
        Game.from_position(json.dumps(data))
    assert message in str(caught.value)


# -- at the terminal and on the command line ----------------------------------------------------


def test_undo_then_save_at_the_terminal(tmp_path: Path) -> None:
    """A decision taken back is not in the save; the save replays to the game on screen."""
    from fixtures.toy import SPEC
    from rulecraft.runtime.tools.terminal import play

    path = tmp_path / "game.json"
    out = io.StringIO()
    script = f"1\nundo\nsave {path}\nquit\n"
    play(SPEC, "duel", ["human", "random"], 4, input=io.StringIO(script), output=out)
    text = out.getvalue()
    assert "Your pick is taken back." in text and f"Saved to {path}" in text
    data = json.loads(path.read_text())
    assert data["decisions"] == [] and data["seats"] == {"red": "human", "blue": "random"}
    assert Game.from_json(path.read_text()).raw == Game.new(SPEC, "duel", 4).raw


def test_play_load_resumes_with_the_same_seats_and_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from fixtures.toy import SPEC
    from rulecraft.compiler.cli import main
    from rulecraft.runtime.tools import terminal

    path = tmp_path / "game.json"
    out = io.StringIO()
    seats = ["human:ann", "mc:2"]
    play = terminal.play
    play(SPEC, "duel", seats, 7, input=io.StringIO(f"1\n\nsave {path}\nquit\n"), output=out)
    assert f"Saved to {path}" in out.getvalue()
    got: dict[str, Any] = {}

    def fake_play(spec: Any, scenario: str, seats: list[str], seed: int, **kw: Any) -> None:
        got.update(seats=seats, seed=seed, start=kw["start"])

    monkeypatch.setattr(terminal, "play", fake_play)
    assert main(["play", "toy", "--load", str(path)]) == 0
    assert got["seats"] == seats and got["seed"] == 7
    assert got["start"].raw == Game.from_json(path.read_text()).raw
    assert main(["play", "toy", "--load", str(path), "--seats", "human,random"]) == 0
    assert got["seats"] == ["human", "random"]  # --seats gives the seats to others
    assert main(["play", "toy", "--load", str(path), "--seed", "8"]) == 1
    assert "was played with seed 7: --seed cannot change it" in capsys.readouterr().err
    # a save written before version 3 is refused in words
    old = tmp_path / "old.json"
    old.write_text(Game.new(SPEC, "duel", 1).position_json())
    assert main(["play", "toy", "--load", str(old)]) == 1
    assert "is a position without the decisions" in capsys.readouterr().err
    # and a forged one names its decision
    data = json.loads(path.read_text())
    data["decisions"][0][1] = "card:nope"
    path.write_text(json.dumps(data))
    assert main(["play", "toy", "--load", str(path)]) == 1
    assert "decision 1 of the save (red: 'card:nope') cannot be replayed" in (
        capsys.readouterr().err
    )


def test_a_frame_at_no_resume_point_is_a_rules_error_not_an_endless_loop() -> None:
    """A position whose waiting routine names a resume point its routine does not have (a
    forged ``pc``) loads by ``from_position``, which trusts it, and then stops with a rules
    error where the game reaches that frame; it looped forever in the generated code."""
    g = Game.named("westphalia", 3)
    for _ in range(5):
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    data = json.loads(g.position_json())
    assert data["stack"][1]["routine"] == "turn__negotiation"
    data["stack"][1]["pc"] = 999
    h = Game.from_position(json.dumps(data))
    with pytest.raises(RulesError, match="routine turn__negotiation: no resume point 999"):
        for _ in range(300):
            d = h.pending()[0]
            h.apply(d.player, d.options[-1].id)
