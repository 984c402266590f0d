//! The tool's last step: read every word back out of the serialized trie the way Chromium's
//! `WordIterator` (`bdict_reader.cc`) does and compare it with the input. The tool writes no
//! file when this fails, and neither does [`crate::convert`]: the format silently truncates
//! what it cannot hold (see [`crate::SpellError::Unreadable`]), and Chromium would misread it.
//!
//! One difference: the tool reads words into a 128-byte buffer, so it also refuses any
//! dictionary with a word of 128 bytes or more, a limit of its check rather than of the
//! format (Chromium looks words up without such a buffer). Here words are compared whole.

use crate::SpellError;
use crate::dic::Word;

const MAX_AFFIXES_PER_WORD: usize = 32;
const FIRST_AFFIX_IS_UNUSED: i32 = 0x1FFF;

enum Child {
    Node {
        offset: usize,
        addition: u8,
    },
    /// An empty slot of a lookup table.
    Nothing,
    Done,
}

struct Reader<'a> {
    data: &'a [u8],
}

impl Reader<'_> {
    fn byte(&self, at: usize) -> Option<u8> {
        self.data.get(at).copied()
    }

    fn u16_at(&self, at: usize) -> Option<usize> {
        Some(usize::from(u16::from_le_bytes(
            self.data.get(at..at + 2)?.try_into().ok()?,
        )))
    }

    fn u32_at(&self, at: usize) -> Option<usize> {
        Some(u32::from_le_bytes(self.data.get(at..at + 4)?.try_into().ok()?) as usize)
    }

    fn is_leaf(&self, node: usize) -> bool {
        self.byte(node).is_some_and(|id| id & 0x80 == 0)
    }

    /// `NodeReader::GetChildAt`; `None` where the C++ marks the node invalid.
    fn child(&self, node: usize, mut index: usize) -> Option<Child> {
        let id = self.byte(node)?;
        if id & 0xFC == 0xC0 {
            let is_32bit = id & 0x02 != 0;
            let width = if is_32bit { 4 } else { 2 };
            let read = |at| {
                if is_32bit {
                    self.u32_at(at)
                } else {
                    self.u16_at(at)
                }
            };
            let relative = |offset| if is_32bit { offset } else { offset + node };
            let mut table = node + 3;
            if id & 0x01 != 0 {
                if index == 0 {
                    let offset = relative(read(table)?);
                    return (offset < self.data.len()).then_some(Child::Node { offset, addition: 0 });
                }
                index -= 1;
                table += width;
            }
            let first = self.byte(node + 1)?;
            let count = self.byte(node + 2)?;
            if index >= usize::from(count) {
                return Some(Child::Done);
            }
            let entry = read(table + index * width)?;
            if entry == 0 {
                return Some(Child::Nothing);
            }
            let offset = relative(entry);
            let addition = (index as u8).wrapping_add(first);
            (offset < self.data.len()).then_some(Child::Node { offset, addition })
        } else if id & 0xE0 == 0xE0 {
            let count = usize::from(id & 0x0F);
            if index >= count {
                return Some(Child::Done);
            }
            let width = if id & 0xF0 == 0xF0 { 3 } else { 2 };
            let item = node + 1 + index * width;
            let addition = self.byte(item)?;
            let relative = if width == 3 {
                self.u16_at(item + 1)?
            } else {
                usize::from(self.byte(item + 1)?)
            };
            let offset = node + 1 + count * width + relative;
            (offset < self.data.len()).then_some(Child::Node { offset, addition })
        } else {
            Some(Child::Done)
        }
    }

    /// A leaf's stored rest of the word and its affix indices (`FoundLeaf` and
    /// `FillAffixesForLeafMatch`).
    fn leaf(&self, node: usize) -> Option<(&[u8], Vec<i32>)> {
        let id = self.byte(node)?;
        let (tail, tail_bytes) = if id & 0xC0 == 0x40 {
            let rest = self.data.get(node + 2..)?;
            let len = rest.iter().position(|&b| b == 0)?;
            (&rest[..len], len + 1)
        } else {
            (&[][..], 0)
        };
        let first = (i32::from(id & 0x1F) << 8) + i32::from(self.byte(node + 1)?);
        if id & 0xA0 != 0x20 && first != FIRST_AFFIX_IS_UNUSED {
            return Some((tail, vec![first]));
        }
        let mut affixes = if first == FIRST_AFFIX_IS_UNUSED {
            Vec::new()
        } else {
            vec![first]
        };
        let mut at = node + 2 + tail_bytes;
        while affixes.len() < MAX_AFFIXES_PER_WORD {
            let affix = self.u16_at(at)?;
            if affix == 0xFFFF {
                break;
            }
            affixes.push(affix as i32);
            at += 2;
        }
        Some((tail, affixes))
    }
}

pub(crate) fn verify(bdic: &[u8], dic_offset: usize, words: &[Word<'_>]) -> Result<(), SpellError> {
    let reader = Reader { data: bdic };
    // (node, the byte it adds, the index of its child visited last)
    let mut stack: Vec<(usize, u8, Option<usize>)> = vec![(dic_offset, 0, None)];
    let mut prefix: Vec<u8> = Vec::new();
    let mut expected = words.iter();
    let mut next = expected.next();
    while let Some((text, affixes)) = next {
        let unreadable = |problem: &'static str| SpellError::Unreadable {
            word: String::from_utf8_lossy(text).into_owned(),
            problem,
        };
        let Some(top) = stack.last_mut() else {
            return Err(unreadable("the trie ends before it"));
        };
        let index = top.2.map_or(0, |i| i + 1);
        top.2 = Some(index);
        let node = top.0;
        match reader
            .child(node, index)
            .ok_or_else(|| unreadable("an offset leads outside the file"))?
        {
            Child::Node { offset, addition } if reader.is_leaf(offset) => {
                let (tail, found_affixes) = reader
                    .leaf(offset)
                    .ok_or_else(|| unreadable("a leaf runs past the end of the file"))?;
                let mut found = prefix.clone();
                found.push(addition);
                found.extend_from_slice(tail);
                // The tool reads the word as a C string: a 0 addition (a word ending where
                // longer words go on) ends it.
                if let Some(nul) = found.iter().position(|&b| b == 0) {
                    found.truncate(nul);
                }
                if found != **text {
                    return Err(unreadable("a different word is read back in its place"));
                }
                if found_affixes != *affixes {
                    return Err(unreadable(
                        "its affix indices do not survive (too many, or too large)",
                    ));
                }
                next = expected.next();
            }
            Child::Node { offset, addition } => {
                prefix.push(addition);
                stack.push((offset, addition, None));
            }
            Child::Nothing => {}
            Child::Done => {
                stack.pop();
                prefix.pop();
            }
        }
    }
    Ok(())
}
