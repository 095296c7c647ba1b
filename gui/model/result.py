"""Plain data that leaves the engine: no torch objects, only numbers, strings and tuples.

Everything here is a frozen dataclass so a result can cross a process boundary (pickle),
be written to JSON (:func:`to_jsonable`), and be handed to widgets without anyone being
able to change it behind the engine's back.

Nested tensor values are stored as nested lists of Python numbers, exactly what
``tensor.tolist()`` returns; non-finite floats stay floats here and become strings only
when written to JSON (see :mod:`gui.model.export.result_json`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

NestedValues = Any  # float | int | bool | complex | list[NestedValues]

# Longest text one error or warning field keeps (message, explanation, fix), and one printed
# chunk. A one-megabyte assertion message froze the window for minutes: Qt lays a long
# unbroken line out in quadratic time (100,000 characters took 1.4 s in the explanation
# tab, 2,000 take a few ms). Cut in the middle, so the start (the kind of error) and the end
# (often the numbers) both stay.
MAX_TEXT_CHARS = 2000


def left_out(count: int, what: str) -> str:
    """The marker for ``count`` things not kept: ``"… 573 backward calls left out …"``."""
    return f"… {count:,} {what} left out …"


def bounded_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text`` if it has at most ``limit`` characters, else its start and end around a
    marker saying how many characters were left out (the result fits in ``limit``)."""
    if len(text) <= limit:
        return text
    # The marker's own length depends on the count; 40 characters always cover it.
    keep = max(limit - 40, 2)
    head = keep - keep // 2
    tail = keep // 2
    return f"{text[:head]}[{left_out(len(text) - head - tail, 'characters')}]{text[-tail:]}"


@dataclass(frozen=True)
class TensorSummary:
    """Statistics of a tensor too large to show element by element."""

    minimum: float
    maximum: float
    mean: float
    norm: float


@dataclass(frozen=True)
class TensorData:
    """A detached copy of one tensor's numbers.

    ``values`` is ``tensor.tolist()`` when the tensor has at most
    :data:`FULL_VALUES_LIMIT` elements, otherwise ``None`` and only ``summary`` is set.
    """

    shape: tuple[int, ...]
    dtype: str
    values: NestedValues | None
    summary: TensorSummary | None = None

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


FULL_VALUES_LIMIT = 4096
# Losses a result keeps, one per backward call (9 bytes each pickled: 20,000 take 180 KB).
MAX_STEP_VALUES = 20_000


@dataclass(frozen=True)
class Explanation:
    """An error or warning in plain words.

    ``message`` is the exact text torch (or Python) produced; ``explanation`` says why it
    happens in words a learner follows; ``fix`` is one concrete change to make.
    ``kind`` is a stable identifier (``"non-scalar-backward"``, ``"unsafe-code"``...) that
    tests and widgets can switch on.
    """

    kind: str
    message: str
    explanation: str
    fix: str
    line: int | None = None
    column: int | None = None
    severity: Literal["error", "warning"] = "error"
    exception: str | None = None  # exception or warning class name, e.g. "RuntimeError"

    def __post_init__(self) -> None:
        # Bounded here, where every explanation is made, so no path (a huge assertion
        # message, a megabyte-long source line quoted in the fix) can carry more to the
        # window than it can lay out quickly. Unpickling does not call this: no second cut.
        for name in ("message", "explanation", "fix"):
            text = getattr(self, name)
            if len(text) > MAX_TEXT_CHARS:
                object.__setattr__(self, name, bounded_text(text))


@dataclass(frozen=True)
class SavedStorage:
    """Where one saved tensor's numbers live: what keeping it keeps in memory.

    ``storage`` numbers the distinct storages of one graph (``0, 1, 2...``, local to the
    result: two saved tensors with the same number share their memory). ``storage_bytes``
    is the whole storage, which the saved tensor keeps alive; ``own_bytes`` the tensor's
    own elements (fewer for a view of a bigger tensor, ``x[0]``). ``by_value`` marks a
    Python number torch wrapped into a tensor (``x * 2``): torch keeps it by value, outside
    the saved-tensor machinery, so it is not counted.
    """

    storage: int
    storage_bytes: int
    own_bytes: int
    by_value: bool = False


