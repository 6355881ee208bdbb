"""`rulecraft init [DIR] [--game NAME] [--from GAME]`: make a rules project of one's own.

Writes, into DIR (default: the working folder), a ``rulecraft.toml``, one game under
``rules/<game>/`` (a small working race game, or with ``--from`` a copy of a bundled game), the
JSON Schemas and ``.vscode/settings.json`` for completion in the editor, a README for the
designer, and a CI workflow (GitHub Actions) that checks, tests, simulates and publishes the
sheets and the balance page. It refuses to overwrite a file that is already there.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ..schema_files import installed_schemas
from .registry import CLIError, command, version

__all__ = ["init_project", "install_step", "WORKFLOW", "WHEELS"]

#: where the workflow goes (GitHub Actions); the test runs its steps as a script
WORKFLOW = ".github/workflows/rules.yml"
#: where the project keeps the rulecraft wheel its CI installs while rulecraft is not on PyPI
WHEELS = "wheels"


def _add(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", nargs="?", default=".", help="the project folder (default: here)")
    p.add_argument(
        "--game", default=None, help="the id of the new game (default: from the folder's name)"
    )
    p.add_argument(
        "--from",
        dest="source",
        default=None,
        metavar="GAME",
        help="start from a copy of a game bundled with rulecraft (e.g. march_of_progress)",
    )
    p.add_argument(
        "--schemas",
        action="store_true",
        help="only replace the schemas/ of an existing project with this rulecraft's (after "
        "an upgrade: completion in the editor follows the installed rulecraft)",
    )


def _run(args: argparse.Namespace) -> int:
    root = Path(args.dir).resolve()
    if args.schemas:
        if args.game is not None or args.source is not None:
            raise CLIError("--schemas goes alone: it only refreshes schemas/")
        if not (root / "rulecraft.toml").is_file() and not (root / "schemas").is_dir():
            raise CLIError(f"{root} is not a project made by rulecraft init (no rulecraft.toml)")
        (root / "schemas").mkdir(exist_ok=True)
        for path in installed_schemas():
            target = root / "schemas" / path.name
            if not target.exists() or target.read_bytes() != path.read_bytes():
                shutil.copyfile(path, target)
                print(f"wrote schemas/{path.name}", file=sys.stderr)
        return 0
    written = init_project(root, game=args.game, source=args.source)
    for path in written:
        print(f"wrote {path.relative_to(root).as_posix()}", file=sys.stderr)
    workflow = (root / WORKFLOW).read_text(encoding="utf-8")
    if f"--find-links {WHEELS}" in workflow and not any((root / WHEELS).glob("*.whl")):
        print(
            f"rulecraft: CI installs rulecraft {version()} from {WHEELS}/ (it is not on PyPI "
            f"yet): put its wheel there (README.md says how)",
            file=sys.stderr,
        )
    where = "" if args.dir == "." else f"cd {shlex.quote(args.dir)} && "
    print(
        f"rulecraft: a project in {root}; next: {where}rulecraft check && "
        "rulecraft compile && rulecraft test (README.md says more)",
        file=sys.stderr,
    )
    return 0


def _direct_url() -> dict[str, Any]:
    """Where the installed rulecraft came from (PEP 610 ``direct_url.json``: a clone, a
    wheel file, a git URL); empty when it came from an index or is not installed."""
    from importlib import metadata

    try:
        raw = metadata.distribution("rulecraft").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return {}
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def install_step(origin: dict[str, Any], ver: str) -> tuple[str, Path | None]:
    """The CI workflow's install command for the rulecraft that makes the project, and the
    wheel to copy into the project's ``wheels/`` (or None). rulecraft is not on PyPI yet, so
    the version alone (``rulecraft==0.1.0``) finds nothing:

    - installed from a git URL (``pip install git+URL@REV``): the same commit from there;
    - from a clone whose ``origin`` is a URL: that commit from the remote;
    - otherwise (a wheel file, a clone without a remote): the version, looked for in the
      project's ``wheels/`` first (the wheel itself is copied there when this rulecraft was
      installed from one), then on PyPI once it is published.
    """
    extras = "rulecraft[compile,sheets]"
    vcs = origin.get("vcs_info") if isinstance(origin.get("vcs_info"), dict) else None
    url = str(origin.get("url") or "")
    if vcs and vcs.get("vcs") == "git" and vcs.get("commit_id"):
        return f'pip install "{extras} @ git+{url}@{vcs["commit_id"]}"', None
    local = Path(unquote(urlparse(url).path)) if url.startswith("file://") else None
    if local is not None and local.is_dir():
        remote = _git(local, "remote", "get-url", "origin")
        commit = _git(local, "rev-parse", "HEAD")
        if remote and commit and re.match(r"^(https?|ssh|git)://|^git@", remote):
            return f'pip install "{extras} @ git+{remote}@{commit}"', None
    wheel = local if local is not None and local.suffix == ".whl" and local.is_file() else None
    return f'pip install --find-links {WHEELS} "{extras}=={ver}"', wheel


def _git(where: Path, *argv: str) -> str:
    """A git command's output in ``where`` ("" if git or the answer is missing)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(where), *argv], capture_output=True, text=True, timeout=20
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _identifier(name: str) -> str:
    ident = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    if not ident or not ident[0].isalpha():
        ident = "my_game" if not ident else f"game_{ident}"
    return ident


