"""The function view: ``f`` and ``df/dx_i`` as curves over one input element's range,
the current point with its tangent, and a finite-difference slope beside autograd's.

"I expected a function back": the curves show the function behind the one number
``x.grad[i]``. The panel renders :func:`~gui.model.views.function_curve.function_curve`;
its controls call one session method each (the element, ``h``), and it tells the session
when it is on screen, so the engine sweeps only for a view someone looks at.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QHideEvent, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from gui.model.session import Session, Snapshot
from gui.model.session.function_view import MAX_H, MIN_H, SETTLE_SECONDS
from gui.model.tensor_format import format_precise, format_short
from gui.model.views.function_curve import (
    FunctionCurve,
    check_detail,
    element_label,
    function_curve,
    value_range,
)
from gui.widgets.curve_plot import Curve, CurvePlot
from gui.widgets.name_combo import bound_to_short_names
from gui.widgets.plot_style import plot_font
from gui.widgets.qt_text import plain_label, set_tooltip

F_COLOR = "#202020"
SLOPE_COLOR = "#7b3294"
CURVATURE_COLOR = "#008837"
CHECK_COLORS = {True: "#1b7837", False: "#b2182b", None: "#202020"}
# The h slider's notches per decade (h = 10 ** (k / H_STEPS_PER_DECADE)).
H_STEPS_PER_DECADE = 10
# Each plot's least height, in lines of its text.
PLOT_LINES = 6


def _digits(value: float) -> str:
    """A slope with enough digits to see the two differ (float32 keeps about 7)."""
    return format_precise(value)


def h_to_position(h: float) -> int:
    """The h slider's position for ``h`` (a log scale)."""
    return round(math.log10(h) * H_STEPS_PER_DECADE)


def position_to_h(position: int) -> float:
    """``h`` at slider ``position``, a round number: 1e-3, 2e-3 ... ."""
    h = 10 ** (position / H_STEPS_PER_DECADE)
    return round(h, -math.floor(math.log10(h)))


