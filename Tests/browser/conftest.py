"""A real flowserver (in-memory store) on a free port, and headless Chromium windows on it."""
import json
import os
import sys
import pathlib
import time
import urllib.error
import urllib.request

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "support"))
from live_server import flowserver, free_port  # noqa: E402,F401  (the browser tests import them from here)
ARTIFACTS = ROOT / "Tests" / "artifacts" / "screenshots"


@pytest.fixture(scope="session")
def base_url():
    with flowserver() as url:
        yield url


def make_driver():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,900", "--disable-dev-shm-usage"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # for the console's CSP reports
    options.binary_location = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    service = webdriver.ChromeService(os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


@pytest.fixture
def browser():
    driver = make_driver()
    yield driver
    driver.quit()


class Demo:
    """Helpers for one browser on the demo."""

    def __init__(self, driver, base):
        self.driver, self.base = driver, base

    def open(self, path):
        self.driver.get(self.base + path)

    def path(self):
        return self.driver.current_url.replace(self.base, "")

    def wait_for_path(self, path):
        WebDriverWait(self.driver, 10).until(lambda d: d.current_url.replace(self.base, "").split("?")[0] == path)

    def click_link(self, text):
        self.driver.find_element("partial link text", text).click()

    def follow(self, text, path):
        """Clicks the link whose text contains `text` and waits until the browser is at `path`."""
        self.click_link(text)
        self.wait_for_path(path)

    def click_button(self, step):
        """Submits the form of the button for `step` and waits for the page that answers it (a
        `303` to another page, or back to the same page with messages): reading the page
        before it arrives would read the old one, or one the browser is replacing."""
        # A mark on the old document's window: the answer is a new document, without it. (Waiting
        # for the old element to go stale asks the browser about an element mid-navigation, which
        # headless Chromium sometimes answers with an error of its own.)
        self.driver.execute_script("window.flowserverOldPage = true")
        self.driver.find_element("css selector", f"button[value={step}]").click()
        WebDriverWait(self.driver, 10, ignored_exceptions=[WebDriverException]).until(
            lambda d: d.execute_script("return !window.flowserverOldPage && document.readyState === 'complete'"))

    def type(self, field_id, text):
        element = self.driver.find_element("id", field_id)
        element.clear()
        element.send_keys(text)

    def text(self):
        return self.driver.find_element("tag name", "body").text

    def history(self):
        self.driver.get(self.base + "/api/v1/session/history?limit=500")
        entries = json.loads(self.driver.find_element("tag name", "body").text)["entries"]
        return entries

    def onboard(self, name="Ada Lovelace"):
        self.open("/")
        self.wait_for_path("/onboarding/login")
        self.type("name", name)
        self.click_button("userIsLoggedIn")
        self.wait_for_path("/onboarding/apikey")
        self.type("apiKey", "demo-key")
        self.click_button("apiKeyIsFilledIn")

    def without_live_tabs(self):
        """Pages in this browser open no event stream from now on (no `EventSource`): Chromium
        keeps a `no-store` page in its back/forward cache only when its scripts made no network
        request, so this is a browser whose cache restores the demo's pages."""
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.EventSource;"})

    def tree_top(self):
        """The URL of the top page of this browser's session, as the server's API says (read
        beside the browser, with its cookie: the browser's page stays as it is)."""
        cookie = self.driver.get_cookie("flowserver_session")
        if cookie is None:
            return None
        request = urllib.request.Request(self.base + "/api/v1/session", headers={"Cookie": f"flowserver_session={cookie['value']}"})
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return json.loads(response.read())["top"]["url"]
        except urllib.error.HTTPError:
            return None

    def assert_tree_follows(self, seconds=5):
        """The session's top page becomes the page in the address bar within `seconds` (a page
        restored from the back/forward cache first asks, then loads itself again)."""
        deadline = time.monotonic() + seconds
        while True:
            path, top = self.path().split("?")[0], self.tree_top()
            if top == path and self.driver.execute_script("return document.readyState") == "complete":
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the address bar shows {path}, the session's tree {top}")
            time.sleep(0.05)

    def back(self):
        self.driver.back()
        self.assert_tree_follows()

    def forward(self):
        self.driver.forward()
        self.assert_tree_follows()

    def refresh(self):
        self.driver.refresh()
        self.assert_tree_follows()

    def screenshot(self, name):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))


@pytest.fixture
def demo(browser, base_url):
    return Demo(browser, base_url)


def banner_after_a_step_in_another_tab(browser, base_a, base_b):
    """Live tabs: onboards in a first tab on `base_a`, opens the wishlist in a second tab on
    `base_b` and picks a movie there, then waits (5 s at most) for the first tab's banner. Answers
    the first tab's `Demo` and the seconds from the step to the banner."""
    first = Demo(browser, base_a)
    first.onboard()
    first.wait_for_path("/wishlist")
    first_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    second = Demo(browser, base_b)
    second.open("/wishlist")
    second.wait_for_path("/wishlist")
    second.click_link("Alien")
    second.wait_for_path("/movies/1")
    stepped = time.monotonic()
    browser.switch_to.window(first_tab)
    WebDriverWait(browser, 5, poll_frequency=0.02).until(lambda d: d.find_elements("css selector", ".live-banner a"))
    return first, time.monotonic() - stepped
