"""`rulecraft sheet --record SAVE.json`: record forms (tables of kind: form) filled in from a saved
game, on a made-up game (tests/fixtures/games/record_form) and on Third Reich's record sheet."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from rulecraft.compiler.commands import sheet as cmd_sheet
from rulecraft.compiler.diagnostics import DiagnosticSink
from rulecraft.compiler.publish import sheets
from rulecraft.compiler.tables import load_tables

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "games"
GAME = "record_form"

SAVE = {
    "rulecraft": 2,
    "game": GAME,
    "scenario": "first_year",
    "layout": "0123456789abcdef",
    "g": {"year": 1652, "season": "spring", "round": 2},
    "p": {
        "red": {"gold": 12, "spent": 4},
        "blue": {"gold": 7, "spent": 0},
        "green": {"gold": 3, "spent": 2},
    },
    "e": {},
}


def _save(tmp_path: Path, data: object, name: str = "save.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _ledger(sheet: sheets.Sheet) -> sheets.TableView:
    return next(t for t in sheet.tables if t.id == "ledger")


def _grid(view: sheets.TableView) -> dict[tuple[str, str], list[str]]:
    """(block title, row label) -> the texts of the row's cells."""
    return {(b.title, r.label): [c.text for c in r.cells] for b in view.blocks for r in b.rows}


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cmd_sheet.add_arguments(parser)
    return parser.parse_args([GAME, "--rules", str(FIXTURES), *argv])


# -- the loader -------------------------------------------------------------------------------


def test_loader_reads_seats_fills_and_when() -> None:
    sink = DiagnosticSink(root=REPO)
    form = load_tables(FIXTURES / GAME, sink)["ledger"]
    assert not sink.has_errors, sink.render_all()
    assert [c.seats for c in form.columns] == [("red",), ("blue", "green"), ()]
    year, spring, autumn = form.blocks
    assert year.title_fill == "year" and year.when == {}
    assert spring.when == {"season": ("spring",)}
    assert autumn.when == {"season": ("autumn", "winter")}
    gold, rnd, tally = year.rows
    assert (gold.fill.scope, gold.fill.field) == ("p", "gold") and rnd.fill.path == "g.round"
    assert tally.fill is None
    spent = spring.rows[0].fill
    assert spent.format == "SP -{value}" and spent.skip_zero


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("{id: a, label: A, fill: gold}", "fill is a field of the saved game: p.<field>"),
        ("{id: a, label: A, fill: e.gold}", "fill is a field of the saved game: p.<field>"),
        ("{id: a, label: A, fill: p.gold, format: 'SP -{amount}'}", "format must hold {value}"),
        ("{id: a, label: A, fill: p.gold, format: '{value}{x}'}", "must hold {value} once"),
        ("{id: a, label: A, format: 'SP -{value}'}", "'format' needs a 'fill'"),
        ("{id: a, label: A, fill: p.gold, skip_zero: 1}", "expected true or false"),
    ],
)
def test_loader_reports_bad_fills(tmp_path: Path, row: str, message: str) -> None:
    game = tmp_path / "bad"
    (game / "tables").mkdir(parents=True)
    text = (FIXTURES / GAME / "tables" / "forms.yaml").read_text(encoding="utf-8")
    old = "- {id: tally, label: Tally}"
    assert text.count(old) == 1
    (game / "tables" / "forms.yaml").write_text(text.replace(old, "- " + row), encoding="utf-8")
    sink = DiagnosticSink(root=tmp_path)
    tables = load_tables(game, sink)
    assert "ledger" not in tables
    assert any(message in d.message for d in sink.sorted()), sink.render_all()


def test_player_fill_needs_a_seat_column(tmp_path: Path) -> None:
    game = tmp_path / "noseat"
    (game / "tables").mkdir(parents=True)
    text = (FIXTURES / GAME / "tables" / "forms.yaml").read_text(encoding="utf-8")
    text = text.replace(", seat: red}", "}").replace(", seat: [blue, green]}", "}")
    (game / "tables" / "forms.yaml").write_text(text, encoding="utf-8")
    sink = DiagnosticSink(root=tmp_path)
    load_tables(game, sink)
    assert any(
        d.code == "table-fill" and "no column names a 'seat'" in d.message for d in sink.sorted()
    )


