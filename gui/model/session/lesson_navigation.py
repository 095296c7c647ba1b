"""The session's lesson steps: go to a step of the open lesson, like slides.

A mixin of :class:`~gui.model.session.session.Session`. The state at step N is the lesson's
starting state with steps 0..N applied (:mod:`.lesson_steps`, pure), so going back is exact.
"""

from __future__ import annotations

from gui.model.request import RunRequest
from gui.model.session import lesson_steps, replay
from gui.model.session import steps as backward_steps
from gui.model.session.computed import Computed
from gui.model.session.drag_detail import same_state
from gui.model.session.lesson import LessonPosition
from gui.model.session.state import SessionState


class LessonNavigation:
    """Next, previous and go-to step of the open lesson; selects the node a step names."""

    # What the session holds (see Session.__init__) and the methods of it used here.
    _lesson_start: SessionState | None
    _lesson_index: int | None
    _lesson_select: str | None
    _state: SessionState
    _saved_state: SessionState | None
    _shown: Computed | None
    _selected_step: int | None
    _selected_node: str | None
    _replay: replay.Replay | None
    _fitted: backward_steps.OutputKey | None
    _time_limit: float

    def request(self) -> RunRequest:
        raise NotImplementedError

    def _change(
        self, state: SessionState, changes: set[str], run: bool = True, force_run: bool = False
    ) -> None:
        raise NotImplementedError

    @property
    def lesson_step_count(self) -> int:
        """How many steps the open lesson has (0: none)."""
        start = self._lesson_start
        return 0 if start is None else len(start.document.lesson.steps)

    def next_lesson_step(self) -> None:
        """The open lesson's next step (nothing at the last, or without steps)."""
        if self._lesson_index is not None and self._lesson_index + 1 < self.lesson_step_count:
            self.go_to_lesson_step(self._lesson_index + 1)

    def previous_lesson_step(self) -> None:
        """The open lesson's previous step (nothing at the first, or without steps)."""
        if self._lesson_index:
            self.go_to_lesson_step(self._lesson_index - 1)

    def go_to_lesson_step(self, index: int) -> None:
        """Show step ``index`` (from 0) of the open lesson: its starting state with steps
        ``0..index`` applied (:func:`.lesson_steps.state_at`), so going back is exact.

        A step is not an edit: the state it makes counts as saved (the window asks before
        a step replaces unsaved work). Raises ``IndexError`` for a step the lesson lacks.
        """
        start = self._lesson_start
        if start is None:
            raise IndexError("the open session has no lesson steps")
        steps = start.document.lesson.steps
        state = lesson_steps.state_at(start, steps, index)
        if index == self._lesson_index and state == self._state:
            return
        old = self._state.program
        self._lesson_index = index
        self._saved_state = state
        self._selected_step = None
        self._replay = self._lesson_replay()
        self._selected_node = None
        self._lesson_select = lesson_steps.selection_at(steps, index)[1]
        if state.program.code != old.code:
            self._fitted = None  # the step's calls are what it asks for
        differs = {
            field
            for field, changed in (
                ("code", state.program.code != old.code),
                ("values", state.program.values != old.values),
                ("steps", state.program.steps != old.steps),
                ("output", state.program.output != old.output),
            )
            if changed
        }
        shown = self._shown
        if shown is not None and same_state(state.request(self._time_limit), shown.request):
            self._resolve_lesson_node(shown)  # nothing to run: the node is there now
        self._change(state, {"lesson", "file", "selection", *differs})

    def _start_lesson(self, state: SessionState) -> SessionState:
        """A document just loaded: at its first step if it has steps (else as it is)."""
        steps = state.document.lesson.steps
        if not steps:
            self._lesson_start = self._lesson_index = self._lesson_select = None
            return state
        self._lesson_start = state
        self._lesson_index = 0
        self._lesson_select = lesson_steps.selection_at(steps, 0)[1]
        return lesson_steps.state_at(state, steps, 0)

    def _select_lesson_node(self, computed: Computed) -> set[str]:
        """Select the node a lesson step names, once ``computed`` (a result of the current
        state) has a graph; what changed (``{"selection"}`` or nothing)."""
        if not same_state(computed.request, self.request()):
            return set()
        return self._resolve_lesson_node(computed)

    def _resolve_lesson_node(self, computed: Computed) -> set[str]:
        name = self._lesson_select
        graph = computed.result.graph
        if name is None or graph is None:
            return set()
        self._lesson_select = None
        self._selected_node = lesson_steps.node_for(graph, name)
        return {"selection"}

    def _lesson_replay(self) -> replay.Replay | None:
        """A step whose view is the step-through starts it, paused at the seed."""
        position = self._lesson_position()
        return replay.Replay() if position is not None and position.view == "replay" else None

    def _lesson_position(self) -> LessonPosition | None:
        start, index = self._lesson_start, self._lesson_index
        if start is None or index is None:
            return None
        return lesson_steps.position_at(start.document.lesson.steps, index)
