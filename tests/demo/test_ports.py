"""Port choice of `newscrawl demo`: fixed ports when free, free ports otherwise."""

from __future__ import annotations

import socket

from newscrawl.commands.demo import choose_ports


def test_fixed_ports_when_free_and_none_when_one_is_taken() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        assert choose_ports(taken, ["a", "b"]) == {}
    with socket.socket() as finder:
        finder.bind(("127.0.0.1", 0))
        free = finder.getsockname()[1]
    # Free a moment ago: only another process binding this very port in between could fail this.
    assert choose_ports(free, ["a"]) == {"a": free}
    assert choose_ports(0, ["a"]) == {}
