"""Examples of play (``rules/<game>/examples/*.yaml``, run by ``rulecraft test``): the
position they set up, the decisions they script and what they expect, on the compiled
engine; a failure is a diagnostic at the step or the set-up key of the example file."""

from __future__ import annotations

from pathlib import Path

import pytest
from compile_helpers import REPO, edit, line_col, scratch_project
from fixtures.toy import PACKAGE, ROOT  # compiled and registered at collection
from rulecraft.compiler.examples import example_files, run_examples
from rulecraft.compiler.project import new_sink

EXAMPLE = "examples/example_of_play.yaml"


def run(root: Path, only: str | None = None) -> tuple[list, list]:
    """Run a project's examples (``only``: one of March of Progress's)."""
    sink = new_sink(root)
    files = example_files(root)
    if only is not None:
        files = [f for f in files if f.as_posix().endswith(f"march_of_progress/{only}")]
    results = run_examples(root, files, sink)
    return results, sink.sorted()


#: the bundled games with examples of play, each run on its own (a parallel run spreads them)
GAMES = sorted(p.parent.name for p in (REPO / "rules").glob("*/examples"))


@pytest.mark.parametrize("game", GAMES)
def test_the_examples_of_play_pass(game: str) -> None:
    sink = new_sink(REPO)
    files = [f for f in example_files(REPO) if f.parent.parent.name == game]
    results = run_examples(REPO, files, sink)
    errors = sink.sorted()
    assert results and all(r.ok for r in results), [e.render() for e in errors]
    assert not errors
    if game == "march_of_progress":
        assert any(r.path == f"rules/{game}/{EXAMPLE}" and r.steps > 5 for r in results)


def test_every_bundled_game_has_examples_of_play() -> None:
    assert len(GAMES) == 5 and {"march_of_progress", "marlborough"} <= set(GAMES)


def test_an_unmet_expectation_is_an_error_at_its_step(tmp_path: Path) -> None:
    root = scratch_project(tmp_path)
    edit(root, EXAMPLE, "state: {g.initiative: orange}", "state: {g.initiative: blue}")
    results, errors = run(root, EXAMPLE)
    assert [r.ok for r in results] == [False]
    [err] = errors
    assert err.code == "example"
    assert err.message == "g.initiative is 'orange', expected 'blue'"
    line, _ = line_col(root, EXAMPLE, "state: {g.initiative: blue}")
    assert (err.pos.file, err.pos.line) == (f"rules/march_of_progress/{EXAMPLE}", line)


def test_a_failing_example_names_the_step_that_failed(tmp_path: Path) -> None:
    """`rulecraft test` says where a failing example stopped, not "(0 steps)"."""
    root = scratch_project(tmp_path)
    text = (root / "rules" / "march_of_progress" / EXAMPLE).read_text()
    steps = text.split("\nsteps:\n", 1)[1]
    total = sum(1 for line in steps.splitlines() if line.startswith("  - "))
    # the expectation's step: its number among the steps, counted in the file
    before = steps.split("state: {g.initiative: orange}")[0]
    n = sum(1 for line in before.splitlines() if line.startswith("  - "))
    edit(root, EXAMPLE, "state: {g.initiative: orange}", "state: {g.initiative: blue}")
    [result], _errors = run(root, EXAMPLE)
    assert not result.ok and result.failed_at == f"step {n} of {total}: expect"
    assert result.summary == f"(failed at step {n} of {total}: expect)"
    [ok], _ = run(REPO, EXAMPLE)
    assert ok.ok and ok.summary == f"({total} steps)"


def test_a_decision_of_the_wrong_seat_says_what_is_asked(tmp_path: Path) -> None:
    """A script that misses a step (a new question the rules ask) is told who is asked what,
    with the option ids, to write the step it lacks."""
    root = scratch_project(tmp_path)
    edit(
        root,
        EXAMPLE,
        '  - decide: {player: blue, option: "player:blue"}',
        '  - decide: {player: orange, option: "player:blue"}',
    )
    _results, [err] = run(root, EXAMPLE)
    assert err.message == "orange has no decision to make (waiting for blue)"
    assert err.hint is not None and err.hint.startswith("blue is asked ")
    assert err.hint.endswith(": player:blue, player:orange")


def test_a_position_the_state_cannot_hold_is_an_error_at_its_key(tmp_path: Path) -> None:
    root = scratch_project(tmp_path)
    # a card pile is a set: a card is in it once
    edit(root, EXAMPLE, "p.blue.discard: [move_1, strength]", "p.blue.discard: [move_1, move_1]")
    results, errors = run(root, EXAMPLE)
    assert [r.ok for r in results] == [False]
    [err] = errors
    assert err.code == "example" and "not a valid value for 'p.blue.discard'" in err.message
    assert (err.pos.line, err.pos.col) == line_col(root, EXAMPLE, "p.blue.discard")


