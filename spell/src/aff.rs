//! The `.aff` reader, a port of `chrome/tools/convert_dict/aff_reader.cc`.
//!
//! Only some lines are converted to UTF-8 (affix rules from their strip field on, `REP`, `TRY`
//! and `MAP`); every other command is kept in the file's own charset, and `SET` itself is
//! dropped, as the original does. Chromium's hunspell reads the result as UTF-8 regardless.

use std::collections::HashMap;

use crate::SpellError;
use crate::charset::Charset;
use crate::lines::{collapse_spaces, lines, split_spaces, strip_comment, trim};

/// What the `.aff` file contributes to the `.bdic`.
pub(crate) struct Aff {
    /// The `#` lines before the first command (each with its `\n`), usually the licence.
    pub comment: Vec<u8>,
    /// The `SET` value as written; `None` until a `SET` line (the reader then assumes Latin-1).
    set: Option<Vec<u8>>,
    charset: Charset,
    /// Flag strings to their 1-based `AF` index. Never shrinks and never re-keys: see
    /// [`Aff::add_affix_group`] for why indices are not simply positions.
    affix_groups: HashMap<Vec<u8>, i32>,
    /// The file has `AF` lines, so flags in the `.dic` are already indices.
    pub has_indexed_affixes: bool,
    pub affix_rules: Vec<Vec<u8>>,
    pub replacements: Vec<(Vec<u8>, Vec<u8>)>,
    pub other_commands: Vec<Vec<u8>>,
}

impl Aff {
    pub(crate) fn parse(data: &[u8]) -> Result<Aff, SpellError> {
        if data.iter().all(|&b| crate::lines::is_space(b)) {
            return Err(SpellError::EmptyAff);
        }
        let mut aff = Aff {
            comment: Vec::new(),
            set: None,
            charset: Charset::from_label(b"ISO8859-1").expect("Latin-1 is always known"),
            affix_groups: HashMap::new(),
            has_indexed_affixes: false,
            affix_rules: Vec::new(),
            replacements: Vec::new(),
            other_commands: Vec::new(),
        };
        let mut got_command = false;
        let mut got_first_af = false;
        let mut got_first_rep = false;
        for (number, line) in lines(data) {
            if !got_command && line.first() == Some(&b'#') {
                aff.comment.extend_from_slice(line);
                aff.comment.push(b'\n');
                continue;
            }
            let line = strip_comment(line);
            if line.is_empty() {
                continue;
            }
            got_command = true;

            if let Some(value) = line.strip_prefix(b"SET ") {
                let value = trim(value);
                aff.charset = Charset::from_label(value).ok_or_else(|| SpellError::UnknownCharset {
                    charset: String::from_utf8_lossy(value).into_owned(),
                })?;
                aff.set = Some(value.to_vec());
            } else if let Some(group) = line.strip_prefix(b"AF ") {
                aff.has_indexed_affixes = true;
                // The first AF line is the count of those that follow.
                if got_first_af {
                    aff.add_affix_group(group);
                } else {
                    got_first_af = true;
                }
            } else if line.starts_with(b"SFX ") || line.starts_with(b"PFX ") {
                aff.add_affix(line, number)?;
            } else if let Some(rule) = line.strip_prefix(b"REP ") {
                // Likewise the first REP line is a count.
                if got_first_rep {
                    aff.add_replacement(rule, number)?;
                } else {
                    got_first_rep = true;
                }
            } else if line.starts_with(b"TRY ") || line.starts_with(b"MAP ") {
                let utf8 = aff.encode(line, number)?;
                aff.other_commands.push(utf8);
            } else if line.starts_with(b"IGNORE ") {
                // Ignored characters would have to be removed from every word before it
                // goes into the trie; Chromium's tool refuses the file instead.
                return Err(SpellError::Unsupported {
                    line: number,
                    command: "IGNORE",
                });
            } else if line.starts_with(b"COMPLEXPREFIXES ") {
                return Err(SpellError::Unsupported {
                    line: number,
                    command: "COMPLEXPREFIXES",
                });
            } else {
                aff.other_commands.push(line.to_vec());
            }
        }
        Ok(aff)
    }

