//! Cartesian grids: coordinates ⇄ ranks (row-major, as MPI defines),
//! shifts and sub-grids.

use super::Neighbor;
use crate::error::{MpiError, MpiResult};

/// A Cartesian topology as seen by one process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cart {
    /// Processes per dimension.
    pub dims: Vec<u32>,
    /// Whether each dimension wraps around.
    pub periods: Vec<bool>,
    /// This process's coordinates.
    pub coords: Vec<u32>,
}

impl Cart {
    /// The grid `dims` × `periods` seen by the process of rank `rank`.
    pub fn new(dims: Vec<u32>, periods: Vec<bool>, rank: u32) -> Cart {
        let mut c = Cart {
            coords: Vec::new(),
            dims,
            periods,
        };
        c.coords = c.coords_of(rank);
        c
    }

    /// Number of processes in the grid.
    pub fn nnodes(&self) -> u32 {
        self.dims.iter().product()
    }

    /// Coordinates of `rank` (`MPI_Cart_coords`; the last dimension varies
    /// fastest).
    pub fn coords_of(&self, mut rank: u32) -> Vec<u32> {
        let mut left = self.nnodes();
        self.dims
            .iter()
            .map(|&d| {
                left /= d;
                let c = rank / left;
                rank %= left;
                c
            })
            .collect()
    }

    /// Rank at `coords` (`MPI_Cart_rank`): periodic dimensions wrap, a
    /// coordinate outside a non-periodic one is `MPI_ERR_ARG`.
    pub fn rank_of(&self, coords: &[i64]) -> MpiResult<u32> {
        if coords.len() < self.dims.len() {
            return Err(MpiError::Arg);
        }
        let mut rank = 0u64;
        for (i, &d) in self.dims.iter().enumerate() {
            let d64 = i64::from(d);
            let c = if self.periods[i] {
                coords[i].rem_euclid(d64)
            } else if (0..d64).contains(&coords[i]) {
                coords[i]
            } else {
                return Err(MpiError::Arg);
            };
            rank = rank * u64::from(d) + c as u64;
        }
        Ok(rank as u32)
    }

    /// `MPI_Cart_shift` of this process by `disp` along `direction`:
    /// (source, destination), `None` off a non-periodic edge.
    pub fn shift(&self, direction: i32, disp: i32) -> MpiResult<(Neighbor, Neighbor)> {
        if self.dims.is_empty() {
            return Err(MpiError::Topology);
        }
        let dir = usize::try_from(direction)
            .ok()
            .filter(|&d| d < self.dims.len())
            .ok_or(MpiError::Arg)?;
        let at = |delta: i64| -> Neighbor {
            let mut c: Vec<i64> = self.coords.iter().map(|&x| i64::from(x)).collect();
            c[dir] += delta;
            self.rank_of(&c).ok()
        };
        Ok((at(-i64::from(disp)), at(i64::from(disp))))
    }

    /// The neighbours of a neighbourhood collective: per dimension the
    /// source then the destination of a shift by 1.
    pub fn neighbors(&self) -> Vec<Neighbor> {
        (0..self.dims.len())
            .flat_map(|d| {
                let (s, t) = self.shift(d as i32, 1).unwrap_or((None, None));
                [s, t]
            })
            .collect()
    }

    /// The colour and key of `MPI_Cart_sub`: the coordinates of the
    /// dropped dimensions select the sub-grid, the kept ones order it.
    pub fn sub_split(&self, remain: &[bool]) -> (i32, i32) {
        let (mut color, mut key) = (0i64, 0i64);
        for (i, &d) in self.dims.iter().enumerate() {
            let (c, d) = (i64::from(self.coords[i]), i64::from(d));
            if remain[i] {
                key = key * d + c;
            } else {
                color = color * d + c;
            }
        }
        (color as i32, key as i32)
    }

    /// The sub-grid of the kept dimensions, seen by the process of rank
    /// `rank` in it.
    pub fn sub(&self, remain: &[bool], rank: u32) -> Cart {
        let keep = |v: &[u32]| -> Vec<u32> {
            v.iter()
                .zip(remain)
                .filter(|(_, &r)| r)
                .map(|(&x, _)| x)
                .collect()
        };
        let periods = self
            .periods
            .iter()
            .zip(remain)
            .filter(|(_, &r)| r)
            .map(|(&p, _)| p)
            .collect();
        Cart::new(keep(&self.dims), periods, rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_row_major_and_shifts_wrap_where_periodic() {
        // A 3 × 4 grid, periodic in the second dimension only.
        let c = Cart::new(vec![3, 4], vec![false, true], 7);
        assert_eq!(c.coords, vec![1, 3]);
        assert_eq!(c.rank_of(&[2, 5]).unwrap(), 9);
        assert_eq!(c.rank_of(&[3, 0]), Err(MpiError::Arg));
        assert_eq!(c.rank_of(&[0, -1]).unwrap(), 3);
        assert_eq!(c.shift(0, 1).unwrap(), (Some(3), Some(11)));
        assert_eq!(c.shift(0, 2).unwrap(), (None, None));
        assert_eq!(c.shift(1, 1).unwrap(), (Some(6), Some(4)));
        assert_eq!(c.shift(1, 0).unwrap(), (Some(7), Some(7)));
        assert_eq!(c.shift(2, 1), Err(MpiError::Arg));
        assert_eq!(c.neighbors(), vec![Some(3), Some(11), Some(6), Some(4)]);
        for r in 0..12 {
            let xy: Vec<i64> = c.coords_of(r).iter().map(|&v| i64::from(v)).collect();
            assert_eq!(c.rank_of(&xy).unwrap(), r);
        }
    }

    #[test]
    fn sub_grids_keep_the_chosen_dimensions() {
        let c = Cart::new(vec![2, 3, 4], vec![true, false, true], 17);
        assert_eq!(c.coords, vec![1, 1, 1]);
        // Keep dimensions 0 and 2: colour = coordinate 1, key = 1·4 + 1.
        assert_eq!(c.sub_split(&[true, false, true]), (1, 5));
        let s = c.sub(&[true, false, true], 5);
        assert_eq!(
            (s.dims, s.periods, s.coords),
            (vec![2, 4], vec![true, true], vec![1, 1])
        );
        let zero = c.sub(&[false, false, false], 0);
        assert_eq!((zero.nnodes(), zero.neighbors()), (1, vec![]));
        assert_eq!(zero.shift(0, 1), Err(MpiError::Topology));
    }
}
