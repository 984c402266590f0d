//! Where the per-user directories are, by the XDG Base Directory rules.
//!
//! `$XDG_DATA_HOME`, `$XDG_CONFIG_HOME` and `$XDG_CACHE_HOME` when set to an absolute path;
//! otherwise `$HOME/.local/share`, `$HOME/.config` and `$HOME/.cache`. The spec says a relative
//! value is invalid and must be ignored, and an empty one counts as unset. `None` when neither
//! gives a directory (no usable `HOME`): callers report that instead of writing relative to
//! whatever the working directory happens to be.
//!
//! Aperture keeps its files in an `aperture` directory under each base: [`data_dir`] (profiles),
//! [`config_dir`] (settings, `mcp.json`), [`cache_dir`] (the CEF runtime, block lists, bench
//! tools). One `XDG_CACHE_HOME` therefore moves all re-creatable data at once.

use std::ffi::OsString;
use std::path::PathBuf;

/// The name of Aperture's directory under each XDG base.
pub const APP_DIR: &str = "aperture";

/// `$XDG_DATA_HOME`, else `$HOME/.local/share`.
pub fn data_home() -> Option<PathBuf> {
    from_env("XDG_DATA_HOME", ".local/share")
}

/// `$XDG_CONFIG_HOME`, else `$HOME/.config`.
pub fn config_home() -> Option<PathBuf> {
    from_env("XDG_CONFIG_HOME", ".config")
}

/// `$XDG_CACHE_HOME`, else `$HOME/.cache`.
pub fn cache_home() -> Option<PathBuf> {
    from_env("XDG_CACHE_HOME", ".cache")
}

/// [`data_home`]`/aperture`.
pub fn data_dir() -> Option<PathBuf> {
    data_home().map(|b| b.join(APP_DIR))
}

/// [`config_home`]`/aperture`.
pub fn config_dir() -> Option<PathBuf> {
    config_home().map(|b| b.join(APP_DIR))
}

/// [`cache_home`]`/aperture`.
pub fn cache_dir() -> Option<PathBuf> {
    cache_home().map(|b| b.join(APP_DIR))
}

/// The user's download directory: `$XDG_DOWNLOAD_DIR` if absolute, else the
/// `XDG_DOWNLOAD_DIR` line of `$XDG_CONFIG_HOME/user-dirs.dirs` (what desktop file managers
/// read), else `$HOME/Downloads`.
pub fn download_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    if let Some(p) = std::env::var_os("XDG_DOWNLOAD_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        return Some(p);
    }
    let dirs = config_home().and_then(|c| std::fs::read_to_string(c.join("user-dirs.dirs")).ok());
    if let (Some(text), Some(h)) = (dirs, home.as_ref())
        && let Some(p) = parse_user_dirs(&text, "XDG_DOWNLOAD_DIR", h)
    {
        return Some(p);
    }
    home.map(|h| h.join("Downloads"))
}

/// One entry of a `user-dirs.dirs` file (`KEY="$HOME/path"` or `KEY="/abs/path"`).
pub fn parse_user_dirs(text: &str, key: &str, home: &std::path::Path) -> Option<PathBuf> {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.starts_with('#') && l.starts_with(key) && l[key.len()..].starts_with('='))?;
    let v = line[key.len() + 1..].trim().trim_matches('"');
    let p = match v.strip_prefix("$HOME") {
        Some(rest) => home.join(rest.trim_start_matches('/')),
        None => PathBuf::from(v),
    };
    // "$HOME/" alone means the desktop has no such directory: use the fallback.
    (p.is_absolute() && p != home).then_some(p)
}

fn from_env(var: &str, fallback: &str) -> Option<PathBuf> {
    resolve(std::env::var_os(var), std::env::var_os("HOME"), fallback)
}

