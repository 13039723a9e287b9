"""A visitor's whole journey on a phone held in one hand, at 360×640 and 390×844.

Two visitors (two browser profiles, phone viewports). Every screen is checked the same way:
no horizontal overflow, every interactive element at least 44×44 CSS px, no serious or
critical axe-core violation, and a screenshot in .build/artifacts/browser/. On top:
every error appears on screen where it is shown, the dying countdown is on every screen
while a chat the visitor is in is dying, and an emergency sent with `driftd ctl camp send
emergency` appears as a banner within 5 s without a reload.
"""
import json
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from helpers import (PHONES, as_phone, axe_problems, by_id, click, ctl, fully_on_screen, goto, horizontal_overflow,
                     on_item, open_page, phone_shot, small_targets, tap, type_into, wait, wait_nonempty, wait_on_screen, wait_text)

PASSWORD = "lantern-7"


class Screens:
    """Checks and photographs each screen of one phone size; keeps the axe results."""

    def __init__(self, artifacts, phone):
        self.artifacts, self.phone, self.count, self.axe = artifacts, phone, 0, {}

    def check(self, driver, name, axe=True):
        self.count += 1
        label = f"phone-{self.phone}-{self.count:02d}-{name}"
        time.sleep(0.3)  # let a scroll or a transition settle before the photograph
        phone_shot(driver, self.artifacts, label)
        assert horizontal_overflow(driver) == 0, f"{label}: the page is wider than the screen"
        small = small_targets(driver)
        assert small == [], f"{label}: targets under 44×44 px: {small}"
        if axe:
            problems = axe_problems(driver)
            self.axe[label] = problems
            assert problems == [], f"{label}: axe: {problems}"

    def save(self):
        path = self.artifacts / "axe.json"
        known = json.loads(path.read_text()) if path.exists() else {}
        known.update(self.axe)
        path.write_text(json.dumps(known, indent=1, sort_keys=True))


def dying_bar_on_screen(driver):
    return fully_on_screen(driver, "chat-dying") and "disappears in" in driver.find_element(By.ID, "chat-dying").text


