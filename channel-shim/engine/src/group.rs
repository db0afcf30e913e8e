//! Process groups: ordered lists of world ranks, and the MPI group algebra.

use crate::error::{MpiError, MpiResult};

/// A group handle. `GroupId::EMPTY` is `MPI_GROUP_EMPTY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupId(pub u32);

impl GroupId {
    /// `MPI_GROUP_EMPTY` (never freed).
    pub const EMPTY: GroupId = GroupId(0);
}

/// Result of `MPI_Group_compare` / `MPI_Comm_compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `MPI_IDENT`.
    Ident,
    /// `MPI_CONGRUENT` (communicators only).
    Congruent,
    /// `MPI_SIMILAR`.
    Similar,
    /// `MPI_UNEQUAL`.
    Unequal,
}

/// An ordered list of distinct world ranks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// World rank of each group rank.
    pub ranks: Vec<u32>,
}

impl Group {
    /// Group rank of world rank `w`.
    pub fn rank_of(&self, w: u32) -> Option<u32> {
        self.ranks.iter().position(|&r| r == w).map(|i| i as u32)
    }

    /// Compares two groups (`Ident`, `Similar` or `Unequal`).
    pub fn compare(&self, other: &Group) -> Comparison {
        if self.ranks == other.ranks {
            Comparison::Ident
        } else {
            let mut a = self.ranks.clone();
            let mut b = other.ranks.clone();
            a.sort_unstable();
            b.sort_unstable();
            if a == b {
                Comparison::Similar
            } else {
                Comparison::Unequal
            }
        }
    }

    /// `MPI_Group_incl`.
    pub fn incl(&self, ranks: &[u32]) -> MpiResult<Group> {
        let mut seen = vec![false; self.ranks.len()];
        let mut out = Vec::with_capacity(ranks.len());
        for &r in ranks {
            let s = seen.get_mut(r as usize).ok_or(MpiError::Rank)?;
            if *s {
                return Err(MpiError::Rank);
            }
            *s = true;
            out.push(self.ranks[r as usize]);
        }
        Ok(Group { ranks: out })
    }

    /// `MPI_Group_excl`.
    pub fn excl(&self, ranks: &[u32]) -> MpiResult<Group> {
        let mut drop = vec![false; self.ranks.len()];
        for &r in ranks {
            let s = drop.get_mut(r as usize).ok_or(MpiError::Rank)?;
            if *s {
                return Err(MpiError::Rank);
            }
            *s = true;
        }
        Ok(Group {
            ranks: self
                .ranks
                .iter()
                .zip(&drop)
                .filter(|(_, &d)| !d)
                .map(|(&r, _)| r)
                .collect(),
        })
    }

    /// Expands `MPI_Group_range_incl` triplets (first, last, stride) into ranks.
    pub fn expand_ranges(&self, ranges: &[(i32, i32, i32)]) -> MpiResult<Vec<u32>> {
        let mut out = Vec::new();
        for &(first, last, stride) in ranges {
            if stride == 0 {
                return Err(MpiError::Arg);
            }
            let mut r = first;
            while (stride > 0 && r <= last) || (stride < 0 && r >= last) {
                if r < 0 || r as usize >= self.ranks.len() {
                    return Err(MpiError::Rank);
                }
                out.push(r as u32);
                r += stride;
            }
        }
        Ok(out)
    }

    /// `MPI_Group_union`: all of `self`, then the members of `other` not in `self`.
    pub fn union(&self, other: &Group) -> Group {
        let mut ranks = self.ranks.clone();
        ranks.extend(other.ranks.iter().filter(|r| !self.ranks.contains(r)));
        Group { ranks }
    }

    /// `MPI_Group_intersection`: members of `self` also in `other`, in `self`'s order.
    pub fn intersection(&self, other: &Group) -> Group {
        Group {
            ranks: self
                .ranks
                .iter()
                .copied()
                .filter(|r| other.ranks.contains(r))
                .collect(),
        }
    }

