"""Live tabs on the stores the demo ships with, in Chromium: two tabs of one session; a step in
one, and the other shows the banner within a second — on SQLite, and on two instances sharing a
PostgreSQL database, one tab on each (cookies are per host, not per port, so both tabs carry the
session)."""
import sys
import tempfile

import pytest

from conftest import ROOT, banner_after_a_step_in_another_tab, flowserver

sys.path.insert(0, str(ROOT / "Tests" / "soak"))
from cluster import PostgresCluster  # noqa: E402


@pytest.fixture(params=["sqlite", "postgres, two instances"])
def two_bases(request):
    """The base URLs of the two tabs' servers: one SQLite server for both, or two instances on
    one PostgreSQL database."""
    if request.param == "sqlite":
        with tempfile.TemporaryDirectory() as directory, flowserver("--log-level", "warning", store=f"sqlite:{directory}/live.sqlite") as base:
            yield base, base
    else:
        with PostgresCluster() as cluster, flowserver("--log-level", "warning", store=cluster.url) as first, \
                flowserver("--log-level", "warning", store=cluster.url) as second:
            yield first, second


def test_a_step_in_one_tab_shows_the_banner_in_the_other(browser, two_bases):
    base_a, base_b = two_bases
    first, seconds = banner_after_a_step_in_another_tab(browser, base_a, base_b)
    assert seconds < 1, "the banner took more than a second"
    assert first.path() == "/wishlist" and first.tree_top() == "/movies/1"
    first.follow("Go to the current page", "/movies/1")
    first.assert_tree_follows()
