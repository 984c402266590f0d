//! Identity keys: what makes "the same element" across two walks, even when every DOM node was
//! replaced. Priority: `data-testid` → `name` attribute → a non-generated `id` → role +
//! accessible name + nearest named ancestor + semantic path. Elements still indistinguishable
//! after that form a *positional family* and get a document-order ordinal.

use rustc_hash::FxHasher;
use std::hash::Hasher;

/// A small hashing helper: tagged fields, each terminated so `("ab","c")` ≠ `("a","bc")`.
#[derive(Default)]
pub(crate) struct H(FxHasher);

impl H {
    pub fn new(tag: u8) -> Self {
        let mut h = H(FxHasher::default());
        h.0.write_u8(tag);
        h
    }
    pub fn s(mut self, s: &str) -> Self {
        self.0.write(s.as_bytes());
        self.0.write_u8(0xff);
        self
    }
    pub fn os(self, s: Option<&str>) -> Self {
        match s {
            Some(s) => self.u(1).s(s),
            None => self.u(0),
        }
    }
    pub fn u(mut self, v: u64) -> Self {
        self.0.write_u64(v);
        self
    }
    pub fn f(&self) -> u64 {
        // FxHash's raw output has weak low bits; a final avalanche keeps keys well spread
        // (they are compared for equality and used as hash-map keys, never shown).
        let mut x = self.0.finish();
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}

/// True for `id`s a framework or build tool generated: keying on them would make every ref die
/// on the next render. Rejects React/Radix style `:r1:`/`«r1»`, trailing digit runs
/// (`ember412`, `item-3`), numeric segments (`select-3-input`), any run of three or more digits, hash-looking segments (`css-1x2y3z`,
/// `btn_a8f3k2`, hex), and very long ids. Errs towards rejection: a rejected human id only
/// costs falling back to role + name, while an accepted generated one costs every ref.
pub fn is_generated_id(id: &str) -> bool {
    let id = id.trim();
    if id.is_empty() || id.len() > 40 {
        return true;
    }
    if id.contains([':', '«', '»', '$']) {
        return true;
    }
    let b = id.as_bytes();
    if b.last().is_some_and(|c| c.is_ascii_digit()) {
        return true;
    }
    let mut run = 0;
    for c in b {
        if c.is_ascii_digit() {
            run += 1;
            if run >= 3 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    for seg in id.split(['-', '_', '.']) {
        // A bare number between separators is an index or a counter (`react-select-3-input`).
        if !seg.is_empty() && seg.bytes().all(|c| c.is_ascii_digit()) {
            return true;
        }
        let digits = seg.bytes().filter(u8::is_ascii_digit).count();
        let letters = seg.bytes().filter(u8::is_ascii_alphabetic).count();
        if seg.len() >= 5 && digits > 0 && letters > 0 {
            return true;
        }
        if seg.len() >= 6 && digits > 0 && seg.bytes().all(|c| c.is_ascii_hexdigit()) {
            return true;
        }
        // Mixed-case gibberish such as `xKq9ZtP`: humans rarely put an uppercase letter after
        // the second character of a segment more than once.
        let inner_upper = seg.bytes().skip(1).filter(u8::is_ascii_uppercase).count();
        if seg.len() >= 6 && inner_upper >= 3 {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_generated_id;

    #[test]
    fn generated_ids_are_rejected() {
        for id in [
            ":r1:",
            ":R2dq:",
            "«r5»",
            "ember412",
            "item-3",
            "react-select-3-input",
            "css-1x2y3z",
            "btn_a8f3k2",
            "mui-83921-label",
            "deadbeef42cafe",
            "radix-:r4:",
            "xKqZtPvW",
            "",
        ] {
            assert!(is_generated_id(id), "{id} should be generated");
        }
        for id in ["search", "main-nav", "login_form", "submit-button", "cart", "q"] {
            assert!(!is_generated_id(id), "{id} should be kept");
        }
    }
}
