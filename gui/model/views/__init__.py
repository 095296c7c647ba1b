"""What each panel shows, computed from a Snapshot as plain data and text; no Qt.

The widgets under :mod:`gui.widgets` only put these results on screen, so every sentence,
number and HTML page a panel shows can be tested without a window. One module per panel:

- :mod:`~gui.model.views.status`: the code panel's status strip and the window's status bar;
- :mod:`~gui.model.views.diagnostics`: errors and warnings as HTML, the printed output;
- :mod:`~gui.model.views.backward`: the backward panel's notes, status and choices;
- :mod:`~gui.model.views.inputs`: which leaves get a group, their numbers as flat lists;
- :mod:`~gui.model.views.grid_numbers`: numbers on a slider range's step grid;
- :mod:`~gui.model.views.graph_caption`: the graph panel's step list and captions;
- :mod:`~gui.model.views.node_details`: the node details pane's HTML;
- :mod:`~gui.model.views.grad_bars`, :mod:`~gui.model.views.grad_history` and
  :mod:`~gui.model.views.grad_plots`: what the gradient plots draw.

Pure Python and numpy (the model loads it in the window's process anyway); never Qt and
never torch.
"""
