"""Moreau-Jean time stepping for planar mechanisms with non-smooth revolute clearance joints.

The revolute clearance joint as a unilateral contact (Moreau (1988); Jean (1999); Acary &
Brogliato (2008) ch. 10), not as a compliant force law:

* **Gap.**  ``g = c - |e|`` with ``c`` the radial clearance [m] and ``e`` the journal centre
  relative to the bushing centre [m]; ``n = e / |e|`` points from the bushing centre to the
  contact.  The normal velocity is the gap rate ``u_N = W_N q'`` (``W_N = dg/dq``, positive
  when the journal moves away from the wall); the tangential velocity ``u_T = W_T q'`` is the
  slip of the journal's material point at the contact over the bushing's, along ``t = k x n``.
* **Step** (fixed ``h``; Moreau's midpoint scheme, the theta-method with **theta = 1/2** for the
  positions): ``q_m = q_k + h/2 v_k``; at ``q_m``, ``t_m = t_k + h/2``,
  ``M (v_k+1 - v_k) = h Q(q_m, v_k) + J^T Lambda + W_N^T P_N + W_T^T P_T`` with the ideal joints'
  and drivers' rows as equality impulses ``J v_k+1 + Phi_t = 0``; ``q_k+1 = q_m + h/2 v_k+1``.
  The mass matrix of absolute planar coordinates is constant and diagonal, so the bilateral
  impulses are eliminated by the Schur complement ``J M^-1 J^T``.
* **Contact law** on the active set (the gap predicted at the end of the step,
  ``g(q_m) + h/2 u_N(q_m, v_k) <= 0``): Signorini's condition with Newton's restitution at
  velocity level ``0 <= P_N _|_ u_N+ + e_n min(u_N-, 0) >= 0``, and Coulomb's friction
  ``|P_T| <= mu P_N``
  with the 2-D friction cone's two facets ``P_T = beta_+ - beta_-`` and the slack ``lambda``
  (Stewart & Trinkle (1996); Anitescu & Potra (1997)): ``0 <= beta_+- _|_ lambda +- u_T+ >= 0``,
  ``0 <= lambda _|_ mu P_N - beta_+ - beta_- >= 0``.  One LCP per step, solved by
  :func:`workbench.nonsmooth.lcp.lemke` (or :func:`~workbench.nonsmooth.lcp.enumerate_lcp`, the
  brute-force oracle).
* **Drift.**  The velocity-level rows let positions drift by ``O(h^2)`` a step: the ideal
  joints, and a journal sliding along the bushing wall (``u_N = 0`` holds the gap only to first
  order on the curved wall: about ``(h u_T)^2 / (2 c)`` a step, 3e-5 m = 6 % of the clearance
  within 0.3 ms on the Flores slider-crank).  After each step the positions are therefore
  **projected** onto ``Phi(q, t_k+1) = 0`` and ``g >= 0`` (every penetrated joint's ``g = 0``),
  by the mass-weighted least-norm Gauss-Newton correction; velocities are not projected (the
  position-projected Moreau-Jean scheme of Acary (2013)).

A study selects the scheme with ``[solver] engine = "moreau_jean"`` (older spelling: ``method =
"moreau_jean"``) and ``step`` (the engine :mod:`workbench.engines.moreau_jean`); the run and its
dataset are :mod:`workbench.nonsmooth.mj_results`.

The friction coefficient is the Coulomb ``mu`` of the joint's law (``coulomb``,
``coulomb_set_valued``: ``mu``; ``ambrosio``: ``c_f``), its regularisation velocities unused: the
scheme takes Coulomb's law set-valued.  Laws with a Stribeck curve or internal states are refused.
"""
from __future__ import annotations

import dataclasses
import time as _time
from dataclasses import dataclass

import numpy as np

from ..errors import SolverError
from ..mbs.mechanism import RevoluteClearanceJoint
from .lcp import enumerate_lcp, lemke

#: friction laws the scheme takes, and the parameter holding their Coulomb coefficient
COULOMB_PARAM = {"coulomb": "mu", "coulomb_set_valued": "mu", "ambrosio": "c_f"}


@dataclass(frozen=True)
class Contact:
    """A revolute clearance joint as the scheme uses it (SI units)."""
    name: str
    bb: int               # bushing body (-1 ground)
    bj: int               # journal body
    sb: np.ndarray        # bushing centre, bushing-body coordinates [m]
    sj: np.ndarray        # journal centre, journal-body coordinates [m]
    rb: float             # bushing radius [m]
    clearance: float      # c [m]
    e_n: float            # Newton's restitution coefficient [1]
    mu: float             # Coulomb coefficient [1]


