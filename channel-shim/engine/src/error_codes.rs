//! Error classes and codes: the predefined classes and their texts, and
//! the classes, codes and strings a program adds (`MPI_Add_error_class`,
//! `MPI_Add_error_code`, `MPI_Add_error_string`).
//!
//! Numbering follows MPICH, so programs that print codes see the same
//! values: an added class is `0x4000_0000 | n` (n = 1, 2, ...); an added
//! code is `(k << 8) | class`, k counting every code added so far; the
//! class of any code is its low seven bits plus the `0x4000_0000` bit.
//! `MPI_LASTUSEDCODE` is the highest class added (`MPI_ERR_LASTCODE` before
//! any), as MPICH reports it. MPICH's extension (MPI 4.1's
//! `MPI_Remove_error_*`) removes them again; their numbers are then given
//! out again, lowest first.

use crate::error::{MpiError, MpiResult};
use std::collections::{BTreeSet, HashMap};

/// The bit that marks added classes and their codes.
pub const DYNAMIC: i32 = 0x4000_0000;
/// `MPI_ERR_LASTCODE`.
pub const LAST_PREDEFINED_CODE: i32 = 0x3fff_ffff;
/// Bits of a code that hold its class number.
const CLASS_BITS: i32 = 0x7f;
/// Most classes a program may add (MPICH's limit).
pub const MAX_ADDED_CLASSES: i32 = 127;
/// Most codes a program may add (the bits above the class of a code).
pub const MAX_ADDED_CODES: i32 = (DYNAMIC >> 8) - 1;
/// `MPI_MAX_ERROR_STRING` minus its terminating NUL.
pub const MAX_STRING: usize = 511;

/// Numbers 1, 2, ... handed out lowest free first.
#[derive(Debug, Default)]
struct Numbers {
    next: i32,
    freed: BTreeSet<i32>,
}

impl Numbers {
    fn take(&mut self, max: i32) -> Option<i32> {
        if let Some(n) = self.freed.pop_first() {
            return Some(n);
        }
        if self.next >= max {
            return None;
        }
        self.next += 1;
        Some(self.next)
    }

    fn give_back(&mut self, n: i32) {
        self.freed.insert(n);
        while self.next > 0 && self.freed.remove(&self.next) {
            self.next -= 1;
        }
    }

    fn in_use(&self, n: i32) -> bool {
        (1..=self.next).contains(&n) && !self.freed.contains(&n)
    }
}

/// The added classes, codes and strings of one process.
#[derive(Debug, Default)]
pub struct ErrorCodes {
    classes: Numbers,
    codes: Numbers,
    class_of_code: HashMap<i32, i32>,
    strings: HashMap<i32, String>,
}

/// MPICH's text of each predefined class, by class number (what
/// `MPI_Error_string` returns for the class, and for the codes the shim
/// returns, which are classes).
const CLASS_TEXTS: [&str; 62] = [
    "No MPI error",
    "Invalid buffer pointer",
    "Invalid count",
    "Invalid datatype",
    "Invalid tag",
    "Invalid communicator",
    "Invalid rank",
    "Invalid root",
    "Invalid group",
    "Invalid MPI_Op",
    "Invalid topology",
    "Invalid dimension argument",
    "Invalid argument",
    "Unknown error.  Please file a bug report.",
    "Message truncated",
    "Other MPI error",
    "Internal MPI error!",
    "See the MPI_ERROR field in MPI_Status for the error code",
    "Pending request (no error)",
    "Request pending due to failure",
    "Access denied to file",
    "Invalid amode value in MPI_File_open ",
    "Invalid file name",
    "An error occurred in a user-defined data conversion function",
    "The requested datarep name has already been specified to MPI_REGISTER_DATAREP",
    "File exists",
    "File in use by some process",
    "Invalid MPI_File",
    "Invalid MPI_Info",
    "Invalid key for MPI_Info ",
    "Invalid MPI_Info value ",
    "MPI_Info key is not defined ",
    "Other I/O error ",
    "Invalid service name (see MPI_Publish_name)",
    "Unable to allocate memory for MPI_Alloc_mem",
    "Inconsistent arguments to collective routine ",
    "Not enough space for file ",
    "File does not exist",
    "Invalid port",
    "Quota exceeded for files",
    "Read-only file or filesystem name",
    "Attempt to lookup an unknown service name ",
    "Error in spawn call",
    "Unsupported datarep passed to MPI_File_set_view ",
    "Unsupported file operation ",
    "Invalid MPI_Win",
    "Invalid base address",
    "Invalid locktype argument",
    "Invalid keyval",
    "Conflicting accesses to window ",
    "Wrong synchronization of RMA calls ",
    "Invalid size argument in RMA call",
    "Invalid displacement argument in RMA call ",
    "Invalid assert argument",
    "Process failed",
    "Target memory is not contained within the window",
    "Memory cannot be attached",
    "Memory cannot be shared",
    "Incorrect window flavor",
    "Communication object revoked",
    "Operation could not be issued (EAGAIN)",
    "failure occurred while allocating memory for a request object",
];

