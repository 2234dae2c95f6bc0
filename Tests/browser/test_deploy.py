"""A tab left open across a deploy that changed what the session holds (issue "Sessions survive a
deploy", point 6): the next click lands on a working page, and the session's tree follows the
address bar."""
import sqlite3

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

from conftest import Demo, flowserver, free_port

# The titles of FlowServer's error pages (WebError).
ERROR_TITLES = ["Bad request", "Forbidden", "Not found", "Content too large", "Unsupported media type",
                "Unauthorized", "Method not allowed", "Service unavailable", "Too many", "Stored by another version",
                "Internal error"]


def test_a_tab_left_open_across_a_deploy_lands_on_a_working_page_at_its_next_click(browser, tmp_path):
    port = free_port()
    path = tmp_path / "sessions.sqlite"
    store = f"sqlite:{path}"
    with flowserver(store=store, port=port) as base:
        demo = Demo(browser, base)
        demo.onboard()
        demo.wait_for_path("/wishlist")
        demo.open("/movies/3")
        demo.wait_for_path("/movies/3")
    # The next version renamed the movie page: what it finds stored names one it does not have.
    database = sqlite3.connect(path)
    rows = database.execute("SELECT id, tree FROM sessions WHERE version > 0").fetchall()
    assert rows, "the session is stored"
    for session, tree in rows:
        assert b'"page":"movie"' in tree
        database.execute("UPDATE sessions SET tree = ?, version = version + 1 WHERE id = ?",
                         (tree.replace(b'"page":"movie"', b'"page":"film"'), session))
    database.commit()
    database.close()
    with flowserver(store=store, port=port) as base:
        assert demo.path() == "/movies/3", "the tab still shows the page from before"
        browser.execute_script("window.flowserverOldPage = true")
        browser.find_element("css selector", "a[href*='/_step/castIsPicked']").click()
        WebDriverWait(browser, 10, ignored_exceptions=[WebDriverException]).until(
            lambda d: d.execute_script("return !window.flowserverOldPage && document.readyState === 'complete'"))
        title = browser.title
        assert not any(word in title for word in ERROR_TITLES), f"an error page: {title}"
        demo.assert_tree_follows()
        demo.screenshot("deploy-next-click")
        entries = demo.history()
        assert entries[0]["source"] == "restart" and "film" in entries[0]["reason"], entries[0]