def problems(mech, restitution=None) -> list[tuple[str, str]]:
    """``(key, message)`` for everything in ``mech`` this scheme does not run."""
    out = []
    if getattr(mech, "beams", ()):
        out.append(("mechanism.beams", "solver.method = 'moreau_jean' runs rigid bodies only; "
                                       "valid: no beams (or another solver.method)"))
    for i, c in enumerate(mech.clearance_joints):
        key = f"mechanism.clearance_joints[{i}]"
        if not isinstance(c, RevoluteClearanceJoint):
            out.append((f"{key}.type", f"clearance joint '{c.name}': solver.method = 'moreau_jean' "
                                       f"takes revolute clearance joints only; valid: 'revolute'"))
            continue
        f = c.friction
        if f is not None and f.name not in COULOMB_PARAM:
            out.append((f"{key}.friction.model",
                        f"clearance joint '{c.name}': friction model '{f.name}' has no single "
                        f"Coulomb coefficient for solver.method = 'moreau_jean'; valid choices: "
                        f"{', '.join(sorted(COULOMB_PARAM))} (or no friction)"))
        if restitution is None and getattr(getattr(c.contact, "params", None), "restitution",
                                           None) is None:
            out.append((f"{key}.contact", f"clearance joint '{c.name}': contact model "
                                          f"'{c.contact.name}' has no restitution; give "
                                          f"[solver] restitution (0 <= e_n <= 1)"))
    for j in mech.joints:
        if getattr(j, "friction", None) is not None:
            out.append(("mechanism.joints", f"joint '{j.name}' carries friction, which "
                                            f"solver.method = 'moreau_jean' does not take; valid: "
                                            f"frictionless ideal joints"))
    return out


def contacts(mech, restitution=None) -> list[Contact]:
    """The scheme's view of ``mech``'s clearance joints; ``restitution`` [1], when given,
    replaces the contact laws' own."""
    probs = problems(mech, restitution)
    if probs:
        raise SolverError("; ".join(f"{k}: {m}" for k, m in probs))
    out = []
    for c in mech.clearance_joints:
        e_n = restitution if restitution is not None else c.contact.params.restitution
        mu = 0.0 if c.friction is None else float(getattr(c.friction.params,
                                                          COULOMB_PARAM[c.friction.name]))
        out.append(Contact(c.name, mech.body_index(c.bushing_body), mech.body_index(c.journal_body),
                           mech.point(c.bushing_body, c.bushing_point),
                           mech.point(c.journal_body, c.journal_point), float(c.bushing_radius),
                           float(c.clearance), float(e_n), mu))
    return out


def _rot(phi):
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


