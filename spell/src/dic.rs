//! The `.dic` reader, a port of `chrome/tools/convert_dict/dic_reader.cc`.

use std::borrow::Cow;

use crate::SpellError;
use crate::aff::Aff;
use crate::lines::{atoi, lines, strip_comment};

/// A word in UTF-8 and its `AF` indices, largest first (0 means "no flags").
pub(crate) type Word<'a> = (Cow<'a, [u8]>, Vec<i32>);

/// The words of a `.dic`, merged by text and sorted by their UTF-8 bytes.
pub(crate) fn read<'a>(data: &'a [u8], aff: &mut Aff) -> Result<Vec<Word<'a>>, SpellError> {
    let mut entries: Vec<(Cow<'a, [u8]>, i32)> = Vec::new();
    let mut seen_count = false;
    for (number, line) in lines(data) {
        let line = strip_comment(line);
        if line.is_empty() {
            continue;
        }
        if !seen_count {
            // The tool skips the first line unread; a file without the count would lose its
            // first word, and hunspell itself refuses one.
            if !line[0].is_ascii_digit() {
                return Err(SpellError::MissingWordCount {
                    line: number,
                    text: String::from_utf8_lossy(line).into_owned(),
                });
            }
            seen_count = true;
            continue;
        }

        let (word, flags) = split_line(line);
        let word: Cow<'a, [u8]> = if aff.words_are_raw() {
            word
        } else {
            Cow::Owned(aff.charset_to_utf8(&word).ok_or_else(|| SpellError::Encoding {
                file: "dic",
                line: number,
                charset: aff.charset_name(),
            })?)
        };
        // Morphological fields after a tab are dropped (ones after a space are not).
        let word = match word.iter().position(|&b| b == b'\t') {
            Some(tab) => match word {
                Cow::Borrowed(w) => Cow::Borrowed(&w[..tab]),
                Cow::Owned(mut w) => {
                    w.truncate(tab);
                    Cow::Owned(w)
                }
            },
            None => word,
        };
        let index = match flags {
            None => 0,
            Some(flags) => {
                let flags = flags
                    .iter()
                    .position(|&b| b == b'\t')
                    .map_or(flags, |tab| &flags[..tab]);
                if aff.has_indexed_affixes {
                    atoi(flags)
                } else {
                    aff.af_index_for(flags)
                }
            }
        };
        entries.push((word, index));
    }
    if !seen_count {
        return Err(SpellError::EmptyDic);
    }
    if entries.is_empty() {
        return Err(SpellError::NoWords);
    }

    // Sorting by index too makes each word's indices ascending and its duplicates adjacent.
    entries.sort_unstable();
    let mut words: Vec<Word<'a>> = Vec::with_capacity(entries.len());
    for (word, index) in entries {
        match words.last_mut() {
            Some((last, indices)) if *last == word => {
                if indices.last() != Some(&index) {
                    indices.push(index);
                }
            }
            _ => words.push((word, vec![index])),
        }
    }
    for (_, indices) in &mut words {
        indices.reverse();
    }
    Ok(words)
}

/// Splits `word/flags` at the first `/` that is neither the line's first byte nor escaped by
/// a backslash; `\/` in the word becomes `/`. A trailing `/` gives no flags at all.
fn split_line(line: &[u8]) -> (Cow<'_, [u8]>, Option<&[u8]>) {
    let slash = (1..line.len()).find(|&i| line[i] == b'/' && line[i - 1] != b'\\');
    let (word, flags) = match slash {
        Some(i) => (&line[..i], (i + 1 < line.len()).then(|| &line[i + 1..])),
        None => (line, None),
    };
    let word = if word.windows(2).any(|w| w == b"\\/") {
        let mut out = Vec::with_capacity(word.len());
        let mut i = 0;
        while i < word.len() {
            if word[i..].starts_with(b"\\/") {
                out.push(b'/');
                i += 2;
            } else {
                out.push(word[i]);
                i += 1;
            }
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(word)
    };
    (word, flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_like_the_original() {
        assert_eq!(
            split_line(b"a\\/b/XY"),
            (Cow::Owned(b"a/b".to_vec()), Some(&b"XY"[..]))
        );
        assert_eq!(split_line(b"/usr"), (Cow::Borrowed(&b"/usr"[..]), None));
        assert_eq!(split_line(b"word/"), (Cow::Borrowed(&b"word"[..]), None));
    }

    #[test]
    fn words_merge_and_sort() {
        let mut aff = Aff::parse(b"SET UTF-8\n").unwrap();
        let words = read(b"4\nb/X\na\nb/Y\nb/X\n\xc3\xa9\n", &mut aff).unwrap();
        let got: Vec<_> = words.iter().map(|(w, i)| (w.to_vec(), i.clone())).collect();
        assert_eq!(
            got,
            vec![
                (b"a".to_vec(), vec![0]),
                (b"b".to_vec(), vec![2, 1]),
                ("é".as_bytes().to_vec(), vec![0])
            ]
        );
    }

    #[test]
    fn count_line_is_required() {
        let mut aff = Aff::parse(b"SET UTF-8\n").unwrap();
        assert!(matches!(
            read(b"hello\nworld\n", &mut aff),
            Err(SpellError::MissingWordCount { line: 1, .. })
        ));
        assert!(matches!(read(b"\n\n", &mut aff), Err(SpellError::EmptyDic)));
        assert!(matches!(read(b"0\n", &mut aff), Err(SpellError::NoWords)));
    }
}
