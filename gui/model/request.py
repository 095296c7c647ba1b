"""What the engine is asked to do: a program (code, leaf values, output, backward steps).

These are inputs (the session file and the window build them); :mod:`gui.model.result`
holds the outputs. Both are plain frozen data so they cross the process boundary as is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gui.model.result import NestedValues

DEFAULT_SEED = 0
DEFAULT_TIME_LIMIT_SECONDS = 1.5


@dataclass(frozen=True)
class BackwardStep:
    """One ``output.backward(gradient, retain_graph=..., create_graph=...)`` call.

    ``gradient`` is ``None`` for the implicit ``1`` of a scalar output, else a number or a
    nested list that is turned into a tensor of the output's dtype *without* reshaping, so
    a wrong shape meets torch's own error. ``zero_grad`` zeroes every leaf's ``.grad``
    before the call (otherwise gradients accumulate, as in torch).

    ``retain_graph`` is ``None`` for "automatic": the graph is kept when another call
    follows and freed after the last (:func:`retains_graph`), so pressing Backward again
    accumulates instead of failing. ``True`` or ``False`` is the user's explicit choice and
    is passed to torch as is: an explicit ``False`` before another call meets torch's
    "backward through the graph a second time" error, which a teacher can still show.
    """

    gradient: NestedValues | None = None
    retain_graph: bool | None = None
    zero_grad: bool = False
    create_graph: bool = False


def retains_graph(steps: Sequence[BackwardStep], index: int) -> bool | None:
    """The ``retain_graph`` argument the call ``steps[index]`` passes to torch.

    An explicit choice as it is; automatic keeps the graph when another of ``steps``
    follows and leaves the last call to torch's default (``None``: freed, unless
    ``create_graph``), as a script that calls ``backward`` once more would be written.
    """
    chosen = steps[index].retain_graph
    if chosen is not None:
        return chosen
    return True if index < len(steps) - 1 else None


@dataclass(frozen=True)
class Program:
    """What one run computes: the code and everything a session sets around it.

    ``values`` overrides leaf values by variable name (the override wins over the code);
    ``output`` names the tensor the ``steps`` differentiate (``None``: the tensor the code
    last called backward on, else the last tensor it assigned that has a ``grad_fn``).
    ``steps`` run after the program's own code, in order; ``None`` means "one implicit step
    unless the code already calls backward itself". ``retain_grad`` names intermediate
    tensors whose ``.grad`` should be kept (``tensor.retain_grad()`` right after assignment).

    The one schema of a program: a session file holds one (:mod:`gui.model.session.document`),
    the window edits one (:mod:`gui.model.session.state`) and the engine runs one.
    """

    code: str
    values: dict[str, NestedValues] = field(default_factory=dict)
    output: str | None = None
    steps: tuple[BackwardStep, ...] | None = None
    seed: int = DEFAULT_SEED
    retain_grad: tuple[str, ...] = ()


@dataclass(frozen=True)
class Detail:
    """A run that reads only part of a big graph the window already shows.

    While a slider is dragged on a graph of thousands of nodes, the window asks for the
    numbers it can show: of the ``nodes`` in view (their values, saved tensors and the
    gradients flowing through them), with every leaf's gradient, every named tensor and
    the output as always. The engine reads them only if the graph it walks has
    ``structure_key``, the structure on screen; otherwise (the code took another branch,
    a shape changed) it reads everything, as a run without detail does.
    """

    structure_key: str
    nodes: tuple[str, ...]
    # The places in the order the run makes its nodes (``GraphNode.made``) of the function
    # nodes in view: the engine copies the forward values of those only. The same code
    # makes its nodes in the same order on every tick; a node made elsewhere this time is
    # left unread, as one changed in place is. Empty: keep every value, as before.
    made: tuple[int, ...] = ()


@dataclass(frozen=True)
class RunRequest:
    """Everything needed to run a program once, deterministically: what crosses to the child.

    ``time_limit`` is how long the code may run before it is stopped; ``zero_grad_after``
    zeroes every leaf's ``.grad`` after the steps (the window's "Zero grad" button, pressed
    after the last backward call); ``detail`` reads only part of a big graph (see
    :class:`Detail`).
    """

    program: Program
    time_limit: float = DEFAULT_TIME_LIMIT_SECONDS
    zero_grad_after: bool = False
    # ``None``: read the whole graph (see :class:`Detail`).
    detail: Detail | None = None


@dataclass(frozen=True)
class SweepRequest:
    """Run ``program`` once per value in ``samples`` of element ``index`` (flat, row-major)
    of leaf ``leaf``, each run the ordinary way, and keep the output and its derivative
    with respect to that element (the function view's curves; :mod:`.engine.sweep`).

    ``second_derivative`` also differentiates the derivative again (``create_graph``).
    ``time_limit`` bounds the whole sweep, not each sample.
    """

    program: Program
    leaf: str
    index: int
    samples: tuple[float, ...]
    second_derivative: bool = False
    time_limit: float = DEFAULT_TIME_LIMIT_SECONDS


@dataclass(frozen=True)
class Job:
    """One request on its way to the engine's process, numbered so that a late answer to
    an earlier job is never taken for this one's."""

    run_id: int
    request: RunRequest | SweepRequest


@dataclass(frozen=True)
class NewProgram:
    """A job whose code is not the last program's, sent to the engine's server on the
    control pipe: never where the process that ran the last program reads its jobs.

    That process may have run a program that got past the Python wall; it must not read
    (and answer, with made-up numbers) the next program. The server stops it first, then
    writes :class:`~gui.model.result.Fresh` with ``nonce`` on the window's pipe (nobody
    else knows it: everything before it is dropped) and hands the job to a fresh process.
    """

    job: Job
    nonce: int


@dataclass(frozen=True)
class StopJob:
    """Ask the engine's process to kill job ``run_id``: it ran past its time limit."""

    run_id: int
