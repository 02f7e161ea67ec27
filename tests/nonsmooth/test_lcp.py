"""Lemke's method against brute-force enumeration of complementary bases, and closed forms."""
import numpy as np
import pytest

from workbench.nonsmooth.lcp import enumerate_lcp, is_solution, lemke


def test_closed_form_two_by_two():
    # M = [[2, 1], [1, 2]], q = [-5, -6]: both active, z = M^-1 (-q) = (4/3, 7/3).
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-5.0, -6.0])
    res = lemke(M, q)
    assert res.status == "solved"
    np.testing.assert_allclose(res.z, [4 / 3, 7 / 3], rtol=1e-12)
    np.testing.assert_allclose(res.w, [0.0, 0.0], atol=1e-12)


def test_one_side_active():
    # q = [-1, 3]: z1 = 1/2 (w1 = 0), z2 = 0 with w2 = 3 + 1/2 > 0.
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    res = lemke(M, np.array([-1.0, 3.0]))
    np.testing.assert_allclose(res.z, [0.5, 0.0], atol=1e-14)
    np.testing.assert_allclose(res.w, [0.0, 3.5], atol=1e-14)


def test_trivial_when_q_nonnegative():
    res = lemke(np.eye(3), np.array([1.0, 0.0, 2.0]))
    assert res.status == "solved" and res.pivots == 0
    np.testing.assert_array_equal(res.z, 0.0)


@pytest.mark.parametrize("seed", range(40))
def test_lemke_matches_enumeration_on_p_matrices(seed):
    # A P-matrix LCP has exactly one solution (Cottle, Pang & Stone (1992) Theorem 3.3.7):
    # Lemke must find the one the enumeration finds.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    A = rng.normal(size=(n, n))
    M = A @ A.T + 0.1 * np.eye(n) + rng.normal(scale=0.3, size=(n, n)) * np.triu(np.ones((n, n)), 1)
    M = 0.5 * (M + M.T) + 0.3 * (np.triu(M, 1) - np.triu(M, 1).T)   # positive definite, unsymmetric
    q = rng.normal(size=n) * 3
    sols = enumerate_lcp(M, q, all_solutions=True)
    assert len(sols) == 1
    res = lemke(M, q)
    assert res.status == "solved"
    assert is_solution(M, q, res.z)
    np.testing.assert_allclose(res.z, sols[0], rtol=1e-9, atol=1e-11)


def test_infeasible_problem_reports_a_ray():
    # w = -z - 1 can never be >= 0 with z >= 0: no solution, the enumeration agrees.
    M = np.array([[-1.0]])
    q = np.array([-1.0])
    assert enumerate_lcp(M, q) == []
    assert lemke(M, q).status == "ray"


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="shape"):
        lemke(np.eye(2), np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        lemke(np.array([[np.nan]]), np.array([-1.0]))
