//! The `.bdic` serializer, a port of `third_party/hunspell/google/bdict_writer.cc`; the format
//! is described in `bdict.h` beside it.
//!
//! The trie is built and written without recursion (a dictionary with two long words sharing
//! a long prefix would otherwise need a stack frame per shared byte), but node for node and
//! byte for byte as the original: including its size estimates, which are off by one for
//! lookup nodes and ignore the 32-affix cap, because they decide each node's encoding.

use std::collections::VecDeque;

use md5::{Digest, Md5};

use crate::SpellError;
use crate::dic::Word;

// `bdict.h` says 28, but its struct (signature, two versions, two offsets, MD5) takes 32.
const HEADER_SIZE: usize = 32;
const AFF_HEADER_SIZE: usize = 16;
const MAJOR_VERSION: u16 = 2;
const MINOR_VERSION: u16 = 0;

const LEAF_NODE_ADDITIONAL_VALUE: u8 = 0x40;
const LEAF_NODE_FOLLOWING_VALUE: u8 = 0x20;
const LEAF_NODE_FIRST_BYTE_AFFIX_MASK: i32 = 0x1F;
const LEAF_NODE_MAX_FIRST_AFFIX_ID: i32 = 0x1FFE;
const FIRST_AFFIX_IS_UNUSED: i32 = 0x1FFF;
const MAX_AFFIXES_PER_WORD: usize = 32;
const LOOKUP_NODE_TYPE_VALUE: u8 = 0xC0;
const LOOKUP_NODE_0TH_VALUE: u8 = 0x01;
const LOOKUP_NODE_32BIT_VALUE: u8 = 0x02;
const LIST_NODE_TYPE_VALUE: u8 = 0xE0;
const LIST_NODE_16BIT_VALUE: u8 = 0x10;
/// A list node's count has 4 bits, and the original keeps 16 itself out.
const LIST_THRESHOLD: usize = 16;

/// Everything that goes into a `.bdic`.
pub(crate) struct Bdict<'a> {
    pub comment: &'a [u8],
    pub affix_groups: &'a [Vec<u8>],
    pub affix_rules: &'a [Vec<u8>],
    pub replacements: &'a [(Vec<u8>, Vec<u8>)],
    pub other_commands: &'a [Vec<u8>],
    pub words: &'a [Word<'a>],
}

impl Bdict<'_> {
    pub(crate) fn serialize(&self) -> Result<Vec<u8>, SpellError> {
        let trie = Trie::build(self.words);
        let mut out = vec![0; HEADER_SIZE];
        let aff_offset = out.len();
        self.serialize_aff(&mut out);
        let dic_offset = out.len();
        out.reserve(trie.sizes[0] as usize);
        trie.serialize(self.words, &mut out);
        if u32::try_from(out.len()).is_err() {
            return Err(SpellError::TooLarge { bytes: out.len() });
        }
        crate::verify::verify(&out, dic_offset, self.words)?;

        let digest = Md5::digest(&out[aff_offset..]);
        let mut header = Vec::with_capacity(HEADER_SIZE);
        header.extend_from_slice(b"BDic");
        header.extend_from_slice(&MAJOR_VERSION.to_le_bytes());
        header.extend_from_slice(&MINOR_VERSION.to_le_bytes());
        header.extend_from_slice(&(aff_offset as u32).to_le_bytes());
        header.extend_from_slice(&(dic_offset as u32).to_le_bytes());
        header.extend_from_slice(&digest);
        out[..HEADER_SIZE].copy_from_slice(&header);
        Ok(out)
    }

    fn serialize_aff(&self, out: &mut Vec<u8>) {
        let header_offset = out.len();
        out.resize(out.len() + AFF_HEADER_SIZE, 0);

        out.push(b'\n');
        out.extend_from_slice(self.comment);
        out.push(b'\n');

        // Hunspell expects the AF count line before the groups.
        let affix_group_offset = out.len();
        out.extend_from_slice(format!("AF {}", self.affix_groups.len()).as_bytes());
        out.push(0);
        string_list(self.affix_groups, out);

        let affix_rule_offset = out.len();
        string_list(self.affix_rules, out);

        let rep_offset = out.len();
        for (from, to) in self.replacements {
            out.extend_from_slice(from);
            out.push(0);
            out.extend_from_slice(to);
            out.push(0);
        }
        out.push(0);

        let other_offset = out.len();
        string_list(self.other_commands, out);

        for (i, offset) in [affix_group_offset, affix_rule_offset, rep_offset, other_offset]
            .into_iter()
            .enumerate()
        {
            let at = header_offset + i * 4;
            out[at..at + 4].copy_from_slice(&(offset as u32).to_le_bytes());
        }
    }
}

