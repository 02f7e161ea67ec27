"""The worn-film flag of a wear run: a lubricated joint whose worn bore lies outside the range
where its lubrication model's worn form was measured.

A reduced worn film (the finite bearing's, :mod:`workbench.lubrication.worn_finite`) carries an
error measured on a range of bores (scar depth over the clearance, L/D); the model says in words
when the bore its next update's dynamics will see is outside it
(:meth:`workbench.models.LubricationModel.worn_validity`).  After every update the bore the film
will see (the bushing's profile plus the journal's mean wear, :func:`workbench.mbs.compiled.film_profile`)
is checked, and the first time a joint leaves the range it is flagged once: a
:class:`~workbench.wear.validity.WearValidityWarning` and a line in the dataset attribute
``validity_warnings``.  The flag reports, it does not stop the run.
"""
from __future__ import annotations

import warnings


def check(run, geometry=None) -> None:
    """Flag (once per joint, kept in ``run.validity.warnings``) each lubricated worn joint whose
    model finds the current bore outside its measured range; ``geometry``: the joint's nominal
    contact geometry (default :func:`workbench.mbs.mechanism.contact_geometry`, as the film is packed)."""
    from ..mbs.compiled import film_profile
    if geometry is None:
        from ..mbs.mechanism import contact_geometry as geometry
    for w in run.worn.values():
        lub = getattr(w.joint, "lubrication", None)
        if lub is None:
            continue
        head = f"worn film of joint '{w.joint.name}':"
        if any(m.startswith(head) for m in run.validity.warnings):
            continue
        why = lub.worn_validity(geometry(w.joint), film_profile(w.h_bushing, w.h_journal))
        if not why:
            continue
        from .validity import WearValidityWarning
        msg = (f"{head} the bore worn by update {run.update} (after {run.cycles_done:.6g} cycles) is outside the "
               f"range where the '{lub.name}' model's worn form was measured ({why}): its film force carries an "
               f"error larger than docs/lubrication.md states")
        run.validity.warnings.append(msg)
        warnings.warn(msg, WearValidityWarning, stacklevel=3)