class MoreauJean:
    """The time stepper of ``mech``.

    Parameters
    ----------
    mech : the mechanism (its clearance joints revolute).
    restitution : Newton's coefficient e_n [1] for every clearance joint (None: each contact
        law's ``restitution``).
    lcp : ``"lemke"`` or ``"enumerate"`` (the brute-force oracle, for tests).
    t0 : assembly time [s] (journal centred, the ideal mechanism's velocities).
    """

    def __init__(self, mech, *, restitution=None, lcp: str = "lemke", t0: float = 0.0):
        from ..mbs.compiled import compile_mechanism
        from ..mbs.solver import assemble
        if lcp not in ("lemke", "enumerate"):
            raise ValueError(f"lcp must be 'lemke' or 'enumerate', got {lcp!r}")
        self.mech, self.lcp_solver = mech, lcp
        self.contacts = contacts(mech, restitution)
        self.q0, self.qd0 = assemble(mech, t0)
        free = dataclasses.replace(mech, clearance_joints=())
        self.cm = compile_mechanism(free, angles=self.q0[2::3])
        self.n, self.m = 3 * self.cm.nb, self.cm.n_rows
        self.minv = 1.0 / np.asarray(self.cm.mass, float)
        self.driver_rows = np.asarray(self.cm.driver_rows, int)

    # ------------------------------------------------------------------ pieces
    def constraints(self, t, q, qd):
        """``Phi`` [m, rad], ``J``, ``Phi_t`` of the ideal joints and drivers."""
        from ..mbs.kinematics import constraints
        m, n, cm = self.m, self.n, self.cm
        Phi, J, gam, Phit = np.zeros(m), np.zeros((m, n)), np.zeros(m), np.zeros(m)
        if m:
            constraints(float(t), q, qd, cm.cons_i, cm.cons_f, cm.drv_f, Phi, J, gam, Phit)
        return Phi, J, Phit

    def forces(self, q, qd):
        """Generalised applied forces ``Q`` [N, N m] and the damper dissipation rate [W]."""
        from ..mbs.equations import element_forces
        cm = self.cm
        Q = np.zeros(self.n)
        pd = element_forces(q, qd, Q, cm.frc_i, cm.frc_f, cm.gravity, cm.mass)
        return Q, pd

    def gap(self, q, c: Contact):
        """``g`` [m], ``W_N``, ``W_T`` (rows of the gap rate and slip [m/s per unit q'])
        and the eccentricity ``e`` [m] (global frame)."""
        n = self.n
        if c.bb >= 0:
            rb, Rb = q[3 * c.bb:3 * c.bb + 2], _rot(q[3 * c.bb + 2])
        else:
            rb, Rb = np.zeros(2), np.eye(2)
        rj, Rj = q[3 * c.bj:3 * c.bj + 2], _rot(q[3 * c.bj + 2])
        pb, pj = rb + Rb @ c.sb, rj + Rj @ c.sj
        e = pj - pb
        r = float(np.hypot(*e))
        nv = e / r if r > 1e-300 else np.array([1.0, 0.0])
        tv = np.array([-nv[1], nv[0]])
        pc = pb + c.rb * nv                       # contact point (on the bushing wall)
        WN, WT = np.zeros(n), np.zeros(n)
        for b, r0, sgn in ((c.bj, rj, 1.0), (c.bb, rb, -1.0)):
            if b < 0:
                continue
            # u.v of a material point p: u . (v_b + w k x (p - r_b))
            for W, u, p in ((WN, nv, pj if sgn > 0 else pb), (WT, tv, pc)):
                d = p - r0
                W[3 * b:3 * b + 2] += sgn * u
                W[3 * b + 2] += sgn * (d[0] * u[1] - d[1] * u[0])
        return c.clearance - r, -WN, WT, e

    # ------------------------------------------------------------------ one step
    def lcp(self, t, q, v, h):
        """The step's problem: ``(M_lcp, q_lcp, data)`` (``M_lcp`` None when no contact is
        active); ``data`` holds what :meth:`step` needs to finish the step."""
        n, minv = self.n, self.minv
        qm, tm = q + 0.5 * h * v, t + 0.5 * h
        Q, pd = self.forces(qm, v)
        Phi, J, Phit = self.constraints(tm, qm, v)
        vf = v + h * minv * Q
        S = (J * minv) @ J.T
        # v_b: the free velocity with the bilateral impulses
        vb = vf - minv * (J.T @ np.linalg.solve(S, J @ vf + Phit)) if self.m else vf
        act, WN, WT, gaps = [], [], [], []
        for k, c in enumerate(self.contacts):
            g, wn, wt, _ = self.gap(qm, c)
            gaps.append(g)
            if g + 0.5 * h * float(wn @ v) <= 0.0:
                act.append(k); WN.append(wn); WT.append(wt)
        data = dict(qm=qm, tm=tm, J=J, S=S, vf=vf, vb=vb, Phit=Phit, act=act, pd=pd,
                    WN=np.array(WN).reshape(-1, n), WT=np.array(WT).reshape(-1, n))
        if not act:
            return None, None, data
        # Pm: the mobility of the constrained mechanism, M^-1 - M^-1 J^T S^-1 J M^-1
        Pm = (np.diag(minv) - (minv[:, None] * J.T) @ (np.linalg.solve(S, J) * minv)
              if self.m else np.diag(minv))
        data["Pm"] = Pm
        a = len(act)
        WN, WT = data["WN"], data["WT"]
        e = np.array([self.contacts[k].e_n for k in act])
        mu = np.array([self.contacts[k].mu for k in act])
        GNN, GNT = WN @ Pm @ WN.T, WN @ Pm @ WT.T
        GTN, GTT = WT @ Pm @ WN.T, WT @ Pm @ WT.T
        uN_minus = WN @ v
        # Newton's law acts on an approach only: with e_n u_N- for u_N- > 0 (a contact already
        # separating) the condition would let u_N+ < 0 and the journal sink into the wall
        qN = WN @ vb + e * np.minimum(uN_minus, 0.0)
        qT = WT @ vb
        I, Z = np.eye(a), np.zeros((a, a))
        frictional = bool(np.any(mu > 0.0))
        if frictional:
            M = np.block([[GNN, GNT, -GNT, Z],
                          [GTN, GTT, -GTT, I],
                          [-GTN, -GTT, GTT, I],
                          [np.diag(mu), -I, -I, Z]])
            ql = np.concatenate([qN, qT, -qT, np.zeros(a)])
        else:
            M, ql = GNN, qN
        data.update(frictional=frictional, uN_minus=uN_minus, uT_minus=WT @ v)
        return M, ql, data

    def solve_lcp(self, M, ql):
        if self.lcp_solver == "enumerate":
            got = enumerate_lcp(M, ql)
            if not got:
                raise SolverError("the contact LCP has no solution (enumeration)")
            return got[0]
        res = lemke(M, ql)
        if res.status != "solved":
            raise SolverError(f"Lemke's method failed on the contact LCP ({res.status})")
        return res.z

    def step(self, t, q, v, h):
        """One step from ``(t, q, v)``; returns ``q1``, ``v1`` and a dict of the impulses:
        ``PN``, ``PT`` (per clearance joint [N s]), ``Lambda`` (bilateral [N s, N m s]),
        ``uN_minus``, ``uN_plus``, ``uT_minus``, ``uT_plus`` (per joint [m/s], NaN when inactive)
        and ``damper_work`` [J]."""
        nc = len(self.contacts)
        M, ql, d = self.lcp(t, q, v, h)
        PN, PT = np.zeros(nc), np.zeros(nc)
        uNm, uNp, uTm, uTp = (np.full(nc, np.nan) for _ in range(4))
        r = np.zeros(self.n)
        if M is not None:
            z = self.solve_lcp(M, ql)
            a = len(d["act"])
            pn = z[:a]
            pt = z[a:2 * a] - z[2 * a:3 * a] if d["frictional"] else np.zeros(a)
            r = d["WN"].T @ pn + d["WT"].T @ pt
            PN[d["act"]], PT[d["act"]] = pn, pt
            uNm[d["act"]], uTm[d["act"]] = d["uN_minus"], d["uT_minus"]
        v1 = d["vb"] + d["Pm"] @ r if M is not None else d["vb"]
        if M is not None:
            uNp[d["act"]], uTp[d["act"]] = d["WN"] @ v1, d["WT"] @ v1
        J, minv = d["J"], self.minv
        Lam = (-np.linalg.solve(d["S"], J @ (d["vf"] + minv * r) + d["Phit"]) if self.m
               else np.zeros(0))
        q1 = self.project(t + h, d["qm"] + 0.5 * h * v1)
        return q1, v1, dict(PN=PN, PT=PT, Lambda=Lam, uN_minus=uNm, uN_plus=uNp, uT_minus=uTm,
                            uT_plus=uTp, Phit=d["Phit"], damper_work=h * d["pd"])

    def project(self, t, q, tol: float = 1e-13, max_iter: int = 20):
        """``q`` moved onto ``Phi(q, t) = 0`` and out of every clearance-joint penetration
        (``g < 0`` made ``g = 0``) by the mass-weighted least-norm Gauss-Newton correction."""
        zero = np.zeros(self.n)
        for _ in range(max_iter):
            Phi, J, _ = self.constraints(t, q, zero)
            rows, res = [J], [Phi]
            for c in self.contacts:
                g, wn, _, _ = self.gap(q, c)
                if g < 0.0:
                    rows.append(wn[None, :]); res.append([g])
            A, r = np.vstack(rows), np.concatenate(res)
            if not r.size or np.abs(r).max() <= tol:
                return q
            q = q - self.minv * (A.T @ np.linalg.solve((A * self.minv) @ A.T, r))
        raise SolverError(f"t = {t:.9g} s: the position projection did not converge "
                          f"(residual {np.abs(r).max():.3e})")


