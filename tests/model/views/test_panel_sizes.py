"""How the window shares its room among the panels: shares, and minimums that win."""

from __future__ import annotations

import pytest

from gui.model.views.panel_sizes import SHARES, split


def test_room_is_shared_by_the_shares_and_adds_up() -> None:
    assert split(1000, (0.25, 0.5, 0.25), (0, 0, 0)) == [250, 500, 250]
    assert sum(split(1271, SHARES["columns"], (0, 0, 0))) == 1271


def test_the_graph_gets_the_biggest_share() -> None:
    shares = SHARES["columns"]
    assert shares[1] == max(shares)


def test_a_minimum_wins_and_the_others_give_up_the_difference_by_their_shares() -> None:
    # 1024 pixels: the controls column needs 425, the graph and the plots share the rest.
    left, graph, right = split(1016, SHARES["columns"], (425, 140, 150))
    assert left == 425
    assert left + graph + right == 1016
    assert graph / right == pytest.approx(SHARES["columns"][1] / SHARES["columns"][2], rel=0.02)


def test_a_minimum_that_a_share_already_covers_changes_nothing() -> None:
    assert split(1000, (0.25, 0.5, 0.25), (100, 100, 100)) == [250, 500, 250]


def test_when_even_the_minimums_do_not_fit_each_part_gets_its_minimum() -> None:
    assert split(300, (0.3, 0.4, 0.3), (200, 100, 100)) == [200, 100, 100]


def test_one_minimum_per_share() -> None:
    with pytest.raises(ValueError):
        split(100, (0.5, 0.5), (0,))
