"""Tutorial 2: writing and installing a wear law (docs/tutorials/wear_law.md).

Needs the template package installed:  pip install -e docs/plugin_template
Then run:  python docs/tutorials/wear_law.py [OUTPUT_FOLDER]
"""
import math
import sys
from pathlib import Path

import workbench
from workbench.conformance import check_model

ROOT = Path(__file__).resolve().parents[2]
out = Path(sys.argv[1] if len(sys.argv) > 1 else "tutorial_output")
out.mkdir(parents=True, exist_ok=True)

# 1. The installed law is in the registry, with the distribution that provides it.
registry = workbench.registry(refresh=True)          # refresh: rebuilt after an install
entry = registry.entry("wear", "example_hardness_archard")
print(f"{entry.name}: from {entry.distribution} {entry.version}")

# 2. The conformance suite: docstring, reference with a year or an equation, parameters with
#    units, non-negative wear that grows with pressure and slip ... (raises if anything fails).
check_model(entry.cls)
print("conformance: passed")

# 3. Name it in a study: the journal under a constant 2 kN load (studies/journal_wear_constant_load.toml)
#    with the new law, K = 2e-6 on H = 2 GPa (K/H = 1e-15 1/Pa), over 600 machine cycles.
K, H = 2.0e-6, 2.0e9
text = (ROOT / "studies" / "journal_wear_constant_load.toml").read_text()
text = text.replace('law = { model = "archard", wear_coefficient = 1.0e-15 }',
                    f'law = {{ model = "example_hardness_archard", wear_coefficient = {K}, hardness = {H} }}')
text = text.replace("cycles = 2000.0", "cycles = 600.0")
study = workbench.load_study(text)
print("wear law of the study:", study.wear.law.name, study.wear.law.params)

ds = workbench.run(study, out=out / "journal_hardness_archard.zarr")

# 4. Check it: the built-in `archard` with k_d = K/H is the same law written with one number, so
#    the two runs must wear the same volume (to the rounding of K/H: 1e-9).
same = workbench.change(study, {"wear.law": {"model": "archard", "wear_coefficient": K / H}})
reference = workbench.run(same)
volume = float(ds["wear_volume"].isel(cycle=-1).sum())           # m^3, all joints and surfaces
builtin = float(reference["wear_volume"].isel(cycle=-1).sum())
cycles = float(ds["cycle"].values[-1])
print(f"worn volume after {cycles:.0f} cycles: {volume * 1e9:.5g} mm³ (built-in archard: {builtin * 1e9:.5g} mm³)")
assert math.isclose(volume, builtin, rel_tol=1e-9), (volume, builtin)

# Archard's global volume V = K W L / H (load W = 2 kN, sliding distance L = 2 pi R per cycle) is
# a few per cent less: the local form wears the whole contact arc, where the pressure is not
# along the load (the arc factor of the Winkler pressure, about 1.06 here; the wear-loop tests
# check it against the closed form).
W, R = 2000.0, 0.0100
print(f"over Archard's global form K W L / H: x {volume / (K * W * 2 * math.pi * R * cycles / H):.4f}")
