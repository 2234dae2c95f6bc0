"""The Movies demo in a real headless Chromium: clicks, typing, Back/Forward/Refresh."""
import time

from selenium.webdriver.support.ui import WebDriverWait

from conftest import Demo, make_driver


def test_onboarding_with_a_validation_error_first(demo):
    demo.open("/")
    demo.wait_for_path("/onboarding/login")
    demo.click_button("userIsLoggedIn")
    assert "Enter your name to continue." in demo.text()
    demo.screenshot("onboarding-error")
    demo.type("name", "Ada Lovelace")
    demo.click_button("userIsLoggedIn")
    demo.wait_for_path("/onboarding/apikey")
    demo.type("apiKey", "demo-key")
    demo.click_button("apiKeyIsFilledIn")
    demo.wait_for_path("/wishlist")
    assert "Wishlist" in demo.text() and "Blade Runner" in demo.text()
    assert "Close" not in demo.text()
    demo.screenshot("wishlist")


def test_a_form_error_leaves_no_post_in_the_history(demo):
    """Empty, then valid, then Back, then Refresh: pages of the demo every time (never Chromium's
    "Confirm Form Resubmission"), the server's tree where the address bar is after each."""
    demo.open("/")
    demo.wait_for_path("/onboarding/login")
    demo.click_button("userIsLoggedIn")
    assert demo.path() == "/onboarding/login", "back on the page, not at /_step"
    assert "Enter your name to continue." in demo.text()
    demo.assert_tree_follows()
    demo.type("name", "Ada Lovelace")
    demo.click_button("userIsLoggedIn")
    demo.wait_for_path("/onboarding/apikey")
    demo.assert_tree_follows()
    demo.back()
    assert demo.path() == "/onboarding/login" and "Enter your name to continue." not in demo.text()
    demo.refresh()
    assert demo.path() == "/onboarding/login"
    source = demo.driver.page_source
    assert "ERR_CACHE_MISS" not in source and "Confirm Form Resubmission" not in source
    assert "Log in" in demo.text() or "name" in demo.text().lower()


