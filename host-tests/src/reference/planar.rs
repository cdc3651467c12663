//! A planar serial chain in joint coordinates by Featherstone's articulated-body algorithm
//! (ABA, *Rigid Body Dynamics Algorithms* §7.3, in the plane): the strong minimal-coordinate
//! reference and peer of `reproduce chain-peers`.
//!
//! Link `i` hangs from joint `i` (joint 0 is fixed at the origin) and carries joint `i + 1` at
//! distance [`Link::length`] along its axis. Joint angles are **relative**: link `i`'s absolute
//! angle from the downward vertical is `φᵢ = q₀ + … + qᵢ`, its axis `e = (sin φᵢ, −cos φᵢ)`.
//! Each link is a rigid body: mass, centre of mass at `a·e + b·e⊥` from its joint
//! (`e⊥ = (cos φᵢ, sin φᵢ)`), rotational inertia about the centre of mass. The chain of point
//! masses on massless rods (004 §5.4.3) is [`Link::point_mass`] per link; a compound arm uses
//! [`Link::compound`].
//!
//! The forward dynamics [`PlanarChain::accelerations`] is O(n): planar spatial vectors
//! `(ω, vₓ, v_y)` expressed at the world origin (Featherstone's "absolute" formulation: no frame
//! transforms), three passes (velocities and bias forces outwards, articulated inertias inwards,
//! accelerations outwards), gravity as the fictitious base acceleration `(0, 0, g)`. It works on
//! fixed-size arrays on the stack: no allocation per right-hand side. The solver is DOP853 from
//! the `differential-equations` crate on the fixed-size state `[f64; M]`, `M = 2N`
//! ([`solve_dense`] for peer runs, [`solve_at_step_ends`] for references).
//!
//! ```
//! // One point mass on a unit rod, g = 1: q̈ = −sin q.
//! use host_tests::reference::planar::{Link, PlanarChain};
//! let arm = PlanarChain::new([Link::point_mass(1.0, 1.0)], 1.0);
//! let a = arm.accelerations(&[0.3], &[0.7], &[0.0]);
//! assert!((a[0] + 0.3_f64.sin()).abs() < 1e-15);
//! ```

use differential_equations::prelude::*;

/// A planar spatial vector `(ω, vₓ, v_y)` (motion) or `(n, fₓ, f_y)` (force) at the origin.
type V3 = [f64; 3];
/// A planar spatial inertia at the origin.
type M3 = [[f64; 3]; 3];

/// One rigid link of the chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Distance from this link's joint to the next joint, along the link axis.
    pub length: f64,
    /// Mass.
    pub mass: f64,
    /// Centre of mass `(a, b)`: `a` along the axis `e`, `b` along `e⊥`, from the joint.
    pub com: [f64; 2],
    /// Rotational inertia about the centre of mass.
    pub inertia: f64,
}

impl Link {
    /// A point mass `mass` at the far end of a massless rod of `length`.
    pub fn point_mass(length: f64, mass: f64) -> Self {
        Self {
            length,
            mass,
            com: [length, 0.0],
            inertia: 0.0,
        }
    }

    /// A compound link: centre of mass `com` (see [`Link::com`]) and inertia about it.
    pub fn compound(length: f64, mass: f64, com: [f64; 2], inertia: f64) -> Self {
        Self {
            length,
            mass,
            com,
            inertia,
        }
    }
}

