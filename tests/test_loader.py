"""The loader stage: YAML with positions, scalar offsets, every load error at its place."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from rulecraft.compiler.diagnostics import DiagnosticSink, Position
from rulecraft.compiler.limits import MAX_ALIAS_VALUES, MAX_NUMBER_DIGITS, MAX_YAML_DEPTH
from rulecraft.compiler.loader import Document, format_ypath, load_yaml, load_yaml_text

FIXTURES = Path(__file__).parent / "fixtures" / "loader"


def load(text: str | bytes, name: str = "t.yaml") -> tuple[Document | None, DiagnosticSink]:
    sink = DiagnosticSink()
    return load_yaml_text(text, name, sink), sink


def ok(text: str | bytes) -> Document:
    doc, sink = load(text)
    assert not sink.diagnostics, sink.render_all()
    assert doc is not None
    return doc


def only(sink: DiagnosticSink) -> tuple[str, str, int, int]:
    assert len(sink.diagnostics) == 1, sink.render_all()
    d = sink.diagnostics[0]
    assert d.pos is not None
    return d.code, d.pos.file, d.pos.line, d.pos.col


def char_at(doc: Document, pos: Position) -> str:
    line = doc.text.splitlines()[pos.line - 1]
    return line[pos.col - 1] if pos.col - 1 < len(line) else "\n"


def at(doc: Document, ypath: tuple[Any, ...], needle: str) -> Position:
    """Position of the first character of ``needle`` inside the loaded string at ``ypath``."""
    value = doc.get(ypath)
    offset = value.index(needle)
    pos = doc.scalar_pos(ypath, offset)
    assert char_at(doc, pos) == needle[0] or needle[0] in " \n"
    return pos


# -- data and positions
# -------------------------------------------------------------------------------


def test_plain_data_types_and_order() -> None:
    doc = ok("b: 1\na: -2\nc: 1.5\nd: true\ne: false\nf: null\ng: ~\nh:\ni: text\nj: '010'\n")
    assert list(doc.data) == ["b", "a", "c", "d", "e", "f", "g", "h", "i", "j"]
    assert doc.data == {
        "b": 1,
        "a": -2,
        "c": 1.5,
        "d": True,
        "e": False,
        "f": None,
        "g": None,
        "h": None,
        "i": "text",
        "j": "010",
    }
    assert type(doc.data["b"]) is int and type(doc.data["c"]) is float


def test_pos_key_pos_has_and_fallbacks() -> None:
    doc = ok("cards:\n  move_1:\n    cost: 3\n    tags: [a, b]\n")
    assert doc.pos(("cards", "move_1", "cost")) == Position("t.yaml", 3, 11)
    assert doc.key_pos(("cards", "move_1", "cost")) == Position("t.yaml", 3, 5)
    assert doc.pos(("cards", "move_1", "tags", 1)) == Position("t.yaml", 4, 15)
    assert doc.key_pos(("cards", "move_1", "tags", 1)) == Position("t.yaml", 4, 15)
    assert doc.key_pos(("cards", "move_1")) == Position("t.yaml", 2, 3)
    # missing paths: nearest existing ancestor
    assert doc.pos(("cards", "move_1", "nope", 3)) == Position("t.yaml", 3, 5)
    assert doc.pos(()) == Position("t.yaml", 1, 1)
    assert doc.has(("cards", "move_1", "tags", 1))
    assert not doc.has(("cards", "move_1", "tags", 2))
    assert not doc.has(("cards", "x"))
    assert doc.get(("cards", "move_1", "cost")) == 3
    assert format_ypath(("cards", "move_1", "tags", 1)) == "cards.move_1.tags[1]"


def test_int_keys_are_kept_for_tables() -> None:
    doc = ok("table:\n  1: low\n  2: mid\n  '3': text key\n")
    assert doc.data["table"] == {1: "low", 2: "mid", "3": "text key"}
    assert doc.pos(("table", 2)) == Position("t.yaml", 3, 6)
    assert doc.key_pos(("table", 2)) == Position("t.yaml", 3, 3)


def test_alias_gets_alias_position_and_inside_maps_to_anchor() -> None:
    doc = ok("base: &b\n  cost: 2\n  name: x\ncopy: *b\n")
    assert doc.data["copy"] == {"cost": 2, "name": "x"}
    assert doc.pos(("copy",)) == Position("t.yaml", 4, 7)
    assert doc.pos(("copy", "cost")) == Position("t.yaml", 2, 9)
    assert doc.has(("copy", "name"))


def test_empty_file_is_none() -> None:
    doc = ok("# only a comment\n")
    assert doc.data is None
    assert doc.pos(()) == Position("t.yaml", 2, 1)


def test_crlf_positions() -> None:
    doc = ok("a: 1\r\nb:\r\n  c: |\r\n    one\r\n    two x\r\n")
    assert doc.pos(("b", "c")) == Position("t.yaml", 3, 6)
    assert doc.data["b"]["c"] == "one\ntwo x\n"
    assert doc.scalar_pos(("b", "c"), doc.data["b"]["c"].index("x")) == Position("t.yaml", 5, 9)


def test_load_yaml_from_file_and_io_error(tmp_path: Path) -> None:
    sink = DiagnosticSink()
    doc = load_yaml(FIXTURES / "scalars.yaml", "rules/scalars.yaml", sink)
    assert doc is not None and not sink.diagnostics
    assert doc.path == "rules/scalars.yaml"
    assert load_yaml(tmp_path / "missing.yaml", "missing.yaml", sink) is None
    assert sink.diagnostics[-1].code == "io"


# -- scalar_pos
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scalars() -> Document:
    sink = DiagnosticSink()
    doc = load_yaml(FIXTURES / "scalars.yaml", "scalars.yaml", sink)
    assert doc is not None and not sink.diagnostics
    return doc


def test_scalar_pos_plain_multiline(scalars: Document) -> None:
    assert scalars.data["plain"] == "gain 1 vp then move 2 armies and draw a card"
    assert at(scalars, ("plain",), "draw") == Position("scalars.yaml", 4, 7)
    assert at(scalars, ("plain_para",), "para") == Position("scalars.yaml", 7, 10)


def test_scalar_pos_single_quoted(scalars: Document) -> None:
    assert scalars.data["single"] == "it's a card that says 'move' then draw"
    assert at(scalars, ("single",), "draw") == Position("scalars.yaml", 10, 8)
    assert at(scalars, ("single",), "move") == Position("scalars.yaml", 9, 15)


def test_scalar_pos_double_quoted_with_escapes_and_folding(scalars: Document) -> None:
    value = scalars.data["double"]
    assert value == 'say "hi"\t then \u00e9lAn stop end\n'
    assert at(scalars, ("double",), "lAn") == Position("scalars.yaml", 12, 14)
    assert at(scalars, ("double",), "stop") == Position("scalars.yaml", 13, 3)
    assert at(scalars, ("double",), "end") == Position("scalars.yaml", 14, 3)
    # an escape maps to its backslash
    assert scalars.scalar_pos(("double",), value.index("A")) == Position("scalars.yaml", 12, 15)
    assert scalars.scalar_pos(("double",), value.index("\u00e9")) == Position("scalars.yaml", 12, 8)


def test_scalar_pos_literal_block(scalars: Document) -> None:
    assert scalars.data["literal"] == "line one\n  indented two\nline three with target\n"
    assert at(scalars, ("literal",), "target") == Position("scalars.yaml", 18, 19)
    assert at(scalars, ("literal",), "indented") == Position("scalars.yaml", 17, 5)


def test_scalar_pos_literal_with_indicator_and_keep(scalars: Document) -> None:
    assert scalars.data["literal_keep"] == " lead space\nafter\n\n"
    assert at(scalars, ("literal_keep",), "space") == Position("scalars.yaml", 20, 9)
    assert at(scalars, ("literal_keep",), "after") == Position("scalars.yaml", 21, 3)


def test_scalar_pos_folded_block(scalars: Document) -> None:
    value = scalars.data["folded"]
    assert value == "folded one folded two\nnew para\n  more indented\nback again"
    assert at(scalars, ("folded",), "two") == Position("scalars.yaml", 25, 10)
    assert at(scalars, ("folded",), "new") == Position("scalars.yaml", 27, 3)
    assert at(scalars, ("folded",), "more") == Position("scalars.yaml", 28, 5)
    assert at(scalars, ("folded",), "again") == Position("scalars.yaml", 29, 8)


def test_scalar_pos_flow_and_nested(scalars: Document) -> None:
    assert at(scalars, ("flow", 0), "gamma") == Position("scalars.yaml", 31, 3)
    assert at(scalars, ("nested", 0, "effect"), "move") == Position("scalars.yaml", 35, 7)
    assert at(scalars, ("nested", 1), "spanning") == Position("scalars.yaml", 38, 5)


def test_scalar_pos_every_character_lands_on_itself(scalars: Document) -> None:
    """Each character maps to itself, to its escape's backslash, or (space/newline) a fold."""

    def walk(value: Any, path: tuple[Any, ...] = ()) -> Any:
        if isinstance(value, dict):
            for k, v in value.items():
                yield from walk(v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from walk(v, path + (i,))
        elif isinstance(value, str):
            yield path, value

    count = 0
    for path, value in walk(scalars.data):
        start = scalars.pos(path)
        for i, ch in enumerate(value):
            pos = scalars.scalar_pos(path, i)
            src = char_at(scalars, pos)
            assert src == ch or src == "\\" or ch in " \n", (path, i, ch, pos)
            if i > 0 and ch not in " \n":
                assert pos != start or path == ("double",), (path, i)
            count += 1
    assert count > 300


def test_scalar_pos_end_and_out_of_range(scalars: Document) -> None:
    value = scalars.data["plain"]
    assert scalars.scalar_pos(("plain",), len(value)) == Position("scalars.yaml", 4, 18)
    start = scalars.pos(("plain",))
    assert scalars.scalar_pos(("plain",), len(value) + 5) == start
    assert scalars.scalar_pos(("plain",), -1) == start


def test_scalar_pos_falls_back_to_start_when_unsure() -> None:
    doc = ok("a: [1, 2]\nb: x\n")
    assert doc.scalar_pos(("a",), 1) == Position("t.yaml", 1, 4)  # not a scalar
    # a corrupted node table (value no longer matching the source) gives the start, not a
    # wrong place
    node = doc._find(("b",))
    assert node is not None
    node.raw = "something else"
    assert doc.scalar_pos(("b",), 3) == Position("t.yaml", 2, 4)


def test_scalar_pos_with_tag_and_anchor() -> None:
    doc = ok("a: !!str &x 'one\n  two'\nb: *x\n")
    assert doc.scalar_pos(("a",), 4) == Position("t.yaml", 2, 3)
    assert doc.scalar_pos(("b",), 4) == Position("t.yaml", 2, 3)


# -- encoding
# -----------------------------------------------------------------------------------------


def test_not_utf8_position_of_first_bad_byte() -> None:
    sink = DiagnosticSink()
    assert load_yaml(FIXTURES / "latin1.yaml", "rules/latin1.yaml", sink) is None
    assert only(sink) == ("not-utf8", "rules/latin1.yaml", 3, 14)
    d = sink.diagnostics[0]
    assert "0xe9" in d.message and d.hint is not None and "'é'" in d.hint
    rendered = sink.render_all()
    assert "    name: Caf" in rendered


def test_not_utf8_after_multibyte_characters() -> None:
    doc, sink = load("a: é€\nb: ok é \xff".encode() + b"\xff\n")
    assert doc is None
    assert only(sink) == ("not-utf8", "t.yaml", 2, 10)


def test_utf16_is_named() -> None:
    doc, sink = load("a: 1\n".encode("utf-16"))
    assert doc is None
    assert only(sink) == ("not-utf8", "t.yaml", 1, 1)
    assert "UTF-16" in sink.diagnostics[0].message


def test_bom_is_fine_and_positions_ignore_it() -> None:
    sink = DiagnosticSink()
    doc = load_yaml(FIXTURES / "bom.yaml", "bom.yaml", sink)
    assert doc is not None and not sink.diagnostics
    assert doc.data == {"name": "café", "value": 3}
    assert doc.key_pos(("name",)) == Position("bom.yaml", 1, 1)
    assert doc.pos(("value",)) == Position("bom.yaml", 2, 8)
    assert doc.scalar_pos(("name",), 3) == Position("bom.yaml", 1, 11)


def test_control_character() -> None:
    doc, sink = load("a: ok\nb: x\x07y\n")
    assert doc is None
    assert only(sink) == ("yaml-syntax", "t.yaml", 2, 5)
    assert "U+0007" in sink.diagnostics[0].message


# -- syntax
# -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "col", "fragment"),
    [
        ("a: b: c\n", 1, 5, "':'"),
        ("a:\n\t- x\n", 2, 1, "tabs"),
        ("a: 'open\nb: 2\n", 3, 1, "started at line 1"),
        ("a: [1, 2\nb: 3\n", 2, 2, "flow sequence"),
        ("- a\nb: c\n", 2, 1, "list"),
        ('a: "bad \\q"\n', 1, 9, "escape"),
    ],
)
def test_yaml_syntax(text: str, line: int, col: int, fragment: str) -> None:
    doc, sink = load(text)
    assert doc is None
    assert only(sink) == ("yaml-syntax", "t.yaml", line, col)
    d = sink.diagnostics[0]
    assert fragment in d.message + (d.hint or "")
    assert "Traceback" not in sink.render_all()


