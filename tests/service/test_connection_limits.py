"""The connection limits shared by both ports (service/api/connections.py) and the gRPC
gate's reading of frames (service/api/grpc_gate.py), without a server: who is counted
under which identity, what the descriptors allow, and frames followed across chunks."""

from __future__ import annotations

from service.api.connections import GRPC_DESCRIPTORS, HTTP_DESCRIPTORS, RESERVED_DESCRIPTORS, Connections
from service.api.grpc_gate import HEADERS, PREFACE, REFUSED_STREAM, RST_STREAM, SETTINGS, Frames, Resets, frame
from service.app.access.origins import ClientAddresses, parse_networks


def test_a_client_is_held_to_its_share_and_gets_it_back_as_it_closes() -> None:
    limits = Connections(per_client=2, total=0, descriptors=10_000)
    client = limits.client("198.51.100.7")
    assert limits.admit(client, HTTP_DESCRIPTORS) is None and limits.admit(client, GRPC_DESCRIPTORS) is None
    refused = limits.admit(client, HTTP_DESCRIPTORS)
    assert refused is not None and refused.status == 429 and "at most 2" in refused.message
    assert limits.admit(limits.client("198.51.100.8"), HTTP_DESCRIPTORS) is None  # another address
    limits.release(client, HTTP_DESCRIPTORS)
    assert limits.admit(client, HTTP_DESCRIPTORS) is None


def test_an_ipv6_client_is_its_64_and_a_trusted_proxy_only_counts_in_the_total() -> None:
    limits = Connections(
        per_client=1, total=0, descriptors=10_000, addresses=ClientAddresses(parse_networks("10.0.0.0/8"))
    )
    assert limits.client("2001:db8:1:2::7") == limits.client("2001:db8:1:2:ffff::1") != limits.client("2001:db8:1:3::1")
    assert limits.client("10.1.2.3") == ""  # the Ingress: many clients on its connections
    for _ in range(50):
        assert limits.admit(limits.client("10.1.2.3"), HTTP_DESCRIPTORS) is None


def test_the_total_stops_before_the_descriptors_run_out() -> None:
    limits = Connections(per_client=0, total=0, descriptors=RESERVED_DESCRIPTORS + 10)
    admitted = [limits.admit(f"ip:198.51.100.{n}", GRPC_DESCRIPTORS) for n in range(5)]
    assert admitted[:3] == [None, None, None]  # 3 descriptors each: 9 of 10
    assert admitted[3] is not None and admitted[3].status == 503 and admitted[3].retry_after == 5
    assert limits.admit("ip:198.51.100.9", HTTP_DESCRIPTORS) is None  # the last one
    assert not limits.linger()  # not even one to say why
    capped = Connections(per_client=0, total=2, descriptors=10_000)
    assert [capped.admit(f"ip:{n}", HTTP_DESCRIPTORS) is None for n in range(3)] == [True, True, False]


def test_frames_are_followed_across_any_split_and_other_bytes_pass_unread() -> None:
    seen: list[tuple[int, int, int]] = []

    def saw(kind: int, flags: int, stream: int, payload: bytes) -> None:
        seen.append((kind, stream, int.from_bytes(payload[:4], "big") if kind == RST_STREAM else 0))

    frames = Frames(saw, preface=True)
    data = (
        PREFACE
        + frame(SETTINGS, 0)
        + frame(HEADERS, 1, b"x" * 30)
        + frame(RST_STREAM, 1, REFUSED_STREAM.to_bytes(4, "big"))
        + frame(HEADERS, 3, b"y" * 70_000)
    )
    for cut in range(0, len(data), 7):  # seven bytes at a time
        frames.feed(data[cut : cut + 7])
    assert seen == [(SETTINGS, 0, 0), (HEADERS, 1, 0), (RST_STREAM, 1, REFUSED_STREAM), (HEADERS, 3, 0)]
    assert frames.at_boundary
    frames.feed(frame(HEADERS, 5, b"zz")[:5])
    assert not frames.at_boundary
    other = Frames(lambda *frame: seen.append(frame), preface=True)
    other.feed(b"GET / HTTP/1.1\r\n\r\n" + frame(RST_STREAM, 1, b"\0\0\0\x08"))
    assert not other.http2 and len(seen) == 4  # not HTTP/2: let through unread


def test_resets_may_come_in_a_burst_and_come_back_over_ten_seconds() -> None:
    resets = Resets(3)
    assert [resets.spend() for _ in range(4)] == [True, True, True, False]
    assert all(Resets(0).spend() for _ in range(1000))  # 0: no limit
