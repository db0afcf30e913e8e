//! How the tool interface returns a string through a buffer and an in/out
//! length (MPI 3.1 section 14.3.3): with no length pointer nothing is
//! written; with a null buffer or a length of 0 only the length needed
//! (terminating null included) is returned; otherwise the string is copied,
//! cut to fit, and the length written (null included) is returned.

/// What to do for a string of `text_len` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextOut {
    /// Bytes of the string to copy, followed by a null (None: write nothing).
    pub copy: Option<usize>,
    /// The value to store in the length argument.
    pub len: usize,
}

/// The rule for a buffer of `capacity` bytes (`None`: a null buffer).
pub fn text_out(text_len: usize, capacity: Option<usize>) -> TextOut {
    match capacity {
        Some(cap) if cap > 0 => {
            let n = text_len.min(cap - 1);
            TextOut {
                copy: Some(n),
                len: n + 1,
            }
        }
        _ => TextOut {
            copy: None,
            len: text_len + 1,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_fit_truncation_and_query() {
        assert_eq!(
            text_out(5, Some(10)),
            TextOut {
                copy: Some(5),
                len: 6
            }
        );
        assert_eq!(
            text_out(5, Some(6)),
            TextOut {
                copy: Some(5),
                len: 6
            }
        );
        assert_eq!(
            text_out(5, Some(4)),
            TextOut {
                copy: Some(3),
                len: 4
            }
        );
        assert_eq!(
            text_out(5, Some(1)),
            TextOut {
                copy: Some(0),
                len: 1
            }
        );
        assert_eq!(text_out(5, Some(0)), TextOut { copy: None, len: 6 });
        assert_eq!(text_out(5, None), TextOut { copy: None, len: 6 });
    }
}
