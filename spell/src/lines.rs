//! Line splitting and trimming as Chromium's `convert_dict` does it (`hunspell_reader.cc`).
//! Every quirk here changes which bytes end up in the `.bdic`, so none is "fixed".

/// `convert_dict` reads with `fgets` into a 65,535-byte buffer it passes as 65,534 long, so a
/// longer line comes back as several lines of at most this many bytes.
const MAX_LINE: usize = 65_533;

/// What `base::TrimWhitespaceASCII` trims.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The lines of a file, each numbered from 1 and already trimmed ([`trim`]).
pub(crate) fn lines(data: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut rest = data;
    let mut number = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let window = &rest[..rest.len().min(MAX_LINE)];
        let len = window
            .iter()
            .position(|&b| b == b'\n')
            .map_or(window.len(), |i| i + 1);
        let (line, tail) = rest.split_at(len);
        rest = tail;
        number += 1;
        // The line is copied into a `std::string` from a C string: a NUL ends it.
        let line = line.iter().position(|&b| b == 0).map_or(line, |i| &line[..i]);
        Some((number, trim(line)))
    })
}

/// Drops a UTF-8 byte order mark (only when more follows it) and ASCII whitespace at both ends.
pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    if s.len() > 3 && s.starts_with(b"\xEF\xBB\xBF") {
        s = &s[3..];
    }
    let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|&b| !is_space(b)).map_or(start, |i| i + 1);
    &s[start..end]
}

/// Cuts a line at its first `#`, wherever it is (a word or an affix containing `#` is cut too).
pub(crate) fn strip_comment(s: &[u8]) -> &[u8] {
    match s.iter().position(|&b| b == b'#') {
        Some(i) => trim(&s[..i]),
        None => s,
    }
}

/// Collapses each run of spaces (not tabs) into one.
pub(crate) fn collapse_spaces(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        if b == b' ' && out.last() == Some(&b' ') {
            continue;
        }
        out.push(b);
    }
    out
}

/// `base::SplitString(s, " ", TRIM_WHITESPACE, SPLIT_WANT_ALL)`: empty pieces are kept, but an
/// empty input gives no piece at all.
pub(crate) fn split_spaces(s: &[u8]) -> Vec<&[u8]> {
    if s.is_empty() {
        return Vec::new();
    }
    s.split(|&b| b == b' ').map(trim_ascii_only).collect()
}

/// Whitespace trimming without [`trim`]'s byte-order-mark removal, as `base::TrimString` does.
fn trim_ascii_only(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|&b| !is_space(b)).map_or(start, |i| i + 1);
    &s[start..end]
}

/// C's `atoi` as glibc has it: leading whitespace, a sign, digits; `strtol` saturates to a
/// `long` and the cast to `int` then keeps the low 32 bits.
pub(crate) fn atoi(s: &[u8]) -> i32 {
    let mut i = s.iter().position(|&b| !is_space(b)).unwrap_or(s.len());
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut value: i64 = 0;
    let mut saturated = false;
    for &b in s[i..].iter().take_while(|b| b.is_ascii_digit()) {
        match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(i64::from(b - b'0')))
        {
            Some(v) => value = v,
            None => {
                saturated = true;
                break;
            }
        }
    }
    let value = match (saturated, negative) {
        (true, false) => i64::MAX,
        (true, true) => i64::MIN,
        (false, false) => value,
        (false, true) => -value,
    };
    value as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_trimmed_and_long_ones_split() {
        let got: Vec<_> = lines(b"\xEF\xBB\xBFSET UTF-8\r\n  a b \n\n#x\nlast").collect();
        assert_eq!(
            got,
            vec![
                (1, &b"SET UTF-8"[..]),
                (2, b"a b"),
                (3, b""),
                (4, b"#x"),
                (5, b"last")
            ]
        );
        let long = vec![b'a'; MAX_LINE + 10];
        let got: Vec<_> = lines(&long).map(|(_, l)| l.len()).collect();
        assert_eq!(got, vec![MAX_LINE, 10]);
        let got: Vec<_> = lines(b"ab\0cd\nef").map(|(_, l)| l).collect();
        assert_eq!(got, vec![&b"ab"[..], b"ef"]);
    }

    #[test]
    fn trim_keeps_a_lone_bom() {
        assert_eq!(trim(b"\xEF\xBB\xBF"), b"\xEF\xBB\xBF");
        assert_eq!(trim(b"\xEF\xBB\xBF x "), b"x");
    }

    #[test]
    fn split_keeps_empty_pieces() {
        assert_eq!(split_spaces(b" 3"), vec![&b""[..], b"3"]);
        assert!(split_spaces(b"").is_empty());
    }

    #[test]
    fn atoi_like_c() {
        assert_eq!(atoi(b"12 po:noun"), 12);
        assert_eq!(atoi(b"  -7x"), -7);
        assert_eq!(atoi(b"AB"), 0);
        assert_eq!(atoi(b"99999999999999999999"), -1);
    }
}