def test_duplicate_key_at_second_occurrence() -> None:
    doc, sink = load("cards:\n  move_1:\n    cost: 1\n    name: x\n    cost: 2\n")
    assert only(sink) == ("duplicate-key", "t.yaml", 5, 5)
    assert "'cost'" in sink.diagnostics[0].message and "line 3" in sink.diagnostics[0].message
    assert doc is not None and doc.data["cards"]["move_1"]["cost"] == 1


def test_duplicate_key_in_flow_mapping_and_int_keys() -> None:
    _, sink = load("a: {p: 1, q: 2, p: 3}\nt:\n  1: a\n  1: b\n")
    assert [(d.code, d.pos.line, d.pos.col) for d in sink.diagnostics if d.pos] == [
        ("duplicate-key", 1, 17),
        ("duplicate-key", 4, 3),
    ]


def test_duplicate_subtree_does_not_overwrite_positions() -> None:
    doc, sink = load("a:\n  b: 1\na:\n  b: 2\n")
    assert doc is not None
    assert doc.pos(("a", "b")) == Position("t.yaml", 2, 6)


# -- YAML 1.1 traps
# -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "fragment"),
    [
        ("yes", "boolean true"),
        ("no", "boolean false"),
        ("on", "boolean true"),
        ("off", "boolean false"),
        ("Yes", "boolean true"),
        ("NO", "boolean false"),
        ("True", "boolean true"),
        ("FALSE", "boolean false"),
        ("y", "boolean true"),
        ("n", "boolean false"),
        ("1:2", "62"),
        ("1:30:00", "5400"),
        ("010", "8 (octal)"),
        ("0x1F", "31"),
        ("0b101", "5"),
        ("0o17", "text"),
        ("2001-12-14", "date 2001-12-14"),
        ("2001-12-14 21:59:43.10", "timestamp"),
        (".inf", "infinity"),
        ("-.inf", "infinity"),
        (".nan", "not a number"),
        ("1_000", "1000"),
        ("1e5", "not a number"),
        ("NULL", "null"),
    ],
)
def test_yaml11_traps(word: str, fragment: str) -> None:
    doc, sink = load(f"x: 1\nodds: {word}\n")
    assert only(sink) == ("yaml11-trap", "t.yaml", 2, 7)
    message = sink.diagnostics[0].message
    assert fragment in message
    assert "quote it" in message
    assert doc is not None