def init_project(folder: Path, game: str | None = None, source: str | None = None) -> list[Path]:
    """Write a new project into ``folder``; returns the files written, sorted."""
    from ..project import bundled_project

    folder = folder.resolve()
    if folder.exists() and not folder.is_dir():
        raise CLIError(f"{folder} is a file, not a folder: name a new or empty folder to init")
    bundled = bundled_project()
    if source is not None:
        src = bundled.rules / source
        if not source.isidentifier() or not (src / "game.yaml").is_file():
            known = ", ".join(g for g in bundled.games() if (bundled.rules / g).is_dir())
            raise CLIError(f"no bundled game {source!r} to start from (bundled: {known})")
        if game is not None and game != source:
            raise CLIError("--game does not go with --from: the copy keeps its id")
        game = source
    game = game or _identifier(folder.name)
    if not game.isidentifier() or game != game.lower():
        raise CLIError(f"a game id is a lower-case name (letters, digits, _), not {game!r}")
    if (folder / "rulecraft.toml").exists():
        raise CLIError(f"{folder} is already a project (it has a rulecraft.toml)")
    package = f"{game}_engines"
    install, wheel = install_step(_direct_url(), version())
    files: dict[str, str] = {
        "rulecraft.toml": CONFIG.format(package=package),
        "README.md": README.format(game=game, version=version(), wheels=WHEELS),
        WORKFLOW: CI.format(install=install),
        ".gitignore": GITIGNORE,
        ".vscode/settings.json": VSCODE,
    }
    if source is None:
        title = game.replace("_", " ").title()
        for name, text in STARTER.items():
            files[f"rules/{game}/{name}"] = text.format(game=game, title=title)
    schemas = installed_schemas()
    clashes = [n for n in sorted(files) if (folder / n).exists()]
    clashes += [f"schemas/{p.name}" for p in schemas if (folder / "schemas" / p.name).exists()]
    if source is not None and (folder / "rules" / game).exists():
        clashes.append(f"rules/{game}/")
    if clashes:
        raise CLIError(f"{folder / clashes[0]} is already there: init writes only new files")
    try:
        written = _write(folder, files, schemas, bundled.rules / source if source else None, game)
        if wheel is not None:  # the wheel this rulecraft came from: CI installs it
            (folder / WHEELS).mkdir(exist_ok=True)
            shutil.copyfile(wheel, folder / WHEELS / wheel.name)
            written = sorted([*written, folder / WHEELS / wheel.name])
        return written
    except OSError as exc:  # a file where a folder goes, no permission, a full disk
        where = exc.filename or folder
        raise CLIError(f"cannot write {where}: {exc.strerror or exc}") from None


def _write(
    folder: Path, files: dict[str, str], schemas: list[Path], source: Path | None, game: str
) -> list[Path]:
    written = []
    for name, text in sorted(files.items()):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    if source is not None:
        shutil.copytree(source, folder / "rules" / game)
        written.extend(sorted(p for p in (folder / "rules" / game).rglob("*") if p.is_file()))
    (folder / "schemas").mkdir(exist_ok=True)
    for path in schemas:
        target = folder / "schemas" / path.name
        shutil.copyfile(path, target)
        written.append(target)
    return sorted(written)


