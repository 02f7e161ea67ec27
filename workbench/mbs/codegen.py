"""Source of a right-hand side specialised to one mechanism's structure.

:func:`rhs_source` writes Python source for the right-hand side of :mod:`.equations` with the
mechanism's *structure* baked in: which bodies each constraint row, force element and clearance
joint touches, the constraint types, the drivers' numbers of polynomial coefficients and
harmonics, the contact and friction kernels of each clearance joint (called directly as module
globals, not through C function pointers), and the sparsity of the Jacobian, of the Schur
complement ``Phi_q M^-1 Phi_q^T`` and of its ``L D L^T`` factors (fill-in found symbolically).
Coordinates, Jacobian entries, Schur entries and factors are local scalars, so the compiled code
keeps them in registers; the loops over rows, bodies and coordinates are unrolled.  Every float
(geometry, masses, driver coefficients, contact parameters, wear profiles) stays a runtime array of
the :data:`.compiled.Model`: only the structure is baked.

The arithmetic is that of the generic right-hand side term by term, in the same order; terms the
generic code adds that are structurally zero (a Jacobian entry that is always 0) are left out,
which changes nothing but the sign of a zero.  ``tests/mbs/test_specialised.py`` checks that both paths
give the same trajectory, impact table and outputs (on the Flores slider-crank and the five-bar,
circular and worn, they agree to the last bit).  Differences: ``rhs``, the integrator's, writes the
clearance record's contact angle ``C_PSI`` of worn joints only (the integrator reads the force and
penetration columns); ``rhs_full``, the output samples', writes it for all; neither fills the Work
arrays ``Q``, ``Phi``, ``J``, ``S`` ...

Supported: ideal revolute and translational joints, drivers, springs-dampers, constant forces
and torques, revolute clearance joints (circular or worn, point contact).  A mechanism with a
translational clearance joint, a distributed contact law or ideal-joint friction is not
specialised (:func:`unsupported` says why); it runs the generic path.
"""
from __future__ import annotations

from .clearance import (FAULT_CONTACT_NONFINITE, FAULT_CONTACT_RAISED, FAULT_CONTACT_TENSILE,
                        FAULT_FRICTION_BOUND, FAULT_FRICTION_NONFINITE, FAULT_FRICTION_RAISED,
                        FRICTION_BOUND_SLACK, N_FAULT)
from .compiled import (CL_FRICTION_BOUND, CL_REV, DRV_PHI, DRV_X, FORCE, MAX_POLY, REV,
                       REV_DISTRIBUTED, REV_HB_MAX, REV_HJ_MAX, REV_NODES, SPRING, TORQUE, TRANS)

#: bump when the generated code changes meaning (part of the module's key)
GENERATOR_VERSION = 1


def unsupported(cm) -> str | None:
    """Why the compiled model ``cm`` cannot be specialised (None: it can)."""
    if cm.joint_friction is not None:
        return "an ideal joint has friction"
    for j, row in enumerate(cm.clr_i):
        if row[0] != CL_REV:
            return f"clearance joint {j} is translational"
        if cm.clr_f[j, REV_DISTRIBUTED] > 0.0:
            return f"clearance joint {j} has a distributed contact law"
        if j < len(cm.lubricated) and cm.lubricated[j]:
            return f"clearance joint {j} is lubricated"
    for k in (*cm.contact_kernels, *cm.friction_kernels):
        if kernel_import(k) is None:
            return f"kernel {k!r} is not a module-level numba function"
    return None


def kernel_import(cfunc_or_kernel):
    """``(module, name)`` of the njit kernel behind a solver C function (or the kernel itself),
    None when it is not importable by name."""
    import importlib
    k = getattr(cfunc_or_kernel, "_workbench_kernel", cfunc_or_kernel)
    f = getattr(k, "py_func", None)
    if f is None or f.__closure__ is not None or "<" in f.__qualname__ or "." in f.__qualname__:
        return None
    try:
        if getattr(importlib.import_module(f.__module__), f.__qualname__, None) is not k:
            return None
    except ImportError:
        return None
    return f.__module__, f.__qualname__


