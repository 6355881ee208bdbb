"""A designer's project from an installed wheel, outside the repository (``-m project``).

The module builds rulecraft's wheel from the checkout, installs it with its compile and sheets
extras into a fresh virtual environment (pip reaches the package index for the dependencies)
and works in a temporary folder the way a designer does: `rulecraft init`, an edit to the
YAML, check, compile, compile --check (clean, then stale after another edit), test, simulate,
sheet --format pdf, the README's Python example, and the CI workflow's steps run as a script.
A few minutes on two cores, most of it pip.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from compile_helpers import REPO

pytestmark = pytest.mark.project


class Env:
    """The fresh virtual environment with the wheel installed."""

    def __init__(self, venv: Path) -> None:
        self.venv = venv
        self.bin = venv / "bin"
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        self.env["PATH"] = f"{self.bin}{os.pathsep}{self.env.get('PATH', '')}"
        self.env["VIRTUAL_ENV"] = str(venv)

    def run(
        self, args: list[str], cwd: Path, status: int = 0, timeout: int = 600
    ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            args, cwd=cwd, env=self.env, capture_output=True, text=True, timeout=timeout
        )
        assert proc.returncode == status, (
            f"{' '.join(args)} exited {proc.returncode}, not {status}\n"
            f"--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
        )
        return proc

    def rulecraft(self, *args: str, cwd: Path, status: int = 0) -> subprocess.CompletedProcess[str]:
        return self.run([str(self.bin / "rulecraft"), *args], cwd, status)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    base = tmp_path_factory.mktemp("wheel")
    # build from a copy of the working tree: other people's build/ and egg-info stay untouched
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    src = base / "src"
    for rel in listed:
        if rel.startswith(("tests/", "benchmarks/")) or not (REPO / rel).is_file():
            continue
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, src / rel)
    dist = base / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    [wheel] = dist.glob("rulecraft-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = Env(venv)
    env.run(
        [str(env.bin / "python"), "-m", "pip", "install", "-q", f"{wheel}[compile,sheets]"],
        base,
        timeout=900,
    )
    yield env


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def _workflow_script(root: Path) -> str:
    """The CI workflow's steps as one shell script: every `run:` but the install step."""
    workflow = yaml.safe_load((root / ".github" / "workflows" / "rules.yml").read_text())
    steps = [
        s for s in workflow["jobs"]["rules"]["steps"] if "run" in s and s.get("id") != "install"
    ]
    assert len(steps) >= 5
    return "set -euo pipefail\n" + "\n".join(s["run"] for s in steps)


def _flow(env: Env, root: Path, game: str, scenario: str, again: Callable[[], None]) -> None:
    """check, compile, compile --check clean then stale after ``again`` (another edit), test,
    simulate, sheet, and the CI workflow's steps."""
    env.rulecraft("check", cwd=root)
    env.rulecraft("compile", cwd=root)
    assert (root / "generated" / game / "engine.py").is_file()
    env.rulecraft("compile", "--check", cwd=root)
    again()  # another edit: generated/ is stale until compiled again
    stale = env.rulecraft("compile", "--check", cwd=root, status=1)
    assert "generated/ is stale" in stale.stderr and stale.stdout.startswith("--- a/generated/")
    env.rulecraft("compile", cwd=root)
    env.rulecraft("compile", "--check", cwd=root)
    tested = env.rulecraft("test", cwd=root)
    assert " 0 failed" in tested.stdout
    sim = env.rulecraft("simulate", f"{game}/{scenario}", "--games", "20", "--json", cwd=root)
    assert '"games": 20' in sim.stdout
    env.rulecraft(
        "sheet", game, "--scenario", scenario, "--format", "pdf", "-o", "sheet.pdf", cwd=root
    )
    assert (root / "sheet.pdf").read_bytes().startswith(b"%PDF-")
    # the CI workflow, as a script
    (root / "ci.sh").write_text(_workflow_script(root))
    env.run(["bash", "ci.sh"], root, timeout=900)
    assert (root / "out" / f"{game}.pdf").read_bytes().startswith(b"%PDF-")
    assert "<html" in (root / "out" / f"{game}-balance.html").read_text()


def test_init_edit_check_compile_test_simulate_sheet_and_ci_from_the_wheel(
    installed: Env, tmp_path: Path
) -> None:
    assert not tmp_path.is_relative_to(REPO)
    installed.rulecraft("init", "race", cwd=tmp_path)
    root = tmp_path / "race"
    # rulecraft is not on PyPI: CI installs the wheel this rulecraft came from, copied here
    [copied] = (root / "wheels").glob("rulecraft-*.whl")
    workflow = (root / ".github" / "workflows" / "rules.yml").read_text()
    assert '--find-links wheels "rulecraft[compile,sheets]==' in workflow
    rules = root / "rules" / "race" / "rules.yaml"
    _edit(rules, "value: 10", "value: 8")  # as a designer would
    _flow(installed, root, "race", "first_race", lambda: _edit(rules, "value: 8", "value: 9"))
    explained = installed.rulecraft("explain", "race/first_race", "--json", cwd=root).stdout
    assert '"value": 9' in explained

    # the README's example plays a game with the runtime only: no compiler module imported
    readme = (root / "README.md").read_text()
    [example] = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(example.strip().splitlines()) <= 10
    check = (
        example
        + "import sys\n"
        + "assert game.finished\n"
        + "loaded = [m for m in sys.modules if m.startswith(('rulecraft.compiler', 'lark', "
        + "'jinja2', 'jsonschema', 'weasyprint'))]\n"
        + "assert not loaded, loaded\n"
    )
    out = installed.run([str(installed.bin / "python"), "-c", check], root)
    assert "winners" in out.stdout


def test_from_march_of_progress_with_a_scenario_overlay_from_the_wheel(
    installed: Env, tmp_path: Path
) -> None:
    installed.rulecraft("init", "mop", "--from", "march_of_progress", cwd=tmp_path)
    root = tmp_path / "mop"
    game = root / "rules" / "march_of_progress"
    assert (game / "scenarios" / "thirty_years_war.yaml").is_file()
    overlay = game / "scenarios" / "short_war.yaml"
    overlay.write_text(
        "# yaml-language-server: $schema=../../../schemas/scenario.schema.json\n"
        "scenario: short_war\n"
        "base: thirty_years_war\n"
        'title: "The Short War"\n'
        "text: The Thirty Years War to 12 VPs, with a smaller stock.\n"
        "constants:\n"
        "  victory_vps: {value: 12, title: VPs to win}\n"
        "globals:\n"
        "  vp_stock: 30\n"
    )
    _edit(game / "rules.yaml", "army_limit: {value: 3,", "army_limit: {value: 4,")
    _flow(
        installed,
        root,
        "march_of_progress",
        "short_war",
        lambda: _edit(overlay, "vp_stock: 30", "vp_stock: 32"),
    )
    explained = installed.rulecraft("explain", "march_of_progress/short_war", cwd=root).stdout
    assert "scenarios/short_war.yaml" in explained and "victory_vps" in explained
    listed = installed.rulecraft("list", "march_of_progress", cwd=root).stdout
    assert "march_of_progress/short_war: The Short War" in listed
    # outside the project the bundled game is played (it has no short_war)
    installed.rulecraft(
        "simulate", "march_of_progress/short_war", "--games", "1", cwd=tmp_path, status=1
    )
    installed.rulecraft("sheet", "westphalia", "-o", "w.html", cwd=tmp_path)