/// A planar chain of `N` links hinged in series at a fixed pivot, gravity `g` along `−y`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlanarChain<const N: usize> {
    /// The links, from the pivot outwards.
    pub links: [Link; N],
    /// Gravitational acceleration (along `−y`).
    pub gravity: f64,
}

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn mul(m: &M3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// Motion cross product `a × b`: `(0, a_ω b_y' …)`, the rate of `b` carried by motion `a`.
fn crm(a: V3, b: V3) -> V3 {
    [0.0, a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Force cross product `a ×* f = −(a ×)ᵀ f`.
fn crf(a: V3, f: V3) -> V3 {
    [a[1] * f[2] - a[2] * f[1], -a[0] * f[2], a[0] * f[1]]
}

/// The spatial inertia at the origin of a body of mass `m`, centre of mass `c`, inertia `j`
/// about it.
fn inertia_at_origin(m: f64, c: [f64; 2], j: f64) -> M3 {
    [
        [j + m * (c[0] * c[0] + c[1] * c[1]), -m * c[1], m * c[0]],
        [-m * c[1], m, 0.0],
        [m * c[0], 0.0, m],
    ]
}

impl<const N: usize> PlanarChain<N> {
    /// A chain of `links` under gravity `g`.
    pub fn new(links: [Link; N], gravity: f64) -> Self {
        Self { links, gravity }
    }

    /// The chain of `N` unit point masses on unit rods, `g = 1` (004 §5.4.3).
    pub fn unit_pendula() -> Self {
        Self::new([Link::point_mass(1.0, 1.0); N], 1.0)
    }

    /// The joint accelerations `q̈` at joint angles `q`, rates `qd` and joint torques `tau`, by
    /// the articulated-body algorithm (O(N), no allocation). A chain whose outer links have no
    /// mass or inertia about their joint has a singular mass matrix and gives non-finite values.
    pub fn accelerations(&self, q: &[f64; N], qd: &[f64; N], tau: &[f64; N]) -> [f64; N] {
        let mut s = [[0.0; 3]; N];
        let mut c = [[0.0; 3]; N];
        let mut ia = [[[0.0; 3]; 3]; N];
        let mut pa = [[0.0; 3]; N];
        // Pass 1 (outwards): joint axes, velocities, velocity-product accelerations, bias forces.
        let (mut phi, mut p, mut v) = (0.0, [0.0, 0.0], [0.0; 3]);
        for i in 0..N {
            let l = &self.links[i];
            phi += q[i];
            let (sn, cs) = phi.sin_cos();
            // A unit rotation about the joint at p moves the origin with velocity (p_y, −p_x).
            s[i] = [1.0, p[1], -p[0]];
            let vj = scale(s[i], qd[i]);
            v = add(v, vj);
            c[i] = crm(v, vj);
            let com = [
                p[0] + l.com[0] * sn + l.com[1] * cs,
                p[1] - l.com[0] * cs + l.com[1] * sn,
            ];
            ia[i] = inertia_at_origin(l.mass, com, l.inertia);
            pa[i] = crf(v, mul(&ia[i], v));
            p = [p[0] + l.length * sn, p[1] - l.length * cs];
        }
        // Pass 2 (inwards): articulated inertias and bias forces.
        let mut u = [[0.0; 3]; N];
        let mut d = [0.0; N];
        let mut uu = [0.0; N];
        for i in (0..N).rev() {
            u[i] = mul(&ia[i], s[i]);
            d[i] = dot(s[i], u[i]);
            uu[i] = tau[i] - dot(s[i], pa[i]);
            if i > 0 {
                let mut ii = ia[i];
                for (r, row) in ii.iter_mut().enumerate() {
                    for (k, x) in row.iter_mut().enumerate() {
                        *x -= u[i][r] * u[i][k] / d[i];
                    }
                }
                let pi = add(add(pa[i], mul(&ii, c[i])), scale(u[i], uu[i] / d[i]));
                for r in 0..3 {
                    for k in 0..3 {
                        ia[i - 1][r][k] += ii[r][k];
                    }
                }
                pa[i - 1] = add(pa[i - 1], pi);
            }
        }
        // Pass 3 (outwards): accelerations; gravity is the base accelerating upwards at g.
        let mut a = [0.0, 0.0, self.gravity];
        let mut qdd = [0.0; N];
        for i in 0..N {
            let ap = add(a, c[i]);
            qdd[i] = (uu[i] - dot(u[i], ap)) / d[i];
            a = add(ap, scale(s[i], qdd[i]));
        }
        qdd
    }

    /// The right-hand side of `y = (q, q̇)`, `M = 2N` (checked: a mismatch writes NaN), with no
    /// joint torques.
    pub fn rhs<const M: usize>(&self, y: &[f64; M], dy: &mut [f64; M]) {
        if M != 2 * N {
            dy.fill(f64::NAN);
            return;
        }
        let mut q = [0.0; N];
        let mut qd = [0.0; N];
        q.copy_from_slice(&y[..N]);
        qd.copy_from_slice(&y[N..]);
        let qdd = self.accelerations(&q, &qd, &[0.0; N]);
        dy[..N].copy_from_slice(&qd);
        dy[N..].copy_from_slice(&qdd);
    }

    /// The joint positions `(x₁, y₁, …, x_N, y_N)` after the pivot (joint `i + 1` is link `i`'s
    /// far end: for point masses, the masses), flattened into `out`.
    pub fn tips(&self, q: &[f64], out: &mut Vec<f64>) {
        let (mut phi, mut x, mut y) = (0.0, 0.0, 0.0);
        for (l, qi) in self.links.iter().zip(q) {
            phi += qi;
            x += l.length * phi.sin();
            y -= l.length * phi.cos();
            out.push(x);
            out.push(y);
        }
    }

    /// Total energy (kinetic + gravitational) at `(q, q̇)`, from the links' centre-of-mass
    /// velocities and angular rates (independent of [`PlanarChain::accelerations`]).
    pub fn energy(&self, q: &[f64], qd: &[f64]) -> f64 {
        let (mut phi, mut w) = (0.0, 0.0);
        let (mut p, mut pv) = ([0.0, 0.0], [0.0, 0.0]);
        let mut e = 0.0;
        for ((l, qi), qdi) in self.links.iter().zip(q).zip(qd) {
            phi += qi;
            w += qdi;
            let (sn, cs) = phi.sin_cos();
            // r = a·e + b·e⊥ and its rate w·(a·e⊥ − b·e), with e = (sn, −cs), e⊥ = (cs, sn).
            let r = [
                l.com[0] * sn + l.com[1] * cs,
                -l.com[0] * cs + l.com[1] * sn,
            ];
            let rv = [-w * r[1], w * r[0]];
            let vc = [pv[0] + rv[0], pv[1] + rv[1]];
            e += 0.5 * l.mass * (vc[0] * vc[0] + vc[1] * vc[1]) + 0.5 * l.inertia * w * w;
            e += l.mass * self.gravity * (p[1] + r[1]);
            p = [p[0] + l.length * sn, p[1] - l.length * cs];
            pv = [pv[0] + w * l.length * cs, pv[1] + w * l.length * sn];
        }
        e
    }
}

/// Joint angles (relative) of absolute link angles `θ`: `q₀ = θ₀`, `qᵢ = θᵢ − θᵢ₋₁`.
pub fn relative(theta: &[f64]) -> Vec<f64> {
    theta
        .iter()
        .enumerate()
        .map(|(i, t)| if i == 0 { *t } else { t - theta[i - 1] })
        .collect()
}

/// The state `(q, q̇)` of absolute angles and rates `(θ, θ̇)`.
pub fn state_from_absolute<const M: usize>(theta: &[f64], theta_dot: &[f64]) -> [f64; M] {
    let mut y = [0.0; M];
    let n = M / 2;
    y[..n].copy_from_slice(&relative(&theta[..n]));
    y[n..].copy_from_slice(&relative(&theta_dot[..n]));
    y
}

/// DOP853 (`differential-equations`) on the chain from `y0` at `t = 0`, one solve with the
/// outputs from its dense output: what a user of the peer runs. Accurate to ~1e-8 at tight
/// tolerances (the crate's interpolation; see `crate::reference`), so for peer runs only.
///
/// # Errors
/// The solver's failure or a missing output.
pub fn solve_dense<const N: usize, const M: usize>(
    chain: &PlanarChain<N>,
    y0: [f64; M],
    tol: f64,
    times: &[f64],
) -> Result<Vec<[f64; M]>, String> {
    if M != 2 * N {
        return Err(format!("state length {M} for {N} joints"));
    }
    let t1 = times.iter().copied().fold(0.0, f64::max);
    let f = |_t: f64, y: &[f64; M], dy: &mut [f64; M]| chain.rhs(y, dy);
    let method = ExplicitRungeKutta::dop853()
        .rtol(tol)
        .atol(tol)
        .max_steps(200_000_000);
    let sol = IVP::ode_from_fn(f, 0.0, t1, y0)
        .method(method)
        .t_eval(times)
        .solve()
        .map_err(|e| format!("{e:?}"))?;
    if sol.y.len() != times.len() {
        return Err(format!("{} outputs for {} times", sol.y.len(), times.len()));
    }
    Ok(sol.y)
}

/// DOP853 on the chain from `y0` at `t = 0` with every output time (ascending, > 0) a step end,
/// segment by segment: the reference (global error ~1e-12 at `tol = 1e-13`).
///
/// # Errors
/// The solver's failure.
pub fn solve_at_step_ends<const N: usize, const M: usize>(
    chain: &PlanarChain<N>,
    y0: [f64; M],
    tol: f64,
    times: &[f64],
) -> Result<Vec<[f64; M]>, String> {
    if M != 2 * N {
        return Err(format!("state length {M} for {N} joints"));
    }
    let f = |_t: f64, y: &[f64; M], dy: &mut [f64; M]| chain.rhs(y, dy);
    let (mut t, mut y) = (0.0, y0);
    let mut out = Vec::with_capacity(times.len());
    for &t1 in times {
        if t1 > t {
            let method = ExplicitRungeKutta::dop853()
                .rtol(tol)
                .atol(tol)
                .max_steps(200_000_000);
            let sol = IVP::ode_from_fn(&f, t, t1, y)
                .method(method)
                .t_eval([t1])
                .solve()
                .map_err(|e| format!("{e:?}"))?;
            y = match (sol.t.last(), sol.y.last()) {
                (Some(&te), Some(ye)) if te == t1 => *ye,
                _ => return Err(format!("solver did not reach t = {t1}")),
            };
            t = t1;
        }
        out.push(y);
    }
    Ok(out)
}

#[cfg(test)]
#[path = "planar_tests.rs"]
mod tests;