@dataclass(frozen=True)
class SavedValue:
    """One thing a backward node saved during the forward pass (``_saved_<name>``).

    Tensors come with their numbers in ``tensor``; other attributes (an exponent, a dim,
    an alpha) in ``value``. ``refers_to`` names the user's variable when the saved tensor
    is that very tensor object. ``freed`` is true when torch had already released it.
    ``recomputed``: the node was made inside ``torch.utils.checkpoint``, so torch kept no
    tensor for it, and runs the checkpointed block again in backward to get it.
    """

    name: str
    tensor: TensorData | None = None
    value: Any = None
    refers_to: str | None = None
    freed: bool = False
    # Where the saved tensor's numbers live (one entry per tensor of a saved list).
    memory: tuple[SavedStorage, ...] = ()
    recomputed: bool = False


# "group" never comes from the engine: it is a collapsed module drawn as one box
# (:mod:`gui.model.drawing.collapse`).
NodeKind = Literal["function", "leaf", "constant", "saved", "output", "group"]


@dataclass(frozen=True)
class GraphNode:
    """One box in the autograd graph.

    ``key`` is structural (breadth-first position from the output plus the class name), so the
    same program gives the same keys whatever the input values. ``name`` is torch's class name
    for function and leaf nodes (``PowBackward0``, ``AccumulateGrad``) and the kind otherwise.
    ``label`` is what to print: the user's variable name where there is one.
    ``owner`` links a saved or constant node to the function node it belongs to.
    """

    key: str
    name: str
    label: str
    kind: NodeKind
    var: str | None = None
    value: TensorData | None = None
    saved: tuple[SavedValue, ...] = ()
    owner: str | None = None
    output_count: int = 1
    # A leaf's storage, numbered as its graph's saved tensors' (``SavedStorage.storage``):
    # a saved tensor with the same number is the leaf or a view of it.
    storage: int | None = None
    # A function node's place in the order the run made its graph's nodes (0: the first
    # op recorded): a slider tick names the nodes in view by it, so that the engine copies
    # the forward values of those only (see Detail.made). ``None``: not recorded.
    made: int | None = None


@dataclass(frozen=True)
class GraphEdge:
    """An edge in the forward direction: ``source`` feeds ``target``.

    For an edge between function/leaf nodes, ``input_index`` is the position in the target's
    ``next_functions``: the gradient flowing back along it is the target's ``leaving[input_index]``.
    """

    source: str
    target: str
    kind: Literal["data", "saved", "constant", "output"] = "data"
    input_index: int | None = None


@dataclass(frozen=True)
class Graph:
    """The autograd graph of one tensor, walked from its ``grad_fn``.

    ``structure_key`` changes exactly when nodes or edges change (not when values change),
    so a view relayouts only when it changes.

    ``partial``: the answer to a run with :class:`~gui.model.request.Detail`: ``nodes``
    holds only the nodes read (with their saved values and constant inputs), ``edges`` is
    empty, and the rest is the structure ``structure_key`` the window already has. Never
    shown as is: merged into the graph on screen first (:mod:`gui.model.detail_merge`).
    """

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    root: str | None
    structure_key: str
    truncated: bool = False
    partial: bool = False

    def node(self, key: str) -> GraphNode:
        for n in self.nodes:
            if n.key == key:
                return n
        raise KeyError(key)


@dataclass(frozen=True)
class NodeFlow:
    """Gradients seen at one function/leaf node during one backward call.

    ``arriving``: gradient w.r.t. the node's outputs (what its prehook sees).
    ``leaving``: gradient w.r.t. each of its inputs, in ``next_functions`` order (``None``
    where an input needs no gradient). For ``AccumulateGrad`` nodes ``leaving`` is empty and
    ``arriving[0]`` is what gets added to the leaf's ``.grad``.
    ``order`` is when the node ran in this backward pass (0 = first).
    """

    arriving: tuple[TensorData | None, ...]
    leaving: tuple[TensorData | None, ...]
    order: int


