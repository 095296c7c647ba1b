"""The Jacobian behind a backward call, and the check ``x.grad == J^T v`` (engine side).

``backward(v)`` never builds a Jacobian: it computes the vector-Jacobian product ``J^T v``
directly. Showing ``J`` next to it is what makes the ``gradient`` argument click for a
learner ("how much each output element matters"), so the engine computes it row by row
with ``torch.autograd.grad`` on one-hot seeds, before the real backward frees the graph.
"""

from __future__ import annotations

import warnings

import torch

from gui.model.result import JacobianCheck

MAX_OUTPUT_ELEMENTS = 256
MAX_LEAF_ELEMENTS = 4096
TOLERANCE = 1e-5


def jacobian_problem(output: torch.Tensor, leaves: dict[str, torch.Tensor]) -> str | None:
    """Why no Jacobian of ``output`` w.r.t. ``leaves`` is shown (too big, no graph...), or
    ``None`` when it is."""
    wanted = [t for t in leaves.values() if t.requires_grad]
    if output.grad_fn is None and not output.requires_grad:
        return "the output does not depend on anything that requires grad"
    if not wanted:
        return "the program has no named leaf that requires grad"
    if output.numel() > MAX_OUTPUT_ELEMENTS:
        return (
            f"the output has {output.numel()} elements "
            f"(the Jacobian is shown up to {MAX_OUTPUT_ELEMENTS})"
        )
    if sum(t.numel() for t in wanted) > MAX_LEAF_ELEMENTS:
        return f"the leaves have more than {MAX_LEAF_ELEMENTS} elements in all"
    if output.is_complex() or any(t.is_complex() for t in wanted):
        return "complex tensors are not supported for the Jacobian view"
    if output.numel() == 0:
        return "the output is empty: its Jacobian has no rows"
    return None


def jacobians_from_gradients(
    leaves: dict[str, torch.Tensor], gradients: dict[str, list[float] | float | None]
) -> dict[str, torch.Tensor]:
    """The one-row Jacobians of a one-element output, from the gradients its backward with
    torch's implicit seed (``1``) sent to the leaves: for such a call ``J = x.grad`` added,
    exactly what :func:`compute_jacobians` gets from a second backward with the same seed
    (the same graph and operations, so the same numbers to the last bit).

    ``gradients`` holds each leaf's gradient as ``tolist`` read it (``None``: none arrived,
    a zero row, as ``allow_unused`` gives); ``tolist`` keeps every float exactly, so making
    the tensor again in the leaf's dtype gives the very numbers torch computed.
    """
    rows = {}
    for name, leaf in leaves.items():
        if not leaf.requires_grad:
            continue
        g = gradients.get(name)
        row = (
            torch.zeros(leaf.numel(), dtype=leaf.dtype)
            if g is None
            else torch.tensor(g, dtype=leaf.dtype).reshape(-1)
        )
        rows[name] = row.reshape(1, -1)
    return rows


