//! Order of the Zhang–Skeel family and its compositions (log–log slopes of successive
//! differences).

use super::*;

#[test]
fn second_order_zs_zss_stiff_and_fourth_order_composition() {
    let hs = [0.2, 0.1, 0.05, 0.025, 0.0125];
    let zs = successive_difference_slope(
        |h| ZhangSkeel::new(hh(), h, p(0.4)).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    let zss = successive_difference_slope(
        |h| Sylipn::new(hh(), h, p(0.4)).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    let stiff = successive_difference_slope(
        |h| StiffSylipn::new(hh_split(), h, p(0.4)).unwrap(),
        hh_start(),
        2.0,
        &[0.005, 0.0025, 0.00125, 0.000625],
    );
    let zs4 = successive_difference_slope(
        |h| {
            SymmetricComposition::new(
                ZhangSkeel::new(hh(), h, p(0.4)).unwrap(),
                Scheme::TripleJump,
            )
            .unwrap()
        },
        hh_start(),
        2.0,
        &hs,
    );
    let su = successive_difference_slope(
        |h| {
            SymmetricComposition::new(ZhangSkeel::new(hh(), h, p(0.4)).unwrap(), Scheme::Suzuki5)
                .unwrap()
        },
        hh_start(),
        2.0,
        &hs,
    );
    assert!((zs - 2.0).abs() < 0.1, "Z&S order {zs}");
    assert!((zss - 2.0).abs() < 0.1, "Z&Ss order {zss}");
    assert!((stiff - 2.0).abs() < 0.1, "stiff Z&Ss order {stiff}");
    assert!((zs4 - 4.0).abs() < 0.2, "triple-jump Z&S order {zs4}");
    assert!((su - 4.0).abs() < 0.2, "Suzuki Z&S order {su}");
}

#[test]
fn newmark_variants_are_second_order() {
    let hs = [0.2, 0.1, 0.05, 0.025, 0.0125];
    let nm = successive_difference_slope(
        |h| Newmark::new(hh(), h, NewmarkParams::with_beta(0.4)).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    let pf = successive_difference_slope(
        |h| PushForwardNewmark::new(hh(), h, NewmarkParams::with_beta(0.4)).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    let one = successive_difference_slope(
        |h| NewmarkOneIteration::new(hh(), h, p(0.4)).unwrap(),
        hh_start(),
        2.0,
        &hs,
    );
    for (name, s) in [
        ("newmark", nm),
        ("push-forward", pf),
        ("one-iteration", one),
    ] {
        assert!((s - 2.0).abs() < 0.1, "{name} order {s}");
    }
}