@dataclass(frozen=True)
class JacobianCheck:
    """The Jacobian of a step's tensor w.r.t. one leaf, and the check ``grad == J^T v``.

    ``matrix`` has shape ``(output numel, leaf numel)``; ``vjp`` is ``J^T v`` reshaped like the
    leaf; ``contribution`` is what this backward added to the leaf's ``.grad``.
    """

    leaf: str
    matrix: NestedValues
    vjp: NestedValues
    contribution: NestedValues | None
    matches: bool
    max_abs_difference: float | None


@dataclass(frozen=True)
class StepRecord:
    """One call of ``backward``: where it came from, what it was given, what it did.

    ``source`` is ``"code"`` when the user's program called it (``line`` says where) and
    ``"session"`` when it came from the session's backward list. ``gradient`` is the seed
    ``v`` as given (``None`` for the implicit 1 of a scalar output). ``zero_grad`` is true
    when the leaves' gradients were zeroed (or set to None) since the previous step.
    """

    index: int
    source: Literal["code", "session"]
    line: int | None
    tensor: str | None
    gradient: TensorData | None
    retain_graph: bool
    create_graph: bool
    zero_grad: bool
    grads_before: dict[str, TensorData | None]
    grads_after: dict[str, TensorData | None]
    flows: dict[str, NodeFlow] = field(default_factory=dict)
    graph: Graph | None = None
    jacobians: tuple[JacobianCheck, ...] = ()
    jacobian_note: str | None = None
    error: Explanation | None = None
    details_dropped: bool = False
    # ``"backward"`` (``t.backward()``, ``torch.autograd.backward``) or ``"grad"``
    # (``torch.autograd.grad``: returns the gradients instead of adding them to ``.grad``).
    call: Literal["backward", "grad"] = "backward"
    # The ``inputs`` named in the call (``backward(inputs=[w])``, ``grad(y, [w])``), by the
    # program's names; ``None`` when the call gives none (every leaf).
    inputs: tuple[str, ...] | None = None
    # What ``torch.autograd.grad`` returned, by input name (``None``: unused input).
    returned: dict[str, TensorData | None] = field(default_factory=dict)


@dataclass(frozen=True)
class TensorInfo:
    """A tensor the user's program bound to a name, as it was when the program finished."""

    name: str
    value: TensorData
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    grad: TensorData | None
    retains_grad: bool
    line: int | None
    grad_warning: Explanation | None = None


@dataclass(frozen=True)
class PrintedLine:
    """Text the program printed, with the line that printed it and the steps done before it.

    ``left_out`` is non-zero for the one entry that stands in for printed chunks the result
    does not keep (the first and the last are kept; see
    :mod:`gui.model.engine.capture`); its ``text`` says how many. ``during_step`` is the
    backward call (counted from 1) that was running when it was printed: by a hook, a
    custom Function's backward or a checkpointed block run again (``None``: none was).
    """

    line: int | None
    text: str
    after_step: int
    left_out: int = 0
    during_step: int | None = None