def test_tab_switching(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.click_link("Watched")
    demo.wait_for_path("/watched")
    assert "The Grand Budapest Hotel" in demo.text()
    demo.click_link("Trending")
    demo.wait_for_path("/trending")
    assert "MOVIES" in demo.text().upper() and "Sigourney Weaver" in demo.text()
    demo.screenshot("trending")
    demo.click_link("Wishlist")
    demo.wait_for_path("/wishlist")


def test_movie_cast_back_back_forward(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.click_link("Blade Runner")
    demo.wait_for_path("/movies/2")
    demo.screenshot("movie")
    demo.click_link("Harrison Ford")
    demo.wait_for_path("/cast/4")
    assert "Harrison Ford" in demo.text()
    demo.back()
    demo.wait_for_path("/movies/2")
    assert "Blade Runner" in demo.text() and "1982" in demo.text()
    demo.back()
    demo.wait_for_path("/wishlist")
    assert "Wishlist" in demo.text()
    demo.forward()
    demo.wait_for_path("/movies/2")
    assert "Blade Runner" in demo.text()
    demo.forward()
    demo.wait_for_path("/cast/4")
    assert "Harrison Ford" in demo.text()


def test_back_from_the_back_forward_cache_moves_the_tree(demo):
    """Chromium restores pages from its back/forward cache without asking the server; the
    restored page makes the visit itself. (With live tabs, a page's event stream keeps it out of
    Chromium's cache, and Back reaches the server: so this browser has none.)"""
    demo.without_live_tabs()
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.assert_tree_follows()
    # Notes in this tab's session storage each time a page is restored from the cache.
    demo.driver.execute_script(
        "window.addEventListener('pageshow', (e) => { if (e.persisted) sessionStorage.setItem('restored', location.pathname) })")
    demo.click_link("Alien")
    demo.wait_for_path("/movies/1")
    demo.back()
    assert demo.driver.execute_script("return sessionStorage.getItem('restored')") == "/wishlist", "not restored from the cache"
    assert "Wishlist" in demo.text()
    # Back to a modal page that was closed: it left the tree and no route leads to it, so the
    # server's answer, as without the cache, is its 404 page linking to the top; the tree stays.
    demo.follow("About", "/about")
    demo.follow("Close", "/wishlist")
    demo.driver.back()
    demo.wait_for_path("/about")
    WebDriverWait(demo.driver, 5).until(lambda d: "There is no page at /about." in demo.text())
    assert demo.tree_top() == "/wishlist"
    demo.follow("Back to where you were", "/wishlist")
    demo.assert_tree_follows()


def test_refresh_changes_nothing(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.click_link("Alien")
    demo.wait_for_path("/movies/1")
    before = len(demo.history())
    demo.open("/movies/1")
    demo.refresh()
    demo.refresh()
    assert "Alien" in demo.text()
    assert len(demo.history()) == before


def test_settings_modal_its_sections_close_and_done(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.click_link("Settings")
    demo.wait_for_path("/settings")
    # A modal over the wishlist, which stays in view (dimmed) under it.
    assert demo.driver.find_elements("css selector", "[role=dialog]"), "settings open as a modal"
    assert "Wishlist" in demo.text()
    demo.click_link("Close")
    demo.wait_for_path("/wishlist")
    demo.click_link("Settings")
    demo.wait_for_path("/settings")
    demo.click_link("Login")
    demo.wait_for_path("/settings/login")
    demo.screenshot("settings-login")
    demo.click_link("Back")
    demo.wait_for_path("/settings")
    demo.click_link("Done")
    demo.wait_for_path("/wishlist")
    assert "Settings" in demo.text() and not demo.driver.find_elements("css selector", "[role=dialog]")


def test_settings_save_preferences_in_the_session(demo):
    demo.onboard("Ada Lovelace")
    demo.wait_for_path("/wishlist")
    assert "Welcome back, Ada Lovelace." in demo.text()
    demo.follow("Settings", "/settings")
    assert "Signed in as Ada Lovelace" in demo.text()
    demo.follow("Login", "/settings/login")
    assert demo.driver.find_element("id", "settings-name").get_attribute("value") == "Ada Lovelace"
    demo.type("settings-name", "Grace Hopper")
    demo.click_button("userIsLoggedIn")
    demo.wait_for_path("/settings")
    assert "Signed in as Grace Hopper" in demo.text()
    demo.screenshot("settings")
    demo.follow("Done", "/wishlist")
    assert "Welcome back, Grace Hopper." in demo.text()


def test_about_alternates_with_unauthorized(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.click_link("About")
    demo.wait_for_path("/about")
    assert "Every link and form on this site is a step" in demo.text()
    demo.click_link("Close")
    demo.wait_for_path("/wishlist")
    demo.click_link("About")
    demo.wait_for_path("/alert")
    assert "not authorized" in demo.text()
    demo.screenshot("unauthorized")
    demo.click_link("Close")
    demo.wait_for_path("/wishlist")
    demo.click_link("About")
    demo.wait_for_path("/about")


def test_logout_then_onboarding_again(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.click_button("logoutIsRequired")
    demo.wait_for_path("/onboarding/login")
    assert "Welcome to FlowServer Movies" in demo.text()


def test_deep_link_in_a_fresh_browser_lands_after_onboarding(demo):
    demo.open("/movies/3")
    demo.wait_for_path("/onboarding/login")
    demo.type("name", "Grace Hopper")
    demo.click_button("userIsLoggedIn")
    demo.wait_for_path("/onboarding/apikey")
    demo.type("apiKey", "k")
    demo.click_button("apiKeyIsFilledIn")
    demo.wait_for_path("/movies/3")
    assert "The Matrix" in demo.text()


def test_unknown_movie_is_a_404_that_links_to_the_top(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.open("/movies/999999")
    assert "There is no page at /movies/999999." in demo.text()
    demo.click_link("Back to where you were")
    demo.wait_for_path("/wishlist")


def test_two_windows_the_stale_one_acts_and_sees_the_notice(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.click_link("Inception")
    demo.wait_for_path("/movies/5")
    first = demo.driver.current_window_handle
    demo.driver.switch_to.new_window("tab")
    demo.open("/wishlist")                      # the second window goes back to the list
    demo.wait_for_path("/wishlist")
    demo.click_link("Arrival")                  # and opens another movie: Inception leaves the tree
    demo.wait_for_path("/movies/4")
    demo.driver.switch_to.window(first)         # the first window still shows Inception
    demo.click_link("Leonardo DiCaprio")
    demo.wait_for_path("/movies/4")
    assert "no longer current" in demo.text()
    demo.screenshot("stale-notice")


def onboarded_on_keanu_reeves(demo):
    """Onboards, then opens The Matrix from the wishlist and Keanu Reeves from its cast."""
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.click_link("The Matrix")
    demo.wait_for_path("/movies/3")
    demo.click_link("Keanu Reeves")
    demo.wait_for_path("/cast/7")


def test_the_inspector_shows_the_history_of_what_was_clicked(demo):
    onboarded_on_keanu_reeves(demo)
    demo.open("/_inspector")
    text = demo.text()
    assert "movieIsPicked?withId=3" in text and "castIsPicked?withId=7" in text
    assert "userIsLoggedIn?name=Ada Lovelace" in text
    assert '"onboarded":true' in text and '"userName":"Ada Lovelace"' in text
    demo.screenshot("inspector")


def test_the_inspector_travels_to_any_entry_and_back_without_changing_the_session(demo):
    onboarded_on_keanu_reeves(demo)
    picked = next(entry for entry in demo.history() if entry["step"] and entry["step"]["name"] == "movieIsPicked")
    demo.open("/_inspector")
    demo.driver.find_element("css selector", f'a[href="/_inspector/history/{picked["seq"]}"]').click()
    demo.wait_for_path(f"/_inspector/history/{picked['seq']}")
    text = demo.text()
    assert f"Entry {picked['seq']}" in text and "movieIsPicked?withId=3" in text
    # The page then on top, read-only: the movie page with its cast, its links inert.
    past = demo.driver.find_element("css selector", ".past-page")
    assert "Keanu Reeves" in past.text
    assert past.find_elements("css selector", "a[href]") == []
    assert "pushed cast#" in text  # what came after: the cast page
    demo.click_link(f"entry {picked['seq'] + 1} →")
    demo.wait_for_path(f"/_inspector/history/{picked['seq'] + 1}")
    assert "Nothing changed since." in demo.text()
    # Looking back changed nothing: the session is still on the cast page, its version unmoved.
    assert demo.tree_top() == "/cast/7"
    demo.open("/_inspector/graph")
    drawn = demo.driver.find_element("css selector", ".graph svg[role=img]")
    assert drawn.is_displayed() and drawn.size["width"] > 300 and drawn.size["height"] > 200
    marked = demo.driver.find_element("css selector", "[id='graph-wishlist.cast'] rect")
    assert marked.get_attribute("stroke") == "#b3261e", "this session's page is outlined in the drawing"
    demo.driver.find_element("css selector", "details summary").click()
    listed = demo.driver.find_element("css selector", ".box.page.top")
    assert listed.get_attribute("id") == "wishlist.cast" and "this session's page" in listed.text
    demo.screenshot("inspector-entry")


def test_the_phone_layout(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    demo.driver.set_window_size(390, 844)
    demo.open("/wishlist")
    demo.screenshot("phone-wishlist")
    assert demo.driver.execute_script("return document.documentElement.scrollWidth") <= 400


def test_live_tabs_a_step_in_one_tab_shows_a_banner_in_the_other(demo):
    demo.onboard()
    demo.wait_for_path("/wishlist")
    first = demo.driver.current_window_handle
    demo.driver.switch_to.new_window("tab")
    demo.open("/wishlist")
    demo.wait_for_path("/wishlist")
    demo.click_link("Alien")
    demo.wait_for_path("/movies/1")
    stepped = time.monotonic()
    demo.driver.switch_to.window(first)
    WebDriverWait(demo.driver, 5, poll_frequency=0.02).until(lambda d: d.find_elements("css selector", ".live-banner a"))
    assert time.monotonic() - stepped < 1, "the banner took more than a second"
    assert demo.path() == "/wishlist" and demo.tree_top() == "/movies/1", "the banner changed nothing"
    assert "This page changed in another tab" in demo.text()
    # The wishlist is still in the tree, under the movie: the banner offers to return to it.
    WebDriverWait(demo.driver, 5).until(lambda d: "Return to this page" in demo.text())
    demo.screenshot("live-banner")
    demo.click_link("Return to this page")
    demo.assert_tree_follows()
    assert demo.path() == "/wishlist" and demo.tree_top() == "/wishlist"
    assert not demo.driver.find_elements("css selector", ".live-banner")