class _Src:
    def __init__(self):
        self.lines = []
        self.ind = 1

    def __call__(self, line: str):
        self.lines.append("    " * self.ind + line)


def _body(b):
    """Names of body ``b``'s coordinates, rates, cos and sin; literals for the ground."""
    if b < 0:
        return dict(x="0.0", y="0.0", p="0.0", vx="0.0", vy="0.0", w="0.0", c="1.0", s="0.0")
    return dict(x=f"x{b}", y=f"y{b}", p=f"p{b}", vx=f"vx{b}", vy=f"vy{b}", w=f"w{b}", c=f"c{b}", s=f"s{b}")


def _point(B, sx, sy, ground):
    """point_position: ``(q + c sx - s sy, q + s sx + c sy)``; the point itself on the ground."""
    if ground:
        return sx, sy
    return (f"{B['x']} + {B['c']} * {sx} - {B['s']} * {sy}", f"{B['y']} + {B['s']} * {sx} + {B['c']} * {sy}")


def _velocity(B, px, py, ground):
    """material_velocity of the point ``(px, py)`` of the body."""
    if ground:
        return "0.0", "0.0"
    return f"{B['vx']} - {B['w']} * ({py} - {B['y']})", f"{B['vy']} + {B['w']} * ({px} - {B['x']})"


def _apply(e, b, px, py, fx, fy):
    """apply_force into the scalar generalised forces."""
    if b < 0:
        return
    e(f"Q{3 * b} += {fx}")
    e(f"Q{3 * b + 1} += {fy}")
    e(f"Q{3 * b + 2} += ({px} - x{b}) * {fy} - ({py} - y{b}) * {fx}")


def _forces(e, cm):
    """Gravity and the force elements (equations.element_forces), into Q0.. and pd."""
    for b in range(cm.nb):
        e(f"Q{3 * b} = mass[{3 * b}] * gravity[0]")
        e(f"Q{3 * b + 1} = mass[{3 * b}] * gravity[1]")
        e(f"Q{3 * b + 2} = 0.0")
    e("pd = 0.0")
    for k, (typ, bi, bj) in enumerate(cm.frc_i):
        Bi, Bj = _body(bi), _body(bj)
        if typ == SPRING:
            px, py = _point(Bi, f"frc_f[{k}, 0]", f"frc_f[{k}, 1]", bi < 0)
            qx, qy = _point(Bj, f"frc_f[{k}, 2]", f"frc_f[{k}, 3]", bj < 0)
            e(f"pix = {px}; piy = {py}")
            e(f"pjx = {qx}; pjy = {qy}")
            e("dx = pjx - pix; dy = pjy - piy")
            e("l = math.sqrt(dx * dx + dy * dy)")
            e("if not (l < 1e-300):")
            e.ind += 1
            e("ex = dx / l; ey = dy / l")
            vix, viy = _velocity(Bi, "pix", "piy", bi < 0)
            vjx, vjy = _velocity(Bj, "pjx", "pjy", bj < 0)
            e(f"vix = {vix}; viy = {viy}")
            e(f"vjx = {vjx}; vjy = {vjy}")
            e("ld = (vjx - vix) * ex + (vjy - viy) * ey")
            e(f"f = frc_f[{k}, 4] * (l - frc_f[{k}, 6]) + frc_f[{k}, 5] * ld + frc_f[{k}, 7]")
            _apply(e, bi, "pix", "piy", "f * ex", "f * ey")
            _apply(e, bj, "pjx", "pjy", "-f * ex", "-f * ey")
            e(f"pd += frc_f[{k}, 5] * ld * ld")
            e.ind -= 1
        elif typ == FORCE:
            px, py = _point(Bi, f"frc_f[{k}, 0]", f"frc_f[{k}, 1]", bi < 0)
            e(f"px = {px}; py = {py}")
            _apply(e, bi, "px", "py", f"frc_f[{k}, 2]", f"frc_f[{k}, 3]")
        elif typ == TORQUE and bi >= 0:
            e(f"Q{3 * bi + 2} += frc_f[{k}, 0]")
            e(f"if frc_f[{k}, 1] != 0.0:")
            e(f"    Q{3 * bi + 2} -= frc_f[{k}, 1] * w{bi}")
            e(f"    pd += frc_f[{k}, 1] * w{bi} * w{bi}")


