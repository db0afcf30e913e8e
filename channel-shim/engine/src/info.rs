//! Info objects (MPI 4.0 §9): ordered (key, value) lists, the predefined
//! `MPI_INFO_ENV`, and the hints a communicator keeps.
//!
//! Rules, as MPICH applies them: a key has 1 to `MPI_MAX_INFO_KEY` (255)
//! characters (else `MPI_ERR_INFO_KEY`), a value at most
//! `MPI_MAX_INFO_VAL` (1024; else `MPI_ERR_INFO_VALUE`), an empty value
//! is allowed; keys are compared exactly (no trimming in C); setting a key
//! again replaces its value in place, so `MPI_Info_get_nthkey` keeps the
//! order keys were first set in. `MPI_INFO_ENV` is read-only.
//!
//! Info objects may be used before `MPI_Init` and after `MPI_Finalize`, so
//! the table lives outside the [`Engine`](crate::Engine).

use crate::error::{MpiError, MpiResult};
use std::collections::HashMap;

/// An info object, numbered by the table (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InfoId(pub u32);

impl InfoId {
    /// `MPI_INFO_ENV`.
    pub const ENV: InfoId = InfoId(0);
}

/// `MPI_MAX_INFO_KEY`: longest key, in bytes.
pub const MAX_KEY: usize = 255;
/// `MPI_MAX_INFO_VAL`: longest value, in bytes.
pub const MAX_VALUE: usize = 1024;

/// An ordered list of (key, value) pairs.
pub type Pairs = Vec<(String, String)>;

/// The info objects of one process.
#[derive(Debug)]
pub struct Infos {
    objects: HashMap<InfoId, Pairs>,
    next: u32,
}

impl Default for Infos {
    fn default() -> Self {
        Infos::new(Pairs::new())
    }
}

fn check_key(key: &str) -> MpiResult<()> {
    if key.is_empty() || key.len() > MAX_KEY {
        Err(MpiError::InfoKey)
    } else {
        Ok(())
    }
}

impl Infos {
    /// A table holding only `MPI_INFO_ENV`, whose contents are `env`.
    pub fn new(env: Pairs) -> Infos {
        Infos {
            objects: HashMap::from([(InfoId::ENV, env)]),
            next: 1,
        }
    }

    fn pairs(&self, id: InfoId) -> MpiResult<&Pairs> {
        self.objects.get(&id).ok_or(MpiError::Info)
    }

    fn pairs_mut(&mut self, id: InfoId) -> MpiResult<&mut Pairs> {
        if id == InfoId::ENV {
            return Err(MpiError::Info);
        }
        self.objects.get_mut(&id).ok_or(MpiError::Info)
    }

    fn add(&mut self, pairs: Pairs) -> InfoId {
        let id = InfoId(self.next);
        self.next += 1;
        self.objects.insert(id, pairs);
        id
    }

    /// `MPI_Info_create`: an empty object.
    pub fn create(&mut self) -> InfoId {
        self.add(Pairs::new())
    }

    /// `MPI_Info_dup`.
    pub fn dup(&mut self, id: InfoId) -> MpiResult<InfoId> {
        let pairs = self.pairs(id)?.clone();
        Ok(self.add(pairs))
    }

    /// An object holding `pairs` (e.g. a communicator's hints for
    /// `MPI_Comm_get_info`).
    pub fn create_from(&mut self, pairs: Pairs) -> InfoId {
        self.add(pairs)
    }

    /// `MPI_Info_free` (`MPI_INFO_ENV` cannot be freed).
    pub fn free(&mut self, id: InfoId) -> MpiResult<()> {
        if id == InfoId::ENV {
            return Err(MpiError::Info);
        }
        self.objects.remove(&id).map(|_| ()).ok_or(MpiError::Info)
    }

