//! The quartic bond (004 eq 2.100, §4.2.5) and the FPU chain (004 §2.6.3, §4.2.6).

use super::*;

#[test]
fn quartic_bond_derivatives_match_central_differences() {
    let tied = QuarticBond::<f64, 3>::new(2, Some(0), 0.7).unwrap();
    let well = QuarticBond::<f64, 3>::new(1, None, 1.3).unwrap();
    check_potential_around(&tied, &SVector::zeros(), 1.5, 13);
    check_potential_around(&well, &SVector::zeros(), 1.5, 14);
    assert_eq!(tied.energy(&vector![1.0, 5.0, 3.0]), 0.7 * 16.0);
    assert_eq!(well.energy(&vector![1.0, -2.0, 3.0]), 1.3 * 16.0);
}

#[test]
fn quartic_bond_rejects_bad_parameters() {
    type B = QuarticBond<f64, 2>;
    assert_eq!(
        B::new(2, None, 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "index",
            bound: "< N"
        }
    );
    assert_eq!(
        B::new(0, Some(2), 1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "index",
            bound: "< N"
        }
    );
    assert_eq!(
        B::new(1, Some(1), 1.0).unwrap_err(),
        ConfigError::Inconsistent { name: "i != j" }
    );
    assert_eq!(
        B::new(0, None, f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "kappa" }
    );
}

// ---------------------------------------------------------------------------------------------
// FPU (004 §2.6.3, §4.2.6)

/// The FPU Hamiltonian's potential written in the chain positions `q` (004 eq 4.18), with walls
/// `q₀ = q_{2m+1} = 0`: independent of the rotated-coordinate implementation.
fn fpu_potential_in_chain_coordinates(q: &[f64], omega: f64) -> f64 {
    let m = q.len() / 2;
    let at = |k: usize| {
        if k == 0 || k == 2 * m + 1 {
            0.0
        } else {
            q[k - 1]
        }
    };
    let stiff: f64 = (1..=m).map(|i| (at(2 * i) - at(2 * i - 1)).powi(2)).sum();
    let soft: f64 = (0..=m).map(|i| (at(2 * i + 1) - at(2 * i)).powi(4)).sum();
    omega * omega / 4.0 * stiff + soft
}

#[test]
fn fpu_potential_is_eq_4_18_in_rotated_coordinates() {
    let fpu = Fpu::<f64, 8>::new(7.0).unwrap();
    let sys = fpu.system();
    let mut r = rng(15);
    for _ in 0..5 {
        let x = random_vector::<8>(&mut r, 1.0);
        let q = fpu.to_chain(&x);
        let expected = fpu_potential_in_chain_coordinates(q.as_slice(), 7.0);
        let got = sys.potential.energy(&x);
        assert!(
            (got - expected).abs() < 1e-12 * expected.abs().max(1.0),
            "{got} vs {expected}"
        );
        // eq 4.19 is orthogonal: the round trip is the identity and norms are kept.
        assert!((fpu.from_chain(&q) - x).amax() < 1e-15);
        assert!((q.norm() - x.norm()).abs() < 1e-14);
    }
}

#[test]
fn fpu_derivatives_match_central_differences() {
    let fpu = Fpu::<f64, 6>::new(5.0).unwrap();
    check_potential_around(
        &FpuSoft::<f64, 6>::new().unwrap(),
        &SVector::zeros(),
        1.0,
        16,
    );
    check_potential_around(
        &FpuSoft::<f64, 8>::new().unwrap(),
        &SVector::zeros(),
        1.0,
        17,
    );
    check_potential_around(&fpu.split(), &SVector::zeros(), 1.0, 18);
    // The stiff part is exactly ω²/2 Σ x²_{m+i}.
    let k = fpu.split().stiff.k;
    assert_eq!(
        k,
        SMatrix::<f64, 6, 6>::from_diagonal(&vector![0.0, 0.0, 0.0, 25.0, 25.0, 25.0])
    );
}

fn fpu_paper_start<T: Real + host_tests::Tolerance>() {
    let fpu = Fpu::<T, 6>::paper();
    assert_eq!(fpu.omega(), T::lit(200.0));
    let s = fpu.initial_state();
    let expected = [1.0, 0.0, 0.0, 1.0 / 200.0, 0.0, 0.0];
    for (k, e) in expected.iter().enumerate() {
        assert_eq!(s.q[k], T::lit(*e));
    }
    assert_eq!(s.v, SVector::<T, 6>::zeros());
    // All the stiff energy is in spring 1: ω²/2 (1/ω)² = ½.
    let e0 = fpu.stiff_spring_energy(&s, 0).unwrap().to_f64();
    assert!((e0 - 0.5).abs() < 10.0 * T::EPS);
    assert_eq!(fpu.stiff_spring_energy(&s, 1), Some(T::zero()));
    assert_eq!(fpu.stiff_spring_energy(&s, 3), None);
}
host_tests::for_scalars!(fpu_paper_start);

#[test]
fn fpu_rejects_bad_parameters() {
    assert_eq!(
        Fpu::<f64, 5>::new(1.0).unwrap_err(),
        ConfigError::Inconsistent { name: "N even" }
    );
    assert_eq!(
        Fpu::<f64, 0>::new(1.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "N",
            bound: ">= 1"
        }
    );
    assert_eq!(
        Fpu::<f64, 6>::new(0.0).unwrap_err(),
        ConfigError::OutOfRange {
            name: "omega",
            bound: "> 0"
        }
    );
    assert_eq!(
        Fpu::<f64, 6>::new(f64::NAN).unwrap_err(),
        ConfigError::NonFinite { name: "omega" }
    );
}
