"""The console script's name as a package: ``from autograd_explorer import explore``.

The app's code lives in :mod:`gui`; this is the name people guess from
``pip install autograd-explorer``. Importing it loads neither torch nor Qt.
"""

from gui import explore

__all__ = ["explore"]
