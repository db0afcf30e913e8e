//! Data representations of file views (MPI 3.1 §13.5): how the values of
//! a view's predefined types are stored in the file.
//!
//! "native" and "internal" store memory bytes as they are; "external32"
//! stores MPI's portable big-endian form, converted here; a representation
//! the program registers (`MPI_Register_datarep`) stores what its callbacks
//! make of the data. Callbacks are program code, so the C layer calls them
//! (outside the engine) and hands the engine file bytes; the engine keeps
//! the registered names and lays views out with the file sizes of the
//! predefined types (see [`crate::datatype::FileSizes`]).

use super::amode;
use crate::datatype::{external32::external32_size, BuiltinType, FileSizes};
use crate::error::{MpiError, MpiResult};

/// `MPI_ERR_DUP_DATAREP`: the name is already a representation.
pub const ERR_DUP_DATAREP: i32 = 24;
/// `MPI_ERR_CONVERSION`: a conversion callback returned an error.
pub const ERR_CONVERSION: i32 = 23;
/// `MPI_MAX_DATAREP_STRING`: the longest name, with its terminating zero.
pub const MAX_DATAREP_STRING: usize = 128;

/// The data representation of a view (`MPI_File_set_view`'s `datarep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataRep {
    /// `"native"`: memory bytes as they are.
    Native,
    /// `"internal"`: here the same as native.
    Internal,
    /// `"external32"`: big-endian, MPI's portable sizes.
    External32,
    /// The program's representation number *n* (in registration order).
    Registered(u32),
}

impl DataRep {
    /// The file sizes of `types` in this representation; `registered`
    /// gives them for a registered one (its extent callback's answers).
    pub fn file_sizes(self, types: &[BuiltinType], registered: &FileSizes) -> MpiResult<FileSizes> {
        types
            .iter()
            .map(|&b| {
                let size = match self {
                    DataRep::Native | DataRep::Internal => b.size(),
                    DataRep::External32 => external32_size(b),
                    DataRep::Registered(_) => *registered.get(&b).ok_or(MpiError::Datatype)?,
                };
                Ok((b, size))
            })
            .collect()
    }
}

/// The representations the program registered, by name.
#[derive(Debug, Default)]
pub struct Datareps {
    names: Vec<String>,
}

impl Datareps {
    /// `MPI_Register_datarep`: adds `name` (`MPI_ERR_DUP_DATAREP` if it
    /// names a representation already, `MPI_ERR_ARG` if it is empty or
    /// longer than `MPI_MAX_DATAREP_STRING` allows).
    pub fn register(&mut self, name: &str) -> MpiResult<DataRep> {
        if name.is_empty() || name.len() >= MAX_DATAREP_STRING {
            return Err(MpiError::Arg);
        }
        if self.parse(name).is_ok() {
            return Err(MpiError::Code(ERR_DUP_DATAREP));
        }
        self.names.push(name.to_owned());
        Ok(DataRep::Registered(self.names.len() as u32 - 1))
    }

    /// The representation `name` (`MPI_ERR_UNSUPPORTED_DATAREP` if none).
    pub fn parse(&self, name: &str) -> MpiResult<DataRep> {
        match name {
            "native" => Ok(DataRep::Native),
            "internal" => Ok(DataRep::Internal),
            "external32" => Ok(DataRep::External32),
            _ => self
                .names
                .iter()
                .position(|n| n == name)
                .map(|i| DataRep::Registered(i as u32))
                .ok_or(MpiError::Code(amode::ERR_UNSUPPORTED_DATAREP)),
        }
    }

    /// The name `MPI_File_get_view` returns.
    pub fn name(&self, rep: DataRep) -> &str {
        match rep {
            DataRep::Native => "native",
            DataRep::Internal => "internal",
            DataRep::External32 => "external32",
            DataRep::Registered(i) => self.names.get(i as usize).map_or("", String::as_str),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_names_parse_and_duplicates_are_refused() {
        let mut d = Datareps::default();
        assert_eq!(
            d.parse("mine"),
            Err(MpiError::Code(amode::ERR_UNSUPPORTED_DATAREP))
        );
        let r = d.register("mine").unwrap();
        assert_eq!(r, DataRep::Registered(0));
        assert_eq!(d.parse("mine"), Ok(r));
        assert_eq!(d.name(r), "mine");
        for dup in ["mine", "native", "external32", "internal"] {
            assert_eq!(d.register(dup), Err(MpiError::Code(ERR_DUP_DATAREP)));
        }
        assert_eq!(d.register(""), Err(MpiError::Arg));
        assert_eq!(d.register(&"x".repeat(128)), Err(MpiError::Arg));
    }

    #[test]
    fn file_sizes_of_each_representation() {
        let types = [BuiltinType::Int, BuiltinType::Long];
        let none = FileSizes::new();
        let native = DataRep::Native.file_sizes(&types, &none).unwrap();
        assert_eq!(native.values().copied().collect::<Vec<_>>(), vec![4, 8]);
        // external32's MPI_LONG is 4 bytes.
        let ext = DataRep::External32.file_sizes(&types, &none).unwrap();
        assert_eq!(ext.values().copied().collect::<Vec<_>>(), vec![4, 4]);
        assert!(DataRep::Registered(0).file_sizes(&types, &none).is_err());
    }
}
