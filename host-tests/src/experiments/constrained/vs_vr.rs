//! `reproduce vs-vr`: SHAKE (VS) vs RATTLE (VR) on the spring chain (001 §3–4, §7, Fig 2).

use crate::report::{figure, sci, Table};
use macrostep::constrained::{ConstraintNewtonParams, Rattle};
use macrostep::Integrator;

/// `reproduce vs-vr`: 001 §3–4 and Fig 2 on the spring chain (`systems::SpringChain`, κ = 1),
/// t ∈ [0, 10], h = 0.01.
pub fn run() {
    use macrostep::constrained::Shake;
    use macrostep::model::Constraint;
    use macrostep::systems::SpringChain;
    let sc = SpringChain::<f64>::paper();
    let (sys, g) = (sc.system(), sc.constraint());
    let h = 0.01;
    let n = 1000;
    let params = ConstraintNewtonParams::default();
    let mut vr = Rattle::new(sys, g, h, params).expect("Rattle");
    let mut vs = Shake::new(sys, g, h, params).expect("Shake");
    let (mut a, mut b) = (sc.initial_state(), sc.initial_state());
    let e0 = sys.energy(&a);
    let (mut dq, mut res_vr, mut res_vs) = (0.0_f64, 0.0_f64, 0.0_f64);
    let (mut vs_first, mut vs_second) = (0.0_f64, 0.0_f64);
    let (mut de_vr, mut de_vs) = (0.0_f64, 0.0_f64);
    crate::say!(
        "001 §7 spring chain: 6 nodes, 5 rods, κ = 1, zigzag start rotating (see SpringChain)"
    );
    crate::say!("VS = SHAKE (eqs 15–18), VR = RATTLE (eqs 24–28), h = {h}, t ∈ [0, 10], Newton tol = 1000 ε");
    let table = Table::new(&["t", "|q_VS − q_VR|", "|g'v| VR", "|g'v| VS"]);
    for k in 1..=n {
        vr.step(&mut a).expect("VR step");
        vs.step(&mut b).expect("VS step");
        let d = (a.q - b.q).amax();
        let rr = (g.jacobian(&a.q) * a.v).amax();
        let rs = (g.jacobian(&b.q) * b.v).amax();
        dq = dq.max(d);
        res_vr = res_vr.max(rr);
        res_vs = res_vs.max(rs);
        if k <= n / 2 {
            vs_first = vs_first.max(rs);
        } else {
            vs_second = vs_second.max(rs);
        }
        de_vr = de_vr.max((sys.energy(&a) - e0).abs());
        de_vs = de_vs.max((sys.energy(&b) - e0).abs());
        if k % 100 == 0 {
            table.row(&[format!("{:.1}", a.t), sci(d), sci(rr), sci(rs)]);
        }
    }
    figure("vs-vr.position_diff_max", dq);
    figure("vs-vr.vr_velocity_residual_max", res_vr);
    figure("vs-vr.vs_velocity_residual_max", res_vs);
    figure("vs-vr.vs_velocity_residual_max_first_half", vs_first);
    figure("vs-vr.vs_velocity_residual_max_second_half", vs_second);
    figure("vs-vr.vr_energy_error_max", de_vr);
    figure("vs-vr.vs_energy_error_max", de_vs);
}
