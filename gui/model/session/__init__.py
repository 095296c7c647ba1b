"""The document a window edits, and the frozen snapshots its panels render.

See :mod:`.session` for the :class:`~gui.model.session.session.Session` class itself.
"""
