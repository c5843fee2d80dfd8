"""End to end: Pirates & Compagnie through the real server (random ports), driven by
the generated Python client, and `ludotheque play pirates` in a terminal."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest
from ludotheque import Client, rule_code
from ludotheque.pirates.v1 import pirates_pb2 as pirates
from ludotheque.v1 import game_pb2

from tests.support.games import follow
from tests.support.server import ADMIN_TOKEN, ROOT, ServerProcess


def lay_if_possible(legal: list[game_pb2.Command]) -> game_pb2.Command:
    """The test's human: lays the first card it may, else draws or ends its turn."""
    plays = [command for command in legal if command.pirates.HasField("play")]
    return plays[0] if plays else legal[-1]


def test_a_human_and_two_bots_sail_to_the_treasure_island(server: ServerProcess) -> None:
    seats = [{"name": "Cléo"}, {"name": "Barbe", "bot": "greedy"}, {"name": "Crochet", "bot": "random"}]
    with Client(server.target) as lobby:
        created = lobby.create_game("pirates", seats)
        game_id = created.game_id
        assert created.game.options.pirates.island_distance == 5  # defaults filled in
        cleo = lobby.with_token(created.seat_tokens[0])
        streamed: list[game_pb2.Event] = []
        spectator = follow(lobby, game_id, streamed)
        moves = 0
        while True:
            game = cleo.get_game(game_id)
            if game.status == game_pb2.GAME_STATUS_FINISHED:
                break
            assert list(game.to_act) == [0]  # the bots play at once: the game waits only for Cléo
            view = game.view.pirates
            assert len(view.hands[0].cards) == view.hands[0].size > 0  # her own hand...
            assert all(hand.size and not hand.cards for hand in view.hands[1:])  # ...and only sizes of the others
            assert not view.draw_pile and view.discard_top.kind != pirates.CARD_KIND_UNSPECIFIED
            result = cleo.submit(game_id, lay_if_possible(list(game.legal_commands)), expected_version=game.version)
            assert result.version > game.version
            moves += 1
        spectator.join(timeout=60)
        assert not spectator.is_alive(), "the stream must end with the game"

        winner = game.outcome.winners[0]
        final = game.view.pirates
        assert final.phase == pirates.PHASE_FINISHED and final.winner == winner
        assert final.ships[winner] == 5 and sum(final.ships) == final.round
        assert game.outcome.summary.startswith(seats[winner]["name"]) and moves > 5

        assert streamed == lobby.history(game_id)  # every page: a long game passes one page's 1,000 events
        assert streamed[-1].game_over
        dealt = [e.pirates.round_dealt for e in streamed if e.pirates.HasField("round_dealt")]
        assert len(dealt) == final.round
        assert all(not d.draw_pile and all(not h.cards for h in d.hands) for d in dealt)  # spectators see no card
        assert all(not e.pirates.cards_drawn.cards for e in streamed)

        mine = [e.pirates.round_dealt for e in cleo.history(game_id) if e.pirates.HasField("round_dealt")]
        assert all(len(d.hands[0].cards) == 5 and not d.hands[1].cards and not d.hands[2].cards for d in mine)
        full = lobby.with_token(ADMIN_TOKEN).list_events(game_id).events
        assert full[1].pirates.round_dealt.draw_pile and full[1].pirates.round_dealt.hands[2].cards
        past = cleo.replay(game_id, at_version=2).view.pirates
        assert past.round == 1 and len(past.hands[0].cards) == 5


def test_options_and_illegal_moves_through_the_api(server: ServerProcess) -> None:
    with Client(server.target) as lobby:
        options = pirates.Options(ohe_variant=True, island_distance=2, first_seat=1, open_hands=True)
        created = lobby.create_game("pirates", ["Cléo", "Robin"], options)
        game_id = created.game_id
        cleo, robin = (lobby.with_token(token) for token in created.seat_tokens)
        game = lobby.get_game(game_id)
        assert game.options.pirates.bottle_follow_up == pirates.BOTTLE_FOLLOW_UP_DRAWN
        assert list(game.to_act) == [1]  # Robin last bathed in the sea
        assert all(len(hand.cards) == 5 for hand in game.view.pirates.hands)  # open hands: even for a spectator

        with pytest.raises(grpc.RpcError) as illegal:
            cleo.submit(game_id, pirates.Command(draw=pirates.Draw()))
        assert illegal.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert rule_code(illegal.value) == "not_your_turn"
        with pytest.raises(grpc.RpcError) as not_held:
            robin.submit(game_id, pirates.Command(play=pirates.Play(card=pirates.Card(kind=pirates.CARD_KIND_PIRATE))))
        assert rule_code(not_held.value) == "not_in_hand"
        assert lobby.get_game(game_id).version == 2  # nothing happened

        with pytest.raises(grpc.RpcError) as too_many:
            lobby.create_game("pirates", ["a", "b", "c", "d", "e"])
        assert too_many.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as bad_option:
            lobby.create_game("pirates", ["a", "b"], pirates.Options(first_seat=2))
        assert bad_option.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_ludotheque_play_pirates_with_humans_and_bots_at_one_terminal() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "service",
            "play",
            "pirates",
            *("--seat", "Cléo", "--seat", "Robin", "--seat", "bot:greedy", "--seat", "bot:random"),
        ],
        cwd=ROOT,
        input="1\n" * 5000,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Cléo, Robin, Greedy bot, Random bot" in out
    assert "--- Cléo's turn (others, look away!) ---" in out and "--- Robin's turn" in out
    assert "Cléo (you)" in out and "Robin (you)" in out and "Your move, Robin" in out
    assert "starts the discard pile" in out and "Game over." in out and "reaches the treasure island first" in out
