import pytest

from tests.practice.helpers import forget_upload_budgets


@pytest.fixture(autouse=True)
def fresh_upload_budgets() -> None:
    forget_upload_budgets()
