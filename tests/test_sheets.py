"""Reference sheets: every game renders to PDF with its tables, assumed cells and gaps."""

from __future__ import annotations

import base64
import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from rulecraft.compiler.commands import sheet as cmd_sheet
from rulecraft.compiler.publish import sheets

GAMES = ["march_of_progress", "rise_of_totalitarianism", "westphalia"]
pytestmark = [
    pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils"),
    # one worker of a parallel run renders the sheets (the module's fixture), not each
    pytest.mark.xdist_group("sheets"),
]


#: Marlborough's sheet (its checked model, a 40-page PDF with the map) is its own group: the
#: worker that renders it is not also the one that renders the other games'
MARLBOROUGH = pytest.mark.xdist_group("sheets_marlborough")


def _by_worker(games, long: bool = False) -> list:  # type: ignore[no-untyped-def]
    """Marlborough's parameter in its own worker; with `long` also under `-m long` (CI):
    laying out its 39 pages (its map in 20 tiles) takes 20-40 s."""
    marks = [MARLBOROUGH, pytest.mark.long] if long else [MARLBOROUGH]
    return [pytest.param(g, marks=marks) if g == "marlborough" else g for g in games]


@functools.cache
def _laid_out(game: str):  # type: ignore[no-untyped-def]
    """A game's sheet laid out in pages, once per process (Marlborough's takes half a minute)."""
    return sheets.layout(sheets.render_html(game, pdf=True))


@functools.cache
def _pdf(game: str) -> bytes:
    """A game's sheet as PDF, written once per process from its layout."""
    return sheets.pdf_of(_laid_out(game))


@functools.cache
def _pdf_pages(game: str) -> tuple[str, ...]:
    """The text of each page of a game's PDF sheet, as poppler extracts it (layout kept)."""
    out = subprocess.run(
        ["pdftotext", "-layout", "-", "-"], input=_pdf(game), capture_output=True, check=True
    )
    return tuple(out.stdout.decode("utf-8").rstrip("\f").split("\f"))


@pytest.fixture(scope="module")
def rendered():
    """Each game's sheet rendered once per process: (pdf bytes, its text on one line)."""
    return {game: (_pdf(game), " ".join(" ".join(_pdf_pages(game)).split())) for game in GAMES}


@pytest.mark.parametrize("game", GAMES)
def test_sheet_has_every_table_title(rendered, game):
    _pdf, text = rendered[game]
    for _id, raw, _pos in sheets._table_docs(sheets.default_rules_root() / game):
        assert " ".join(raw["title"].split()) in text, raw["title"]


def test_rot_sample_cells(rendered):
    """Rules: ROT-CHIT-03, ROT-LAW-01, ROT-LHT-01, ROT-VP-03, ROT-VIC-03"""
    _pdf, text = rendered["rise_of_totalitarianism"]
    assert "to place a Putsch Action chit * 2 PPs" in text
    assert "Nationalization Reform (Germany only) 5" in text
    assert "Captured not captured 1d6 33.3% 66.7%" in text  # exact 1d6 odds
    assert "at least 30" in text and "Social-Democracy" in text


def test_rot_modifiers_as_the_rulebook_prints_them():
    """Rules: ROT-MAJ-02, ROT-MAJ-03, ROT-MAJ-04"""
    sheet = sheets.build_sheet("rise_of_totalitarianism")
    (t,) = [t for t in sheet.tables if t.id == "major_power_stability_modifiers"]
    assert [r.label for r in t.rows] == ["+2 [4]", "+[-]2", "+[-]1", "+?", "+?"]
    # the rulebook's notation is read once, in a note under the table
    assert any(n.startswith("Modifiers as the rulebook prints them") for n in t.notes)


def test_westphalia_gaps_shown(rendered):
    """Rules: WEST-4B-01, WEST-2-01, WEST-I3D-02, WEST-I3A-02"""
    _pdf, text = rendered["westphalia"]
    # the Arrears Table is not printed: every cell is assumed, with the reason in the notes
    # its 30 cells share one reason: one note for them all, one mark after the title
    assert "Arrears Table†2 " in text
    assert "2. Arrears Table: rows 0-9, 10-19, 20-29, 30-39, 40+ × columns 0, 1, 2, 3, 4, 5+" in (
        text
    )
    assert "printed only on the Arrears cards" in text
    # the starting Debts the Powers cards would print: the values the scenario assumes
    assert "Austria 12 Bavaria 8 The Dutch Republic 16 France 14 Spain 20 Sweden 15" in text
    # the assumed map and Powers cards of the scenario are marked, with their reasons
    # marked with the number of the footnote that gives the reason
    assert re.search(r"Adjacent †\d+", text)
    assert re.search(r"Congress[^/]*/ Areas: Adjacent: Not printed: roughly geographic\.", text)
    assert "Lorraine 1 French Army & Claim" in text
    assert "The Dutch Republic 16" in text