/// The rule itself, without the environment: `xdg` if absolute, else `home/fallback` if `home`
/// is non-empty. Public so callers can test their own paths without touching process env.
pub fn resolve(xdg: Option<OsString>, home: Option<OsString>, fallback: &str) -> Option<PathBuf> {
    xdg.map(PathBuf::from).filter(|p| p.is_absolute()).or_else(|| {
        home.filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(fallback))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_dirs_lines_are_read() {
        let h = std::path::Path::new("/home/a");
        let text =
            "# comment\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n";
        assert_eq!(
            parse_user_dirs(text, "XDG_DOWNLOAD_DIR", h),
            Some(PathBuf::from("/home/a/Téléchargements"))
        );
        assert_eq!(
            parse_user_dirs("XDG_DOWNLOAD_DIR=\"/data/dl\"", "XDG_DOWNLOAD_DIR", h),
            Some(PathBuf::from("/data/dl"))
        );
        assert_eq!(
            parse_user_dirs("XDG_DOWNLOAD_DIR=\"$HOME/\"", "XDG_DOWNLOAD_DIR", h),
            None
        );
        assert_eq!(
            parse_user_dirs("XDG_DOWNLOAD_DIRX=\"/x\"", "XDG_DOWNLOAD_DIR", h),
            None
        );
    }

    fn r(xdg: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
        resolve(xdg.map(OsString::from), home.map(OsString::from), ".config")
    }

    #[test]
    fn absolute_xdg_wins() {
        assert_eq!(r(Some("/x/cfg"), Some("/home/a")), Some(PathBuf::from("/x/cfg")));
        assert_eq!(r(Some("/x/cfg"), None), Some(PathBuf::from("/x/cfg")));
    }

    #[test]
    fn relative_or_empty_xdg_is_ignored() {
        // Relative XDG_* is invalid per the spec and ignored.
        assert_eq!(
            r(Some("rel"), Some("/home/a")),
            Some(PathBuf::from("/home/a/.config"))
        );
        assert_eq!(
            r(Some(""), Some("/home/a")),
            Some(PathBuf::from("/home/a/.config"))
        );
    }

    #[test]
    fn no_home_gives_none_not_a_relative_path() {
        assert_eq!(r(None, None), None);
        assert_eq!(r(None, Some("")), None);
        assert_eq!(r(Some("rel"), None), None);
    }

    /// Re-run by [`bases_read_their_own_variable`] with a chosen environment (setting the
    /// variables in this process would race the other tests); a no-op otherwise.
    #[test]
    fn print_bases_child() {
        if std::env::var_os("APERTURE_XDG_TEST_CHILD").is_none() {
            return;
        }
        for (name, p) in [
            ("data", data_dir()),
            ("config", config_dir()),
            ("cache", cache_dir()),
        ] {
            // Own line, behind a marker: the harness prints its "test ... " prefix on stdout too.
            println!(
                "\nXDG {name}={}",
                p.map(|p| p.display().to_string()).unwrap_or_default()
            );
        }
    }

    #[test]
    fn bases_read_their_own_variable() {
        let run = |envs: &[(&str, &str)]| {
            let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
            cmd.args([
                "--exact",
                "xdg::tests::print_bases_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("APERTURE_XDG_TEST_CHILD", "1")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME");
            cmd.envs(envs.iter().copied());
            let out = cmd.output().unwrap();
            let text = String::from_utf8(out.stdout).unwrap();
            let mut lines: Vec<String> = text
                .lines()
                .filter_map(|l| l.strip_prefix("XDG "))
                .map(str::to_owned)
                .collect();
            lines.sort();
            lines
        };
        assert_eq!(
            run(&[("HOME", "/h")]),
            [
                "cache=/h/.cache/aperture",
                "config=/h/.config/aperture",
                "data=/h/.local/share/aperture"
            ]
        );
        assert_eq!(
            run(&[
                ("HOME", "/h"),
                ("XDG_DATA_HOME", "/d"),
                ("XDG_CONFIG_HOME", "/c"),
                ("XDG_CACHE_HOME", "/k")
            ]),
            ["cache=/k/aperture", "config=/c/aperture", "data=/d/aperture"]
        );
        assert_eq!(run(&[("HOME", "")]), ["cache=", "config=", "data="]);
    }
}
