"""Packaging: the built-in models install under their own name (workbench_plugins, from the folder
plugins/), never as a generic top-level "plugins", and every package folder is in pyproject.toml."""
import importlib.metadata as md
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _config():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_package_folder_is_listed():
    cfg = _config()["tool"]["setuptools"]
    listed = set(cfg["packages"])
    mapped = {v: k for k, v in cfg["package-dir"].items()}
    found = set()
    for top in ("workbench", "plugins"):
        for init in (ROOT / top).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT).parts
            name = ".".join((mapped.get(rel[0], rel[0]),) + rel[1:])
            found.add(name)
    assert found == listed, (found - listed, listed - found)


def test_entry_points_name_the_installed_package():
    eps = md.entry_points(group="workbench")
    ours = [ep for ep in eps if ep.dist is not None and ep.dist.name == "joint-wear-workbench"]
    assert ours and all(ep.value.startswith("workbench_plugins.") for ep in ours)
    declared = _config()["project"]["entry-points"]["workbench"].values()
    assert all(target.startswith("workbench_plugins.") for target in declared)


def test_builtins_import_under_their_own_name():
    import workbench_plugins.contact.hertz as hertz
    assert Path(hertz.__file__).resolve().parent == ROOT / "plugins" / "contact"
