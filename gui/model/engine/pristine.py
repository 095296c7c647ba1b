"""Process-wide settings a program may change, and putting them back afterwards.

Each new program gets a fresh copy of a pristine process (:mod:`.fork_server`), but the
runs of one program (a slider drag) share the copy that ran it first, and without ``fork``
(Windows) every run shares one process: after each run these are put back. The list
covers every process-wide setting an allowed program can reach: grad mode, inference
mode, CPU autocast, the default dtype and device, anomaly mode, deterministic algorithms,
matmul precision, warn-always, thread counts, print options, numpy's error state and print
options, and autograd's saved-tensor hooks (the stack of default pack/unpack pairs, which
holds the program's functions, and the switch that disables it).
Writes to attributes of modules and classes are refused by the guard, so they need no undo.

The print options accept any object (``torch.set_printoptions(sci_mode=obj)`` checks
nothing), so a setting may hold one of the program's objects: settings are compared by
identity for anything but plain values, never with the program's ``__eq__``, which would
run the program's code here, after its answer and after the other settings were put back.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.autograd.forward_ad as forward_ad

# Guards entered by :func:`restore` to switch a mode off, kept so they are never left.
_KEPT_GUARDS: list[Any] = []
_AUTOGRAD: Any = torch._C._autograd
# Counts the calls of :func:`restore`: a `with` block the program entered in an earlier run
# (a generator suspended in it, closed later by the garbage collector) must not pop or
# switch what a later run set (see the saved-tensor hooks' stand-ins in `autograd_nodes`).
_GENERATION = [0]


def generation() -> int:
    """Which run (between two :func:`restore` calls) the process is in."""
    return _GENERATION[0]


def new_generation() -> None:
    """Start a new generation: `with` blocks entered before can no longer undo anything."""
    _GENERATION[0] += 1


# Values compared with `==` as they are: their `__eq__` is Python's own.
_PLAIN_TYPES = frozenset({bool, int, float, str, type(None)})


class _Same:
    """A value the program may have made, compared by identity only."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is _Same and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)


Options = tuple[tuple[object, object], ...]


def _plain_or_same(value: object) -> object:
    return value if type(value) in _PLAIN_TYPES else _Same(value)


def _comparable(options: Mapping[str, Any]) -> Options:
    """``options`` as pairs whose comparison calls no code of the program's."""
    return tuple((_plain_or_same(key), _plain_or_same(value)) for key, value in options.items())


def _values(options: Options) -> dict[Any, Any]:
    return {
        key.value if type(key) is _Same else key: value.value if type(value) is _Same else value
        for key, value in options
    }


@dataclass(frozen=True)
class Settings:
    """The process-wide settings at one moment."""

    grad_enabled: bool
    inference_mode: bool
    autocast_enabled: bool
    autocast_dtype: torch.dtype
    autocast_cache: bool
    default_dtype: torch.dtype
    anomaly: tuple[bool, bool]
    deterministic: tuple[bool, bool]
    deterministic_debug_mode: int
    matmul_precision: str
    warn_always: bool
    threads: tuple[int, int]
    print_options: Options
    numpy_errors: Options
    numpy_print: Options
    saved_tensors_hooks: bool  # a pack/unpack pair is on autograd's default stack
    saved_tensors_hooks_disabled: str | None  # the message while they are disabled
    dual_level: int  # forward-mode AD's level (-1: none entered)


