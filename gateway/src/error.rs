//! The gateway's error: one sentence saying what went wrong, where, and
//! what to do, and which exit code it ends `mpinetsim` with
//! ([`crate::exit_code`]). Most failures before a job starts are the
//! user's to fix (a command line, a network file, a path: exit 2); some are
//! mpinetsim's own (the system refused it a resource it needs, such as an
//! epoll instance, a timer, a pipe or its private folder, or a file it
//! writes: exit 4). Every fallible function of the gateway answers with
//! this type (or a typed error of its own such as
//! [`crate::output_file::OutputFileError`], which converts by kind); a
//! sentence from a library that speaks in strings (netsim's workload
//! driver, a parser) becomes [`Error::Usage`] through `?`.

use crate::exit_code;
use crate::output_file::OutputFileError;

/// A failure that ends a command, with its sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bad command line, network file, program or path, found before
    /// anything ran (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// mpinetsim itself could not go on: the system refused a resource it
    /// needs, or a file it writes could not be written (exit code 4).
    #[error("{0}")]
    Internal(String),
}

impl Error {
    /// An internal failure saying `sentence`.
    pub fn internal(sentence: impl Into<String>) -> Error {
        Error::Internal(sentence.into())
    }

    /// The same kind of failure with its sentence rewritten by `f` (to add
    /// where it happened or what to do), so context never turns an
    /// internal failure into the user's or back.
    pub fn map_sentence(self, f: impl FnOnce(String) -> String) -> Error {
        match self {
            Error::Usage(s) => Error::Usage(f(s)),
            Error::Internal(s) => Error::Internal(f(s)),
        }
    }

    /// The exit code this failure ends mpinetsim with.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => exit_code::USAGE,
            Error::Internal(_) => exit_code::INTERNAL,
        }
    }
}

impl From<String> for Error {
    /// A module's sentence about the user's input.
    fn from(sentence: String) -> Error {
        Error::Usage(sentence)
    }
}

impl From<&str> for Error {
    fn from(sentence: &str) -> Error {
        Error::Usage(sentence.to_string())
    }
}

impl From<netsim::ConfigError> for Error {
    fn from(e: netsim::ConfigError) -> Error {
        Error::Usage(e.to_string())
    }
}

impl From<OutputFileError> for Error {
    /// A path the user gave is unusable (usage); writing it failed
    /// (a full disk: internal).
    fn from(e: OutputFileError) -> Error {
        match e {
            OutputFileError::WriteFailed { .. } => Error::Internal(e.to_string()),
            _ => Error::Usage(e.to_string()),
        }
    }
}

impl From<Error> for String {
    /// For callers that speak in sentences.
    fn from(e: Error) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_exit_code_and_keeps_its_sentence() {
        let u = Error::from("--repeat 0: give at least one run per network".to_string());
        assert_eq!(u.exit_code(), 2);
        assert_eq!(
            u.to_string(),
            "--repeat 0: give at least one run per network"
        );
        let i = Error::internal("cannot create an epoll instance: out of memory");
        assert_eq!(i.exit_code(), 4);
        assert_eq!(
            i.to_string(),
            "cannot create an epoll instance: out of memory"
        );
        assert_eq!(
            String::from(i),
            "cannot create an epoll instance: out of memory"
        );
    }

    #[test]
    fn an_output_file_is_the_users_path_until_writing_it_fails() {
        let folder = OutputFileError::IsAFolder {
            option: "--report".into(),
            path: "/tmp".into(),
        };
        assert_eq!(Error::from(folder).exit_code(), 2);
        let full = OutputFileError::WriteFailed {
            option: "--report".into(),
            path: "/tmp".into(),
            source: std::io::Error::from_raw_os_error(28),
        };
        let e = Error::from(full);
        assert_eq!(e.exit_code(), 4);
        assert!(
            e.to_string().starts_with("cannot write --report /tmp ("),
            "{e}"
        );
    }
}