    /// Whether `.dic` words are already UTF-8 and must be taken as they are, unchecked: only
    /// when `SET` is spelled exactly `UTF-8` (any other spelling of it is validated).
    pub(crate) fn words_are_raw(&self) -> bool {
        self.set.as_deref() == Some(b"UTF-8")
    }

    pub(crate) fn encode(&self, bytes: &[u8], line: usize) -> Result<Vec<u8>, SpellError> {
        self.charset.to_utf8(bytes).ok_or_else(|| SpellError::Encoding {
            file: "aff",
            line,
            charset: self.charset_name(),
        })
    }

    pub(crate) fn charset_to_utf8(&self, bytes: &[u8]) -> Option<Vec<u8>> {
        self.charset.to_utf8(bytes)
    }

    pub(crate) fn charset_name(&self) -> String {
        match &self.set {
            Some(set) => String::from_utf8_lossy(set).into_owned(),
            None => "ISO8859-1".to_owned(),
        }
    }

    /// The `AF` index for a flag string, adding one if it is new.
    pub(crate) fn af_index_for(&mut self, flags: &[u8]) -> i32 {
        match self.affix_groups.get(flags) {
            Some(&index) => index,
            None => self.add_affix_group(flags),
        }
    }

    /// The original stores the trimmed string but looks up the untrimmed one, and numbers a
    /// new group by the map's size whether or not the insertion happened (a duplicate `AF`
    /// line keeps its first index and gives its number to the next line). Both are kept: a
    /// `.dic` with indexed flags depends on the exact numbering.
    fn add_affix_group(&mut self, flags: &[u8]) -> i32 {
        let flags = trim(flags);
        let index = self.affix_groups.len() as i32 + 1;
        self.affix_groups.entry(flags.to_vec()).or_insert(index);
        index
    }

    /// The `AF` table by index; an index no flag string holds (see
    /// [`Aff::add_affix_group`]) is an empty entry.
    pub(crate) fn affix_groups(&self) -> Vec<Vec<u8>> {
        let max = self.affix_groups.values().copied().max().unwrap_or(0).max(0);
        let mut groups = vec![Vec::new(); max as usize];
        for (flags, &index) in &self.affix_groups {
            let mut line = b"AF ".to_vec();
            line.extend_from_slice(flags);
            groups[index as usize - 1] = line;
        }
        groups
    }

    /// An `SFX`/`PFX` line. The header form (`SFX A Y 3`) passes through; in a rule line
    /// (`SFX A 0 s/XY .`) everything from the strip field on is converted to UTF-8 and, unless
    /// the file uses `AF`, continuation flags become an `AF` index as the `.dic` flags do.
    fn add_affix(&mut self, line: &[u8], number: usize) -> Result<(), SpellError> {
        let mut rule = collapse_spaces(trim(line));
        let mut spaces = 0;
        let mut token_start = 0;
        for i in 0..rule.len() {
            if rule[i] != b' ' {
                continue;
            }
            spaces += 1;
            if spaces < 3 {
                token_start = i + 1;
                continue;
            }
            // The third field is the cross-product flag on a header line but the strip
            // string on a rule line; a strip string starting with Y or N counts as a header.
            let token = &rule[token_start..i];
            let part_start = match token.first() {
                Some(b'Y' | b'N') => i,
                _ => i - token.len(),
            };
            let mut part = rule[part_start..].to_vec();

            if part.contains(&b'-') {
                // Old Hungarian morphology (`SFX D 0 d e - M`) becomes a flag (`0 d/M e`).
                let fields = split_spaces(&part);
                if fields.len() >= 5 {
                    part = [fields[0], b" ", fields[1], b"/", fields[4], b" ", fields[2]].concat();
                }
            }

            if let Some(slash) = part.iter().position(|&b| b == b'/')
                && !self.has_indexed_affixes
            {
                let after = part[slash + 1..].to_vec();
                let mut fields = split_spaces(&after);
                if fields.is_empty() {
                    return Err(SpellError::MalformedAffix {
                        line: number,
                        text: String::from_utf8_lossy(&rule).into_owned(),
                    });
                }
                if fields.len() == 1 {
                    fields.push(b".");
                }
                let index = self.af_index_for(fields[0]);
                let mut rewritten = part[..=slash].to_vec();
                rewritten.extend_from_slice(index.to_string().as_bytes());
                rewritten.push(b' ');
                rewritten.extend_from_slice(fields[1]);
                part = rewritten;
            }

            let utf8 = self.encode(&part, number)?;
            rule.truncate(part_start);
            rule.extend_from_slice(&utf8);
            break;
        }
        self.affix_rules.push(rule);
        Ok(())
    }

