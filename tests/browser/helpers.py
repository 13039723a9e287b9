"""Small page helpers for the browser tests: explicit waits only."""
import os
import subprocess

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

TIMEOUT = 30


def wait(driver, timeout=TIMEOUT):
    return WebDriverWait(driver, timeout, poll_frequency=0.2,
                         ignored_exceptions=(StaleElementReferenceException,))


def by_id(driver, element_id, timeout=TIMEOUT):
    """The element with `element_id` once it is visible."""
    return wait(driver, timeout).until(EC.visibility_of_element_located((By.ID, element_id)))


def click(driver, element_id, timeout=TIMEOUT):
    element = wait(driver, timeout).until(EC.element_to_be_clickable((By.ID, element_id)))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
    return element


def type_into(driver, element_id, text, clear=True):
    element = by_id(driver, element_id)
    if clear:
        element.clear()
    element.send_keys(text)
    return element


def text_of(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def wait_text(driver, element_id, needle, timeout=TIMEOUT):
    """Waits until the element's visible text contains `needle` (case-insensitive); returns the text."""
    def check(d):
        try:
            element = d.find_element(By.ID, element_id)
        except Exception:  # noqa: BLE001 - not there yet
            return False
        text = element.text
        return text if element.is_displayed() and needle.lower() in text.lower() else False
    return wait(driver, timeout).until(check, f"#{element_id} never showed {needle!r}")


def wait_nonempty(driver, element_id, timeout=TIMEOUT):
    def check(d):
        element = d.find_element(By.ID, element_id)
        return element.text.strip() if element.is_displayed() and element.text.strip() else False
    return wait(driver, timeout).until(check, f"#{element_id} stayed empty")


def open_page(driver, base_url, fragment=""):
    driver.get(f"{base_url}/{('#' + fragment) if fragment else ''}")
    # The page registers its device token, then fills the box header.
    wait(driver).until(lambda d: d.execute_script("return !!localStorage.getItem('driftbox.token')"),
                       "the page never got a device token")
    wait_nonempty(driver, "box-time")


def goto(driver, fragment):
    driver.execute_script("location.hash = arguments[0]", fragment)


def shot(driver, artifacts, name):
    """Saves a screenshot of the whole page height as `name`.png."""
    height = driver.execute_script("return Math.max(document.body.scrollHeight, 915)")
    width = driver.get_window_size()["width"]
    driver.set_window_size(width, min(int(height) + 140, 4000))
    path = artifacts / f"{name}.png"
    driver.save_screenshot(str(path))
    driver.set_window_size(width, 915)
    return path


ACCESSIBILITY_PROBLEMS = r"""
const problems = [];
const labelled = (el) => {
  if (el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')) return true;
  if (el.id && document.querySelector(`label[for="${CSS.escape(el.id)}"]`)) return true;
  return !!el.closest('label');
};
for (const el of document.querySelectorAll('input, select, textarea')) {
  if (el.type === 'hidden') continue;
  if (!labelled(el)) problems.push(`no label: <${el.tagName.toLowerCase()} id="${el.id}">`);
}
for (const img of document.querySelectorAll('img')) {
  if (!img.hasAttribute('alt')) problems.push(`no alt: <img id="${img.id}" src="${img.src.slice(0, 40)}">`);
}
for (const b of document.querySelectorAll('button')) {
  const name = (b.textContent || '').trim() || b.getAttribute('aria-label') || b.getAttribute('title');
  if (!name) problems.push(`button without a name: ${b.outerHTML.slice(0, 60)}`);
}
for (const d of document.querySelectorAll('div[onclick], span[onclick]')) problems.push(`clickable non-button: ${d.outerHTML.slice(0, 60)}`);
for (const id of ['chat-messages', 'notices', 'chat-typing']) {
  const el = document.getElementById(id);
  if (!el || !el.getAttribute('aria-live')) problems.push(`#${id} is not an aria-live region`);
}
if (!document.documentElement.lang) problems.push('<html> has no lang');
return problems;
"""


def accessibility_problems(driver):
    return driver.execute_script(ACCESSIBILITY_PROBLEMS)


# ---------------------------------------------------------------- a phone in one hand

PHONES = {"360x640": (360, 640), "390x844": (390, 844)}


def as_phone(driver, width, height):
    """Makes the session a phone of `width`×`height` CSS px (touch, mobile viewport)."""
    driver.set_window_size(width, height + 120)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
    driver.phone = (width, height)
    return driver


def phone_shot(driver, artifacts, name):
    """Saves what the phone's screen shows now (no resizing) as `name`.png."""
    path = artifacts / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def horizontal_overflow(driver):
    """How many CSS px the page is wider than the screen (0: none)."""
    return driver.execute_script("return Math.max(0, document.documentElement.scrollWidth - innerWidth,"
                                 " document.body.scrollWidth - innerWidth)")


SMALL_TARGETS = r"""
// Every visible interactive element smaller than 44×44 CSS px. A visually hidden input (a file
// or check box inside its label) is measured by its label, which is what a finger hits.
const out = [];
const visible = (el) => { const s = getComputedStyle(el); const r = el.getBoundingClientRect();
  return s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && r.height > 0 && !el.closest('[hidden]'); };
for (const el of document.querySelectorAll('button, input, select, textarea, summary, a[href], [role=button], audio[controls]')) {
  if (el.type === 'hidden' || el.classList.contains('skip')) continue;
  let target = el;
  if (el.matches('input.vh, .chip input')) target = el.closest('label') || document.querySelector(`label[for="${CSS.escape(el.id)}"]`) || el;
  if (el.tagName === 'A' && el.closest('p, li, .banner')) continue;   // a link inside a sentence (WCAG 2.5.8 exception)
  if (!visible(target)) continue;
  const r = target.getBoundingClientRect();
  if (r.width < 43.5 || r.height < 43.5) out.push(`${el.tagName.toLowerCase()}#${el.id || ''} "${(el.textContent || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 30)}" ${Math.round(r.width)}×${Math.round(r.height)}`);
}
return out;
"""


def small_targets(driver):
    return driver.execute_script(SMALL_TARGETS)


def fully_on_screen(driver, element_id):
    """Whether the element is displayed and wholly inside the viewport, clear of the fixed
    bottom bar (navigation or message bar) and of the sticky bars on top."""
    return driver.execute_script("""
        const el = document.getElementById(arguments[0]);
        if (!el || el.closest('[hidden]')) return false;
        const r = el.getBoundingClientRect();
        if (!r.height) return false;
        let bottom = innerHeight;
        for (const bar of document.querySelectorAll('.tabs, .composer')) {
          const b = bar.getBoundingClientRect();
          if (!bar.hidden && getComputedStyle(bar).display !== 'none' && b.height && !bar.contains(el)) bottom = Math.min(bottom, b.top);
        }
        let top = 0;
        const bars = document.getElementById('live-bars');
        if (bars && !bars.contains(el)) top = Math.max(0, bars.getBoundingClientRect().bottom);
        return r.top >= top - 1 && r.bottom <= bottom + 1;
    """, element_id)


def wait_on_screen(driver, element_id, timeout=10):
    """Waits until `element_id` shows text and sits wholly on screen (an error seen where it appears)."""
    return wait(driver, timeout).until(
        lambda d: d.find_element(By.ID, element_id).text.strip() and fully_on_screen(d, element_id),
        f"#{element_id} did not appear on screen")


def axe_problems(driver):
    """Serious and critical axe-core violations on the page as it is now (axe-selenium-python ships axe-core)."""
    from axe_selenium_python import Axe
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] for n in v["nodes"][:4])
            for v in results["violations"] if v.get("impact") in ("serious", "critical")]