def test_yaml11_trap_values_kept() -> None:
    doc, _ = load("a: yes\nb: 1:2\nc: y\n")
    assert doc is not None
    assert doc.data == {"a": True, "b": "1:2", "c": "y"}


@pytest.mark.parametrize(
    "text",
    [
        "a: 'yes'\n",
        'a: "1:2"\n',
        "a: '010'\n",
        "a: !!str on\n",
        "a: 10\n",
        "a: -3\n",
        "a: +4\n",
        "a: 0\n",
        "a: 1.5\n",
        "a: .5\n",
        "a: 1.5e+3\n",
        "a: 2d6\n",
        "a: yesterday\n",
        "a: '2001-12-14'\n",
        "a: |\n  yes\n",
        "a: [true, false, null]\n",
        "a: x-1:2\n",
        "a: v1.2.3\n",
    ],
)
def test_not_traps(text: str) -> None:
    ok(text)


def test_trap_in_key() -> None:
    doc, sink = load("on: push\n")
    assert only(sink) == ("yaml11-trap", "t.yaml", 1, 1)
    assert sink.diagnostics[0].message.startswith("YAML 1.1 reads the key on as the boolean true")
    assert doc is not None and doc.data == {"on": "push"}


def test_trap_in_flow_and_block_sequence() -> None:
    _, sink = load("a: [1, yes]\nb:\n  - off\n")
    assert [(d.code, d.pos.line, d.pos.col) for d in sink.diagnostics if d.pos] == [
        ("yaml11-trap", 1, 8),
        ("yaml11-trap", 3, 5),
    ]