def _clearance(e, cm, kern_names, full=True, zdot=True):
    """Revolute clearance joints (clearance.clearance_forces, point contact), into Q0.., pc, pf;
    ``full``: the record's contact angle of circular joints too; ``zdot``: write the friction
    states' rates into ``ydot``."""
    e("pc = 0.0; pf = 0.0")
    for j, (typ, bi, bj, p0, npt) in enumerate(cm.clr_i):
        Bb, Bj = _body(bi), _body(bj)
        ck, fk = kern_names[j]
        has_z = int(cm.has_friction_state[j]) if j < len(cm.has_friction_state) else 0
        e(f"# clearance joint {j}: bushing body {bi}, journal body {bj}")
        e(f"phb = {Bb['p']}; phj = {Bj['p']}; psi = 0.0")
        e(f"cb = {Bb['c']}; sb = {Bb['s']}")
        px, py = _point(Bb, f"clr_f[{j}, 0]", f"clr_f[{j}, 1]", bi < 0)
        e(f"Pbx = {px}; Pby = {py}")
        px, py = _point(Bj, f"clr_f[{j}, 2]", f"clr_f[{j}, 3]", bj < 0)
        e(f"Pjx = {px}; Pjy = {py}")
        e(f"Rb = clr_f[{j}, 4]; Rj = clr_f[{j}, 5]")
        e("ex = Pjx - Pbx; ey = Pjy - Pby")
        e("ebx = cb * ex + sb * ey; eby = -sb * ex + cb * ey")
        e(f"hbm = clr_f[{j}, {REV_HB_MAX}]; hjm = clr_f[{j}, {REV_HJ_MAX}]")
        e(f"worn = not (int(clr_f[{j}, {REV_NODES}]) == 0 or hbm + hjm <= 0.0)")
        e("if worn:")
        e(f"    delta, psi, hb, hj = worn_penetration(clr_f[{j}], ebx, eby, phj - phb)")
        e("    em = math.sqrt(ebx * ebx + eby * eby)")
        e("    cp_ = math.cos(psi); sp_ = math.sin(psi)")
        e("else:")
        e("    em = math.sqrt(ebx * ebx + eby * eby)")
        e("    delta = em - (Rb - Rj)")
        e("    hb = 0.0; hj = 0.0")
        e("    if em > 1e-300 and hbm + hjm <= 0.0:")
        e("        cp_ = ebx / em; sp_ = eby / em")
        if full:   # worn_penetration's angle of a circular joint
            e("        psi = math.atan2(eby, ebx)")
        e("    else:")
        e("        psi = math.atan2(eby, ebx) if em > 1e-300 else 0.0")
        e("        cp_ = math.cos(psi); sp_ = math.sin(psi)")
        e("nx = cb * cp_ - sb * sp_; ny = sb * cp_ + cb * sp_")
        e("qbx = Pbx + (Rb + hb) * nx; qby = Pby + (Rb + hb) * ny")
        e("qjx = Pjx + (Rj - hj) * nx; qjy = Pjy + (Rj - hj) * ny")
        vx, vy = _velocity(Bb, "qbx", "qby", bi < 0)
        e(f"vbx = {vx}; vby = {vy}")
        vx, vy = _velocity(Bj, "qjx", "qjy", bj < 0)
        e(f"vjx = {vx}; vjy = {vy}")
        e("vrx = vjx - vbx; vry = vjy - vby")
        e("vn = vrx * nx + vry * ny")
        e("vt = -vrx * ny + vry * nx")
        e("fn = 0.0")
        e(f"dmj = dm[{p0}]")
        e("if delta > 0.0 and dmj >= 0.0:")
        e.ind += 1
        e(f"fn, raised = {ck}(delta, vn, dmj, cpar[{j}])")
        # clearance._contact_fault
        e("if raised:")
        e(f"    return {j * N_FAULT + FAULT_CONTACT_RAISED}")
        e("if not math.isfinite(fn):")
        e(f"    return {j * N_FAULT + FAULT_CONTACT_NONFINITE}")
        e("if fn < 0.0:")
        e(f"    return {j * N_FAULT + FAULT_CONTACT_TENSILE}")
        e.ind -= 1
        if fk is None:      # no friction law: ft = 0, zdot = 0 always pass the checks
            e("ft = 0.0")
            if zdot:
                e(f"ydot[{2 * 3 * cm.nb + p0}] = 0.0")
        else:
            e("ft = 0.0; zd = 0.0; raised = False")
            e("if fn > 0.0:" if not has_z else "if True:")
            e(f"    ft, zd, raised = {fk}(vt, fn, y[{2 * 3 * cm.nb + p0}], fpar[{j}])")
            if not has_z:
                e("zd = 0.0")
            # clearance._friction_fault
            e("if raised:")
            e(f"    return {j * N_FAULT + FAULT_FRICTION_RAISED}")
            e("if not (math.isfinite(ft) and math.isfinite(zd)):")
            e(f"    return {j * N_FAULT + FAULT_FRICTION_NONFINITE}")
            e(f"if abs(ft) > clr_f[{j}, {CL_FRICTION_BOUND}] * fn * (1.0 + {FRICTION_BOUND_SLACK!r}) + 1e-300:")
            e(f"    return {j * N_FAULT + FAULT_FRICTION_BOUND}")
            if zdot:
                e(f"ydot[{2 * 3 * cm.nb + p0}] = zd")
        e("fx = -fn * nx - ft * ny")
        e("fy = -fn * ny + ft * nx")
        _apply(e, bj, "qjx", "qjy", "fx", "fy")
        _apply(e, bi, "qbx", "qby", "-fx", "-fy")
        e("pc += fn * vn")
        e("pf -= ft * vt")
        e(f"rec[{j}, 0] = fn; rec[{j}, 1] = ft; rec[{j}, 2] = delta")
        e(f"rec[{j}, 3] = ebx; rec[{j}, 4] = eby")
        e(f"rec[{j}, 7] = psi")
        e(f"rec[{j}, 8] = phj - phb")
        e(f"rec[{j}, 5] = vt; rec[{j}, 6] = vn")


