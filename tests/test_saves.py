"""Loading a save trusts nothing in it: every value is checked against the game's declared
state, and a damaged or forged save is refused with one message naming what is wrong."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from rulecraft.runtime import Game
from rulecraft.runtime.named import SaveError


def _saved() -> str:
    g = Game.named("march_of_progress/thirty_years_war", 1)
    for _ in range(5):
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    return g.to_json()


SAVE = _saved()


def _put(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        *head, last = path.split(".")
        for part in head:
            d = d[part]
        d[last] = value

    return edit


BROKEN_TEXTS = [
    (SAVE[: len(SAVE) // 2], "not JSON"),
    ("", "not JSON"),
    ("[1]", "not a JSON object"),
    ("[" * 100_000 + "]" * 100_000, "not JSON"),
    (SAVE.replace('"vp":0', '"vp":' + "9" * 5000, 1), "not JSON"),
]

FORGED = [
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
    (_put("turn", -5), "'turn' and 'limit' in the save are out of range"),
    (_put("asked", 3), "does not ask the decision the save names"),
    (_put("answers", [["blue", 99]]), "an answer of blue, who is not asked"),
    (_put("e.army.blue_1.location", "mars"), "'mars' is not a country of this game"),
    (_put("p.blue.hand", ["score", "score"]), "names an element twice"),
]


@pytest.mark.parametrize("text, message", BROKEN_TEXTS)
def test_a_broken_file_is_refused(text: str, message: str) -> None:
    with pytest.raises(SaveError, match=message):
        Game.from_json(text)


@pytest.mark.parametrize("forge, message", FORGED)
def test_a_forged_save_is_refused_naming_what_is_wrong(forge: Any, message: str) -> None:
    data = json.loads(SAVE)
    forge(data)
    with pytest.raises(SaveError) as caught:
        Game.from_json(json.dumps(data))
    assert message in str(caught.value)


def test_the_untouched_save_loads() -> None:
    assert Game.from_json(SAVE).to_json() == SAVE
