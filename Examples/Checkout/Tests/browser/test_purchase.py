"""The checkout in a real headless Chromium (Debian's, default settings): a whole purchase with an
invalid form and Back in the middle, the server's own state (its JSON API) checked after every
action; the order's link in a fresh browser; and what every FlowServer app gets without writing it:
no WCAG 2.1 A/AA violation (axe-core) and no Content-Security-Policy violation on any page, and
FlowServer's header policy (DrHEADer with FlowServer's rules) on every kind of answer.

Run by `make example-tests` with CHECKOUT_BIN set to the built `checkout` executable."""
import contextlib
import importlib.util
import json
import os
import pathlib
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import yaml
from drheader import Drheader
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.support.ui import WebDriverWait

PACKAGE = pathlib.Path(__file__).resolve().parents[2]
# FlowServer's header policy, as DrHEADer rules (in the FlowServer repository, two folders up).
HEADER_RULES = yaml.safe_load((PACKAGE.parents[1] / "Tests" / "browser" / "security-headers.yml").read_text())
# axe-core as the PyPI package axe-playwright-python ships it (only its axe.min.js is used).
AXE = pathlib.Path(importlib.util.find_spec("axe_playwright_python").submodule_search_locations[0]) / "axe.min.js"


@contextlib.contextmanager
def checkout_server():
    """`checkout` on a free port of 127.0.0.1, memory store, run from the package's folder (so its
    Templates/ are found as they are by `make run-example`)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    binary = os.environ.get("CHECKOUT_BIN") or str(PACKAGE / ".build" / "debug" / "checkout")
    process = subprocess.Popen([binary, "--port", str(port), "--store", "memory"], cwd=PACKAGE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("listening on"), f"checkout did not start: {line!r}"
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        assert process.wait(timeout=15) == 0


def chromium():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1000,900", "--disable-dev-shm-usage"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.binary_location = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    return webdriver.Chrome(service=webdriver.ChromeService(os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")),
                            options=options)


class Shopper:
    """One browser on the checkout, and the server's view of its session."""

    def __init__(self, driver, base):
        self.driver, self.base = driver, base
        self.violations = {}

    def path(self):
        return self.driver.current_url.replace(self.base, "").split("?")[0]

    def open(self, path):
        self.driver.get(self.base + path)

    def wait_for(self, path):
        WebDriverWait(self.driver, 10).until(lambda d: self.path() == path)

    def act(self, click):
        """Runs `click` and waits for the new document it leads to."""
        self.driver.execute_script("window.checkoutOldPage = true")
        click()
        WebDriverWait(self.driver, 10, ignored_exceptions=[WebDriverException]).until(
            lambda d: d.execute_script("return !window.checkoutOldPage && document.readyState === 'complete'"))

    def link(self, selector):
        self.act(lambda: self.driver.find_element("css selector", selector).click())

    def submit(self, step, **fields):
        for name, value in fields.items():
            element = self.driver.find_element("css selector", f"input[name={name}]")
            if element.get_attribute("type") == "radio":
                self.driver.find_element("css selector", f"input[name={name}][value={value}]").click()
            else:
                element.clear()
                element.send_keys(value)
        self.act(lambda: self.driver.find_element("css selector", f"button[value={step}]").click())

    def text(self):
        return self.driver.find_element("tag name", "body").text

    def session(self):
        """`GET /api/v1/session` with this browser's cookie, beside the browser."""
        cookie = self.driver.get_cookie("flowserver_session")
        request = urllib.request.Request(self.base + "/api/v1/session",
                                         headers={"Cookie": f"flowserver_session={cookie['value']}"})
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())

    def assert_server_at(self, path, seconds=5):
        """The session's top page on the server is `path`, the page the address bar shows (after
        Back, the page's script makes the visit the server would have seen: allow it a moment)."""
        deadline = time.monotonic() + seconds
        while True:
            top = self.session()["top"]["url"]
            if top == path == self.path():
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"the address bar shows {self.path()}, the server's tree {top}, expected {path}")
            time.sleep(0.05)

    def check_page(self, name):
        """axe-core's WCAG 2.1 A/AA rules and the console's CSP reports on the page shown."""
        self.driver.execute_script(AXE.read_text())
        found = self.driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })
              .then((r) => done(r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)))
              .catch((e) => done(["axe failed: " + e]));
            """)
        found += [entry["message"] for entry in self.driver.get_log("browser") if "Content Security Policy" in entry["message"]]
        if found:
            self.violations[f"{name} {self.path()}"] = found


@pytest.fixture(scope="module")
def base_url():
    with checkout_server() as url:
        yield url


@pytest.fixture
def shopper(base_url):
    driver = chromium()
    driver.set_script_timeout(30)
    yield Shopper(driver, base_url)
    driver.quit()


def test_a_whole_purchase_with_back_in_the_middle(shopper, base_url):
    s = shopper
    s.open("/")
    s.wait_for("/cart")
    s.assert_server_at("/cart")
    s.check_page("empty cart")
    s.link("a[href*='productIsAdded?id=tea']")
    s.link("a[href*='productIsAdded?id=mug']")
    assert "Green tea, 100 g × 1" in s.text() and "Stoneware mug × 1" in s.text() and "€20.50" in s.text()
    assert s.session()["top"]["url"] == "/cart"
    s.check_page("cart")

    s.link("a[href*='checkoutIsRequired']")
    s.assert_server_at("/checkout/address")
    s.submit("addressIsEntered", name="Ada Lovelace", street="", postcode="N1 9GU", city="London")
    assert "Enter the street and number." in s.text()
    # The invalid form changed nothing; the browser is back on the page (post/redirect/get).
    s.assert_server_at("/checkout/address")
    s.check_page("address with an error")
    s.submit("addressIsEntered", street="1 Analytical Row")
    s.assert_server_at("/checkout/shipping")
    s.check_page("shipping")
    s.submit("shippingIsChosen", method="express")
    s.assert_server_at("/checkout/payment")
    s.check_page("payment")
    s.submit("paymentIsChosen", method="invoice", email="ada@example.com")
    s.assert_server_at("/checkout/review")
    assert "€30.40" in s.text()  # 6.50 + 14.00 + express 9.90
    s.check_page("review")

    # Back twice, to shipping: the server's tree follows the address bar.
    s.driver.back()
    s.assert_server_at("/checkout/payment")
    s.driver.back()
    s.assert_server_at("/checkout/shipping")
    s.submit("shippingIsChosen", method="standard")
    s.assert_server_at("/checkout/payment")
    assert s.driver.find_element("id", "email").get_attribute("value") == "ada@example.com"  # kept
    s.submit("paymentIsChosen")
    s.assert_server_at("/checkout/review")
    assert "Standard, 3–5 days" in s.text() and "€20.50" in s.text()

    s.link("a[href*='helpIsRequired']")
    s.assert_server_at("/help")
    s.check_page("help (modal)")
    s.link(".modal .close")
    s.assert_server_at("/checkout/review")

    s.submit("orderIsPlaced")
    order_path = s.path()
    assert order_path.startswith("/orders/") and "Your order is confirmed" in s.text()
    s.assert_server_at(order_path)
    s.check_page("order")

    # Back from the order: the wizard left the session when the order was placed, so the review
    # page is gone (404, with a way back to the order) and cannot place the order twice.
    s.driver.back()
    WebDriverWait(s.driver, 10).until(lambda d: "There is no page at /checkout/review." in s.text())
    assert s.session()["top"]["url"] == order_path
    s.link("main a[href='%s']" % order_path)
    s.assert_server_at(order_path)
    s.link("a[href*='cartIsRequired']")
    s.assert_server_at("/cart")
    assert "Your cart is empty." in s.text() and f"Order {order_path.split('/')[-1]}" in s.text()

    # The order's link in a fresh browser.
    other = Shopper(chromium(), base_url)
    try:
        other.open(order_path)
        other.wait_for(order_path)
        assert "Stoneware mug × 1" in other.text() and "€20.50" in other.text()
        other.assert_server_at(order_path)
    finally:
        other.driver.quit()
    assert s.violations == {}


def test_a_form_error_leaves_no_post_in_the_history(shopper):
    """Empty, then valid, then Back, then Refresh: every one a page of the app (never Chromium's
    "Confirm Form Resubmission"), the server's tree where the address bar is after each."""
    s = shopper
    s.open("/")
    s.wait_for("/cart")
    s.link("a[href*='productIsAdded?id=tea']")
    s.link("a[href*='checkoutIsRequired']")
    s.assert_server_at("/checkout/address")
    s.submit("addressIsEntered")
    assert "Enter who receives the parcel." in s.text()
    s.assert_server_at("/checkout/address")
    s.submit("addressIsEntered", name="Ada Lovelace", street="1 Analytical Row", postcode="N1 9GU", city="London")
    s.assert_server_at("/checkout/shipping")
    s.act(s.driver.back)
    s.assert_server_at("/checkout/address")
    assert "Delivery address" in s.text()
    assert "Enter who receives the parcel." not in s.text(), "the failed form is forgotten once the session moved"
    s.act(s.driver.refresh)
    s.assert_server_at("/checkout/address")
    assert "ERR_CACHE_MISS" not in s.driver.page_source and "Confirm Form Resubmission" not in s.driver.page_source