# -- refused constructs
# -------------------------------------------------------------------------------


def test_merge_key() -> None:
    doc, sink = load("base: &b {cost: 1}\ncard:\n  <<: *b\n  name: x\n")
    assert only(sink) == ("yaml-merge", "t.yaml", 3, 3)
    assert "scenario overlay" in sink.diagnostics[0].message
    assert doc is not None and doc.data["card"] == {"name": "x"}


@pytest.mark.parametrize(
    ("text", "line", "col"),
    [
        ("~: x\n", 1, 1),
        ("true: x\n", 1, 1),
        ("a: 1\n1.5: x\n", 2, 1),
        ("? [1, 2]\n: x\n", 1, 3),
        ("? {a: 1}\n: x\nb: 2\n", 1, 3),
        ("a: {[1]: x}\n", 1, 5),
    ],
)
def test_bad_keys(text: str, line: int, col: int) -> None:
    doc, sink = load(text)
    assert only(sink) == ("yaml-key", "t.yaml", line, col)
    assert doc is not None


def test_complex_key_does_not_disturb_following_keys() -> None:
    doc, _ = load("? {a: 1}\n: x\nb: 2\n")
    assert doc is not None and doc.data == {"b": 2}
    assert doc.pos(("b",)) == Position("t.yaml", 3, 4)


