import pytest


@pytest.fixture(autouse=True)
def open_data_root(settings, tmp_path):
    """Each test's files in a directory of its own."""
    settings.OPEN_DATA_ROOT = tmp_path / "opendata"
    return settings.OPEN_DATA_ROOT
