"""FE contact pressure for pin-in-bushing joints (scikit-fem, plane strain).

Modules
-------
mesh            graded polar triangle meshes of the bushing (annulus) and pin (disc), named
                boundaries, rotation-order detection, bore morphing for worn geometry, file loading
compliance      plane-strain elasticity of one part and its normal compliance condensed onto the
                contact nodes (block-circulant by symmetry, unit-load solves otherwise), disk cache
joint           the joint model: bushing + pin compliances for given radii and materials
contact         frictionless contact as a complementarity problem (warm-started active set),
                force- or displacement-controlled, with residuals; the contact half-angle
closed_forms    Persson / Hertz / Winkler closed forms of docs/validation.md
calibration     fitting a model parameter to a reference (Winkler k to Persson or FE)
export          VTU export of displacement and stresses (meshio)
study_config    schema of ``kind = "pressure"`` studies
pressure_study  the static Winkler-vs-FE study runner and its plots
"""
# --- house: numba's cache of this package's compiled functions goes to the source-keyed folder of
# workbench.caches; it must be set before the first cache=True function is defined
from ..caches import use_numba_cache as _use_numba_cache

_use_numba_cache()
# --- house (end)