# -- the sheet --------------------------------------------------------------------------------


def test_blank_form_without_record() -> None:
    sheet = sheets.build_sheet(GAME, rules_root=FIXTURES)
    assert sheet.record is None
    assert [t.id for t in sheet.tables] == ["ledger", "prices"]  # the whole sheet, as before
    ledger = _ledger(sheet)
    assert ledger.form and not ledger.filled_from
    assert [b.title for b in ledger.blocks] == ["Year", "SPRING", "AUTUMN"]
    grid = _grid(ledger)
    assert len(grid) == 7 and all(cells == ["", "", ""] for cells in grid.values())
    html = sheets.render_html(GAME, rules_root=FIXTURES)
    assert '<table class="rt form">' in html and 'class="filled"' not in html
    assert 'rowspan="3">Year</th>' in html and "Filled in from" not in html


def test_form_rows_are_tall_enough_to_write_in() -> None:
    css = sheets.render_html(GAME, rules_root=FIXTURES).split("<style>")[1]
    rule = re.search(r"table\.rt\.form tbody tr \{ height: ([0-9.]+)mm; \}", css)
    assert rule and float(rule.group(1)) >= 8


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")
def test_form_rows_are_8mm_in_print(tmp_path: Path) -> None:
    pdf = tmp_path / "form.pdf"
    pdf.write_bytes(sheets.render_pdf(GAME, rules_root=FIXTURES))
    out = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, check=True, text=True
    ).stdout
    tops = {
        word: float(y)
        for y, word in re.findall(r'yMin="([0-9.]+)"[^>]*>(Gold|Round|Tally)</word>', out)
    }
    assert set(tops) == {"Gold", "Round", "Tally"}
    mm = 25.4 / 72
    assert (tops["Tally"] - tops["Round"]) * mm >= 7.99
    # the block's first row has a thicker top border, which shifts its text by a fraction of a pt
    assert (tops["Round"] - tops["Gold"]) * mm >= 7.9


def test_filled_cells_from_a_save(tmp_path: Path) -> None:
    sheet = sheets.build_sheet(GAME, rules_root=FIXTURES, record=_save(tmp_path, SAVE))
    assert [t.id for t in sheet.tables] == ["ledger"]  # the record forms only
    ledger = _ledger(sheet)
    grid = _grid(ledger)
    assert grid[("Year 1652", "Gold")] == ["12", "7 / 3", ""]  # no seat: blank
    assert grid[("Year 1652", "Round")] == ["2", "2", "2"]  # a global: every column
    assert grid[("Year 1652", "Tally")] == ["", "", ""]  # no fill: blank
    assert grid[("SPRING", "Spent")] == ["SP -4", "/ SP -2", ""]  # blue spent 0: skipped
    assert grid[("AUTUMN", "Spent")] == ["", "", ""]  # not the current season
    states = {c.state for b in ledger.blocks for r in b.rows for c in r.cells if c.text}
    assert states == {"filled"}
    assert ledger.filled_from.startswith(
        "Filled in from save.json (scenario first_year): Year 1652, Round 2, Season spring."
    )
    html = sheets.render_html(GAME, rules_root=FIXTURES, record=_save(tmp_path, SAVE))
    assert '<td class="filled">7 / 3</td>' in html
    assert "Price List" not in html


def test_when_with_a_list_and_missing_fields(tmp_path: Path) -> None:
    save = dict(SAVE, g={"season": "winter"}, p={"red": {"spent": 5}, "blue": {"spent": 1}})
    grid = _grid(_ledger(sheets.build_sheet(GAME, None, FIXTURES, _save(tmp_path, save))))
    assert grid[("AUTUMN", "Spent")] == ["SP -5", "SP -1 /", ""]
    assert grid[("SPRING", "Spent")] == ["", "", ""]
    assert grid[("Year", "Gold")] == ["", "", ""] and grid[("Year", "Round")] == ["", "", ""]


def test_named_state_players_as_a_list(tmp_path: Path) -> None:
    """The named state (`Game.named(...)` / `to_named`) lists players with their seat "id"."""
    save = dict(SAVE, p=[{"id": "red", "name": "Red", "gold": 9}, {"id": "green", "gold": 1}])
    grid = _grid(_ledger(sheets.build_sheet(GAME, None, FIXTURES, _save(tmp_path, save))))
    assert grid[("Year 1652", "Gold")] == ["9", "/ 1", ""]


