"""End to end: a cooperative picnic game through the real server, driven by the
generated Python client, with the players remembering where the rain went back."""

from __future__ import annotations

import random
import subprocess
import sys
import threading

import grpc
import pytest
from ludotheque import Client, rule_code
from ludotheque.client import SeatLike
from ludotheque.picnic.v1 import picnic_pb2 as picnic
from ludotheque.v1 import game_pb2

from tests.support.server import ADMIN_TOKEN, ROOT, ServerProcess


class TablePlayer:
    """A player's sensible moves from what the table shows: invite when possible,
    head for the picnic with four friends, never pick a place where rain went back
    (remembered from the events, since the view does not say)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rain_places: set[int] = set()

    def remember(self, events: list[game_pb2.Event]) -> None:
        for event in events:
            which = event.picnic.WhichOneof("kind")
            if which == "rain_fell":
                self.rain_places.add(event.picnic.rain_fell.place)
            elif which == "tile_drawn":
                self.rain_places.discard(event.picnic.tile_drawn.place)

    def choose(self, view: picnic.View, legal: list[picnic.Command]) -> picnic.Command:
        friends = {f.cell for f in view.friends if f.HasField("cell")}
        invited = sum(f.invited for f in view.friends)

        def worth(command: picnic.Command) -> float:
            action = command.WhichOneof("action")
            if action == "draw":
                return -5.0 if command.draw.place in self.rain_places else 0.0
            if action == "move_facteur":
                end = command.move_facteur.route[-1]
                if end == view.board.picnic:
                    return 50.0 if invited >= 4 else 1.0
                return 10.0 if end in friends else 0.5
            if action == "move_friend":
                return 10.0 if command.move_friend.route[-1] == view.facteur else 0.0
            return 0.0

        best = max(worth(c) for c in legal)
        return self.rng.choice([c for c in legal if worth(c) == best])


def test_two_players_play_a_cooperative_game_to_its_end(server: ServerProcess) -> None:
    options = picnic.Options(board=picnic.BOARD_EASY, trap_rain=True)
    with Client(server.target) as lobby:
        created = lobby.create_game("picnic", [{"name": "Cléo", "age": 6}, {"name": "Robin", "age": 38}], options)
        game_id = created.game_id
        seats = [lobby.with_token(token) for token in created.seat_tokens]
        assert created.game.options.picnic.tent_site == picnic.TENT_SITE_FACTEUR  # defaults filled in
        streamed: list[game_pb2.Event] = []
        spectator = threading.Thread(target=lambda: streamed.extend(lobby.stream(game_id)), daemon=True)
        spectator.start()
        table = TablePlayer(random.Random(4))
        table.remember(list(lobby.list_events(game_id).events))
        moves, rained = 0, False
        while True:
            public = lobby.get_game(game_id)
            if public.status == game_pb2.GAME_STATUS_FINISHED:
                break
            seat = public.to_act[0]
            assert public.to_act == [seat] and seat == (public.view.picnic.active_seat)
            mine = seats[seat].get_game(game_id)
            other = seats[1 - seat].get_game(game_id)
            assert mine.viewer.seat == seat and mine.legal_commands and list(other.legal_commands) == []
            for view in (mine.view.picnic, other.view.picnic, public.view.picnic):
                assert not any(place.HasField("tile") for place in view.lid)  # faces stay hidden
            command = table.choose(mine.view.picnic, [c.picnic for c in mine.legal_commands])
            result = seats[seat].submit(game_id, command, expected_version=mine.version)
            table.remember(list(result.events))
            rained |= any(e.picnic.HasField("rain_fell") for e in result.events)
            moves += 1
        spectator.join(timeout=60)
        assert not spectator.is_alive(), "the stream must end with the game"
        listed = list(lobby.list_events(game_id).events)
        assert streamed == listed and listed[-1].game_over
        last = listed[-1].picnic.WhichOneof("kind")
        assert last in ("game_won", "game_lost")
        # Cooperative: both seats win, or neither does.
        assert list(public.outcome.winners) == ([0, 1] if last == "game_won" else [])
        assert public.outcome.summary and moves >= 4  # four invitations at least, or six nights
        assert not any(place.HasField("tile") for place in listed[0].picnic.game_started.lid)
        assert all(not e.HasField("command") for e in listed)
        admin = lobby.with_token(ADMIN_TOKEN)
        assert all(place.HasField("tile") for place in admin.list_events(game_id).events[0].picnic.game_started.lid)
        if rained:  # a Rain tile back in the lid: hidden while playing (checked above), turned over at the end
            place = next(e.picnic.rain_fell.place for e in listed if e.picnic.HasField("rain_fell"))
            still_there = admin.get_game(game_id).view.picnic.lid[place]
            if still_there.occupied:
                assert still_there.tile.kind == picnic.TILE_KIND_RAIN
                assert seats[0].get_game(game_id).view.picnic.lid[place].tile.kind == picnic.TILE_KIND_RAIN


def test_a_player_with_bots_and_clear_errors(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        seats: list[SeatLike] = ["Cléo", {"name": "Greedy", "bot": "greedy"}, {"name": "Random", "bot": "random"}]
        created = lobby.create_game("picnic", seats, picnic.Options(board=picnic.BOARD_HARD, cold_dragon=True))
        game_id = created.game_id
        cleo = lobby.with_token(created.seat_tokens[0])
        assert created.game.to_act == [0]  # no ages: seat 0 starts
        with pytest.raises(grpc.RpcError) as illegal:
            cleo.submit(game_id, picnic.Command(draw=picnic.Draw(place=99)))
        assert illegal.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert rule_code(illegal.value) == "unknown_place"
        with pytest.raises(grpc.RpcError) as too_many:
            lobby.create_game("picnic", ["a", "b", "c", "d", "e"])
        assert too_many.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        rng = random.Random(2)
        while True:
            game = cleo.get_game(game_id)
            if game.status == game_pb2.GAME_STATUS_FINISHED:
                break
            assert game.to_act == [0]  # the bots played their turns at once
            cleo.submit(game_id, rng.choice(list(game.legal_commands)), expected_version=game.version)
        assert list(game.outcome.winners) in ([0, 1, 2], [])


def play_in_terminal(*seats: str) -> subprocess.CompletedProcess[str]:
    # Choices at random, not in a cycle: a cycle can keep drawing a Rain tile (it comes back
    # to its place), the more so as a Rain with a Tent up takes a second answer (Tent or house).
    rng = random.Random(7)
    return subprocess.run(
        [sys.executable, "-m", "service", "play", "picnic", *(arg for s in seats for arg in ("--seat", s))],
        cwd=ROOT,
        input="".join(f"{rng.randint(1, 4)}\n" for _ in range(1500)),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_ludotheque_play_picnic_alone_or_with_bots() -> None:
    alone = play_in_terminal("Cléo:6")
    assert alone.returncode == 0, alone.stderr
    assert "]--o---o---o--~o~--o---o--(P)" in alone.stdout  # the board, drawn (row 4: house to picnic)
    assert "Your move, Cléo" in alone.stdout and "Game over." in alone.stdout
    four = play_in_terminal("Cléo:6", "bot:greedy", "bot:random", "Robin:38")
    assert four.returncode == 0, four.stderr
    assert "--- Robin's turn (others, look away!) ---" in four.stdout and "Game over." in four.stdout