/// NUL-terminated strings ending in an empty one; an empty string would end the list early,
/// so it is written as a space.
fn string_list(strings: &[Vec<u8>], out: &mut Vec<u8>) {
    for s in strings {
        if s.is_empty() {
            out.push(b' ');
        } else {
            out.extend_from_slice(s);
        }
        out.push(0);
    }
    out.push(0);
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Storage {
    Leaf,
    LeafMore,
    List8,
    List16,
    Lookup16,
    Lookup32,
}

#[derive(Clone, Copy)]
enum NodeKind {
    /// A word; `tail` is where the rest of it that this leaf stores begins.
    Leaf { word: u32, tail: u32 },
    /// Children are `first..first + count` in the arena: all of a node's children are created
    /// together.
    Inner { first: u32, count: u32 },
}

#[derive(Clone, Copy)]
struct Node {
    /// The byte this node adds to its parent's prefix; 0 for the root and for the node that
    /// ends a word which other words continue.
    addition: u8,
    kind: NodeKind,
}

struct Trie {
    /// Parents before children, so a reverse scan sees every child before its parent.
    nodes: Vec<Node>,
    storage: Vec<Storage>,
    /// The original's size estimate of each subtree.
    sizes: Vec<u64>,
}

/// Where the offset of a node being written goes, and relative to what.
#[derive(Clone, Copy)]
enum Patch {
    None,
    List8 { at: usize, base: usize },
    List16 { at: usize, base: usize },
    Lookup16 { at: usize, node_start: usize },
    Lookup32 { at: usize },
}

impl Trie {
    fn build(words: &[Word<'_>]) -> Trie {
        let mut nodes = Vec::with_capacity(words.len() * 2);
        // (node, first word, end of its words, depth of its children)
        let mut pending = VecDeque::new();
        if words.len() == 1 {
            nodes.push(Node {
                addition: 0,
                kind: NodeKind::Leaf { word: 0, tail: 0 },
            });
        } else {
            nodes.push(Node {
                addition: 0,
                kind: NodeKind::Inner { first: 0, count: 0 },
            });
            pending.push_back((0, 0, words.len(), 1));
        }
        while let Some((parent, begin, end, depth)) = pending.pop_front() {
            let first = nodes.len();
            let mut i = begin;
            while i < end {
                let word: &[u8] = &words[i].0;
                if word.len() < depth {
                    // The word ends at the parent's prefix.
                    let tail = word.len() as u32;
                    nodes.push(Node {
                        addition: 0,
                        kind: NodeKind::Leaf { word: i as u32, tail },
                    });
                    i += 1;
                    continue;
                }
                let addition = word[depth - 1];
                let matching = 1 + words[i + 1..end]
                    .iter()
                    .take_while(|(w, _)| w.get(depth - 1) == Some(&addition))
                    .count();
                if matching == 1 {
                    let kind = NodeKind::Leaf {
                        word: i as u32,
                        tail: depth as u32,
                    };
                    nodes.push(Node { addition, kind });
                } else {
                    let index = nodes.len();
                    nodes.push(Node {
                        addition,
                        kind: NodeKind::Inner { first: 0, count: 0 },
                    });
                    pending.push_back((index, i, i + matching, depth + 1));
                }
                i += matching;
            }
            nodes[parent].kind = NodeKind::Inner {
                first: first as u32,
                count: (nodes.len() - first) as u32,
            };
        }

        let mut trie = Trie {
            storage: vec![Storage::Leaf; nodes.len()],
            sizes: vec![0; nodes.len()],
            nodes,
        };
        for index in (0..trie.nodes.len()).rev() {
            trie.compute_storage(index, words);
        }
        trie
    }

    fn children(&self, first: u32, count: u32) -> &[Node] {
        &self.nodes[first as usize..(first + count) as usize]
    }

    fn compute_storage(&mut self, index: usize, words: &[Word<'_>]) {
        let (storage, size) = match self.nodes[index].kind {
            NodeKind::Leaf { word, tail } => {
                let (text, affixes) = &words[word as usize];
                let n = affixes.len() as u64;
                let supplementary = if affixes[0] > LEAF_NODE_MAX_FIRST_AFFIX_ID {
                    n * 2 + 2
                } else if n > 1 {
                    n * 2
                } else {
                    0
                };
                let rest = (text.len() - tail as usize) as u64;
                if rest == 0 {
                    (Storage::Leaf, 2 + supplementary)
                } else {
                    (Storage::LeafMore, 3 + rest + supplementary)
                }
            }
            NodeKind::Inner { first, count } => {
                let child_size: u64 = self.sizes[first as usize..(first + count) as usize].iter().sum();
                let n = count as usize;
                if n < LIST_THRESHOLD && child_size <= 0xFF {
                    (Storage::List8, 1 + n as u64 * 2 + child_size)
                } else if n < LIST_THRESHOLD && child_size <= 0xFFFF {
                    (Storage::List16, 1 + n as u64 * 3 + child_size)
                } else {
                    let table = LookupTable::of(self.children(first, count));
                    // The original counts a 2-byte header but writes 3.
                    let zeroth = if table.has_0th { 2 } else { 0 };
                    let entries = table.size as u64;
                    if child_size + 2 + zeroth + entries * 2 < 0xFFFF {
                        (Storage::Lookup16, 2 + zeroth + entries * 2 + child_size)
                    } else {
                        (Storage::Lookup32, 2 + zeroth * 2 + entries * 4 + child_size)
                    }
                }
            }
        };
        self.storage[index] = storage;
        self.sizes[index] = size;
    }

    fn serialize(&self, words: &[Word<'_>], out: &mut Vec<u8>) {
        let mut stack = vec![(0usize, Patch::None)];
        while let Some((index, patch)) = stack.pop() {
            let position = out.len();
            match patch {
                Patch::None => {}
                Patch::List8 { at, base } => out[at] = (position - base) as u8,
                Patch::List16 { at, base } => {
                    out[at..at + 2].copy_from_slice(&((position - base) as u16).to_le_bytes())
                }
                Patch::Lookup16 { at, node_start } => {
                    out[at..at + 2].copy_from_slice(&((position - node_start) as u16).to_le_bytes())
                }
                Patch::Lookup32 { at } => out[at..at + 4].copy_from_slice(&(position as u32).to_le_bytes()),
            }

            let node = self.nodes[index];
            match node.kind {
                NodeKind::Leaf { word, tail } => {
                    let (text, affixes) = &words[word as usize];
                    serialize_leaf(&text[tail as usize..], affixes, self.storage[index], out);
                }
                NodeKind::Inner { first, count } => {
                    let children = self.children(first, count);
                    let patches = match self.storage[index] {
                        Storage::List8 | Storage::List16 => self.serialize_list(index, children, out),
                        _ => self.serialize_lookup(index, children, out),
                    };
                    // Reversed so that the first child, and all below it, is written first.
                    for (i, patch) in patches.into_iter().enumerate().rev() {
                        stack.push((first as usize + i, patch));
                    }
                }
            }
        }
    }

    /// Writes a list node's header and table; returns where each child's offset goes.
    fn serialize_list(&self, index: usize, children: &[Node], out: &mut Vec<u8>) -> Vec<Patch> {
        let is_8bit = self.storage[index] == Storage::List8;
        let width = if is_8bit { 1 } else { 2 };
        out.push(
            LIST_NODE_TYPE_VALUE | if is_8bit { 0 } else { LIST_NODE_16BIT_VALUE } | children.len() as u8,
        );
        let table = out.len();
        for child in children {
            out.push(child.addition);
            out.resize(out.len() + width, 0);
        }
        let base = out.len();
        (0..children.len())
            .map(|i| {
                let at = table + i * (1 + width) + 1;
                if is_8bit {
                    Patch::List8 { at, base }
                } else {
                    Patch::List16 { at, base }
                }
            })
            .collect()
    }

    /// Writes a lookup node's header and empty table; returns where each child's offset goes.
    fn serialize_lookup(&self, index: usize, children: &[Node], out: &mut Vec<u8>) -> Vec<Patch> {
        let table = LookupTable::of(children);
        let is_32bit = self.storage[index] == Storage::Lookup32;
        let node_start = out.len();
        let mut id = LOOKUP_NODE_TYPE_VALUE;
        if is_32bit {
            id |= LOOKUP_NODE_32BIT_VALUE;
        }
        if table.has_0th {
            id |= LOOKUP_NODE_0TH_VALUE;
        }
        out.extend_from_slice(&[id, table.first as u8, table.size as u8]);
        let width = if is_32bit { 4 } else { 2 };
        let zeroth_at = out.len();
        if table.has_0th {
            out.resize(out.len() + width, 0);
        }
        let table_begin = out.len();
        out.resize(out.len() + table.size as usize * width, 0);

        children
            .iter()
            .enumerate()
            .map(|(i, child)| {
                let at = if i == 0 && table.has_0th {
                    zeroth_at
                } else {
                    table_begin + (i32::from(child.addition) - table.first) as usize * width
                };
                if is_32bit {
                    Patch::Lookup32 { at }
                } else {
                    Patch::Lookup16 { at, node_start }
                }
            })
            .collect()
    }
}

/// A lookup node's table: entries for `first..first + size`, plus a separate "0th" entry
/// for the child that ends a word, which would otherwise stretch the table down to 0.
struct LookupTable {
    has_0th: bool,
    first: i32,
    size: i32,
}

impl LookupTable {
    fn of(children: &[Node]) -> LookupTable {
        let has_0th = children.first().is_some_and(|c| c.addition == 0);
        let rest = &children[usize::from(has_0th)..];
        match (rest.first(), rest.last()) {
            (Some(first), Some(last)) => LookupTable {
                has_0th,
                first: i32::from(first.addition),
                size: i32::from(last.addition) - i32::from(first.addition) + 1,
            },
            _ => LookupTable {
                has_0th,
                first: 0,
                size: 0,
            },
        }
    }
}

fn serialize_leaf(tail: &[u8], affixes: &[i32], storage: Storage, out: &mut Vec<u8>) {
    let mut first_affix = affixes[0];
    // The 13 bits in the node hold the first index unless it is too large; then every index
    // goes in the 16-bit list that follows.
    let mut first_in_list = 1;
    if first_affix > LEAF_NODE_MAX_FIRST_AFFIX_ID {
        first_in_list = 0;
        first_affix = FIRST_AFFIX_IS_UNUSED;
    }
    let mut id = ((first_affix >> 8) & LEAF_NODE_FIRST_BYTE_AFFIX_MASK) as u8;
    if storage == Storage::LeafMore {
        id |= LEAF_NODE_ADDITIONAL_VALUE;
    }
    if affixes.len() > 1 || first_in_list == 0 {
        id |= LEAF_NODE_FOLLOWING_VALUE;
    }
    out.push(id);
    out.push((first_affix & 0xFF) as u8);
    if storage == Storage::LeafMore {
        out.extend_from_slice(tail);
        out.push(0);
    }
    if affixes.len() > first_in_list {
        for &affix in &affixes[first_in_list..affixes.len().min(MAX_AFFIXES_PER_WORD)] {
            out.extend_from_slice(&(affix as u16).to_le_bytes());
        }
        out.extend_from_slice(&[0xFF, 0xFF]);
    }
}
