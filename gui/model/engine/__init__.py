"""The engine: runs a learner's program with real torch and records what autograd did.

Everything here runs only inside the engine's child process, and this is the only package
of the app that imports torch (a layering test enforces both). The GUI process talks to it
through :mod:`gui.model.engine_process`, with the plain data of :mod:`gui.model.request`
and :mod:`gui.model.result`; it never imports this package.

- :mod:`.worker`: the child's main loop;
- :mod:`.run`: one run of a program (:func:`~gui.model.engine.run.run_program`);
- :mod:`.guard`: the runtime half of the sandbox (attribute reads, imports, builtins);
- :mod:`.bindings`, :mod:`.recorder`, :mod:`.capture`: what the program named, did, printed;
- :mod:`.backward`, :mod:`.jacobian`, :mod:`.graph_walk`: hooked backward calls, ``J`` and
  ``J^T v``, the ``grad_fn`` walk;
- :mod:`.tensors`: live tensors to plain :class:`~gui.model.result.TensorData`.
"""
