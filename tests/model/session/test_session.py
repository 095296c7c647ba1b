"""The window's session: one method per action, one snapshot per change, numbers from torch.

Runs go through the engine in-process (``run_program``) with the inline dispatcher, so each
call returns with its result. Expected numbers are written the ordinary way with torch.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.nested import flatten, full, index_label, one_hot, scaled, shape_of, unflatten
from gui.model.request import BackwardStep, RunRequest
from gui.model.result import RunResult
from gui.model.session import (
    GRADIENT_RANGE,
    InputRange,
    Session,
    SessionFileError,
    Snapshot,
    load_session,
)
from gui.model.session.ranges import default_range
from gui.resources import lesson
from tests.fixtures import V1, V2, X5, HeldDispatcher, approx, cube_grad

VECTOR = "x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * x\n"


class Recorder:
    def __init__(self, session: Session) -> None:
        self.snapshots: list[Snapshot] = []
        session.changed.connect(self.snapshots.append)


def make(code: str | None = None) -> tuple[Session, Recorder]:
    session = Session(run_program)
    recorder = Recorder(session)
    if code is not None:
        session.set_code(code)
    return session, recorder


def grad(snapshot: Snapshot, name: str = "x") -> object:
    g = snapshot.leaf_grads.get(name)
    return None if g is None else g.values


def test_one_snapshot_per_change_and_none_for_no_change() -> None:
    session, seen = make("x = torch.tensor([3., 4.], requires_grad=True)\ny = (x ** 2).sum()\n")
    before = len(seen.snapshots)
    session.set_input("x", 1, 5.0)
    assert len(seen.snapshots) == before + 2  # the change, then its result
    session.set_input("x", 1, 5.0)
    session.set_code(session.snapshot.code)
    session.select_node(None)
    assert len(seen.snapshots) == before + 2


def test_slider_value_gives_torch_gradient() -> None:
    session, _ = make("x = torch.tensor([3., 4.], requires_grad=True)\ny = (x ** 2).sum()\n")
    session.set_input("x", 0, -1.5)
    x = torch.tensor([-1.5, 4.0], requires_grad=True)
    (x**2).sum().backward()
    snap = session.snapshot
    assert snap.values == {"x": [-1.5, 4.0]}
    assert grad(snap) == x.grad.tolist()
    assert not snap.stale and not snap.running


def test_scalar_gradient_scales_like_backward_argument() -> None:
    session, _ = make("x = torch.tensor([3., 4.], requires_grad=True)\ny = (x ** 2).sum()\n")
    session.set_gradient_element(0, 0.1)
    x = torch.tensor([3.0, 4.0], requires_grad=True)
    (x**2).sum().backward(torch.tensor(0.1))
    assert session.snapshot.current_step.gradient == pytest.approx(0.1)
    assert grad(session.snapshot) == approx(x.grad.tolist())


def test_non_scalar_output_offers_fixes_and_each_fix_works() -> None:
    for fix, reduce in (("sum", torch.sum), ("mean", torch.mean)):
        session, _ = make(VECTOR)
        snap = session.snapshot
        assert snap.error is not None and snap.error.kind == "non-scalar-backward"
        assert "grad can be implicitly created only for scalar outputs" in snap.error.message
        assert snap.fixes == ("sum", "mean", "ones_like")
        session.apply_fix(fix)  # type: ignore[arg-type]
        snap = session.snapshot
        assert snap.error is None
        assert snap.code.endswith(f"loss = y.{fix}()\n") and snap.output == "loss"
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        reduce(x * x).backward()
        assert grad(snap) == approx(x.grad.tolist())
    session, _ = make(VECTOR)
    session.apply_fix("ones_like")
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    y.backward(torch.ones_like(y))
    assert session.snapshot.error is None
    assert grad(session.snapshot) == x.grad.tolist()


def test_fix_name_does_not_clash_with_existing_loss() -> None:
    session, _ = make("x = torch.tensor([1., 2.], requires_grad=True)\nloss = x * 3\n")
    session.apply_fix("sum")
    assert session.snapshot.code.endswith("loss2 = loss.sum()\n")
    assert session.snapshot.error is None


def test_backward_button_accumulates_and_retain_graph_fix() -> None:
    session, _ = make("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x ** 3).sum()\n")
    session.backward()
    snap = session.snapshot
    assert snap.error is None, "the graph is kept automatically for the second call"
    assert snap.steps == (BackwardStep(), BackwardStep())
    session.set_options(retain_graph=False)  # unticked: freed after the last call
    session.backward()
    snap = session.snapshot
    assert snap.error is not None and snap.error.kind == "backward-twice"
    assert snap.fixes == ("retain_graph",)
    session.apply_fix("retain_graph")
    snap = session.snapshot
    assert snap.error is None and snap.steps is not None
    assert all(st.retain_graph is None for st in snap.steps), "automatic again"
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x**3).sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    y.backward()
    assert grad(snap) == x.grad.tolist() == [9.0, 36.0]
    assert len(snap.result.steps) == 3  # type: ignore[union-attr]


def test_zero_grad_then_backward_starts_from_zero() -> None:
    session, _ = make("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x ** 2).sum()\n")
    session.set_options(retain_graph=True)
    session.zero_grad()
    assert grad(session.snapshot) == [0.0, 0.0]
    session.backward()
    snap = session.snapshot
    assert grad(snap) == [2.0, 4.0]
    assert snap.steps is not None and snap.steps[-1].zero_grad and not snap.zero_after
    session.clear_steps()
    assert session.snapshot.steps == (BackwardStep(retain_graph=True),)
    assert not session.snapshot.can_clear


def test_lesson_five_presets_reproduce_accumulation() -> None:
    session, _ = make()
    session.load(load_session(lesson("05-gradients-accumulate")))
    snap = session.snapshot
    assert grad(snap) == approx([[43.40, 2.052], [5.405, 18.76]], rel=1e-3)
    session.select_step(0)
    assert session.snapshot.shown_step is not None
    assert session.snapshot.shown_step.index == 0
    # One-hot on the last step: e_3 picks z[1, 1] alone, added onto step 1's first column.
    session.apply_gradient_preset("one_hot", index=3)
    x = torch.tensor([[1.3448, -0.2924], [-0.4746, 0.8842]], requires_grad=True)
    z = (2 * x) ** 3
    z.backward(torch.tensor([[1.0, 0.0], [1.0, 0.0]]), retain_graph=True)
    z.backward(torch.tensor([[0.0, 0.0], [0.0, 1.0]]))
    assert grad(session.snapshot) == x.grad.tolist()
    session.apply_gradient_preset("scale", factor=0.5)
    assert session.snapshot.current_step.gradient == [[0.0, 0.0], [0.0, 0.5]]


def test_broken_code_keeps_last_good_result_marked_stale() -> None:
    session, _ = make("x = torch.tensor([3.], requires_grad=True)\ny = (x * 2).sum()\n")
    good = session.snapshot.result
    session.set_code("x = torch.tensor([3.], requires_grad=True)\ny = (x * 2\n")
    snap = session.snapshot
    assert snap.error is not None and snap.error.kind == "syntax-error"
    assert snap.result is good and snap.stale
    session.set_code("x = torch.tensor([3.], requires_grad=True)\ny = (x * 5).sum()\n")
    assert not session.snapshot.stale and grad(session.snapshot) == [5.0]


def test_editing_a_leafs_line_drops_its_override() -> None:
    session, _ = make("x = torch.tensor([3.], requires_grad=True)\ny = (x * x).sum()\n")
    session.set_input("x", 0, 2.0)
    session.set_code("x = torch.tensor([3.], requires_grad=True)\ny = (x * x * x).sum()\n")
    assert session.snapshot.values == {"x": [2.0]}, "the leaf's own line did not change"
    session.set_code("x = torch.tensor([7.], requires_grad=True)\ny = (x * x * x).sum()\n")
    assert session.snapshot.values == {}
    assert grad(session.snapshot) == [3 * 49.0]


def test_live_off_marks_stale_until_run() -> None:
    session, _ = make("x = torch.tensor([3.], requires_grad=True)\ny = (x * x).sum()\n")
    session.set_live(False)
    session.set_input("x", 0, 1.0)
    snap = session.snapshot
    assert snap.stale and grad(snap) == [6.0]
    session.run_now()
    assert not session.snapshot.stale and grad(session.snapshot) == [2.0]


def test_output_choice_and_retain_grad() -> None:
    code = "x = torch.tensor([1., 2.], requires_grad=True)\nh = x * 3\nloss = (h ** 2).sum()\n"
    session, _ = make(code)
    assert session.snapshot.result is not None
    assert session.snapshot.result.tensors["h"].grad is None
    session.set_retain_grad("h", True)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    (h**2).sum().backward()
    result = session.snapshot.result
    assert result is not None and result.tensors["h"].grad is not None
    assert result.tensors["h"].grad.values == h.grad.tolist()
    session.set_output("h")
    assert session.snapshot.error is not None
    assert session.snapshot.error.kind == "non-scalar-backward"


def test_selection_clears_when_node_disappears() -> None:
    session, _ = make("x = torch.tensor([1.], requires_grad=True)\ny = (x.exp() * 2).sum()\n")
    graph = session.snapshot.graph
    assert graph is not None
    exp_key = next(n.key for n in graph.nodes if n.name == "ExpBackward0")
    session.select_node(exp_key)
    assert session.snapshot.selected_node == exp_key
    session.set_code("x = torch.tensor([1.], requires_grad=True)\ny = (x * 2).sum()\n")
    assert session.snapshot.selected_node is None


def test_layout_is_reused_while_structure_stays() -> None:
    session, _ = make("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n")
    first = session.snapshot.layout
    session.set_input("x", 0, 4.0)
    assert session.snapshot.layout is first
    session.set_code("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).mean()\n")
    assert session.snapshot.layout is not first


def test_save_and_open_round_trip(tmp_path: pytest.TempPathFactory) -> None:
    session, _ = make()
    session.load(load_session(lesson("04-gradient-argument-scales")))
    session.set_gradient_element(0, 0.2)
    session.set_input("x", 0, 0.5)
    assert session.snapshot.modified
    path = tmp_path / "mine.json"  # type: ignore[operator]
    session.save(path)
    assert not session.snapshot.modified and session.snapshot.path == str(path)
    other, _ = make()
    other.open(path)
    assert other.snapshot.values == session.snapshot.values
    assert other.snapshot.steps == session.snapshot.steps
    assert grad(other.snapshot) == grad(session.snapshot)


def test_unreadable_file_changes_nothing(tmp_path: pytest.TempPathFactory) -> None:
    session, seen = make(VECTOR)
    count = len(seen.snapshots)
    bad = tmp_path / "bad.json"  # type: ignore[operator]
    bad.write_text("{not json")
    with pytest.raises(SessionFileError):
        session.open(bad)
    assert len(seen.snapshots) == count and session.snapshot.code == VECTOR


def test_engine_failure_is_reported_not_raised() -> None:
    def broken(request: RunRequest) -> RunResult:
        raise OSError("pipe closed")

    session = Session(broken)
    session.set_code(VECTOR)
    snap = session.snapshot
    assert snap.error is not None and snap.error.kind == "engine-error"
    assert not snap.running


def test_changes_during_a_run_coalesce_into_one_follow_up() -> None:
    dispatcher = HeldDispatcher()
    session = Session(run_program, dispatcher)  # type: ignore[arg-type]
    session.set_code("x = torch.tensor([1.], requires_grad=True)\ny = (x * x).sum()\n")
    assert session.snapshot.running
    for value in (2.0, 3.0, 4.0):
        session.set_input_values("x", [value])
    assert len(dispatcher.pending) == 1
    dispatcher.finish_one()
    assert session.snapshot.stale and len(dispatcher.pending) == 1
    dispatcher.finish_one()
    snap = session.snapshot
    assert not snap.stale and not snap.running and grad(snap) == [8.0]


def test_ranges_default_and_validation() -> None:
    assert default_range([1.0, 2.0, 3.0]) == InputRange(-5.0, 5.0, 0.005)
    assert default_range(0.0) == InputRange(-2.0, 2.0, 0.002)
    assert default_range([[40.0]]) == InputRange(-100.0, 100.0, 0.1)
    with pytest.raises(ValueError):
        InputRange(1.0, 1.0, 0.1)
    with pytest.raises(ValueError):
        InputRange(0.0, 1.0, 0.0)
    session, _ = make("x = torch.tensor([3.], requires_grad=True)\ny = (x * x).sum()\n")
    session.set_range("x", InputRange(0.0, 10.0, 0.5))
    assert session.snapshot.range_for("x") == InputRange(0.0, 10.0, 0.5)
    assert session.snapshot.range_for(GRADIENT_RANGE) == InputRange(-2.0, 2.0, 0.002)


def test_nested_helpers() -> None:
    values = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert shape_of(values) == (2, 3)
    assert flatten(values) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert unflatten(flatten(values), (2, 3)) == values
    assert full((2,), 1.0) == [1.0, 1.0] and full((), 3.0) == 3.0
    assert one_hot((2, 2), 2) == [[0.0, 0.0], [1.0, 0.0]]
    assert scaled([1.0, -2.0], 0.5) == [0.5, -1.0]
    assert index_label((2, 3), 4) == "[1, 1]" and index_label((), 0) == ""
    assert shape_of([]) == (0,) and flatten([]) == []


def test_default_range_stays_put_while_dragging() -> None:
    session, _ = make("x = torch.tensor([3.], requires_grad=True)\ny = (x * x).sum()\n")
    first = session.snapshot.range_for("x")
    for value in (4.9, -5.0, 0.01):
        session.set_input("x", 0, value)
        assert session.snapshot.range_for("x") == first
    session.set_input("x", 0, 30.0)  # typed beyond the ends: the range grows to hold it
    assert session.snapshot.range_for("x") == default_range([30.0])
    session.set_code("x = torch.tensor([300.], requires_grad=True)\ny = (x * x).sum()\n")
    assert session.snapshot.range_for("x") == default_range([300.0])


def test_gradient_that_fitted_the_old_output_goes_back_to_implicit() -> None:
    session, _ = make()
    session.load(load_session(lesson("05-gradients-accumulate")))
    session.set_code("x = torch.tensor([1., 2.], requires_grad=True)\nloss = (x * x).sum()\n")
    snap = session.snapshot
    assert snap.error is None or snap.error.kind == "backward-twice"
    assert snap.steps is not None and all(st.gradient is None for st in snap.steps)


def test_gradient_that_never_fitted_stays_to_show_its_error() -> None:
    session, _ = make()
    session.load(load_session(lesson("04-gradient-argument-scales")))
    session.set_gradient([1.0, 0.0])
    snap = session.snapshot
    assert snap.error is not None and snap.error.kind == "gradient-shape-mismatch"
    assert snap.current_step.gradient == [1.0, 0.0]


def test_hiding_saved_tensors_relayouts_without_running() -> None:
    session, _ = make("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n")
    snap = session.snapshot
    assert snap.layout is not None and not snap.show_saved
    graph = snap.graph
    assert graph is not None
    saved = {n.key for n in graph.nodes if n.kind == "saved"}
    assert saved and not saved & set(snap.layout.nodes)
    result = snap.result
    session.set_show_saved(True)
    snap = session.snapshot
    assert snap.result is result, "a view setting runs nothing"
    assert snap.layout is not None and saved <= set(snap.layout.nodes)
    assert set(snap.layout.edges) == {i for i, _ in enumerate(graph.edges)}


def test_zero_grad_press_is_one_off_and_the_option_persists() -> None:
    session, _ = make("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x ** 2).sum()\n")
    session.set_options(retain_graph=True)
    session.zero_grad()
    session.backward()
    assert not session.snapshot.zero_each, "the press was not the option"
    session.backward()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x**2).sum()
    y.backward(retain_graph=True)
    x.grad.zero_()  # type: ignore[union-attr]
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    assert grad(session.snapshot) == x.grad.tolist() == [4.0, 8.0]
    session.set_options(zero_grad=True)
    assert session.snapshot.zero_each
    session.backward()
    snap = session.snapshot
    assert snap.zero_each and grad(snap) == [2.0, 4.0], "the option zeroes before every call"


# -- Backward pressed again and again; calls that no longer fit; fixes for the code's call ----

LESSON_3_X = 35.109  # x.grad after one z.backward() in lesson 3 (learners.md: 35.11)


def lesson_3_grad(calls: int) -> list[list[float]]:
    x = torch.tensor([[-1.2095]], requires_grad=True)
    z = (2 * x) ** 3
    for _ in range(calls):
        z.backward(retain_graph=True)
    assert x.grad is not None
    return x.grad.tolist()


def test_pressing_backward_again_and_again_accumulates() -> None:
    session, _ = make()
    session.load(load_session(lesson("03-chain-rule-leaves-only")))
    assert grad(session.snapshot) == approx([[LESSON_3_X]], abs=0.01)
    for calls in (2, 3, 4):
        session.backward()
        snap = session.snapshot
        assert snap.error is None, f"press {calls - 1}"
        assert grad(snap) == lesson_3_grad(calls)
        assert snap.keeps_graph


def test_unticking_retain_graph_then_pressing_shows_torchs_error_at_the_right_place() -> None:
    session, _ = make()
    session.load(load_session(lesson("03-chain-rule-leaves-only")))
    session.backward()
    session.set_options(retain_graph=False)
    assert session.snapshot.error is None, "the last call may free the graph"
    assert not session.snapshot.keeps_graph
    session.backward()
    snap = session.snapshot
    error = snap.error
    assert error is not None and error.kind == "backward-twice"
    assert error.message.startswith("Trying to backward through the graph a second time")
    assert error.line == 3 and snap.code.splitlines()[2] == "z = y ** 3"
    assert "This is the Backward tab's call 3" in error.explanation
    assert "call 2 ran with retain_graph=False" in error.explanation
    assert grad(snap) == lesson_3_grad(2), "the first two calls still added up"


def test_calls_for_the_same_output_are_kept_and_counted() -> None:
    session, _ = make()
    session.load(load_session(lesson("05-gradients-accumulate")))
    code = "x = torch.randn(2, 2, requires_grad=True)\ny = 3 * x\nz = y ** 3\n"
    session.set_code(code)
    snap = session.snapshot
    assert snap.error is None and snap.steps is not None and len(snap.steps) == 2
    x = torch.tensor(X5, requires_grad=True)
    z = (3 * x) ** 3
    z.backward(torch.tensor(V1), retain_graph=True)
    z.backward(torch.tensor(V2))
    assert grad(snap) == x.grad.tolist()


@pytest.mark.parametrize(
    "code",
    [
        "x = torch.randn(2, 2, requires_grad=True)\nw = 2 * x\n",  # another output
        "x = torch.randn(2, 2, requires_grad=True)\nz = (2 * x).sum()\n",  # another shape
        "x = torch.randn(2, requires_grad=True)\nz = 2 * x\n",  # another shape, same name
    ],
)
def test_calls_that_do_not_fit_new_code_go_back_to_one_implicit_call(code: str) -> None:
    session, _ = make()
    session.load(load_session(lesson("05-gradients-accumulate")))
    session.zero_grad()
    session.set_code(code)
    snap = session.snapshot
    assert snap.steps == (BackwardStep(),) and not snap.zero_after
    assert not snap.can_clear
    assert snap.error is None or snap.error.kind == "non-scalar-backward", "torch's own error"
    if snap.error is not None:
        assert snap.error.line == 2 and snap.fixes == ("sum", "mean", "ones_like")


def test_broken_code_while_typing_keeps_the_calls() -> None:
    session, _ = make()
    session.load(load_session(lesson("05-gradients-accumulate")))
    steps = session.snapshot.steps
    for broken in (
        "x = torch.randn(2, 2, requires_grad=True)\ny = 2 * x\nz = y **\n",
        "x = torch.randn(2, 2, requires_grad=True)\ny = 2 * xx\nz = y ** 3\n",
    ):
        session.set_code(broken)
        assert session.snapshot.steps == steps
    session.set_code("x = torch.randn(2, 2, requires_grad=True)\ny = 2 * x\nz = y ** 3\n")
    assert session.snapshot.error is None
    assert grad(session.snapshot) == cube_grad(X5, V1, V2).tolist()


def test_code_that_calls_backward_itself_drops_hidden_calls_no_false_error() -> None:
    session, _ = make()
    session.load(load_session(lesson("03-chain-rule-leaves-only")))
    session.backward()
    session.backward()
    session.set_code(session.snapshot.code + "z.backward()\n")
    snap = session.snapshot
    assert snap.error is None and snap.steps is None
    assert grad(snap) == lesson_3_grad(1)
    assert not snap.can_clear


def test_an_output_the_code_no_longer_has_goes_back_to_automatic() -> None:
    session, _ = make("x = torch.tensor([1., 2.], requires_grad=True)\nh = x * 3\nloss = h.sum()\n")
    session.set_output("h")
    session.set_gradient([1.0, 0.0])
    session.set_code("x = torch.tensor([1., 2.], requires_grad=True)\nloss = (x * 3).sum()\n")
    snap = session.snapshot
    assert snap.output is None and snap.error is None and snap.steps == (BackwardStep(),)
    assert grad(snap) == [3.0, 3.0]


def test_clear_steps_with_the_codes_own_backward_leaves_only_the_codes() -> None:
    session, _ = make(
        "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x**2).sum()\n"
        "y.backward(retain_graph=True)\n"
    )
    session.backward()
    snap = session.snapshot
    assert snap.error is None and snap.steps == (BackwardStep(),) and snap.can_clear
    assert grad(snap) == [4.0, 8.0]
    session.clear_steps()
    snap = session.snapshot
    assert snap.steps is None and grad(snap) == [2.0, 4.0] and not snap.can_clear


@pytest.mark.parametrize(
    ("kind", "line", "plain"),
    [
        ("sum", "y.sum().backward()", lambda y: y.sum().backward()),
        ("mean", "y.mean().backward()", lambda y: y.mean().backward()),
        ("ones_like", "y.backward(torch.ones_like(y))", lambda y: y.backward(torch.ones_like(y))),
    ],
)
def test_the_fixes_rewrite_the_codes_own_backward(
    kind: str, line: str, plain: Callable[[torch.Tensor], None]
) -> None:
    code = "x = torch.tensor([1., 2., 3.], requires_grad=True)\ny = x * x\ny.backward()\n"
    session, _ = make(code)
    snap = session.snapshot
    assert snap.error is not None and snap.error.line == 3
    assert snap.fixes == ("sum", "mean", "ones_like")
    session.apply_fix(kind)  # type: ignore[arg-type]
    snap = session.snapshot
    assert snap.code == code.replace("y.backward()", line)
    assert snap.error is None and snap.fixes == ()
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    plain(x * x)
    assert grad(snap) == x.grad.tolist()


def test_export_writes_every_press(tmp_path: Path) -> None:
    session, _ = make()
    session.load(load_session(lesson("03-chain-rule-leaves-only")))
    session.backward()
    session.backward()
    session.zero_grad()
    session.export(tmp_path)
    script = (tmp_path / "script.py").read_text()
    assert script.count("z.backward(retain_graph=True)  # kept automatically") == 2
    assert script.count("z.backward()") == 1
    assert '"Zero grad" pressed after the calls' in script
