"""Chromium's speculative loads leave the session alone (issue "Browser history stays true",
point 2): a page whose Speculation Rules prefetch one link and prerender another. The server sees
the speculative requests and declines them (403, counted in /metrics), the tree stays where it is
until the click, and the click still reaches the server and moves the tree."""
import re
import time
import urllib.request

from selenium.webdriver.support.ui import WebDriverWait

from conftest import Demo


def declined_requests(base):
    """How many page and step requests the server answered 403 so far."""
    with urllib.request.urlopen(base + "/metrics", timeout=5) as response:
        text = response.read().decode()
    counts = re.findall(r'flowserver_http_requests_total\{route="(?:page|step)",status="403"\} (\d+)', text)
    return sum(int(count) for count in counts)


def speculate(browser, kind):
    """Speculation Rules on the page shown, as an app might write them, for the first movie link:
    `kind` is prefetch or prerender. Answers that link's address."""
    link = browser.find_element("css selector", "a[href*='/_step/movieIsPicked']").get_attribute("href")
    browser.execute_script("""
        const rules = document.createElement("script");
        rules.type = "speculationrules";
        rules.text = JSON.stringify({[arguments[0]]: [{source: "list", urls: [arguments[1]], eagerness: "immediate"}]});
        document.head.append(rules);
    """, kind, link)
    return link


def test_prefetch_and_prerender_leave_the_tree_until_the_click(browser, base_url):
    demo = Demo(browser, base_url)
    # The demo's CSP allows no inline script: lifted for these pages, to add the rules (what is
    # checked is the server's answer, not the policy).
    browser.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})
    demo.onboard()
    demo.wait_for_path("/wishlist")
    for kind in ("prefetch", "prerender"):
        demo.open("/wishlist")
        declined = declined_requests(base_url)
        link = speculate(browser, kind)
        deadline = time.monotonic() + 5
        while declined_requests(base_url) == declined and time.monotonic() < deadline:
            time.sleep(0.1)
        assert declined_requests(base_url) > declined, f"Chromium sent the {kind} and it was declined"
        assert demo.tree_top() == "/wishlist", f"the {kind} moved the tree"
        browser.find_element("css selector", f"a[href='{link.replace(base_url, '')}']").click()
        WebDriverWait(browser, 10).until(lambda d: d.current_url.replace(base_url, "").startswith("/movies/"))
        demo.assert_tree_follows()