/// MPICH's text of a predefined class ("Unknown error class" beyond them).
pub fn class_text(class: i32) -> &'static str {
    if class == crate::revoke::ERR_REVOKED {
        return "Communication object revoked";
    }
    usize::try_from(class)
        .ok()
        .and_then(|c| CLASS_TEXTS.get(c))
        .copied()
        .unwrap_or("Unknown error class")
}

impl ErrorCodes {
    /// Nothing added.
    pub fn new() -> ErrorCodes {
        ErrorCodes::default()
    }

    /// `MPI_Add_error_class`.
    pub fn add_class(&mut self) -> MpiResult<i32> {
        let n = self
            .classes
            .take(MAX_ADDED_CLASSES)
            .ok_or(MpiError::Other)?;
        Ok(DYNAMIC | n)
    }

    /// Whether `class` is a predefined class or one the program added.
    pub fn is_class(&self, class: i32) -> bool {
        (0..=LAST_PREDEFINED_CLASS).contains(&class)
            || (class & DYNAMIC != 0 && self.classes.in_use(class & !DYNAMIC))
    }

    /// `MPI_Add_error_code`: a new code of `class` (predefined or added).
    pub fn add_code(&mut self, class: i32) -> MpiResult<i32> {
        if !self.is_class(class) {
            return Err(MpiError::Arg);
        }
        let k = self.codes.take(MAX_ADDED_CODES).ok_or(MpiError::Other)?;
        let code = (k << 8) | class;
        self.class_of_code.insert(code, class);
        Ok(code)
    }

    /// `MPIX_Delete_error_class`: removes an added class that has no codes.
    pub fn remove_class(&mut self, class: i32) -> MpiResult<()> {
        if class & DYNAMIC == 0 || !self.is_class(class) {
            return Err(MpiError::Arg);
        }
        if self.class_of_code.values().any(|&c| c == class) {
            return Err(MpiError::Arg);
        }
        self.strings.remove(&class);
        self.classes.give_back(class & !DYNAMIC);
        Ok(())
    }

    /// `MPIX_Delete_error_code`: removes an added code (and its string).
    pub fn remove_code(&mut self, code: i32) -> MpiResult<()> {
        self.class_of_code.remove(&code).ok_or(MpiError::Arg)?;
        self.strings.remove(&code);
        self.codes.give_back((code & !DYNAMIC) >> 8);
        Ok(())
    }

    /// `MPIX_Delete_error_string`: removes the string of an added class or code.
    pub fn remove_string(&mut self, code: i32) -> MpiResult<()> {
        if !self.is_added(code) {
            return Err(MpiError::Arg);
        }
        self.strings.remove(&code);
        Ok(())
    }

    /// `MPI_Error_class`: the class of any code.
    pub fn class_of(&self, code: i32) -> i32 {
        self.class_of_code
            .get(&code)
            .copied()
            .unwrap_or(code & (DYNAMIC | CLASS_BITS))
    }

    /// Whether the program added `code` (as a class or a code).
    fn is_added(&self, code: i32) -> bool {
        self.class_of_code.contains_key(&code) || (code & DYNAMIC != 0 && self.is_class(code))
    }

    /// `MPI_Add_error_string`: only added classes and codes take one; the
    /// text is cut to `MPI_MAX_ERROR_STRING - 1` bytes.
    pub fn set_string(&mut self, code: i32, text: &str) -> MpiResult<()> {
        if !self.is_added(code) {
            return Err(MpiError::Arg);
        }
        let mut t = text.to_string();
        while t.len() > MAX_STRING {
            t.pop();
        }
        self.strings.insert(code, t);
        Ok(())
    }

