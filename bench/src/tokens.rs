//! Token counts in `o200k_base`, the encoding the comparison is stated in.
//!
//! The encoding ships inside `tiktoken-rs` (compiled in), so counting needs no network.

/// Number of `o200k_base` tokens in `text`, counting any special-token lookalikes a page may
/// contain as ordinary text (a model's tokenizer sees page bytes, not control tokens).
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_known_strings_offline() {
        assert_eq!(count(""), 0);
        // Reference values from OpenAI's tiktoken for o200k_base.
        assert_eq!(count("hello world"), 2);
        assert!(count("<|endoftext|>") > 1, "special tokens are counted as text");
    }

    #[test]
    fn longer_text_costs_more() {
        let short = count("- button \"Save\" [ref=e4]");
        let long = count(&"- button \"Save\" [ref=e4]\n".repeat(10));
        assert!(long >= 9 * short, "{short} vs {long}");
    }
}
