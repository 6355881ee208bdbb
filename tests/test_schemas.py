"""The JSON Schemas of the rules files (schemas/*.schema.json): real rules and bad documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from rulecraft.compiler.diagnostics import DiagnosticSink
from rulecraft.compiler.loader import load_yaml, load_yaml_text
from rulecraft.compiler.schema import SCHEMA_BASE, SchemaStore

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
RULES = ROOT / "rules"
GAME_FILES = {
    "game.yaml": "game",
    "rules.yaml": "rules",
    "cards.yaml": "cards",
    "flow.yaml": "flow",
}
MINE = ["cards", "common", "example", "flow", "game", "rules", "scenario"]


def rules_files() -> list[Any]:
    out = []
    for game in sorted(p for p in RULES.iterdir() if p.is_dir()):
        files = [game / n for n in GAME_FILES if (game / n).exists()]
        files += sorted((game / "scenarios").glob("*.yaml"))
        files += sorted((game / "examples").glob("*.yaml"))
        for f in files:
            out.append(pytest.param(f, id=f.relative_to(RULES).as_posix()))
    return out


def schema_of(path: Path) -> str:
    if path.parent.name == "scenarios":
        return "scenario"
    if path.parent.name == "examples":
        return "example"
    return GAME_FILES[path.name]


@pytest.fixture(scope="module")
def store() -> SchemaStore:
    return SchemaStore(SCHEMAS)


def check(store: SchemaStore, name: str, text: str) -> tuple[bool, list[tuple[int, int, str]]]:
    sink = DiagnosticSink()
    doc = load_yaml_text(text, f"rules/g/{name}.yaml", sink)
    assert doc is not None, sink.render_all()
    ok = store.validate(doc, name, sink)
    return ok, [(d.pos.line, d.pos.col, d.message) for d in sink.sorted() if d.pos]


# -- the schemas themselves


@pytest.mark.parametrize("path", sorted(SCHEMAS.glob("*.schema.json")), ids=lambda p: p.name)
def test_schema_is_valid_draft_2020_12(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == SCHEMA_BASE + path.name


def _walk(node: Any, path: str, problems: list[str]) -> None:
    if isinstance(node, dict):
        for key, sub in (node.get("properties") or {}).items():
            if not isinstance(sub.get("description"), str) or not sub["description"].strip():
                problems.append(f"{path}/properties/{key}: no description")
        if "properties" in node and not (
            node.get("additionalProperties") is not None or "unevaluatedProperties" in node
        ):
            problems.append(f"{path}: unknown keys are not reported")
        for key, sub in node.items():
            _walk(sub, f"{path}/{key}", problems)
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            _walk(sub, f"{path}/{i}", problems)


@pytest.mark.parametrize("name", MINE)
def test_every_property_is_described_and_closed(name: str) -> None:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    problems: list[str] = []
    _walk(schema, "#", problems)
    assert isinstance(schema.get("title"), str) and isinstance(schema.get("description"), str)
    problems += [
        f"#/$defs/{k}: no title" for k, v in schema.get("$defs", {}).items() if "title" not in v
    ]
    assert not problems, "\n".join(problems)


def test_store_loads_every_schema(store: SchemaStore) -> None:
    assert set(MINE) <= set(store.names())


def test_vscode_settings_map_every_rules_file() -> None:
    settings = json.loads((ROOT / ".vscode" / "settings.json").read_text(encoding="utf-8"))
    mapping = settings["yaml.schemas"]
    for name in MINE:
        if name != "common":
            assert f"./schemas/{name}.schema.json" in mapping
    for schema_path in mapping:
        assert (ROOT / schema_path).exists()


# -- the real rules files


@pytest.mark.parametrize("path", rules_files())
def test_real_rules_file_validates(store: SchemaStore, path: Path) -> None:
    sink = DiagnosticSink()
    doc = load_yaml(path, path.relative_to(ROOT).as_posix(), sink)
    assert doc is not None, sink.render_all()
    assert store.validate(doc, schema_of(path), sink), sink.render_all()


def test_tables_only_game_needs_only_its_name(store: SchemaStore) -> None:
    assert check(store, "game", "game: marlborough\n") == (True, [])


EXAMPLE = """\
example: attack_tie
title: Equal totals destroy every army
doc: Both players attack in the neutral country with equal strength.
rules: [MOP-COMBAT-06]
scenario: thirty_years_war
seed: 7
setup:
  p.blue.strength: 2
  e.country.neutral.vp_die: 1
  e.army.blue_2.location: neutral
  g.initiative: orange
steps:
  - expect:
      pending: [blue, orange]
      options: {player: blue, ids: ['card:move_1', 'card:attack', 'yes', 'no', 'none']}
  - decide: {player: blue, option: 'card:attack'}
  - decide: {player: orange, option: 'country:neutral'}
  - expect:
      state: {p.blue.vp: 0, e.army.blue_2.location: none, g.vp_stock: 35}
      log: ["The totals are equal: all armies in Neutral are destroyed"]
  - expect:
      pending: []
      result: {winners: [blue, orange], tie: true}