def compute_jacobians(
    output: torch.Tensor, leaves: dict[str, torch.Tensor]
) -> tuple[dict[str, torch.Tensor], str | None]:
    """``d output / d leaf`` for every leaf, as ``(output numel, leaf numel)`` matrices.

    Returns the matrices and a note saying why they were not computed (too big, no graph,
    graph already freed), in which case the dict is empty.
    """
    problem = jacobian_problem(output, leaves)
    if problem is not None:
        return {}, problem
    wanted = {name: t for name, t in leaves.items() if t.requires_grad}
    names = list(wanted)
    inputs = [wanted[n] for n in names]
    batched = None
    # One row (a scalar output, the usual case) needs no vmap: a plain grad call is faster.
    if output.numel() > 1:
        try:
            batched = _batched_rows(output, inputs)
        except RuntimeError:
            batched = None  # an op without a batching rule: fall back to one row at a time
    if batched is not None:
        return dict(zip(names, batched, strict=True)), None
    rows: dict[str, list[torch.Tensor]] = {n: [] for n in names}
    flat = output.reshape(-1)
    try:
        for i in range(flat.numel()):
            seed = torch.zeros_like(output).reshape(-1)
            seed[i] = 1
            grads = torch.autograd.grad(
                output,
                inputs,
                # One element: torch's own seed of ones is this one-hot row, and leaves out
                # the check of a given seed's shape, which first imports sympy (0.3-0.5 s
                # of the window's first result when the first program has a scalar output).
                grad_outputs=None if flat.numel() == 1 else seed.reshape(output.shape),
                retain_graph=True,
                allow_unused=True,
            )
            for name, g, leaf in zip(names, grads, inputs, strict=True):
                if g is None:
                    row = torch.zeros(leaf.numel(), dtype=leaf.dtype)
                else:
                    row = dense(g).reshape(-1)
                rows[name].append(row.detach())
    except RuntimeError as exc:
        return {}, not_differentiable_again(exc)
    return {name: torch.stack(r) for name, r in rows.items()}, None


def dense(t: torch.Tensor) -> torch.Tensor:
    """``t`` with its numbers in one strided block: ``nn.Embedding(sparse=True)`` makes a
    sparse ``.grad`` (and gradients), which cannot be reshaped or listed as they are."""
    return t if t.layout == torch.strided else t.to_dense()


def not_differentiable_again(exc: RuntimeError) -> str:
    """The note for a Jacobian torch's autograd could not compute (its first line)."""
    return f"torch could not differentiate it again: {exc}".split("\n")[0]


def _batched_rows(output: torch.Tensor, inputs: list[torch.Tensor]) -> list[torch.Tensor] | None:
    """All rows in one vectorised backward (``is_grads_batched``): one-hot seeds at once."""
    n = output.numel()
    seeds = torch.eye(n, dtype=output.dtype).reshape(n, *output.shape)
    with warnings.catch_warnings():
        # vmap warns about ops without a fast batching rule; that is not the user's business
        warnings.simplefilter("ignore")
        grads = torch.autograd.grad(
            output,
            inputs,
            grad_outputs=seeds,
            retain_graph=True,
            allow_unused=True,
            is_grads_batched=True,
        )
    return [
        torch.zeros(n, leaf.numel(), dtype=leaf.dtype) if g is None else g.reshape(n, -1).detach()
        for g, leaf in zip(grads, inputs, strict=True)
    ]


def vjp_checks(
    jacobians: dict[str, torch.Tensor],
    seed: torch.Tensor,
    contributions: dict[str, torch.Tensor | None],
    shapes: dict[str, tuple[int, ...]],
) -> tuple[JacobianCheck, ...]:
    """Compare what backward added to each leaf's ``.grad`` with ``J^T v``.

    ``contributions[name]`` is the leaf's ``.grad`` after the call minus before it
    (``None`` when the leaf received nothing); ``shapes`` gives each leaf's shape.
    """
    checks = []
    v = seed.detach().reshape(-1)
    for name, J in jacobians.items():
        if J.shape[0] != v.numel():
            continue
        vjp = J.transpose(0, 1).to(torch.float64) @ v.to(torch.float64)
        contribution = contributions.get(name)
        if contribution is None:
            matches = bool(torch.all(vjp == 0))
            diff = None
        else:
            contribution = dense(contribution.detach())
            delta = (contribution.reshape(-1).to(torch.float64) - vjp).abs()
            diff = float(delta.max()) if delta.numel() else 0.0
            scale = max(1.0, float(vjp.abs().max()) if vjp.numel() else 1.0)
            matches = diff <= TOLERANCE * scale
        checks.append(
            JacobianCheck(
                leaf=name,
                matrix=J.tolist(),
                vjp=vjp.reshape(shapes[name]).tolist(),
                contribution=None if contribution is None else contribution.detach().tolist(),
                matches=matches,
                max_abs_difference=diff,
            )
        )
    return tuple(checks)
