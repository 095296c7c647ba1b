"""A ``torch.distributions`` object given a parameter it cannot hold, in the learner's
names: a standard deviation with negative numbers (often a log-variance passed as the
scale, ``Normal(mu, logvar)``), probabilities outside [0, 1] or rows that do not sum to 1,
NaN from a network gone wrong, and a ``MultivariateNormal`` given a vector where a matrix
goes. The argument is named as the failing line writes it. No torch, no Qt.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from gui.model.explain.rule_types import Advice, Found
from gui.model.explain.source import TORCH_SIZE, made_before, named_calls, parse_shape, segment

# `Expected parameter scale (Tensor of shape (5, 2)) of distribution Normal(...) to satisfy
# the constraint GreaterThan(lower_bound=0.0), but found invalid values: ...`
INVALID_PARAMETER = (
    r"Expected parameter (?P<param>\w{1,40}) \(Tensor of shape \((?P<shape>[\d, ]{0,80})\)\) "
    r"of distribution (?P<dist>\w{1,40})\("
)
_CONSTRAINT = re.compile(r"to satisfy the constraint (?P<constraint>[^\n]{1,120}?), but found")
# `MultivariateNormal(mu, sigma)` with a vector: torch checks the matrix's dimensions first.
MATRIX_EXPECTED = (
    r"^(?P<param>covariance_matrix|scale_tril matrix|precision_matrix) must be at least "
    r"two-dimensional"
)

# `dist.log_prob(value)` with a value that does not fit the distribution's batch.
VALUE_NOT_BROADCASTABLE = (
    r"^Value is not broadcastable with batch_shape\+event_shape: "
    + TORCH_SIZE.format("value")
    + " vs "
    + TORCH_SIZE.format("want")
)
_SCORERS = frozenset({"log_prob", "cdf", "icdf"})

# Each distribution's parameters in the order its constructor takes them positionally.
_PARAMETERS: dict[str, tuple[str, ...]] = {
    "Normal": ("loc", "scale"),
    "LogNormal": ("loc", "scale"),
    "Laplace": ("loc", "scale"),
    "Cauchy": ("loc", "scale"),
    "HalfNormal": ("scale",),
    "StudentT": ("df", "loc", "scale"),
    "Bernoulli": ("probs", "logits"),
    "Categorical": ("probs", "logits"),
    "OneHotCategorical": ("probs", "logits"),
    "Binomial": ("total_count", "probs", "logits"),
    "Uniform": ("low", "high"),
    "Beta": ("concentration1", "concentration0"),
    "Dirichlet": ("concentration",),
    "Gamma": ("concentration", "rate"),
    "Exponential": ("rate",),
    "Poisson": ("rate",),
    "MultivariateNormal": ("loc", "covariance_matrix", "precision_matrix", "scale_tril"),
}


@dataclass(frozen=True)
class _Argument:
    call: str  # the distribution's call as written: `Normal(mu, logvar)`
    value: str  # the argument given for the parameter: `logvar`


def _argument(source: str | None, dist: str, param: str) -> _Argument | None:
    """The argument the line's ``dist(...)`` call gives for ``param`` (by keyword, else by
    its position in the constructor), as written."""
    for node, _, text in named_calls(source, (dist,)):
        given: ast.expr | None = next((k.value for k in node.keywords if k.arg == param), None)
        order = _PARAMETERS.get(dist, ())
        if given is None and param in order and order.index(param) < len(node.args):
            given = node.args[order.index(param)]
        if given is None or isinstance(given, ast.Starred):
            return None
        written = ast.get_source_segment(text, given) or ast.unparse(given)
        call = ast.get_source_segment(text, node) or ast.unparse(node)
        return _Argument(" ".join(call.split()), " ".join(written.split()))
    return None


_SPREADS = {
    "scale": "a standard deviation",
    "rate": "a rate",
    "concentration": "a concentration",
    "concentration0": "a concentration",
    "concentration1": "a concentration",
    "df": "a number of degrees of freedom",
}


def _positive_fix(value: str, param: str) -> str:
    lowered = value.lower()
    if "log" in lowered and "var" in lowered:
        return (
            f"`{value}` reads as a log-variance, which may be any number: the standard "
            f"deviation is `torch.exp(0.5 * {value})`; pass that as `{param}`."
        )
    if "log" in lowered:
        return f"`{value}` reads as a logarithm: pass `{value}.exp()` as `{param}`."
    return (
        f"Make `{value}` positive where it is computed: a layer's raw output through "
        f"`F.softplus(...) + 1e-5` or `.exp()` (of a log-scale)."
    )


def invalid_parameter(f: Found) -> Advice:
    """``Expected parameter scale (...) of distribution Normal(...) to satisfy the constraint
    GreaterThan(lower_bound=0.0), but found invalid values``."""
    param, dist = f.group("param"), f.group("dist")
    found = _CONSTRAINT.search(f.message)
    constraint = found.group("constraint") if found else "its constraint"
    arg = _argument(f.context.source_line, dist, param)
    given = f"`{arg.value}`" if arg is not None else f"the `{param}` given"
    where = f"`{arg.call}` on {f.where}" if arg is not None else f"`{dist}` on {f.where}"
    value = arg.value if arg is not None else param
    head = (
        f"{where} checks its arguments: its `{param}` is {given}, which must satisfy {constraint}"
    )
    if constraint.startswith("Real()"):
        return Advice(
            f"{head} (ordinary numbers), but some of its numbers are NaN (not a number): "
            "the computation that made it went wrong earlier, often a loss that grew to "
            "infinity with too large a learning rate, a `log` of 0, or a division by 0.",
            f"Print `{value}` and the loss step by step to find where NaN first appears "
            "(`torch.isnan(t).any()`); lower the learning rate or keep logarithms away "
            "from 0 (`torch.log(x.clamp(min=1e-8))`).",
        )
    if constraint.startswith("GreaterThan(lower_bound=0.0)") or constraint.startswith("Positive"):
        return Advice(
            f"{head}: every number above 0, but some of its numbers are 0 or negative. "
            f"The `{param}` of `{dist}` is {_SPREADS.get(param, 'a spread')}, never negative.",
            _positive_fix(value, param),
        )
    if constraint.startswith("Interval(lower_bound=0.0, upper_bound=1.0)"):
        return Advice(
            f"{head}: probabilities, every number between 0 and 1, but some are outside "
            "(raw scores straight from a Linear layer).",
            f"Give raw scores as logits instead: `{dist}(logits={value})`; or squash them "
            f"first: `torch.sigmoid({value})`.",
        )
    if constraint.startswith("Simplex()"):
        return Advice(
            f"{head}: each row a probability distribution, numbers of at least 0 that add "
            "up to 1, but some rows do not (raw scores straight from a Linear layer).",
            f"Give raw scores as logits instead: `{dist}(logits={value})`; or make "
            f"probabilities first: `F.softmax({value}, dim=-1)`.",
        )
    return Advice(
        f"{head}, but some of its numbers do not (the message shows them).",
        f"Print `{value}` to see which numbers break {constraint}, and fix where it is computed.",
    )


def matrix_expected(f: Found) -> Advice:
    """``covariance_matrix must be at least two-dimensional`` (``MultivariateNormal``)."""
    param = f.group("param").split()[0]
    arg = _argument(f.context.source_line, "MultivariateNormal", param)
    value = arg.value if arg is not None else "sigma"
    call = arg.call if arg is not None else "MultivariateNormal"
    where = f"`{call}` on {f.where}"
    loc_arg = _argument(f.context.source_line, "MultivariateNormal", "loc")
    loc = loc_arg.value if loc_arg is not None else "mu"
    fix = (
        f"For independent components, put the numbers on a diagonal: "
        f"`MultivariateNormal({loc}, torch.diag_embed({value}))` when `{value}` holds "
        f"variances (`torch.diag_embed({value} ** 2)` for standard deviations); or use "
        f"`Independent(Normal({loc}, std), 1)`, which takes standard deviations as a vector."
    )
    if param == "scale_tril":
        fix = (
            f"Pass a lower-triangular matrix: `scale_tril=torch.diag_embed({value})` when "
            f"`{value}` holds standard deviations."
        )
    return Advice(
        f"{where}: a multivariate normal takes its `{param}` as a matrix (shape [n, n], "
        f"with optional batch dimensions in front), but `{value}` is one-dimensional, a "
        "vector of numbers.",
        fix,
    )


def value_not_broadcastable(f: Found) -> Advice:
    """``dist.log_prob(value)`` with ``value`` shaped for neither the batch nor a broadcast."""
    value_shape, want = parse_shape(f.group("value")), parse_shape(f.group("want"))
    dist, method, value = "dist", "log_prob", "value"
    for node, name, text in named_calls(f.context.source_line, _SCORERS):
        if isinstance(node.func, ast.Attribute) and node.args:
            dist, method = segment(text, node.func.value), name
            value = segment(text, node.args[0])
        break
    made = made_before(f.context.program, dist, f.line) if dist.isidentifier() else None
    kind = made.text if made is not None else ""
    explanation = (
        f"`{dist}.{method}({value})` scores each number of `{value}` under the distribution "
        f"`{dist}` stands for. `{dist}` is a batch of shape {list(want)} (one distribution "
        f"per row of its parameters, as built on line {made.line}: `{kind}`)"
        if made is not None
        else f"`{dist}.{method}({value})` scores each number of `{value}` under the "
        f"distribution `{dist}` stands for, a batch of shape {list(want)}"
    )
    explanation += (
        f", so `{value}` must have that shape (or one that broadcasts to it), but it has "
        f"{list(value_shape)}."
    )
    one_hot = "Categorical(" in kind and value_shape[:-1] == want and len(value_shape) > 0
    if one_hot:
        explanation += (
            f" A `Categorical` scores class numbers, one per distribution; `{value}` has one "
            f"row of {value_shape[-1]} per distribution, as one-hot vectors do."
        )
        fix = (
            f"Give it the class numbers: `{dist}.{method}({value}.argmax(-1))` for one-hot "
            f"rows (or keep the actions as numbers when they are stored)."
        )
    elif value_shape[-1:] == (1,) and value_shape[:-1] == want:
        fix = f"Drop the extra dimension: `{dist}.{method}({value}.squeeze(-1))`."
    else:
        fix = (
            f"Give one value per distribution: `{value}` reshaped to {list(want)} "
            f"(`{value}.view({', '.join(str(d) for d in want)})`), made from the same "
            f"samples as `{dist}`."
        )
    return Advice(explanation, fix)
