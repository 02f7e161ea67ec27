"""Source of the specialised contact gaps and of the dense output they read (:mod:`.codegen`).

The integrator evaluates the penetration of every contact point after each accepted step and, to
locate a contact start, some fifty times on the continuous extension of the step
(:func:`.integrator.locate_event`); the impact table evaluates the clearance joints on it too.
Those evaluations need the coordinates and rates of the clearance joints' bodies (and the friction
states), not the whole state, so :func:`gaps_source` emits

* ``contact_gaps`` (the signature of :func:`.clearance.contact_gaps`): the revolute clearance
  joints' gaps with each body's cos and sin computed once and the circular case inline, the same
  arithmetic as the generic function;
* ``_dense_gaps`` (the signature of :func:`.dense.dense`): the continuous extension at the state
  entries those functions read only, each entry computed as :func:`.dense.dense` does.
"""
from __future__ import annotations

from .codegen import _body, _point, _velocity
from .compiled import REV_HB_MAX, REV_HJ_MAX, REV_NODES


def gap_entries(cm) -> list[int]:
    """State entries the clearance joints read: coordinates and rates of their bodies, and the
    friction states of their contact points."""
    n = 3 * cm.nb
    out = set()
    for j, (typ, bi, bj, p0, npt) in enumerate(cm.clr_i):
        for b in (bi, bj):
            if b >= 0:
                out.update(range(3 * b, 3 * b + 3))
                out.update(range(n + 3 * b, n + 3 * b + 3))
        out.update(range(2 * n + p0, 2 * n + p0 + npt))
    return sorted(out)


def gaps_source(cm) -> str:
    """Source of ``contact_gaps`` and ``_dense_gaps`` for the structure of ``cm`` (module docstring)."""
    n = 3 * cm.nb
    idx = gap_entries(cm)
    lines = [f"_GAP_ENTRIES = np.array({idx!r}, dtype=np.int64)", "", "",
             "@njit(cache=True)",
             "def _dense_gaps(y, K, h, th, out):",
             "    t2 = th * th; t3 = t2 * th; t4 = t3 * th",
             "    for i in _GAP_ENTRIES:",
             "        acc = 0.0",
             "        for k in range(7):",
             "            acc += K[k, i] * (_P[k, 0] * th + _P[k, 1] * t2 + _P[k, 2] * t3 + _P[k, 3] * t4)",
             "        out[i] = y[i] + h * acc", "", "",
             "@njit(cache=True)",
             "def contact_gaps(y, n, clr_i, clr_f, g, gd, dist=None):"]
    bodies = sorted({int(b) for row in cm.clr_i for b in row[1:3] if b >= 0})
    for b in bodies:
        lines += [f"    x{b} = y[{3 * b}]; y{b} = y[{3 * b + 1}]; p{b} = y[{3 * b + 2}]",
                  f"    vx{b} = y[{n + 3 * b}]; vy{b} = y[{n + 3 * b + 1}]; w{b} = y[{n + 3 * b + 2}]",
                  f"    c{b} = math.cos(p{b}); s{b} = math.sin(p{b})"]
    for j, (typ, bi, bj, p0, npt) in enumerate(cm.clr_i):
        Bb, Bj = _body(bi), _body(bj)
        pbx, pby = _point(Bb, f"clr_f[{j}, 0]", f"clr_f[{j}, 1]", bi < 0)
        pjx, pjy = _point(Bj, f"clr_f[{j}, 2]", f"clr_f[{j}, 3]", bj < 0)
        vbx, vby = _velocity(Bb, "Pbx", "Pby", bi < 0)
        vjx, vjy = _velocity(Bj, "Pjx", "Pjy", bj < 0)
        lines += [
            f"    Pbx = {pbx}; Pby = {pby}",
            f"    Pjx = {pjx}; Pjy = {pjy}",
            "    ex = Pjx - Pbx; ey = Pjy - Pby",
            f"    phb = {Bb['p']}; phj = {Bj['p']}",
            f"    cb = {Bb['c']}; sb = {Bb['s']}",
            "    ebx = cb * ex + sb * ey; eby = -sb * ex + cb * ey",
            f"    if int(clr_f[{j}, {REV_NODES}]) == 0 or clr_f[{j}, {REV_HB_MAX}] + clr_f[{j}, {REV_HJ_MAX}] <= 0.0:",
            "        em = math.sqrt(ebx * ebx + eby * eby)",     # clearance.worn_penetration, circular
            f"        delta = em - (clr_f[{j}, 4] - clr_f[{j}, 5])",
            "        psi = math.atan2(eby, ebx) if em > 1e-300 else 0.0",
            "    else:",
            f"        delta, psi, hb, hj = worn_penetration(clr_f[{j}], ebx, eby, phj - phb)",
            f"    g[{p0}] = delta",
            "    cp_ = math.cos(psi); sp_ = math.sin(psi)",
            "    nx = cb * cp_ - sb * sp_; ny = sb * cp_ + cb * sp_",
            f"    vbx = {vbx}; vby = {vby}",
            f"    vjx = {vjx}; vjy = {vjy}",
            f"    gd[{p0}] = (vjx - vbx) * nx + (vjy - vby) * ny"]
    lines.append("    return")   # (a mechanism without clearance joints has no gaps)
    return "\n".join(lines) + "\n"