def _kernel_wrappers(cm):
    """Per clearance joint, the names of its contact and friction call wrappers (None: no
    friction law) and their source: the kernel called directly, its exception turned into a flag
    as the C wrappers of :mod:`.kernels` do."""
    from .kernels import _no_friction
    names, src, imports = [], [], {}
    for j in range(len(cm.clr_i)):
        mod, name = kernel_import(cm.contact_kernels[j])
        imports[f"_ck{j}"] = (mod, name)
        src += [f"@njit(cache=True)", f"def _contact{j}(delta, vn, dm, p):", "    try:",
                f"        return _ck{j}(delta, vn, dm, p), False", "    except Exception:  # noqa: BLE001",
                "        return math.nan, True", ""]
        fk = getattr(cm.friction_kernels[j], "_workbench_kernel", None)
        if fk is _no_friction:
            names.append((f"_contact{j}", None))
            continue
        mod, name = kernel_import(cm.friction_kernels[j])
        imports[f"_fk{j}"] = (mod, name)
        src += [f"@njit(cache=True)", f"def _friction{j}(vt, fn, z, p):", "    try:",
                f"        ft, dz = _fk{j}(vt, fn, z, p)", "        return ft, dz, False",
                "    except Exception:  # noqa: BLE001", "        return math.nan, 0.0, True", ""]
        names.append((f"_contact{j}", f"_friction{j}"))
    return names, src, imports