def test_a_real_mop_save_is_read(tmp_path: Path) -> None:
    """A save written by the runtime has the shape `read_save` expects."""
    from rulecraft.runtime.game import Game

    text = Game.named("march_of_progress/thirty_years_war", 1).to_json()
    rec = sheets.read_save(_save(tmp_path, text), "march_of_progress")
    assert rec.game == "march_of_progress" and rec.scenario == "thirty_years_war"
    assert rec.globals["vp_stock"] == 35 and set(rec.players) == {"blue", "orange"}
    assert rec.players["blue"]["vp"] == 0


def test_command_writes_the_filled_form(tmp_path: Path) -> None:
    out = tmp_path / "form.html"
    save = _save(tmp_path, SAVE)
    assert cmd_sheet.run(_args("--record", str(save), "-o", str(out))) == 0
    html = out.read_text(encoding="utf-8")
    assert '<td class="filled">SP -4</td>' in html and "rulecraft record form" in html


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("this is not json {", "save.json: not a saved game (not JSON: "),
        ("[1, 2]", "save.json: not a saved game (not a JSON object)"),
        ('{"scenario": "x"}', 'save.json: not a saved game (no "game" named)'),
        (
            json.dumps(dict(SAVE, game="march_of_progress")),
            "save.json: a saved game of 'march_of_progress', not of 'record_form'",
        ),
        (json.dumps(dict(SAVE, p=[1, 2])), 'save.json: not a saved game ("p", the players'),
    ],
    ids=["not-json", "not-object", "no-game", "wrong-game", "bad-players"],
)
def test_bad_save_is_one_line_exit_2(tmp_path: Path, capsys, content: str, expected: str) -> None:
    save = _save(tmp_path, content)
    out = tmp_path / "form.pdf"
    assert cmd_sheet.run(_args("--record", str(save), "-o", str(out))) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"rulecraft: error: {tmp_path}/{expected}"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_missing_save_and_other_scenario_exit_2(tmp_path: Path, capsys) -> None:
    out = tmp_path / "form.html"
    assert cmd_sheet.run(_args("--record", str(tmp_path / "nope.json"), "-o", str(out))) == 2
    err = capsys.readouterr().err
    assert "nope.json: cannot read the save" in err and err.count("\n") == 1
    save = _save(tmp_path, SAVE)
    assert cmd_sheet.run(_args("--record", str(save), "--scenario", "x", "-o", str(out))) == 2
    err = capsys.readouterr().err
    assert "save.json: a save of scenario 'first_year', not 'x'" in err
    assert not out.exists()


def test_cli_exit_status_through_main(tmp_path: Path, capsys) -> None:
    from rulecraft.compiler.cli import main

    save = _save(tmp_path, "not json")
    argv = ["sheet", GAME, "--rules", str(FIXTURES), "--record", str(save), "-o", "-"]
    assert main(argv) == 2
    assert "save.json: not a saved game (not JSON" in capsys.readouterr().err


def test_game_without_a_form_is_exit_1(tmp_path: Path, capsys) -> None:
    root = tmp_path / "rules"
    shutil.copytree(FIXTURES / GAME, root / "plain")
    forms = root / "plain" / "tables" / "forms.yaml"
    text = forms.read_text(encoding="utf-8")
    head, rest = text.split("  ledger:")
    forms.write_text(head + "  prices:" + rest.split("  prices:")[1], encoding="utf-8")
    save = _save(tmp_path, dict(SAVE, game="plain"))
    parser = argparse.ArgumentParser()
    cmd_sheet.add_arguments(parser)
    args = parser.parse_args(
        ["plain", "--rules", str(root), "--record", str(save), "-o", str(tmp_path / "x.html")]
    )
    assert cmd_sheet.run(args) == 1
    assert "plain has no record form to fill in" in capsys.readouterr().err


# -- Third Reich's record sheet (rules/third_reich_diplomacy/tables/general.yaml) -----------


