import pytest

from workbench.plugins import build_registry


@pytest.fixture
def registry():
    """A fresh registry per test (STYLE.md: nothing global shared between tests)."""
    return build_registry()
