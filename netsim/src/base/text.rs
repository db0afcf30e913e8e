//! Error text that quotes what a user wrote stays one line: control
//! characters in the quoted input (a newline pasted into `--net 'xsim:…'`,
//! a NUL in a file) are shown escaped instead of breaking the sentence.

/// `msg` with every control character replaced by its Rust escape
/// (`\n`, `\t`, `\u{0}`), so it prints as one line.
pub fn one_line(msg: &str) -> String {
    if !msg.chars().any(char::is_control) {
        return msg.to_string();
    }
    msg.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A number as a user reads it in a sentence: as written when short
/// (`4`, `0.05`, `1000000`), in scientific notation when its digits would
/// fill the line (`1e300`, not three hundred digits).
pub fn short_number(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 16 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// Matches a capture/selection pattern where `*` stands for any run of
/// characters (including none).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p = pattern.as_bytes();
    let t = text.as_bytes();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && p[pi] != b'*' && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::{glob_match, one_line, short_number};

    #[test]
    fn long_numbers_are_written_short() {
        assert_eq!(short_number(4.0), "4");
        assert_eq!(short_number(0.05), "0.05");
        assert_eq!(short_number(1e6), "1000000");
        assert_eq!(short_number(1e300), "1e300");
        assert_eq!(short_number(-2.5e-20), "-2.5e-20");
        assert_eq!(short_number(f64::INFINITY), "inf");
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(one_line("plain `ü` text"), "plain `ü` text");
        assert_eq!(one_line("`t\n\0x`"), "`t\\n\\u{0}x`");
        assert_eq!(one_line("a\tb\r"), "a\\tb\\r");
    }

    #[test]
    fn globs() {
        assert!(glob_match("router*", "router3/switch0"));
        assert!(glob_match("host0", "host0"));
        assert!(!glob_match("host1", "host10"));
        assert!(glob_match("*/host1", "switch0/host1"));
        assert!(glob_match("*", ""));
    }
}