@dataclass(frozen=True)
class RunResult:
    """Everything one run of a program produced.

    ``tensors`` holds every named tensor in the order the program first bound them; ``leaves``
    names those that are leaves requiring grad. ``output`` names the tensor differentiated by
    the session's steps (``None`` if it has no name, e.g. ``(x**2).sum().backward()``);
    ``graph`` is its autograd graph, walked before any backward freed it.
    ``error`` is the first error that stopped the run (the program stops there, as Python would).

    Results are bounded (see :mod:`gui.model.engine.budget`): past a budget the first and
    the last entries are kept and the rest counted. ``steps_left_out`` backward calls were
    made between ``steps[steps_gap - 1]`` and ``steps[steps_gap]`` but are not recorded
    (each record keeps its true ``index``); ``printed`` holds one entry with ``left_out``
    where printed text was dropped, and ``warnings`` one ``"warnings-left-out"`` entry.
    """

    tensors: dict[str, TensorInfo]
    leaves: tuple[str, ...]
    output: str | None
    output_value: TensorData | None
    output_grad_fn: str | None
    graph: Graph | None
    steps: tuple[StepRecord, ...]
    printed: tuple[PrintedLine, ...]
    error: Explanation | None
    warnings: tuple[Explanation, ...]
    seed: int
    output_truncated: bool = False
    elapsed_seconds: float = 0.0
    steps_left_out: int = 0
    steps_gap: int = 0
    # How the output was chosen: ``"session"`` (the session's ``output`` field), ``"code"``
    # (the tensor the code last called backward on) or ``"last-grad-fn"`` (the last tensor
    # the code assigned that has a ``grad_fn``); ``None`` when there is no output.
    output_source: Literal["session", "code", "last-grad-fn"] | None = None
    # The value of each backward call's tensor, when it is a single number (a loss), for
    # every call the run made, kept or not: ``None`` for a call on a bigger tensor. The
    # first :data:`MAX_STEP_VALUES` calls; ``step_values_left_out`` counts the rest.
    step_values: tuple[float | None, ...] = ()
    step_values_left_out: int = 0
    # Why the app adds no backward call of its own (while the session asks for none)
    # though the code calls none: ``"forward-ad"``, the program used forward-mode AD
    # (``make_dual``) and never reverse mode; ``None`` otherwise.
    no_added_backward: Literal["forward-ad"] | None = None

    @property
    def step_count(self) -> int:
        """How many backward calls the run made (recorded or left out)."""
        return len(self.steps) + self.steps_left_out


@dataclass(frozen=True)
class SweepResult:
    """A program run at many values of one leaf element (the function view's curves).

    ``xs[k]`` is the element's value in sample ``k``; ``values[k]`` the output there (``v . y``
    for a non-scalar output), ``slopes[k]`` its derivative with respect to the element and
    ``curvatures[k]`` the second derivative (empty when not asked for or not possible:
    ``note`` says why). ``None`` marks a sample that failed (a gap in the curve); ``error``
    explains the first failure. ``done`` counts the samples run (fewer than ``xs`` when the
    time limit stopped the sweep: ``note`` says so).
    """

    leaf: str
    index: int
    xs: tuple[float, ...]
    values: tuple[float | None, ...]
    slopes: tuple[float | None, ...]
    curvatures: tuple[float | None, ...] = ()
    error: Explanation | None = None
    note: str | None = None
    done: int = 0
    elapsed_seconds: float = 0.0


# What the engine answers: a run, or a sweep of runs (:class:`gui.model.request.SweepRequest`).
EngineResult = RunResult | SweepResult


@dataclass(frozen=True)
class Answer:
    """The engine's answer to job ``run_id`` (:class:`gui.model.request.Job`)."""

    run_id: int
    result: RunResult | SweepResult


@dataclass(frozen=True)
class Fresh:
    """The engine's server to the window: the process that ran the last program is gone,
    so what follows on the pipe comes from the server and the next program's process
    (``nonce`` is the one the window chose for :class:`gui.model.request.NewProgram`)."""

    nonce: int


@dataclass(frozen=True)
class EngineReady:
    """The engine's process is up: how it keeps runs apart, and which walls it has.

    ``isolation`` is ``"fork"`` when each run gets a fresh copy of a pristine process (and
    the process enforces time limits itself), ``"reset"`` when runs share one process whose
    settings are put back after each. ``walls`` lists the sandbox layers in force (e.g.
    ``"landlock ABI 7"``, ``"seccomp"``), ``missing`` the ones this platform lacks.
    """

    isolation: Literal["fork", "reset"]
    walls: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()


def failed_result(error: Explanation, seed: int = 0, elapsed: float = 0.0) -> RunResult:
    """A result that holds only an error: what the app shows when nothing could run."""
    return RunResult(
        tensors={},
        leaves=(),
        output=None,
        output_value=None,
        output_grad_fn=None,
        graph=None,
        steps=(),
        printed=(),
        error=error,
        warnings=(),
        seed=seed,
        elapsed_seconds=elapsed,
    )


def failed_sweep(
    leaf: str, index: int, error: Explanation | None, note: str | None = None
) -> SweepResult:
    """A sweep that produced no sample: only why."""
    return SweepResult(leaf=leaf, index=index, xs=(), values=(), slopes=(), error=error, note=note)
