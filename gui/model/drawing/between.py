"""Where the ops that use no parameter go: between the modules of a model.

:mod:`.groups` places every function that touches a parameter in that parameter's module.
The rest (a ReLU, a residual add, the reshapes after a projection, a dropout) lie between
modules; each goes where the modules around it agree, or stays outside every module (the
loss after a model, a ReLU between two layers of a ``Sequential``).

Where the modules around an op hold *blocks* (modules with modules inside: a transformer's
``layers.3``, GPT's ``h.3``, a ``Sequential`` of residual blocks), the op is a block's own
work, made by its ``forward``. Three passes, each seeing where the ones before went:

1. **merges**, in data-flow order: an op fed by a block and feeding the same block belongs
   to it (the deepest such block, if no other is as deep). A pre-norm layer's
   ``x + attn(norm1(x))`` is fed by the layer before and by its own attention, and feeds
   its own ``norm2``; a post-norm layer's ``norm1(x + attn(x))`` likewise; a ReLU between
   a block's ``fc1`` and ``fc2``. Two sibling layers built alike (``h.1``, ``h.2``) share
   only their container: an op between them is not the container's work.
2. **joins**, in data-flow order: an op joining several inputs that all lie in one block
   belongs to it: a pre-norm layer's last residual add, ``x + mlp(norm2(x))``.
3. **chains**, against the data flow (so a chain of reshapes follows where it leads): the
   block everything downstream lies in, one level below what both sides share (the
   transposes that make the next layer's attention input); else the deepest block
   everything upstream lies in (the reshapes after a block's last projection, on their
   way to its residual add); else the module both sides share.

An op whose outputs reach no module (the loss) stays outside, with one exception:

4. **tails**, in data-flow order: the last of several blocks built alike (a pre-norm
   transformer's last layer) ends in ops that feed only what follows the model: its
   residual add, the dropout and reshape before it. Where the block before it has an op
   of the same kind fed by ops of the same kinds in that block (its own residual add, fed
   by its attention's add and its dropout), the op is the last block's work too. The loss
   mirrors nothing in a block, and stays outside.

Pure: no Qt, no torch.
"""

from __future__ import annotations

from gui.model.drawing.module_paths import Path, common_path


def place_between(order: list[str], inputs: dict[str, list[str]], module: dict[str, Path]) -> None:
    """Add to ``module`` (node key -> module path, the functions that touch parameters)
    the functions that do not, where the rules above place them. ``order``: the nodes in
    data-flow order (inputs first); ``inputs``: each node's inputs."""
    pending = [key for key in order if key not in module]
    if not pending:
        return
    paths = set(module.values())
    blocks = {p[:n] for p in paths for n in range(1, len(p))}
    shapes = _shapes(paths)
    consumers: dict[str, list[str]] = {}
    for key in order:
        for source in inputs[key]:
            consumers.setdefault(source, []).append(key)
    placed_before = -1
    for rule in ("merges", "joins", "chains"):
        if len(module) != placed_before:  # where things lie changed: look again
            upstream, downstream = _flows(order, inputs, module)
            placed_before = len(module)
        for key in pending if rule != "chains" else reversed(pending):
            if key in module or key not in upstream or key not in downstream:
                continue
            ins = [module.get(s) or upstream.get(s) for s in inputs[key]]
            outs = [module.get(c) or downstream.get(c) for c in consumers.get(key, ())]
            up = _common(ins) or upstream[key]
            down = _common(outs) or downstream[key]
            both = common_path(up, down) or ()
            if rule == "merges":
                placed = _merge_block(ins, outs, blocks, shapes, len(both))
            elif rule == "joins":
                joins = len(inputs[key]) > 1 and up in blocks and len(up) > len(both)
                placed = up if joins else None
            else:
                placed = _side_block(up, down, both, blocks)
            if placed:
                module[key] = placed
    _place_tails([key for key in pending if key not in module], inputs, module, blocks, shapes)


def _kind(key: str) -> str:
    """A node's class, from its key (``"12:AddBackward0"``)."""
    return key.partition(":")[2]


