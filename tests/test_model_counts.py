"""The numbers of models the docs state are the numbers the registry holds.

The counts are derived, not typed into the test: the built-in models are the registry's entries
provided by this distribution; the point-contact laws are the ones the shipped contact-law sweep
(``studies/contact_law_comparison.toml``) compares, which must be every built-in contact law but
the elastic-foundation ones.  Every sentence of the README, the guide, the sweep reference and the
sweep file that counts contact laws must say these numbers (as digits or as a word).
"""
import re
import tomllib
from pathlib import Path

import pytest

from workbench.plugins import build_registry

ROOT = Path(__file__).resolve().parents[1]
OURS = "joint-wear-workbench"
FOUNDATION_LAWS = {"winkler_foundation", "distributed_winkler"}   # docs/guide/models.md: "two elastic-foundation laws"
WORDS = {"eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
         "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20}
COUNTED = re.compile(r"\b(?:the )?(\d+|" + "|".join(WORDS) + r")(?: built-in)? (point-contact|contact) laws",
                     re.IGNORECASE)
FILES = ["README.md", "docs/guide/models.md", "docs/guide/sweeps.md", "docs/guide/commands.md",
         "docs/sweep_format.md", "docs/plugins.md", "studies/contact_law_comparison.toml"]


def _built_in(family: str) -> list[str]:
    reg = build_registry()
    return [n for n in reg.names(family) if reg.entry(family, n).distribution == OURS]


def _number(text: str) -> int:
    return int(text) if text.isdigit() else WORDS[text.lower()]


def test_the_sweep_compares_every_point_contact_law():
    grid = tomllib.loads((ROOT / "studies" / "contact_law_comparison.toml").read_text())["grid"]
    compared = [v["model"] for v in grid["mechanism.clearance_joints[0].contact"]["values"]]
    assert len(set(compared)) == len(compared)
    assert set(_built_in("contact")) - set(compared) == FOUNDATION_LAWS


@pytest.mark.parametrize("rel", FILES)
def test_every_count_of_contact_laws_is_the_registrys(rel):
    contact = len(_built_in("contact"))
    point = contact - len(FOUNDATION_LAWS)
    text = (ROOT / rel).read_text(encoding="utf-8")
    for m in COUNTED.finditer(text):
        want = point if m.group(2).lower() == "point-contact" else contact
        assert _number(m.group(1)) == want, f"{rel}: '{m.group(0)}' but the registry has {want}"


def test_the_model_totals_of_the_readme_and_the_guide():
    n = {f: len(_built_in(f)) for f in ("contact", "friction", "pressure", "wear")}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "guide" / "models.md").read_text(encoding="utf-8")
    line = (f"{n['contact']} contact laws, {n['friction']} friction laws, {n['pressure']} pressure "
            f"models")
    assert line in " ".join(readme.split()) and line in guide
    assert f"{n['wear']} wear laws" in " ".join(readme.split()) and f"{n['wear']} wear\nlaws" in guide
    for family, count in n.items():
        title = {"contact": "Contact laws", "friction": "Friction laws", "pressure": "Pressure models",
                 "wear": "Wear laws"}[family]
        assert f"## {title} ({count})" in guide
