//! `convert` against output of Chromium's own converter (Qt WebEngine's build of it,
//! `qwebengine_convert_dict`), and the language tables.

use std::path::Path;

use aperture_spell::{SpellError, bdic_file_name, convert, hunspell_name};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(FIXTURES).join(name)).unwrap()
}

/// `tiny.bdic` was written once by `qwebengine_convert_dict tiny.dic tiny.bdic`. The
/// dictionary is ISO-8859-1 with prefixes, suffixes (one with a continuation flag), flag
/// sets shared by several words, a word listed twice with different flags, an escaped
/// slash, a tab-separated morphological field, REP/MAP/TRY/KEY lines and non-ASCII words;
/// its trie has a 16-bit lookup root, 8- and 16-bit lists, end-of-word entries and both
/// kinds of leaf.
#[test]
fn tiny_dictionary_matches_chromiums_converter() {
    let got = convert(&fixture("tiny.aff"), &fixture("tiny.dic")).unwrap();
    let want = fixture("tiny.bdic");
    if got != want {
        let first = got
            .iter()
            .zip(&want)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        panic!(
            "got {} bytes, want {}; first difference at byte {first}",
            got.len(),
            want.len()
        );
    }
}

/// Debian 12's hunspell-en-us 1:2020.12.07-2.
const EN_US_AFF_SHA256: &str = "70fe5778717d097ce2f3326baaa5c1e4d2206d81a5a81d3ea8e11c4770806dd5";
const EN_US_DIC_SHA256: &str = "829a043cf078d1e80e886289a13823454977f442a239a859d2133ea61944aa60";
/// `qwebengine_convert_dict` (Qt WebEngine 6.4.2) on those two files: 707,744 bytes.
const EN_US_BDIC_SHA256: &str = "e67e0f041201a1d5118c50c52d3234eb44b205706952e244e708b5f5fb7d9658";

#[test]
fn system_en_us_matches_chromiums_converter() {
    let dir = Path::new("/usr/share/hunspell");
    let (Ok(aff), Ok(dic)) = (
        std::fs::read(dir.join("en_US.aff")),
        std::fs::read(dir.join("en_US.dic")),
    ) else {
        eprintln!("skipped: /usr/share/hunspell/en_US.{{aff,dic}} are not installed (hunspell-en-us)");
        return;
    };
    if sha256::hex(&aff) != EN_US_AFF_SHA256 || sha256::hex(&dic) != EN_US_DIC_SHA256 {
        eprintln!(
            "skipped: /usr/share/hunspell/en_US is not hunspell-en-us 1:2020.12.07-2, whose .bdic is known"
        );
        return;
    }
    let bdic = convert(&aff, &dic).unwrap();
    assert_eq!(sha256::hex(&bdic), EN_US_BDIC_SHA256);
}

const AFF: &[u8] = b"SET UTF-8\nSFX S Y 1\nSFX S 0 s .\n";

#[test]
fn a_dic_without_its_count_line_is_refused() {
    let err = convert(AFF, b"hello/S\nworld\n").unwrap_err();
    assert!(
        matches!(&err, SpellError::MissingWordCount { line: 1, text } if text == "hello/S"),
        "{err:?}"
    );
    assert!(err.to_string().contains("word count"), "{err}");
}

#[test]
fn an_unknown_charset_is_refused() {
    let err = convert(b"SET KLINGON-1\nTRY abc\n", b"1\nqapla\n").unwrap_err();
    assert!(
        matches!(&err, SpellError::UnknownCharset { charset } if charset == "KLINGON-1"),
        "{err:?}"
    );
    assert!(err.to_string().contains("KLINGON-1"), "{err}");
    // ICU, and so Chromium's tool, has no converter by this name either.
    assert!(matches!(
        convert(b"SET microsoft-cp1251\n", b"1\nx\n"),
        Err(SpellError::UnknownCharset { .. })
    ));
}

#[test]
fn empty_inputs_are_refused() {
    assert!(matches!(convert(b"", b"1\nword\n"), Err(SpellError::EmptyAff)));
    assert!(matches!(
        convert(b" \n\n", b"1\nword\n"),
        Err(SpellError::EmptyAff)
    ));
    assert!(matches!(convert(AFF, b""), Err(SpellError::EmptyDic)));
    assert!(matches!(
        convert(AFF, b"\n# nothing\n"),
        Err(SpellError::EmptyDic)
    ));
    assert!(matches!(convert(AFF, b"0\n"), Err(SpellError::NoWords)));
    assert!(matches!(convert(b"", b""), Err(SpellError::EmptyAff)));
}

