"""`helm test`'s player (templates/tests/play.yaml): through the release's Service, as a
client would, create a game of a player and the greedy bot (as the admin, who may create
under every creation policy), play the player's first legal move and see the game move
on. Exits 0 when it did, else 1 with what failed. Runs in the server's image, whose
Python client it uses; tests/deploy/test_helm_test.py runs it against a real server."""

import os
import sys

import grpc
from ludotheque import Client


def main() -> int:
    target, kind = os.environ["LUDOTHEQUE_TARGET"], os.environ.get("LUDOTHEQUE_TEST_KIND", "mooki")
    try:
        with Client(target, os.environ.get("LUDOTHEQUE_ADMIN_TOKEN") or None) as admin:
            created = admin.create_game(kind, [{"name": "helm test"}, {"name": "Bot", "bot": "greedy"}])
            player = admin.with_token(created.seat_tokens[0])
            game = player.get_game(created.game_id)
            moved = player.submit(created.game_id, game.legal_commands[0])
    except grpc.RpcError as error:
        print(f"{target}: {error.code().name}: {error.details()}", file=sys.stderr)
        return 1
    if moved.version <= game.version:
        print(f"{target}: the move was accepted but game {created.game_id} did not move on", file=sys.stderr)
        return 1
    print(f"{target}: game {created.game_id} of {kind}, a move played: version {game.version} -> {moved.version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
