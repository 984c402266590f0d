//! Conversion of a dictionary's `SET` charset to UTF-8, matching what `convert_dict` gets from
//! ICU (`base::CodepageToUTF16` with conversion errors failing).
//!
//! ICU, not the WHATWG Encoding Standard that `encoding_rs` implements, decides which bytes
//! are valid: ISO-8859-1, -9 and -11 keep C1 controls at 0x80–0x9F where WHATWG substitutes
//! their Windows supersets, and a few Windows and KOI8 tables differ by a byte. Each table
//! below was compared byte by byte with ICU 72's converter of that name. Charsets ICU lacks
//! (ISO8859-16 and `microsoft-cp1251` in Debian's ICU) are refused like ones nobody knows.

use encoding_rs::Encoding;

/// A decoder for one charset.
pub(crate) enum Charset {
    Utf8,
    /// Bytes below 0x80 are ASCII in every single-byte charset accepted here; the table maps
    /// the upper half, `None` where ICU has no mapping.
    SingleByte(Box<[Option<char>; 128]>),
}

/// How a single-byte charset differs from the `encoding_rs` one it is built from.
struct Table {
    base: &'static Encoding,
    /// 0x80–0x9F are the C1 controls U+0080–U+009F.
    c1_controls: bool,
    overrides: &'static [(u8, Option<char>)],
}

impl Table {
    const fn plain(base: &'static Encoding) -> Self {
        Table {
            base,
            c1_controls: false,
            overrides: &[],
        }
    }
}

impl Charset {
    /// The charset a `SET` line names, or `None` when ICU (and so Chromium) could not use it.
    pub(crate) fn from_label(label: &[u8]) -> Option<Charset> {
        let name = normalize(label);
        if name == "utf8" {
            return Some(Charset::Utf8);
        }
        let table = match name.as_str() {
            "iso88591" | "latin1" => Table {
                base: encoding_rs::WINDOWS_1252,
                c1_controls: true,
                overrides: &[],
            },
            "iso88592" => Table::plain(encoding_rs::ISO_8859_2),
            "iso88593" => Table::plain(encoding_rs::ISO_8859_3),
            "iso88594" => Table::plain(encoding_rs::ISO_8859_4),
            "iso88595" => Table::plain(encoding_rs::ISO_8859_5),
            "iso88596" => Table::plain(encoding_rs::ISO_8859_6),
            "iso88597" => Table::plain(encoding_rs::ISO_8859_7),
            "iso88598" => Table::plain(encoding_rs::ISO_8859_8),
            "iso88599" => Table {
                base: encoding_rs::WINDOWS_1254,
                c1_controls: true,
                overrides: &[],
            },
            "iso885910" => Table::plain(encoding_rs::ISO_8859_10),
            "iso885911" => Table {
                base: encoding_rs::WINDOWS_874,
                c1_controls: true,
                overrides: &[],
            },
            "iso885913" => Table::plain(encoding_rs::ISO_8859_13),
            "iso885914" => Table::plain(encoding_rs::ISO_8859_14),
            "iso885915" => Table::plain(encoding_rs::ISO_8859_15),
            "koi8r" => Table::plain(encoding_rs::KOI8_R),
            // WHATWG's KOI8-U is really KOI8-RU; ICU's has box drawings at these two.
            "koi8u" => Table {
                base: encoding_rs::KOI8_U,
                c1_controls: false,
                overrides: &[(0xAE, Some('\u{255D}')), (0xBE, Some('\u{256C}'))],
            },
            "cp1250" | "windows1250" => Table::plain(encoding_rs::WINDOWS_1250),
            "cp1251" | "windows1251" => Table::plain(encoding_rs::WINDOWS_1251),
            "cp1252" | "windows1252" => Table::plain(encoding_rs::WINDOWS_1252),
            "cp1253" | "windows1253" => Table {
                base: encoding_rs::WINDOWS_1253,
                c1_controls: false,
                overrides: &[(0xAA, Some('\u{AA}'))],
            },
            "cp1254" | "windows1254" => Table::plain(encoding_rs::WINDOWS_1254),
            "cp1255" | "windows1255" => Table {
                base: encoding_rs::WINDOWS_1255,
                c1_controls: false,
                overrides: &[(0xCA, None)],
            },
            "cp1256" | "windows1256" => Table::plain(encoding_rs::WINDOWS_1256),
            "cp1257" | "windows1257" => Table::plain(encoding_rs::WINDOWS_1257),
            "cp1258" | "windows1258" => Table::plain(encoding_rs::WINDOWS_1258),
            _ => return None,
        };
        let mut upper = Box::new([None; 128]);
        for (i, slot) in upper.iter_mut().enumerate() {
            let byte = 0x80 + i as u8;
            *slot = if table.c1_controls && byte <= 0x9F {
                Some(char::from(byte))
            } else {
                table
                    .base
                    .decode_without_bom_handling_and_without_replacement(&[byte])
                    .and_then(|s| s.chars().next())
            };
        }
        for &(byte, mapped) in table.overrides {
            upper[usize::from(byte - 0x80)] = mapped;
        }
        Some(Charset::SingleByte(upper))
    }

