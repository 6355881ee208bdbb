"""Direct dispatch: the flow's steps and the cards' routines called by name.

The flow of play and the cards are data of a scenario (``d["flow"]``, ``d["id_card"]``), so
the engine class once called them through tuples of bound methods (``flow_q``, ``card_q``),
which the native build can only call as generic Python calls. Here every engine class gets
methods that call them directly, in an ``if`` chain on a game-wide number of the step or
card (``STEP_NAMES``, ``CARD_NAMES``; the scenario's ``flow_ix`` and ``card_ix`` map its
steps and cards to them): mypyc compiles those calls into native ones. The flow's chain sits
in ``q_main``'s loop itself, so the interpreted engine makes no more calls than before.

A class's methods are its own and those it inherits, so the chains look the routines up
along the class chain, as ``getattr`` did for the tables: ``q_`` (may wait) before ``p_``.
Whatever the chain has no branch for still goes through the tables.
"""

from __future__ import annotations

from collections.abc import Callable

from .pytext import DRAW

DISPATCH_METHODS = ("q_main", "q_turns", "play_q", "play_p", "playable")


def _chain(branches: list[tuple[int, str]], otherwise: list[str], indent: str) -> list[str]:
    """``if i == n: call`` for each branch, then ``otherwise`` (statements) in the ``else``."""
    out: list[str] = []
    for n, (i, call) in enumerate(branches):
        out.append(f"{indent}{'if' if n == 0 else 'elif'} i == {i}:")
        out.append(f"{indent}    {call}")
    if branches:
        out.append(f"{indent}else:")
        out.extend(f"{indent}    {s}" for s in otherwise)
    else:
        out.extend(f"{indent}{s}" for s in otherwise)
    return out


def _tree(branches: list[tuple[int, str]], indent: str, ret: str) -> list[str]:
    """A search by halves for ``i`` among the branches (numbers in increasing order), each a
    call followed by ``ret`` (a ``return`` if the call is not one already); what no branch
    takes falls through. A few tests where a chain of all would make as many as branches."""
    if len(branches) <= 3:
        out: list[str] = []
        for i, call in branches:
            out += [f"{indent}if i == {i}:", f"{indent}    {call}"]
            if ret:
                out.append(f"{indent}    {ret}")
        return out
    half = len(branches) // 2
    return [
        f"{indent}if i < {branches[half][0]}:",
        *_tree(branches[:half], indent + "    ", ret),
        f"{indent}else:",
        *_tree(branches[half:], indent + "    ", ret),
    ]


def _index(branches: list[tuple[int, str]]) -> list[str]:
    """The card's game-wide number, if a chain tests it."""
    return ["    i = self.card_ix[c]"] if branches else []


def _step_call(has: Callable[[str], bool], s: str) -> str | None:
    """The direct call of step ``s`` in the playout form, if the class has it."""
    if has("q_" + s):
        return f"self.q_{s}(S, R)"
    if has("p_" + s):
        return f"self.p_{s}(S)"
    return None


