"""Files people ask for (sheets, saves, exports, balance pages) are written only as regular
files: a symbolic link, a pipe, a device or a folder at the path is refused, not replaced."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from fixtures.toy import SPEC
from rulecraft.compiler.cli import main
from rulecraft.runtime import Game
from rulecraft.runtime.files import FileWriteError, write_file
from rulecraft.runtime.tools.terminal import play


def test_a_regular_file_is_written_and_replaced_keeping_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "sheet.html"
    write_file(out, "one")
    assert out.read_text() == "one"
    os.chmod(out, 0o640)
    write_file(out, b"two")
    assert out.read_bytes() == b"two" and out.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sheet.html"]  # no temporary left


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder", "device"])
def test_anything_but_a_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out"
    if kind == "symlink":
        (tmp_path / "real").write_text("keep")
        target.symlink_to(tmp_path / "real")
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    else:
        target = Path("/dev/null")
    with pytest.raises(FileWriteError, match=f"cannot write {target}: it is"):
        write_file(target, "x")
    if kind == "symlink":
        assert (tmp_path / "real").read_text() == "keep" and target.is_symlink()


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileWriteError, match="folder .* does not exist"):
        write_file(tmp_path / "no" / "f.json", "x")


def test_sheet_refuses_to_replace_a_device(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sheet", "march_of_progress", "--format", "html", "-o", "/dev/null"]) == 1
    assert "/dev/null: it is not a regular file" in capsys.readouterr().err


def test_save_export_and_load_at_the_terminal(tmp_path: Path) -> None:
    full, mine = tmp_path / "game.json", tmp_path / "mine.json"
    script = f"save {full}\nexport {mine}\nsave /dev/null\nsave\nquit\n"
    out = io.StringIO()
    play(SPEC, "duel", ["human", "random"], 4, input=io.StringIO(script), output=out)
    text = out.getvalue()
    assert f"Saved to {full}" in text and f"Exported what you see to {mine}" in text
    assert "Not written: cannot write /dev/null" in text and "Write save FILE" in text
    saved = Game.from_json(full.read_text())
    # the export is what red sees: blue's hand is hidden in it, not in the save
    shared = json.loads(mine.read_text())
    assert shared["seat"] == "red" and shared["view"]["p"][1]["hand"] == {"hidden": 3}
    assert json.loads(saved.export(0)) == shared
    assert "rng" not in mine.read_text() and '"rng"' in full.read_text()
    # and the game goes on from the save
    out = io.StringIO()
    play(SPEC, "duel", ["human", "random"], 0, input=io.StringIO("quit\n"), output=out, start=saved)
    assert f"turn {saved.state['turn']}" in out.getvalue()


def test_play_load_names_a_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "toy", "--load", str(tmp_path / "none.json")]) == 1
    assert "cannot read" in capsys.readouterr().err
    other = tmp_path / "mop.json"
    other.write_text(Game.named("march_of_progress/thirty_years_war", 1).to_json())
    assert main(["play", "toy", "--load", str(other)]) == 1
    assert "is a game of march_of_progress, not of toy" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["play", "toy", "--load", str(bad)]) == 1
    assert "not a saved game" in capsys.readouterr().err