@pytest.mark.parametrize("phone", list(PHONES))
def test_the_whole_journey_on_a_phone(phone, base_url, browser_factory, artifacts, tmp_path):
    width, height = PHONES[phone]
    screens = Screens(artifacts, phone)
    a = as_phone(browser_factory(), width, height)
    b = as_phone(browser_factory(), width, height)
    try:
        # The first screen says what a drift bottle is; "How it works" opens.
        open_page(a, base_url)
        assert "bottle" in by_id(a, "home-title").text.lower()
        screens.check(a, "first-screen")
        tap(a, a.find_element(By.CSS_SELECTOR, "#how summary"))
        wait_text(a, "how", "counts down")
        screens.check(a, "how-it-works")

        # A share code that is not here: the error next to the field, on screen.
        type_into(a, "share-code", "ZZZZ 9999")
        tap(a, a.find_element(By.CSS_SELECTOR, "#code-form button[type='submit']"))
        wait_on_screen(a, "code-error")
        screens.check(a, "unknown-code")

        # Drop: sending an empty form says so next to the message, on screen.
        goto(a, "drop")
        by_id(a, "drop-text")
        click(a, "drop-submit")
        wait_on_screen(a, "drop-text-error")
        screens.check(a, "drop-empty-error")
        # A condition the box would refuse is refused in the page, next to its fields.
        type_into(a, "drop-text", "The lantern is under the third step")
        Select(a.find_element(By.ID, "cond-kind")).select_by_value("temperature")
        click(a, "cond-add")
        click(a, "drop-submit")
        error = a.find_element(By.CSS_SELECTOR, "#cond-list [data-kind='temperature'] .error")
        wait_on_screen(a, error.get_attribute("id"))
        assert "lowest or a highest" in error.text, error.text
        screens.check(a, "drop-condition-error")
        tap(a, a.find_element(By.CSS_SELECTOR, "#cond-list [data-kind='temperature'] button.remove"))
        # Every kind of condition fits the screen, each target big enough.
        for kind in ("daysOfWeek", "solar", "timeOfDay", "password"):
            Select(a.find_element(By.ID, "cond-kind")).select_by_value(kind)
            click(a, "cond-add")
        screens.check(a, "drop-conditions")
        for kind in ("daysOfWeek", "solar", "timeOfDay"):
            tap(a, a.find_element(By.CSS_SELECTOR, f"#cond-list [data-kind='{kind}'] button.remove"))
        a.find_element(By.CSS_SELECTOR, "#cond-list [data-kind='password'] input[data-field='password']").send_keys(PASSWORD)
        a.find_element(By.CSS_SELECTOR, "#cond-list [data-kind='password'] input[data-field='hint']").send_keys("What lights the dark, and a number")
        type_into(a, "drop-hint", "For whoever sits on the steps")
        click(a, "drop-submit")
        code = wait_nonempty(a, "drop-code", timeout=60)
        by_id(a, "drop-copy")
        screens.check(a, "dropped-share-code")

        # B meets it as a teaser on the first screen: the hint, no content.
        open_page(b, base_url)
        card = wait(b).until(lambda d: next((li for li in d.find_elements(By.CSS_SELECTOR, "#bottle-list li") if code in li.text), False),
                             f"bottle {code} is not listed as a teaser")
        assert "third step" not in card.text and "steps" in card.text
        on_item(b, "#bottle-list li", code, lambda li: b.execute_script("arguments[0].scrollIntoView({block: 'center'})", li))
        screens.check(b, "teaser")
        on_item(b, "#bottle-list li", code, lambda li: tap(b, li.find_element(By.TAG_NAME, "button")))
        wait_text(b, "bottle-title", code)
        screens.check(b, "locked-bottle")
        type_into(b, "open-password", "not-it")
        click(b, "open-submit")
        wait_on_screen(b, "open-error")
        assert "password is not right" in b.find_element(By.ID, "open-error").text
        screens.check(b, "wrong-password")
        type_into(b, "open-password", PASSWORD)
        click(b, "open-submit")
        wait_text(b, "content-text", "third step")
        by_id(b, "chat-form")
        screens.check(b, "opened")
        bottle_id = b.execute_script("return location.hash.slice(3)")

        # The chat: a message bar at the bottom; an empty line is refused on screen.
        click(b, "chat-send")
        wait_on_screen(b, "chat-error")
        type_into(b, "chat-text", "Found it! Thank you")
        b.find_element(By.ID, "chat-text").send_keys(Keys.ENTER)
        wait_text(b, "chat-messages", "Found it")
        assert fully_on_screen(b, "chat-text"), "the message box scrolled away"
        screens.check(b, "chat")

        # A sees the unread line in My bottles (and chooses which notices to get).
        goto(a, "mine")
        wait(a).until(lambda d: [li for li in d.find_elements(By.CSS_SELECTOR, "#mine-list li") if code in li.text
                                 and li.find_elements(By.CSS_SELECTOR, ".unread")], "no unread count in My bottles")
        tap(a, a.find_element(By.CSS_SELECTOR, "#mine-list details.notify summary"))
        screens.check(a, "mine-unread")

        # More: the recovery code whole; a bad code is explained on screen.
        goto(a, "recovery")
        token = wait(a).until(lambda d: d.find_element(By.ID, "recovery-code").get_attribute("value"))
        assert a.execute_script("const t = document.getElementById('recovery-code'); return t.scrollWidth <= t.clientWidth"), \
            "the recovery code is cut off"
        assert len(token) == 43
        type_into(a, "restore-code", "too short")
        tap(a, a.find_element(By.CSS_SELECTOR, "#restore-form button[type='submit']"))
        wait_on_screen(a, "restore-error")
        screens.check(a, "more-recovery")

        # An emergency: a banner on the screen B is on, within 5 s, without a reload.
        b.execute_script("window.__sameDocument = true")
        ctl("camp", "send", "emergency", "--text", f"A child is lost near the stage ({phone})", "--emergency", "missing-person")
        sent = time.monotonic()
        wait(b, 5).until(lambda d: phone in d.find_element(By.ID, "camp-alerts").text, "no emergency banner within 5 s")
        assert time.monotonic() - sent <= 5.5
        assert b.execute_script("return window.__sameDocument === true"), "the page was reloaded"
        banner = b.find_element(By.ID, "camp-alerts").text
        assert "Missing person" in banner and "missing-person" not in banner, banner
        assert fully_on_screen(b, "camp-alerts")
        screens.check(b, "emergency")
        while b.find_elements(By.CSS_SELECTOR, "#camp-alerts button"):
            tap(b, b.find_element(By.CSS_SELECTOR, "#camp-alerts button"))

        # Both leave: while the chat dies, its countdown and Keep alive are on every screen.
        goto(a, f"b/{bottle_id}")
        wait_text(a, "bottle-title", code)
        click(a, "open-submit")  # the creator joins the chat
        by_id(a, "chat-form")
        click(a, "chat-leave")
        click(b, "chat-leave")
        by_id(b, "view-home")
        wait(b, 20).until(dying_bar_on_screen, "B never saw the countdown after leaving")
        screens.check(b, "dying-home")
        for view in ("drop", "mine", "recovery", f"b/{bottle_id}"):
            goto(b, view)
            wait(b, 3).until(dying_bar_on_screen, f"no countdown on {view}")
            goto(a, view)
            wait(a, 3).until(dying_bar_on_screen, f"no countdown for A on {view}")
            screens.check(b, f"dying-{view.split('/')[0]}", axe=False)
        by_id(b, "bottle-gone", timeout=60)
        wait(b, 10).until(lambda d: not d.find_element(By.ID, "chat-dying").is_displayed(), "the countdown outlived the bottle")
        screens.check(b, "gone")
    finally:
        screens.save()
