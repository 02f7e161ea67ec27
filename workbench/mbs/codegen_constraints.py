"""Source of the specialised constraint part of the right-hand side (:mod:`.codegen`).

Emits, for one mechanism's constraint structure, the constraint rows of
:func:`.kinematics.constraints` (Jacobian entries as scalars ``J_<row>_<coordinate>``, only those
that are not always zero), the Schur complement ``S = Phi_q M^-1 Phi_q^T`` and its right-hand side
as in :func:`.equations.rhs_arrays`, the ``L D L^T`` factorisation of :func:`.ldl.ldl_factor` and
the solve of :func:`.ldl.ldl_solve` unrolled over the factors' sparsity (fill-in found
symbolically: ``L[i, j]`` is nonzero when ``S[i, j]`` is, or when ``L[i, k]`` and ``L[j, k]`` are
for some ``k < j``), and the accelerations.  Same terms in the same order as the generic code,
without the structurally zero ones.
"""
from __future__ import annotations

from .codegen import _body
from .compiled import DRV_PHI, DRV_X, MAX_POLY, REV, TRANS


def _rows(cm):
    """Per constraint: ``(k, type, bi, bj, first row, n rows)``."""
    out = []
    for k, (typ, bi, bj, r) in enumerate(cm.cons_i):
        out.append((k, int(typ), int(bi), int(bj), int(r), 2 if typ in (REV, TRANS) else 1))
    return out


def _joint(e, J, k, typ, bi, bj, r):
    """A revolute or translational joint's rows (kinematics.constraints)."""
    Bi, Bj = _body(bi), _body(bj)
    e(f"six = cons_f[{k}, 0]; siy = cons_f[{k}, 1]; sjx = cons_f[{k}, 2]; sjy = cons_f[{k}, 3]")
    e(f"ci = {Bi['c']}; si = {Bi['s']}; wi = {Bi['w']}; cj = {Bj['c']}; sj = {Bj['s']}; wj = {Bj['w']}")
    e(f"rix = {Bi['x']}; riy = {Bi['y']}; rjx = {Bj['x']}; rjy = {Bj['y']}")
    e("Aix = ci * six - si * siy; Aiy = si * six + ci * siy")
    e("Ajx = cj * sjx - sj * sjy; Ajy = sj * sjx + cj * sjy")
    e("Bix = -Aiy; Biy = Aix; Bjx = -Ajy; Bjy = Ajx")
    if typ == REV:
        e(f"Phi_{r} = rix + Aix - rjx - Ajx")
        e(f"Phi_{r + 1} = riy + Aiy - rjy - Ajy")
        if bi >= 0:
            J[(r, 3 * bi)] = "1.0"; J[(r + 1, 3 * bi + 1)] = "1.0"
            J[(r, 3 * bi + 2)] = "Bix"; J[(r + 1, 3 * bi + 2)] = "Biy"
        if bj >= 0:
            J[(r, 3 * bj)] = "-1.0"; J[(r + 1, 3 * bj + 1)] = "-1.0"
            J[(r, 3 * bj + 2)] = "-Bjx"; J[(r + 1, 3 * bj + 2)] = "-Bjy"
        _emit_j(e, J, (r, r + 1))
        e(f"gam_{r} = Aix * wi * wi - Ajx * wj * wj")
        e(f"gam_{r + 1} = Aiy * wi * wi - Ajy * wj * wj")
        e(f"Phit_{r} = 0.0; Phit_{r + 1} = 0.0")
        return
    e(f"nxp = cons_f[{k}, 4]; nyp = cons_f[{k}, 5]; phi0 = cons_f[{k}, 6]")
    e("nx = ci * nxp - si * nyp; ny = si * nxp + ci * nyp")
    e("Bnx = -ny; Bny = nx")
    e("dx = rjx + Ajx - rix - Aix; dy = rjy + Ajy - riy - Aiy")
    e(f"vix = {Bi['vx']}; viy = {Bi['vy']}; vjx = {Bj['vx']}; vjy = {Bj['vy']}")
    e("ddx = vjx + Bjx * wj - vix - Bix * wi")
    e("ddy = vjy + Bjy * wj - viy - Biy * wi")
    e(f"Phi_{r} = nx * dx + ny * dy")
    if bi >= 0:
        J[(r, 3 * bi)] = "-nx"; J[(r, 3 * bi + 1)] = "-ny"
        J[(r, 3 * bi + 2)] = "Bnx * dx + Bny * dy - (nx * Bix + ny * Biy)"
        J[(r + 1, 3 * bi + 2)] = "-1.0"
    if bj >= 0:
        J[(r, 3 * bj)] = "nx"; J[(r, 3 * bj + 1)] = "ny"
        J[(r, 3 * bj + 2)] = "nx * Bjx + ny * Bjy"
        J[(r + 1, 3 * bj + 2)] = "1.0"
    _emit_j(e, J, (r, r + 1))
    e("g = (-(nx * wi * wi) * dx - (ny * wi * wi) * dy + 2.0 * (Bnx * wi * ddx + Bny * wi * ddy)"
      " + nx * (-Ajx * wj * wj + Aix * wi * wi) + ny * (-Ajy * wj * wj + Aiy * wi * wi))")
    e(f"gam_{r} = -g")
    e(f"Phi_{r + 1} = {Bj['p']} - {Bi['p']} - phi0")
    e(f"gam_{r + 1} = 0.0")
    e(f"Phit_{r} = 0.0; Phit_{r + 1} = 0.0")


def _emit_j(e, J, rows):
    for (i, c), v in sorted(J.items()):
        if i in rows:
            e(f"J_{i}_{c} = {v}")


