//! Object names (`MPI_Comm_set_name`, `MPI_Type_set_name`): the names the
//! program set; predefined objects read as their MPI names until renamed.

use crate::comm::CommId;
use crate::datatype::DatatypeId;
use crate::object::Object;
use std::collections::HashMap;

/// `MPI_MAX_OBJECT_NAME` minus its terminating NUL: longer names are cut.
pub const MAX_NAME: usize = 127;

/// The names set in one process.
#[derive(Debug, Default)]
pub struct Names {
    set: HashMap<Object, String>,
}

impl Names {
    /// No names set.
    pub fn new() -> Names {
        Names::default()
    }

    /// Names `object` (cut to [`MAX_NAME`] bytes at a character boundary).
    pub fn set(&mut self, object: Object, name: &str) {
        let mut n = name.to_string();
        while n.len() > MAX_NAME {
            n.pop();
        }
        self.set.insert(object, n);
    }

    /// The name of `object`: the one set, else its predefined name, else empty.
    pub fn get(&self, object: Object) -> String {
        if let Some(n) = self.set.get(&object) {
            return n.clone();
        }
        match object {
            Object::Comm(CommId::WORLD) => "MPI_COMM_WORLD".into(),
            Object::Comm(CommId::SELF) => "MPI_COMM_SELF".into(),
            Object::Comm(_) => String::new(),
            Object::Datatype(DatatypeId::Builtin(b)) => b.mpi_name().into(),
            Object::Datatype(DatatypeId::Derived(_)) | Object::Win(_) => String::new(),
        }
    }

    /// Forgets the name of a freed object.
    pub fn forget(&mut self, object: Object) {
        self.set.remove(&object);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datatype::BuiltinType;

    #[test]
    fn predefined_names_until_renamed_and_long_names_are_cut() {
        let mut n = Names::new();
        let w = Object::Comm(CommId::WORLD);
        assert_eq!(n.get(w), "MPI_COMM_WORLD");
        assert_eq!(n.get(Object::Comm(CommId(4))), "");
        n.set(w, "everyone");
        assert_eq!(n.get(w), "everyone");
        let int = Object::Datatype(DatatypeId::Builtin(BuiltinType::Int));
        assert_eq!(n.get(int), "MPI_INT");
        let long = "é".repeat(100);
        n.set(int, &long);
        assert_eq!(n.get(int).len(), 126);
        n.forget(int);
        assert_eq!(n.get(int), "MPI_INT");
    }
}