def test_mop_assumed_cells_in_footnote(rendered):
    """Rules: MOP-SOA-01, MOP-AOM-SETUP-07, MOP-AOM-RULE-01"""
    _pdf, text = rendered["march_of_progress"]
    assert "MOVE 1 & MOVE 2 *" in text and "Then flip initiative." in text
    assert "1 2 3 1d6 33.3% 33.3% 33.3%" in text
    assert "Assumed data (not printed in the rulebook)" in text
    sheet = sheets.build_sheet("march_of_progress")
    # the combat summary's fortified army, play-aid cells (two of Vive l'Empereur's share a
    # reason: one note), what the scenarios assumed
    assert len(sheet.assumed) == 1 + 23 + 8
    for group in sheet.assumed_groups:
        for note in group:  # one note per cell, or one per table and reason
            where = " ".join((note.where if len(group) == 1 else note.cell).split())
            assert where in text, where
    block = next(f for f in sheet.assumed if f.where == "Vive l'Empereur — play aid")
    assert block.text == "rows SCORE: Austrian Army reform, SCORE: British support"
    reason = (
        "Play-aid card text not printed; summarised from the scenario's Rule changes (STRENGTH)."
    )
    assert reason in text


def test_assumed_and_gap_cells_marked_in_html():
    html = sheets.render_html("march_of_progress")
    assert html.count('class="assumed"') == 25
    assert '<span class="dagger">&dagger;1</span>' in html
    html = sheets.render_html("westphalia")
    assert html.count('<td class="gap"></td>') == 4  # left blank, the table's note says why
    assert "gap-mark" not in html
    # the 30 assumed cells of the Arrears Table: hatched, one mark after its title
    assert html.count('<td class="assumed num">') == 30 + 4
    assert '<h3>Arrears Table<span class="dagger">&dagger;2</span>' in html
    assert "&dagger;3</span>" not in html.split("Arrears Table")[2].split("</table>")[0]
    # what the scenario says it assumed: marked †3.. in its tables, the reasons in the notes
    assert len(sheets.build_sheet("westphalia").assumed) == 2 + 15
    assert "Territory points †4" in html
    assert "The Congress: the six-player game / Areas: Territory" in html
    assert "— gap —" not in html


def _visible(html: str) -> str:
    """The text of a page as a reader sees it (no tags, no stylesheet)."""
    body = html.split("<body", 1)[1]
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


@pytest.mark.parametrize("game", _by_worker(["marlborough", "westphalia"]))
def test_gaps_left_blank_with_one_note(game):
    """A cell the rulebook does not print is blank and hatched, never the word "gap"; one note
    per table and reason says which cells and why."""
    sheet = sheets.build_sheet(game)
    assert sheet.gaps
    for t in sheet.tables:
        for r in t.rows:
            assert all(c.text == "" for c in r.cells if c.state == "gap")
        for o in t.odds:
            assert not any("gap" in h.lower() for h in o.results), t.title
    assert not re.search(r"\bgaps?\b", _visible(sheets.render_html(game)), re.I)
    if game == "marlborough":
        # CRT rows 4-6 are not printed: the engine needs them, so they are filled in as
        # assumed (marked on the sheet, MARL-PA18.6-01), not left blank
        crt = next(t for t in sheet.tables if t.title == "Combat Results Table")
        assert not [n for n in crt.notes if n.startswith("Left blank")]
        states = [[c.state for c in r.cells] for r in crt.rows]
        assert states[:3] == [["printed"] * 7] * 3 and states[3:] == [["assumed"] * 7] * 3
        (odds,) = crt.odds
        assert odds.results == ["AZ", "AA", "BB", "DD", "DZ"]
        assert odds.rows[0].values == ["50%", "33.3%", "16.7%", "–", "–"]
        siege = next(t for t in sheet.tables if t.title == "Siege Matrix")
        assert any(n.startswith("Left blank") for n in siege.notes)


def test_pdf_is_reproducible(rendered):
    again = sheets.render_pdf("westphalia")
    assert again == rendered["westphalia"][0]
    assert b"/CreationDate" not in again and b"/ModDate" not in again


def test_paper_sizes():
    assert "size: A4;" in sheets.render_html("westphalia", paper="a4")
    assert "size: letter;" in sheets.render_html("westphalia", paper="letter")
    with pytest.raises(sheets.SheetError, match="unknown paper"):
        sheets.render_html("westphalia", paper="a3")


def test_scenario_filter_keeps_its_own_aids():
    sheet = sheets.build_sheet("march_of_progress", scenario="thirty_years_war")
    titles = [t.title for t in sheet.tables]
    assert "Sequence of Actions card" in titles
    assert not any("play aid" in t for t in titles)
    with pytest.raises(sheets.SheetError, match="unknown scenario 'nope'"):
        sheets.build_sheet("march_of_progress", scenario="nope")


def _args(**kw):
    import argparse

    parser = argparse.ArgumentParser()
    cmd_sheet.add_arguments(parser)
    argv = [kw.pop("game")]
    for key, value in kw.items():
        argv += [f"--{key}", value]
    return parser.parse_args(argv)


