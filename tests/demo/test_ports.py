"""Port choice of `newscrawl demo`: the given ports or an error, free ports only for --port 0."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from newscrawl.cli import main
from newscrawl.commands.demo import assign_ports, find_busy_port


def test_ports_follow_the_base_port_and_zero_means_free_ones() -> None:
    assert assign_ports(9100, ["a", "b", "c"]) == {"a": 9100, "b": 9101, "c": 9102}
    assert assign_ports(0, ["a"]) == {}


def test_a_taken_port_is_found() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        assert find_busy_port({"a": taken}) == taken
    with socket.socket() as finder:
        finder.bind(("127.0.0.1", 0))
        free = finder.getsockname()[1]
    # Free a moment ago: only another process binding this very port in between could fail this.
    assert find_busy_port({"a": free}) is None


def test_a_busy_port_is_an_error_not_a_silent_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "demo.db"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        assert main(["demo", "--port", str(taken), "--database", str(database)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"newscrawl demo: port {taken} is in use")
    assert captured.err.count("\n") == 1 and "--port 0" in captured.err
    assert captured.out == "" and not database.exists()
