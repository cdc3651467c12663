//! World poses, centres of mass, inertias and axes at `q = 0`, against values computed by hand
//! from the URDF files (not from the tool).

use urdf2mech::model::{self, Kind, Parent};

const ARM6: &str = include_str!("../urdf/arm6.urdf");
const PLANAR3: &str = include_str!("../urdf/planar_arm3.urdf");

/// Composed rotations and sums of decimal lengths round at `1e-16`; this leaves a margin.
const TOL: f64 = 1e-12;

fn close3(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= TOL)
}

fn close33(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> bool {
    a.iter().zip(&b).all(|(x, y)| close3(*x, *y))
}

#[test]
fn arm6_link_origins_compose_joint_origins() {
    let m = model::read(ARM6).unwrap();
    // UR5 zero pose by hand: the shoulder_lift and wrist_1 origins pitch by π/2 about y, so
    // the upper arm's and forearm's local z is world x, and from wrist_1 on, local y is world y
    // and local z is world −z (Ry(π)).
    let expect = [
        ("world", [0.0, 0.0, 0.0]),
        ("base_link", [0.0, 0.0, 0.0]),
        ("shoulder_link", [0.0, 0.0, 0.089159]),
        ("upper_arm_link", [0.0, 0.13585, 0.089159]),
        ("forearm_link", [0.425, 0.13585 - 0.1197, 0.089159]),
        ("wrist_1_link", [0.425 + 0.39225, 0.01615, 0.089159]),
        ("wrist_2_link", [0.81725, 0.01615 + 0.093, 0.089159]),
        ("wrist_3_link", [0.81725, 0.10915, 0.089159 - 0.09465]),
        ("ee_link", [0.81725, 0.10915 + 0.0823, -0.005491]),
    ];
    assert_eq!(m.poses.len(), expect.len());
    for (name, p) in expect {
        let pose = m.poses.iter().find(|l| l.name == name).unwrap();
        assert!(
            close3(pose.position, p),
            "{name}: {:?} vs {p:?}",
            pose.position
        );
    }
    let ry_pi = [[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]];
    let wrist3 = m.poses.iter().find(|l| l.name == "wrist_3_link").unwrap();
    assert!(close33(wrist3.rotation, ry_pi));
    // ee_link: Ry(π) Rz(π/2): local x → world y, local y → world x, local z → world −z.
    let ee = m.poses.iter().find(|l| l.name == "ee_link").unwrap();
    assert!(close33(
        ee.rotation,
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]]
    ));
}

#[test]
fn arm6_bodies_joints_and_ground() {
    let m = model::read(ARM6).unwrap();
    assert_eq!(m.root, "world");
    assert_eq!(m.ground_links, ["world", "base_link"]);
    let heads: Vec<&str> = m.bodies.iter().map(|b| b.link.as_str()).collect();
    let links = [
        "shoulder_link",
        "upper_arm_link",
        "forearm_link",
        "wrist_1_link",
        "wrist_2_link",
        "wrist_3_link",
    ];
    assert_eq!(heads, links);
    assert_eq!(m.bodies[5].links, ["wrist_3_link", "ee_link"]);
    let masses = [3.7, 8.393, 2.275, 1.219, 1.219, 0.1879];
    for (b, m) in m.bodies.iter().zip(masses) {
        assert_eq!(b.mass, m);
    }
    // Centres of mass: link origin + R · inertial xyz (0.28 and 0.25 along local z = world x).
    let coms = [
        [0.0, 0.0, 0.089159],
        [0.28, 0.13585, 0.089159],
        [0.425 + 0.25, 0.01615, 0.089159],
        [0.81725, 0.01615, 0.089159],
        [0.81725, 0.10915, 0.089159],
        [0.81725, 0.10915, -0.005491],
    ];
    for (b, c) in m.bodies.iter().zip(coms) {
        assert!(close3(b.com, c), "{}: {:?} vs {c:?}", b.link, b.com);
    }
    let axes = [
        [0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, -1.0],
        [0.0, 1.0, 0.0],
    ];
    for (k, (j, a)) in m.joints.iter().zip(axes).enumerate() {
        assert!(close3(j.axis, a), "{}: {:?} vs {a:?}", j.name, j.axis);
        assert_eq!(j.kind, Kind::Revolute);
        assert_eq!(j.child, k);
        let parent = if k == 0 {
            Parent::Ground
        } else {
            Parent::Body(k - 1)
        };
        assert_eq!(j.parent, parent);
    }
    assert!(close3(m.joints[2].anchor, [0.425, 0.01615, 0.089159]));
    // The elbow's limits are ±3.14159265359 in the file (π to 12 digits), read as written.
    let lim = m.joints[2].limit;
    let pi12: f64 = "3.14159265359".parse().unwrap();
    assert_eq!(
        (lim.lower, lim.upper, lim.effort, lim.velocity),
        (-pi12, pi12, 150.0, 3.15)
    );
}

#[test]
fn arm6_inertias_rotate_to_world() {
    let m = model::read(ARM6).unwrap();
    // Upper arm: local J = [[a, 0, c], [0, a, 0], [c, 0, b]] under Ry(π/2) (local z → world x,
    // local x → world −z): world [[b, 0, −c], [0, a, 0], [−c, 0, a]].
    let (a, b, c) = (0.2268908, 0.0151074, 0.0035);
    assert!(close33(
        m.bodies[1].inertia,
        [[b, 0.0, -c], [0.0, a, 0.0], [-c, 0.0, a]]
    ));
    // Forearm: diag(a, a, b) tilted by Rx(0.1) (inertial rpy), then Ry(π/2): local y stays
    // world y, local z → world x, local x → world −z. In the tilted frame: yy = a cos² + b sin²,
    // zz = a sin² + b cos², yz = (a − b) sin cos, xx = a.
    let (a, b) = (0.0494433, 0.004095);
    let (s, co) = 0.1f64.sin_cos();
    let (yy, zz, yz) = (
        a * co * co + b * s * s,
        a * s * s + b * co * co,
        (a - b) * s * co,
    );
    assert!(close33(
        m.bodies[2].inertia,
        [[zz, yz, 0.0], [yz, yy, 0.0], [0.0, 0.0, a]]
    ));
    // Wrist 3 under Ry(π): diagonal unchanged; the massless ee_link adds nothing.
    let (a, b) = (0.0000847, 0.0001321);
    assert!(close33(
        m.bodies[5].inertia,
        [[a, 0.0, 0.0], [0.0, a, 0.0], [0.0, 0.0, b]]
    ));
}