def _prologue(e, cm):
    """The bodies' coordinates, rates, cos and sin, the velocities and inverse masses as scalars."""
    n = 3 * cm.nb
    for b in range(cm.nb):
        e(f"x{b} = y[{3 * b}]; y{b} = y[{3 * b + 1}]; p{b} = y[{3 * b + 2}]")
        e(f"vx{b} = y[{n + 3 * b}]; vy{b} = y[{n + 3 * b + 1}]; w{b} = y[{n + 3 * b + 2}]")
        e(f"c{b} = math.cos(p{b}); s{b} = math.sin(p{b})")
    for k in range(n):
        e(f"v_{k} = y[{n + k}]")


def _rhs_body(e, cm, names, name, full):
    from .codegen_constraints import emit_constraints
    n = 3 * cm.nb
    npts = cm.n_points
    e.ind = 0
    e("@njit(cache=True, inline=\"always\")")
    e(f"def {name}(t, y, dm, ydot, lam, rec, minv, alpha, beta, mass, cons_f, drv_f, frc_f, gravity, "
      "clr_f, cpar, fpar):")
    e.ind = 1
    _prologue(e, cm)
    for k in range(n):
        e(f"minv_{k} = minv[{k}]")
    _forces(e, cm)
    _clearance(e, cm, names, full=full)
    if cm.n_rows > 0:
        emit_constraints(e, cm)
    else:
        e("pdrv = 0.0")
        for k in range(n):
            e(f"ydot[{n + k}] = Q{k} / mass[{k}]")
    for k in range(n):
        e(f"ydot[{k}] = v_{k}")
    e(f"ydot[{2 * n + npts}] = pdrv")
    e(f"ydot[{2 * n + npts + 1}] = pc")
    e(f"ydot[{2 * n + npts + 2}] = pf")
    e(f"ydot[{2 * n + npts + 3}] = pd")
    e("return -1")
    e.ind = 0
    e("")
    e("")


_ARGS = ("t, y, dm, ydot, lam, rec, ws.minv, alpha, beta, model.mass, model.cons_f, model.drv_f, "
         "model.frc_f, model.gravity, model.clr_f, model.cpar, model.fpar")


def rhs_source(cm) -> tuple[str, dict]:
    """Source of the specialised functions for the structure of the compiled model ``cm`` (see the
    module docstring), and the kernels it imports as ``{global name: (module, name)}``:
    ``rhs`` (the signature of :func:`.equations.rhs`, for the integrator: its record without the
    circular joints' contact angle), ``rhs_full`` (the same with the full record, for the output
    samples) and ``probe`` (the signature of :func:`.dense.probe`: the clearance joints alone at a
    dense-output state, for the impact table)."""
    names, wrappers, imports = _kernel_wrappers(cm)
    e = _Src()
    e.lines += wrappers
    for name, full in (("_rhs", False), ("_rhs_full", True)):
        _rhs_body(e, cm, names, name, full)
    e.ind = 0
    for name in ("rhs", "rhs_full"):
        e("@njit(cache=True, inline=\"always\")")
        e(f"def {name}(t, y, dm, ydot, lam, rec, ws, alpha, beta, model):")
        e(f"    return _{name}({_ARGS})")
        e("")
        e("")
    # dense.probe: the clearance records at a state of the dense output
    e("@njit(cache=True)")
    e("def _clearance_only(y, dm, rec, clr_f, cpar, fpar):")
    e.ind = 1
    _prologue(e, cm)
    for k in range(3 * cm.nb):
        e(f"Q{k} = 0.0")
    _clearance(e, cm, names, full=False, zdot=False)
    e("return -1")
    e.ind = 0
    e("")
    e("")
    e("@njit(cache=True)")
    e("def probe(y, K, h, th, dm, model, ys, Qs, zds, recs, tmps):")
    e("    _dense_gaps(y, K, h, th, ys)   # the entries the clearance joints read")
    e("    return _clearance_only(ys, dm, recs, model.clr_f, model.cpar, model.fpar) == -1")
    return "\n".join(e.lines) + "\n", imports
