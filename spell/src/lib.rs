//! Spelling dictionaries for Chromium's spellchecker.
//!
//! Chromium on Linux reads dictionaries only as `.bdic` files, which its `convert_dict` tool
//! compiles from a hunspell `.aff` and `.dic`, and which it would otherwise download from
//! Google. [`convert`] is a port of that tool: its output is byte for byte the tool's
//! (checked against Qt WebEngine's build of it), quirks included, since Chromium checks the
//! file's MD5 and its hunspell relies on the tool's exact rewriting of the `.aff`.
//! [`bdic_file_name`] gives the versioned name Chromium looks for.
//!
//! Not ported: `.dic_delta` files (Chromium's own additions to its dictionaries), and files
//! the tool itself refuses (`IGNORE`, see [`SpellError::Unsupported`]).

#![forbid(unsafe_code)]

mod aff;
mod charset;
mod dic;
mod languages;
mod lines;
mod verify;
mod writer;

pub use languages::{bdic_file_name, hunspell_name};

/// Why a dictionary could not be converted. Line numbers count from 1.
#[derive(Debug, thiserror::Error)]
pub enum SpellError {
    #[error("the .aff file is empty")]
    EmptyAff,
    #[error("the .dic file is empty")]
    EmptyDic,
    #[error("the .dic file lists no words")]
    NoWords,
    #[error("the .dic file does not start with its word count (line {line} is {text:?})")]
    MissingWordCount { line: usize, text: String },
    #[error("the .aff file's charset {charset:?} is not one Chromium's converter knows")]
    UnknownCharset { charset: String },
    #[error("line {line} of the .{file} file is not valid {charset}")]
    Encoding {
        file: &'static str,
        line: usize,
        charset: String,
    },
    #[error("line {line} of the .aff file uses {command}, which Chromium's spellchecker does not support")]
    Unsupported { line: usize, command: &'static str },
    #[error("line {line} of the .aff file is an affix rule with nothing after its '/': {text:?}")]
    MalformedAffix { line: usize, text: String },
    #[error("line {line} of the .aff file is a REP rule without a replacement: {text:?}")]
    MalformedReplacement { line: usize, text: String },
    #[error("the dictionary would take {bytes} bytes, past the 4 GiB a .bdic can address")]
    TooLarge { bytes: usize },
    /// The serialized dictionary does not read back as its input, which is when Chromium's
    /// tool refuses to write it. Known causes: a dictionary of one word (Chromium cannot
    /// iterate a trie whose root is a leaf), a word with more than 32 distinct flag sets, an
    /// `AF` index above 65,534 (a `.dic` with that many distinct flag combinations) or below
    /// 0, and a trie too large for the format's 8- and 16-bit offsets.
    #[error("Chromium would not read the dictionary back correctly at the word {word:?}: {problem}")]
    Unreadable { word: String, problem: &'static str },
}

/// Compiles a hunspell dictionary (.aff and .dic bytes, in the charset the .aff's SET names)
/// into the .bdic bytes Chromium reads.
pub fn convert(aff: &[u8], dic: &[u8]) -> Result<Vec<u8>, SpellError> {
    let mut aff = aff::Aff::parse(aff)?;
    // The .dic can add AF groups (flag strings become indices), so it is read first.
    let words = dic::read(dic, &mut aff)?;
    let affix_groups = aff.affix_groups();
    writer::Bdict {
        comment: &aff.comment,
        affix_groups: &affix_groups,
        affix_rules: &aff.affix_rules,
        replacements: &aff.replacements,
        other_commands: &aff.other_commands,
        words: &words,
    }
    .serialize()
}