command("init", "make a rules project of your own (a folder with rulecraft.toml)", _add, _run)


CONFIG = """\
# A rulecraft project: `rulecraft` commands run anywhere below this folder find it.
rules = "rules"          # one folder per game
generated = "generated"  # where `rulecraft compile` writes the engines (commit them)
package = "{package}"  # the Python package the engines are imported as
"""

GITIGNORE = """\
__pycache__/
*.so
/out/
.rulecraft-cache/
"""

VSCODE = """\
{
  "yaml.schemas": {
    "./schemas/game.schema.json": ["rules/*/game.yaml"],
    "./schemas/rules.schema.json": ["rules/*/rules.yaml"],
    "./schemas/cards.schema.json": ["rules/*/cards.yaml"],
    "./schemas/flow.schema.json": ["rules/*/flow.yaml"],
    "./schemas/board.schema.json": ["rules/*/board.yaml"],
    "./schemas/scenario.schema.json": ["rules/*/scenarios/*.yaml"],
    "./schemas/example.schema.json": ["rules/*/examples/*.yaml"],
    "./schemas/tables.schema.json": ["rules/*/tables/*.yaml"]
  },
  "yaml.validate": true,
  "yaml.completion": true,
  "yaml.hover": true
}
"""

# The workflow's steps are plain shell, one command each, so that they run the same on a
# laptop (the project's test runs them as a script). The install step is the one that names
# rulecraft's version: the engines in generated/ were made by it (`install_step`).
CI = """\
# Checks the rules on every push: they compile, generated/ is current, the examples of play
# pass, and a short self-play runs; then publishes the PDF sheets and the balance page.
name: rules
on: [push, pull_request]
jobs:
  rules:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      # the rulecraft that made generated/ (not on PyPI yet: from its wheel in wheels/, or
      # from the commit it was installed from)
      - name: Install rulecraft
        id: install
        run: |
          sudo apt-get install -y libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0
          {install}
      - name: Check the rules
        run: rulecraft check
      - name: The generated engines are current
        run: rulecraft compile --check
      - name: Examples of play
        run: rulecraft test
      - name: A short self-play of every game
        run: |
          for game in $(ls rules); do
            if [ -f "rules/$game/flow.yaml" ]; then
              rulecraft simulate "$game" --games 50
            fi
          done
      - name: Sheets and balance pages
        run: |
          mkdir -p out
          for game in $(ls rules); do
            rulecraft sheet "$game" --format pdf -o "out/$game.pdf"
            if [ -f "rules/$game/flow.yaml" ]; then
              rulecraft simulate --all "$game" --games 50 --bot-games 2 \\
                --html "out/$game-balance.html"
            fi
          done
      - uses: actions/upload-artifact@v4
        with:
          name: sheets-and-balance
          path: out/
"""

README = """\
# {game}

A board game written as data for rulecraft (made with `rulecraft init`, rulecraft
{version}).

```
rulecraft.toml               this folder is a rulecraft project: where rules and engines are
rules/{game}/                the game: game.yaml (its state), rules.yaml, cards.yaml,
                             flow.yaml, scenarios/, examples/ (examples of play)
generated/                   the engines `rulecraft compile` writes (commit them)
schemas/                     JSON Schemas of rules files: completion in your editor
.github/workflows/rules.yml  CI: check, compile --check, test, simulate; the PDF sheets
                             and the balance page as build artifacts
{wheels}/                       the rulecraft wheel CI installs (commit it)
```

rulecraft is not on PyPI yet. CI installs the rulecraft that made this project: the wheel
in `{wheels}/` (copied there by `init` when rulecraft was installed from a wheel; else build
one in rulecraft's clone with `python -m pip wheel --no-deps -w dist .` and copy it), or,
when rulecraft was installed from a git URL or a clone with a remote, that commit. After an
upgrade, replace the wheel and the version in the workflow's install step together.

Edit a rules file, then:

```sh
rulecraft check                              # every error as file:line:col with a caret
rulecraft compile                            # write generated/ (commit it)
rulecraft test                               # the examples of play
rulecraft play {game} --seats human,mc       # play against a bot at the terminal
rulecraft simulate {game} --games 500        # win rates with 95% intervals
rulecraft simulate --all {game} --html out/balance.html   # the balance page
rulecraft sheet {game} -o out/{game}.pdf     # the printable reference sheet
```

Editor support: open the folder in VS Code with the "YAML" extension (Red Hat); the
`# yaml-language-server: $schema=...` first line of every rules file and `.vscode/settings.json`
give completion and a description of every key. After upgrading rulecraft, run
`rulecraft init --schemas` (the schemas of the new version) and `rulecraft compile`: engines
made for another runtime interface are refused with a message saying so.

Play from Python (only the rulecraft runtime is needed, not the compiler):

```python
from rulecraft.runtime import Game, use_project
from rulecraft.runtime.tools.agents import make_agent

use_project(".")  # the engines this folder's rulecraft.toml names
game = Game.named("{game}", seed=1)  # its first scenario
bots = [make_agent("mc", seed=n) for n in range(len(game.spec.seats))]
while not game.finished:
    d = game.pending()[0]
    game.apply(d.player, bots[d.player].choose(game.view_state(d.player), d, game.spec))
print(game.result)
```
"""