def _driver(e, J, cm, k, typ, bi, bj, r):
    """A driver's row: kinematics.driver_value unrolled for its polynomial and harmonics."""
    d = int(cm.cons_f[k, 0])
    npoly = int(cm.drv_f[d, 0]); nh = int(cm.drv_f[d, 1 + MAX_POLY])
    e("f = 0.0; f1 = 0.0; f2 = 0.0")
    for kk in range(npoly - 1, -1, -1):
        e(f"f2 = f2 * t + 2.0 * f1; f1 = f1 * t + f; f = f * t + drv_f[{d}, {1 + kk}]")
    for m in range(nh):
        c0 = 2 + MAX_POLY + 3 * m
        e(f"A = drv_f[{d}, {c0}]; om = drv_f[{d}, {c0 + 1}]; ph = drv_f[{d}, {c0 + 2}]")
        e("f += A * math.sin(om * t + ph)")
        e("f1 += A * om * math.cos(om * t + ph)")
        e("f2 -= A * om * om * math.sin(om * t + ph)")
    if typ == DRV_PHI:
        e(f"val = p{bi}")
        J[(r, 3 * bi + 2)] = "1.0"
        if bj >= 0:
            e(f"val -= p{bj}")
            J[(r, 3 * bj + 2)] = "-1.0"
    elif typ == DRV_X:
        e(f"val = x{bi}"); J[(r, 3 * bi)] = "1.0"
    else:
        e(f"val = y{bi}"); J[(r, 3 * bi + 1)] = "1.0"
    _emit_j(e, J, (r,))
    e(f"Phi_{r} = val - f")
    e(f"Phit_{r} = -f1")
    e(f"gam_{r} = f2")


def _sum(terms):
    return " + ".join(f"({t})" for t in terms) if terms else "0.0"


def emit_constraints(e, cm):
    """Constraints, Schur complement, factorisation, solve and accelerations (``n_rows > 0``)."""
    n = 3 * cm.nb
    m = cm.n_rows
    J = {}
    rows = _rows(cm)
    rbod = {}
    for k, typ, bi, bj, r, nr in rows:
        for i in range(r, r + nr):
            rbod[i] = (bi, bj)
        if typ in (REV, TRANS):
            _joint(e, J, k, typ, bi, bj, r)
        else:
            _driver(e, J, cm, k, typ, bi, bj, r)

    def coords(i):
        """The generic loops' (side, c) order over row i's bodies, nonzero entries only."""
        out = []
        for bb in rbod[i]:
            if bb < 0:
                continue
            out += [3 * bb + c for c in range(3) if (i, 3 * bb + c) in J]
        return out

    Snz = {}
    for i in range(m):
        ci = coords(i)
        e(f"Jqd_{i} = {_sum([f'J_{i}_{kk} * v_{kk}' for kk in ci])}")
        e(f"b_{i} = ({_sum([f'J_{i}_{kk} * Q{kk} * minv_{kk}' for kk in ci])}) - "
          f"(gam_{i} - 2.0 * alpha * (Jqd_{i} + Phit_{i}) - beta * beta * Phi_{i})")
        e(f"if not math.isfinite(b_{i}):")
        e("    return -3")
        for j2 in range(i + 1):
            terms = []
            for bb in rbod[i]:
                if bb < 0 or bb not in rbod[j2]:
                    continue
                terms += [f"J_{i}_{kk} * J_{j2}_{kk} * minv_{kk}" for kk in range(3 * bb, 3 * bb + 3)
                          if (i, kk) in J and (j2, kk) in J]
            if terms:
                Snz[(i, j2)] = True
                e(f"S_{i}_{j2} = {_sum(terms)}")
    # L D L^T with symbolic fill-in (ldl.ldl_factor), in the same order of operations
    L = set()
    for j in range(m):
        d = f"S_{j}_{j}"
        for k in range(j):
            if (j, k) in L:
                d = f"{d} - L_{j}_{k} * L_{j}_{k} * D_{k}"
        e(f"D_{j} = {d}")
        e(f"if not (D_{j} > 1e-300):")
        e("    return -2")
        e(f"r_{j} = 1.0 / D_{j}")
        for i in range(j + 1, m):
            v = f"S_{i}_{j}" if (i, j) in Snz else None
            for k in range(j):
                if (i, k) in L and (j, k) in L:
                    v = f"{v if v is not None else '0.0'} - L_{i}_{k} * L_{j}_{k} * D_{k}"
            if v is not None:
                L.add((i, j))
                e(f"L_{i}_{j} = ({v}) * r_{j}")
    # ldl.ldl_solve
    for i in range(m):
        v = f"b_{i}"
        for k in range(i):
            if (i, k) in L:
                v = f"{v} - L_{i}_{k} * x_{k}"
        e(f"x_{i} = {v}")
    for i in range(m):
        e(f"x_{i} = x_{i} / D_{i}")
    for i in range(m - 1, -1, -1):
        v = f"x_{i}"
        for k in range(i + 1, m):
            if (k, i) in L:
                v = f"{v} - L_{k}_{i} * x_{k}"
        e(f"x_{i} = {v}")
    for i in range(m):
        e(f"lam[{i}] = x_{i}")
    # accelerations: qdd = M^-1 (Q - Phi_q^T lambda), row by row as the generic loop
    for kk in range(n):
        v = f"Q{kk} * minv_{kk}"
        for i in range(m):
            if (i, kk) in J:
                v = f"{v} - J_{i}_{kk} * x_{i} * minv_{kk}"
        e(f"ydot[{n + kk}] = {v}")
    e("pdrv = 0.0")
    for k, typ, bi, bj, r, nr in rows:
        if typ >= DRV_PHI:
            e(f"pdrv += -x_{r} * Jqd_{r}")
