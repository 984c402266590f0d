//! Provisions the pinned EasyList + EasyPrivacy into the cache and compiles the engine cache.
//!
//! `cargo run -p aperture-privacy --example provision_lists [-- --apt-update]`
//! Exit status 0 means the app (and the corpus tests) will find verified lists.

#![forbid(unsafe_code)]

use aperture_privacy::lists::{ListSet, PINNED_PACKAGE, ProvisionOptions};
use aperture_privacy::{Blocker, blocking};

fn main() {
    let apt_update = std::env::args().any(|a| a == "--apt-update");
    let opts = ProvisionOptions {
        allow_apt_update: apt_update,
        ..Default::default()
    };
    let lists = match ListSet::provision_pinned(&opts) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "source: Debian {} {} ({})",
        PINNED_PACKAGE.name, PINNED_PACKAGE.version, PINNED_PACKAGE.suite
    );
    for l in lists.lists() {
        println!("{}: {} sha256 {}", l.name, l.path.display(), l.sha256);
    }
    let Some(cache) = blocking::default_engine_cache_dir() else {
        eprintln!("error: no cache dir (set XDG_CACHE_HOME or HOME)");
        std::process::exit(1);
    };
    match Blocker::load_or_build(&lists, &cache) {
        Ok((_, outcome)) => println!("engine: {outcome:?}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
