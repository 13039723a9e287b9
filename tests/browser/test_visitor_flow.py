"""Two visitors in two browser sessions: drop, fail, open, chat live, leave, and the bottle dies.

Runs against a real driftd (see conftest.py). The chat countdown is the box's
`limits.chatCountdownSeconds` (30 s in the embedded simulated config).
"""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from conftest import make_png
from helpers import (accessibility_problems, by_id, click, goto, on_item, open_page, shot, tap, type_into,
                     wait, wait_nonempty, wait_text)

SECRET = "Meet me at the old oak when the tide turns"
PASSWORD = "tide-42"


def countdown_seconds(driver):
    limits = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/v1/box', {headers: {Authorization: 'Bearer ' + localStorage.getItem('driftbox.token')}})"
        ".then(r => r.json()).then(b => done(b.limits || {})).catch(() => done({}));")
    return int(limits.get("chatCountdownSeconds") or 30)


def drop_password_bottle(a, tmp_path, artifacts):
    tap(a, a.find_element(By.CSS_SELECTOR, ".tabs button[data-view='drop']"))
    type_into(a, "drop-text", SECRET)
    type_into(a, "drop-hint", "For whoever finds the oak")
    a.find_element(By.ID, "drop-photo").send_keys(make_png(tmp_path / "photo.png"))
    wait(a).until(lambda d: d.execute_script(
        "const i = document.getElementById('drop-photo-preview'); return !i.hidden && i.complete && i.naturalWidth > 0"),
        "the photo preview never showed")
    Select(a.find_element(By.ID, "cond-kind")).select_by_value("password")
    click(a, "cond-add")
    password = a.find_element(By.CSS_SELECTOR, "#cond-list [data-kind='password'] input[data-field='password']")
    password.send_keys(PASSWORD)
    a.find_element(By.CSS_SELECTOR, "#cond-list [data-kind='password'] input[data-field='hint']").send_keys("What the tide is, with its number")
    shot(a, artifacts, "02-drop-form")
    click(a, "drop-submit")
    code = wait_nonempty(a, "drop-code", timeout=60)
    by_id(a, "drop-result")
    shot(a, artifacts, "03-dropped-share-code")
    return code


def test_two_visitors_drop_open_chat_and_the_bottle_dies(base_url, browser_factory, artifacts, tmp_path):
    a = browser_factory()
    open_page(a, base_url)
    shot(a, artifacts, "01-home")
    code = drop_password_bottle(a, tmp_path, artifacts)

    # B finds it in the list of bottles here.
    b = browser_factory()
    open_page(b, base_url)
    card = wait(b, 30).until(lambda d: next((li for li in d.find_elements(By.CSS_SELECTOR, "#bottle-list li")
                                             if code in li.text), False), f"bottle {code} not listed for B")
    shot(b, artifacts, "04-visitor-b-list")
    on_item(b, "#bottle-list li", code, lambda li: tap(b, li.find_element(By.TAG_NAME, "button")))
    wait_text(b, "bottle-title", code)
    bottle_id = b.execute_script("return location.hash.slice(3)")
    assert bottle_id, "the bottle view has no id in its address"
    wait(b).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#bottle-conditions li[data-kind='password']"), "no password condition shown")

    # Wrong password: locked, with the reason shown.
    type_into(b, "open-password", "not-the-password")
    click(b, "open-submit")
    error = wait_text(b, "open-error", "password is not right")
    assert "wrong password" not in error, f"the box's raw reason shown: {error!r}"
    assert b.find_elements(By.CSS_SELECTOR, "#bottle-conditions li.notSatisfied"), "the password condition is not marked as not met"
    shot(b, artifacts, "05-wrong-password")

    # Right password: the content with the image.
    type_into(b, "open-password", PASSWORD)
    click(b, "open-submit")
    wait_text(b, "content-text", SECRET)
    wait(b).until(lambda d: d.execute_script(
        "const i = document.getElementById('content-image'); return !i.hidden && i.complete && i.naturalWidth > 0"),
        "the bottle's image never showed")
    by_id(b, "chat-form")
    shot(b, artifacts, "06-opened-content")

    # A (the creator) opens too and joins the chat.
    goto(a, f"b/{bottle_id}")
    wait_text(a, "bottle-title", code)
    if a.find_element(By.ID, "open-password").is_displayed():
        type_into(a, "open-password", PASSWORD)
    click(a, "open-submit")
    # Without the password the box answers `locked` and the page asks for it.
    wait(a).until(lambda d: d.find_element(By.ID, "chat-form").is_displayed()
                  or d.find_element(By.ID, "open-password").is_displayed(), "A neither joined nor was asked for the password")
    if not a.find_element(By.ID, "chat-form").is_displayed():
        type_into(a, "open-password", PASSWORD)
        click(a, "open-submit")
    by_id(a, "chat-form")
    wait(a).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#chat-present li svg")) >= 2, "A does not see two people present")

    # Typing is shown, then lines arrive live on both sides.
    type_into(a, "chat-text", "Hello from A")
    wait_text(b, "chat-typing", "typing")
    shot(b, artifacts, "07-typing")
    a.find_element(By.ID, "chat-text").send_keys(Keys.ENTER)
    wait_text(b, "chat-messages", "Hello from A")
    type_into(b, "chat-text", "Hi A, B here")
    click(b, "chat-send")
    wait_text(a, "chat-messages", "Hi A, B here")
    wait_text(b, "chat-messages", "Hi A, B here")
    assert a.find_elements(By.CSS_SELECTOR, "#chat-messages li svg rect"), "no generated avatars in the chat"
    assert accessibility_problems(b) == []
    shot(a, artifacts, "08-chat-a")
    shot(b, artifacts, "09-chat-b")

    # Both leave; the chat starts dying and then the bottle is gone for both.
    click(a, "chat-leave")
    by_id(a, "view-home")
    click(b, "chat-leave")
    by_id(b, "view-home")
    countdown = countdown_seconds(b)
    goto(b, f"b/{bottle_id}")
    goto(a, f"b/{bottle_id}")
    wait_text(b, "chat-dying", "disappears in", timeout=20)
    wait_text(a, "chat-dying", "disappears in", timeout=20)
    shot(b, artifacts, "10-dying-countdown")
    started = time.monotonic()
    by_id(b, "bottle-gone", timeout=countdown + 60)
    by_id(a, "bottle-gone", timeout=30)
    assert time.monotonic() - started >= min(countdown - 10, 15) or countdown < 15, "the bottle vanished before its countdown"
    shot(b, artifacts, "11-gone")

    # Gone for good: not listed, share code unknown, not among A's bottles.
    goto(b, "home")
    type_into(b, "share-code", code)
    tap(b, b.find_element(By.CSS_SELECTOR, "#code-form button[type='submit']"))
    wait_text(b, "code-error", "no bottle")
    assert not [li for li in b.find_elements(By.CSS_SELECTOR, "#bottle-list li") if code in li.text]
    goto(a, "mine")
    wait(a).until(lambda d: d.find_element(By.ID, "mine-empty").is_displayed()
                  or not [li for li in d.find_elements(By.CSS_SELECTOR, "#mine-list li") if code in li.text])
