"""Accessible pages, checked in Chromium: axe-core's WCAG 2.1 A/AA rules on every demo page, modal,
the inspector and the error pages; and the demo driven with the keyboard only."""
import importlib.util
import pathlib

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

# axe-core as the PyPI package axe-playwright-python ships it (installed by `make browser-tests`,
# without Playwright: only its copy of axe.min.js is used).
AXE = pathlib.Path(importlib.util.find_spec("axe_playwright_python").submodule_search_locations[0]) / "axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_violations(demo):
    """axe-core's WCAG 2.1 A/AA violations on the page the browser shows, as short lines."""
    demo.driver.execute_script(AXE.read_text())
    violations = demo.driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        axe.run(document, { runOnly: { type: "tag", values: arguments[0] }, resultTypes: ["violations"] })
          .then((result) => done(result.violations.map((v) =>
            `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ") + " " + n.failureSummary).join(" | ")}`)))
          .catch((error) => done(["axe failed: " + error]));
        """, WCAG_21_AA)
    return violations


def test_axe_finds_no_wcag_violation_on_any_page(demo):
    demo.driver.set_script_timeout(30)
    found = {}

    def check(name):
        violations = axe_violations(demo)
        if violations:
            found[name + " " + demo.path()] = violations

    demo.open("/")
    demo.wait_for_path("/onboarding/login")
    check("login")
    demo.click_button("userIsLoggedIn")
    check("login with an error")
    demo.type("name", "Ada Lovelace")
    demo.click_button("userIsLoggedIn")
    demo.wait_for_path("/onboarding/apikey")
    check("api key")
    demo.type("apiKey", "demo-key")
    demo.click_button("apiKeyIsFilledIn")
    demo.wait_for_path("/wishlist")
    check("wishlist")
    for tab, path in [("Watched", "/watched"), ("Trending", "/trending"), ("Wishlist", "/wishlist")]:
        demo.follow(tab, path)
        check(tab)
    for link, path in [("Blade Runner", "/movies/2"), ("Harrison Ford", "/cast/4")]:
        demo.follow(link, path)
        check(link)
    demo.back()
    demo.back()
    demo.follow("Settings", "/settings")
    check("settings (modal)")
    demo.follow("Login", "/settings/login")
    check("settings' login (modal)")
    demo.follow("Back", "/settings")
    demo.follow("Done", "/wishlist")
    demo.follow("About", "/about")
    check("about")
    demo.open("/movies/999999")
    check("not found (404)")
    demo.open("/_inspector")
    check("inspector")
    demo.open("/_inspector/history/2")
    check("inspector, an entry of the history")
    demo.open("/_inspector/graph")
    check("inspector, the navigation graph")
    assert not found, "\n".join(f"{page}: {violation}" for page, violations in found.items() for violation in violations)


class Keyboard:
    """The demo driven with Tab, Enter and Escape only (and typing into the focused field)."""

    def __init__(self, demo):
        self.demo, self.driver = demo, demo.driver

    def press(self, key):
        self.driver.execute_script("window.flowserverOldPage = true")
        ActionChains(self.driver).send_keys(key).perform()

    def focused(self):
        return self.driver.execute_script(
            "const e = document.activeElement; return e ? [e.tagName, (e.textContent || '').trim(), e.id, !!e.closest('.modal')] : null")

    def tab_to(self, text=None, field=None):
        """Presses Tab until the focused element is the control with `text`, or the field `field`."""
        for _ in range(60):
            ActionChains(self.driver).send_keys(Keys.TAB).perform()
            tag, label, identifier, _ = self.focused()
            if (field and identifier == field) or (text and label.startswith(text) and tag in ("A", "BUTTON")):
                return
        raise AssertionError(f"Tab never reached {text or field}; focus is on {self.focused()}")

    def activate(self, key, path):
        """Presses `key` and waits for the page at `path`."""
        self.press(key)
        WebDriverWait(self.driver, 10).until(
            lambda d: d.execute_script("return !window.flowserverOldPage && document.readyState === 'complete'"))
        self.demo.wait_for_path(path)

    def type(self, text):
        ActionChains(self.driver).send_keys(text).perform()


def test_the_demo_with_the_keyboard_only(demo):
    keys = Keyboard(demo)
    demo.open("/")
    demo.wait_for_path("/onboarding/login")
    keys.tab_to(field="name")
    keys.type("Ada Lovelace")
    keys.activate(Keys.ENTER, "/onboarding/apikey")
    keys.tab_to(field="apiKey")
    keys.type("demo-key")
    keys.activate(Keys.ENTER, "/wishlist")
    current = demo.driver.find_elements("css selector", ".tabs [aria-current=page]")
    assert [tab.text for tab in current] == ["Wishlist"], "the current tab is marked for assistive technology"
    keys.tab_to("Blade Runner")
    keys.activate(Keys.ENTER, "/movies/2")
    assert "1982" in demo.text()
    keys.tab_to("Back")
    keys.activate(Keys.ENTER, "/wishlist")
    keys.tab_to("Settings")
    keys.activate(Keys.ENTER, "/settings")
    assert keys.focused()[3], f"focus moves into the modal when it opens, not {keys.focused()}"
    for _ in range(8):
        keys.press(Keys.TAB)
        # The page underneath is inert: Tab goes round the modal's controls and the browser's own.
        assert keys.focused()[3] or keys.focused()[0] == "BODY", f"Tab reached the page under the modal: {keys.focused()}"
    keys.activate(Keys.ESCAPE, "/wishlist")
    assert keys.focused()[:2] == ["A", "Settings"], f"Escape closes the modal; focus returns to what opened it, not {keys.focused()}"
    keys.activate(Keys.ENTER, "/settings")
    keys.tab_to("Done")
    keys.activate(Keys.ENTER, "/wishlist")
    assert keys.focused()[:2] == ["A", "Settings"], f"focus returns to what opened the modal, not {keys.focused()}"
    assert demo.tree_top() == "/wishlist"
