"""The session's "Build J row by row" controls: one backward call per one-hot ``v``.

A mixin of :class:`~gui.model.session.session.Session` (its state is ``_jacobian``, a
frozen :class:`~.jacobian_recipe.JacobianRecipe`); the rows come from the session's own
runs (see ``Session.request`` and ``Session._on_computed``).
"""

from __future__ import annotations

from gui.model.session import jacobian_recipe
from gui.model.session.snapshot import Snapshot
from gui.model.session.state import SessionState


class JacobianRecipeControls:
    """Step and stop the animated Jacobian recipe."""

    # What the session holds (see Session.__init__) and the methods of it used here.
    _jacobian: jacobian_recipe.JacobianRecipe | None
    _snapshot: Snapshot
    _state: SessionState
    _selected_step: int | None

    def _emit(self, changes: set[str]) -> None:
        raise NotImplementedError

    def _change(
        self, state: SessionState, changes: set[str], run: bool = True, force_run: bool = False
    ) -> None:
        raise NotImplementedError

    def step_jacobian_recipe(self) -> None:
        """One step of "Build J row by row" (a widget's timer calls it once per row): start
        at ``v = e_0``, ask for the next row once the last one is in, and when every row is
        built put the user's own backward calls back (they were never changed). Nothing
        while a row's run is on its way, or when the recipe cannot run (see
        :func:`.jacobian_recipe.cannot_start`)."""
        recipe = self._jacobian
        if recipe is None or not recipe.building:
            if jacobian_recipe.cannot_start(self._snapshot.result) is not None:
                return
            assert self._snapshot.result is not None
            self._jacobian = jacobian_recipe.start(self._snapshot.result, self._selected_step)
            self._selected_step = None  # the graph shows the row's call
        else:
            self._jacobian = jacobian_recipe.advance(recipe)
            if self._jacobian is recipe:
                return  # the row's run is still on its way
            if not self._jacobian.building:
                self._selected_step = recipe.selected_step
        self._change(self._state, {"jacobian", "selection"}, force_run=True)

    def stop_jacobian_recipe(self) -> None:
        """Stop "Build J row by row" (or put away the finished matrix): the user's own
        gradient argument and backward calls run again, exactly as they were."""
        if self._jacobian is None:
            return
        building = self._jacobian.building
        self._end_jacobian_recipe()
        if building:
            self._change(self._state, {"jacobian", "selection"}, force_run=True)
        else:
            self._emit({"jacobian"})

    def _end_jacobian_recipe(self) -> None:
        recipe, self._jacobian = self._jacobian, None
        if recipe is not None and recipe.building:
            self._selected_step = recipe.selected_step