def tap(driver, element):
    """Brings `element` to the middle of the screen (clear of the fixed bars) and clicks it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
    return element


def tap_selector(driver, css, timeout=TIMEOUT):
    """Finds the element matching `css` and taps it, finding it again if the page re-rendered it
    between the two (a list the page refreshes while the test reaches for one of its buttons)."""
    def tapped(d):
        tap(d, d.find_element(By.CSS_SELECTOR, css))
        return True
    return wait(driver, timeout).until(tapped)


def on_item(driver, css, text, action, timeout=TIMEOUT):
    """Runs `action` on the first element matching `css` whose text holds `text`, finding it
    again if the page re-rendered the list in between (a list the page refreshes while the test
    reaches into one of its items)."""
    def done(d):
        item = next((e for e in d.find_elements(By.CSS_SELECTOR, css) if text in e.text), None)
        if item is None:
            return False
        action(item)
        return True
    wait(driver, timeout).until(done)


def ctl(*args):
    """`driftd ctl ARGS` against the box under test (the simulated board's buttons, weather, camps)."""
    driftd, data = os.environ.get("DRIFTD"), os.environ.get("DRIFT_DATA_DIR")
    if not driftd or not data:
        pytest.skip("DRIFTD and DRIFT_DATA_DIR are not set (scripts/browser-tests.sh sets them)")
    subprocess.run([driftd, "ctl", *args, "--data-dir", data], check=True, timeout=30,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