#[test]
fn text_that_is_not_in_the_charset_is_refused() {
    let err = convert(b"SET ISO8859-7\n", b"2\nok\nbad\xae\n").unwrap_err();
    assert!(
        matches!(&err, SpellError::Encoding { file: "dic", line: 3, charset } if charset == "ISO8859-7"),
        "{err:?}"
    );
    // `UTF-8` spelled exactly so takes .dic words unchecked, as the tool does.
    assert!(convert(b"SET UTF-8\n", b"2\nok\nbad\xff\n").is_ok());
    assert!(matches!(
        convert(b"SET utf-8\n", b"2\nok\nbad\xff\n"),
        Err(SpellError::Encoding { .. })
    ));
}

#[test]
fn what_chromium_cannot_read_back_is_refused() {
    // A root that is a leaf: Chromium's word iterator finds nothing, and the tool refuses.
    assert!(matches!(
        convert(AFF, b"1\nhello\n"),
        Err(SpellError::Unreadable { .. })
    ));
    // More than 32 flag sets on one word are cut to 32.
    let mut dic = b"40\n".to_vec();
    for i in 0..40u8 {
        dic.extend_from_slice(&[b'w', b'/', b'A' + i / 26, b'A' + i % 26, b'\n']);
    }
    dic.extend_from_slice(b"other\n");
    let err = convert(AFF, &dic).unwrap_err();
    assert!(
        matches!(&err, SpellError::Unreadable { word, .. } if word == "w"),
        "{err:?}"
    );
}

#[test]
fn ignore_is_refused_like_chromiums_tool_does() {
    let err = convert(b"SET UTF-8\nIGNORE x\n", b"2\na\nb\n").unwrap_err();
    assert!(
        matches!(
            err,
            SpellError::Unsupported {
                line: 2,
                command: "IGNORE"
            }
        ),
        "{err:?}"
    );
}

#[test]
fn bdic_file_names_follow_chromium() {
    assert_eq!(bdic_file_name("en-US").as_deref(), Some("en-US-10-1.bdic"));
    assert_eq!(bdic_file_name("en-GB").as_deref(), Some("en-GB-10-1.bdic"));
    assert_eq!(bdic_file_name("de-DE").as_deref(), Some("de-DE-3-0.bdic"));
    assert_eq!(bdic_file_name("fr-FR").as_deref(), Some("fr-FR-3-0.bdic"));
    assert_eq!(bdic_file_name("pt-BR").as_deref(), Some("pt-BR-3-0.bdic"));
    assert_eq!(bdic_file_name("uk").as_deref(), Some("uk-UA-5-0.bdic"));
    assert_eq!(bdic_file_name("es-MX").as_deref(), Some("es-ES-3-0.bdic"));
    assert_eq!(bdic_file_name("af-ZA").as_deref(), Some("af-ZA-3-0.bdic"));
    assert_eq!(bdic_file_name("fi"), None);
    assert_eq!(bdic_file_name("xx-YY"), None);
    assert_eq!(bdic_file_name(""), None);
}

#[test]
fn hunspell_names() {
    assert_eq!(hunspell_name("en-US"), "en_US");
    assert_eq!(hunspell_name("de"), "de_DE");
    assert_eq!(hunspell_name("pt-BR"), "pt_BR");
    assert_eq!(hunspell_name("ko"), "ko");
    assert_eq!(hunspell_name("en-GB-oxendict"), "en_GB-oxendict");
}

/// SHA-256, so that the test needs no dependency beyond the crate's own.
mod sha256 {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ];

    pub fn hex(data: &[u8]) -> String {
        let mut h: [u32; 8] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        ];
        let mut message = data.to_vec();
        message.push(0x80);
        while message.len() % 64 != 56 {
            message.push(0);
        }
        message.extend_from_slice(&(data.len() as u64 * 8).to_be_bytes());
        for block in message.chunks_exact(64) {
            let mut w = [0u32; 64];
            for (i, word) in block.chunks_exact(4).enumerate() {
                w[i] = u32::from_be_bytes(word.try_into().unwrap());
            }
            for i in 16..64 {
                let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
                let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
            }
            let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
            for i in 0..64 {
                let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
                let ch = (e & f) ^ (!e & g);
                let t1 = hh
                    .wrapping_add(s1)
                    .wrapping_add(ch)
                    .wrapping_add(K[i])
                    .wrapping_add(w[i]);
                let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
                let maj = (a & b) ^ (a & c) ^ (b & c);
                let t2 = s0.wrapping_add(maj);
                (hh, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
            }
            for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
                *x = x.wrapping_add(y);
            }
        }
        h.iter().map(|x| format!("{x:08x}")).collect()
    }

    #[test]
    fn known_digests() {
        assert_eq!(
            hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
