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

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(one_line("plain `ü` text"), "plain `ü` text");
        assert_eq!(one_line("`t\n\0x`"), "`t\\n\\u{0}x`");
        assert_eq!(one_line("a\tb\r"), "a\\tb\\r");
    }
}
