"""The engines of The March of Progress against the previous generation (engine v1): the same
decisions give the same game.

Engine v1 (dict states, block functions) is taken from the git history: commit ``V1`` holds
its ``runtime/`` and ``generated/``, extracted into a scratch package ``rulecraft_v1`` (its
imports of ``rulecraft.runtime`` and ``rulecraft.generated`` rewritten). Both engines play
random games with the same seed and the same decisions; after set-up and after every
decision they must agree on the pending decisions (players, kinds, prompts and the set of
options as (id, label); v1 listed a hand in the order the cards entered it, v2 in card
order), on every log line with its audience, and at the end on the result.

One rule changed on purpose since v1 (MOP-ATT-05, "you may turn any of your fortified armies
in the combat country back into normal armies"): when all the attacker's armies in the
country are fortified, v1 stood up the first by id without asking and v2 lets the attacker
choose, and the stand-up question names the army. The comparison takes v1's reading on that
question (the first army) and compares the yes/no question without the army's name.

The default run plays ``GAMES`` games per scenario; ``pytest -m soak`` plays
``RULECRAFT_SOAK_GAMES`` games (default 3000) shared out among the scenarios. Without the
git history (a source archive) the test is skipped.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from compile_helpers import REPO
from rulecraft.generated.march_of_progress import SPECS
from rulecraft.runtime import Game, GameSpec

#: the last commit with engine v1
V1 = "844843f"
GAME = "march_of_progress"
SCENARIOS = sorted(SPECS)
#: random games per scenario in the default run
GAMES = 25
#: a game longer than this many decisions is a failure (an engine that never ends)
MAX_DECISIONS = 50_000


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)


def extract_v1(dst: Path) -> str | None:
    """Write engine v1 as the package ``dst/rulecraft_v1``; the reason if it cannot."""
    try:
        found = _git("cat-file", "-e", f"{V1}^{{commit}}")
    except OSError as exc:
        return f"git is not available ({exc})"
    if found.returncode != 0:
        return f"commit {V1} (engine v1) is not in the git history of {REPO}"
    listed = _git("ls-tree", "-r", "--name-only", V1, "runtime", "generated")
    files = listed.stdout.split()
    if listed.returncode != 0 or not files:
        return f"commit {V1} holds no runtime/ and generated/"
    package = dst / "rulecraft_v1"
    for name in files:
        text = _git("show", f"{V1}:{name}").stdout
        text = text.replace("rulecraft.runtime", "rulecraft_v1.runtime")
        text = text.replace("rulecraft.generated", "rulecraft_v1.generated")
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (package / "__init__.py").write_text('"""Engine v1, extracted from git for a test."""\n')
    return None


# one worker of a parallel run extracts engine v1 (the module's fixture), not each
pytestmark = pytest.mark.xdist_group("lockstep_v1")


@pytest.fixture(scope="module")
def v1(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """``rulecraft_v1.runtime``."""
    if "rulecraft_v1.runtime" in sys.modules:
        return sys.modules["rulecraft_v1.runtime"]
    dst = tmp_path_factory.mktemp("engine_v1")
    reason = extract_v1(dst)
    if reason is not None:
        pytest.skip(f"no engine v1 to compare with: {reason}")
    sys.path.insert(0, str(dst))
    try:
        import rulecraft_v1.runtime as runtime
    finally:
        sys.path.remove(str(dst))
    return runtime


#: v2's question of MOP-ATT-05 that v1 did not ask (v1 took the first army by id)
_STANDS_FIRST = "Choose the fortified army that stands up to attack in "
#: v2's stand-up question names the army; v1's did not
_STAND_UP = re.compile(r"Stand up .* \(fortified\) in (.*) to join the attack\?")


def _v1_prompt(prompt: str) -> str:
    return _STAND_UP.sub(r"Stand up the fortified army in \1 to join the attack?", prompt)


def _decisions(g: Any) -> list[tuple[int, str, str, frozenset[tuple[str, str]]]]:
    return [
        (d.player, d.kind, _v1_prompt(d.prompt), frozenset((o.id, o.label) for o in d.options))
        for d in g.pending()
    ]


def _take_v1_reading(g2: Game) -> bool:
    """Answer v2's MOP-ATT-05 question as v1 did (the first army by id); whether it asked."""
    for d in g2.pending():
        if d.prompt.startswith(_STANDS_FIRST):
            g2.apply(d.player, d.options[0].id)
            return True
    return False


class _Log:
    """The lines of a v2 game's log as ``(text, audience)``, read as they are written."""

    def __init__(self, g: Game) -> None:
        self.g = g
        self.head: Any = None
        self.count = 0

    def new_lines(self) -> list[tuple[str, tuple[int, ...] | None]]:
        from rulecraft.runtime.layout import LOG

        S, spec = self.g.raw, self.g.spec
        events = []
        node = S[LOG]
        while node is not None and node is not self.head:
            events.append(node)
            node = node[3]
        self.head = S[LOG]
        self.count += len(events)
        return [(spec.render(e[0], e[1], S), e[2]) for e in reversed(events)]


def _audience(a: Any) -> tuple[int, ...] | None:
    return None if a is None else tuple(a)


def play_both(v1: ModuleType, spec2: GameSpec, scenario: str, seed: int) -> int:
    """Play one random game on both engines and compare; returns the decisions taken."""
    spec1, _ = v1.resolve(f"{GAME}/{scenario}")
    g1 = v1.Game.new(spec1, scenario, seed)
    g2 = Game.new(spec2, scenario, seed)
    rng = random.Random(seed * 7919 + 17)
    log2 = _Log(g2)
    where = f"{scenario}, seed {seed}"
    step = 0
    while True:
        lines1 = [(t, _audience(a)) for t, a in g1.state["log"][log2.count :]]
        lines2 = log2.new_lines()
        assert lines2 == lines1, f"{where}, decision {step}: new log lines differ"
        if not g2.finished and _take_v1_reading(g2):
            continue
        assert g2.finished == g1.finished, f"{where}, decision {step}: only one game ended"
        if g1.finished:
            assert g2.result == g1.result, f"{where}: results differ"
            full = [(t, _audience(a)) for t, a in g2.state["log"]]
            assert full == [(t, _audience(a)) for t, a in g1.state["log"]], (
                f"{where}: the log read at the end differs"
            )
            return step
        assert _decisions(g2) == _decisions(g1), f"{where}, decision {step}: pending differs"
        assert step < MAX_DECISIONS, f"{where}: no end after {MAX_DECISIONS} decisions"
        pending = g2.pending()
        d = pending[rng.randrange(len(pending))]
        option = d.options[rng.randrange(len(d.options))].id
        g1.apply(d.player, option)
        g2.apply(d.player, option)
        step += 1


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_v2_plays_as_v1(v1: ModuleType, scenario: str) -> None:
    spec = SPECS[scenario]
    for seed in range(GAMES):
        play_both(v1, spec, scenario, seed)


@pytest.mark.soak
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_v2_plays_as_v1_soak(v1: ModuleType, scenario: str) -> None:
    """``RULECRAFT_SOAK_GAMES`` games shared among the scenarios, on seeds the default run
    does not play."""
    total = int(os.environ.get("RULECRAFT_SOAK_GAMES", "3000"))
    spec = SPECS[scenario]
    for seed in range(1000, 1000 + max(GAMES, total // len(SCENARIOS))):
        play_both(v1, spec, scenario, seed)