def capture() -> Settings:
    """The settings now (call once, before the first program runs)."""
    return Settings(
        grad_enabled=torch.is_grad_enabled(),
        inference_mode=torch.is_inference_mode_enabled(),
        autocast_enabled=torch.is_autocast_enabled("cpu"),
        autocast_dtype=torch.get_autocast_dtype("cpu"),
        autocast_cache=torch.is_autocast_cache_enabled(),
        default_dtype=torch.get_default_dtype(),
        anomaly=(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
        deterministic=(
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        ),
        deterministic_debug_mode=torch.get_deterministic_debug_mode(),
        matmul_precision=torch.get_float32_matmul_precision(),
        warn_always=torch.is_warn_always_enabled(),
        threads=(torch.get_num_threads(), torch.get_num_interop_threads()),
        print_options=_comparable(vars(torch._tensor_str.PRINT_OPTS)),
        numpy_errors=_comparable(np.geterr()),
        numpy_print=_comparable(np.get_printoptions()),
        saved_tensors_hooks=_AUTOGRAD._top_saved_tensors_default_hooks(True) is not None,
        saved_tensors_hooks_disabled=_disabled_message(),
        dual_level=forward_ad._current_level,
    )


def _disabled_message() -> str | None:
    message = _AUTOGRAD._saved_tensors_hooks_get_disabled_error_message()
    return message if type(message) is str else None


def restore(settings: Settings) -> None:
    """Put every setting back as :func:`capture` saw it.

    Each setter is called only when its setting changed: some import large parts of torch
    on their first call (``use_deterministic_algorithms`` loads over 800 modules), which a
    slider tick must not pay for.
    """
    new_generation()
    # Saved-tensor hooks left on the stack (a generator suspended in a `with
    # saved_tensors_hooks(...)` block and kept alive, by the stack itself if need be): the
    # program's pack function would run in the next run's forward. The stack holds only
    # the program's pairs (the engine pushes none): empty it.
    while _AUTOGRAD._top_saved_tensors_default_hooks(True) is not None:
        _AUTOGRAD._pop_saved_tensors_default_hooks()
    if _disabled_message() != settings.saved_tensors_hooks_disabled:
        if settings.saved_tensors_hooks_disabled is None:
            _AUTOGRAD._saved_tensors_hooks_enable()
        else:
            _AUTOGRAD._saved_tensors_hooks_disable(settings.saved_tensors_hooks_disabled)
    # A dual level left open (a generator suspended in a `with dual_level():` block and
    # kept alive): the next run's dual tensors would live at it, and entering one would fail.
    while forward_ad._current_level > settings.dual_level:
        forward_ad.exit_dual_level()
    now = capture()
    if now.inference_mode and not settings.inference_mode:
        # A `with torch.inference_mode():` still open (a generator suspended in it and kept
        # alive): nothing would record a graph. torch has no setter, only the guard the
        # `with` enters; enter one that switches it off and keep it for good (leaving it
        # would switch inference mode back on). First: it sets grad mode too.
        switched_off = torch._C._InferenceMode(False)
        switched_off.__enter__()
        _KEPT_GUARDS.append(switched_off)
        now = capture()
    if now.grad_enabled != settings.grad_enabled:
        torch.set_grad_enabled(settings.grad_enabled)
    while torch.autocast_decrement_nesting() > 0:  # an autocast block left open
        pass
    if now.autocast_enabled != settings.autocast_enabled:
        torch.set_autocast_enabled("cpu", settings.autocast_enabled)
    if now.autocast_dtype != settings.autocast_dtype:
        torch.set_autocast_dtype("cpu", settings.autocast_dtype)
    if now.autocast_cache != settings.autocast_cache:
        torch.set_autocast_cache_enabled(settings.autocast_cache)
    torch.clear_autocast_cache()
    if now.default_dtype != settings.default_dtype:
        torch.set_default_dtype(settings.default_dtype)
    if torch.get_default_device() != torch.device("cpu"):
        torch.set_default_device(None)
    if now.anomaly != settings.anomaly:
        torch.autograd.set_detect_anomaly(*settings.anomaly)
    if now.deterministic != settings.deterministic:
        enabled, warn_only = settings.deterministic
        torch.use_deterministic_algorithms(enabled, warn_only=warn_only)
    if now.deterministic_debug_mode != settings.deterministic_debug_mode:
        torch.set_deterministic_debug_mode(settings.deterministic_debug_mode)
    if now.matmul_precision != settings.matmul_precision:
        torch.set_float32_matmul_precision(settings.matmul_precision)
    if now.warn_always != settings.warn_always:
        torch.set_warn_always(settings.warn_always)
    if now.threads[0] != settings.threads[0]:
        torch.set_num_threads(settings.threads[0])
    if now.print_options != settings.print_options:
        vars(torch._tensor_str.PRINT_OPTS).update(_values(settings.print_options))
    if now.numpy_errors != settings.numpy_errors:
        np.seterr(**_values(settings.numpy_errors))
    if now.numpy_print != settings.numpy_print:
        np.set_printoptions(**_values(settings.numpy_print))


def put_back(baseline: Settings) -> bool:
    """As between two jobs (fork_server): nothing of a run or a sample is left for the next
    one made in this process; ``False`` if the program's code still changed a setting after
    they were put back.

    The garbage goes first: a suspended generator's ``finally`` collected with it is the
    program's code, and it may change a setting (``torch.set_grad_enabled(False)``) that
    putting the settings back must then undo. A later collection (a finaliser made by a
    finaliser) may change one again: then the next run must not be made here.
    """
    gc.collect()
    restore(baseline)
    gc.collect()
    if capture() == baseline:
        return True
    restore(baseline)
    return False