    /// `MPI_Info_set`.
    pub fn set(&mut self, id: InfoId, key: &str, value: &str) -> MpiResult<()> {
        check_key(key)?;
        if value.len() > MAX_VALUE {
            return Err(MpiError::InfoValue);
        }
        let pairs = self.pairs_mut(id)?;
        match pairs.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value.to_string(),
            None => pairs.push((key.to_string(), value.to_string())),
        }
        Ok(())
    }

    /// `MPI_Info_get` and friends: the value of `key`, if set.
    pub fn get(&self, id: InfoId, key: &str) -> MpiResult<Option<&str>> {
        check_key(key)?;
        Ok(self
            .pairs(id)?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str()))
    }

    /// `MPI_Info_delete` (`MPI_ERR_INFO_NOKEY` when not set).
    pub fn delete(&mut self, id: InfoId, key: &str) -> MpiResult<()> {
        check_key(key)?;
        let pairs = self.pairs_mut(id)?;
        let i = pairs
            .iter()
            .position(|(k, _)| k == key)
            .ok_or(MpiError::InfoNokey)?;
        pairs.remove(i);
        Ok(())
    }

    /// `MPI_Info_get_nkeys`.
    pub fn nkeys(&self, id: InfoId) -> MpiResult<usize> {
        Ok(self.pairs(id)?.len())
    }

    /// `MPI_Info_get_nthkey` (`MPI_ERR_ARG` beyond the last key).
    pub fn nthkey(&self, id: InfoId, n: usize) -> MpiResult<&str> {
        self.pairs(id)?
            .get(n)
            .map(|(k, _)| k.as_str())
            .ok_or(MpiError::Arg)
    }

    /// All pairs of an object, in order.
    pub fn all(&self, id: InfoId) -> MpiResult<&Pairs> {
        self.pairs(id)
    }
}

/// The MPI 4.0 assertions a communicator accepts as hints
/// (`MPI_Comm_set_info`, `MPI_Comm_dup_with_info`): the shim keeps and
/// reports them, and ignores every other key, as MPICH does.
pub const COMM_HINT_KEYS: [&str; 4] = [
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
];

/// A communicator's hints: which of [`COMM_HINT_KEYS`] the program asserted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommHints {
    asserted: [bool; 4],
}

impl CommHints {
    /// The hints an info object gives, over `self` (keys it does not name
    /// keep their value; values other than "true" and "false" are ignored).
    pub fn updated(mut self, pairs: &Pairs) -> CommHints {
        for (k, v) in pairs {
            if let Some(i) = COMM_HINT_KEYS.iter().position(|h| h == k) {
                match v.trim() {
                    "true" => self.asserted[i] = true,
                    "false" => self.asserted[i] = false,
                    _ => {}
                }
            }
        }
        self
    }

    /// What `MPI_Comm_get_info` reports: every hint key with "true" or "false".
    pub fn pairs(&self) -> Pairs {
        COMM_HINT_KEYS
            .iter()
            .zip(self.asserted)
            .map(|(k, a)| (k.to_string(), a.to_string()))
            .collect()
    }
}

/// The hints MPI defines for windows and their defaults, in the order
/// `MPI_Win_get_info` reports them (as MPICH does).
pub const WIN_HINT_DEFAULTS: [(&str, &str); 6] = [
    ("no_locks", "false"),
    ("accumulate_ordering", "rar,raw,war,waw"),
    ("accumulate_ops", "same_op_no_op"),
    ("alloc_shared_noncontig", "false"),
    ("same_size", "false"),
    ("same_disp_unit", "false"),
];

/// A window's hints (`MPI_Win_create`'s info, `MPI_Win_set_info`): the
/// value of each of [`WIN_HINT_DEFAULTS`]' keys; other keys are ignored,
/// as MPICH ignores keys it does not know. The shim behaves the same
/// whatever they say (they only allow optimisations), but reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WinHints {
    values: Vec<String>,
}

impl Default for WinHints {
    fn default() -> WinHints {
        WinHints {
            values: WIN_HINT_DEFAULTS
                .iter()
                .map(|(_, v)| v.to_string())
                .collect(),
        }
    }
}

impl WinHints {
    /// The hints an info object gives, over `self`.
    pub fn updated(mut self, pairs: &Pairs) -> WinHints {
        for (k, v) in pairs {
            if let Some(i) = WIN_HINT_DEFAULTS.iter().position(|(h, _)| h == k) {
                self.values[i] = v.trim().to_string();
            }
        }
        self
    }

    /// Whether the program allows non-contiguous shared segments.
    pub fn alloc_shared_noncontig(&self) -> bool {
        self.values[3] == "true"
    }

