import os

import pytest

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests
# make for their assertions are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def browser_context_args(browser_context_args: dict) -> dict:
    return {**browser_context_args, "locale": "en-GB", "viewport": {"width": 390, "height": 844}}


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


def off_loop(function, /, *args, **kwargs):
    """Run ``function`` in a plain thread: Playwright's event loop owns the test thread, and
    services send their channel-layer events with ``async_to_sync``, which needs a thread without one."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args, **kwargs).result()


def log_in(page, base: str, username: str) -> None:
    """Log in through the form, whatever the page's language."""
    from playwright.sync_api import expect

    from tests.factories import PASSWORD

    page.goto(base + "/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect(page.get_by_test_id("profile-link")).to_have_text(username)