def test_an_example_kept_anywhere_names_its_game(tmp_path: Path) -> None:
    src = (REPO / "rules" / "westphalia" / "examples" / "n_private_offers.yaml").read_text()
    anywhere = tmp_path / "mine.yaml"
    anywhere.write_text(src.replace("scenario: congress", "scenario: westphalia/congress"))
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [anywhere], sink)
    assert result.ok and not sink.sorted()
    short = tmp_path / "short.yaml"
    short.write_text(src)
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [short], sink)
    [err] = sink.sorted()
    assert not result.ok and "its scenario must name the game" in err.message
    assert err.hint == "write scenario: <game>/congress"


def test_log_is_the_public_log_and_log_of_what_a_seat_reads(tmp_path: Path) -> None:
    """Rules: WEST-1-01"""
    src = (REPO / "rules" / "westphalia" / "examples" / "n_private_offers.yaml").read_text()
    private = "Austria offers: Austria gives Bavaria 2 Units"
    mine = tmp_path / "public.yaml"
    # the terms are private under this reading: the public log does not have them
    mine.write_text(
        src.replace("scenario: congress", "scenario: westphalia/congress").replace(
            "log: [Austria makes an offer to Bavaria]", f'log: ["{private}"]'
        )
    )
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [mine], sink)
    assert not result.ok and f"no log line contains {private!r}" in sink.sorted()[0].message
    # under the literal reading (offers public) the same expectation holds
    mine.write_text(mine.read_text().replace("open_negotiation: false", "open_negotiation: true"))
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [mine], sink)
    assert result.ok, [e.render() for e in sink.sorted()]


SET_UP_ASKS = """\
example: setup_after_questions
scenario: westphalia/congress
seed: 0
setup:
  p.austria.goal: goal_1
steps:
  - expect: {options: {player: austria, ids: [goal:goal_4, goal:goal_5, goal:goal_6]}}
"""


def _run_one(path: Path) -> tuple[bool, list]:
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [path], sink)
    return result.ok, sink.sorted()


def test_setup_is_written_once_set_up_asked_its_questions(tmp_path: Path) -> None:
    """Austria keeps a Goal card in set-up (WEST-2-06); `setup` is written after that."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        SET_UP_ASKS
        + """\
  - decide: {player: austria, option: "goal:goal_5"}
  - expect: {state: {p.austria.goal: goal_1, g.goal_discards: [goal_4, goal_6]}}
"""
    )
    ok, errors = _run_one(mine)
    assert ok, [e.render() for e in errors]


def test_a_set_step_writes_where_the_script_stands(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        SET_UP_ASKS.replace("setup:\n  p.austria.goal: goal_1\n", "")
        + """\
  - set: {g.goal_discards: [goal_1]}
  - decide: {player: austria, option: "goal:goal_5"}
  - expect: {state: {p.austria.goal: goal_5, g.goal_discards: [goal_4, goal_6]}}
  - set: {p.austria.goal: goal_2}
  - expect: {state: {p.austria.goal: goal_2}}
"""
    )
    ok, errors = _run_one(mine)
    assert ok, [e.render() for e in errors]


def test_setup_never_written_is_an_error_at_its_key(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(SET_UP_ASKS)
    ok, [err] = _run_one(mine)
    assert not ok and err.message.startswith("`setup` was never applied")
    assert (err.pos.line, err.pos.col) == (4, 1)
    assert "decide" in err.hint


# -- what must not happen: fixed dice, absent log lines, a seat's view (on the toy game of
# tests/fixtures/games/toy: set-up rolls roll(5) to pick the two cards left in each face-down
# deck; each trick rolls roll(6), odd adding 1 to Red, even to Blue)

TOY = """\
example: secrets_and_dice
scenario: toy/duel
seed: 3
steps:
  - dice: [2, 2]
  - expect:
      state: {p.red.hand: [c1, c4, c5], p.blue.hand: [c1, c4, c5]}
      view: {player: red, state: {p.red.hand: [c1, c4, c5]}, hidden: [p.blue.hand, p.red.deck]}
      log_absent: [You commit]
  - decide: {player: red, option: "card:c5"}
  - decide: {player: blue, option: "card:c4"}
  - expect:
      view: {player: red, state: {p.red.played: [c5]}, hidden: [p.blue.played]}
      log_absent_of: {red: [You commit c4.]}
  - dice: [4]
  - decide: {player: red, option: "no"}
  - expect:
      log: ["The die shows 4: Red 5, Blue 5", The trick is drawn.]
      log_of: {red: [You commit c5.]}
      log_absent: [wins the trick]
      view:
        player: blue
        state: {g.last_die: 4, p.red.discard: [c5], e.marker.m1.strength: 4}
        hidden: [e.marker.m0.strength]