def test_multiple_documents() -> None:
    doc, sink = load("a: 1\n---\nb: 2\n")
    assert doc is None
    assert only(sink) == ("yaml-multidoc", "t.yaml", 2, 1)


def test_leading_document_marker_is_fine() -> None:
    assert ok("---\na: 1\n...\n").data == {"a": 1}


def test_unknown_alias_and_tags() -> None:
    doc, sink = load("a: *nope\nb: !custom x\nc: !!set {x}\n")
    assert doc is not None
    assert [(d.code, d.pos.line, d.pos.col) for d in sink.diagnostics if d.pos] == [
        ("yaml-alias", 1, 4),
        ("yaml-tag", 2, 4),
        ("yaml-tag", 3, 4),
    ]


def test_recursive_alias() -> None:
    _, sink = load("a: &x\n  b: *x\n")
    assert only(sink) == ("yaml-alias", "t.yaml", 2, 6)


def test_all_errors_at_once_sorted() -> None:
    doc, sink = load("a: yes\nb: 1\nb: 2\n<<: {}\nc: 010\n")
    assert doc is not None
    assert [(d.code, d.pos.line) for d in sink.sorted() if d.pos] == [
        ("yaml11-trap", 1),
        ("duplicate-key", 3),
        ("yaml-merge", 4),
        ("yaml11-trap", 5),
    ]
    out = sink.render_all()
    assert out.splitlines()[-1] == "4 errors"
    assert "    5 | c: 010\n      |    ^" in out


# -- limits (docs/errors.md, compiler/limits.py): positioned errors, never a crash or a hang
# --------------------------------------------------------------------------------------------


def test_billion_laughs_is_refused_at_the_alias_that_crosses_the_limit() -> None:
    # 9 ** 9 strings from ten short lines: 56 s and 1.1 GB in the later stages before
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        name, prev = chr(97 + i), chr(96 + i)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    # CPU time, not wall time: other processes on a shared machine (or a parallel test run)
    # do not count
    t0 = time.process_time()
    doc, sink = load("\n".join(lines) + "\n")
    assert time.process_time() - t0 < 1
    # *a repeats 10 values (the list and its 9), *b 91, *c 820, *d 7381: the first *d in e
    # brings the values repeated to 9 * (10 + 91 + 820) + 7381 > 10,000
    assert only(sink) == ("limit", "t.yaml", 5, len("e: &e [") + 1)
    assert (
        sink.diagnostics[0].message
        == f"aliases repeat more than {MAX_ALIAS_VALUES:,} values in this file"
    )
    assert doc is not None and doc.data["d"][0][0][0] == ["x"] * 9
    assert doc.data["e"] == doc.data["i"] == [None] * 9


def test_aliases_that_repeat_little_are_fine() -> None:
    doc = ok("a: &a {k: [1, 2]}\nb: *a\nc: [*a, *a]\n")
    assert doc.data["c"] == [{"k": [1, 2]}, {"k": [1, 2]}]