def test_command_writes_html(tmp_path, capsys):
    out = tmp_path / "rot.html"
    assert cmd_sheet.run(_args(game="rise_of_totalitarianism", output=str(out))) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_command_bad_input_is_one_line(tmp_path, capsys):
    assert cmd_sheet.run(_args(game="chess", output=str(tmp_path / "x.pdf"))) == 1
    err = capsys.readouterr().err
    assert err.startswith("rulecraft: error: unknown game 'chess'") and err.count("\n") == 1
    assert not (tmp_path / "x.pdf").exists()
    assert cmd_sheet.run(_args(game="westphalia", output=str(tmp_path / "no" / "x.pdf"))) == 1
    assert "does not exist" in capsys.readouterr().err


@MARLBOROUGH
def test_gap_notes_name_rows_and_columns():
    sheet = sheets.build_sheet("marlborough")
    groups = {(g.table, g.reason): g.cells for g in sheet.gap_groups}
    # (the CRT's rows 4-6 and the Diplomacy Table's missing cells are assumed now, no
    # longer gaps: the Unit Costs Table's blank Battle Fleet training cost is)
    costs = [c for (t, _r), c in groups.items() if t == "Unit Costs Table"]
    assert [c for c in costs if c.startswith("Battle Fleet / Cost to Train")]
    assert not [c for (t, _r), c in groups.items() if t == "Combat Results Table"]
    assert not [c for (t, _r), c in groups.items() if t == "Diplomacy Table"]


def test_scenario_setups_have_readable_labels():
    """Rules: MOP-SETUP-01, MOP-AOM-SETUP-01"""
    sheet = sheets.build_sheet("march_of_progress")
    by_id = {s.id: s for s in sheet.scenarios}
    assert list(by_id)[0] == "thirty_years_war"  # the base comes first
    assert len(by_id) == len(
        list((sheets.default_rules_root() / "march_of_progress" / "scenarios").glob("*.yaml"))
    )
    base = by_id["thirty_years_war"]
    assert base.base_title == ""
    countries = next(t for t in base.tables if t.title == "Countries")
    assert countries.columns[:6] == ["Country", "Kind", "Owner", "Garrison", "VP max", "VP die"]
    assert [r[0] for r in countries.rows] == ["Blue home", "Neutral", "Orange home"]
    assert ("VP stock", "35") in base.facts
    aom = by_id["age_of_marlborough"]
    assert aom.title == "The Age of Marlborough"
    assert aom.base_title == "Introduction: The Thirty Years War"
    assert ("Countries removed", "Blue home, Neutral, Orange home") in aom.facts
    assert ("Cards removed", "ATTACK+1") in aom.facts
    players = next(t for t in aom.tables if t.title == "Players")
    assert players.columns == ["Player", "France (Blue)", "The Dutch Republic (Orange)"]
    assert ["Home", "France", "The Dutch Republic"] in players.rows
    html = sheets.render_html("march_of_progress")
    for raw in ("Vp max", "Vp stock", "blue_home", "Blue home; Kind", "count(me.discard)"):
        assert raw not in html, raw


def test_scenario_option_shows_its_base(tmp_path):
    sheet = sheets.build_sheet("march_of_progress", scenario="vive_lempereur")
    assert [s.title for s in sheet.scenarios] == ["Vive l'Empereur: The Napoleonic Wars"]
    assert sheet.scenarios[0].base_title == "Introduction: The Thirty Years War"
    # its play aid prints in its block, under "Play aids", not among the game's tables
    assert any("play aid" in t.title for t in sheet.scenarios[0].aid_tables)
    assert [x[0] for x in sheet.scenarios[0].sections] == [
        "Set-up",
        "Play aids",
        "Special rules",
        "Game end and victory",
    ]
    assert not any("play aid" in t.title for t in sheet.tables)


def test_running_title_is_not_html_escaped():
    html = sheets.render_html("third_reich_diplomacy")
    style = html.split("<style>")[1].split("</style>")[0]
    assert "content: \"The Gamer's Guide" in style and "&#39;" not in style