def run(stepper: MoreauJean, t_end: float, h: float, *, t0: float = 0.0, every: int = 1,
        open_fraction: float = 1e-3):
    """Step from the assembled state to ``t_end`` [s] with step ``h`` [s]; keep every
    ``every``-th state.  Returns a dict of arrays (``time``, ``q``, ``v``, per kept sample the
    impulses of the step that ends there) and the impact table: contact starts, a step with
    ``P_N > 0`` after the joint's gap has opened beyond ``open_fraction`` [1] of the clearance."""
    nsteps = int(round((t_end - t0) / h))
    if not (nsteps >= 1 and abs(nsteps * h - (t_end - t0)) <= 1e-9 * max(t_end - t0, h)):
        raise SolverError(f"solver.step = {h:g} s must divide the run length {t_end - t0:g} s")
    q, v = stepper.q0.copy(), stepper.qd0.copy()
    nc, n = len(stepper.contacts), stepper.n
    keep = nsteps // every + 1
    out = {k: np.zeros(s) for k, s in dict(time=(keep,), q=(keep, n), v=(keep, n), PN=(keep, nc),
                                           PT=(keep, nc), uT=(keep, nc), Lambda=(keep, stepper.m),
                                           W_drv=(keep,), D_fric=(keep,), D_cont=(keep,),
                                           D_damp=(keep,)).items()}
    out["time"][0], out["q"][0], out["v"][0] = t0, q, v
    imp_t, imp_v, imp_j = [], [], []
    closed = np.zeros(nc, bool)
    # friction events (workbench.nonsmooth.events): each frictional contact's state after a step
    # with P_N > 0 -- stick (u_T+ = 0, |P_T| within mu P_N), slip + or - -- and its changes
    fr_state, fr_events = np.zeros(nc, np.int8), []
    W = np.zeros(4)            # driver work, friction, contact (impact) and damper losses [J]
    status, wall, t, i = "complete", _time.perf_counter(), t0, 0
    try:
        for i in range(1, nsteps + 1):
            q, v, s = stepper.step(t, q, v, h)
            t = t0 + i * h
            now = s["PN"] > 0.0
            for k in np.flatnonzero(now & ~closed):
                imp_t.append(t), imp_v.append(-float(s["uN_minus"][k])), imp_j.append(int(k))
            _friction_events(stepper, s, now, fr_state, fr_events, t, h)
            # a joint reopens when its gap exceeds open_fraction c: a step without impulse in a
            # sliding contact (the journal lifted by h u_N ~ nm) is no new contact start
            closed = now | (closed & np.array([stepper.gap(q, c)[0] <= open_fraction * c.clearance
                                               for c in stepper.contacts], bool))
            dr = stepper.driver_rows
            W[0] += -float(s["Lambda"][dr] @ s["Phit"][dr]) if len(dr) else 0.0
            act = ~np.isnan(s["uN_minus"])
            W[1] += -float(np.sum((s["PT"] * (s["uT_minus"] + s["uT_plus"]))[act])) / 2
            W[2] += -float(np.sum((s["PN"] * (s["uN_minus"] + s["uN_plus"]))[act])) / 2
            W[3] += s["damper_work"]
            if i % every == 0:
                j = i // every
                out["time"][j], out["q"][j], out["v"][j] = t, q, v
                out["PN"][j], out["PT"][j], out["Lambda"][j] = s["PN"], s["PT"], s["Lambda"]
                out["uT"][j] = np.where(act, s["uT_plus"], np.nan)
                out["W_drv"][j], out["D_fric"][j], out["D_cont"][j], out["D_damp"][j] = W
    except KeyboardInterrupt:
        status = "interrupted"
    done = (i if status == "complete" else i - 1) // every + 1
    out = {k: a[:done] for k, a in out.items()}
    out["impacts"] = (np.array(imp_t), np.array(imp_v), np.array(imp_j, np.int64))
    out["friction_events"] = fr_events
    out["stats"] = {"steps": i if status == "complete" else i - 1, "rejected_steps": 0,
                    "wall_time": _time.perf_counter() - wall, "path": "moreau_jean",
                    "step": h, "lcp": stepper.lcp_solver}
    out["status"] = status
    return out



