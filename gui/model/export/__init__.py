"""Files a session is exported to: ``result.json``, ``script.py`` and ``graph.svg``.

- :mod:`.files`: writes the three files for one result;
- :mod:`.result_json`: the ``result.json`` document;
- :mod:`.script`: the equivalent plain PyTorch script.
"""
