"""Stand-ins for library functions that trust their caller more than a sandbox may.

The GPU queries (the app computes on the CPU), ``@once_differentiable``,
``pad_packed_sequence``, ``kl_divergence``, a class's method called with another ``self``
(:func:`instances_only`), ``DataLoader``'s worker processes and the fused optimizer
kernels (:func:`refuse_fused_optimizers`): each is torch's own, behind the checks that
keep what it does to the program's own objects.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

import torch
import torch.autograd.function
import torch.distributions
import torch.nn.utils.rnn
import torch.utils.data.dataloader

from gui.model.engine.refusal import CodeRefusedAtRuntime
from gui.model.engine.reviewed_names import DISTRIBUTIONS_REVIEWED

CPU_ONLY_NOTE = (
    "torch.cuda.is_available() answers False here: Autograd Explorer computes on the CPU "
    "only (the same numbers, no GPU needed)."
)


def _gpu_is_available() -> bool:
    """``torch.cuda.is_available()`` here: the app computes on the CPU, and says so once."""
    warnings.warn(CPU_ONLY_NOTE, UserWarning, stacklevel=2)
    return False


def _gpu_device_count() -> int:
    warnings.warn(CPU_ONLY_NOTE, UserWarning, stacklevel=2)
    return 0


def instances_only(cls: type, method: Callable[..., Any]) -> Callable[..., Any]:
    """``SomeClass.method`` read from the class: its ``self`` must be a ``SomeClass``
    (``nn.Module.__init__(self)`` in a program's layer), never a module or another
    object the method would write into with plain ``setattr``
    (``StepLR.__init__(torch.nn.functional, opt, 7)``)."""

    def unbound(*args: Any, **kwargs: Any) -> Any:
        if not args or not isinstance(args[0], cls):
            raise CodeRefusedAtRuntime(
                f"`{cls.__qualname__}.{method.__name__}(...)` is not available on this "
                f"object: its first argument must be a {cls.__qualname__}."
            )
        return method(*args, **kwargs)

    return unbound


def _once_differentiable(fn: Any) -> Any:
    """``@once_differentiable`` for programs: torch's own, around ``fn`` whose outputs must
    be tensors (or ``None``). torch's wrapper runs ``fn`` (which the program held already)
    under ``no_grad``, then ties the outputs to a node that refuses a second backward; to
    do so it calls ``out.detach()`` and sets ``.requires_grad = True`` on what that
    returns, with plain ``setattr``: on a program's object, whose ``detach`` can return a
    module or one of torch's classes, that wrote an attribute onto it for later runs.
    Nothing registered, nothing kept; the wrapper is not on the list (a program calls it
    through its Function, never reads it)."""

    def tensors_only(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        outputs = fn(ctx, *args, **kwargs)
        for output in outputs if isinstance(outputs, tuple) else (outputs,):
            if output is not None and not isinstance(output, torch.Tensor):
                raise CodeRefusedAtRuntime(
                    "`@once_differentiable` is not available on this function: what it "
                    "returns must be tensors (or None), as a backward returns."
                )
        return outputs

    return torch.autograd.function.once_differentiable(tensors_only)


def _pad_packed_sequence(
    sequence: Any,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> Any:
    """``torch.nn.utils.rnn.pad_packed_sequence`` for programs: torch's, on a checked copy
    of ``sequence``. Its C++ trusts ``batch_sizes`` to be what packing makes (positive
    counts that never grow), and a packed sequence's tensors can be changed in place
    after packing (``packed.batch_sizes[1] = 0``): with such a one it wrote past the end
    of its own buffer and the process crashed (``[2, 0, 1]``). The recurrent layers check
    what they read; this is the one reader that does not."""
    rnn: Any = torch.nn.utils.rnn
    if type(sequence) is not rnn.PackedSequence:
        raise CodeRefusedAtRuntime(
            "`pad_packed_sequence(...)` is not available on this object: give it the "
            "PackedSequence that pack_padded_sequence, pack_sequence or a recurrent layer made."
        )
    data, batch_sizes, sorted_indices, unsorted_indices = tuple.__iter__(sequence)
    sizes = batch_sizes.clone() if isinstance(batch_sizes, torch.Tensor) else None
    if (
        not isinstance(data, torch.Tensor)
        or sizes is None
        or sizes.dtype != torch.int64
        or sizes.dim() != 1
        or sizes.numel() == 0
        or bool((sizes <= 0).any())
        or bool((sizes[1:] > sizes[:-1]).any())
        or data.dim() == 0
        or int(sizes.sum()) != data.size(0)
        or not (total_length is None or type(total_length) is int)
    ):
        raise CodeRefusedAtRuntime(
            "`pad_packed_sequence(...)` is not available on this packed sequence: its "
            "batch_sizes no longer describe its data (they were changed after packing; "
            "pack the sequences again with pack_padded_sequence), or total_length is not "
            "a whole number."
        )
    checked = rnn.PackedSequence(data, sizes, sorted_indices, unsorted_indices)
    return rnn.pad_packed_sequence(checked, batch_first, padding_value, total_length)


def _kl_divergence(p: Any, q: Any) -> Any:
    """``torch.distributions.kl_divergence`` for programs: between the listed distributions
    only. torch memoises each pair of classes it is asked about in a dict it keeps for the
    whole process (``kl._KL_MEMOIZE``): a class of the program's passed in (or hidden in an
    ``Independent``) would stay there, alive with its functions' globals, for later runs.
    The program's code can still run during the call (a Categorical's ``probs`` may be its
    object) and make an ``Independent`` hold something else before torch looks inside:
    so afterwards every pair that is not of listed classes leaves the memo again."""
    if not (_listed_distribution(p) and _listed_distribution(q)):
        raise CodeRefusedAtRuntime(
            "`kl_divergence(p, q)` is not available on these objects: p and q must be "
            "distributions made with torch.distributions (Normal, Categorical, Bernoulli, "
            "Independent, Uniform, MultivariateNormal, Beta, Dirichlet)."
        )
    try:
        return torch.distributions.kl_divergence(p, q)
    finally:
        memo: dict[tuple[type, type], Any] = torch.distributions.kl._KL_MEMOIZE
        listed = set(_distribution_classes())
        for pair in [pair for pair in memo if not set(pair) <= listed]:
            memo.pop(pair, None)


def _distribution_classes() -> list[type]:
    return [getattr(torch.distributions, name) for name in DISTRIBUTIONS_REVIEWED]


def _listed_distribution(value: object, depth: int = 0) -> bool:
    """An instance of a class of DISTRIBUTIONS_REVIEWED, all the way down, an
    ``Independent``'s count a plain ``int`` (no code of the program runs when torch
    compares two, before it looks inside)."""
    if not any(type(value) is cls for cls in _distribution_classes()) or depth > 20:
        return False
    if type(value) is torch.distributions.Independent:
        # Instance attributes (the class cannot be subclassed or written to here).
        own = vars(value)
        if type(own.get("reinterpreted_batch_ndims")) is not int:
            return False
        return _listed_distribution(own.get("base_dist"), depth + 1)
    return True


def _refuse_worker_processes() -> None:
    """``DataLoader(num_workers=2)`` would start processes: say so in one sentence."""
    iterator: Any = torch.utils.data.dataloader._MultiProcessingDataLoaderIter
    if getattr(iterator, "_ae_refused", False):
        return

    def refuse(self: Any, loader: object) -> None:
        self._shutdown = True  # nothing started: nothing for __del__ to stop

        raise CodeRefusedAtRuntime(
            "`DataLoader(num_workers=...)` is not available: worker processes cannot start "
            "here; leave num_workers out (0), which loads the same batches in this process."
        )

    iterator.__init__ = refuse
    iterator._ae_refused = True


FUSED_REFUSED = (
    "`fused=True` is not available here: the fused optimizer step trusts the sizes of the "
    "optimizer's state (`opt.state[p]`), which a program can change, and wrote past them; "
    "leave `fused` out: the ordinary step computes the same numbers."
)
# Where torch's optimizers find their fused kernels (looked up when a step runs; the
# modules are not attributes of `torch.optim`, which deletes their names).
_FUSED_STEPS = (
    ("torch.optim.adam", "_fused_adam"),  # Adam and AdamW
    ("torch.optim.sgd", "_fused_sgd"),
    ("torch.optim.adagrad", "_fused_adagrad"),
)


def _fused_step_refused(*args: Any, **kwargs: Any) -> None:
    raise CodeRefusedAtRuntime(FUSED_REFUSED)


def refuse_fused_optimizers() -> None:
    """Make every fused optimizer step (``Adam(..., fused=True)``, or ``group['fused'] =
    True`` written into a param group, even from a step's closure) a refusal.

    torch's fused CPU kernels walk each parameter's numbers through the state tensors
    (``exp_avg``, ``momentum_buffer``, ``sum``...) and the gradient by raw pointer, with
    no check of their sizes: ``opt.state[p]['exp_avg'] = torch.ones(1)`` made the next
    step write a million numbers past a one-number buffer (red team, round 10). The
    ordinary step checks every size. Called once, before programs can reach optimizers.
    """
    for module, name in _FUSED_STEPS:
        setattr(importlib.import_module(module), name, _fused_step_refused)


LSTM_REFUSED = (
    "this LSTM's weights do not fit it: {what}. torch's LSTM kernel on the CPU reads its "
    "weights by raw pointer, trusting their shapes; keep each weight the shape the layer "
    "made (`nn.init` and in-place changes keep it)."
)


class _CheckedRecurrentKernels:
    """``torch.nn.modules.rnn``'s ``_VF`` (torch's native kernels): the same, but for
    ``lstm``, whose weights are checked against the input and hidden state first.

    On the CPU ``nn.LSTM`` runs oneDNN's kernel, which reads every weight by raw pointer
    with the sizes it derives from the input and the hidden state, and checks none of
    them: ``lstm.weight_hh_l0.data = torch.ones(1)`` (or ``del`` and a new parameter, or
    ``torch.func.functional_call`` with other tensors) read and wrote past the weight's
    memory (heap corruption, red team round 10). GRU and RNN layers check their shapes.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(torch._VF, name)

    def lstm(self, *args: Any) -> Any:
        if isinstance(args[1], torch.Tensor):  # a packed sequence: input, batch_sizes, hx...
            data, batch_sizes, hx, weights, biases, layers, _, _, both = args
            batch = int(batch_sizes[0]) if batch_sizes.numel() else 0
        else:  # input, hx, weights, has_biases, layers, dropout, train, both, batch_first
            data, hx, weights, biases, layers, _, _, both, batch_first = args
            batch = data.size(0 if batch_first else 1)
        _check_lstm_weights(data, hx, weights, bool(biases), int(layers), bool(both), batch)
        return torch._VF.lstm(*args)