#: a contact sticks after a step when its tangential velocity u_T+ is below this [m/s] (plus the
#: same fraction of the approach's u_T-): the LCP gives u_T+ = 0 to rounding in stick
STICK_TOL = 1e-9


def _friction_events(stepper, s, now, state, events, t, h):
    """Append to ``events`` the friction events of step ending at ``t`` [s] (step ``h`` [s]):
    ``(t, contact, kind, P_N / h [N])`` with the kinds of :mod:`.events` (stick start, stick ->
    slip, slip reversal) for each frictional contact closed over this step and the one before;
    ``state`` holds each contact's state (0 open, 1 stick, 2 slip +, 3 slip -)."""
    from .events import EV_BREAKAWAY, EV_REVERSAL, EV_STICK
    for k, c in enumerate(stepper.contacts):
        if not now[k] or c.mu <= 0.0:
            state[k] = 0
            continue
        u = float(s["uT_plus"][k])
        st = 1 if abs(u) <= STICK_TOL * (1.0 + abs(float(s["uT_minus"][k]))) else (2 if u > 0.0 else 3)
        prev = int(state[k])
        if prev and st != prev:
            kind = EV_STICK if st == 1 else (EV_BREAKAWAY if prev == 1 else EV_REVERSAL)
            events.append((t, k, kind, float(s["PN"][k]) / h))
        state[k] = st
