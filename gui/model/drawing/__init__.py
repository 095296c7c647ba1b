"""How the autograd graph is drawn, decided once for every view (window and SVG export).

- :mod:`.colors`: the app's ONE diverging colour scale and the node-kind colours;
- :mod:`.layout`: box sizes and positions (Graphviz ``dot`` through pygraphviz);
- :mod:`.paint`: which gradient each box and edge shows, and the scale covering them;
- :mod:`.svg`: the graph as an SVG file.

No Qt, no torch: the window's widgets and the headless export both draw from here.
"""
