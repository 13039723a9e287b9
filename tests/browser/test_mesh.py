"""Bottles across boxes in the page: a visitor sends a bottle to the other box of the mesh, a
visitor there opens it by its share code, and the first visitor joins its chat from here.

Two real driftd processes on the simulated radio (scripts/browser-tests.sh starts the peer).
"""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from helpers import accessibility_problems, by_id, click, goto, open_page, shot, tap, tap_selector, type_into, wait, wait_text

SECRET = "A letter that crossed the field"
LINE = "Hello from the other box"


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(1)
    raise AssertionError(f"timed out after {timeout} s: {what}")


def test_a_bottle_sent_to_another_box_opens_there_and_its_chat_is_joined_from_here(base_url, peer_url, browser_factory, artifacts):
    here = browser_factory()
    open_page(here, base_url)

    # The drop form offers the other box once its box info has arrived over the radio.
    def other_box_offered():
        goto(here, "home")
        goto(here, "drop")
        time.sleep(1)
        return here.find_element(By.ID, "drop-where-box").is_displayed()
    wait_until(other_box_offered, 120, "the drop form never offered another box")
    type_into(here, "drop-text", SECRET)
    Select(by_id(here, "drop-where")).select_by_value("manual")
    Select(by_id(here, "drop-to")).select_by_value("Drift Box (peer)")
    assert accessibility_problems(here) == []
    shot(here, artifacts, "30-send-to-another-box")
    click(here, "drop-submit")
    wait_text(here, "drop-result", "travelling to Drift Box (peer)")
    code = here.find_element(By.ID, "drop-code").text.strip()
    assert len(code.replace("-", "")) == 8, f"no share code shown: {code!r}"
    goto(here, "mine")
    wait_text(here, "sent-list", "Drift Box (peer)")
    shot(here, artifacts, "31-sent-list")

    # At the other box a visitor finds it by its share code once it has arrived, and opens it.
    there = browser_factory()
    open_page(there, peer_url)

    def arrived():
        goto(there, "home")
        type_into(there, "share-code", code)
        tap(there, there.find_element(By.CSS_SELECTOR, "#code-form button[type=submit]"))
        time.sleep(1.5)
        return there.execute_script("return location.hash.startsWith('#b/')")
    wait_until(arrived, 150, f"bottle {code} never arrived at the other box")
    wait_text(there, "bottle-title", code.replace("-", ""))
    click(there, "open-submit")
    wait_text(there, "content-text", SECRET)
    by_id(there, "chat-form")
    shot(there, artifacts, "32-opened-at-the-other-box")

    # Back here, the chat is listed under "Chats at other boxes"; join it and post a line.
    def listed():
        goto(here, "drop")
        goto(here, "home")
        time.sleep(1)
        return here.find_element(By.ID, "remote-box").is_displayed()
    wait_until(listed, 120, "the opened chat was never listed here")
    # The list is re-rendered as the other box's listing arrives: find the button as it is now.
    tap_selector(here, "#remote-list li button")
    by_id(here, "remote-chat")
    type_into(here, "remote-text", LINE)
    tap(here, here.find_element(By.CSS_SELECTOR, "#remote-form button[type=submit]"))

    # This box took the line for the mesh (the field empties), or the page says why not.
    def taken():
        refused = here.find_element(By.ID, "remote-error").text.strip()
        assert not refused, f"this box refused the line: {refused}"
        return here.find_element(By.ID, "remote-text").get_attribute("value") == ""
    wait_until(taken, 30, "the line was never taken for the mesh")

    # The line reaches the chat at the other box, live, and comes back into the replica here.
    wait_text(there, "chat-messages", LINE, timeout=150)
    wait_text(here, "remote-lines", LINE, timeout=150)
    assert accessibility_problems(here) == []
    shot(here, artifacts, "33-remote-chat")
    shot(there, artifacts, "34-line-from-the-other-box")
    click(here, "remote-leave")
    click(there, "chat-leave")