"""


def _toy(tmp_path: Path, text: str) -> tuple[bool, list, Path]:
    path = tmp_path / "secrets_and_dice.yaml"
    path.write_text(text)
    sink = new_sink(ROOT)
    results = run_examples(ROOT, [path], sink)
    return bool(results) and all(r.ok for r in results), sink.sorted(), path


def _at(text: str, needle: str) -> tuple[int, int]:
    i = text.index(needle)
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


def test_fixed_dice_absent_lines_and_a_seats_view(tmp_path: Path) -> None:
    """The set-up's rolls, then a trick's, are fixed; what Red may not see is hidden from it,
    and what did not happen is in no log."""
    ok, errors, _ = _toy(tmp_path, TOY)
    assert ok and not errors, [e.render() for e in errors]


CAN_FAIL = [
    # (what is changed, into what, the error message, where it points)
    ("dice: [4]", "dice: [7]", "has 6 sides: it cannot show 7", "7]"),
    ("dice: [2, 2]", "dice: [2, 6]", "has 5 sides: it cannot show 6", "6]"),
    (
        "dice: [4]",
        "dice: [4, 1]",
        "the roll fixed as 1 was not made by the expect step of line 17 (not rolled: [1])",
        "1]",
    ),
    (
        "[e.marker.m0.strength]\n",
        "[e.marker.m0.strength]\n  - dice: [3]\n",
        "the roll fixed as 3 was not made by the end of the example",
        "3]",
    ),
    ("log_absent: [You commit]", "log_absent: [dealt]", "the public log has a line", "dealt"),
    (
        "log_absent_of: {red: [You commit c4.]}",
        "log_absent_of: {red: [You commit c5.]}",
        "red's log has a line containing 'You commit c5.', expected none: 'You commit c5.'",
        "You commit c5.]",
    ),
    ("g.last_die: 4", "g.last_die: 3", "blue sees g.last_die as 4, expected 3", "3,"),
    (
        "hidden: [e.marker.m0.strength]",
        "hidden: [e.marker.m1.strength]",
        "blue sees e.marker.m1.strength as 4, expected it hidden",
        "e.marker.m1.strength]",
    ),
    (
        "state: {p.red.played: [c5]}",
        "state: {p.blue.played: [c4]}",
        "red does not see p.blue.played (it is hidden), expected ['c4']",
        "[c4]}",
    ),
    (
        "view: {player: red, state: {p.red.played",
        "view: {player: grey, state: {p.red.played",
        "unknown seat 'grey'",
        "grey",
    ),
    (
        "hidden: [p.blue.played]",
        "hidden: [p.blue.plaid]",
        "'p.blue.plaid' is not a declared field",
        "p.blue.plaid",
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "message", "at"), CAN_FAIL, ids=[c[2][:40] for c in CAN_FAIL]
)
def test_each_new_check_can_fail_at_its_place(
    tmp_path: Path, old: str, new: str, message: str, at: str
) -> None:
    text = TOY.replace(old, new)
    assert text != TOY
    ok, [err], path = _toy(tmp_path, text)
    assert not ok and err.code == "example" and message in err.message, err.render()
    assert (err.pos.file, err.pos.line, err.pos.col) == (str(path), *_at(text, at))


def test_the_new_checks_are_in_the_schema(tmp_path: Path) -> None:
    text = TOY.replace("dice: [4]", "dice: [0]").replace(
        "view: {player: red, state: {p.red.played: [c5]}, hidden: [p.blue.played]}",
        "view: {player: red}",
    )
    ok, errors, path = _toy(tmp_path, text)
    assert not ok
    assert [(e.pos.line, e.pos.col, e.message) for e in errors] == [
        (
            *_at(text, "{player: red}"),
            "a view check names the player and what it sees (state) or does not see (hidden)",
        ),
        (
            *_at(text, "0]"),
            "a fixed roll is the whole number a die shows, from 1 up, e.g. dice: [6, 1]",
        ),
    ]


def test_dice_need_an_engine_that_can_fix_rolls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine generated before rolls could be fixed would ignore them: refused, with
    what to do."""
    monkeypatch.delattr(PACKAGE.engine, "_FIXED_ROLLS")
    ok, [err], _ = _toy(tmp_path, TOY)
    assert not ok and err.message == "the engine of 'toy' was generated before rolls could be fixed"
    assert err.hint == "run `rulecraft compile`" and (err.pos.line, err.pos.col) == (5, 5)