def _check_lstm_weights(
    data: torch.Tensor,
    hx: Any,
    weights: Any,
    biases: bool,
    layers: int,
    both: bool,
    batch: int,
) -> None:
    """Refuse weights or a hidden state whose shapes are not those the kernel derives
    (from the input's last size and the hidden state's), or weights that are not one
    dense block of the input's dtype and device."""
    directions = 2 if both else 1
    h0, c0 = hx
    hidden, projected = c0.size(-1), h0.size(-1)
    if tuple(c0.shape) != (layers * directions, batch, hidden) or tuple(h0.shape) != (
        layers * directions,
        batch,
        projected,
    ):
        raise CodeRefusedAtRuntime(LSTM_REFUSED.format(what="the hidden state's shape"))
    expected: list[tuple[int, ...]] = []
    for layer in range(layers):
        inputs = data.size(-1) if layer == 0 else projected * directions
        one: list[tuple[int, ...]] = [(4 * hidden, inputs), (4 * hidden, projected)]
        one += [(4 * hidden,), (4 * hidden,)] if biases else []
        one += [(projected, hidden)] if projected != hidden else []
        expected += one * directions
    if len(weights) != len(expected):
        raise CodeRefusedAtRuntime(LSTM_REFUSED.format(what="a weight too many or too few"))
    for weight, shape in zip(weights, expected, strict=True):
        if (
            type(weight) not in (torch.Tensor, torch.nn.Parameter)
            or tuple(weight.shape) != shape
            or not weight.is_contiguous()
            or weight.dtype != data.dtype
            or weight.device != data.device
            or weight.layout is not torch.strided
        ):
            raise CodeRefusedAtRuntime(
                LSTM_REFUSED.format(what=f"a weight is {tuple(weight.shape)}, not {shape}")
            )


