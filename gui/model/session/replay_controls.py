"""The session's step-through controls: replay the graph's backward call node by node.

A mixin of :class:`~gui.model.session.session.Session` (its state is ``_replay``, a frozen
:class:`~.replay.Replay`); what a replay shows is decided by :mod:`.replay` and the
snapshot.
"""

from __future__ import annotations

from dataclasses import replace

from gui.model.session import replay
from gui.model.session.snapshot import Snapshot


class ReplayControls:
    """Start, step, play, pause and leave the step-through of the shown backward call."""

    # What the session holds (see Session.__init__) and the methods of it used here.
    _replay: replay.Replay | None
    _snapshot: Snapshot
    _selected_node: str | None

    def _emit(self, changes: set[str]) -> None:
        raise NotImplementedError

    def start_replay(self, playing: bool = True) -> None:
        """Replay the graph's backward call from its seed, node by node in torch's order
        (see :mod:`.replay`); the node reached last is the selected one."""
        speed = replay.DEFAULT_SPEED if self._replay is None else self._replay.speed
        self._set_replay(replay.Replay(0, playing, speed))

    def step_replay(self, delta: int) -> None:
        """Move the step-through ``delta`` nodes on (or back); starts one, paused, if none."""
        count = replay.node_count(self._snapshot.replayed_call)
        current = self._replay or replay.Replay(0 if delta > 0 else count)
        moved = replace(current, position=current.position + delta)
        if delta < 0:
            moved = replace(moved, playing=False)
        self._set_replay(moved)

    def play_replay(self, on: bool) -> None:
        """Play or pause; playing at the end starts over."""
        current = self._replay or replay.Replay()
        count = replay.node_count(self._snapshot.replayed_call)
        position = 0 if on and current.position >= count else current.position
        self._set_replay(replace(current, position=position, playing=on))

    def set_replay_speed(self, nodes_per_second: float) -> None:
        """How many nodes a second a playing step-through runs."""
        speed = min(max(nodes_per_second, replay.SLOWEST), replay.FASTEST)
        self._set_replay(replace(self._replay or replay.Replay(playing=False), speed=speed))

    def stop_replay(self) -> None:
        """Back to the whole call."""
        if self._replay is not None:
            self._replay = None
            self._emit({"replay"})

    def _set_replay(self, wanted: replay.Replay) -> None:
        call = self._snapshot.replayed_call
        fitted = replay.clamp(wanted, call)
        if fitted == self._replay:
            return
        self._replay = fitted
        active = replay.active_node(fitted, call)
        if active is None and call is not None and call.flows:
            active = self._snapshot.graph.root if self._snapshot.graph is not None else None
        self._selected_node = active
        self._emit({"replay", "selection"})