    /// `MPI_Error_string`: the added string, empty for an added class or
    /// code without one, else the text of the code's class.
    pub fn text(&self, code: i32) -> String {
        if let Some(s) = self.strings.get(&code) {
            return s.clone();
        }
        if code & DYNAMIC != 0 {
            return String::new();
        }
        class_text(self.class_of(code)).to_string()
    }

    /// The value of the `MPI_LASTUSEDCODE` attribute.
    pub fn last_used(&self) -> i32 {
        if self.classes.next == 0 {
            LAST_PREDEFINED_CODE
        } else {
            DYNAMIC | self.classes.next
        }
    }
}

/// The last predefined class (MPICH's `MPICH_ERR_LAST_CLASS`).
pub const LAST_PREDEFINED_CLASS: i32 = 78;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_classes_and_codes_are_numbered_as_mpich_numbers_them() {
        let mut e = ErrorCodes::new();
        assert_eq!(e.last_used(), LAST_PREDEFINED_CODE);
        let c1 = e.add_class().unwrap();
        let c2 = e.add_class().unwrap();
        assert_eq!((c1, c2), (0x4000_0001, 0x4000_0002));
        assert_eq!(e.last_used(), 0x4000_0002);
        let e1 = e.add_code(c1).unwrap();
        let e2 = e.add_code(c2).unwrap();
        let e3 = e.add_code(12).unwrap();
        assert_eq!((e1, e2, e3), (0x4000_0101, 0x4000_0202, 0x30c));
        assert_eq!(e.last_used(), 0x4000_0002);
        assert_eq!(e.class_of(e1), c1);
        assert_eq!(e.class_of(e3), 12);
        assert_eq!(e.class_of(c2), c2);
        assert_eq!(e.class_of(14), 14);
        assert_eq!(e.add_code(0x4000_0003), Err(MpiError::Arg));
        assert_eq!(e.add_code(-1), Err(MpiError::Arg));
    }

    #[test]
    fn strings_belong_to_added_codes_only() {
        let mut e = ErrorCodes::new();
        let c = e.add_class().unwrap();
        let k = e.add_code(c).unwrap();
        assert_eq!(e.text(k), "");
        assert_eq!(e.text(c), "");
        e.set_string(k, "my error").unwrap();
        e.set_string(c, "my class").unwrap();
        assert_eq!(
            (e.text(k).as_str(), e.text(c).as_str()),
            ("my error", "my class")
        );
        assert_eq!(e.set_string(12, "no"), Err(MpiError::Arg));
        assert_eq!(e.text(12), "Invalid argument");
        let long = "x".repeat(600);
        e.set_string(k, &long).unwrap();
        assert_eq!(e.text(k).len(), MAX_STRING);
    }

    #[test]
    fn predefined_texts_are_mpichs() {
        assert_eq!(class_text(0), "No MPI error");
        assert_eq!(class_text(14), "Message truncated");
        assert_eq!(class_text(48), "Invalid keyval");
        assert_eq!(
            class_text(61),
            "failure occurred while allocating memory for a request object"
        );
        assert_eq!(class_text(62), "Unknown error class");
        assert_eq!(class_text(-3), "Unknown error class");
    }

    #[test]
    fn removed_numbers_are_given_out_again() {
        let mut e = ErrorCodes::new();
        for _ in 0..10_000 {
            let c = e.add_class().unwrap();
            let k: Vec<i32> = (0..5).map(|_| e.add_code(c).unwrap()).collect();
            e.set_string(k[0], "x").unwrap();
            assert_eq!(e.remove_class(c), Err(MpiError::Arg), "codes left");
            for code in k {
                e.remove_string(code).unwrap();
                e.remove_code(code).unwrap();
                assert_eq!(e.remove_code(code), Err(MpiError::Arg));
            }
            e.remove_class(c).unwrap();
        }
        assert_eq!(e.last_used(), LAST_PREDEFINED_CODE);
        assert_eq!(e.add_class(), Ok(0x4000_0001));
        assert_eq!(e.add_code(0x4000_0001), Ok(0x4000_0101));
        assert_eq!(e.remove_class(12), Err(MpiError::Arg));
        assert_eq!(e.remove_string(12), Err(MpiError::Arg));
    }

    #[test]
    fn classes_run_out_after_127() {
        let mut e = ErrorCodes::new();
        for _ in 0..MAX_ADDED_CLASSES {
            e.add_class().unwrap();
        }
        assert_eq!(e.add_class(), Err(MpiError::Other));
    }
}