    /// What `MPI_Win_get_info` reports: every key with its value.
    pub fn pairs(&self) -> Pairs {
        WIN_HINT_DEFAULTS
            .iter()
            .zip(&self.values)
            .map(|((k, _), v)| (k.to_string(), v.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(t: &Infos, id: InfoId) -> Vec<String> {
        (0..t.nkeys(id).unwrap())
            .map(|n| t.nthkey(id, n).unwrap().to_string())
            .collect()
    }

    #[test]
    fn set_get_replace_delete_keep_the_order_keys_were_first_set_in() {
        let mut t = Infos::default();
        let i = t.create();
        t.set(i, "c", "3").unwrap();
        t.set(i, "d", "4").unwrap();
        t.set(i, " spaced ", "").unwrap();
        t.set(i, "c", "33").unwrap();
        assert_eq!(keys(&t, i), ["c", "d", " spaced "]);
        assert_eq!(t.get(i, "c"), Ok(Some("33")));
        assert_eq!(t.get(i, " spaced "), Ok(Some("")));
        assert_eq!(t.get(i, "spaced"), Ok(None));
        t.delete(i, "d").unwrap();
        assert_eq!(t.delete(i, "d"), Err(MpiError::InfoNokey));
        assert_eq!(keys(&t, i), ["c", " spaced "]);
        assert_eq!(t.nthkey(i, 2), Err(MpiError::Arg));
    }

    #[test]
    fn keys_and_values_have_mpis_limits() {
        let mut t = Infos::default();
        let i = t.create();
        assert_eq!(t.set(i, "", "x"), Err(MpiError::InfoKey));
        assert_eq!(t.set(i, &"k".repeat(256), "x"), Err(MpiError::InfoKey));
        t.set(i, &"k".repeat(255), "x").unwrap();
        assert_eq!(t.set(i, "v", &"v".repeat(1025)), Err(MpiError::InfoValue));
        t.set(i, "v", &"v".repeat(1024)).unwrap();
        assert_eq!(t.get(i, ""), Err(MpiError::InfoKey));
    }

    #[test]
    fn dup_is_independent_and_env_is_read_only() {
        let mut t = Infos::new(vec![("maxprocs".into(), "4".into())]);
        let a = t.create();
        t.set(a, "x", "1").unwrap();
        let b = t.dup(a).unwrap();
        t.set(b, "y", "2").unwrap();
        assert_eq!((t.nkeys(a), t.nkeys(b)), (Ok(1), Ok(2)));
        t.free(a).unwrap();
        assert_eq!(t.nkeys(a), Err(MpiError::Info));
        assert_eq!(t.free(a), Err(MpiError::Info));
        assert_eq!(t.get(InfoId::ENV, "maxprocs"), Ok(Some("4")));
        assert_eq!(t.set(InfoId::ENV, "x", "1"), Err(MpiError::Info));
        assert_eq!(t.delete(InfoId::ENV, "maxprocs"), Err(MpiError::Info));
        assert_eq!(t.free(InfoId::ENV), Err(MpiError::Info));
        let e = t.dup(InfoId::ENV).unwrap();
        t.set(e, "x", "1").unwrap();
        assert_eq!(t.nkeys(e), Ok(2));
    }

    #[test]
    fn communicator_hints_keep_the_mpi_assertions_only() {
        let given: Pairs = vec![
            ("mpi_assert_no_any_tag".into(), "true".into()),
            ("invalid_test_key".into(), "true".into()),
            ("mpi_assert_exact_length".into(), "maybe".into()),
        ];
        let h = CommHints::default().updated(&given);
        let p = h.pairs();
        assert_eq!(p.len(), 4);
        assert_eq!(p[0], ("mpi_assert_no_any_tag".into(), "true".into()));
        assert!(p[1..].iter().all(|(_, v)| v == "false"));
        let off = vec![("mpi_assert_no_any_tag".to_string(), "false".to_string())];
        assert_eq!(h.updated(&off), CommHints::default());
    }

    #[test]
    fn window_hints_keep_known_keys_over_their_defaults() {
        let pairs: Pairs = [
            ("no_locks", "true"),
            ("bogus", "1"),
            ("alloc_shared_noncontig", " true "),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let h = WinHints::default().updated(&pairs);
        assert!(h.alloc_shared_noncontig());
        let got = h.pairs();
        assert_eq!(got.len(), 6);
        assert_eq!(got[0], ("no_locks".into(), "true".into()));
        assert_eq!(
            got[1],
            ("accumulate_ordering".into(), "rar,raw,war,waw".into())
        );
        assert!(!got.iter().any(|(k, _)| k == "bogus"));
        assert!(!WinHints::default().alloc_shared_noncontig());
    }
}