class FunctionPanel(QWidget):
    """The function view of the session's current program; see the module docstring."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("function")
        self._session = session
        self._choices: tuple[tuple[str, int], ...] | None = None
        self._frame = FunctionCurve()
        # While sliders move, the session keeps the old curve (marked outdated) instead of
        # sweeping after every tick; this timer tells it when they stopped.
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(round(SETTLE_SECONDS * 1000))
        self._settle.timeout.connect(self._on_view_settled)
        self._build()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.fontChanged.connect(self._follow_application_font)
        session.changed.connect(self.render)
        self.render(session.snapshot)

    def _build(self) -> None:
        self._combo = bound_to_short_names(QComboBox())
        set_tooltip(self._combo, "The input element to sweep over its slider's range")
        self._combo.activated.connect(self._on_view_element_picked)
        self._combo_label = plain_label("x =")
        self._status = plain_label("")
        top = QHBoxLayout()
        top.addWidget(self._combo_label)
        top.addWidget(self._combo)
        top.addWidget(self._status, 1)
        self._f_plot = CurvePlot()
        self._slope_plot = CurvePlot()
        self._autograd = plain_label("")
        self._finite = plain_label("")
        set_tooltip(self._finite, "(f(x+h) − f(x−h)) / 2h: two more runs of the program")
        self._h_slider = QSlider(Qt.Orientation.Horizontal)
        self._h_slider.setRange(h_to_position(MIN_H), h_to_position(MAX_H))
        self._h_slider.setPageStep(H_STEPS_PER_DECADE)
        set_tooltip(self._h_slider, "The step h of the finite difference, 1e-6 to 1 (log scale)")
        self._h_slider.valueChanged.connect(self._on_view_h_moved)
        self._h_label = plain_label("h:")
        h_row = QHBoxLayout()
        h_row.addWidget(self._h_label)
        h_row.addWidget(self._h_slider, 1)
        self._check = plain_label("")
        self._notes = plain_label("")
        for label in (self._autograd, self._finite, self._check, self._notes):
            label.setWordWrap(True)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._status.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # Scrolls when the column is short (a projector at 1024x768): the plots keep room
        # for their ticks instead of the window growing past the screen.
        content = QWidget()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self._f_plot, 3)
        layout.addWidget(self._slope_plot, 2)
        layout.addWidget(self._autograd)
        layout.addWidget(self._finite)
        layout.addLayout(h_row)
        layout.addWidget(self._check)
        layout.addWidget(self._notes)
        self._follow_application_font(QApplication.font())

    def _follow_application_font(self, _font: QFont) -> None:
        """Presentation mode: every text and both plots in the bigger font."""
        font = plot_font()
        for widget in (self._combo, self._combo_label, self._status, self._autograd):
            widget.setFont(font)
        for widget in (self._finite, self._h_label, self._check, self._notes):
            widget.setFont(font)
        for plot in (self._f_plot, self._slope_plot):
            plot.set_plot_font(font)
            # Tall enough for a few value ticks, whatever the column leaves the view.
            plot.setMinimumHeight(round(QFontMetricsF(font).height() * PLOT_LINES))

    # -- on screen or not ------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._session.set_function_view_shown(True)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._session.set_function_view_shown(False)

    # -- rendering -------------------------------------------------------------------------

    # Shadows QWidget.render(QPaintDevice) on purpose: every panel's public entry point.
    def render(self, snapshot: Snapshot) -> None:  # type: ignore[override]
        """Show ``snapshot``'s function view (nothing to do while the view is hidden)."""
        view = snapshot.function
        if not view.shown:
            return
        self._sync_choices(snapshot)
        with QSignalBlocker(self._h_slider):
            self._h_slider.setValue(h_to_position(view.h))
        self._h_label.setText(f"h = {format_short(view.h)}")
        frame = self._frame = function_curve(snapshot)
        self._show_plots(frame)
        self._show_numbers(frame)
        status = "sweeping…" if view.sweeping else ("older curve" if frame.stale else "")
        self._status.setText(status)
        if view.curve is not None and not view.curve_current and not view.sweeping:
            self._settle.start()  # again: counted from the last change

    def _sync_choices(self, snapshot: Snapshot) -> None:
        view = snapshot.function
        if view.choices != self._choices:
            self._choices = view.choices
            with QSignalBlocker(self._combo):
                self._combo.clear()
                for leaf, index in view.choices:
                    info = None if snapshot.result is None else snapshot.result.tensors.get(leaf)
                    shape = tuple(info.value.shape) if info is not None else ()
                    self._combo.addItem(element_label(leaf, index, shape), (leaf, index))
        if view.leaf is not None and (view.leaf, view.index) in view.choices:
            with QSignalBlocker(self._combo):
                self._combo.setCurrentIndex(view.choices.index((view.leaf, view.index)))

    def _show_plots(self, frame: FunctionCurve) -> None:
        # x is the element picked above ("x = model.0.weight[1, 2]"): short titles fit.
        self._f_plot.set_title(f"f = {frame.f_label}" if frame.element else "")
        self._f_plot.set_message(frame.message)
        self._slope_plot.set_title("df/dx (autograd)" if frame.element else "")
        self._slope_plot.set_message(frame.message)
        point = [frame.point] if frame.point is not None else []
        f_range = value_range(frame.values, [p[1] for p in point])
        self._f_plot.show_curves(
            frame.xs, [Curve(frame.values, F_COLOR, "f")], frame.x_range, f_range
        )
        self._f_plot.show_marks(point, frame.tangent, None)
        curves = [Curve(frame.slopes, SLOPE_COLOR, "df/dx")]
        if frame.curvatures:
            curves.append(Curve(frame.curvatures, CURVATURE_COLOR, "d²f/dx²", dashed=True))
        slope_point = []
        if frame.point is not None and frame.slope is not None:
            slope_point = [(frame.point[0], frame.slope)]
        s_range = value_range((*frame.slopes, *frame.curvatures), [p[1] for p in slope_point])
        self._slope_plot.show_curves(frame.xs, curves, frame.x_range, s_range)
        marker_x = frame.point[0] if frame.point is not None else None
        self._slope_plot.show_marks(slope_point, None, marker_x)

    def _show_numbers(self, frame: FunctionCurve) -> None:
        slope = "–" if frame.slope is None else _digits(frame.slope)
        at = "" if frame.point is None else f" at x = {format_short(frame.point[0])}"
        self._autograd.setText(f"autograd: df/dx = {slope}{at}")
        waiting = "…" if self._session.snapshot.function.sweeping else "–"
        finite = waiting if frame.finite_difference is None else _digits(frame.finite_difference)
        self._finite.setText(f"finite difference: {finite}")
        self._check.setText(frame.check)
        set_tooltip(self._check, check_detail(frame.agrees))
        palette = self._check.palette()
        palette.setColor(QPalette.ColorRole.WindowText, QColor(CHECK_COLORS[frame.agrees]))
        self._check.setPalette(palette)
        self._notes.setText("\n".join(frame.notes))
        self._notes.setVisible(bool(frame.notes))

    # -- the user's actions ----------------------------------------------------------------

    def _on_view_element_picked(self, row: int) -> None:
        data = self._combo.itemData(row)
        if isinstance(data, tuple | list) and len(data) == 2:
            self._session.select_function_element(str(data[0]), int(data[1]))

    def _on_view_settled(self) -> None:
        self._session.settle_function_view()

    def _on_view_h_moved(self, position: int) -> None:
        self._session.set_function_h(position_to_h(position))

    # -- reading back (tests, screenshots) -------------------------------------------------

    @property
    def frame(self) -> FunctionCurve:
        """What the panel shows now."""
        return self._frame

    @property
    def f_plot(self) -> CurvePlot:
        return self._f_plot

    @property
    def slope_plot(self) -> CurvePlot:
        return self._slope_plot

    @property
    def element_combo(self) -> QComboBox:
        return self._combo

    @property
    def h_slider(self) -> QSlider:
        return self._h_slider

    def texts(self) -> tuple[str, str, str]:
        """The autograd line, the finite-difference line and the check sentence."""
        return self._autograd.text(), self._finite.text(), self._check.text()