#[test]
fn fixed_links_fuse_by_parallel_axes() {
    let m = model::read(PLANAR3).unwrap();
    let hand = &m.bodies[2];
    assert_eq!(hand.links, ["hand", "tool"]);
    // 0.5 kg at x = 0.7 + 0.1 and 0.1 kg at x = 0.7 + 0.4: mass 0.6, COM x = 0.85 (height 0.5).
    assert!((hand.mass - 0.6).abs() <= TOL);
    assert!(close3(hand.com, [0.85, 0.0, 0.5]));
    // About y: 0.002 + 0.5·0.05² + 0.1·0.25² = 0.0095; about x: 0.0001 (both on the x axis);
    // about z as about y but with 0.002: 0.0095.
    let j = hand.inertia;
    assert!(
        close33(
            j,
            [[0.0001, 0.0, 0.0], [0.0, 0.0095, 0.0], [0.0, 0.0, 0.0095]]
        ),
        "{j:?}"
    );
    assert_eq!(m.ground_links, ["base_link"]);
    let cont = &m.joints[2];
    assert_eq!(cont.kind, Kind::Continuous);
    assert_eq!(
        (cont.limit.lower, cont.limit.upper),
        (f64::NEG_INFINITY, f64::INFINITY)
    );
    assert_eq!((cont.limit.effort, cont.limit.velocity), (5.0, 6.0));
}

/// A one-joint URDF: joint origin `xyz`/`rpy`, child inertial origin `ixyz` with inertia `j`.
fn one_joint(xyz: &str, rpy: &str, ixyz: &str, irpy: &str, j: [f64; 6]) -> String {
    format!(
        r#"<robot name="t"><link name="base"/>
        <joint name="q" type="revolute"><parent link="base"/><child link="c"/>
          <origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="1 0 0"/>
          <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
        <link name="c"><inertial><origin xyz="{ixyz}" rpy="{irpy}"/><mass value="2"/>
          <inertia ixx="{}" ixy="{}" ixz="{}" iyy="{}" iyz="{}" izz="{}"/></inertial></link>
        </robot>"#,
        j[0], j[1], j[2], j[3], j[4], j[5]
    )
}

#[test]
fn rpy_is_fixed_axis_roll_pitch_yaw() {
    // R = Rz(π/2) Rx(π/2): x → y, y → z, z → x (roll first about the fixed x, then yaw).
    let h = std::f64::consts::FRAC_PI_2;
    let u = one_joint(
        "1 0 0",
        &format!("{h} 0 {h}"),
        "1 2 3",
        "0 0 0",
        [3.0, 0.0, 0.0, 4.0, 0.0, 5.0],
    );
    let m = model::read(&u).unwrap();
    let c = &m.poses[1];
    assert!(close33(
        c.rotation,
        [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    ));
    // COM = (1, 0, 0) + 1·y + 2·z + 3·x.
    assert!(close3(m.bodies[0].com, [4.0, 1.0, 2.0]));
    // The joint axis (local x) is world y.
    assert!(close3(m.joints[0].axis, [0.0, 1.0, 0.0]));
    // diag(3, 4, 5) along local (x, y, z) = world (y, z, x): world diag(5, 3, 4).
    assert!(close33(
        m.bodies[0].inertia,
        [[5.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 4.0]]
    ));
    // Pitch alone: Ry(π/2) maps local x to world −z; yaw alone: Rz(π/2) maps x to y.
    let m = model::read(&one_joint(
        "0 0 0",
        &format!("0 {h} 0"),
        "1 0 0",
        "0 0 0",
        [1.0, 0.0, 0.0, 1.0, 0.0, 1.0],
    ))
    .unwrap();
    assert!(close3(m.bodies[0].com, [0.0, 0.0, -1.0]));
    let m = model::read(&one_joint(
        "0 0 0",
        &format!("0 0 {h}"),
        "1 0 0",
        "0 0 0",
        [1.0, 0.0, 0.0, 1.0, 0.0, 1.0],
    ))
    .unwrap();
    assert!(close3(m.bodies[0].com, [0.0, 1.0, 0.0]));
}

#[test]
fn inertial_rpy_rotates_products_of_inertia() {
    // An inertial frame yawed by π/4: diag(1, 3, 2) becomes [[2, −1, 0], [−1, 2, 0], [0, 0, 2]]
    // (R = [[c, −s], [s, c]], c = s = 1/√2: xx = c²·1 + s²·3 = 2, xy = cs(1 − 3) = −1).
    let q = std::f64::consts::FRAC_PI_4;
    let u = one_joint(
        "0 0 0",
        "0 0 0",
        "0 0 0",
        &format!("0 0 {q}"),
        [1.0, 0.0, 0.0, 3.0, 0.0, 2.0],
    );
    let m = model::read(&u).unwrap();
    assert!(close33(
        m.bodies[0].inertia,
        [[2.0, -1.0, 0.0], [-1.0, 2.0, 0.0], [0.0, 0.0, 2.0]]
    ));
}
