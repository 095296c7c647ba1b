"""The Jacobian view: ``J`` of the shown backward call, ``v`` beside it, ``Jᵀv`` against
what torch's backward added, and "Build J row by row", the classic recipe, animated.

The panel renders :func:`~gui.model.views.jacobian.jacobian_view`; its only state of its
own is which leaf the combo box picked and the recipe's timer, which calls ONE session
method per row (:meth:`~gui.model.session.Session.step_jacobian_recipe`) at a pace a class
can follow. Everything the recipe built lives in the session's snapshot.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QFont, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.model.session import Session, Snapshot
from gui.model.session.jacobian_recipe import cannot_start
from gui.model.views.jacobian import JacobianView, jacobian_view
from gui.widgets.elided_label import ElidedLabel
from gui.widgets.jacobian_canvas import JacobianCanvas
from gui.widgets.plot_style import plot_font
from gui.widgets.qt_text import plain_label, set_tooltip

# Seconds per row of "Build J row by row": slow enough for a class to follow each row.
ROW_SECONDS = 0.8
# The matrix's scroll area grows with the matrix up to this many lines of text; beyond,
# it scrolls (the panel's own scroll bar then reaches the equation below it).
MATRIX_MAX_LINES = 16
HOVER_HINT = "Point at a cell to read it."
CHECK_COLORS = {True: "#1b7837", False: "#b2182b", None: "#202020"}


class JacobianPanel(QWidget):
    """The Jacobian of the session's shown backward call; see the module docstring.

    Parameters
    ----------
    session
        The session to render; the recipe's buttons call it.
    parent
        The usual Qt parent.
    """

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jacobian")
        self._session = session
        self._leaf: str | None = None
        self._view: JacobianView | None = None
        self._drawn: tuple[object, ...] | None = None
        self._snapshot = session.snapshot
        self._timer = QTimer(self)
        self._timer.setInterval(round(ROW_SECONDS * 1000))
        self._timer.timeout.connect(self._on_view_tick)
        self._build()
        self._follow_application_font(QApplication.font())
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.fontChanged.connect(self._follow_application_font)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    # -- building ------------------------------------------------------------------------

    def _build(self) -> None:
        # Names come from the program: a very long one is elided, never widens the panel.
        self._title = ElidedLabel()
        self._title.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._combo = QComboBox()
        self._combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self._combo.setMinimumContentsLength(12)
        self._combo.setToolTip("Which leaf's Jacobian to show")
        self._combo.currentTextChanged.connect(self._on_view_leaf)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self._title, 1)
        top.addWidget(self._combo, 1)
        self._explanation = self._wrapped("jacobianExplanation")
        self._message = self._wrapped("jacobianMessage")
        self._build_button = QPushButton("Build J row by row")
        self._build_button.setObjectName("buildJacobian")
        self._build_button.setToolTip(
            "backward(e_k) with zeroed grads, for k = 0, 1, ...: each call leaves row k of J "
            "in .grad"
        )
        self._build_button.clicked.connect(self._on_view_build)
        # Tool buttons are as wide as their word (push buttons have a wide least width),
        # so the three fit one row of the narrow right column.
        self._step_button = QToolButton()
        self._step_button.setText("Step")
        self._step_button.setToolTip("One row at a time (pauses the animation)")
        self._step_button.clicked.connect(self._on_view_step)
        self._stop_button = QToolButton()
        self._stop_button.setText("Stop")
        self._stop_button.setToolTip("Stop, and put back your own v and backward calls")
        self._stop_button.clicked.connect(self._on_view_stop)
        # One row when the column is wide enough, else "Step" and "Stop" under the build
        # button (see _arrange_buttons): never a button with its text cut off.
        buttons = self._buttons = QGridLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        for button in (self._build_button, self._step_button, self._stop_button):
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self._buttons_wide: bool | None = None
        self.canvas = JacobianCanvas()
        self.canvas.hovered.connect(self._on_view_hover)
        self._matrix = QScrollArea()
        self._matrix.setObjectName("jacobianMatrix")
        self._matrix.setWidgetResizable(False)
        self._matrix.setFrameShape(QFrame.Shape.NoFrame)
        # As wide as the panel, not as the matrix: a wide matrix scrolls inside it.
        self._matrix.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._matrix.setMinimumWidth(0)
        self._matrix.setWidget(self.canvas)
        self._hover = self._wrapped("jacobianHover")
        self._equation = self._wrapped("jacobianEquation")
        self._check = self._wrapped("jacobianCheck")
        content = QWidget()
        layout = QVBoxLayout(content)
        layout.setContentsMargins(2, 4, 2, 4)
        layout.addLayout(top)
        layout.addWidget(self._explanation)
        layout.addWidget(self._message)
        layout.addLayout(buttons)
        layout.addWidget(self._matrix)
        layout.addWidget(self._hover)
        layout.addWidget(self._equation)
        layout.addWidget(self._check)
        layout.addStretch(1)
        outer = QScrollArea()
        outer.setWidgetResizable(True)
        outer.setFrameShape(QFrame.Shape.NoFrame)
        outer.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        outer.setWidget(content)
        self._outer = outer
        main = QVBoxLayout(self)
        main.setContentsMargins(0, 0, 0, 0)
        main.addWidget(outer)
        self._arrange_buttons()

    def _arrange_buttons(self) -> None:
        """The recipe's buttons in one row when they fit the panel's width, else in two."""
        # The panel's own width: the scroll area's viewport follows it only later.
        room = self.width() - self._outer.verticalScrollBar().sizeHint().width() - 8
        needed = sum(b.sizeHint().width() for b in self._buttons_list()) + 2 * 6
        wide = room >= needed
        if wide == self._buttons_wide:
            return
        self._buttons_wide = wide
        for button in self._buttons_list():
            self._buttons.removeWidget(button)
        build, step, stop = self._buttons_list()
        if wide:
            self._buttons.addWidget(build, 0, 0)
            self._buttons.addWidget(step, 0, 1)
            self._buttons.addWidget(stop, 0, 2)
            self._buttons.setColumnStretch(3, 1)
        else:
            self._buttons.addWidget(build, 0, 0, 1, 2)
            self._buttons.addWidget(step, 1, 0)
            self._buttons.addWidget(stop, 1, 1)
            self._buttons.setColumnStretch(3, 0)

    def _buttons_list(self) -> tuple[QPushButton, QToolButton, QToolButton]:
        return self._build_button, self._step_button, self._stop_button

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange_buttons()

    @staticmethod
    def _wrapped(name: str) -> QLabel:
        label = plain_label()
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        return label

    def _follow_application_font(self, _font: QFont) -> None:
        """Presentation mode: every text, the cells included, in the bigger font."""
        font = plot_font()
        for widget in self.findChildren(QWidget):
            widget.setFont(font)
        self._drawn = None
        self._buttons_wide = None
        self._arrange_buttons()
        if self.isVisible():
            self._draw(self._snapshot)

    def set_row_seconds(self, seconds: float) -> None:
        """How long each row of the recipe stays before the next (tests go faster)."""
        self._timer.setInterval(max(1, round(seconds * 1000)))

    # -- rendering -----------------------------------------------------------------------

    # Shadows QWidget.render(QPaintDevice) on purpose: every panel's public entry point.
    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot`` (drawn when the page is visible: a hidden tab waits)."""
        self._snapshot = snapshot
        recipe = snapshot.jacobian_recipe
        if self._timer.isActive() and (recipe is None or not recipe.building):
            self._timer.stop()
        self._show_buttons(snapshot)
        if self.isVisible():
            self._draw(snapshot)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._draw(self._snapshot)

    def _draw(self, snapshot: Snapshot) -> None:
        key = (
            snapshot.result,
            snapshot.selected_step,
            snapshot.locked_scale,
            snapshot.jacobian_recipe,
            snapshot.selected_node,
            self._leaf,
        )
        drawn = self._drawn
        # The result and the recipe by identity (a new one is a new object): comparing two
        # results number by number would cost more than drawing.
        if (
            drawn is not None
            and key[0] is drawn[0]
            and key[3] is drawn[3]
            and key[1:3] + key[4:] == drawn[1:3] + drawn[4:]
        ):
            return
        self._drawn = key
        view = self._view = jacobian_view(snapshot, self._leaf)
        self._sync_combo(view)
        if view.leaf is None:
            self._title.setText("Jacobian")
        else:
            self._title.setText(
                f"J of {view.output} w.r.t."
                if len(view.leaves) > 1
                else (f"J of {view.output} w.r.t. {view.leaf}")
            )
        self._explanation.setText(view.explanation)
        self._explanation.setVisible(bool(view.explanation))
        self._message.setText(view.message or "")
        self._message.setVisible(view.message is not None)
        has_matrix = view.matrix is not None
        self.canvas.set_view(view if has_matrix else None)
        self._matrix.setVisible(has_matrix)
        self._fit_matrix_height()
        self._hover.setText(HOVER_HINT if has_matrix else "")
        self._hover.setVisible(has_matrix)
        *equation, last = view.lines or ("",)
        self._equation.setText("\n".join(equation))
        self._equation.setVisible(bool(equation))
        self._check.setText(last)
        self._check.setVisible(bool(last))
        self._check.setStyleSheet(f"color: {CHECK_COLORS[view.check]};")

    def _fit_matrix_height(self) -> None:
        """As tall as the matrix up to :data:`MATRIX_MAX_LINES` lines, plus its scroll bar
        when it is wider than the panel."""
        line = self.canvas.fontMetrics().height()
        limit = line * MATRIX_MAX_LINES
        scrolls = self.canvas.sizeHint().width() > self._matrix.viewport().width()
        bar = self._matrix.horizontalScrollBar().sizeHint().height() if scrolls else 0
        self._matrix.setFixedHeight(min(self.canvas.sizeHint().height(), limit) + bar + 2)

    def _sync_combo(self, view: JacobianView) -> None:
        items = [self._combo.itemText(i) for i in range(self._combo.count())]
        with QSignalBlocker(self._combo):
            if items != list(view.leaves):
                self._combo.clear()
                self._combo.addItems(list(view.leaves))
            if view.leaf is not None:
                self._combo.setCurrentText(view.leaf)
        self._combo.setVisible(len(view.leaves) > 1)

    def _show_buttons(self, snapshot: Snapshot) -> None:
        recipe = snapshot.jacobian_recipe
        building = recipe is not None and recipe.building
        reason = None if building else cannot_start(snapshot.result)
        self._build_button.setEnabled(reason is None and not self._timer.isActive())
        self._step_button.setEnabled(reason is None)
        self._stop_button.setEnabled(recipe is not None)
        self._stop_button.setText("Stop" if building or recipe is None else "Close")
        tip = (
            "backward(e_k) with zeroed grads, for k = 0, 1, ...: each call leaves row k of J "
            "in .grad"
        )
        set_tooltip(self._build_button, tip if reason is None else f"Cannot build J: {reason}")

    # -- what the user does ------------------------------------------------------------------

    def _on_view_leaf(self, leaf: str) -> None:
        if leaf:
            self._leaf = leaf
            self._draw(self._snapshot)

    def _on_view_hover(self, text: str) -> None:
        self._hover.setText(text)

    def _on_view_build(self) -> None:
        recipe = self._session.snapshot.jacobian_recipe
        if recipe is None or not recipe.building:
            self._session.step_jacobian_recipe()
        self._timer.start()
        self._show_buttons(self._session.snapshot)

    def _on_view_tick(self) -> None:
        self._session.step_jacobian_recipe()

    def _on_view_step(self) -> None:
        self._timer.stop()
        self._session.step_jacobian_recipe()
        self._show_buttons(self._session.snapshot)

    def _on_view_stop(self) -> None:
        self._timer.stop()
        self._session.stop_jacobian_recipe()

    # -- for tests and screenshots -----------------------------------------------------------

    @property
    def view(self) -> JacobianView | None:
        """The view drawn last."""
        return self._view

    def texts(self) -> dict[str, str]:
        """What the panel's labels say, by role (``title``, ``explanation``, ``message``,
        ``equation``, ``check``, ``hover``): empty for a hidden one."""
        labels = {
            "title": self._title,
            "explanation": self._explanation,
            "message": self._message,
            "equation": self._equation,
            "check": self._check,
            "hover": self._hover,
        }
        return {k: (w.text() if not w.isHidden() else "") for k, w in labels.items()}
