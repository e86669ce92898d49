"""What the practice tests share."""

from practice.uploads import PRACTICE_BUDGET
from tests.conftest import forget_budgets


def forget_upload_budgets() -> None:
    """Every person's budget of practice uploads, gone: one left in the test Redis by an earlier run
    (whose people had the same ids, the test database being new each run) would throttle this one."""
    forget_budgets(PRACTICE_BUDGET.format(user_id="*"))