def _place_tails(
    pending: list[str],
    inputs: dict[str, list[str]],
    module: dict[str, Path],
    blocks: set[Path],
    shapes: dict[Path, frozenset[Path]],
) -> None:
    """Rule 4 (see the module docstring), for ``pending``, in data-flow order."""
    mirrors: dict[Path, set[tuple[str, tuple[str, ...], Path]]] = {}
    # The nodes in each block (every prefix of their path), kept as nodes are placed: a
    # scan of every node per block was most of a 60-layer transformer's module tree.
    members: dict[Path, list[str]] = {}

    def add(key: str, path: Path) -> None:
        for n in range(1, len(path) + 1):
            members.setdefault(path[:n], []).append(key)

    for key, path in module.items():
        add(key, path)
    # Blocks by their parent: a block's siblings are among them.
    by_parent: dict[Path, list[Path]] = {}
    for each in blocks:
        by_parent.setdefault(each[:-1], []).append(each)

    def mirrored_in(block: Path) -> set[tuple[str, tuple[str, ...], Path]]:
        # What each op of ``block`` is, what its inputs in the block are, and where in
        # the block it lies (as the block holds them when first asked).
        found = mirrors.get(block)
        if found is None:
            n = len(block)
            found = mirrors[block] = {
                (
                    _kind(key),
                    tuple(sorted(_kind(s) for s in inputs[key] if module.get(s, ())[:n] == block)),
                    module[key][n:],
                )
                for key in members.get(block, ())
            }
        return found

    for key in pending:
        ins = inputs[key]
        if not ins or any(s not in module for s in ins):
            continue
        block = _common([module[s] for s in ins])
        while block and block not in blocks:
            block = block[:-1]
        if not block:
            continue
        siblings = [p for p in by_parent[block[:-1]] if p != block and shapes[p] == shapes[block]]
        own = (_kind(key), tuple(sorted(_kind(s) for s in ins)))
        for sibling in siblings:
            where = [p for kind, fed, p in mirrored_in(sibling) if (kind, fed) == own]
            if where:
                module[key] = block + min(where, key=len)
                add(key, module[key])
                break


def _common(paths: list[Path | None]) -> Path | None:
    """The common module of ``paths`` (``None``: none of them is known)."""
    shared: Path | None = None
    for path in paths:
        shared = common_path(shared, path)
    return shared


def _flows(
    order: list[str], inputs: dict[str, list[str]], module: dict[str, Path]
) -> tuple[dict[str, Path], dict[str, Path]]:
    """For every node, the common module of everything upstream of it and of everything
    downstream (absent: none lies in a module; an empty path: they lie in different ones)."""
    upstream: dict[str, Path] = {}
    for key in order:
        if key in module:
            upstream[key] = module[key]
            continue
        seen: Path | None = None
        for source in inputs[key]:
            seen = common_path(seen, upstream.get(source))
        if seen is not None:  # an empty path (inputs from different modules) blocks too
            upstream[key] = seen
    downstream: dict[str, Path] = {}
    consumers_seen: dict[str, Path | None] = {}
    for key in reversed(order):
        own = module.get(key)
        if own is None:
            own = consumers_seen.get(key)
        if own is not None:
            downstream[key] = own
        for source in inputs[key]:
            consumers_seen[source] = common_path(consumers_seen.get(source), downstream.get(key))
    return upstream, downstream


def _shapes(paths: set[Path]) -> dict[Path, frozenset[Path]]:
    """Each module's shape: the paths, relative to it, of the modules its parameter-using
    functions lie in. Two sibling blocks built alike (``h.1`` and ``h.2``) have the same
    shape."""
    shapes: dict[Path, set[Path]] = {}
    for path in paths:
        for n in range(1, len(path) + 1):
            shapes.setdefault(path[:n], set()).add(path[n:])
    return {path: frozenset(inner) for path, inner in shapes.items()}


def _merge_block(
    ins: list[Path | None],
    outs: list[Path | None],
    blocks: set[Path],
    shapes: dict[Path, frozenset[Path]],
    shared_depth: int,
) -> Path | None:
    """The deepest block both an input and a consumer lie in, if it lies deeper than
    ``shared_depth`` (what all the inputs and consumers share) and no other is as deep.

    An input and a consumer in two sibling blocks built alike (``h.1`` and ``h.2``) share
    only their container: the op lies between two blocks, not in the container's work."""
    found: set[Path] = set()
    for a in ins:
        for b in outs:
            if a is None or b is None:
                continue
            shared = common_path(a, b) or ()
            if len(shared) <= shared_depth or shared not in blocks:
                continue
            n = len(shared) + 1
            if a[:n] != b[:n] and {a[:n], b[:n]} <= blocks and shapes[a[:n]] == shapes[b[:n]]:
                continue  # two repeats of one block (h.1, h.2), not two layers of one
            found.add(shared)
    if not found:
        return None
    deepest = max(len(p) for p in found)
    top = [p for p in found if len(p) == deepest]
    return top[0] if len(top) == 1 else None


def _side_block(up: Path, down: Path, both: Path, blocks: set[Path]) -> Path | None:
    """Rule 3 (see the module docstring): the block downstream, the deepest block
    upstream, or the module both share (``None``: outside every module)."""
    n = len(both) + 1
    if len(down) >= n and down[:n] in blocks:
        return down[:n]
    for size in range(len(up), n - 1, -1):
        if up[:size] in blocks:
            return up[:size]
    return both or None