    /// `MPI_Group_difference`: members of `self` not in `other`.
    pub fn difference(&self, other: &Group) -> Group {
        Group {
            ranks: self
                .ranks
                .iter()
                .copied()
                .filter(|r| !other.ranks.contains(r))
                .collect(),
        }
    }

    /// `MPI_Group_translate_ranks`: each rank of `self` as a rank of `other`
    /// (`None` = `MPI_UNDEFINED`).
    pub fn translate(&self, ranks: &[u32], other: &Group) -> MpiResult<Vec<Option<u32>>> {
        ranks
            .iter()
            .map(|&r| {
                let w = *self.ranks.get(r as usize).ok_or(MpiError::Rank)?;
                Ok(other.rank_of(w))
            })
            .collect()
    }
}

/// The table of groups of one process.
#[derive(Debug)]
pub struct Groups {
    list: Vec<Option<Group>>,
}

impl Default for Groups {
    fn default() -> Self {
        Groups {
            list: vec![Some(Group::default())],
        }
    }
}

impl Groups {
    /// Only the empty group.
    pub fn new() -> Groups {
        Groups::default()
    }

    /// The group behind an id.
    pub fn get(&self, g: GroupId) -> MpiResult<&Group> {
        self.list
            .get(g.0 as usize)
            .and_then(|g| g.as_ref())
            .ok_or(MpiError::Group)
    }

    /// Stores a group, returning its id (an empty group is `GroupId::EMPTY`).
    pub fn add(&mut self, g: Group) -> GroupId {
        if g.ranks.is_empty() {
            return GroupId::EMPTY;
        }
        if let Some(i) = self.list.iter().skip(1).position(|s| s.is_none()) {
            self.list[i + 1] = Some(g);
            GroupId(i as u32 + 1)
        } else {
            self.list.push(Some(g));
            GroupId(self.list.len() as u32 - 1)
        }
    }

    /// `MPI_Group_free` (freeing `GROUP_EMPTY` is a no-op).
    pub fn free(&mut self, g: GroupId) -> MpiResult<()> {
        if g == GroupId::EMPTY {
            return Ok(());
        }
        match self.list.get_mut(g.0 as usize) {
            Some(s @ Some(_)) => {
                *s = None;
                Ok(())
            }
            _ => Err(MpiError::Group),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(r: &[u32]) -> Group {
        Group { ranks: r.to_vec() }
    }

    #[test]
    fn algebra() {
        let a = g(&[0, 1, 2, 3, 4]);
        let b = g(&[4, 2, 6]);
        assert_eq!(a.incl(&[3, 1]).unwrap(), g(&[3, 1]));
        assert_eq!(a.incl(&[1, 1]), Err(MpiError::Rank));
        assert_eq!(a.excl(&[0, 4]).unwrap(), g(&[1, 2, 3]));
        assert_eq!(a.union(&b), g(&[0, 1, 2, 3, 4, 6]));
        assert_eq!(a.intersection(&b), g(&[2, 4]));
        assert_eq!(b.intersection(&a), g(&[4, 2]));
        assert_eq!(a.difference(&b), g(&[0, 1, 3]));
        assert_eq!(
            b.translate(&[0, 1, 2], &a).unwrap(),
            vec![Some(4), Some(2), None]
        );
        assert_eq!(a.compare(&a.clone()), Comparison::Ident);
        assert_eq!(g(&[2, 4]).compare(&g(&[4, 2])), Comparison::Similar);
        assert_eq!(a.compare(&b), Comparison::Unequal);
        assert_eq!(a.expand_ranges(&[(4, 0, -2)]).unwrap(), vec![4, 2, 0]);
        assert_eq!(a.expand_ranges(&[(0, 9, 1)]), Err(MpiError::Rank));
    }

    #[test]
    fn table() {
        let mut t = Groups::new();
        assert_eq!(t.add(Group::default()), GroupId::EMPTY);
        let x = t.add(g(&[1]));
        assert_eq!(t.get(x).unwrap(), &g(&[1]));
        t.free(x).unwrap();
        assert!(t.get(x).is_err());
        assert_eq!(t.add(g(&[2])), x);
    }
}
