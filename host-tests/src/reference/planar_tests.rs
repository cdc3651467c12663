use super::*;
use crate::reference::chain::{angles_rhs, angles_start, outputs, positions};

/// The textbook double pendulum (point masses `m₁, m₂` on rods `l₁, l₂`, absolute angles):
/// `(θ̈₁, θ̈₂)` from the closed-form Euler–Lagrange solution.
fn double_pendulum_closed_form(
    m: [f64; 2],
    l: [f64; 2],
    g: f64,
    th: [f64; 2],
    w: [f64; 2],
) -> [f64; 2] {
    let d = th[0] - th[1];
    let den = 2.0 * m[0] + m[1] - m[1] * (2.0 * d).cos();
    let a1 = (-g * (2.0 * m[0] + m[1]) * th[0].sin()
        - m[1] * g * (th[0] - 2.0 * th[1]).sin()
        - 2.0 * d.sin() * m[1] * (w[1] * w[1] * l[1] + w[0] * w[0] * l[0] * d.cos()))
        / (l[0] * den);
    let a2 = 2.0
        * d.sin()
        * (w[0] * w[0] * l[0] * (m[0] + m[1])
            + g * (m[0] + m[1]) * th[0].cos()
            + w[1] * w[1] * l[1] * m[1] * d.cos())
        / (l[1] * den);
    [a1, a2]
}

#[test]
fn double_pendulum_matches_closed_form() {
    let (m, l, g) = ([1.3, 0.6], [0.8, 1.7], 9.81);
    let arm = PlanarChain::new(
        [Link::point_mass(l[0], m[0]), Link::point_mass(l[1], m[1])],
        g,
    );
    for (th, w) in [
        ([0.3, -1.1], [0.4, 2.0]),
        ([2.5, 0.7], [-1.5, 0.3]),
        ([-0.2, 3.0], [0.0, 0.0]),
    ] {
        let want = double_pendulum_closed_form(m, l, g, th, w);
        let q = [th[0], th[1] - th[0]];
        let qd = [w[0], w[1] - w[0]];
        let a = arm.accelerations(&q, &qd, &[0.0; 2]);
        let got = [a[0], a[0] + a[1]];
        for k in 0..2 {
            assert!(
                (got[k] - want[k]).abs() < 1e-12 * want[k].abs().max(1.0),
                "θ = {th:?}: {got:?} vs {want:?}"
            );
        }
    }
}

#[test]
fn compound_link_is_a_physical_pendulum() {
    // One rigid link, centre of mass at (a, b) from the pivot, inertia j about it: about the
    // pivot I = j + m(a² + b²), and q̈ = −m g (a sin q + b cos q) / I.
    let (m, a, b, j, g) = (2.0, 0.7, 0.2, 0.05, 3.0);
    let arm = PlanarChain::new([Link::compound(1.0, m, [a, b], j)], g);
    for q in [0.0_f64, 0.4, -2.0] {
        let want = -m * g * (a * q.sin() + b * q.cos()) / (j + m * (a * a + b * b));
        let got = arm.accelerations(&[q], &[1.3], &[0.0])[0];
        assert!((got - want).abs() < 1e-14, "q = {q}: {got} vs {want}");
    }
    // A joint torque adds τ / I.
    let got = arm.accelerations(&[0.0], &[0.0], &[0.5])[0];
    let want = (-m * g * b + 0.5) / (j + m * (a * a + b * b));
    assert!((got - want).abs() < 1e-14);
}

#[test]
fn compound_arm_conserves_energy() {
    // Three unequal compound links with off-axis centres of mass; energy from the links' own
    // velocities (not the dynamics) holds to the solver's accuracy, and is not trivially
    // constant (it would not hold with a wrong velocity-product term: see the perturbed run).
    let arm = PlanarChain::new(
        [
            Link::compound(1.0, 2.0, [0.5, 0.1], 0.2),
            Link::compound(0.7, 1.0, [0.3, -0.05], 0.05),
            Link::compound(0.5, 0.4, [0.25, 0.0], 0.01),
        ],
        9.81,
    );
    let y0: [f64; 6] = [1.2, -0.4, 0.9, 0.5, -1.0, 2.0];
    let e0 = arm.energy(&y0[..3], &y0[3..]);
    let ys = solve_at_step_ends(&arm, y0, 1e-13, &[1.0, 2.0, 5.0]).unwrap();
    for y in &ys {
        let e = arm.energy(&y[..3], &y[3..]);
        assert!((e - e0).abs() < 1e-9 * e0.abs().max(1.0), "{e} vs {e0}");
    }
    // The solution moved (the test is not on a fixed point).
    assert!((ys[2][0] - y0[0]).abs() > 1e-2);
    // A chain with the second link's inertia changed but the energy measured with the original
    // one drifts: the energy check can fail.
    let mut other = arm;
    other.links[1].inertia *= 2.0;
    let ys2 = solve_at_step_ends(&other, y0, 1e-13, &[5.0]).unwrap();
    let e2 = arm.energy(&ys2[0][..3], &ys2[0][3..]);
    assert!((e2 - e0).abs() > 1e-4, "{e2} vs {e0}");
}

#[test]
fn point_mass_chain_matches_the_lu_reference_on_n5() {
    // The O(n) chain against the O(n³) absolute-angle equations (`reference::chain`), both by
    // DOP853 at 1e-13 with outputs at step ends, over T = 3 from the horizontal start.
    const N: usize = 5;
    let times = outputs(3.0, 6);
    let old = crate::reference::solve(
        angles_rhs(N),
        0.0,
        &angles_start(N),
        3.0,
        1e-13,
        1e-13,
        &times,
    );
    let chain = PlanarChain::<N>::unit_pendula();
    let start = angles_start(N);
    let y0: [f64; 10] = state_from_absolute(&start[..N], &start[N..]);
    let new = solve_at_step_ends(&chain, y0, 1e-13, &times).unwrap();
    let mut worst = 0.0_f64;
    for (a, b) in old.iter().zip(&new) {
        let mut pb = Vec::new();
        chain.tips(&b[..N], &mut pb);
        for (x, y) in positions(&a[..N]).iter().zip(&pb) {
            worst = worst.max((x - y).abs());
        }
    }
    assert!(worst < 1e-10, "max position difference {worst:e}");
    // The chain moved a lot (positions of order 1 changed).
    let mut p_end = Vec::new();
    chain.tips(&new[5][..N], &mut p_end);
    assert!((p_end[2 * N - 1]).abs() > 0.5, "{p_end:?}");
}

#[test]
fn dense_peer_solve_is_close_to_the_reference() {
    const N: usize = 4;
    let chain = PlanarChain::<N>::unit_pendula();
    let start = angles_start(N);
    let y0: [f64; 8] = state_from_absolute(&start[..N], &start[N..]);
    let times = outputs(2.0, 4);
    let fine = solve_at_step_ends(&chain, y0, 1e-13, &times).unwrap();
    let loose = solve_dense(&chain, y0, 1e-6, &times).unwrap();
    let err = fine
        .iter()
        .zip(&loose)
        .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    // A loose tolerance is close but visibly not exact.
    assert!(err < 1e-3 && err > 1e-12, "{err:e}");
    assert!(solve_dense::<N, 7>(&chain, [0.0; 7], 1e-6, &times).is_err());
}

#[test]
fn relative_angles_round_trip() {
    assert_eq!(relative(&[1.0, 1.5, 0.5]), vec![1.0, 0.5, -1.0]);
}
