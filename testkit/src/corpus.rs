//! Where the in-repo page corpus lives.

use std::path::{Path, PathBuf};

/// The workspace root (the directory holding the top `Cargo.toml`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testkit sits one level below the workspace root")
        .to_path_buf()
}

/// `testdata/corpus`: a few pages of the saved real-world corpus (mozilla/readability's test
/// set, Apache-2.0), checked in so that tests never depend on `../shared` beside the checkout.
/// Only `cargo xtask bench` uses the full 130 pages. See `testdata/corpus/README.md` for which
/// test relies on which page.
pub fn corpus_dir() -> PathBuf {
    let d = repo_root().join("testdata").join("corpus");
    // Part of the repository: missing means a broken checkout, never "skip".
    assert!(
        d.join("LICENSE.md").is_file(),
        "the test corpus is missing at {} (it is checked in with the repository)",
        d.display()
    );
    d
}

/// One page of [`corpus_dir`], which must exist.
pub fn corpus_page(name: &str) -> PathBuf {
    let p = corpus_dir().join(name);
    assert!(p.is_file(), "{name} is not in the test corpus at {}", p.display());
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_is_in_the_repository_with_its_licence() {
        let d = corpus_dir();
        assert!(d.starts_with(repo_root()));
        let licence = std::fs::read_to_string(d.join("LICENSE.md")).unwrap();
        assert!(licence.contains("Apache License"), "{licence:.200}");
        let pages = std::fs::read_dir(&d)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "html"))
            })
            .count();
        assert!(pages >= 8, "only {pages} pages in {}", d.display());
    }

    #[test]
    #[should_panic(expected = "is not in the test corpus")]
    fn a_missing_page_is_named() {
        corpus_page("no-such-page.html");
    }
}