    /// `bytes` in UTF-8, or `None` when a byte sequence has no mapping (ICU fails the whole
    /// conversion then, and so does `convert_dict`).
    pub(crate) fn to_utf8(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        match self {
            Charset::Utf8 => std::str::from_utf8(bytes).ok().map(|_| bytes.to_vec()),
            Charset::SingleByte(upper) => {
                let mut out = Vec::with_capacity(bytes.len() * 2);
                let mut buf = [0; 4];
                for &b in bytes {
                    if b < 0x80 {
                        out.push(b);
                    } else {
                        let c = upper[usize::from(b - 0x80)]?;
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                }
                Some(out)
            }
        }
    }
}

/// ICU's alias matching (`ucnv_io_stripASCIIForCompare`): ASCII letters lowercased, digits
/// kept except a zero that starts a number and has another digit after it, all else dropped.
fn normalize(label: &[u8]) -> String {
    let mut out = String::with_capacity(label.len());
    let mut after_digit = false;
    for (i, &b) in label.iter().enumerate() {
        match b {
            b'0' => {
                let next_is_digit = label.get(i + 1).is_some_and(u8::is_ascii_digit);
                if !after_digit && next_is_digit {
                    continue;
                }
            }
            b'1'..=b'9' => after_digit = true,
            b if b.is_ascii_alphabetic() => after_digit = false,
            _ => {
                after_digit = false;
                continue;
            }
        }
        out.push(char::from(b.to_ascii_lowercase()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_like_icu() {
        assert_eq!(normalize(b"ISO8859-1"), "iso88591");
        assert_eq!(normalize(b"iso_8859-01"), "iso88591");
        assert_eq!(normalize(b"ISO8859-10"), "iso885910");
        assert_eq!(normalize(b"UTF-8"), "utf8");
        assert!(Charset::from_label(b"microsoft-cp1251").is_none());
        assert!(Charset::from_label(b"ISO8859-16").is_none());
        assert!(Charset::from_label(b"x-bogus").is_none());
    }

    #[test]
    fn latin1_keeps_c1_controls() {
        let latin1 = Charset::from_label(b"ISO8859-1").unwrap();
        assert_eq!(latin1.to_utf8(b"a\x80\xe9").unwrap(), "a\u{80}é".as_bytes());
    }

    #[test]
    fn unmapped_bytes_fail() {
        let greek = Charset::from_label(b"ISO8859-7").unwrap();
        assert!(greek.to_utf8(b"\xae").is_none());
        assert!(Charset::Utf8.to_utf8(b"\xff").is_none());
        let koi8u = Charset::from_label(b"KOI8-U").unwrap();
        assert_eq!(koi8u.to_utf8(b"\xae").unwrap(), "\u{255D}".as_bytes());
    }
}
