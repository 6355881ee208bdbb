"""A compound assignment to a field subtracts (or adds) its whole right operand: the tally
fixture's ``p.points -= cost(big)``, whose function is inlined to a conditional, and
``p.points += 1 if big else 0`` (``compiler/codegen/forms.py``, ``store``). Generated as
``points = points - 2 if big else 1`` the small purchase left 1 point whatever was there."""

from __future__ import annotations

import pytest
from compile_helpers import fixture_game
from rulecraft.runtime import Game

ROOT, PACKAGE = fixture_game("tally")
SPEC = PACKAGE.SPECS["start"]


@pytest.mark.parametrize(
    ("red", "blue", "left"), [("no", "no", (9, 9)), ("yes", "no", (9, 9)), ("no", "yes", (9, 9))]
)
def test_a_field_minus_an_inlined_conditional(red, blue, left):
    g = Game.new(SPEC, None, 0)
    g.apply(0, red)
    g.apply(1, blue)
    assert g.finished
    points = tuple(p["points"] for p in g.state["p"])
    assert points == left