"""


def test_example_of_play_validates(store: SchemaStore) -> None:
    assert check(store, "example", EXAMPLE) == (True, [])


# -- bad documents: rejected at the offending key


def test_misspelt_key(store: SchemaStore) -> None:
    assert check(store, "game", "game: g\ntitel: G\n") == (
        False,
        [(2, 1, "unknown key 'titel' at the top level (did you mean 'title'?)")],
    )


def test_misspelt_key_in_a_function(store: SchemaStore) -> None:
    ok, found = check(store, "rules", "functions:\n  f:\n    returns: int\n    bdoy: return 1\n")
    assert not ok
    assert (4, 5, "unknown key 'bdoy' in functions.f (did you mean 'body'?)") in found


def test_missing_effect(store: SchemaStore) -> None:
    text = "cards:\n  move_1:\n    name: MOVE 1\n    group: move\n"
    assert check(store, "cards", text) == (
        False,
        [(3, 5, "missing required key 'effect' in cards.move_1")],
    )


def test_card_attribute_values_are_scalars(store: SchemaStore) -> None:
    ok, found = check(store, "cards", "cards:\n  a:\n    effect: x\n    group: {x: 1}\n")
    assert not ok and found[0][:2] == (4, 12)


@pytest.mark.parametrize(
    ("name", "text", "line", "col"),
    [
        ("cards", "cards:\n  Move_1:\n    effect: x\n", 2, 3),
        ("rules", "procedures:\n  gainVP:\n    body: x\n", 2, 3),
        ("game", "game: g\nstate:\n  player:\n    Hand: {type: cards}\n", 4, 5),
        ("game", "game: March_of_progress\n", 1, 7),
        ("game", "game: g\nenums:\n  kind: [home, Neutral]\n", 3, 16),
        ("scenario", "scenario: s\nseats:\n  Blue: {name: Blue}\n", 3, 3),
        ("flow", "turn:\n  pick__card:\n    do: x\n", 2, 3),
    ],
    ids=["card-id", "procedure", "field", "game-id", "enum-value", "seat", "double-underscore"],
)
def test_name_with_a_capital_or_bad_underscores(
    store: SchemaStore, name: str, text: str, line: int, col: int
) -> None:
    ok, found = check(store, name, text)
    assert not ok
    assert [(ln, c) for ln, c, _ in found] == [(line, col)]
    assert "does not have the expected form" in found[0][2]


def test_visible_maybe(store: SchemaStore) -> None:
    text = "game: g\nstate:\n  player:\n    hand: {type: cards, visible: maybe}\n"
    assert check(store, "game", text) == (
        False,
        [(4, 34, "'maybe' is not one of: 'all', 'owner', 'none'")],
    )


def test_title_must_be_text(store: SchemaStore) -> None:
    ok, found = check(store, "game", "game: g\ntitle: 1914\n")
    assert (ok, found) == (False, [(2, 8, "expected a string here, got the number 1914")])


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "rules",
            "procedures:\n  gain:\n    returns: int\n    body: x\n",
            (3, 5, "unknown key 'returns' in procedures.gain"),
        ),
        (
            "rules",
            "functions:\n  f:\n    body: return 1\n",
            (3, 5, "missing required key 'returns' in functions.f"),
        ),
        (
            "rules",
            "constants:\n  c: {value: 1.5}\n",
            (2, 14, "expected a string, a whole number or true or false here, got the number 1.5"),
        ),
        ("flow", "turn:\n  pick:\n    doc: x\n", (3, 5, "missing required key 'do' in turn.pick")),
        (
            "flow",
            "procedures:\n  p:\n    boddy: x\n",
            (3, 5, "unknown key 'boddy' in procedures.p (did you mean 'body'?)"),
        ),
        (
            "game",
            "game: g\nenums:\n  kind: {doc: x, valuez: [a]}\n",
            (3, 18, "unknown key 'valuez' in enums.kind (did you mean 'values'?)"),
        ),
        (
            "game",
            "game: g\nchoices:\n  c: {doc: x}\n",
            (3, 6, "missing required key 'value' in choices.c"),
        ),
        (
            "game",
            "game: g\nstate:\n  entities:\n    army: {plurl: armies}\n",
            (4, 12, "unknown key 'plurl' in state.entities.army (did you mean 'plural'?)"),
        ),
        (
            "game",
            "game: g\nstate:\n  globals:\n    x: {type: int, max: 2.5}\n",
            (4, 25, "expected a whole number or a string here, got the number 2.5"),
        ),
        (
            "game",
            "game: g\nstate:\n  globals:\n    x: {doc: no type}\n",
            (4, 8, "missing required key 'type' in state.globals.x"),
        ),
        (
            "scenario",
            "scenario: s\nseats: {blue: {name: Blue}}\nentities:\n  army:\n    per_seat: 3\n"
            "    valeus: {}\n",
            (6, 5, "unknown key 'valeus' in entities.army (did you mean 'values'?)"),
        ),
        (
            "scenario",
            "scenario: s\nseats: {blue: {name: Blue}}\nconstants:\n  v: {value: 3, dco: x}\n",
            (4, 17, "unknown key 'dco' in constants.v (did you mean 'doc'?)"),
        ),
        ("scenario", "scenario: s\nseats: {}\n", (2, 8, "seats needs at least 1 key")),
        (
            "example",
            "example: e\nscenario: s\nsteps:\n  - decide: {player: blue, option: 'card:x'}\n"
            "    expect: {pending: []}\n",
            (
                4,
                5,
                "a step is one of decide, refuse, set, dice or expect, not two: write them as "
                "separate steps (- decide: ... then - expect: ...)",
            ),
        ),
        (
            "example",
            "example: e\nscenario: s\nsetup: {p.blue: 3}\nsteps:\n  - expect: {pending: []}\n",
            (
                3,
                9,
                "a state path is g.<global>, p.<seat>.<field> or e.<type>.<record>.<field>, "
                "e.g. p.blue.strength",
            ),
        ),
        (
            "example",
            "example: e\nscenario: s\nsteps:\n  - expect: {reslt: {winners: [blue]}}\n",
            (4, 14, "unknown key 'reslt' in steps[0].expect (did you mean 'result'?)"),
        ),
    ],
)
def test_bad_document(
    store: SchemaStore, name: str, text: str, expected: tuple[int, int, str]
) -> None:
    ok, found = check(store, name, text)
    assert not ok
    assert expected in found, found  # a misspelt required key is also reported as missing
