//! Exact rationals over `i128` with checked arithmetic (an overflow is
//! `None`, which callers turn into a refusal), always in lowest terms with a
//! positive denominator.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Q {
    pub n: i128,
    pub d: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Q {
    pub const ZERO: Q = Q { n: 0, d: 1 };

    pub fn int(n: i128) -> Q {
        Q { n, d: 1 }
    }

    pub fn new(n: i128, d: i128) -> Option<Q> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d).max(1);
        let (mut n, mut d) = (n / g, d / g);
        if d < 0 {
            n = n.checked_neg()?;
            d = d.checked_neg()?;
        }
        Some(Q { n, d })
    }

    pub fn is_zero(self) -> bool {
        self.n == 0
    }

    pub fn is_integer(self) -> bool {
        self.d == 1
    }

    pub fn sub(self, o: Q) -> Option<Q> {
        let n = self
            .n
            .checked_mul(o.d)?
            .checked_sub(o.n.checked_mul(self.d)?)?;
        Q::new(n, self.d.checked_mul(o.d)?)
    }

    pub fn mul(self, o: Q) -> Option<Q> {
        Q::new(self.n.checked_mul(o.n)?, self.d.checked_mul(o.d)?)
    }

    pub fn div(self, o: Q) -> Option<Q> {
        Q::new(self.n.checked_mul(o.d)?, self.d.checked_mul(o.n)?)
    }
}

impl std::fmt::Display for Q {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.d == 1 {
            write!(f, "{}", self.n)
        } else {
            write!(f, "{}/{}", self.n, self.d)
        }
    }
}

/// Outcome of solving a linear system exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solved {
    /// No rational solution.
    Inconsistent,
    /// Exactly one rational solution.
    Unique(Vec<Q>),
    /// More than one (the rank is below the number of unknowns).
    Many { rank: usize },
}

/// Solves `a x = b` by Gauss–Jordan elimination over exact rationals;
/// `None` on overflow.
pub fn solve(mut a: Vec<Vec<Q>>, mut b: Vec<Q>) -> Option<Solved> {
    let rows = a.len();
    let cols = a.first().map_or(0, |r| r.len());
    let mut pivots = Vec::new();
    let mut r = 0;
    for c in 0..cols {
        let Some(p) = (r..rows).find(|&i| !a[i][c].is_zero()) else {
            continue;
        };
        a.swap(r, p);
        b.swap(r, p);
        let pv = a[r][c];
        for q in &mut a[r][c..cols] {
            *q = q.div(pv)?;
        }
        b[r] = b[r].div(pv)?;
        for i in 0..rows {
            if i != r && !a[i][c].is_zero() {
                let f = a[i][c];
                let pivot_row = a[r].clone();
                for (q, &p) in a[i][c..cols].iter_mut().zip(&pivot_row[c..cols]) {
                    *q = q.sub(f.mul(p)?)?;
                }
                b[i] = b[i].sub(f.mul(b[r])?)?;
            }
        }
        pivots.push(c);
        r += 1;
        if r == rows {
            break;
        }
    }
    if b[r..].iter().any(|q| !q.is_zero()) {
        return Some(Solved::Inconsistent);
    }
    if r < cols {
        return Some(Solved::Many { rank: r });
    }
    let mut x = vec![Q::ZERO; cols];
    for (i, &c) in pivots.iter().enumerate() {
        x[c] = b[i];
    }
    Some(Solved::Unique(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_detects_inconsistency() {
        let q = Q::int;
        // x + y = 1, x - y = 0 -> x = y = 1/2
        let s = solve(vec![vec![q(1), q(1)], vec![q(1), q(-1)]], vec![q(1), q(0)]).unwrap();
        assert_eq!(s, Solved::Unique(vec![Q::new(1, 2).unwrap(); 2]));
        let s = solve(vec![vec![q(1)], vec![q(1)]], vec![q(1), q(2)]).unwrap();
        assert_eq!(s, Solved::Inconsistent);
        let s = solve(vec![vec![q(1), q(1)]], vec![q(1)]).unwrap();
        assert_eq!(s, Solved::Many { rank: 1 });
        assert!(Q::int(i128::MAX).mul(Q::int(2)).is_none());
    }
}
