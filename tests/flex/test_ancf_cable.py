"""The planar ANCF cable element (workbench/flex/ancf_cable.py) against closed forms:
forces and tangent are the energy's derivatives; cantilever PL^3/3EI (Euler-Bernoulli) and the
elastica (Bisshopp & Drucker (1945)); bending frequencies of free-free and pinned-pinned beams
(Euler-Bernoulli; Blevins (1979) Table 8-1) with mesh convergence."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import eigh

from workbench.flex.ancf_cable import CableBeam, element_energy, element_forces, element_mass

sys.path.insert(0, str(Path(__file__).parents[1] / "reference"))
import elastica  # noqa: E402

# a steel strip 1 m x 20 mm x 5 mm
L, B, H, E, RHO = 1.0, 0.02, 0.005, 2.07e11, 7850.0
A, I = B * H, B * H ** 3 / 12


def _deformed(rng, le):
    e = np.array([0.0, 0.0, 1.0, 0.0, le, 0.0, 1.0, 0.0])
    return e + rng.normal(scale=0.05, size=8) * np.array([le, le, 1, 1, le, le, 1, 1])


def test_forces_and_tangent_are_exact_derivatives():
    rng = np.random.default_rng(3)
    le, ea, ei = 0.2, E * A, E * I
    for _ in range(5):
        e = _deformed(rng, le)
        Q, K = element_forces(e, ea, ei, le)
        h = 1e-6
        Qfd = np.array([(element_energy(e + h * d, ea, ei, le) - element_energy(e - h * d, ea, ei, le)) / (2 * h)
                        for d in np.eye(8)])
        Kfd = np.array([(element_forces(e + h * d, ea, ei, le)[0] - element_forces(e - h * d, ea, ei, le)[0]) / (2 * h)
                        for d in np.eye(8)]).T
        np.testing.assert_allclose(Q, Qfd, rtol=1e-6, atol=1e-6 * np.abs(Q).max())
        np.testing.assert_allclose(K, Kfd, rtol=1e-5, atol=1e-6 * np.abs(K).max())
        np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=1e-9 * np.abs(K).max())


def test_mass_matrix_carries_mass_and_rotary_inertia():
    beam = CableBeam(L, A, I, E, RHO, 4)
    one_x = np.zeros(beam.n)
    one_x[0::4] = 1.0
    assert one_x @ beam.M @ one_x == pytest.approx(RHO * A * L, rel=1e-13)
    # a rigid rotation rate about the first node: v = omega (-y, x); kinetic energy I_end omega^2 / 2
    q = beam.q0
    v = np.zeros(beam.n)
    v[0::4], v[1::4] = -q[1::4], q[0::4]
    v[2::4], v[3::4] = -q[3::4], q[2::4]
    assert v @ beam.M @ v == pytest.approx(RHO * A * L ** 3 / 3, rel=1e-13)
    np.testing.assert_allclose(element_mass(2.0, 0.5), element_mass(2.0, 0.5).T)


def _clamped_static(beam, load, steps=1):
    """Newton on the free coordinates of a beam clamped at node 0, tip load ``load`` [N]."""
    q = beam.q0.copy()
    free = np.arange(4, beam.n)
    f = np.zeros(beam.n)
    for k in range(1, steps + 1):
        f[beam.n - 4:beam.n - 2] = np.asarray(load) * k / steps
        for _ in range(50):
            Q, K = beam.forces(q)
            res = (f - Q)[free]
            dq = np.linalg.solve(K[np.ix_(free, free)], res)
            q[free] += dq
            if np.abs(dq).max() < 1e-13:
                break
    return q


@pytest.mark.parametrize("n_el", [1, 4])
def test_cantilever_small_deflection(n_el):
    # Euler-Bernoulli: tip deflection P L^3 / (3 E I); cubic Hermite shape functions hold the exact
    # cubic deflection line, so one element is exact up to the geometric nonlinearity, which the
    # single element stiffens by membrane locking: -1.2e-5 at d/L = 1e-4, -1.2e-7 at 1e-5 (it
    # scales as (d/L)^2, i.e. it is not a discretisation error of the linear problem).
    beam = CableBeam(L, A, I, E, RHO, n_el)
    P = 1e-5 * 3 * E * I / L ** 3          # tip deflection 1e-5 L
    q = _clamped_static(beam, (0.0, -P))
    assert -q[-3] == pytest.approx(P * L ** 3 / (3 * E * I), rel=1e-6)


@pytest.mark.parametrize("alpha", [1.0, 5.0])
def test_cantilever_elastica(alpha):
    # Large deflection under a vertical tip load: the elastica of Bisshopp & Drucker (1945).
    th0, x_ref, y_ref = elastica.tip(alpha)
    beam = CableBeam(L, A, I, E, RHO, 16)
    q = _clamped_static(beam, (0.0, -alpha * E * I / L ** 2), steps=10)
    assert q[-4] == pytest.approx(x_ref * L, rel=2e-4)
    assert -q[-3] == pytest.approx(y_ref * L, rel=2e-4)
    assert math.atan2(-q[-1], q[-2]) == pytest.approx(th0, rel=2e-4)


def _frequencies(beam, fixed):
    _, K = beam.forces(beam.q0)
    keep = np.setdiff1d(np.arange(beam.n), fixed)
    w2 = eigh(K[np.ix_(keep, keep)], beam.M[np.ix_(keep, keep)], eigvals_only=True)
    return np.sqrt(np.clip(w2, 0, None))


def test_bending_frequencies_converge_to_euler_bernoulli():
    # Free-free: beta_1 L = 4.7300, beta_2 L = 7.8532; pinned-pinned: beta_n L = n pi
    # (Blevins (1979) Table 8-1), omega = beta^2 sqrt(EI / (rho A)).
    c = math.sqrt(E * I / (RHO * A))
    ff = [4.730040745 ** 2 * c / L ** 2, 7.853204624 ** 2 * c / L ** 2]
    pp = [math.pi ** 2 * c / L ** 2, 4 * math.pi ** 2 * c / L ** 2]
    errors = []
    for n_el in (8, 16, 32):
        beam = CableBeam(L, A, I, E, RHO, n_el)
        w = _frequencies(beam, [])
        w_bend = w[w > 1e-3 * ff[0]][:2]           # three rigid-body modes at ~0
        pins = [0, 1, beam.n - 4, beam.n - 3]
        w_pp = _frequencies(beam, pins)[:2]
        err = max(abs(w_bend[0] / ff[0] - 1), abs(w_bend[1] / ff[1] - 1),
                  abs(w_pp[0] / pp[0] - 1), abs(w_pp[1] / pp[1] - 1))
        errors.append(err)
    assert errors[-1] < 1e-5
    # cubic Hermite elements: frequency errors fall as h^4 (measured 3.9 on 8 -> 16 -> 32 elements)
    orders = [math.log2(errors[i] / errors[i + 1]) for i in range(2)]
    assert min(orders) > 3.5, (errors, orders)


@pytest.mark.parametrize("curvature", ["exact", "material"])
def test_both_curvatures_have_exact_derivatives_and_agree_with_the_fast_kernel(curvature):
    # kappa = (r' x r'') / |r'|^(2p), p = 1.5 (exact) or 1 (material): forces and tangent are the
    # energy's derivatives, and the compiled scalar kernel (beam_forces.element_kernel) and the
    # damping matrix agree with the matrix reference
    from workbench.flex.ancf_cable import CURVATURE_EXPONENT
    from workbench.flex.beam_forces import element_damping, element_kernel
    pw = CURVATURE_EXPONENT[curvature]
    rng = np.random.default_rng(5)
    le, ea, ei = 0.2, E * A, E * I
    e = _deformed(rng, le)
    Q, K = element_forces(e, ea, ei, le, pw)
    h = 1e-6
    Qfd = np.array([(element_energy(e + h * d, ea, ei, le, pw) - element_energy(e - h * d, ea, ei, le, pw)) / (2 * h)
                    for d in np.eye(8)])
    Kfd = np.array([(element_forces(e + h * d, ea, ei, le, pw)[0] - element_forces(e - h * d, ea, ei, le, pw)[0])
                    / (2 * h) for d in np.eye(8)]).T
    np.testing.assert_allclose(Q, Qfd, rtol=1e-6, atol=1e-6 * np.abs(Q).max())
    np.testing.assert_allclose(K, Kfd, rtol=1e-5, atol=1e-6 * np.abs(K).max())
    Qk, Kk, Dk = np.zeros(8), np.zeros((8, 8)), np.zeros((8, 8))
    element_kernel(e, ea, ei, le, 1e-5, Qk, Kk, Dk, True, None, pw)
    np.testing.assert_allclose(Qk, Q, rtol=1e-12, atol=1e-12 * np.abs(Q).max())
    np.testing.assert_allclose(Kk, K, rtol=1e-11, atol=1e-12 * np.abs(K).max())
    np.testing.assert_allclose(Dk, element_damping(e, ea, ei, le, 1e-5, pw), rtol=1e-11, atol=1e-12 * np.abs(Dk).max())
    # the two forms differ by 1 / |r'| in the curvature only: equal on an unstretched arc
    Qo = element_forces(e, ea, ei, le, 2.5 - pw)[0]
    assert np.abs(Qo - Q).max() > 1e-6 * np.abs(Q).max()


def test_curvature_is_a_study_option_with_the_exact_default(registry):
    from workbench.errors import StudyError
    from workbench.flex.mechanism import FlexModel
    from workbench.study.load import load_study_text
    path = Path(__file__).resolve().parents[2] / "studies" / "flexible_slider_crank_ideal.toml"
    text = path.read_text()
    assert "curvature" not in text
    st = load_study_text(text, file=path, registry=registry)
    assert st.mechanism.beams[0].curvature == "exact" and FlexModel(st.mechanism).beams[0][1].pw == 1.5
    mat = text.replace('type = "ancf_beam"', 'type = "ancf_beam"\ncurvature = "material"', 1)
    st = load_study_text(mat, file=path, registry=registry)
    assert st.mechanism.beams[0].curvature == "material" and FlexModel(st.mechanism).beams[0][1].pw == 1.0
    with pytest.raises(StudyError) as info:
        load_study_text(text.replace('type = "ancf_beam"', 'type = "ancf_beam"\ncurvature = "materal"', 1),
                        file=path, registry=registry)
    assert "curvature" in str(info.value) and "material" in str(info.value)
