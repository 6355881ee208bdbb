"""The schema stage: every JSON Schema error, at the node it is about, in a designer's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rulecraft.compiler.diagnostics import DiagnosticSink
from rulecraft.compiler.loader import load_yaml_text
from rulecraft.compiler.schema import SchemaStore

SCHEMAS = Path(__file__).parent / "fixtures" / "schemas"


@pytest.fixture(scope="module")
def store() -> SchemaStore:
    return SchemaStore(SCHEMAS)


def check(store: SchemaStore, text: str, name: str = "cards") -> tuple[bool, DiagnosticSink]:
    sink = DiagnosticSink()
    doc = load_yaml_text(text, "rules/g/cards.yaml", sink)
    assert doc is not None, sink.render_all()
    return store.validate(doc, name, sink), sink


def found(sink: DiagnosticSink) -> list[tuple[str, int, int, str]]:
    return [(d.code, d.pos.line, d.pos.col, d.message) for d in sink.sorted() if d.pos]


def test_names(store: SchemaStore) -> None:
    assert store.names() == ["cards", "common"]


def test_valid_document(store: SchemaStore) -> None:
    valid, sink = check(
        store,
        "cards:\n  move_1:\n    name: Move\n    effect: move 1\n    owner: blue\n"
        "    target: {area: north, count: 2}\nodds: '1:2'\n",
    )
    assert valid and not sink.diagnostics


def test_unknown_key_with_suggestion_at_the_key(store: SchemaStore) -> None:
    valid, sink = check(store, "cards:\n  move_1:\n    name: Move\n    effect: x\n    efect: z\n")
    assert not valid
    assert found(sink) == [
        ("schema", 5, 5, "unknown key 'efect' in cards.move_1 (did you mean 'effect'?)"),
    ]
    hint = sink.diagnostics[0].hint
    assert hint is not None and "additionalProperties" in hint
    assert "additionalProperties" not in sink.diagnostics[0].message


def test_missing_required_at_the_mapping(store: SchemaStore) -> None:
    _, sink = check(store, "cards:\n  move_1:\n    name: Move\n")
    assert found(sink) == [("schema", 3, 5, "missing required key 'effect' in cards.move_1")]


def test_missing_required_in_empty_file(store: SchemaStore) -> None:
    _, sink = check(store, "# nothing yet\n")
    assert found(sink) == [
        ("schema", 2, 1, "expected a mapping (key: value) here, but the file is empty"),
    ]


def test_type_error_names_what_yaml_made(store: SchemaStore) -> None:
    _, sink = check(store, "cards: {}\ndeck_size: '12'\n")
    assert found(sink) == [
        ("schema", 2, 12, "expected a whole number here, got the text '12'"),
    ]


def test_enum_with_suggestion(store: SchemaStore) -> None:
    _, sink = check(store, "cards:\n  a:\n    name: A\n    effect: x\n    owner: bleu\n")
    assert found(sink) == [
        ("schema", 5, 12, "'bleu' is not one of: 'blue', 'red' (did you mean 'blue'?)"),
    ]
    _, sink = check(store, "cards:\n  a:\n    name: A\n    effect: x\n    owner: orange\n")
    assert found(sink)[0][3] == "'orange' is not one of: 'blue', 'red'"


def test_cross_file_ref_pattern_on_property_names(store: SchemaStore) -> None:
    _, sink = check(store, "cards:\n  Bad_Id:\n    name: A\n    effect: x\n")
    assert found(sink) == [
        ("schema", 2, 3, "key 'Bad_Id' does not have the expected form (^[a-z][a-z0-9_]*$)"),
    ]


def test_one_of_picks_the_closest_branch(store: SchemaStore) -> None:
    _, sink = check(
        store, "cards:\n  a:\n    name: A\n    effect: x\n    target: {area: nw, cnt: 2}\n"
    )
    assert found(sink) == [
        ("schema", 5, 24, "unknown key 'cnt' in cards.a.target (did you mean 'count'?)"),
    ]


def test_one_of_with_no_close_branch_lists_types(store: SchemaStore) -> None:
    _, sink = check(store, "cards:\n  a:\n    name: A\n    effect: x\n    target: 5\n")
    assert found(sink) == [
        ("schema", 5, 13, "expected a string or a mapping (key: value) here, got the number 5"),
    ]


def test_bounds_lengths_and_custom_message(store: SchemaStore) -> None:
    _, sink = check(
        store,
        "cards:\n  a:\n    name: A\n    effect: ''\n    cost: -1\n    phase: 3\n"
        "    tags: [x, x]\ndeck_size: 61\n",
    )
    assert found(sink) == [
        ("schema", 4, 13, "effect must not be empty"),
        ("schema", 5, 11, "cost must be at least 0, got -1"),
        ("schema", 6, 12, "phase must be written as text, e.g. 'combat'"),
        ("schema", 7, 11, "the items of tags must all be different"),
        ("schema", 8, 12, "deck_size must be at most 60, got 61"),
    ]


def test_all_errors_at_once_sorted_by_position(store: SchemaStore) -> None:
    text = "extra: 1\ncards:\n  b:\n    name: 3\n    effect: x\n  a:\n    efect: z\nodds: 1:2\n"
    valid, sink = check(store, text)
    assert not valid
    got = [(code, line, col) for code, line, col, _ in found(sink)]
    assert got == [
        ("schema", 1, 1),  # unknown key 'extra'
        ("schema", 4, 11),  # name: 3
        ("schema", 7, 5),  # missing 'name' (at the mapping) ...
        ("schema", 7, 5),  # ... missing 'effect' ...
        ("schema", 7, 5),  # ... unknown key 'efect'
        ("yaml11-trap", 8, 7),
    ]
    out = sink.render_all()
    assert out.splitlines()[-1] == "6 errors"
    assert "    4 |     name: 3\n      |           ^" in out


def test_error_inside_alias_points_at_the_anchor(store: SchemaStore) -> None:
    _, sink = check(store, "cards:\n  a: &c\n    name: A\n    effect: x\n    cost: many\n  b: *c\n")
    positions = {(line, col) for _, line, col, _ in found(sink)}
    assert positions == {(5, 11)}


def test_default_store_reads_package_schemas() -> None:
    store = SchemaStore()
    names = store.names()
    assert all(isinstance(n, str) for n in names)


def test_unknown_schema_name(store: SchemaStore) -> None:
    sink = DiagnosticSink()
    doc = load_yaml_text("a: 1\n", "x.yaml", sink)
    assert doc is not None
    with pytest.raises(KeyError, match="did you mean 'cards'"):
        store.validate(doc, "card", sink)


def test_ref_by_id_resolves_without_retrieval(tmp_path: Path) -> None:
    (tmp_path / "base.schema.json").write_text(
        json.dumps(
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$id": "https://rulecraft.dev/schemas/base.schema.json",
                "$defs": {"n": {"type": "integer"}},
            }
        )
    )
    (tmp_path / "top.schema.json").write_text(
        json.dumps(
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$id": "https://rulecraft.dev/schemas/top.schema.json",
                "type": "object",
                "properties": {"x": {"$ref": "base.schema.json#/$defs/n"}},
            }
        )
    )
    store = SchemaStore(tmp_path)
    _, sink = check(store, "x: nope\n", "top")
    assert found(sink) == [("schema", 1, 4, "expected a whole number here, got the text 'nope'")]


def test_bad_schema_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "broken.schema.json").write_text("{not json")
    with pytest.raises(ValueError, match="broken.schema.json"):
        SchemaStore(tmp_path)
