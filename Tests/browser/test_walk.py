"""Seeded random walks through the Movies demo in Chromium with its default settings (the
back/forward cache on): links, forms with valid and invalid input, Back, Forward, Refresh, deep
links, and a second tab that acts. After every action: the answer is below 500, the page is not
empty, and the session's tree, read through the API beside the browser, has the page in the
address bar on top — or, for an address that is no page of the tree and no route (Back to a
closed modal's page, a movie that does not exist), the page is the 404 that links to the top.
"""
import random
import time

import pytest
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

from conftest import Demo

# Seed 42 walks a browser without live tabs, whose back/forward cache then keeps the pages.
SEEDS = [11, 23, 42]
ACTIONS = 60
DEEP_LINKS = [f"/movies/{n}" for n in range(1, 13)] + [f"/cast/{n}" for n in (1, 4, 7, 12)] + ["/settings", "/movies/999999"]


class Walk:
    def __init__(self, demo, seed):
        self.demo, self.driver = demo, demo.driver
        self.random = random.Random(seed)
        self.log = []

    def navigating(self, act):
        """Runs `act`, which leaves the page, and waits for the next document to be complete."""
        self.driver.execute_script("window.flowserverOldPage = true")
        act()
        WebDriverWait(self.driver, 10, ignored_exceptions=[WebDriverException]).until(
            lambda d: d.execute_script("return !window.flowserverOldPage && document.readyState === 'complete'"))

    def old_page(self):
        try:
            return self.driver.execute_script("return window.flowserverOldPage === true")
        except WebDriverException:
            return False  # mid-navigation

    def scope(self):
        """What the user can click: the modal when one is shown, else the page."""
        modals = self.driver.find_elements("css selector", ".modal")
        return modals[0] if modals else self.driver

    def links(self):
        found = []
        for link in self.scope().find_elements("css selector", "a[href]"):
            href = link.get_attribute("href") or ""
            path = href.replace(self.demo.base, "")
            if href.startswith(self.demo.base + "/") and not path.startswith(("/_inspector", "/api/", "/public/")):
                found.append((link, path))
        return found

    def buttons(self):
        return self.scope().find_elements("css selector", "button[name=_step]")

    def act(self):
        path = self.demo.path()
        weights = {"link": 5 if self.links() else 0, "form": 3 if self.buttons() else 0, "back": 2, "forward": 1,
                   "refresh": 0 if path.startswith("/_step") else 1, "deep link": 1, "tab": 1}
        action = self.random.choices(list(weights), weights=list(weights.values()))[0]
        if action == "link" and self.links():
            link, target = self.random.choice(self.links())
            self.log.append(f"{path}: link {target}")
            self.navigating(link.click)
        elif action == "form" and self.buttons():
            button = self.random.choice(self.buttons())
            form = button.find_element("xpath", "./ancestor::form")
            valid = self.random.random() < 0.7
            for field in form.find_elements("css selector", "input[type=text], input:not([type]), textarea"):
                field.clear()
                if valid:
                    field.send_keys(self.random.choice(["Ada", "Grace", "key-42", "Alan Turing"]))
            self.log.append(f"{path}: form {button.get_attribute('value')} ({'valid' if valid else 'empty'})")
            self.navigating(button.click)
        elif action in ("back", "forward"):
            # A mark on this document: still there afterwards, nothing was navigated (no page
            # that way). A page restored from the cache is another document, without it.
            before = self.driver.current_url
            self.driver.execute_script("window.flowserverOldPage = true")
            self.driver.back() if action == "back" else self.driver.forward()
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline and self.driver.current_url == before and self.old_page():
                time.sleep(0.05)
            if not self.driver.current_url.startswith(self.demo.base):
                self.driver.forward()  # before the tab's first page of the app: not the app's to answer
                return False
            if self.driver.current_url == before and self.old_page():
                return False
            self.log.append(f"{path}: {action.capitalize()}")
        elif action == "refresh":  # (not after a POST: its answer would be posted again)
            self.log.append(f"{path}: Refresh")
            self.navigating(self.driver.refresh)
        elif action == "deep link":
            target = self.random.choice(DEEP_LINKS)
            self.log.append(f"{path}: deep link {target}")
            self.navigating(lambda: self.demo.open(target))
        elif action == "tab":
            handles = self.driver.window_handles
            if len(handles) == 1:
                target = self.random.choice(["/", "/wishlist", "/watched", "/trending"] + DEEP_LINKS[:3])
                self.log.append(f"{path}: a second tab opens {target}")
                # Opened by the page, so the tab's history starts at `target` (not at about:blank).
                self.driver.execute_script("window.open(arguments[0])", self.demo.base + target)
                self.driver.switch_to.window([h for h in self.driver.window_handles if h not in handles][0])
                WebDriverWait(self.driver, 10).until(
                    lambda d: d.current_url.startswith(self.demo.base) and d.execute_script("return document.readyState") == "complete")
            else:
                other = [h for h in handles if h != self.driver.current_window_handle][0]
                self.driver.switch_to.window(other)
                self.log.append(f"{path}: to the other tab, at {self.demo.path()}")
                return False  # switching acts on nothing: the next action does
        else:
            return False
        return True

    def check(self, seconds=5):
        """Waits until the tab shows the session's top (a page restored from the cache first asks,
        then loads itself again), or the 404 that links to the top."""
        deadline = time.monotonic() + seconds
        while True:
            state = self.driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0];"
                "return [n ? n.responseStatus : 0, document.readyState, document.body ? document.body.innerText : '']")
            status, ready, text = state
            path = self.demo.path().split("?")[0]
            if path == "/_step" and status == 0:
                return  # Back or Forward to a form's answer: the browser asks before posting again, no request
            top = self.demo.tree_top()
            assert status < 500, f"answered {status}"
            if ready == "complete":
                assert text.strip(), "an empty page"
                if "There is no page at" in text and top and f'href="{top}"' in self.driver.page_source:
                    return
                if top == path:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"the address bar shows {path} (answered {status}), the session's tree {top}")
            time.sleep(0.05)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_walk_keeps_the_tree_on_the_address_bar(browser, base_url, seed):
    demo = Demo(browser, base_url)
    if seed == 42:
        demo.without_live_tabs()
    demo.onboard()
    demo.wait_for_path("/wishlist")
    walk = Walk(demo, seed)
    acted = 0
    while acted < ACTIONS:
        if not walk.act():
            continue
        acted += 1
        try:
            walk.check()
        except AssertionError as failure:
            raise AssertionError(f"seed {seed}, action {acted}: {failure}\n" + "\n".join(walk.log[-12:])) from None
    kinds = {kind: sum(1 for line in walk.log if f": {kind}" in line) for kind in ["link", "form", "Back", "Forward", "Refresh", "deep link"]}
    print(f"seed {seed}: {kinds}, a second tab {'opened' if any('second tab' in line for line in walk.log) else 'not opened'}")
    assert kinds["Back"] >= 3 and kinds["link"] >= 10, f"a walk with too few of some actions: {kinds}"