def dispatch_methods(
    has: Callable[[str], bool],
    steps: tuple[str, ...],
    cards: tuple[str, ...],
    turn: tuple[str, ...] = (),
) -> dict[str, str]:
    """The dispatch methods of a class whose methods (own or inherited) ``has`` tells;
    ``steps`` and ``cards`` are the game's STEP_NAMES and CARD_NAMES, ``turn`` its
    FLOW_TURN (the steps of a turn in most of its scenarios)."""
    out: dict[str, str] = {}
    branches = []
    for i, s in enumerate(steps):
        call = _step_call(has, s)
        if call is not None:
            branches.append((i, call))
    # A scenario whose turn is FLOW_TURN (``flow_turn``) plays it as straight-line code from
    # the first turn that starts in the playout (``q_turns``): no step looked up in the chain.
    # Its own method, so a scenario whose chain differs still inherits the one turn.
    straight = [_step_call(has, s) for s in turn]
    if not turn or None in straight:
        straight = []
    out["q_main"] = "\n".join(
        [
            f"def q_main(self, S: list[Any], R: {DRAW}, k: int) -> None:",
            '    """The flow of play from step k on (playout form): each step called directly,',
            "    the next turn (and whatever replaced it in flow_q) through flow_q; the turns",
            '    that are FLOW_TURN by q_turns."""',
            "    flow = self.flow_ix",
            "    n = len(flow)",
            "    while True:",
            "        if k >= n:",
            "            k = self.flow_loop",
            *(["            if self.flow_turn:", "                break"] if straight else []),
            "        i = flow[k]",
            "        k += 1",
            *_chain(
                branches,
                [
                    "step, waits = self.flow_q[k - 1]",
                    "if step is None:",
                    "    self.next_turn(S)",
                    "elif waits:",
                    "    step(S, R)",
                    "else:",
                    "    step(S)",
                ],
                "        ",
            ),
            *(["    self.q_turns(S, R)"] if straight else []),
        ]
    )
    if straight:
        out["q_turns"] = "\n".join(
            [
                f"def q_turns(self, S: list[Any], R: {DRAW}) -> None:",
                '    """Every turn from the next on, each FLOW_TURN: straight-line code."""',
                "    while True:",
                "        self.next_turn(S)",
                *(f"        {c}" for c in straight),
            ]
        )
    q_cards = []
    p_cards = []
    playable = []
    kept = []
    for i, c in enumerate(cards):
        if has("q_card__" + c):
            q_cards.append((i, f"self.q_card__{c}(S, R, p)"))
        elif has("p_card__" + c):
            q_cards.append((i, f"self.p_card__{c}(S, p)"))
        if has("p_card__" + c):
            p_cards.append((i, f"self.p_card__{c}(S, p)"))
        if has("f_playable__" + c):
            playable.append((i, f"return self.f_playable__{c}(S, p)"))
            kept.append((i, f"if self.f_playable__{c}(S, p): k = k | 1 << c"))
    out["play_q"] = "\n".join(
        [
            f"def play_q(self, S: list[Any], R: {DRAW}, c: int, p: Any) -> None:",
            '    """Player p carries out card c (the playout form)."""',
            *_index(q_cards),
            *_tree(q_cards, "    ", "return"),
            "    f = self.card_q[c]",
            "    if f is None:",
            "        self.card_p[c](S, p)",
            "    else:",
            "        f(S, R, p)",
        ]
    )
    out["play_p"] = "\n".join(
        [
            "def play_p(self, S: list[Any], c: int, p: Any) -> None:",
            '    """Player p carries out card c, which does not wait."""',
            *_index(p_cards),
            *_tree(p_cards, "    ", "return"),
            "    self.card_p[c](S, p)",
        ]
    )
    out["playable"] = "\n".join(
        [
            "def playable(self, S: list[Any], c: int, p: int) -> bool:",
            '    """Whether player p may play card c (its `playable` condition)."""',
            "    if self.card_playable[c] is None:",
            "        return True",
            *_index(playable),
            *_tree(playable, "    ", ""),
            "    return bool(self.card_playable[c](S, p))",
        ]
    )
    out["playable_in"] = "\n".join(
        [
            "def playable_in(self, S: list[Any], m: int, p: int) -> int:",
            '    """The cards of set m player p may play: those without a `playable` condition,',
            '    and those whose condition holds (tested in the order of the cards)."""',
            "    k = m & ~self.card_conditioned",
            "    for c in _BITS8[t] if 0 <= (t := m & self.card_conditioned) < 256 else _bits(t):",
            *(["        i = self.card_ix[c]"] if kept else []),
            *_tree(kept, "        ", "continue"),
            "        if self.card_playable[c](S, p):",
            "            k = k | 1 << c",
            "    return k",
        ]
    )
    return out