def test_written_file_has_normal_mode(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        out = tmp_path / "w.html"
        assert cmd_sheet.run(_args(game="westphalia", output=str(out))) == 0
        assert out.stat().st_mode & 0o777 == 0o644
        os.chmod(out, 0o640)  # an existing file keeps its mode
        assert cmd_sheet.run(_args(game="westphalia", output=str(out))) == 0
        assert out.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


def test_sheet_reads_the_project_it_runs_in_and_refuses_a_bad_table(tmp_path, capsys, monkeypatch):
    from compile_helpers import edit, scratch_project

    root = scratch_project(tmp_path, "westphalia")
    edit(
        root,
        "tables/end.yaml",
        "Phase)\n    kind: list",
        "Phase)\n    kind: bogus",
        game="westphalia",
    )
    monkeypatch.chdir(root)
    assert cmd_sheet.run(_args(game="westphalia", output=str(tmp_path / "w.html"))) == 1
    err = capsys.readouterr().err
    assert "end.yaml:6:11" in err and "'bogus' is not one of" in err
    assert not (tmp_path / "w.html").exists()


def test_mop_cards_show_their_printed_text():
    """Rules: MOP-ACT-01"""
    html = sheets.render_html("march_of_progress")
    assert "Move 1 of your armies from the country card it occupies to an adjacent" in html
    assert "you cannot play your SCORE card until your discard pile" in html
    cards = html.split("<h2>Cards</h2>", 1)[1].split("<h2>", 1)[0]
    assert "<dt>Group</dt>" not in cards  # the text, not the engine's grouping


def test_a_long_scenario_block_may_break_and_internal_kinds_are_left_out():
    html = sheets.render_html("westphalia")
    assert 'class="scenario long"' in html  # the map and cards span pages: no empty page first
    assert "Replace a Claim" not in html  # Westphalia's actions are internal: true
    mop = sheets.render_html("march_of_progress")
    assert 'class="scenario long"' not in mop.split('id="s-thirty_years_war"')[0][-40:]


# --------------------------------------------------------------------------------------------
# What a player pins next to the board: pages, scenario pages without engine names, the
# resolved --scenario sheet, odds that say something, grouped and de-duplicated tables.

#: pages each game's sheet may take (A4), with a margin: TR diplomacy was 26, MoP 10,
#: Westphalia 9 before the sheets were made compact
PAGE_BUDGET = {
    "march_of_progress": 9,  # 8 now
    # 36 with the six scenarios (29 with Blenheim alone; Scenarios 2-4 print their set-ups),
    # before this stop's diplomacy and naval tables: 6 of tables, 20 of map tiles (60 x 40 hexes)
    "marlborough": 40,
    # 11 now (scenario A with its assumed board, counters and cards in full, the Coup Deck; the
    # Summary of Turn's Events and the symbols references among the tables)
    "rise_of_totalitarianism": 13,
    "third_reich_diplomacy": 14,  # 13 now (14 before its scenarios were side by side)
    "westphalia": 7,  # 6 now
}


@pytest.mark.parametrize("game", _by_worker(sorted(PAGE_BUDGET), long=True))
def test_sheet_fits_its_page_budget(game):
    """The pages WeasyPrint lays the sheet out in (the PDF's, as the next test checks)."""
    assert 0 < len(_laid_out(game).pages) <= PAGE_BUDGET[game]


def test_the_pdf_has_the_pages_of_the_layout(tmp_path):
    path = tmp_path / "tr.pdf"
    path.write_bytes(_pdf("third_reich_diplomacy"))
    out = subprocess.run(["pdfinfo", str(path)], capture_output=True, check=True).stdout
    pages = int(re.search(rb"^Pages:\s+(\d+)", out, re.M).group(1))
    assert (
        pages
        == len(_laid_out("third_reich_diplomacy").pages)
        == len(_pdf_pages("third_reich_diplomacy"))
    )


def _scenario_text(html: str) -> str:
    part = html.split('<div class="scenario', 1)[1].split(">", 1)[1]
    part = part.split('<div class="footnotes">', 1)[0]
    # a play aid's small print names its rulebook section and rules-index ids, as every table's
    part = re.sub(r'<span class="prov">.*?</span>', " ", part)
    return " ".join(re.sub(r"<[^>]+>", " ", part).split())


def test_mop_scenario_pages_have_no_engine_names():
    """Rules: MOP-AOM-SETUP-01, MOP-VIVE-SETUP-01, MOP-WW1-SETUP-01, MOP-WW2-01, MOP-POL-SETUP-01"""
    text = _scenario_text(sheets.render_html("march_of_progress"))
    assert not re.findall(r"\b[a-z]+_[a-z0-9_]+\b", text)  # ids, constants, flags
    assert not re.findall(r"\b(?:true|false)\b", text)
    assert "`" not in text and not re.findall(r"\bMOP-[A-Z0-9]", text)
    # player wording from the data: a constant under its title, the rulebook's introduction
    assert "VPs to win 18" in text and "Countries the French control to win 3" in text
    assert "Neutral countries are rarely powerless" in text
    assert "Counter insurgency" not in text  # a reading the engine names, not a rule
    # what a scenario assumed (unprinted scenario cards) is marked, its reason a note
    n = re.search(r"Garrison †(\d+)", text).group(1)
    html = sheets.render_html("march_of_progress")
    assert f'<li id="fn{n}"><span class="n">{n}.</span>' in html and "garrison 2" in html
    # assumed items keep their dagger; the reason is a numbered note at the end
    html = sheets.render_html("westphalia")
    n = re.search(r"Territory points †(\d+)", _scenario_text(html)).group(1)
    assert f'<li id="fn{n}"><span class="n">{n}.</span>' in html


def test_complete_setup_leaves_out_zeros_and_summarises_bookkeeping():
    # one scenario's own block (the full sheet prints Third Reich's side by side, below)
    text = _scenario_text(sheets.render_html("third_reich_diplomacy", "campaign_1939"))
    assert "Commitments 138, one per owner, country" in text
    assert "Germany to Bulgaria" not in text  # not 138 rows of 0 DPs
    assert "Not listed: at 0, no or none at the start." in text
    assert "Axis: Rome, Genoa, Milan, Trieste, Venice" in text.replace("Axis Rome", "Axis: Rome")
    assert "Inactive ally" in text and "inactive_ally" not in text  # enum values in words
    assert "Finland (Inactive)" in text  # a table id as the table's title


def test_scenario_option_shows_the_resolved_scenario():
    """Rules: MOP-AOM-SETUP-03, MOP-AOM-SETUP-05, MOP-AOM-SETUP-07, MOP-AOM-END-01"""
    sheet = sheets.build_sheet("march_of_progress", "age_of_marlborough")
    cards = [c.title for c in sheet.cards]
    assert "ATTACK+1" not in cards and "SCORE" in cards  # the scenario removes ATTACK+1
    steps = {s.title: [n.text for n in s.body.items] for s in sheet.flow}
    assert any("Roll a die for each neutral country" in t for t in steps["Set-up"])
    assert any("18 VPs at the end of a turn wins" in t for t in steps["End of turn"])
    assert not any("at least 18 VPs; most VPs wins" in t for t in steps["End of turn"])
    stock = next(t for t in sheet.tables if t.title == "VP stock by scenario")
    assert [r.label for r in stock.rows] == ["The Age of Marlborough"]
    politics = sheets.build_sheet("march_of_progress", "politics_by_other_means")
    assert {"PROPAGANDA", "PARTISANS", "MILITIA"} <= {c.title for c in politics.cards}
    stock = next(t for t in politics.tables if t.title == "VP stock by scenario")
    assert [r.label for r in stock.rows] == ["Politics By Other Means"]
    # a card the scenario adds without a printed text says so, not an empty box
    ww2 = {
        c.title: c.body.text
        for c in sheets.build_sheet("march_of_progress", "ww2_in_the_west").cards
    }
    assert ww2["VWEAPONS"] == "Text not printed in the rulebook."
    # a play aid grouped by a part of the scenario's title is its own
    ww1 = sheets.build_sheet("march_of_progress", "war_to_end_war").scenarios[0]
    assert [t.title for t in ww1.aid_tables] == ["World War 1 in the West — play aid"]


@pytest.mark.parametrize("game", _by_worker(sorted(PAGE_BUDGET)))
def test_no_odds_row_is_a_single_100_percent(game):
    sheet = sheets.build_sheet(game)
    for t in sheet.tables:
        for o in t.odds:
            for row in o.rows:
                # (a single value below 100%: the other rolls land on cells not printed)
                shown = [v for v in row.values if v != "–"]
                assert len(shown) > 1 or (shown != ["100%"] and o.note), (t.title, row)


def test_modified_rolls_print_no_bare_roll_odds():
    """Rules: TR-DIP-ATT-07, TR-DIP-ATT-12"""
    sheet = sheets.build_sheet("third_reich_diplomacy")
    by_id = {t.id: t for t in sheet.tables}
    assert by_id["portugal"].odds == []  # no modifiers, but a 0 row: the roll is modified
    assert by_id["egypt"].odds == []
    assert by_id["spain_government"].odds  # the bare roll before the game
    assert "unmodified" not in sheets.render_html("third_reich_diplomacy")


def test_odds_by_modifier_option():
    compiled = sheets._compiled_tables(sheets.default_rules_root() / "third_reich_diplomacy")
    raw = {"dice": "1d6", "kind": "range", "sheet": {"odds": {"by_modifier": [-1, 1]}}}
    (odds,) = sheets._odds_for(raw, compiled["portugal"])
    assert [r.label for r in odds.rows] == ["−1", "0", "+1"] and odds.corner == "Net modifier"
    assert odds.results == ["0", "1-4", "5+"]
    assert odds.rows[1].values == ["–", "66.7%", "33.3%"]  # the bare roll never makes a 0
    assert odds.rows[0].values == ["16.7%", "66.7%", "16.7%"]  # 1d6-1: a 1 makes a 0
    assert sheets._odds_for({**raw, "sheet": {"odds": "none"}}, compiled["portugal"]) == []


def test_dp_box_groups_power_and_basis():
    """Rules: TR-DP-GER-01, TR-DP-GB-01"""
    sheet = sheets.build_sheet("third_reich_diplomacy")
    box = next(t for t in sheet.tables if t.id == "dp_gains_losses")
    headings = [r.label for r in box.rows if r.heading]
    assert headings[0] == "Germany — Receives Additional DPs for Axis control of"
    assert len(headings) == len(set(headings)) == 12
    assert box.columns == ["Control of", "DP"] and not box.has_row_labels
    assert all(len(r.cells) == 2 for r in box.rows if not r.heading)


@MARLBOROUGH
def test_marlborough_results_shifts_and_odds():
    """Rules: MARL-PA17.0R-01, MARL-PA18.6-02, MARL-PA17.0R-07"""
    sheet = sheets.build_sheet("marlborough")
    by_id = {t.id: t for t in sheet.tables}
    battle, siege, crt = by_id["battle_matrix"], by_id["siege_matrix"], by_id["crt"]
    assert "DW: Defender Withdraws (retreats after combat) one hex." in " ".join(battle.notes)
    assert any(n.startswith("Go to CRT +1: Go to CRT; shift the odds") for n in battle.notes)
    for t in (battle, siege, crt):
        for note in t.notes:
            code, _, rest = note.partition(": ")
            assert not rest.startswith(f"{code} —"), note  # the code is not repeated
    assert "Go to CRT, Go to CRT +1, Go to CRT +2, Go to CRT -1, Go to CRT -2, HW: as under" in (
        " ".join(siege.notes)
    )
    assert not any(n.startswith("No Effect:") for n in siege.notes)  # "No Effect: No Effect."
    (shifts,) = crt.extras
    assert shifts.columns == ["Column shift", "For"] and len(shifts.rows) == 7
    assert not any(n.startswith("Column shift:") for n in crt.notes)
    html = sheets.render_html("marlborough")
    block = html.split('id="t-crt"', 1)[1]
    assert block.index("Exact result probabilities") < block.index('<ul class="notes">')


@MARLBOROUGH
def test_the_map_is_inline_svg_in_a_browser_and_an_image_in_the_pdf():
    """In the browser each hex is an element with its name as a tooltip; the PDF draws each
    tile as one image (WeasyPrint styles no element of it), the same drawing."""
    html, pdf = sheets.render_html("marlborough"), sheets.render_html("marlborough", pdf=True)
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="board-map"') == 20
    assert "<title>0101 (All-sea)</title>" in html and "data:image/svg+xml" not in html
    images = re.findall(r'<img class="board-map" src="data:image/svg\+xml;base64,([^"]+)"', pdf)
    assert len(images) == 20 and "<svg" not in pdf.split('class="board"', 1)[1].split("</h2>")[0]
    first = base64.b64decode(images[0]).decode("utf-8")
    inline = html.split('<div class="map"', 1)[1].split("</svg>", 1)[0]
    assert first.startswith('<svg xmlns="http://www.w3.org/2000/svg" viewBox=')
    assert "<style>" in first and inline.split("<g ", 1)[1] in first


def test_rule_ids_are_shortened_to_runs():
    ids = ["TR-DIP-FINI-07", "TR-DIP-FINI-01", "TR-DIP-FINI-02", "TR-DP-GB-01", "TR-DP-GB-03"]
    assert sheets._rule_ranges(ids) == "TR-DIP-FINI-01–02, 07, TR-DP-GB-01, 03"
    assert sheets._rule_ranges(["MARL-PA17.0A-01", "MARL-ERR"]) == "MARL-PA17.0A-01, MARL-ERR"


def test_third_reich_record_form_stays_on_one_page_of_the_reference_sheet():
    """Rules: TR-REC-01"""
    (page,) = [
        p for p in _pdf_pages("third_reich_diplomacy") if "Record Keeping in Third Reich" in p
    ]
    assert "Previous Base" in page and "WINTER" in page  # first and last block together


# --------------------------------------------------------------------------------------------
# Scenarios side by side (game.yaml `sheet: {scenarios: side_by_side}`)


def _compare_table(sheet: sheets.Sheet, title: str) -> sheets.CompareTable:
    return next(t for t in sheet.comparison.tables if t.title.startswith(title))


def _row(table: sheets.CompareTable, label: str) -> sheets.CompareRow:
    return next(r for r in table.rows if r.labels[0] == label)


def test_third_reich_scenarios_print_side_by_side():
    sheet = sheets.build_sheet("third_reich_diplomacy")
    notes = {f.where: f.n for f in sheet.assumed}
    # the self-play campaign prints the same set-up as the campaign: they share a column
    assert sheet.comparison.columns == [
        "The Campaign Game, Fall 1939 / (self-play)",
        "Situation: Spring 1941",
        "Situation: Spring 1942",
    ]
    facts = sheet.comparison.tables[0]
    n41 = notes["Situation: Spring 1941 / Constants: Last year"]
    n42 = notes["Situation: Spring 1942 / Constants: Last year"]
    assert _row(facts, "Last year of the game").cells == ["1945", f"1942 †{n41}", f"1943 †{n42}"]
    # a base's assumption is not marked on a value the scenario sets itself
    n39 = notes["The Campaign Game, Fall 1939 / Globals: Season"]
    assert _row(facts, "Season").cells == [f"Fall †{n39}", "Spring", "Spring"]
    # a value a derived scenario does not set is its base's; the same everywhere: printed once
    assert _row(facts, "Spain's government").cells == ["Franco"] * 3
    assert _row(facts, "Spain's government").same
    assert not _row(facts, "Year").same
    assert _row(facts, "Axis combat factors in Finland").cells == ["–", "–", "40"]
    # players: a row per seat, what is the same in every scenario in columns of its own
    players = _compare_table(sheet, "Players — YSS BRPs")
    assert players.heads == ["Player", "Side", "Basic DP allotment"]
    assert _row(players, "Germany").labels == ["Germany", "Axis", "3"]
    assert _row(players, "Germany").cells == [
        "150; At war; Active",
        "250; At war; Active",
        "300; At war; Active",
    ]
    # records: their main field across, other fields set by name; an odd record's leading
    # field (Finland's table changes in 1942) is named in its scenario cells
    countries = _compare_table(sheet, "Countries")
    assert countries.title.endswith("— Status")
    assert countries.heads == ["Country", "Diplomatic table", "Resolved by"]
    bulgaria = _row(countries, "Bulgaria")
    assert bulgaria.labels == ["Bulgaria", "Bulgaria (Active)", "Named"]
    assert bulgaria.cells[0] == "Inactive ally"
    assert bulgaria.cells[1].startswith("Axis ally; ") and "Germany" in bulgaria.cells[1]
    finland = _row(countries, "Finland")
    assert finland.labels[1] == ""
    assert "Diplomatic table: Finland (Active)" in finland.cells[2]
    assert _row(countries, "Egypt").same
    # the same in neighbouring scenarios: once, across their columns
    assert _row(countries, "Bulgaria").runs == [("Inactive ally", 1), (bulgaria.cells[1], 2)]
    cities = _compare_table(sheet, "Cities — Controlled by")
    assert "Paris" in _row(cities, "Western").cells[0]
    assert (
        "Paris" not in _row(cities, "Western").cells[1] and "Paris" in _row(cities, "Axis").cells[1]
    )


def test_side_by_side_html_has_one_comparison_and_no_scenario_blocks():
    html = sheets.render_html("third_reich_diplomacy")
    assert html.count('<table class="rt compare">') == 4  # facts, players, countries, cities
    assert 'class="scenario"' not in html and 'class="scenario long"' not in html
    for sid in ("campaign_1939", "campaign_1939_solo", "situation_1941", "situation_1942"):
        assert f'id="s-{sid}"' in html  # each scenario's own text, in a short block
    assert '<td class="same" colspan="3">Franco</td>' in html
    assert '<td>Inactive ally</td><td class="same long" colspan="2">Axis ally; ' in html
    assert (
        '<strong>Situation: Spring 1941</strong> <span class="prov">(based on '
        "&ldquo;The Campaign Game, Fall 1939&rdquo;)</span>"
    ) in html
    text = _scenario_text(html)
    assert "–: at 0, no or none at the start." in text.replace("&ndash;", "–")


def test_one_scenario_and_games_without_the_option_print_blocks(tmp_path):
    one = sheets.build_sheet("third_reich_diplomacy", "situation_1941")
    assert one.comparison is None
    assert 'class="scenario' in sheets.render_html("third_reich_diplomacy", "situation_1941")
    assert sheets.build_sheet("march_of_progress").comparison is None
    # the option is what prints Third Reich's side by side: without it, a block each
    game = tmp_path / "third_reich_diplomacy"
    shutil.copytree(sheets.default_rules_root() / "third_reich_diplomacy", game)
    meta = game / "game.yaml"
    meta.write_text(meta.read_text().replace("sheet: {scenarios: side_by_side}", ""))
    meta.write_text(meta.read_text() + "sheet: {scenarios: sideways}\n")
    with pytest.raises(sheets.SheetError, match="'sideways' is not one_by_one or side_by_side"):
        sheets.build_sheet("third_reich_diplomacy", rules_root=tmp_path)
    meta.write_text(meta.read_text().replace("sheet: {scenarios: sideways}\n", ""))
    plain = sheets.build_sheet("third_reich_diplomacy", rules_root=tmp_path)
    assert plain.comparison is None and len(plain.scenarios) == 4
    assert (
        sheets.render_html("third_reich_diplomacy", rules_root=tmp_path).count(
            '<div class="scenario"'
        )
        + sheets.render_html("third_reich_diplomacy", rules_root=tmp_path).count(
            '<div class="scenario long"'
        )
        == 4
    )


def test_record_form_comes_last_on_a_page_of_its_own(tmp_path):
    """The form is the sheet's last page (one to copy), after the notes; its notes fit under it."""
    html = sheets.render_html("third_reich_diplomacy")
    assert html.index('<div class="footnotes">') < html.index('<div class="form-page">')
    assert html.index('<div class="form-page">') > html.index('class="rt compare"')
    pages = _pdf_pages("third_reich_diplomacy")
    assert "Record Keeping in Third Reich" in pages[-1]
    assert "Not printed in the rulebook: The Vol. 18" in pages[-1]  # the form's last note
    assert "Scenario set-ups" not in pages[-1]
    # with a save, the sheet is the form only, as before
    assert '<div class="form-page">' not in sheets.render_html(
        "third_reich_diplomacy", record=_save_file(tmp_path)
    )


def _save_file(tmp_path: Path) -> Path:
    save = tmp_path / "save.json"
    save.write_text(
        '{"game": "third_reich_diplomacy", "g": {"year": 1940, "season": "spring"},'
        ' "p": {"germany": {"yss_brps": 150}}}'
    )
    return save


def test_side_by_side_is_the_data_not_the_game(tmp_path):
    """Any game's scenarios line up: a complete one, one based on it, one that changes nothing
    a player reads (it shares its base's column)."""
    game = tmp_path / "skirmish"
    (game / "scenarios").mkdir(parents=True)
    (game / "game.yaml").write_text(
        "game: skirmish\ntitle: Skirmish\nsheet: {scenarios: side_by_side}\n"
        "state:\n  entities:\n    fort:\n      plural: forts\n"
    )
    (game / "scenarios" / "early.yaml").write_text(
        "scenario: early\ntitle: Early War\ntext: The first clash.\n"
        "seats: {red: {name: Red}, blue: {name: Blue}}\n"
        "globals: {year: 1700, rain: false}\n"
        "players:\n  red: {gold: 5}\n  blue: {gold: 4}\n"
        "entities:\n  fort:\n"
        "    a: {name: Alpha, owner: red, guns: 2}\n"
        "    b: {name: Beta, owner: blue, guns: 3}\n"
        "assumed: {globals.year: A guess.}\n"
    )
    (game / "scenarios" / "late.yaml").write_text(
        "scenario: late\nbase: early\ntitle: Late War\ntext: The last clash.\n"
        "globals: {year: 1710, rain: true}\nplayers:\n  red: {gold: 9}\n"
        "entities:\n  fort:\n    b: {owner: red}\n"
    )
    (game / "scenarios" / "late_solo.yaml").write_text(
        "scenario: late_solo\nbase: late\ntitle: Late War (solo)\ntext: Alone.\n"
        "constants: {bots: {value: 1}}\n"
    )
    sheet = sheets.build_sheet("skirmish", rules_root=tmp_path)
    assert sheet.comparison.columns == ["Early War", "Late War / (solo)"]
    facts = sheet.comparison.tables[0]
    n = next(f.n for f in sheet.assumed if f.where == "Early War / Globals: Year")
    assert _row(facts, "Year").cells == [f"1700 †{n}", "1710"]
    assert _row(facts, "Rain").cells == ["–", "yes"]
    players = _compare_table(sheet, "Players — Gold")
    assert _row(players, "Red").cells == ["5", "9"] and _row(players, "Blue").same
    forts = _compare_table(sheet, "Forts — Owner")
    assert forts.heads == ["Fort", "Guns"]
    assert _row(forts, "Beta").labels == ["Beta", "3"]
    assert _row(forts, "Beta").cells == ["Blue", "Red"]
    html = sheets.render_html("skirmish", rules_root=tmp_path)
    assert "The last clash." in html and "Alone." in html


def test_starter_game_prints_its_goal_and_no_markdown(tmp_path):
    """A starter game (`rulecraft init`): its board constant (the goal) printed under its
    title, a rules text naming it in backquotes reads its title and value, other inline
    markdown is rendered, never printed raw."""
    from rulecraft.compiler.commands.init import init_project

    init_project(tmp_path / "proj", "race")
    rules = tmp_path / "proj" / "rules"
    flow = rules / "race" / "flow.yaml"
    flow.write_text(flow.read_text().replace("equal leaders tie.", "equal leaders **tie**."))
    cards = rules / "race" / "cards.yaml"
    assert "Gain 1 point." in cards.read_text()
    cards.write_text(cards.read_text().replace("Gain 1 point.", "Gain `1` point."))
    sheet = sheets.build_sheet("race", rules_root=rules)
    assert sheet.values == [("Points to win", "10")]
    html = sheets.render_html("race", rules_root=rules)
    assert "<dt>Points to win</dt><dd>10</dd>" in html
    assert "once someone has Points to win (10); equal leaders <strong>tie</strong>." in html
    assert "Gain <code>1</code> point." in html
    assert "`" not in _visible(html) and "**" not in _visible(html)
    # the bundled games name no board constant in rules.yaml: no "Game values" section there
    assert "Game values" not in sheets.render_html("westphalia")


def test_mop_combat_summary():
    """Rules: MOP-COMBAT-01, MOP-COMBAT-02, MOP-COMBAT-03, MOP-COMBAT-04, MOP-COMBAT-06,
    MOP-COMBAT-07, MOP-COMBAT-08"""
    sheet = sheets.build_sheet("march_of_progress")
    by_title = {t.title: t for t in sheet.tables}
    strength = by_title["Combat — each side's total strength"]
    rows = {r.label: [c.text for c in r.cells] for r in strength.rows}
    assert rows["Each normal army"] == ["its home country's army strength"] * 2
    assert rows["ATTACK+1 with a card discarded"][0] == "+1 to the total"
    assert rows["Capital garrison"][1].startswith("2, in its home country")
    # the rulebook's reading of a fortified army in defence is marked as such
    (fort,) = [r for r in strength.rows if r.label == "Each fortified army"]
    assert fort.cells[1].state == "assumed" and fort.cells[1].mark
    result = by_title["Combat — result"]
    assert [r.label for r in result.rows] == [
        "Equal",
        "One higher",
        "Attacker higher in the defender's home country",
    ]


@pytest.mark.parametrize("game", _by_worker(sorted(PAGE_BUDGET)))
def test_no_sheet_prints_gap(game):
    """No cell, result, probability or note of any bundled game's sheet reads "gap"."""
    assert not re.search(r"gap", _visible(sheets.render_html(game)), re.I)
