"""Small page helpers for the browser tests: explicit waits only."""
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
