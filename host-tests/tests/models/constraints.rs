//! Distance constraints and the linear potential: derivatives, values, validation.

use super::*;

#[test]
fn distances_derivatives_match_central_differences() {
    // Three nodes in the plane: an anchored rod, a rod between nodes, and a rod to a second anchor.
    let g = PlanarDistances::<f64, 6, 3>::new([
        Link::anchored(0, vector![0.3, -0.2], 1.0),
        Link::between(1, 0, 1.5),
        Link::between(1, 2, 0.7),
    ])
    .unwrap();
    let mut r = rng(1);
    for _ in 0..5 {
        let q = random_vector::<6>(&mut r, 2.0);
        let w = random_vector::<3>(&mut r, 3.0);
        let a = random_vector::<6>(&mut r, 1.0);
        check_constraint(&g, &q, &w, &a);
    }
    // Three dimensions, and a node linked to a later node.
    let g3 = Distances::<f64, 3, 6, 2>::new([
        Link::between(0, 1, 2.0),
        Link::anchored(1, vector![1.0, 2.0, 3.0], 0.5),
    ])
    .unwrap();
    for _ in 0..5 {
        let q = random_vector::<6>(&mut r, 2.0);
        let w = random_vector::<2>(&mut r, 3.0);
        let a = random_vector::<6>(&mut r, 1.0);
        check_constraint(&g3, &q, &w, &a);
    }
}

#[test]
fn distances_value_is_squared_distance_minus_length_squared() {
    let g = PlanarDistances::<f64, 4, 2>::new([
        Link::anchored(0, vector![1.0, 1.0], 2.0),
        Link::between(1, 0, 3.0),
    ])
    .unwrap();
    let q = vector![4.0, 5.0, 4.0, 1.0];
    // |(4,5) − (1,1)|² − 4 = 25 − 4; |(4,1) − (4,5)|² − 9 = 16 − 9.
    assert_eq!(g.value(&q), vector![21.0, 7.0]);
}

#[test]
fn distances_reject_bad_links() {
    type G = PlanarDistances<f64, 4, 1>;
    let origin = vector![0.0, 0.0];
    assert_eq!(
        G::new([Link::between(0, 2, 1.0)]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "node",
            bound: "< N / DIM"
        }
    );
    assert_eq!(
        G::new([Link::anchored(2, origin, 1.0)]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "node",
            bound: "< N / DIM"
        }
    );
    assert_eq!(
        G::new([Link::between(1, 1, 1.0)]).unwrap_err(),
        ConfigError::Inconsistent {
            name: "link ends distinct"
        }
    );
    assert_eq!(
        G::new([Link::between(0, 1, 0.0)]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "length",
            bound: "> 0"
        }
    );
    assert_eq!(
        G::new([Link::between(0, 1, f64::NAN)]).unwrap_err(),
        ConfigError::NonFinite { name: "length" }
    );
    assert_eq!(
        G::new([Link::anchored(0, vector![f64::INFINITY, 0.0], 1.0)]).unwrap_err(),
        ConfigError::NonFinite { name: "anchor" }
    );
    assert_eq!(
        PlanarDistances::<f64, 5, 1>::new([Link::between(0, 1, 1.0)]).unwrap_err(),
        ConfigError::Inconsistent {
            name: "N divisible by DIM"
        }
    );
    assert_eq!(
        Distances::<f64, 0, 4, 1>::new([Link::anchored(0, vector![], 1.0)]).unwrap_err(),
        ConfigError::OutOfRange {
            name: "DIM",
            bound: ">= 1"
        }
    );
    assert_eq!(
        PlanarDistances::<f64, 6, 2>::chain(origin, vector![1.0, 1.0]).unwrap_err(),
        ConfigError::Inconsistent {
            name: "N = DIM * D"
        }
    );
}

#[test]
fn linear_potential_rejects_non_finite() {
    assert_eq!(
        LinearPotential::<f64, 2>::new(vector![1.0, f64::NAN]).unwrap_err(),
        ConfigError::NonFinite { name: "linear" }
    );
    let v = LinearPotential::<f64, 2>::new(vector![1.0, -2.0]).unwrap();
    assert_eq!(v.energy(&vector![3.0, 1.0]), 1.0);
    check_potential(&v, &vector![0.3, 0.4], &vector![1.0, -1.0]);
}
