"""Hand-written reference engine: The March of Progress, "The Thirty Years War".

A self-contained, standard-library-only engine tuned for fast uniform-random
self-play.  It is the yardstick the generated engine's speed is compared with,
and a second reading of the rules to cross-check the generated engine against.

State (all mutable, allocated once per game):

* countries 0 = blue home, 1 = neutral, 2 = orange home; players 0 = blue,
  1 = orange.  Each home is adjacent to the neutral only.
* armies are 6 slots, ``3 * player + k``: ``loc[slot]`` is -1 (stock) or a
  country, ``fort[slot]`` is 0/1.  ``occ[player]`` is the slot of that
  player's army standing on the enemy capital, or -1.
* hands and discard piles are 8-bit masks over the card ids below; the card
  being played is off both masks until the end of the turn.

Decisions: every choice point with at least two legal options draws one
option uniformly (``int(random() * n)`` from the agent's own generator) and is
counted; choice points with a single legal option are applied without drawing
and are not counted.

Rule readings chosen where the rulebook leaves room:

* FORTIFY chooses among your non-fortified armies in play; if all are
  fortified it does nothing.
* ATTACK needs a country with >= 1 of your non-fortified armies and an enemy
  army or a usable garrison (enemy home whose capital you do not occupy).
  Sub-decisions in order: country, ATTACK+1 discard (any non-SCORE card in
  hand, the played card is not in hand), then stand-up yes/no per fortified
  army of yours in that country.
* Combat losses: "all armies" of the losing side *in that country* are
  destroyed, including the attacker's fortified armies that did not stand up;
  on a tie every army of both sides in the country is destroyed.
* A winning attack in the enemy home puts an attacking army on the capital;
  if your occupying army stayed out of the attack (fortified, not stood up)
  it keeps the capital.
* STRENGTH always lowers the chosen VP die, even when strength is already 6
  (strength is then capped at 6).
* SCORE while your capital is occupied scores nothing but still returns the
  cards.  Cards return to hand (SCORE included) at the end of the turn; other
  played cards go to the discard pile then.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

# Card ids (bit i of a hand/discard mask).
MOVE1, MOVE2, RECRUIT, FORTIFY, ATTACK, ATTACK1, STRENGTH, SCORE = range(8)
CARD_NAMES = ("MOVE1", "MOVE2", "RECRUIT", "FORTIFY", "ATTACK", "ATTACK+1", "STRENGTH", "SCORE")
# Resolution group per card: MOVE < RECRUIT < FORTIFY < ATTACK < STRENGTH < SCORE.
GROUP = (0, 0, 1, 2, 3, 3, 4, 5)
# Variant flag per card: MOVE2 moves up to two armies, ATTACK1 adds +1.
CARD_FLAG = (0, 1, 0, 0, 0, 1, 0, 0)
FULL_HAND = 0xFF
SCORE_BIT = 1 << SCORE
NOT_SCORE = FULL_HAND ^ SCORE_BIT
# BITS[mask] -> tuple of card ids set in mask (precomputed, no per-step work).
BITS = tuple(tuple(i for i in range(8) if m >> i & 1) for m in range(256))

BLUE_HOME, NEUTRAL, ORANGE_HOME = 0, 1, 2
HOME = (BLUE_HOME, ORANGE_HOME)
ADJ = ((NEUTRAL,), (BLUE_HOME, ORANGE_HOME), (NEUTRAL,))
VP_DICE_START = (3, 2, 3)
VP_DICE_MAX = (3, 2, 3)
VP_STOCK = 35
WIN_VP = 18
MAX_STRENGTH = 6
GARRISON = 2
MAX_TURNS = 500
AGENT_SEED_SALT = 0x9E3779B97F4A7C15


def play_random_game(seed, max_turns=MAX_TURNS, on_turn=None, agent=None):
    """Play one uniform-random self-play game.

    Returns ``(winner, turns, decisions)``: winner 0/1, or None for a tie or
    for hitting ``max_turns`` (``turns == max_turns`` and nobody at 18 VP).
    ``on_turn(state)`` (tests only) is called after every completed turn with
    a dict of the live state containers.  ``agent`` (tests only) replaces
    the agent's generator: any object with a ``random()`` method.
    """
    dice = random.Random(seed)
    rnd = (random.Random(seed ^ AGENT_SEED_SALT) if agent is None else agent).random

    loc = [BLUE_HOME, -1, -1, ORANGE_HOME, -1, -1]
    fort = [0, 0, 0, 0, 0, 0]
    occ = [-1, -1]
    vpd = list(VP_DICE_START)
    stren = [1, 1]
    vp = [0, 0]
    hand = [FULL_HAND, FULL_HAND]
    disc = [0, 0]
    stock = VP_STOCK
    dec = 0

    # Initiative: both roll 1d6, highest wins, re-roll ties.
    roll = dice.randint
    while True:
        r0 = roll(1, 6)
        r1 = roll(1, 6)
        if r0 != r1:
            break
    init = 0 if r0 > r1 else 1

    def kill(s):
        # Return army slot s to its owner's stock.
        loc[s] = -1
        fort[s] = 0
        o = s // 3
        if occ[o] == s:
            occ[o] = -1

    def controls(p, c):
        if c == HOME[p]:
            return occ[1 - p] < 0
        if c == NEUTRAL:
            b = 3 * p
            e = 3 - b
            return (loc[b] == 1 or loc[b + 1] == 1 or loc[b + 2] == 1) and not (
                loc[e] == 1 or loc[e + 1] == 1 or loc[e + 2] == 1
            )
        return occ[p] >= 0

    def do_move(p, two):
        nonlocal dec
        b = 3 * p
        if two:
            # Groups: every single army in play, plus every pair sharing a country.
            groups = []
            for i in range(b, b + 3):
                li = loc[i]
                if li >= 0:
                    groups.append((i,))
                    for j in range(i + 1, b + 3):
                        if loc[j] == li:
                            groups.append((i, j))
            n = len(groups)
            if n == 0:
                return
            if n > 1:
                dec += 1
                grp = groups[int(rnd() * n)]
            else:
                grp = groups[0]
        else:
            armies = [i for i in range(b, b + 3) if loc[i] >= 0]
            n = len(armies)
            if n == 0:
                return
            if n > 1:
                dec += 1
                grp = (armies[int(rnd() * n)],)
            else:
                grp = (armies[0],)
        dests = ADJ[loc[grp[0]]]
        if len(dests) > 1:
            dec += 1
            d = dests[int(rnd() * 2)]
        else:
            d = dests[0]
        for s in grp:
            loc[s] = d
            fort[s] = 0
            if occ[p] == s:
                occ[p] = -1

    def do_recruit(p, _flag):
        if occ[1 - p] >= 0:
            return
        b = 3 * p
        for s in range(b, b + 3):
            if loc[s] < 0:
                loc[s] = HOME[p]
                fort[s] = 0
                return

    def do_fortify(p, _flag):
        nonlocal dec
        b = 3 * p
        cands = [s for s in range(b, b + 3) if loc[s] >= 0 and not fort[s]]
        n = len(cands)
        if n == 0:
            return
        if n > 1:
            dec += 1
            fort[cands[int(rnd() * n)]] = 1
        else:
            fort[cands[0]] = 1

    def do_attack(p, plus):
        nonlocal dec
        q = 1 - p
        b = 3 * p
        e = 3 * q
        qhome = HOME[q]
        garrison_ok = occ[p] < 0
        targets = []
        for c in (0, 1, 2):
            if (
                (loc[b] == c and not fort[b])
                or (loc[b + 1] == c and not fort[b + 1])
                or (loc[b + 2] == c and not fort[b + 2])
            ) and (
                loc[e] == c or loc[e + 1] == c or loc[e + 2] == c or (c == qhome and garrison_ok)
            ):
                targets.append(c)
        n = len(targets)
        if n == 0:
            return  # fizzles; ATTACK+1 discards nothing
        if n > 1:
            dec += 1
            c = targets[int(rnd() * n)]
        else:
            c = targets[0]
        bonus = 0
        if plus:
            cands = BITS[hand[p] & NOT_SCORE]
            n = len(cands)
            if n:
                if n > 1:
                    dec += 1
                    k = cands[int(rnd() * n)]
                else:
                    k = cands[0]
                bit = 1 << k
                hand[p] ^= bit
                disc[p] |= bit
                bonus = 1
        natt = 0
        occ_attacks = False
        for s in range(b, b + 3):
            if loc[s] == c:
                if fort[s]:
                    dec += 1
                    if rnd() < 0.5:
                        fort[s] = 0
                    else:
                        continue
                natt += 1
                if occ[p] == s:
                    occ_attacks = True
        att = natt * stren[p] + bonus
        sq = stren[q]
        dfn = GARRISON if (c == qhome and garrison_ok) else 0
        for s in range(e, e + 3):
            if loc[s] == c:
                dfn += sq + fort[s]
        if att > dfn:
            for s in range(e, e + 3):
                if loc[s] == c:
                    kill(s)
            if c == qhome and (occ[p] < 0 or occ_attacks):
                for s in range(b, b + 3):
                    if loc[s] == c and not fort[s]:
                        occ[p] = s
                        break
        else:
            # Loss: all my armies there die; tie: both sides' armies there die.
            for s in range(b, b + 3):
                if loc[s] == c:
                    kill(s)
            if att == dfn:
                for s in range(e, e + 3):
                    if loc[s] == c:
                        kill(s)

    def do_strength(p, _flag):
        nonlocal dec
        cands = [c for c in (0, 1, 2) if vpd[c] > 0 and controls(p, c)]
        n = len(cands)
        if n == 0:
            return
        if n > 1:
            dec += 1
            c = cands[int(rnd() * n)]
        else:
            c = cands[0]
        vpd[c] -= 1
        if stren[p] < MAX_STRENGTH:
            stren[p] += 1

    def do_score(p, _flag):
        nonlocal stock
        if occ[1 - p] < 0 and stock:
            amt = 1
            for c in (0, 1, 2):
                if vpd[c] and controls(p, c):
                    amt += vpd[c]
            if amt > stock:
                amt = stock
            vp[p] += amt
            stock -= amt

    # Dispatch by card id: action(player, flag); flag = MOVE 2 / ATTACK+1.
    act = (do_move, do_move, do_recruit, do_fortify, do_attack, do_attack, do_strength, do_score)
    flag = CARD_FLAG

    state = None
    if on_turn is not None:
        state = {
            "loc": loc,
            "fort": fort,
            "occ": occ,
            "vpd": vpd,
            "stren": stren,
            "vp": vp,
            "hand": hand,
            "disc": disc,
            "stock": stock,
            "init": init,
            "turn": 0,
            "played": None,
        }

    turn = 0
    while turn < max_turns:
        turn += 1
        # 1-2. Secret simultaneous picks (SCORE only with a non-empty discard pile).
        h = hand[0]
        opts = BITS[h if disc[0] else h & NOT_SCORE]
        n = len(opts)
        if n > 1:
            dec += 1
            c0 = opts[int(rnd() * n)]
        else:
            c0 = opts[0]
        h = hand[1]
        opts = BITS[h if disc[1] else h & NOT_SCORE]
        n = len(opts)
        if n > 1:
            dec += 1
            c1 = opts[int(rnd() * n)]
        else:
            c1 = opts[0]
        hand[0] ^= 1 << c0
        hand[1] ^= 1 << c1
        # 3. Resolve in Sequence-of-Actions order.
        g0 = GROUP[c0]
        g1 = GROUP[c1]
        if g0 < g1:
            first = 0
        elif g1 < g0:
            first = 1
        else:
            dec += 1  # initiative holder chooses who goes first
            first = 0 if rnd() < 0.5 else 1
            if g0 == 0 or g0 == 3:
                init ^= 1
        if first == 0:
            act[c0](0, flag[c0])
            act[c1](1, flag[c1])
        else:
            act[c1](1, flag[c1])
            act[c0](0, flag[c0])
        # 4. Played cards to discard; SCORE returns everything to hand.
        if c0 == SCORE:
            hand[0] = FULL_HAND
            disc[0] = 0
        else:
            disc[0] |= 1 << c0
        if c1 == SCORE:
            hand[1] = FULL_HAND
            disc[1] = 0
        else:
            disc[1] |= 1 << c1
        if state is not None:
            state["stock"] = stock
            state["init"] = init
            state["turn"] = turn
            state["played"] = (c0, c1)
            on_turn(state)
        v0 = vp[0]
        v1 = vp[1]
        if v0 >= WIN_VP or v1 >= WIN_VP:
            if v0 > v1:
                return 0, turn, dec
            if v1 > v0:
                return 1, turn, dec
            return None, turn, dec
    return None, turn, dec


def run_games(n, first_seed=0):
    """Play n games with seeds first_seed..; return (wins0, wins1, ties, capped, decisions)."""
    w = [0, 0]
    ties = capped = decisions = 0
    play = play_random_game
    for seed in range(first_seed, first_seed + n):
        winner, turns, d = play(seed)
        decisions += d
        if winner is None:
            if turns >= MAX_TURNS:
                capped += 1
            else:
                ties += 1
        else:
            w[winner] += 1
    return w[0], w[1], ties, capped, decisions


def main(argv=None):
    """Usage: python benchmarks/handwritten_mop.py [N_GAMES=2000] [REPS=5]"""
    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 2000
    reps = int(argv[1]) if len(argv) > 1 else 5
    gps = []
    dps = []
    summary = None
    for _ in range(reps):
        t0 = time.perf_counter()
        summary = run_games(n)
        dt = time.perf_counter() - t0
        gps.append(n / dt)
        dps.append(summary[4] / dt)
    w0, w1, ties, capped, decisions = summary
    print(
        f"handwritten Thirty Years War: {n} games x {reps} reps (python {sys.version.split()[0]})"
    )
    print(
        f"  games/s     median {statistics.median(gps):10.1f}"
        f"  (min {min(gps):.1f}, max {max(gps):.1f})"
    )
    print(
        f"  decisions/s median {statistics.median(dps):10.1f}"
        f"  (min {min(dps):.1f}, max {max(dps):.1f})"
    )
    print(
        f"  blue {w0}  orange {w1}  ties {ties}  capped {capped}  "
        f"decisions/game {decisions / n:.1f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
