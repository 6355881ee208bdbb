"""Nothing leaks through the wire: every frame a seat's socket receives is made from its view.

Along random games, at each position the game a room holds is swapped for its twin that
differs only in what seat A may not see (tests/leak_helpers.disguise: the other seats' hands
dealt again, hidden fields, the generator, secret locals, other seats' answers); seat A's
socket must receive byte-identical first frames from both, and the spectators' too, while
seat B, who sees its own secrets, must be told the difference somewhere along the game (so
the twins do differ, and the test can fail)."""

from __future__ import annotations

import random

import pytest
from leak_helpers import disguise
from rulecraft.runtime.serve.frames import encode, frame
from serve_helpers import client_for, create

pytestmark = pytest.mark.xdist_group("serve")


def _first_frame(client, token: str) -> str:
    with client.websocket_connect(f"/ws/{token}") as ws:
        return ws.receive_text()


@pytest.mark.parametrize(
    ("name", "seats", "moves"),
    [
        ("march_of_progress/thirty_years_war", 2, 40),
        ("westphalia/congress", 6, 20),
        ("third_reich_diplomacy/situation_1941", 6, 25),
        # a hex board in the fog of war: the map's pieces are in every frame
        ("marlborough/blenheim", 2, 8),
    ],
)
def test_twins_that_differ_only_in_bs_secrets_give_a_the_same_bytes(tmp_path, name, seats, moves):
    rng = random.Random(5)
    with client_for(tmp_path / "g.db") as c:
        links = create(c, name, ["human"] * seats, seed=13)
        rooms = c.app.state.rooms
        gid = rooms.store.link(links["seats"][0]).game
        room = rooms.room(gid)
        told_b = 0
        for _ in range(moves):
            game = room.game
            if game.finished:
                break
            for a in range(seats):
                b = (a + 1) % seats
                twin = game.clone()
                twin.raw = disguise(game.spec, game.raw, a, rng)
                real = _first_frame(c, links["seats"][a])
                room.game = twin
                assert _first_frame(c, links["seats"][a]) == real, f"seat {a} is told a secret"
                room.game = game
                # seat B sees its own secrets: told apart (the twin's values it sees may be
                # ones no game reaches, which the board cannot even name)
                try:
                    told_b += encode(frame(game, b)) != encode(frame(twin, b))
                except (IndexError, KeyError, TypeError, ValueError):
                    told_b += 1
            spectator = game.clone()
            spectator.raw = disguise(game.spec, game.raw, None, rng)
            real = _first_frame(c, links["spectators"])
            room.game = spectator
            assert _first_frame(c, links["spectators"]) == real
            room.game = game
            d = rng.choice(game.pending())
            game.apply(d.player, d.options[rng.randrange(len(d.options))].id)
        assert told_b > 0, "the twins never differed in anything a seat sees: no test"