def test_nesting_over_the_limit() -> None:
    # the top-level mapping is one level
    inner = MAX_YAML_DEPTH - 1
    assert ok("a: " + "[" * inner + "]" * inner + "\n").data["a"] is not None
    doc, sink = load("a: " + "[" * (inner + 1) + "]" * (inner + 1) + "\nb: 1\n")
    assert only(sink) == ("limit", "t.yaml", 1, 4 + inner)
    assert doc is not None and doc.data["b"] == 1


def test_nesting_over_the_limit_through_an_alias() -> None:
    half = MAX_YAML_DEPTH // 2
    deep = "[" * half + "]" * half
    doc, sink = load(f"a: &x {deep}\nb: {'[' * half}*x{']' * half}\n")
    assert only(sink) == ("limit", "t.yaml", 2, 4 + half)
    assert "through the alias *x" in sink.diagnostics[0].message


@pytest.mark.parametrize(
    "number",
    ["9" * 5000, "-" + "9" * 101, "0x" + "f" * 4000, "1" + "0" * 200 + ".5", "1_" * 120 + "1"],
)
def test_long_numbers_are_refused(number: str) -> None:
    # Python refuses to convert more than 4,300 digits; rules need a handful
    doc, sink = load(f"a: 1\nb: {number}\n")
    assert only(sink) == ("limit", "t.yaml", 2, 4)
    assert sink.diagnostics[0].hint == "write a smaller number, or quote it if it is text"
    assert doc is not None and doc.data["a"] == 1


def test_long_number_as_a_key_is_refused() -> None:
    _, sink = load(f"a: 1\n{'9' * 200}: 2\n")
    assert only(sink) == ("limit", "t.yaml", 2, 1)


def test_long_numbers_at_the_limit_and_long_text_are_fine() -> None:
    doc = ok(f"a: {'9' * MAX_NUMBER_DIGITS}\nb: '{'9' * 5000}'\nc: {'x9' * 100}\n")
    assert doc.data["a"] == int("9" * MAX_NUMBER_DIGITS)
    assert doc.data["b"] == "9" * 5000


def test_scalar_positions_are_mapped_once_per_scalar(monkeypatch: pytest.MonkeyPatch) -> None:
    # every statement of an effect asks for its position: re-mapping the block each time made
    # a rule of a few thousand lines take minutes
    doc = ok("body: |\n" + "  x += 1\n" * 2000)
    calls = []
    real = Document._compute_map
    monkeypatch.setattr(Document, "_compute_map", lambda self, n: calls.append(n) or real(self, n))
    for i in range(0, 2000 * len("x += 1\n"), len("x += 1\n")):
        assert doc.scalar_pos(("body",), i) == Position("t.yaml", 2 + i // 7, 3)
    assert len(calls) == 1


# -- speed
# --------------------------------------------------------------------------------------------


def test_5000_line_file_loads_fast() -> None:
    parts = []
    for i in range(1000):
        parts.append(
            f'card_{i}:\n  name: "Card number {i}"\n  cost: {i % 7}\n'
            f"  tags: [a, b, c]\n  effect: |\n    gain 1 vp; move {i}\n"
        )
    text = "".join(parts)
    assert text.count("\n") >= 5000
    best = 1e9
    for _ in range(3):  # CPU time: a loaded machine or a parallel test run does not count
        t0 = time.process_time()
        doc = ok(text)
        best = min(best, time.process_time() - t0)
    assert doc.data["card_999"]["cost"] == 999 % 7
    assert best < 0.5, best


def test_pure_python_loader_gives_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml
    from rulecraft.compiler import loader

    text = (FIXTURES / "scalars.yaml").read_text(encoding="utf-8")
    fast = ok(text)
    monkeypatch.setattr(loader, "_Loader", yaml.SafeLoader)
    slow = ok(text)
    assert slow.data == fast.data
    for path in [("plain",), ("double",), ("folded",), ("nested", 1)]:
        assert slow.pos(path) == fast.pos(path)
        assert slow.scalar_pos(path, 20) == fast.scalar_pos(path, 20)
    _, sink = load("a: 1\na: yes\n")
    monkeypatch.undo()
    assert [d.code for d in sink.diagnostics] == ["duplicate-key", "yaml11-trap"]