def test_checkout_with_an_empty_cart_is_refused_with_a_notice(shopper):
    s = shopper
    s.open("/")
    s.wait_for("/cart")
    s.link("a[href*='checkoutIsRequired']")
    s.assert_server_at("/notice")
    assert "Your cart is empty. Add a product before checking out." in s.text()
    s.check_page("notice (modal)")
    s.link(".modal .close")
    s.assert_server_at("/cart")
    s.open("/orders/NOSUCHORDR")
    assert "Not found" in s.text()
    s.check_page("404")
    assert s.violations == {}


def test_every_kind_of_answer_follows_flowservers_header_policy(base_url):
    """The headers come from FlowServer, not from this app: DrHEADer with FlowServer's rules finds
    nothing on the app's pages, a modal, a 404, a static file and the API."""
    class NoRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *arguments):
            return None

    opener = urllib.request.build_opener(NoRedirects)

    def headers_of(path, cookie=None):
        request = urllib.request.Request(base_url + path, headers={"Cookie": cookie} if cookie else {})
        try:
            with opener.open(request, timeout=5) as response:
                received = response.headers
        except urllib.error.HTTPError as error:
            received = error.headers
        found = {name: value for name, value in received.items() if name.lower() != "set-cookie"}
        found["set-cookie"] = received.get_all("Set-Cookie") or []
        return found

    first = headers_of("/cart")
    cookie = first["set-cookie"][0].split(";")[0]
    headers_of("/_step/checkoutIsRequired", cookie)  # an empty cart: the notice is presented
    pages, others = HEADER_RULES["pages"], HEADER_RULES["other answers"]
    report = {}
    for name, headers, rules in [
        ("cart page", first, pages),
        ("notice (modal) page", headers_of("/notice", cookie), pages),
        ("404 page", headers_of("/orders/NOSUCHORDR", cookie), pages),
        ("static file", headers_of("/public/site.css"), others),
        ("API", headers_of("/api/v1/session", cookie), others),
    ]:
        found = [f"{item['rule']}: {item['message']}" for item in Drheader(headers=headers).analyze(rules=rules)]
        if found:
            report[name] = found
    assert not report, report
