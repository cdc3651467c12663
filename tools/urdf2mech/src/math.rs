//! Small 3-D vector and matrix helpers for poses at the build configuration (`q = 0`).

/// A 3-vector.
pub type V3 = [f64; 3];
/// A 3×3 matrix, row-major (`m[row][col]`).
pub type M3 = [[f64; 3]; 3];

/// The identity matrix.
pub const IDENTITY: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// `a + b`.
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `s a`.
pub fn scale(s: f64, a: V3) -> V3 {
    [s * a[0], s * a[1], s * a[2]]
}

/// `a · b`.
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `|a|`.
pub fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// `m v`.
pub fn mul_v(m: &M3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// `a b`.
pub fn mul(a: &M3, b: &M3) -> M3 {
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

/// `mᵀ`.
pub fn transpose(m: &M3) -> M3 {
    let mut out = [[0.0; 3]; 3];
    for (i, row) in m.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            out[j][i] = x;
        }
    }
    out
}

/// `R J Rᵀ`: an inertia tensor expressed in a rotated frame.
pub fn rotate_inertia(r: &M3, j: &M3) -> M3 {
    mul(&mul(r, j), &transpose(r))
}

/// The URDF rotation of `rpy = (roll, pitch, yaw)`: fixed-axis roll about x, then pitch about
/// y, then yaw about z, i.e. `R = Rz(yaw) Ry(pitch) Rx(roll)`.
pub fn rpy(rpy: V3) -> M3 {
    let (sr, cr) = rpy[0].sin_cos();
    let (sp, cp) = rpy[1].sin_cos();
    let (sy, cy) = rpy[2].sin_cos();
    [
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ]
}

/// Whether the symmetric `m` is positive definite (Sylvester: all leading minors positive).
pub fn positive_definite(m: &M3) -> bool {
    let d1 = m[0][0];
    let d2 = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    d1 > 0.0 && d2 > 0.0 && det(m) > 0.0
}

/// `det m`.
pub fn det(m: &M3) -> f64 {
    dot(m[0], cross(m[1], m[2]))
}

/// `|d|² I − d dᵀ`: the inertia of a unit point mass at offset `d` (parallel-axis term).
pub fn point_inertia(d: V3) -> M3 {
    let d2 = dot(d, d);
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            *x = if i == j { d2 } else { 0.0 } - d[i] * d[j];
        }
    }
    out
}

/// `a + s b` for matrices.
pub fn add_m(a: &M3, s: f64, b: &M3) -> M3 {
    let mut out = *a;
    for (row, brow) in out.iter_mut().zip(b) {
        for (x, &y) in row.iter_mut().zip(brow) {
            *x += s * y;
        }
    }
    out
}

/// `Σ = ½ tr(J) I − J`: the second-moment matrix about the centre of mass of a body with
/// inertia `J` (positive definite exactly when `J` satisfies the strict triangle inequality).
pub fn second_moment(j: &M3) -> M3 {
    let half = 0.5 * (j[0][0] + j[1][1] + j[2][2]);
    add_m(&scale_m(half, &IDENTITY), -1.0, j)
}

/// `s m`.
pub fn scale_m(s: f64, m: &M3) -> M3 {
    m.map(|row| row.map(|x| s * x))
}
