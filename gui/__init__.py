"""Autograd Explorer: PyTorch's autograd made visible.

``from gui import explore`` then ``explore(loss)`` opens the window on a graph your own code
built (see :mod:`gui.explore_live`). Loaded on first use: ``import gui`` loads neither torch
nor Qt (the engine's child process imports this package too).
"""

from __future__ import annotations

from typing import Any

__all__ = ["explore"]


def __getattr__(name: str) -> Any:
    if name == "explore":
        from gui.explore_live import explore

        return explore
    raise AttributeError(f"module 'gui' has no attribute {name!r}")
