"""The visibility of values in locals (compiler/secrecy.py), on the toy game with one step
added: a routine that holds hidden and public values in its locals while it waits.

The step ``peek``: Red looks at the top card of its face-down deck and asks Blue a question;
the card waits in a local, beside values everyone may know (how many cards Red holds, a die
roll) and values computed from hidden ones in the ways the analysis follows (a function of
a hidden field, an assignment under a hidden condition, a parameter passed a hidden value).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from compile_helpers import compile_into, import_generated
from rulecraft.runtime import Game
from rulecraft.runtime.layout import STACK
from rulecraft.runtime.view import determinize, view

SOURCE = Path(__file__).resolve().parent / "fixtures" / "games" / "toy"

PEEK = """
  peek:
    do: |
      let red = first(players)
      let top = first(red.deck)
      let holding = count(red.hand)
      let die = roll(6)
      let worth = top_value(red)
      let high = 0
      if top.value > 3:
          high = 1
      let go = choose_yes_no(enemy(red), "Go on? ({holding} cards, die {die})")
      confide(red, top)
      log "{holding} {die} {worth} {high} {go}"
"""

CONFIDE = """
  confide:
    doc: Waits for an answer while it holds a card it was passed.
    params: {p: player, c: card}
    body: |
      let seen = c
      let ok = choose_yes_no(p, "Keep it?")
      if ok:
          log to p "You keep {seen.id} in mind."

  deal:"""

TOP_VALUE = """
  top_value:
    doc: The value of the top card of a player's face-down deck (a hidden read).
    params: {p: player}
    returns: int
    body: |
      return sum([c.value for c in p.deck])

  enemy:"""


def _peek_game() -> object:
    scratch = tempfile.mkdtemp(prefix="rulecraft-secrecy-")
    root = Path(scratch)
    (root / "generated").mkdir()
    shutil.copytree(SOURCE, root / "rules" / "toy")
    flow = root / "rules" / "toy" / "flow.yaml"
    text = flow.read_text(encoding="utf-8")
    flow.write_text(text.replace("\nturn:\n", "\nturn:" + PEEK, 1), encoding="utf-8")
    rules = root / "rules" / "toy" / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    text = text.replace("\n  deal:", CONFIDE, 1).replace("\n  enemy:", TOP_VALUE, 1)
    rules.write_text(text, encoding="utf-8")
    compile_into(root)
    return import_generated(root, "toy").SPECS["duel"]


SPEC = _peek_game()


def _at_peek(seed: int = 1) -> Game:
    g = Game.new(SPEC, None, seed)
    d = g.pending()[0]
    assert d.prompt.startswith("Go on?"), d.prompt
    return g


def test_a_local_read_from_a_hidden_field_is_hidden_from_every_seat():
    g = _at_peek()
    secret = {row[0] for row in SPEC.secrets[(g.raw[STACK][0][0], g.raw[STACK][0][1])]}
    F = g.raw[STACK][0]  # (routine, resume point, *the locals still needed)
    for seat in (None, 0, 1):
        shown = view(SPEC, g.raw, seat)[STACK][0]
        for k, x in enumerate(F[2:]):
            if k in secret:
                assert repr(shown[2 + k]).startswith("Hidden"), (seat, k)
            else:
                assert shown[2 + k] == x, (seat, k)


def _frame_names(routine: str, pc: int) -> list[str]:
    """The rule names of the locals in the frame of ``routine`` resumed at ``pc``, read from
    the generated method (``(rid, pc, v_a, v_b, ...)``)."""
    import inspect
    import re

    rid = SPEC.routine_names.index(routine)
    code = inspect.getsource(getattr(type(SPEC.engine), "r_" + routine))
    found = re.search(rf"\({rid}, {pc}, ([^()]*)\)", code)
    assert found, code
    return [n.strip().removeprefix("v_") for n in found.group(1).split(",") if n.strip()]


def test_what_is_secret_and_what_is_not():
    """top (a hidden deck read), worth (a function reading a hidden field) and high (set
    under a hidden condition) are secret; holding (the size of a hidden hand) and the die
    are not."""
    g = _at_peek()
    F = g.raw[STACK][0]
    names = _frame_names("turn__peek", F[1])
    secret = {names[row[0]] for row in SPEC.secrets[(F[0], F[1])]}
    assert secret == {"top", "worth", "high"}, names
    assert {"holding", "die"} <= set(names) - secret


def test_a_parameter_passed_a_hidden_value_is_hidden():
    g = _at_peek()
    g.apply(1, g.pending()[0].options[0].id)  # Blue answers; confide(red, top) waits
    F = g.raw[STACK][0]
    assert SPEC.routine_names[F[0]] == "confide"
    secret = {row[0] for row in SPEC.secrets[(F[0], F[1])]}
    assert secret, "c and seen hold the hidden top card"
    for seat in (None, 0, 1):
        shown = view(SPEC, g.raw, seat)[STACK][0][2:]
        assert all(repr(shown[k]).startswith("Hidden") for k in secret)


def test_a_bot_world_holds_a_stand_in_and_plays_on():
    import random

    g = _at_peek()
    rng = random.Random(0)
    S = determinize(SPEC, view(SPEC, g.raw, 1), rng)
    F = S[STACK][0]
    for k, fill, method in SPEC.secrets[(F[0], F[1])]:
        if method is None:
            assert F[2 + k] == fill
    h = Game(SPEC, S)
    h.apply(1, h.pending()[0].options[0].id)  # the imagined world goes on without error
