"""A plugin that calls ``sys.exit(3)`` or raises ``KeyboardInterrupt`` -- at import or in its
registration hook -- is isolated like any other broken plugin: a warning naming it, its models
skipped, the host and the other plugins untouched (before, every command exited 3 with no output).

The plugins are installed the way pip leaves them (a module and a ``.dist-info`` with
``entry_points.txt`` on ``sys.path``), as in tests/test_plugin_isolation.py.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli.main import main
from workbench.plugins import build_registry

ROOT = Path(__file__).resolve().parents[1]


HOSTILE = {
    "exit_at_import": ("import sys\nsys.exit(3)\n", "it called sys.exit(3)"),
    "interrupt_at_import": ("raise KeyboardInterrupt\n", "it raised KeyboardInterrupt"),
    "exit_in_hook": ("""
        import sys
        from workbench.hookspecs import hookimpl

        @hookimpl
        def register_contact_laws(register):
            sys.exit(3)
        """, "it called sys.exit(3)"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_plugin_is_skipped_with_a_warning(site, name):
    code, words = HOSTILE[name]
    site(f"wb-{name.replace('_', '-')}", "1.0", name, f"wb_test_{name}", code)
    with pytest.warns(RuntimeWarning) as record:
        reg = build_registry()
    msgs = [str(w.message) for w in record if name in str(w.message)]
    assert len(msgs) == 1 and words in msgs[0] and "skipped" in msgs[0], msgs
    assert "hertz" in reg.names("contact")             # the other plugins are untouched
    with pytest.warns(RuntimeWarning, match=name):
        r = CliRunner().invoke(main, ["plugins", "--family", "contact"], env={"COLUMNS": "250"})
    assert r.exit_code == 0 and "hertz" in r.output


def test_a_plugin_exiting_at_import_does_not_end_the_command(site):
    """The real command in a fresh process: exit status 0 and its output, not 3 and silence."""
    root = site("wb-exit", "1.0", "exit_at_import", "wb_test_exit_cli", "import sys\nsys.exit(3)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)])}
    r = subprocess.run([sys.executable, "-m", "workbench.cli.main", "validate",
                        str(ROOT / "studies" / "flores_slider_crank.toml")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout and "exit_at_import" in r.stderr and "sys.exit(3)" in r.stderr