VECTOR_TO_PARAMETERS_REFUSED = (
    "`vector_to_parameters(...)` is not available with tensors of whole numbers or booleans: "
    "it points each tensor at the vector's memory (`param.data = ...`) under a version "
    "counter of its own, and a backward trusts the indices it saved; use it on fractions."
)


def checked_vector_to_parameters(vec: Any, parameters: Any) -> None:
    """``torch.nn.utils.vector_to_parameters`` on tensors of fractions only.

    torch's sets each parameter's ``.data`` to a slice of ``vec``: the parameter then
    shares the vector's memory under a version counter of its own, the door the guard shuts
    on ``.data`` of whole numbers. ``vector_to_parameters(indices.flatten(), [t])`` with max
    pooling's saved indices, then ``t.fill_(10**7)``, changed them unseen and the backward
    wrote past its buffer (red team, round 11). Fractions index nothing."""
    tensors = list(parameters)  # read once: a generator (`model.parameters()`) too
    for tensor in (vec, *tensors):
        if isinstance(tensor, torch.Tensor) and not (
            tensor.is_floating_point() or tensor.is_complex()
        ):
            raise CodeRefusedAtRuntime(VECTOR_TO_PARAMETERS_REFUSED)
    torch.nn.utils.vector_to_parameters(vec, tensors)


_CHECKED_KERNELS = _CheckedRecurrentKernels()


def checked_lstm(*args: Any, **kwargs: Any) -> Any:
    """``torch.lstm`` for programs: the kernel behind ``nn.LSTM``, called by hand, with the
    same checks (red team, round 11: ``torch.lstm(x, (h, c), [torch.ones(1)] * 4, ...)``
    read past the one-number weights and its backward crashed the process)."""
    if kwargs:
        raise CodeRefusedAtRuntime(
            "`torch.lstm(...)` takes its arguments by position only here; or use nn.LSTM."
        )
    return _CHECKED_KERNELS.lstm(*args)


def check_lstm_kernels() -> None:
    """Put :class:`_CheckedRecurrentKernels` where ``nn.LSTM`` finds torch's kernels."""
    rnn = importlib.import_module("torch.nn.modules.rnn")
    if not isinstance(getattr(rnn, "_VF", None), _CheckedRecurrentKernels):
        setattr(rnn, "_VF", _CheckedRecurrentKernels())  # noqa: B010  (mypy: not in stubs)
