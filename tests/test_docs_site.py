"""The documentation site builds without a warning: ``mkdocs build --strict`` (mkdocs.yml).

Strict mode turns every warning into a failure: a page in the nav that does not exist, a link to a
missing page or anchor, a docstring mkdocstrings cannot render in the API reference.  The site is
built into a temporary folder, never into the repository.  MkDocs and its plugins are in the
``test`` extra (and the ``docs`` extra), so CI runs this; it is skipped only where MkDocs is not
installed.  The other tests check the pages themselves and need no MkDocs.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_docs_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="MkDocs is not installed: pip install -e '.[docs]' (it is in '.[test]')")
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    assert not re.search(r"^WARNING", log, re.M), log
    assert (site / "index.html").is_file()
    # every module of the API reference got its page, rendered from the docstrings
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    modules = re.findall(r"^\s+- (workbench[\w.]*)\s*$", config, re.M)
    assert "workbench.api" in modules and "workbench.models" in modules
    for module in modules:
        page = site / "api" / module / "index.html"
        assert page.is_file(), f"no API page for {module}"
        assert "doc-contents" in page.read_text(encoding="utf-8"), \
            f"the API page of {module} shows nothing from its docstrings"


def test_plugin_page_documents_every_hook_and_base_class():
    """docs/plugins.md, the one page for plugin authors, has an entry for every hook specification
    and a section for every family's base class."""
    from workbench import hookspecs
    from workbench.models import BASES

    page = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
    hooks = [n for n in dir(hookspecs) if n.startswith("register_")]
    assert hooks
    for hook in hooks:
        assert f"`{hook}(register)`" in page, f"docs/plugins.md does not document the hook {hook}"
    for base in BASES.values():
        assert f"## {base.__name__}" in page, f"docs/plugins.md has no section on {base.__name__}"
    assert "evolving" in page and "uses_shear" in page


def test_readme_is_a_door_with_the_ci_test_command():
    """The README stays short and shows exactly the test command CI runs (.ci/run)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = next(line.strip() for line in ci.splitlines() if "python -m pytest" in line)
    assert command in readme