def test_third_reich_record_sheet_filled(tmp_path: Path) -> None:
    """Rules: TR-REC-01, TR-REC-04, TR-DIP-AID-01"""
    root = tmp_path / "rules"
    tables = root / "third_reich_diplomacy" / "tables"
    tables.mkdir(parents=True)
    shutil.copy(REPO / "rules" / "third_reich_diplomacy" / "tables" / "general.yaml", tables)
    seats = ("germany", "italy", "britain", "france", "usa", "russia")
    brps = dict(zip(seats, (150, 77, 125, 85, 0, 90), strict=True))
    aid = dict(zip(seats, (5, 0, 0, 3, 0, 0), strict=True))
    save = {
        "game": "third_reich_diplomacy",
        "scenario": "campaign",
        "g": {"year": 1940, "season": "fall", "yss_season": "summer"},
        "p": {s: {"yss_brps": brps[s], "aid_brps": aid[s], "dps": 2} for s in seats},
    }  # aid is spent at the YSS: it goes in the block of the season the YSS ran in
    sheet = sheets.build_sheet("third_reich_diplomacy", None, root, _save(tmp_path, save))
    grid = _grid(next(t for t in sheet.tables if t.id == "record_sheet"))
    assert grid[("YSS 1940", "YSS Total")] == ["150", "77", "125", "90", "85 / 0"]
    builds = "Builds & other expenditures"
    assert grid[("SUMMER", builds)] == ["FA -5", "", "", "", "FA -3 /"]
    for season in ("SPRING", "FALL", "WINTER"):
        assert grid[(season, builds)] == [""] * 5
    filled = [(k, v) for k, v in grid.items() if any(v)]
    assert len(filled) == 2  # everything else the save cannot know stays blank


def _third_reich_save() -> tuple[str, object]:
    """A Third Reich campaign played a few decisions in, saved by the runtime (its decisions)."""
    from rulecraft.runtime.game import Game

    g = Game.named("third_reich_diplomacy/campaign_1939", 2)
    for _ in range(12):
        d = g.pending()[0]
        g.apply(d.player, d.options[len(d.options) - 1].id)
    return g.to_json(), g


def test_a_save_of_a_game_is_replayed_for_the_record(tmp_path: Path) -> None:
    """A save (version 3) holds decisions: the forms are filled in from the position the
    engine reaches by replaying them. Rules: TR-REC-01"""
    text, g = _third_reich_save()
    rec = sheets.read_save(_save(tmp_path, text), "third_reich_diplomacy")
    assert rec.scenario == "campaign_1939"
    assert rec.globals["year"] == g.state["g"]["year"]
    assert rec.globals["season"] == g.state["g"]["season"]
    assert rec.players["germany"]["yss_brps"] == g.state["p"][0]["yss_brps"]
    out = tmp_path / "record.html"
    args = argparse.ArgumentParser()
    cmd_sheet.add_arguments(args)
    save = str(_save(tmp_path, text))
    ns = args.parse_args(["third_reich_diplomacy", "--record", save, "-o", str(out)])
    assert cmd_sheet.run(ns) == 0
    assert f"YSS {g.state['g']['year']}" in out.read_text(encoding="utf-8")


def test_a_forged_save_of_a_game_is_exit_2(tmp_path: Path, capsys) -> None:
    """The record is never filled in from a position its decisions do not reach."""
    text, _g = _third_reich_save()
    data = json.loads(text)
    data["position"]["p"]["germany"]["yss_brps"] = 999
    args = argparse.ArgumentParser()
    cmd_sheet.add_arguments(args)
    out = tmp_path / "record.html"
    ns = args.parse_args(
        ["third_reich_diplomacy", "--record", str(_save(tmp_path, data)), "-o", str(out)]
    )
    assert cmd_sheet.run(ns) == 2
    err = capsys.readouterr().err
    assert "position.p.germany.yss_brps: the save says 999" in err and err.count("\n") == 1
    data["position"] = None
    data["decisions"][3][1] = "number:99"
    ns = args.parse_args(
        ["third_reich_diplomacy", "--record", str(_save(tmp_path, data)), "-o", str(out)]
    )
    assert cmd_sheet.run(ns) == 2
    assert "decision 4 of the save (" in capsys.readouterr().err
    assert not out.exists()
