"""Graphviz reads the graph's DOT text from a pipe, so the layout worker never writes a file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pygraphviz as pgv
import pytest

from gui.model.drawing.dot_reader import read_dot


def chain(nodes: int, label: str = "") -> str:
    body = " ".join(
        f'n{i} [label="{label}{i} ✓"]; n{i} -> n{i + 1} [key="{i}"];' for i in range(nodes)
    )
    return f'digraph g {{ graph [rankdir="TB"]; node [shape="box"]; {body} }}'


def summary(graph: pgv.AGraph) -> tuple[object, ...]:
    edges = sorted((str(e[0]), str(e[1]), e.attr["key"]) for e in graph.edges())
    labels = sorted((str(n), n.attr["label"]) for n in graph.nodes())
    return edges, labels, dict(graph.graph_attr), dict(graph.node_attr)


@pytest.mark.parametrize("nodes", [1, 200, 3000])
def test_the_pipe_gives_graphviz_what_its_own_reader_gives(nodes: int) -> None:
    source = chain(nodes)
    assert summary(read_dot(source)) == summary(pgv.AGraph(string=source))


def test_nothing_is_left_open() -> None:
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for _ in range(50):
        read_dot(chain(50))
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) == before


WALLED = textwrap.dedent(
    """
    import resource, signal, sys
    from gui.model.drawing.dot_reader import DotTooLong, read_dot
    from tests.model.drawing.test_dot_reader import chain
    import pygraphviz  # loaded before the limit, as the worker loads it before its wall

    # What the OS wall does to files: not one byte may be written to any of them.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    print(read_dot(chain(300)).number_of_nodes())
    try:
        read_dot(chain(3000, label="x" * 600))
    except DotTooLong as exc:
        print("refused:", exc)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="no resource limits on Windows")
def test_where_no_file_may_be_written_a_graph_reads_and_too_long_a_text_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WALLED], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "301", "a graph of an ordinary size is read without any file"
    assert lines[1].startswith("refused: The graph's text is too long to draw (")
    assert "MB, mostly labels)" in lines[1]
