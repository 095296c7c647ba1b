"""Static safety checks run on a user's program before any of it executes.

The checker is an allowlist: only the Python constructs a learner's autograd program needs
are accepted, and only attribute names that cannot reach files, the operating system or
Python's internals. It runs in the GUI process, so it must stay pure Python (no torch,
numpy or Qt). :mod:`gui.model.engine.guard` is the runtime half: every attribute read is routed
through it by :func:`prepare_for_execution`, because static checks alone cannot know what
an innocent-looking name such as ``torch.platform`` turns out to be.
"""

from __future__ import annotations

import ast
import copy
import string
import sys
import unicodedata
import warnings

from gui.model.visible_text import EDITOR_LINE_BREAKS, INDENT_RESETS, REORDERING_CONTROLS

MAX_SOURCE_CHARS = 20_000
MAX_SOURCE_LINES = 500
# Deeper trees overflow the recursion of ast/compile/deepcopy (in this process and the
# child); no hand-written learner program comes close.
MAX_NESTING = 100
GETATTR_NAME = "__ae_getattr__"
SETTER_NAME = "__ae_setter__"
CONTEXT_NAME = "__ae_context__"

ALLOWED_GLOBAL_NAMES: frozenset[str] = frozenset({"torch", "tensor", "F", "math", "Variable"})
# The one dunder name a program may read as a plain name: ``if __name__ == "__main__":``.
MAIN_NAME = "__name__"
# The one dunder attribute a program may read, never set or delete: a class's or a
# function's name, as tutorials print it (``type(layer).__name__``, ``fn.__name__``); a
# string, and the guard checks whatever the read returns like any other value.
READABLE_DUNDER_ATTRIBUTE = "__name__"
# `m.__class__.__name__` (hook-registration loops, a class's `__repr__`): read only, and
# the guard answers it as its `type(m)`, which hands out only the classes it lists.
READABLE_CLASS_ATTRIBUTE = "__class__"
# `print(torch.__version__)`, the first line of many notebooks: read only, of a module the
# program holds; the guard answers it as a plain string copy (see guard.guarded_getattr).
READABLE_VERSION_ATTRIBUTE = "__version__"
# Builtins the guard hands out as they are (``type``, ``getattr``, ``hasattr`` and
# ``setattr`` are handed out as guarded stand-ins, see :mod:`gui.model.engine.guard`).
SAFE_BUILTIN_NAMES: frozenset[str] = frozenset({
    "abs", "all", "any", "bool", "complex", "dict", "divmod", "enumerate", "filter", "float",
    "format", "int", "isinstance", "iter", "len", "list", "map", "max", "min", "next", "pow",
    "print", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum",
    "tuple", "zip", "frozenset", "chr", "ord", "bin", "hex", "oct", "ascii", "callable",
    "id", "hash", "issubclass", "object", "super", "staticmethod", "classmethod", "property",
    "NotImplemented", "Ellipsis", "Exception", "ArithmeticError", "AssertionError",
    "AttributeError", "IndexError", "KeyError", "LookupError", "NameError",
    "NotImplementedError", "OverflowError", "RuntimeError", "StopIteration", "TypeError",
    "ValueError", "ZeroDivisionError", "Warning", "UserWarning", "DeprecationWarning",
    "RuntimeWarning",
})  # fmt: skip
GUARDED_BUILTIN_NAMES: frozenset[str] = frozenset({"type", "getattr", "hasattr", "setattr"})
ALLOWED_IMPORTS: frozenset[str] = frozenset({
    "torch", "torch.nn", "torch.nn.functional", "torch.autograd", "torch.autograd.functional",
    "torch.autograd.function", "torch.nn.init", "torch.nn.utils.rnn", "torch.optim",
    "torch.nn.utils.parametrize", "torch.nn.utils.parametrizations",
    # `from torch.nn.utils import clip_grad_norm_` (the module is one a program may hold
    # already; each imported name's value is checked by the guard's import, one by one).
    "torch.nn.utils",
    "torch.optim.lr_scheduler", "torch.utils", "torch.utils.data", "torch.utils.checkpoint",
    "torch.func",
    "torch.distributions", "torch.autograd.graph", "torch.autograd.forward_ad", "math",
    "numpy", "random", "time",
    "functools", "collections", "typing", "copy", "__future__",
    # Iterators over the program's own values (reviewed_names.ITERTOOLS_REVIEWED).
    "itertools",
    # nanoGPT's `ctx = nullcontext() if ...`: `nullcontext` alone
    # (reviewed_names.CONTEXTLIB_REVIEWED); the rest of the module is refused by value.
    "contextlib",
})  # fmt: skip
IMPORT_HELP = (
    "the modules a program can import here are torch (with torch.nn, torch.optim, "
    "torch.autograd, torch.utils.data, torch.utils.checkpoint, torch.func, "
    "torch.distributions), math, numpy, "
    "random, time, functools, itertools, collections, typing, copy and contextlib's "
    "nullcontext; what it uses from "
    "them is "
    "checked one by one (tensor math, never files, the network, other processes or native "
    "code)."
)
# Modules refused with a reason of their own: the import check and the guard (a module
# reached as an attribute) say it instead of the general list. One sentence each (no ". "
# inside). `torch.utils.checkpoint`, once here, is admitted through a stand-in that keeps
# the graph walk from running the block again.
REFUSED_MODULE_REASONS: dict[str, str] = {
    # nanoGPT's `@dataclass class GPTConfig`: the decorator writes the class's `__init__` as
    # new source text and runs it with `exec`, code the checks never read.
    "dataclasses": (
        "the `@dataclass` decorator writes the class's `__init__` as new code that the "
        "checks here never read; write a plain class whose `__init__` sets each field "
        "instead, like `def __init__(self, n_embd=12, n_head=4): self.n_embd = n_embd`."
    ),
    # The fast.ai book's `torch.random.manual_seed(42)`: the module also holds `fork_rng`
    # and the process's generator (`default_generator`), so it stays refused (a side door in
    # tests/model/engine/test_allowlist.py); its seeding function is torch's own.
    "torch.random": (
        "the module also holds the app's own random generator; write `torch.manual_seed(n)`, "
        "the same function as `torch.random.manual_seed(n)`."
    ),
}
# Methods a class the program defines may give itself under a two-underscore name: what
# tutorials write (``__init__``, ``__call__``, operators, ``__len__``/``__getitem__`` of a
# dataset). Not ``__getattribute__``, ``__del__``, ``__init_subclass__``, ``__set_name__``,
# ``__class_getitem__``, ``__reduce__``...: those run at moments the program does not
# choose (collection, pickling, class creation) or change how the guard sees objects.
# Not ``__index__``/``__int__``/``__float__`` either: torch's C++ reads a list of sizes or
# numbers (``torch.zeros(sizes)``) with the list's length taken once and calls them for
# each item it cannot read itself, and one that shortened the list had torch read past it
# (freed objects, read as objects: the process crashed).
SAFE_DUNDER_METHODS: frozenset[str] = frozenset({
    "__init__", "__call__", "__repr__", "__str__", "__len__", "__getitem__", "__setitem__",
    "__iter__", "__next__", "__contains__", "__bool__", "__add__", "__radd__", "__iadd__",
    "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__", "__imul__", "__truediv__",
    "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__",
    "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__pos__", "__abs__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__enter__",
    "__exit__", "__format__",
})  # fmt: skip
# What `with` may enter: torch's switches, checked again by identity when the program runs.
GRAD_MODE_CONTEXTS = frozenset(
    {"no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "detect_anomaly"}
    # `with torch.autograd.set_detect_anomaly(True):`, the debugging tutorials' form: anomaly
    # mode is put back after every run too.
    | {"set_detect_anomaly"}
    # Forward-mode AD's level (``torch.autograd.forward_ad``): put back after every run.
    | {"dual_level"}
)
# ``torch.autograd.graph``'s saved-tensor hooks ("Hooks for autograd saved tensors"): the
# program's pack/unpack functions for what its own forward saves. The engine hands out
# checked stand-ins (:mod:`gui.model.engine.autograd_nodes`), whose stack is put back after
# every run (:mod:`gui.model.engine.pristine`); ``register_hooks`` is a saved tensor's
# (``y.grad_fn._raw_saved_self``), also through a checked stand-in.
SAVED_TENSOR_CONTEXTS = frozenset(
    {"saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"}
)
SAVED_TENSOR_HOOK_NAMES = frozenset(
    {"saved_tensors_hooks", "disable_saved_tensors_hooks", "register_hooks"}
)
# nanoGPT's `ctx = nullcontext() if device_type == 'cpu' else autocast(...)`: a context that
# does nothing (the guard admits `contextlib.nullcontext` by identity).
OTHER_CONTEXTS = frozenset({"nullcontext"})
WITH_CONTEXTS = GRAD_MODE_CONTEXTS | SAVED_TENSOR_CONTEXTS | OTHER_CONTEXTS
WRITABLE_ATTRIBUTES: frozenset[str] = frozenset({"grad", "data", "requires_grad"})
FORMAT_METHODS: frozenset[str] = frozenset({"format", "format_map"})

_NO_FILES = "programs here cannot read or write files."
_DENIED_BUILTIN_GROUPS: tuple[tuple[str, str], ...] = (
    ("open", _NO_FILES),
    ("eval exec compile", "programs here cannot run code built from text; write it out."),
    ("input", "programs here run without a keyboard; put the value in the code instead."),
    ("delattr", "write the attribute out instead, like `del x.grad`."),
    (
        "globals locals vars dir",
        "programs here cannot inspect their own variables; print what you need instead.",
    ),
    ("breakpoint help", "the program runs in the background, with no debugger or help."),
    ("exit quit", "the program ends by itself when its last line has run."),
    ("memoryview bytearray", "programs here cannot work with raw memory; use tensors."),
)
_DENIED_BUILTIN_REASONS: dict[str, str] = {
    name: reason for names, reason in _DENIED_BUILTIN_GROUPS for name in names.split()
}
DENIED_BUILTIN_NAMES: frozenset[str] = frozenset(_DENIED_BUILTIN_REASONS)

_DENIED_ATTRIBUTE_GROUPS: tuple[tuple[str, str], ...] = (
    (
        "load save from_file fromfile tofile loadtxt savetxt genfromtxt fromregex memmap "
        "open_memmap savez savez_compressed dump dumps loads DataSource write read unlink "
        "open numpy_file get_file_path share_memory share_memory_",
        _NO_FILES,
    ),
    (
        "os sys subprocess builtins importlib shutil pathlib io socket pickle inspect ctypes "
        "ctypeslib system popen lib f2py distutils core classes library ops cpp_extension "
        "multiprocessing distributed prepare_multiprocessing_environment",
        "it reaches the operating system, the interpreter or native code.",
    ),
    (
        # Not `cond`: the name is also `torch.linalg.cond` and `np.linalg.cond` (tensor
        # math); `torch.cond` (control flow) stays refused by identity, being on no list.
        "hub jit compile compiler package onnx fx export profiler "
        "testing test while_loop scan associative_scan set_default_tensor_type",
        "that part of torch/numpy compiles, downloads, profiles or tests code, which the "
        "app does not support.",
    ),
    (
        "register_backward_hook register_module_forward_hook "
        "register_module_forward_pre_hook register_module_full_backward_hook "
        "register_module_backward_hook",
        "it runs your code inside torch's own machinery for every model at once, which the "
        "app needs to watch; use `t.register_hook(fn)` or `module.register_forward_hook(fn)` "
        "on your own tensor or layer instead.",
    ),
    (
        "set_rng_state",
        "the app sets the random state itself (the session's seed setting); use "
        "torch.manual_seed(n) instead.",
    ),
    (
        "set_default_device set_num_threads "
        "set_num_interop_threads use_deterministic_algorithms set_deterministic_debug_mode "
        "set_anomaly_enabled set_float32_matmul_precision set_warn_always set_flush_denormal",
        "it changes a setting for the whole app, which the app controls.",
    ),
    (
        "storage untyped_storage mro gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await "
        "ag_frame ag_code ag_await f_back f_builtins f_code f_globals f_locals tb_frame "
        "tb_next func_globals func_code",
        "it reaches tensor storage or Python's internals (frames, code, class hierarchy).",
    ),
)
_DENIED_ATTRIBUTE_REASONS: dict[str, str] = {
    name: reason for names, reason in _DENIED_ATTRIBUTE_GROUPS for name in names.split()
}
# Attribute names refused on any object: they read/write files, reach the OS or native
# code, run user code inside torch, change process-wide settings, or expose internals.
DENIED_ATTRIBUTES: frozenset[str] = frozenset(_DENIED_ATTRIBUTE_REASONS)


# Hooks a program may put on its own tensors and layers: they run the program's own code
# (guarded like the rest of it) when torch reaches that tensor or layer.
ALLOWED_HOOK_NAMES: frozenset[str] = frozenset({
    "register_hook", "register_post_accumulate_grad_hook", "register_forward_hook",
    "register_forward_pre_hook", "register_full_backward_hook",
    "register_full_backward_pre_hook", "register_prehook", "register_multi_grad_hook",
})  # fmt: skip
_PRIVATE_REASON = "names that start with an underscore are Python or torch internals."


def is_private_name(name: str) -> bool:
    """``_x``: one leading underscore, not a two-underscore name."""
    return name.startswith("_") and not name.startswith("__") and name != "_"


def attribute_refusal_reason(name: str, *, own_object: bool = False) -> str | None:
    """Say why reading attribute ``name`` is refused, or return ``None`` when it is allowed.

    Parameters
    ----------
    name : str
        The attribute name, as written after the dot.
    own_object : bool
        The object is one of the program's own (an instance of a class it defined that
        inherits from nothing but its own classes): its ``_private`` names are its own.

    Returns
    -------
    str or None
        A plain-language reason, shared by the static checker and the runtime guard.
    """
    if name.startswith("_") and not (own_object and is_private_name(name)):
        return _PRIVATE_REASON
    reason = _DENIED_ATTRIBUTE_REASONS.get(name)
    if reason is not None:
        return reason
    if "Storage" in name:
        return "it reaches tensor storage, which programs here cannot use."
    if refused_only_as_hook_name(name):
        return _DENIED_ATTRIBUTE_REASONS["register_backward_hook"]
    return None


def refused_only_as_hook_name(name: str) -> bool:
    """``name`` is refused only because it holds "hook": the catch-all that keeps torch's
    hook machinery (``torch.utils.hooks``, a handle's ``hooks_dict_ref``, names torch may
    add) out of reach. A name the program gives its own method or attribute
    (``def activations_hook``, ``self.hooks = []``) is the program's to use: the static
    check lets it through when the program defines it, and the guard when the object's
    class is the program's and no library class in between holds the name."""
    return (
        "hook" in name
        and not name.startswith("_")
        and name not in _DENIED_ATTRIBUTE_REASONS
        and "Storage" not in name
        and name not in ALLOWED_HOOK_NAMES | SAVED_TENSOR_HOOK_NAMES
    )


def _names_the_program_defines(tree: ast.Module) -> frozenset[str]:
    """Attribute names the program gives its own classes and objects: methods and
    assignments in a class body, and every ``obj.name = ...`` target (where the guard
    decides whether that object is the program's)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    names.add(item.name)
                targets = (
                    item.targets
                    if isinstance(item, ast.Assign)
                    else [item.target]
                    if isinstance(item, ast.AnnAssign)
                    else []
                )
                names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
    return frozenset(names)


def format_string_is_safe(template: str) -> bool:
    """Tell whether ``template.format(...)`` can only insert values, never look inside them.

    Parameters
    ----------
    template : str
        The string whose ``format``/``format_map`` method would be called.

    Returns
    -------
    bool
        ``False`` when any replacement field (also inside a format spec) uses ``.`` or
        ``[``, which would read attributes or items of the arguments, or the string is
        malformed.
    """
    pending = [template]
    while pending:
        try:
            parsed = list(string.Formatter().parse(pending.pop()))
        except ValueError:
            return False
        for _, field, spec, _ in parsed:
            if field is not None and ("." in field or "[" in field):
                return False
            if spec:
                pending.append(spec)
    return True


class CodeRefused(Exception):
    """Raised when code is refused before it runs.

    Parameters
    ----------
    message : str
        One or two plain sentences naming the construct and saying why.
    line, column : int or None
        1-based position of the construct in the source.
    construct : str
        Short source-like text such as ``"open"`` or ``"import os"``.
    kind : str
        ``"unsafe-code"`` for safety refusals, ``"syntax-error"`` for invalid Python.
    """

    def __init__(
        self, message: str, line: int | None, column: int | None, construct: str, kind: str
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.construct = construct
        self.kind = kind

    def __str__(self) -> str:
        return self.message


def _syntax_refusal(error: SyntaxError) -> CodeRefused:
    line, column = error.lineno, error.offset
    text = (error.text or "").strip() or "program"
    text = text if len(text) <= 60 else text[:57] + "..."
    where = f"Line {line}" if line else "The program"
    message = f"{where} is not valid Python ({error.msg}): `{text}`."
    return CodeRefused(message, line, max(column or 1, 1), text, "syntax-error")


# What makes the editor show code otherwise than Python reads it, and why, in the order
# they are looked for (see visible_text).
_MISREAD = (
    (
        REORDERING_CONTROLS,
        "a control that makes the editor show the code in another order than Python reads it",
    ),
    (EDITOR_LINE_BREAKS, "which the editor shows as a line break where Python reads none"),
    (
        INDENT_RESETS,
        "a form feed, which ends the indentation before it for Python and shows as nothing",
    ),
)


def _refuse_reordering_controls(source: str) -> None:
    """Refuse Unicode's reordering controls in the code: the editor shows the code around
    one in another order than Python reads it ("Trojan Source", CVE-2021-42574): a session
    file's `# \u202e } \u2066if admin:\u2069` reads as a comment and runs as code. No program
    needs them raw (Arabic or Hebrew text orders itself); in a string, `"\u202e"` is kept.
    So are the line breaks only the editor sees (``EDITOR_LINE_BREAKS``) and a form feed
    after a line's indentation (``INDENT_RESETS``)."""
    hit = next(((m, what) for p, what in _MISREAD if (m := p.search(source))), None)
    if hit is None:
        return
    found, what = hit
    at = found.end() - 1  # (a form feed: after the indentation it ends)
    line = source.count("\n", 0, at) + 1
    column = at - (source.rfind("\n", 0, at) + 1) + 1
    escape = source[at].encode("unicode_escape").decode()
    message = (
        f"Line {line} holds an invisible `{escape}`, {what}; delete it (in a string, "
        f"write it as `\\{escape[1:]}`)."
    )
    raise CodeRefused(message, line, column, escape, "unsafe-code")


def check_source(source: str) -> ast.Module:
    """Parse and validate a user program, refusing anything that is not plainly safe.

    Parameters
    ----------
    source : str
        The program text.

    Returns
    -------
    ast.Module
        The parsed tree, for :func:`prepare_for_execution`.

    Raises
    ------
    CodeRefused
        ``kind="syntax-error"`` when Python cannot compile the text; ``kind="unsafe-code"``
        for the first offending construct in source order, or a program over the size cap.
    """
    lines = source.count("\n") - source.endswith("\n") + 1
    if len(source) > MAX_SOURCE_CHARS or lines > MAX_SOURCE_LINES:
        too_long = len(source) > MAX_SOURCE_CHARS
        line = source.count("\n", 0, MAX_SOURCE_CHARS) + 1 if too_long else MAX_SOURCE_LINES + 1
        limit = f"{MAX_SOURCE_CHARS:,} characters" if too_long else f"{MAX_SOURCE_LINES} lines"
        message = (
            f"The `program size` is over the limit of {limit}: keep programs here short, "
            "or split the idea into smaller programs."
        )
        raise CodeRefused(message, line, 1, "program size", "unsafe-code")
    source = source.removeprefix("\ufeff")  # editors on Windows may save a byte-order mark
    _refuse_reordering_controls(source)
    try:
        # compile() also finds errors ast.parse accepts (`return` outside a function...);
        # its SyntaxWarnings (`x is 1`, "\\d") are the program's business, not a refusal.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<program>", "exec", dont_inherit=True)
            tree = ast.parse(source, "<program>")
    except SyntaxError as error:
        raise _syntax_refusal(error) from None
    except (UnicodeError, ValueError):  # lone surrogates, null characters
        message = "The program contains `invalid characters` that are not text; retype them."
        raise CodeRefused(message, None, None, "invalid characters", "syntax-error") from None
    except (RecursionError, MemoryError):
        tree = None
    if tree is None or _too_deep(tree):
        message = (
            f"The program's `nesting depth` is over the limit of {MAX_NESTING} levels: "
            "split long expressions over several lines."
        )
        raise CodeRefused(message, 1, 1, "nesting depth", "unsafe-code")
    _refuse_right_to_left_names(tree)
    problems = _Validator(tree).run()
    if problems:
        raise min(problems, key=lambda p: (p.line or sys.maxsize, p.column or 0))
    return tree


# Where a tree holds the names the program writes (not its strings: ``value``).
_NAME_FIELDS = frozenset({"id", "attr", "arg", "name", "asname", "module", "names"})
_RIGHT_TO_LEFT = frozenset({"R", "AL", "AN"})


def _refuse_right_to_left_names(tree: ast.Module) -> None:
    """Refuse a name written in a right-to-left script (Hebrew, Arabic...): Python takes
    its letters in an identifier, and the editor shows the code around it in another
    order than Python reads it, with no control character at all: ``y = א - 2`` shows as
    ``y = 2 - א`` and ``y = א - ב`` as ``y = ב - א`` (red team, round 18). Strings and
    comments in such scripts are kept (a learner's own language)."""
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            if field not in _NAME_FIELDS:
                continue
            for name in value if isinstance(value, list) else [value]:
                if isinstance(name, str) and any(
                    unicodedata.bidirectional(c) in _RIGHT_TO_LEFT for c in name
                ):
                    line = getattr(node, "lineno", None)
                    column = getattr(node, "col_offset", -1) + 1
                    shown = name.encode("unicode_escape").decode()
                    message = (
                        f"The name `{shown}` is written right to left: the editor shows the "
                        "code around it in another order than Python reads it "
                        "(`y = a - 2` could show as `y = 2 - a`); use a name written left to "
                        "right."
                    )
                    raise CodeRefused(message, line, max(column, 1), shown, "unsafe-code")


def _too_deep(tree: ast.AST) -> bool:
    pending: list[tuple[ast.AST, int]] = [(tree, 0)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_NESTING:
            return True
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Pass,
    ast.Break, ast.Continue, ast.If, ast.For, ast.While, ast.FunctionDef, ast.Return,
    ast.Lambda, ast.With, ast.withitem, ast.Import, ast.ImportFrom, ast.alias, ast.Assert,
    ast.NamedExpr, ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
    ast.Call, ast.keyword, ast.Attribute, ast.Subscript, ast.Slice, ast.Starred, ast.List,
    ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.comprehension, ast.IfExp, ast.JoinedStr, ast.FormattedValue, ast.arguments, ast.arg,
    ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.ClassDef, ast.Try,
    ast.ExceptHandler, ast.Raise, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom,
)  # fmt: skip
_UNSUPPORTED: dict[type[ast.AST], tuple[str, str]] = {
    ast.AsyncFunctionDef: ("async function", "use a plain `def` instead."),
    ast.Await: ("await expression", "asynchronous code cannot run here."),
    ast.AsyncFor: ("async for loop", "use a plain `for` loop instead."),
    ast.AsyncWith: ("async with statement", "asynchronous code cannot run here."),
    ast.Match: ("match statement", "use if/elif/else instead."),
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED[ast.TryStar] = ("try/except* statement", "use a plain try/except instead.")


def _short(node: ast.AST, limit: int = 40) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _bound_names(tree: ast.AST) -> set[str]:
    """Names the program binds itself; loading those is not a builtin lookup."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
    return bound


def _grad_mode_context(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id in WITH_CONTEXTS
    if not isinstance(target, ast.Attribute) or target.attr not in WITH_CONTEXTS:
        return False
    chain = target.value
    while isinstance(chain, ast.Attribute):
        chain = chain.value
    return isinstance(chain, ast.Name)


class _Validator:
    """Walks the whole tree (iteratively) and collects every refusal with its position."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.bound = _bound_names(tree)
        self.format_calls: set[int] = set()  # ids of `"...".format` already judged
        # Methods written directly in a class body: they may have a dunder name (`__init__`).
        self.methods = {
            id(item)
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            for item in node.body
            if isinstance(item, ast.FunctionDef)
        }
        # Names the program imports or gets from the app: `torch._C` is refused before it
        # runs; `v._prev` on the program's own objects is judged at run time.
        self.library_names = set(ALLOWED_GLOBAL_NAMES)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                self.library_names.update(
                    (alias.asname or alias.name).split(".")[0] for alias in node.names
                )
        self.own_names = _names_the_program_defines(tree)
        self.problems: list[CodeRefused] = []

    def run(self) -> list[CodeRefused]:
        pending: list[ast.AST] = [self.tree]
        while pending:
            node = pending.pop()
            if self.check(node):
                pending.extend(reversed(list(ast.iter_child_nodes(node))))
        return self.problems

    def refuse(self, node: ast.AST, construct: str, reason: str, message: str = "") -> None:
        line, column = getattr(node, "lineno", None), getattr(node, "col_offset", None)
        if isinstance(node, ast.Attribute) and node.end_lineno and node.end_col_offset:
            # Point at the refused name itself, not at the start of `a.b.c.name`.
            line, column = node.end_lineno, node.end_col_offset - len(node.attr)
        column = None if column is None else column + 1
        message = message or f"`{construct}` is not available: {reason}"
        self.problems.append(CodeRefused(message, line, column, construct, "unsafe-code"))

    def check_name(self, node: ast.AST, name: str) -> None:
        if name.startswith("__"):
            reason = "names that start with two underscores reach Python's internals."
            self.refuse(node, name, reason)

    def check(self, node: ast.AST) -> bool:
        """Record what is wrong with ``node`` itself; say whether to look at its children."""
        if not isinstance(node, _ALLOWED_NODES):
            what, why = _UNSUPPORTED.get(type(node), (type(node).__name__, "it cannot run here."))
            self.refuse(node, what, why, f"A {what} is not supported here: {why}")
            return False  # its parts (`case` clauses...) need no second refusal
        if isinstance(node, ast.Name):
            loaded = isinstance(node.ctx, ast.Load)
            if not (loaded and node.id == MAIN_NAME):
                self.check_name(node, node.id)
            if loaded and node.id in DENIED_BUILTIN_NAMES and node.id not in self.bound:
                self.refuse(node, node.id, _DENIED_BUILTIN_REASONS[node.id])
        elif isinstance(node, ast.FunctionDef):
            if not (id(node) in self.methods and node.name in SAFE_DUNDER_METHODS):
                self.check_name(node, node.name)
        elif isinstance(node, ast.ClassDef):
            self.check_name(node, node.name)
            if node.keywords:
                why = (
                    "a class here is made the ordinary way: list its base classes, without "
                    "`metaclass=` or other keywords."
                )
                self.refuse(node, f"class {node.name}(... {node.keywords[0].arg}=...)", why)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                self.check_name(node, name)
        elif isinstance(node, ast.arg | ast.keyword) and node.arg is not None:
            self.check_name(node, node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name is not None:
            # `except E as name` binds a name that is a plain string in the tree, and Python
            # deletes it when the clause ends: `as __builtins__` would drop the program's
            # builtins, and the engine's next `exec` would put the real ones back in.
            self.check_name(node, node.name)
        elif isinstance(node, ast.comprehension) and node.is_async:
            self.refuse(node.target, "async for", "asynchronous code cannot run here.")
        elif isinstance(node, ast.Attribute):
            self.check_attribute(node)
        elif isinstance(node, ast.Call):
            self.check_format_call(node)
        elif isinstance(node, ast.With):
            for item in node.items:
                # `with ctx:` of a name the program binds: the guard checks the object it
                # holds by identity when the block is entered (see `visit_With`), as it
                # does for every name here.
                expr = item.context_expr
                held = isinstance(expr, ast.Name) and expr.id in self.bound
                if not (held or _grad_mode_context(expr)):
                    why = (
                        "`with` can only be used with torch.no_grad(), torch.enable_grad(), "
                        "torch.set_grad_enabled(...), torch.inference_mode(), "
                        "torch.autograd.detect_anomaly() or set_detect_anomaly(...), forward "
                        "AD's dual_level() or "
                        "torch.autograd.graph's saved_tensors_hooks(...), save_on_cpu() "
                        "and disable_saved_tensors_hooks(...), contextlib's nullcontext(), "
                        "or a name holding one of them."
                    )
                    self.refuse(node, f"with {_short(item.context_expr)}", why)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self.check_import(node)
        return True

    def check_attribute(self, node: ast.Attribute) -> None:
        construct = f"{_short(node.value, 30)}.{node.attr}"
        if node.attr in FORMAT_METHODS:
            return  # the guard reads the template of the string it is called on
        # `del obj.name` is judged as `obj.name = v` is: here by its name, at run time by
        # the object (see guard.guarded_delattr).
        if node.attr == "__init__" and not isinstance(node.ctx, ast.Del):
            return  # `super().__init__()`: the guard checks what it finds
        if node.attr == READABLE_DUNDER_ATTRIBUTE and isinstance(node.ctx, ast.Load):
            return  # `type(x).__name__`: read only (see READABLE_DUNDER_ATTRIBUTE)
        if node.attr == READABLE_CLASS_ATTRIBUTE and isinstance(node.ctx, ast.Load):
            return  # `x.__class__`: read only, answered as `type(x)` by the guard
        if node.attr == READABLE_VERSION_ATTRIBUTE and isinstance(node.ctx, ast.Load):
            return  # `torch.__version__`: read only, a module's version string
        elif node.attr in self.own_names and refused_only_as_hook_name(node.attr):
            return  # the program's own `activations_hook`: the guard checks the object
        elif (reason := attribute_refusal_reason(node.attr, own_object=True)) is not None:
            self.refuse(node, construct, reason)
        elif is_private_name(node.attr) and self._on_library(node.value):
            self.refuse(node, construct, _PRIVATE_REASON)

    def _on_library(self, node: ast.expr) -> bool:
        while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id in self.library_names

    def check_format_call(self, node: ast.Call) -> None:
        func, receiver = node.func, getattr(node.func, "value", None)
        if not isinstance(func, ast.Attribute) or func.attr not in FORMAT_METHODS:
            return
        if isinstance(receiver, ast.Constant) and isinstance(receiver.value, str):
            self.format_calls.add(id(func))
            if not format_string_is_safe(receiver.value):
                why = (
                    "replacement fields with `.` or `[` look inside objects; "
                    'use an f-string such as f"{x.grad}" instead.'
                )
                self.refuse(func, f"{_short(receiver, 30)}.{func.attr}", why)

    def check_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in ALLOWED_IMPORTS or alias.name == "__future__":
                    why = REFUSED_MODULE_REASONS.get(alias.name, IMPORT_HELP)
                    self.refuse(node, f"import {alias.name}", why)
                self.check_name(node, alias.asname or "")
            return
        module = "." * node.level + (node.module or "")
        text = f"from {module} import {', '.join(alias.name for alias in node.names)}"
        if node.level or module not in ALLOWED_IMPORTS:
            self.refuse(node, text, REFUSED_MODULE_REASONS.get(module, IMPORT_HELP))
            return
        for alias in node.names:
            self.check_name(node, alias.asname or alias.name)
            if module == "__future__":
                continue
            if alias.name == "*":
                why = f"import the names you need one by one, or use `import {module}`."
                self.refuse(node, text, why)
            elif (reason := attribute_refusal_reason(alias.name)) is not None:
                self.refuse(node, text, reason)


class _AttributeRouter(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        name = ast.copy_location(ast.Constant(node.attr), node)
        if not isinstance(node.ctx, ast.Load):
            # `obj.name = v` (also `+=`, `del`, unpacking) becomes
            # `__ae_setter__(obj)['name'] = v`: a store target Python accepts anywhere.
            func = ast.copy_location(ast.Name(SETTER_NAME, ast.Load()), node)
            setter = ast.copy_location(ast.Call(func, [node.value], []), node)
            return ast.copy_location(ast.Subscript(setter, name, node.ctx), node)
        func = ast.copy_location(ast.Name(GETATTR_NAME, ast.Load()), node)
        return ast.copy_location(ast.Call(func, [node.value, name], []), node)

    def visit_With(self, node: ast.With) -> ast.AST:
        # `with EXPR:` becomes `with __ae_context__(EXPR):`: the check above sees a name
        # (`no_grad`), which the program may have bound to anything (`torch.device('meta')`
        # pushes a mode that outlives a block kept open); the guard checks the object.
        self.generic_visit(node)
        for item in node.items:
            expr = item.context_expr
            func = ast.copy_location(ast.Name(CONTEXT_NAME, ast.Load()), expr)
            item.context_expr = ast.copy_location(ast.Call(func, [expr], []), expr)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        self.generic_visit(node)
        if node.type is None:
            # A bare `except:` catches what `except Exception:` does: never the engine's
            # refusals, the time limit or the output limit.
            node.type = ast.copy_location(ast.Name("Exception", ast.Load()), node)
        return node


def prepare_for_execution(tree: ast.Module) -> ast.Module:
    """Return a copy of a checked tree where every attribute read goes through the guard.

    Parameters
    ----------
    tree : ast.Module
        A tree returned by :func:`check_source`; it is not modified.

    Returns
    -------
    ast.Module
        A new tree in which each ``obj.name`` load is ``__ae_getattr__(obj, 'name')`` at the
        same source position (so tracebacks point at the user's lines), each store or
        delete ``__ae_setter__(obj)['name']`` (the guard decides), each ``with`` context
        ``__ae_context__(expr)``, and a bare ``except:`` is ``except Exception:``.
        ``"...".format`` becomes a guarded read too, and the guard re-checks the string.
    """
    new_tree = _AttributeRouter().visit(copy.deepcopy(tree))
    assert isinstance(new_tree, ast.Module)
    return new_tree