    /// `REP from to`: the pair in UTF-8, `_` meaning a space in both.
    fn add_replacement(&mut self, rule: &[u8], number: usize) -> Result<(), SpellError> {
        let rule = collapse_spaces(trim(rule));
        let utf8 = self.encode(&rule, number)?;
        let Some(space) = utf8.iter().position(|&b| b == b' ') else {
            return Err(SpellError::MalformedReplacement {
                line: number,
                text: String::from_utf8_lossy(&utf8).into_owned(),
            });
        };
        let unescape = |s: &[u8]| s.iter().map(|&b| if b == b'_' { b' ' } else { b }).collect();
        self.replacements
            .push((unescape(&utf8[..space]), unescape(&utf8[space + 1..])));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Aff {
        Aff::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn affix_rules_get_af_indices_and_utf8() {
        let aff =
            Aff::parse(b"SET ISO8859-1\nSFX A Y 2\nSFX A   0 \xe9s/BC .\nSFX A y ies/D [^aeiou]y\n").unwrap();
        assert_eq!(
            aff.affix_rules,
            vec![
                b"SFX A Y 2".to_vec(),
                "SFX A 0 és/1 .".as_bytes().to_vec(),
                b"SFX A y ies/2 [^aeiou]y".to_vec()
            ]
        );
        assert_eq!(aff.affix_groups(), vec![b"AF BC".to_vec(), b"AF D".to_vec()]);
    }

    #[test]
    fn hungarian_morphology_becomes_a_flag() {
        let aff = parse("AF 1\nAF X\nSFX D 0 d e - M\n");
        assert_eq!(aff.affix_rules, vec![b"SFX D 0 d/M e".to_vec()]);
    }

    #[test]
    fn duplicate_af_lines_shift_later_indices() {
        let aff = parse("AF 3\nAF AB\nAF AB\nAF CD\n");
        assert_eq!(aff.affix_groups(), vec![b"AF AB".to_vec(), b"AF CD".to_vec()]);
    }

    #[test]
    fn comments_commands_and_replacements() {
        let aff = parse("# licence\n#  two\nTRY abc\nREP 2\nREP a_b c\nREP x y z\nKEY qwe # keys\n# late\n");
        assert_eq!(aff.comment, b"# licence\n#  two\n");
        assert_eq!(aff.other_commands, vec![b"TRY abc".to_vec(), b"KEY qwe".to_vec()]);
        assert_eq!(
            aff.replacements,
            vec![(b"a b".to_vec(), b"c".to_vec()), (b"x".to_vec(), b"y z".to_vec())]
        );
    }

    #[test]
    fn bad_lines_are_errors() {
        assert!(matches!(
            Aff::parse(b"SET KOI9\n"),
            Err(SpellError::UnknownCharset { charset }) if charset == "KOI9"
        ));
        assert!(matches!(
            Aff::parse(b"IGNORE abc\n"),
            Err(SpellError::Unsupported {
                line: 1,
                command: "IGNORE"
            })
        ));
        assert!(matches!(
            Aff::parse(b"REP 1\nREP abc\n"),
            Err(SpellError::MalformedReplacement { .. })
        ));
        assert!(matches!(
            Aff::parse(b"SFX A 0 s/\n"),
            Err(SpellError::MalformedAffix { line: 1, .. })
        ));
        assert!(matches!(
            Aff::parse(b"SET UTF-8\nTRY \xff\n"),
            Err(SpellError::Encoding {
                file: "aff",
                line: 2,
                ..
            })
        ));
    }
}
