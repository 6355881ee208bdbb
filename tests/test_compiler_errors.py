"""Every kind of error a designer can make in the effect language, with its message and place.

Each test breaks one thing in a scratch copy of The March of Progress and checks the
diagnostic's code, file, line and column: the place is inside the YAML file, also inside
block, quoted and folded strings.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from compile_helpers import (
    compile_errors,
    compile_into,
    edit,
    import_generated,
    line_col,
    scratch_project,
)
from rulecraft.compiler.cli import main
from rulecraft.compiler.limits import MAX_BLOCK_DEPTH, MAX_EXPR_DEPTH, MAX_NUMBER_DIGITS
from rulecraft.runtime import Game

CARDS = "rules/march_of_progress/cards.yaml"
RULES = "rules/march_of_progress/rules.yaml"
SCENARIO = "rules/march_of_progress/scenarios/thirty_years_war.yaml"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return scratch_project(tmp_path)


def only_error(root: Path):
    errors = compile_errors(root)
    assert len(errors) == 1, "\n".join(d.render() for d in errors)
    return errors[0]


def test_syntax_error_in_block_string_missing_colon(root: Path) -> None:
    edit(
        root,
        "cards.yaml",
        'if count(mine) == 0:\n          log "{me} has no army in play: MOVE 1',
        'if count(mine) == 0\n          log "{me} has no army in play: MOVE 1',
    )
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", "if count(mine) == 0\n")
    assert (d.code, d.pos.file, d.pos.line) == ("syntax", CARDS, line)
    assert d.pos.col == col + len("if count(mine) == 0")
    assert "missing ':'" in d.message
    assert "card 'move_1'" in d.message


def test_syntax_error_inside_double_quoted_string(root: Path) -> None:
    edit(
        root, "cards.yaml", "playable: count(me.discard) > 0", 'playable: "count(me.discard) >> 0"'
    )
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", '>> 0"')
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("syntax", CARDS, line, col + 1)


def test_syntax_error_inside_folded_string(root: Path) -> None:
    edit(
        root,
        "cards.yaml",
        "playable: count(me.discard) > 0",
        "playable: >-\n      count(me.discard)\n      > 0 and (true",
    )
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", "(true")
    assert (d.code, d.pos.line, d.pos.col) == ("syntax", line, col)
    assert "unclosed parenthesis" in d.message


def test_unknown_name_with_suggestion(root: Path) -> None:
    edit(root, "cards.yaml", ">= army_limit:", ">= army_limt:")
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", "army_limt")
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("unknown-name", CARDS, line, col)
    assert d.message == "unknown name 'army_limt'"
    assert d.hint == "did you mean 'army_limit'?"


def test_unknown_field(root: Path) -> None:
    edit(root, "cards.yaml", "me.strength += 1", "me.strenght += 1")
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", "strenght")
    assert (d.code, d.pos.line, d.pos.col) == ("unknown-name", line, col)
    assert d.message == "player has no field 'strenght'"


def test_wrong_type(root: Path) -> None:
    edit(root, "cards.yaml", "c.vp_die -= 1", "c.vp_die -= true")
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", "-= true")
    assert (d.code, d.pos.line, d.pos.col) == ("type", line, col + 3)
    assert d.message == "the value of -= must be an int, not a bool"


def test_wrong_number_of_arguments(root: Path) -> None:
    edit(root, "cards.yaml", "elif not controls(me, me.home):", "elif not controls(me):")
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", "controls(me):")
    assert (d.code, d.pos.line, d.pos.col) == ("arity", line, col)
    assert d.message == "controls() takes 2 arguments, not 1"


def test_undefined_card_in_scenario(root: Path) -> None:
    edit(root, "scenarios/thirty_years_war.yaml", "hand: [move_1,", "hand: [moove_1,")
    d = only_error(root)
    line, col = line_col(root, "scenarios/thirty_years_war.yaml", "moove_1")
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("unknown-name", SCENARIO, line, col)
    assert "undefined card 'moove_1'" in d.message
    assert d.hint == "did you mean 'move_1'?"


def test_unknown_enum_value(root: Path) -> None:
    edit(root, "rules.yaml", 'c.group != "score"', 'c.group != "scor"')
    d = only_error(root)
    line, col = line_col(root, "rules.yaml", '"scor"')
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("unknown-name", RULES, line, col)
    assert d.message == "'scor' is not a value of action_group"


def test_decision_inside_an_expression(root: Path) -> None:
    edit(root, "rules.yaml", "if stand:", 'if stand and choose_yes_no(me, "Really?"):')
    d = only_error(root)
    line, col = line_col(root, "rules.yaml", 'choose_yes_no(me, "Really')
    assert (d.code, d.pos.line, d.pos.col) == ("decision", line, col)
    assert "call it on its own line" in d.message


def test_function_with_a_side_effect(root: Path) -> None:
    edit(
        root,
        "rules.yaml",
        "          return c.garrison\n      return 0\n",
        "          return c.garrison\n      vp_stock = 0\n      return 0\n",
    )
    d = only_error(root)
    line, col = line_col(root, "rules.yaml", "vp_stock = 0")
    assert (d.code, d.pos.line, d.pos.col) == ("side-effect", line, col)


def test_unknown_type_in_parameters(root: Path) -> None:
    edit(
        root,
        "rules.yaml",
        "params: {p: player, c: country}\n    returns: bool\n    body: |\n      if c.kind",
        "params: {p: player, c: contry}\n    returns: bool\n    body: |\n      if c.kind",
    )
    errors = compile_errors(root)
    assert errors[0].code == "unknown-name"
    assert errors[0].message == "unknown type 'contry'"
    line, col = line_col(root, "rules.yaml", "contry")
    assert (errors[0].pos.line, errors[0].pos.col) == (line, col)


def test_all_errors_of_a_run_are_reported_together(root: Path) -> None:
    edit(root, "cards.yaml", ">= army_limit:", ">= army_limt:")
    edit(root, "rules.yaml", 'c.group != "score"', 'c.group != "scor"')
    edit(root, "scenarios/thirty_years_war.yaml", "vp_stock: 35", "vp_stok: 35")
    errors = compile_errors(root)
    assert [d.pos.file for d in errors] == [CARDS, RULES, SCENARIO]


def test_cli_reports_with_caret_exit_1_and_leaves_generated_alone(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    engine = root / "generated" / "march_of_progress" / "thirty_years_war.py"
    before = engine.read_bytes()
    mtime = os.stat(engine).st_mtime_ns
    edit(root, "cards.yaml", "me.strength += 1", "me.strenght += 1")
    edit(root, "cards.yaml", "group: fortify", "group: fortify\n    group: attack")
    capsys.readouterr()
    assert main(["compile"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{CARDS}:" in err and ": error: duplicate key 'group'" in err
    line, col = line_col(root, "cards.yaml", "strenght")
    assert f"{CARDS}:{line}:{col}: error: player has no field 'strenght'" in err
    assert f"{line:>5} |       me.strenght += 1\n" in err
    assert "\n      |          ^\n" in err
    assert err.rstrip().endswith("2 errors")
    assert engine.read_bytes() == before and os.stat(engine).st_mtime_ns == mtime


@pytest.mark.parametrize(
    ("old", "new", "code", "needle"),
    [
        ("vp_stock: 35", "vp_stock: 035", "yaml11-trap", "035"),
        ('title: "Introduction', 'titel: "Introduction', "schema", "titel"),
        ("per_seat: 3", "per_seat: [3", "yaml-syntax", None),
    ],
)
def test_bad_yaml_in_scenario(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    code: str,
    needle: str | None,
) -> None:
    edit(root, "scenarios/thirty_years_war.yaml", old, new)
    errors = compile_errors(root)
    assert errors and errors[0].code == code, [d.render() for d in errors]
    assert errors[0].pos.file == SCENARIO
    if needle is not None:
        line, col = line_col(root, "scenarios/thirty_years_war.yaml", needle)
        assert (errors[0].pos.line, errors[0].pos.col) == (line, col)
    monkeypatch.chdir(root)
    assert main(["check"]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_file_that_is_not_utf8(root: Path) -> None:
    path = root / "rules" / "march_of_progress" / "cards.yaml"
    data = path.read_bytes().replace(b"MOVE 1", b"MOVE \xe91", 1)
    path.write_bytes(data)
    d = compile_errors(root)[0]
    assert d.code == "not-utf8"
    assert d.pos.file == CARDS


@pytest.mark.parametrize(
    ("new", "message"),
    [
        ('lookup("aom_neutral_vpp", r)', "unknown table 'aom_neutral_vpp'"),
        ('lookup("aom_play_aid", r)', "lookup() of list table 'aom_play_aid' takes 2 keys"),
    ],
)
def test_lookup_of_a_table_that_does_not_fit(root: Path, new: str, message: str) -> None:
    edit(root, "scenarios/age_of_marlborough.yaml", 'lookup("aom_neutral_vp", r).value', new)
    d = only_error(root)
    line, col = line_col(root, "scenarios/age_of_marlborough.yaml", new.split("(")[1])
    assert d.message.startswith(message)
    assert (d.pos.file, d.pos.line, d.pos.col) == (
        "rules/march_of_progress/scenarios/age_of_marlborough.yaml",
        line,
        col,
    )


# -- bad effect code is a positioned error, never a traceback (docs/errors.md, "Limits")


def add_function(root: Path, body: str, returns: str = "int") -> None:
    """Add a function ``zz_test(p: player)`` with ``body`` at the top of rules.yaml."""
    lines = "".join(f"      {line}\n" if line else "\n" for line in body.split("\n"))
    edit(
        root,
        "rules.yaml",
        "functions:\n",
        f"functions:\n  zz_test:\n    params: {{p: player}}\n    returns: {returns}\n"
        f"    body: |\n{lines}\n",
    )


def test_dedent_to_a_column_no_block_started_at(root: Path) -> None:
    add_function(root, "if p.vp > 0:\n        return 1\n    return 2\nreturn 0")
    d = only_error(root)
    line, col = line_col(root, "rules.yaml", "return 2")
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("syntax", RULES, line, col)
    assert d.message == (
        "the indentation of this line matches no block above it in function 'zz_test'"
    )
    assert d.hint == "indent it exactly as far as the other lines of its block"


def test_comment_lines_may_be_indented_anyhow(root: Path) -> None:
    add_function(root, "if p.vp > 0:\n    return 1\n  # a note\n        # another\nreturn 0")
    assert compile_errors(root) == []


def test_blocks_nested_over_the_limit(root: Path) -> None:
    body = "".join("    " * i + f"if p.vp > {i}:\n" for i in range(MAX_BLOCK_DEPTH + 1))
    add_function(root, body + "    " * (MAX_BLOCK_DEPTH + 1) + "return 1\nreturn 0")
    d = only_error(root)
    # the first line inside one block more than the limit
    line, col = line_col(root, "rules.yaml", f"if p.vp > {MAX_BLOCK_DEPTH}:")
    assert (d.code, d.pos.line, d.pos.col) == ("limit", line + 1, col + 4)
    assert d.message.startswith(f"blocks nested more than {MAX_BLOCK_DEPTH} deep")


@pytest.mark.parametrize(
    ("expr", "returns", "needle"),
    [
        ("not " * 240 + "true", "bool", "not " * (240 - MAX_EXPR_DEPTH) + "true"),
        ("count(" + "[" * 160 + "]" * 160 + ")", "int", "[" * (161 - MAX_EXPR_DEPTH) + "]"),
        ("1" + " + 1" * 240, "int", "1 + 1"),
        ("min(1, " * 100 + "1" + ")" * 100, "int", "min(1, " * (100 - MAX_EXPR_DEPTH) + "1)"),
    ],
    ids=["not", "lists", "sum", "calls"],
)
def test_expression_nested_over_the_limit(root: Path, expr: str, returns: str, needle: str) -> None:
    add_function(root, f"return {expr}", returns)
    d = only_error(root)
    line, col = line_col(root, "rules.yaml", needle)
    assert (d.code, d.pos.line, d.pos.col) == ("limit", line, col)
    assert d.message.startswith(f"an expression nested more than {MAX_EXPR_DEPTH} levels deep")


def test_number_over_the_limit_in_effect_code(root: Path) -> None:
    add_function(root, "return " + "9" * 5000)
    d = only_error(root)
    line, col = line_col(root, "rules.yaml", "9999")
    assert (d.code, d.pos.line, d.pos.col) == ("limit", line, col)
    assert d.message.startswith(
        f"a number of 5000 digits; numbers have at most {MAX_NUMBER_DIGITS}"
    )


def test_case_with_values_over_the_limit(root: Path) -> None:
    values = ", ".join(str(i) for i in range(200))
    add_function(root, f"match p.vp:\n    case {values}:\n        return 1\nreturn 0")
    d = only_error(root)
    line, col = line_col(root, "rules.yaml", f" {MAX_EXPR_DEPTH}, ")
    assert (d.code, d.pos.line, d.pos.col) == ("limit", line, col + 1)


def test_code_at_every_limit_compiles_and_runs(tmp_path: Path) -> None:
    """Everything under the limits goes through every stage: the checker, the generator, ruff
    and Python recurse on the nesting too."""
    root = scratch_project(tmp_path)
    # `+`, 62 calls and `.vp`: 64 levels
    deep = "min(1, " * (MAX_EXPR_DEPTH - 2) + "p.vp" + ")" * (MAX_EXPR_DEPTH - 2)
    body = "".join("    " * i + f"for q{i} in players:\n" for i in range(MAX_BLOCK_DEPTH))
    body += "    " * MAX_BLOCK_DEPTH + f"return {deep} + {'9' * MAX_NUMBER_DIGITS}\nreturn 0"
    add_function(root, body)
    edit(
        root,
        "rules.yaml",
        "functions:\n",
        "functions:\n  zz_not:\n    params: {}\n"
        f"    returns: bool\n    body: return {'not ' * MAX_EXPR_DEPTH}true\n",
    )
    compile_into(root)
    spec = import_generated(root, "march_of_progress").SPEC
    game = Game.new(spec, None, 1)
    engine = spec.engine
    assert engine.f_zz_test(game.raw, engine.all_player[0]) == 10**MAX_NUMBER_DIGITS - 1
    assert engine.f_zz_not(game.raw) is True


def test_a_compiler_failure_is_one_line_at_the_cli_not_a_traceback(
    root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last resort, for a bug in the compiler: the stages report the designer's mistakes."""
    from rulecraft.compiler import project
    from rulecraft.compiler.codegen import CodegenError

    def broken(*args: object, **kwargs: object) -> None:
        raise CodegenError("generated code does not parse")

    monkeypatch.setattr(project, "generate_game", broken)
    monkeypatch.chdir(root)
    assert main(["compile"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith("rulecraft: error: the compiler failed on these rules (CodegenError: ")
    assert "a bug in rulecraft, not in the rules" in err


# -- what would fail at run time is caught at compile time


@pytest.mark.parametrize(
    "body",
    [
        "if p.vp > 0:\n    return 1",
        "if p.vp > 0:\n    return 1\nelif p.vp < 0:\n    return 2",
        "for q in players:\n    return 1",
        "while true:\n    if p.vp > 0:\n        break\n    return 1",
        "match p.vp:\n    case 1:\n        return 1\n    case 2:\n        return 2",
        "if p.vp > 0:\n    pass\nelse:\n    return 1",
    ],
    ids=["if", "elif", "for", "while-break", "match", "if-pass"],
)
def test_function_that_can_end_without_a_return(root: Path, body: str) -> None:
    add_function(root, body)
    d = only_error(root)
    # at the last statement of the body, the one that can go on past the end
    line, col = line_col(root, "rules.yaml", body.split("\n")[0])
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("missing-return", RULES, line, col)
    assert d.message == (
        "function 'zz_test' must return an int, but can reach its end without a return"
    )
    assert d.hint.startswith("end every path with `return ...`")


@pytest.mark.parametrize(
    "body",
    [
        "if p.vp > 0:\n    return 1\nelse:\n    return 2",
        "if p.vp > 0:\n    return 1\nreturn 2",
        "while true:\n    for q in players:\n        break\n    return 1",
        "match p.vp:\n    case 1:\n        return 1\n    else:\n        return 2",
    ],
    ids=["if-else", "return-after", "while-true", "match-else"],
)
def test_function_that_returns_on_every_path(root: Path, body: str) -> None:
    add_function(root, body)
    assert compile_errors(root) == []


MOVE_2_SECOND = "          if b != none:\n              group = [a, b]\n"


def test_field_of_an_optional_answer_read_without_a_test(root: Path) -> None:
    edit(root, "cards.yaml", MOVE_2_SECOND, '          log "{b.location}"\n' + MOVE_2_SECOND)
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", "b.location}")
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("maybe-none", CARDS, line, col)
    assert d.message == "b may be none here: reading its 'location' fails when it is"
    assert d.hint == "test it first: `if b != none:` (or return early when it is none)"


@pytest.mark.parametrize(
    "new",
    [
        '          if b != none:\n              log "{b.location}"\n',
        '          if b == none:\n              return\n          log "{b.location}"\n',
        "          let where = b.location if b != none else a.location\n",
        "          let same = b != none and b.location == start\n",
        "          let n = count([x for x in mine if b == none or x.location != b.location])\n",
    ],
    ids=["if", "early-return", "ternary", "and", "comprehension-or"],
)
def test_field_of_an_optional_answer_read_after_a_test(root: Path, new: str) -> None:
    edit(root, "cards.yaml", MOVE_2_SECOND, new + MOVE_2_SECOND)
    assert compile_errors(root) == []


GAME = "rules/march_of_progress/game.yaml"


@pytest.mark.parametrize(
    ("body", "needle", "what", "field"),
    [
        (
            "let a = first(armies)\nreturn a.location.garrison",
            "a.location.garrison",
            "a.location",
            "garrison",
        ),
        ("return p.home.owner.vp", "p.home.owner.vp", "p.home.owner", "vp"),
        ("let c = first(armies).location\nreturn c.garrison", "c.garrison", "c", "garrison"),
    ],
    ids=["field", "attribute", "local-from-field"],
)
def test_field_of_an_optional_field_read_without_a_test(
    root: Path, body: str, needle: str, what: str, field: str
) -> None:
    """An army's `location` and a country's `owner` are `optional: true`: none is a value."""
    add_function(root, body)
    d = only_error(root)
    line, col = line_col(root, "rules.yaml", needle)
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("maybe-none", RULES, line, col)
    assert d.message == f"{what} may be none here: reading its {field!r} fails when it is"
    assert d.hint == f"test it first: `if {what} != none:` (or return early when it is none)"


@pytest.mark.parametrize(
    "body",
    [
        "let a = first(armies)\nif a.location != none:\n    return a.location.garrison\nreturn 0",
        "let a = first(armies)\nif a.location == none:\n    return 0\nreturn a.location.garrison",
        "let a = first(armies)\nreturn a.location.garrison if a.location != none else 0",
        "return count([a for a in armies if a.location != none and a.location.garrison > 0])",
        "return count([a for a in armies if a.location == none or a.location.garrison > 0])",
        "let a = first(armies)\nif not (a.location == none):\n    return a.location.garrison\n"
        "return 0",
        "let a = first(armies)\nif a.location == p.home:\n    return a.location.garrison\nreturn 0",
        "let a = first(armies)\nif a.location in p.home.adjacent:\n"
        "    return a.location.garrison\nreturn 0",
        "let a = first(armies)\nwhile a.location != none:\n    return a.location.garrison\n"
        "return 0",
        "for a in armies:\n    if a.location == none:\n        break\n"
        "    return a.location.garrison\nreturn 0",
        "let c = first(armies).location\nif c != none:\n    return c.garrison\nreturn 0",
        "let o = p.home.owner\nreturn o.vp if o != none else 0",
    ],
    ids=[
        "if",
        "early-return",
        "ternary",
        "and",
        "or",
        "not",
        "equal",
        "in",
        "while",
        "break",
        "local",
        "attribute",
    ],
)
def test_field_of_an_optional_field_read_after_a_test(root: Path, body: str) -> None:
    add_function(root, body)
    assert compile_errors(root) == []


MOVE_1_GUARD = (
    "      if a.location == none:  # never: an army in play has a location\n          return\n"
)


@pytest.mark.parametrize(
    "change",
    [
        "      a.location = none\n",
        "      move_army(a, first(me.home.adjacent))\n",
        "      play(first(me.hand), me)\n",
    ],
    ids=["assignment", "procedure", "builtin"],
)
def test_a_change_of_the_field_undoes_its_test(root: Path, change: str) -> None:
    edit(root, "cards.yaml", MOVE_1_GUARD, MOVE_1_GUARD + change)
    d = only_error(root)
    line, col = line_col(root, "cards.yaml", "a.location.adjacent")
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("maybe-none", CARDS, line, col)


@pytest.mark.parametrize(
    ("rel", "old", "new", "needle"),
    [
        (
            "game.yaml",
            'label: "{owner} army {number}"',
            'label: "{owner} army {number} in {location.name}"',
            "location.name",
        ),
        (
            "cards.yaml",
            "playable: count(me.discard) > 0",
            "playable: count(me.discard) > 0 and me.home.owner.vp >= 0",
            "me.home.owner.vp",
        ),
    ],
    ids=["label", "playable"],
)
def test_labels_and_playable_conditions_test_optional_fields_too(
    root: Path, rel: str, old: str, new: str, needle: str
) -> None:
    edit(root, rel, old, new)
    d = only_error(root)
    line, col = line_col(root, rel, needle)
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == (
        "maybe-none",
        f"rules/march_of_progress/{rel}",
        line,
        col,
    )


#: the tests the bundled games write before reading a field of an optional field, and the
#: read each one guards
BUNDLED_GUARDS = [
    ("march_of_progress", "cards.yaml", MOVE_1_GUARD, "", "a.location.adjacent"),
    (
        "march_of_progress",
        "cards.yaml",
        "      if start == none:  # never: an army in play has a location\n          return\n",
        "",
        "start.adjacent",
    ),
    (
        "march_of_progress",
        "scenarios/ww2_in_the_west.yaml",
        "        if a.location == none:  # never: an army in play has a location\n"
        "            return\n",
        "",
        "a.location.adjacent",
    ),
    (
        "march_of_progress",
        "scenarios/ww2_in_the_west.yaml",
        "        if start == none:  # never: an army in play has a location\n            return\n",
        "",
        "start.adjacent",
    ),
    (
        "third_reich_diplomacy",
        "rules.yaml",
        "if britain.shared_pick != none and britain.shared_pick == usa.shared_pick:",
        "if britain.shared_pick == usa.shared_pick:",
        "taker.dps += s",
    ),
    (
        "westphalia",
        "rules.yaml",
        "(x.location.adjacent if x.location != none else [])",
        "x.location.adjacent",
        "x.location.adjacent if a.theater",
    ),
    (
        "westphalia",
        "rules.yaml",
        "      if x.location == none:  # never: an army in battle is on the map\n"
        "          return []\n",
        "",
        "x.location.adjacent if a in safe",
    ),
]


@pytest.mark.parametrize(
    ("game", "rel", "guarded", "unguarded", "needle"),
    BUNDLED_GUARDS,
    ids=[f"{g}:{rel}:{n.split()[0]}" for g, rel, _o, _n, n in BUNDLED_GUARDS],
)
def test_the_bundled_games_test_optional_fields_they_read_through(
    tmp_path: Path, game: str, rel: str, guarded: str, unguarded: str, needle: str
) -> None:
    """Each game compiles as it is (tests/test_cli.py's `rulecraft check`); without one of
    its tests the read it guards is refused, at its place, and that is the only error (so the
    rest of the copy compiles clean: no compile of the untouched copy is needed first)."""
    root = scratch_project(tmp_path, game)
    edit(root, rel, guarded, unguarded, game=game)
    errors = compile_errors(root)
    line, col = line_col(root, rel, needle, game=game)
    assert [(d.code, d.pos.file, d.pos.line, d.pos.col) for d in errors] == [
        ("maybe-none", f"rules/{game}/{rel}", line, col)
    ], [d.render() for d in errors]


# -- every error of a run at once, examples included


def test_a_syntax_error_hides_no_name_or_type_error_elsewhere(root: Path) -> None:
    edit(root, "cards.yaml", "me.strength += 1", "me.strength += += 1")
    edit(root, "rules.yaml", "if q != p])", "if q != p]]")  # a function that returns a player
    edit(root, "rules.yaml", 'c.group != "score"', 'c.group != "scor"')
    edit(root, "cards.yaml", ">= army_limit:", ">= army_limt:")
    errors = compile_errors(root)
    assert [(d.code, d.pos.file) for d in errors] == [
        ("unknown-name", CARDS),
        ("syntax", CARDS),
        ("syntax", RULES),
        ("unknown-name", RULES),
    ], [d.render() for d in errors]


EXAMPLE = "rules/march_of_progress/examples/example_of_play.yaml"


@pytest.mark.parametrize(
    ("old", "new", "code", "needle"),
    [
        ("scenario: ", "scenari: ", "schema", "scenari:"),
        ("scenario: thirty_years_war", "scenario: thirty_year_war", "example", "thirty_year_war"),
        ("scenario: thirty_years_war", "scenario: westphalia/congress", "example", "westphalia"),
    ],
    ids=["schema", "unknown-scenario", "other-game"],
)
def test_check_reads_the_examples(
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    code: str,
    needle: str,
) -> None:
    path = root / EXAMPLE
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    errors = compile_errors(root)
    assert errors and {d.pos.file for d in errors} == {EXAMPLE}, [d.render() for d in errors]
    line, col = line_col(root, "examples/example_of_play.yaml", needle)
    assert (errors[-1].code, errors[-1].pos.line, errors[-1].pos.col) == (code, line, col)
    monkeypatch.chdir(root)
    assert main(["check"]) == 1
    err = capsys.readouterr().err
    assert f"{EXAMPLE}:{line}:{col}: error:" in err and "Traceback" not in err


def test_dice_over_the_limit_are_an_error_not_an_endless_computation(root: Path) -> None:
    # the exact distribution of 900d600 took longer than anyone waits
    edit(root, "tables/play_aids.yaml", "dice: 1d6", "dice: 900d600")
    errors = compile_errors(root)
    d = next(d for d in errors if d.code == "table-dice")
    line, col = line_col(root, "tables/play_aids.yaml", "900d600")
    assert (d.pos.file, d.pos.line, d.pos.col) == (
        "rules/march_of_progress/tables/play_aids.yaml",
        line,
        col,
    )
    assert d.message == "dice '900d600': at most 10 dice of at most 100 sides"


def test_records_per_seat_over_the_limit(root: Path) -> None:
    # 30 million armies a seat never finished building
    edit(root, "scenarios/thirty_years_war.yaml", "per_seat: 3", "per_seat: 30000000")
    d = only_error(root)
    line, col = line_col(root, "scenarios/thirty_years_war.yaml", "30000000")
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == ("schema", SCENARIO, line, col)
    assert d.message == "per_seat must be at most 1000, got 30000000"


def test_a_broken_scenario_file_hides_no_error_of_the_other_files(root: Path) -> None:
    edit(root, "scenarios/vive_lempereur.yaml", "base: thirty_years_war", "base: [thirty_years_war")
    edit(root, "cards.yaml", ">= army_limit:", ">= army_limt:")
    errors = compile_errors(root)
    assert [(d.code, d.pos.file) for d in errors] == [
        ("unknown-name", CARDS),
        ("yaml-syntax", "rules/march_of_progress/scenarios/vive_lempereur.yaml"),
    ], [d.render() for d in errors]


def test_a_schema_error_hides_no_name_or_type_error_elsewhere_in_its_file(root: Path) -> None:
    """Two mistakes in one file, one caught by its schema: both are reported in one run (the
    key the schema refuses is left out, the rest of the file is checked)."""
    edit(
        root,
        "cards.yaml",
        "rules: [MOP-MOVE-01, MOP-MOVE-04, MOP-MOVE-05, MOP-MOVE-06]",
        "rules: 5",
    )
    edit(root, "cards.yaml", "me.strength += 1", "me.strenght += 1")
    errors = compile_errors(root)
    assert [(d.code, d.pos.file) for d in errors] == [
        ("schema", CARDS),
        ("unknown-name", CARDS),
    ], [d.render() for d in errors]
    assert errors[0].message == "expected a list here, got the number 5"


def test_unknown_key_lists_the_valid_keys_with_did_you_mean(root: Path) -> None:
    """A card's misspelt key, and a misspelt key the schema refuses: each names the closest
    valid key and lists them all; neither hides the file's other errors."""
    edit(root, "cards.yaml", "    name: MOVE 2\n", "    name: MOVE 2\n    nmae: MOVE 2\n")
    edit(root, "cards.yaml", "me.strength += 1", "me.strenght += 1")
    text = (root / SCENARIO).read_text()
    (root / SCENARIO).write_text(text.replace("\ntitle: ", "\ntitel: x\ntitle: ", 1))
    errors = compile_errors(root)
    assert [(d.code, d.pos.file) for d in errors] == [
        ("unknown-key", CARDS),
        ("unknown-name", CARDS),
        ("schema", SCENARIO),
    ], [d.render() for d in errors]
    card, _field, scenario = errors
    assert card.message == "card 'move_2': unknown key 'nmae' (did you mean 'name'?)"
    assert card.hint.startswith("valid keys of a card: doc, effect, group, name, playable,")
    assert scenario.message == "unknown key 'titel' at the top level (did you mean 'title'?)"
    assert scenario.hint.startswith("valid keys: assumed, base, cards,") and ", title (" in (
        scenario.hint
    )