STARTER = {
    "game.yaml": """\
# yaml-language-server: $schema=../../schemas/game.schema.json
# The game's state: what every player has, and the attributes every card gives.
game: {game}
title: {title}
source: invented by its designer
state:
  player:
    points: {{type: int, min: 0, title: Points}}
    cards: {{type: cards, doc: "Every card the player owns (bots need it to guess hands)."}}
    hand: {{type: cards, visible: owner}}
    played: {{type: cards, internal: true}}
    discard: {{type: cards}}
""",
    "rules.yaml": """\
# yaml-language-server: $schema=../../schemas/rules.schema.json
# Named values and rules shared by the cards and the flow; a scenario may change them.
constants:
  goal:
    value: 10
    title: Points to win
    board: true
    doc: Points that win at the end of a turn.
""",
    "cards.yaml": """\
# yaml-language-server: $schema=../../schemas/cards.schema.json
# The cards; `me` is the player carrying one out.
cards:
  step:
    name: STEP
    text: Gain 1 point.
    effect: |
      me.points += 1
  dash:
    name: DASH
    text: Roll a die. On 4 or more, gain 3 points.
    effect: |
      if roll(6) >= 4:
          me.points += 3
          log "{{me}} dashes ahead"
      else:
          log "{{me}} stumbles"
  rest:
    name: REST
    text: Take your discarded cards back into your hand.
    effect: |
      move all from me.discard to me.hand
""",
    "flow.yaml": """\
# yaml-language-server: $schema=../../schemas/flow.schema.json
# The flow of play: set-up steps run once, then turns of phases until the game ends.
setup: {{}}
turn:
  play:
    doc: Every player picks a card from their hand in secret; then all are carried out.
    do: |
      simultaneously p in players:
          let c = choose(p, p.hand, "Pick a card")
          move c from p.hand to p.played
      for p in players:
          let c = first(p.played)
          log "{{p}} plays {{c}}"
          move c from p.played to p.discard
          play(c, p)
end_of_turn:
  finish:
    doc: The player with the most points wins once someone has `goal`; equal leaders tie.
    do: |
      let best = max([p.points for p in players])
      if best >= goal:
          end_game([p for p in players if p.points == best], "the goal is reached")
""",
    "scenarios/first_race.yaml": """\
# yaml-language-server: $schema=../../../schemas/scenario.schema.json
scenario: first_race
title: The First Race
text: Two runners, three cards each, and a race to the goal.
seats:
  red: {{name: Red}}
  blue: {{name: Blue}}
players:
  all: {{points: 0, cards: [step, dash, rest], hand: [step, dash, rest]}}
max_turns: 100
""",
    "examples/first_turn.yaml": """\
# yaml-language-server: $schema=../../../schemas/example.schema.json
# An example of play: `rulecraft test` plays it and checks every expectation.
example: first_turn
title: Both runners step
scenario: first_race
seed: 1
steps:
  - expect:
      pending: [red, blue]
      options: {{player: red, ids: ["card:step", "card:dash", "card:rest"]}}
  - decide: {{player: red, option: "card:step"}}
  - decide: {{player: blue, option: "card:step"}}
  - expect:
      state: {{p.red.points: 1, p.blue.points: 1, p.red.discard: [step], turn: 2}}
""",
}
