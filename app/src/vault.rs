//! The vault, wired into the browser: the human's CLI (`aperture vault …`), unlocking at
//! start-up, the one shared [`Vault`] the window (`crate::vault_window`) and the fills both
//! use, the fill path behind `vault_request_fill`, and the taint sets that keep a filled
//! value from coming back out through a page read: per tab (following the tab to other sites)
//! and per container and site (every tab of the site the value was filled on, in that
//! container, for the life of the browser: the site can store the value and show it anywhere).
//!
//! Who holds what is the security design (see the `aperture-vault` crate docs): the MCP layer
//! gets no vault type at all, only the [`aperture_mcp::backend::Backend`] methods. The vault
//! itself (key, entries, grants) lives in a process of its own, this binary re-executed with
//! [`VAULT_PROCESS_ARG`] and reached over a socketpair only this process holds
//! ([`aperture_vault::remote`]); [`VaultWiring`] holds the client and asks it for one
//! capability at a time: the ids and labels for a site, a grant, and then the values of just
//! the fields about to be typed, for the frame that has focus. The origin a fill is for is
//! always read from the tab by the browser, never taken from the agent.
//!
//! What decrypted data the browser process does hold, stated: the values of a fill while
//! they are typed (they must go through trusted input; wiped after, though CEF's key-event
//! structs are not), and no more after that (the taint sets below keep salted digests, not
//! values); a password the human reveals or copies in the vault window, while shown or on the
//! clipboard; the profile facts while the vault window's profiles dialog is open; the
//! passphrase the human types, until it is sent. A library file is decrypted by the vault
//! process straight into the upload directory.
//!
//! Consent: a fill needs the human's yes, given where the agent cannot reach. With a window,
//! a fill on an origin not yet approved raises the consent sheet (`crate::consent`) and waits
//! for the human's answer. Headless there is nobody to ask: the human gives it up front with
//! `--vault-allow-fill ORIGIN` (exact scheme, host and port), which also pre-approves in a
//! window, and a fill on any other origin is refused.
//!
//! Known limits, stated rather than buried:
//! * Screenshots are not redacted: a filled username is visible in `browser_capture` pixels
//!   (password inputs render as dots).
//! * The typed characters pass through CEF key-event structs that are not zeroized.
//! * Redaction is exact substring matching (see `aperture_vault::taint`); a page that
//!   transforms the value defeats it. The boundaries are origin binding and the absent getter.
//! * The site scope of redaction is keyed on the site of a tab's main frame: a frame of the
//!   filled site embedded in another site's page, in a tab the vault never filled, is not
//!   covered by it.
//! * Focus is checked after focusing and before each value is typed, but a page could move
//!   focus between that check and the key events arriving. Only a page of the granted site
//!   runs there, and it can read its own fields anyway.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::browser::Handle;

use anyhow::{Context, Result, bail};
use aperture_engine::record::Walk;
use aperture_mcp::backend::{
    BackendError, BackendResult, FillField, GeneratedPassword, ProfileControl, ProfileInfo, ProfileOutcome,
    ProfileRow, TabId, VaultAttachment, VaultEntries, VaultEntry, VaultTarget,
};
use aperture_vault::remote::{LoginPart, LoginStatus, RemoteError, RemoteVault};
use aperture_vault::{
    EntryId, FillTarget, KdfParams, NewEntry, Origin, SecretString, SiteTaint, TaintSet, Totp, Vault,
    VaultError,
};
use clap::{Parser, Subcommand};
use zeroize::Zeroizing;

/// File name of the vault inside a profile directory.
pub const VAULT_FILE: &str = "vault.aperture";

/// A page's sign-in fields in `w`: the focused (else first) visible password input and the
/// nearest text-like input before it in the same frame, or on a username-only step the
/// focused (else the first) username-like input.
fn login_fields(w: &Walk) -> Option<Vec<VaultTarget>> {
    use aperture_engine::record::NodeRecord;
    let usable = |n: &&NodeRecord| n.visible && n.editable && !n.state.disabled && !n.state.readonly;
    let ty = |n: &NodeRecord| n.input_type.as_deref().unwrap_or("text").to_ascii_lowercase();
    let target = |n: &NodeRecord, field| VaultTarget {
        field,
        walk_id: w.walk_id,
        idx: n.idx,
    };
    let textlike = |n: &NodeRecord| n.tag == "input" && matches!(ty(n).as_str(), "text" | "email" | "tel");
    let passwords: Vec<&NodeRecord> = w
        .nodes
        .iter()
        .filter(usable)
        .filter(|n| ty(n) == "password")
        .collect();
    if let Some(pw) = passwords.iter().find(|n| n.state.focused).or(passwords.first()) {
        let user = w
            .nodes
            .iter()
            .rfind(|n| usable(n) && textlike(n) && n.frame == pw.frame && n.idx < pw.idx);
        let mut out: Vec<VaultTarget> = user.map(|u| target(u, FillField::Username)).into_iter().collect();
        out.push(target(pw, FillField::Password));
        return Some(out);
    }
    let usernames: Vec<&NodeRecord> = w
        .nodes
        .iter()
        .filter(usable)
        .filter(|n| textlike(n))
        .filter(|n| {
            n.autocomplete
                .as_deref()
                .is_some_and(|a| a.contains("username") || a.contains("email"))
                || ty(n) == "email"
                || n.state.focused
        })
        .collect();
    let u = usernames.iter().find(|n| n.state.focused).or(usernames.first())?;
    Some(vec![target(u, FillField::Username)])
}

/// The vault file of a profile.
pub fn vault_path(profile: &Path) -> PathBuf {
    profile.join(VAULT_FILE)
}

/// The hidden first argument that makes this binary the vault process of the browser that
/// started it (`aperture __vault-process --vault FILE`, the channel as stdin).
pub const VAULT_PROCESS_ARG: &str = "__vault-process";

/// The vault process's main (`args` after [`VAULT_PROCESS_ARG`]). Serves until the browser
/// closes the channel or dies; returns the exit code.
pub fn vault_process_main(args: &[String]) -> i32 {
    let path = match args {
        [flag, path] if flag == "--vault" => PathBuf::from(path),
        _ => {
            eprintln!("aperture: {VAULT_PROCESS_ARG} is started by the browser, not by hand");
            return 2;
        }
    };
    // Before the first byte from the browser: see `confine` for what is cut off and why.
    if let Err(e) = crate::confine::vault_process() {
        eprintln!("aperture: vault process: refusing to hold secrets unconfined: {e:#}");
        return 1;
    }
    match aperture_vault::remote::serve_stdin(&path) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("aperture: vault process: {e}");
            1
        }
    }
}

/// How the browser starts its vault process: this very binary, so the two always agree on
/// the protocol.
fn vault_process_launcher(path: &Path) -> Result<aperture_vault::remote::Launcher> {
    let exe = std::env::current_exe().context("finding this program to start the vault process")?;
    let path = path.to_owned();
    Ok(Box::new(move || {
        let mut c = std::process::Command::new(&exe);
        c.arg(VAULT_PROCESS_ARG).arg("--vault").arg(&path);
        c
    }))
}

/// Where library files are decrypted for an upload the agent asked for (Chromium uploads from
/// a path); emptied when the browser starts.
fn uploads_dir(profile: &Path) -> PathBuf {
    profile.join("uploads")
}

// ---------------------------------------------------------------------------------------------
// Human CLI: `aperture vault init | add | list`. Runs before (and without) CEF.

/// `aperture vault`: manage the password vault of a profile. For the human; the agent has no
/// way to run these.
#[derive(Parser, Debug)]
#[command(name = "aperture vault")]
struct VaultCli {
    /// Profile directory holding vault.aperture (default: the browser's default profile).
    #[arg(long, value_name = "DIR", global = true)]
    profile: Option<PathBuf>,
    /// Read the vault passphrase from FILE (its first line) instead of asking on the terminal.
    #[arg(long, value_name = "FILE", global = true)]
    passphrase_file: Option<PathBuf>,
    #[command(subcommand)]
    cmd: VaultCmd,
}

#[derive(Subcommand, Debug)]
enum VaultCmd {
    /// Create an empty vault (refuses to replace an existing one).
    Init {
        /// TESTS ONLY: derive the key with trivially cheap Argon2id parameters instead of the
        /// calibrated ~0.5 s ones, so a stolen vault file falls to guessing in no time.
        #[arg(long, hide = true)]
        insecure_fast_kdf: bool,
    },
    /// Add a login. The password (and, with --totp, the TOTP seed) is asked for with echo off
    /// when stdin is a terminal, else read from stdin: the first line is the password, the
    /// second the seed. Never from the command line, where it would land in shell history and
    /// the process list.
    Add {
        /// A URL of the site the login is for; it is bound to that site.
        #[arg(long)]
        origin: String,
        /// Your label for it ("Work").
        #[arg(long)]
        label: String,
        /// Username or email.
        #[arg(long, default_value = "")]
        username: String,
        /// Also store a TOTP seed (an `otpauth://` URI or a base32 secret), read like the
        /// password: at a hidden prompt, or as the second line of stdin. The flag takes no
        /// value; a seed written after it is refused.
        // Declared as an optional value only so that `--totp SEED` (the old form) reaches us
        // and gets a clear refusal, instead of clap's "unexpected argument".
        #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "NO VALUE")]
        totp: Option<String>,
    },
    /// List entries (labels, sites, usernames; never passwords).
    List,
    /// Create or replace the autofill profile NAME (your name, email, phone, address… for
    /// forms). Its facts are read from stdin as `field=value` lines (`givenName=Ada`,
    /// `email=ada@example.org`, `countryCode=GB`), never from the command line; an unknown
    /// field name is refused with the list of known ones.
    Profile {
        /// The profile's name ("Personal", "Work").
        name: String,
    },
    /// List the autofill profiles (names and how many facts; never the values).
    Profiles,
    /// Keep FILE (a CV, a cover letter) in the vault's library, encrypted; the agent can then
    /// upload it to a file input by its id, never by a path. Prints the id.
    Attach {
        /// The file to copy in.
        file: PathBuf,
        /// Your label for it ("CV 2026").
        #[arg(long)]
        label: String,
        /// Its MIME type (default: from the file name's extension).
        #[arg(long = "type", value_name = "MIME")]
        media_type: Option<String>,
    },
    /// List the library's files (id, label, file name, type, size).
    Attachments,
    /// Accept the vault file as it is now, after it was refused as an older copy (or its
    /// generation record as damaged). Entries saved after that copy are gone for good; the
    /// copy becomes the current vault, and any other copy is refused from then on.
    AcceptRollback,
}

/// Says why `--totp SEED` is refused, without repeating the seed.
const TOTP_ON_ARGV: &str = "--totp takes no value: a TOTP seed on the command line lands in shell \
     history and in the process list (the one just given should be treated as exposed). Pass \
     --totp alone: the seed is then asked for at a hidden prompt, or read from stdin as the line \
     after the password";

/// Runs `aperture vault ARGS…` (`args` excludes the program name and `vault`). Returns the
/// exit code.
pub fn cli_main(args: &[String], default_profile: Option<PathBuf>) -> i32 {
    let cli = match VaultCli::try_parse_from(
        std::iter::once("aperture vault".to_string()).chain(args.iter().cloned()),
    ) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match run_cli(cli, default_profile) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("aperture vault: {e:#}");
            1
        }
    }
}

fn run_cli(cli: VaultCli, default_profile: Option<PathBuf>) -> Result<()> {
    let profile = cli
        .profile
        .or(default_profile)
        .context("no profile directory: set HOME or XDG_DATA_HOME, or pass --profile DIR")?;
    let path = vault_path(&profile);
    match cli.cmd {
        VaultCmd::Init { insecure_fast_kdf } => {
            let pass = match &cli.passphrase_file {
                Some(f) => read_passphrase_file(f)?,
                None => {
                    let a = prompt_hidden("New vault passphrase: ")?;
                    let b = prompt_hidden("Repeat it: ")?;
                    if *a != *b {
                        bail!("the passphrases differ");
                    }
                    a
                }
            };
            aperture_common::fs::create_private_dir_all(&profile)
                .with_context(|| format!("creating {}", profile.display()))?;
            let params = if insecure_fast_kdf {
                eprintln!(
                    "aperture vault: WARNING: --insecure-fast-kdf is for tests; this vault is easy to crack"
                );
                KdfParams::insecure_fast_for_tests()
            } else {
                KdfParams::calibrate()
            };
            Vault::create_with_params(&path, &pass, params)?;
            eprintln!("aperture vault: created {}", path.display());
        }
        VaultCmd::Add {
            origin,
            label,
            username,
            totp,
        } => {
            // Before anything else (no passphrase prompt first), and without echoing the value.
            if totp.as_deref().is_some_and(|t| !t.is_empty()) {
                bail!("{TOTP_ON_ARGV}");
            }
            let want_totp = totp.is_some();
            let origin = Origin::parse(&origin)?;
            let v = open_for_cli(&path, &profile, cli.passphrase_file.as_deref())?;
            let (password, seed) = read_new_secrets(want_totp)?;
            let totp = seed
                .map(|t| {
                    if t.starts_with("otpauth://") {
                        Totp::from_uri(&t)
                    } else {
                        Totp::from_base32(&t)
                    }
                })
                .transpose()
                .map_err(VaultError::from)?;
            let id = v.add_entry(NewEntry {
                origin: &origin,
                label: &label,
                username: &username,
                password: SecretString::new(password.as_str()),
                totp,
            })?;
            println!("{id}");
        }
        VaultCmd::AcceptRollback => {
            if !path.exists() {
                bail!("no vault at {}", path.display());
            }
            match Vault::open(&path) {
                Ok(_) => {
                    eprintln!(
                        "aperture vault: nothing to accept: {} is the newest copy of the vault seen here",
                        path.display()
                    );
                    return Ok(());
                }
                Err(VaultError::RolledBack { .. } | VaultError::GenerationRecord(_)) => {}
                Err(e) => return Err(e.into()),
            }
            let pass = match &cli.passphrase_file {
                Some(f) => read_passphrase_file(f)?,
                None => prompt_hidden("Vault passphrase: ")?,
            };
            let (found, last_seen) = Vault::accept_rollback(&path, &pass)?;
            match last_seen {
                Some(l) if found < l => eprintln!(
                    "aperture vault: accepted the older copy {} (saved at generation {found}; \
                     generation {l} had been opened here). It is now the current vault; \
                     entries saved after it are not in it.",
                    path.display()
                ),
                _ => eprintln!(
                    "aperture vault: accepted {} and wrote a new generation record",
                    path.display()
                ),
            }
        }
        VaultCmd::Profile { name } => {
            let v = open_for_cli(&path, &profile, cli.passphrase_file.as_deref())?;
            let text = read_stdin_all()?;
            let mut p = aperture_vault::Profile::new(name.trim());
            if name.trim().is_empty() {
                bail!("a profile needs a name");
            }
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let Some((field, value)) = line.split_once('=') else {
                    bail!("line {}: expected field=value", n + 1);
                };
                let field: aperture_vault::ProfileField =
                    serde_json::from_value(serde_json::Value::String(field.trim().to_owned()))
                        .map_err(|e| anyhow::anyhow!("line {}: {e}", n + 1))?;
                p.set(field, value);
            }
            let count = p.stored_count();
            v.put_profile(p)?;
            eprintln!(
                "aperture vault: saved profile {:?} with {count} facts",
                name.trim()
            );
        }
        VaultCmd::Attach {
            file,
            label,
            media_type,
        } => {
            let v = open_for_cli(&path, &profile, cli.passphrase_file.as_deref())?;
            let media_type = media_type.unwrap_or_else(|| media_type_of(&file).to_owned());
            let id = v
                .add_attachment(&file, &label, &media_type)
                .with_context(|| format!("adding {}", file.display()))?;
            println!("{id}");
        }
        VaultCmd::Attachments => {
            let v = open_for_cli(&path, &profile, cli.passphrase_file.as_deref())?;
            for a in v.agent_view().attachments().map_err(|e| anyhow::anyhow!("{e}"))? {
                println!(
                    "{}\t{}\t{}\t{}\t{}",
                    a.id, a.label, a.file_name, a.media_type, a.size
                );
            }
        }
        VaultCmd::Profiles => {
            let v = open_for_cli(&path, &profile, cli.passphrase_file.as_deref())?;
            for p in v.agent_view().profiles().map_err(|e| anyhow::anyhow!("{e}"))? {
                println!("{}\t{}", p.name, p.fields);
            }
        }
        VaultCmd::List => {
            let v = open_for_cli(&path, &profile, cli.passphrase_file.as_deref())?;
            let mut out = std::io::stdout().lock();
            for e in v.entries()? {
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}{}",
                    e.id,
                    e.site,
                    e.label,
                    e.username,
                    if e.has_totp { "\ttotp" } else { "" }
                )?;
            }
        }
    }
    Ok(())
}

/// A MIME type from a file name's extension, for the common document and image kinds.
pub(crate) fn media_type_of(file: &Path) -> &'static str {
    let ext = file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "md" => "text/markdown",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "odt" => "application/vnd.oasis.opendocument.text",
        "rtf" => "application/rtf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => "application/octet-stream",
    }
}

fn open_for_cli(path: &Path, profile: &Path, passphrase_file: Option<&Path>) -> Result<Vault> {
    if !path.exists() {
        bail!(
            "no vault at {} (create one with `aperture vault init`)",
            path.display()
        );
    }
    // Checked before asking for the passphrase: a refused file needs no typing.
    let v = Vault::open(path).map_err(|e| explain(e, profile))?;
    let pass = match passphrase_file {
        Some(f) => read_passphrase_file(f)?,
        None => prompt_hidden("Vault passphrase: ")?,
    };
    v.unlock(&pass).map_err(|e| explain(e, profile))?;
    Ok(v)
}

/// A vault error for the human, with the exact command for this profile when the fix is
/// `accept-rollback` (the crate's sentence names it without `--profile`).
pub(crate) fn explain(e: VaultError, profile: &Path) -> anyhow::Error {
    match e {
        VaultError::RolledBack { .. } | VaultError::GenerationRecord(_) => anyhow::anyhow!(
            "{e} (for this profile: `aperture vault --profile {} accept-rollback`)",
            profile.display()
        ),
        other => other.into(),
    }
}

/// The password and, when `want_totp`, the TOTP seed of a new entry: at hidden prompts when
/// stdin is a terminal, else the first and second lines of stdin.
fn read_new_secrets(want_totp: bool) -> Result<(Zeroizing<String>, Option<Zeroizing<String>>)> {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        let password = prompt_hidden("Password: ")?;
        let seed = if want_totp {
            Some(prompt_hidden("TOTP seed (otpauth:// URI or base32 secret): ")?)
        } else {
            None
        };
        return Ok((password, seed));
    }
    let all = read_stdin_all()?;
    let mut lines = all.lines();
    let password = Zeroizing::new(lines.next().unwrap_or("").to_owned());
    if password.is_empty() {
        bail!("no password on stdin");
    }
    let seed = if want_totp {
        let seed = lines.next().unwrap_or("").trim();
        if seed.is_empty() {
            bail!("--totp: no seed on stdin (give it as the second line, after the password)");
        }
        Some(Zeroizing::new(seed.to_owned()))
    } else {
        None
    };
    Ok((password, seed))
}

/// First line of `f`, without its line ending. The buffer holding the rest is zeroized too.
fn read_passphrase_file(f: &Path) -> Result<Zeroizing<String>> {
    let all = Zeroizing::new(std::fs::read_to_string(f).with_context(|| format!("reading {}", f.display()))?);
    let line = all.lines().next().unwrap_or("");
    if line.is_empty() {
        bail!("{} holds no passphrase", f.display());
    }
    Ok(Zeroizing::new(line.to_owned()))
}

fn read_stdin_all() -> Result<Zeroizing<String>> {
    let mut all = Zeroizing::new(String::new());
    std::io::stdin()
        .read_to_string(&mut all)
        .context("reading the password from stdin")?;
    Ok(all)
}

/// Asks on the controlling terminal with echo off (`stty`, to avoid a terminal crate for one
/// prompt).
fn prompt_hidden(prompt: &str) -> Result<Zeroizing<String>> {
    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .context("no terminal to ask for the passphrase on; use --passphrase-file")?;
    let stty = |arg: &str| {
        std::process::Command::new("stty")
            .arg(arg)
            .stdin(std::fs::File::open("/dev/tty")?)
            .status()
    };
    tty.write_all(prompt.as_bytes())?;
    tty.flush()?;
    stty("-echo").context("turning terminal echo off")?;
    let mut line = Zeroizing::new(String::new());
    let r = std::io::BufRead::read_line(&mut std::io::BufReader::new(&mut tty), &mut line);
    let _ = stty("echo");
    let _ = tty.write_all(b"\n");
    r?;
    let trimmed = line.trim_end_matches(['\n', '\r']);
    if trimmed.is_empty() {
        bail!("nothing was entered at the prompt");
    }
    Ok(Zeroizing::new(trimmed.to_owned()))
}

// ---------------------------------------------------------------------------------------------
// Start-up: open (and, given a passphrase, unlock) the profile's vault.

/// Starts the profile's vault process and, given `passphrase_file`, has it unlock the vault
/// with the file's first line (read once, zeroized, sent over the channel; this process keeps
/// no key). Without a passphrase an existing vault stays locked until the human unlocks it in
/// the vault window; without a vault file the wiring is still made, so a vault the human
/// creates later (in the window, or with `aperture vault init`) is the one the agent's fills
/// use. Fails on a wrong passphrase or a damaged file rather than starting with a vault the
/// human believes is usable.
pub fn load(
    profile: &Path,
    passphrase_file: Option<&Path>,
    allow_fill: &[String],
) -> Result<Option<Arc<VaultWiring>>> {
    let path = vault_path(profile);
    let remote = RemoteVault::start(vault_process_launcher(&path)?).context("starting the vault process")?;
    load_with(profile, remote, passphrase_file, allow_fill).map(Some)
}

fn load_with(
    profile: &Path,
    remote: RemoteVault,
    passphrase_file: Option<&Path>,
    allow_fill: &[String],
) -> Result<Arc<VaultWiring>> {
    let allow = allow_fill
        .iter()
        .map(|o| Origin::parse(o).map_err(|e| anyhow::anyhow!("--vault-allow-fill {o}: {e}")))
        .collect::<Result<Vec<_>>>()?;
    // Decrypted uploads of the last run: the pages have had them.
    let _ = std::fs::remove_dir_all(uploads_dir(profile));
    let path = vault_path(profile);
    if !path.exists() {
        if passphrase_file.is_some() {
            bail!(
                "--vault-passphrase-file: no vault at {} (create one with `aperture vault init`)",
                path.display()
            );
        }
    } else {
        remote
            .status()
            .map_err(|e| explain_remote(e, profile))
            .with_context(|| format!("opening {}", path.display()))?;
        if let Some(f) = passphrase_file {
            let pass = read_passphrase_file(f)?;
            remote
                .unlock(&pass)
                .map_err(|e| explain_remote(e, profile))
                .with_context(|| format!("unlocking {}", path.display()))?;
        }
    }
    Ok(Arc::new(VaultWiring {
        profile: profile.to_owned(),
        path,
        remote: Arc::new(remote),
        allow_fill: allow,
        taint: Mutex::new(Taint::default()),
        consent: std::sync::OnceLock::new(),
    }))
}

/// A vault process's error for the human, with the exact command for this profile when the
/// fix is `accept-rollback`.
pub(crate) fn explain_remote(e: RemoteError, profile: &Path) -> anyhow::Error {
    match e {
        RemoteError::RolledBack(msg) => anyhow::anyhow!(
            "{msg} (for this profile: `aperture vault --profile {} accept-rollback`)",
            profile.display()
        ),
        other => other.into(),
    }
}

// ---------------------------------------------------------------------------------------------
// The fill path and redaction, used by the MCP backend.

/// The vault as the browser's backend uses it. See the module docs for who may hold it.
///
/// The profile's one vault process is reached through here, by the agent's fill path and the
/// human's vault window (`crate::vault_window`) alike: an entry the human adds there is one
/// the next fill can use, and a lock there locks the fills too.
pub struct VaultWiring {
    profile: PathBuf,
    path: PathBuf,
    /// The vault process (restarted, locked, when it is lost).
    remote: Arc<RemoteVault>,
    /// Origins the human pre-authorized fills on (headless consent).
    allow_fill: Vec<Origin>,
    /// Values filled, per tab and per (container, site).
    taint: Mutex<Taint>,
    /// The window's consent sheet; unset headless (no human to ask).
    consent: std::sync::OnceLock<Arc<crate::consent::Consent>>,
}

/// Said when the profile has no vault at all.
const NO_VAULT: &str = "this browser has no vault yet (the human creates one in the vault window, or with `aperture vault init`)";

impl VaultWiring {
    /// The profile directory the vault belongs to.
    pub fn profile(&self) -> &Path {
        &self.profile
    }

    /// Where the vault file is (or will be).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The vault process, for the human's vault window only.
    pub fn remote(&self) -> &Arc<RemoteVault> {
        &self.remote
    }

    /// From now on, fills on origins not pre-approved ask the human through `consent`.
    pub fn ask_human(&self, consent: Arc<crate::consent::Consent>) {
        let _ = self.consent.set(consent);
    }

    /// Runs `f` on the vault process off the async workers (a request can wait on Argon2id,
    /// or on a stuck vault process until it is replaced).
    async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&RemoteVault) -> Result<T, RemoteError> + Send + 'static,
    ) -> BackendResult<T> {
        let r = self.remote.clone();
        tokio::task::spawn_blocking(move || f(&r))
            .await
            .map_err(|e| BackendError::Other(format!("the vault request did not finish: {e}")))?
            .map_err(remote_err)
    }
}

/// Everything the vault filled, in the two scopes reads are redacted for.
#[derive(Default)]
struct Taint {
    /// Per tab, following the tab across sites; dropped with the tab.
    tabs: HashMap<u64, TaintSet>,
    /// Per (container, site), for the life of the browser: the site may have kept the value
    /// and can show it in any of its tabs in that container.
    sites: SiteTaint,
}

impl Taint {
    /// Whether a read of tab `id` in `container` may need redacting at all.
    fn applies(&self, id: TabId, container: &str) -> bool {
        self.tabs.get(&id.0).is_some_and(|t| !t.is_empty()) || self.sites.any_in(container)
    }

    /// The sets a read of tab `id` in `container`, showing `page`, is redacted with.
    fn sets_for(&self, id: TabId, container: &str, page: &Origin) -> Vec<&TaintSet> {
        self.tabs
            .get(&id.0)
            .into_iter()
            .chain(self.sites.for_page(container, page))
            .filter(|t| !t.is_empty())
            .collect()
    }
}

/// Redacts `s` (read from a page on `page`) with `sets`.
fn redact_in(sets: &[&TaintSet], page: &Origin, s: &mut String) {
    if sets.is_empty() {
        return;
    }
    let out = TaintSet::redact_all(sets, s, page);
    if out != *s {
        *s = out;
    }
}

/// Said for an unknown id and for another site's id alike, so the answer is no oracle.
const NOT_AVAILABLE: &str = "no such entry for this page's origin";
/// A non-http(s) page origin matches nothing, including site-scoped short values.
const OPAQUE_ORIGIN: &str = "https://opaque.invalid";

fn refused(msg: impl Into<String>) -> BackendError {
    BackendError::VaultRefused(msg.into())
}

/// What the agent is told when the vault process refuses or fails a request.
fn remote_err(e: RemoteError) -> BackendError {
    match e {
        RemoteError::NoVault => refused(NO_VAULT),
        RemoteError::NotAvailable | RemoteError::NotFound | RemoteError::EntryGone => refused(NOT_AVAILABLE),
        // Said without the crate's wording, which assumes a window: headless has none.
        RemoteError::Locked => refused(
            "the vault is locked; only the human can unlock it (in the browser window's vault \
             window, or by starting the browser with --vault-passphrase-file)",
        ),
        // The tab moved to another site between the request and typing: nothing was typed.
        RemoteError::OriginMismatch => {
            refused("the page's origin changed before the fill; nothing was typed")
        }
        RemoteError::UnsupportedOrigin => refused("this page's origin cannot use the vault"),
        RemoteError::NoValue => {
            refused("this entry has nothing saved for one of those fields; nothing was typed")
        }
        RemoteError::Gone => refused(
            "the vault process stopped during this request and was restarted; the vault is now \
             locked and only the human can unlock it; nothing was typed",
        ),
        RemoteError::RolledBack(msg) => refused(format!(
            "the vault file cannot be opened ({msg}); only the human can fix that"
        )),
        other => refused(other.to_string()),
    }
}

fn tab_err(id: TabId, e: crate::tab::TabError) -> BackendError {
    use crate::tab::TabError;
    match e {
        TabError::NoSuchTab(_) | TabError::Closed => BackendError::NoSuchTab(id),
        TabError::RendererGone(why) => BackendError::RendererGone(why),
        TabError::Walker(w) => BackendError::from_walker(0, w),
        TabError::Timeout { secs, .. } => BackendError::Timeout(std::time::Duration::from_secs(secs)),
        other => BackendError::Other(other.to_string()),
    }
}

/// Which frame of the tab: the main one, or the one holding keyboard focus.
#[derive(Clone, Copy)]
enum WhichFrame {
    Main,
    Focused,
}

/// The container a tab belongs to (its storage partition; empty for the default one), as the
/// browser actor recorded it when the tab was made.
async fn container_of(h: &Handle, id: TabId) -> BackendResult<String> {
    h.on_ui(move |a| a.with(|st| st.tabs.get(&id).map(|t| t.meta.container.clone())))
        .await
        .map_err(|e| tab_err(id, e))?
        .ok_or(BackendError::NoSuchTab(id))
}

/// The URL of a frame of the tab, as the browser process knows it (not as the page reports
/// it). The focused frame falls back to the main frame when none is focused.
async fn frame_url(h: &Handle, id: TabId, which: WhichFrame) -> BackendResult<String> {
    h.on_ui(move |a| {
        let b = a.browser(id)?;
        let f = match which {
            WhichFrame::Main => b.main_frame(),
            WhichFrame::Focused => b.focused_frame().or_else(|| b.main_frame()),
        }?;
        Some(f.url())
    })
    .await
    .map_err(|e| tab_err(id, e))?
    .ok_or(BackendError::NoSuchTab(id))
}

/// Asks the human on the window's consent sheet about `req` for tab `id` (whose title the
/// sheet shows), and waits for the answer. A refusal says the `kind` of request was denied or
/// unanswered, and that `nothing` was done.
async fn ask_in_window(
    c: &crate::consent::Consent,
    h: &Handle,
    id: TabId,
    mut req: crate::consent::Request,
    kind: &str,
    nothing: &str,
) -> BackendResult<()> {
    use crate::consent::Refusal;
    req.tab_title = h
        .on_ui(move |a| a.with(|st| st.tabs.get(&id).map(|t| t.title.clone())))
        .await
        .map_err(|e| tab_err(id, e))?
        .ok_or(BackendError::NoSuchTab(id))?;
    c.ask(req).await.map_err(|r| match r {
        Refusal::Denied => refused(format!("the human denied this {kind}; {nothing}")),
        Refusal::TimedOut(d) => refused(format!(
            "the human did not answer the {kind} request within {} s; {nothing}",
            d.as_secs()
        )),
    })
}

fn origin_of(url: &str) -> Option<Origin> {
    Origin::parse(url).ok()
}

/// Whether the page the tab shows was reached past a certificate warning (Chromium's SSL
/// status of its navigation entry): the vault fills nothing there.
async fn past_cert_warning(h: &Handle, id: TabId) -> BackendResult<bool> {
    let security = h
        .on_ui(move |a| a.host(id).and_then(|h| h.page_security()))
        .await
        .map_err(|e| BackendError::Other(e.to_string()))?;
    Ok(security == Some(cef::PageSecurity::CertificateError))
}

/// The site a sign-in (HTTP authentication) open in the tab asks for: the open dialog's id and
/// the challenged request's URL. A proxy's sign-in is for no site, so it is not one.
async fn open_sign_in(h: &Handle, id: TabId) -> BackendResult<Option<(u64, String)>> {
    use crate::browser::page::Asked;
    h.on_ui(move |a| {
        a.with(|st| {
            let d = st.tabs.get(&id)?.asks.dialog.as_ref()?;
            (d.kind == Asked::SignIn { proxy: false }).then(|| (d.id, d.origin.clone()))
        })
    })
    .await
    .map_err(|e| tab_err(id, e))
}

impl VaultWiring {
    /// Entries for the site of the tab's main frame (or, while a sign-in is open, of the site
    /// asking), and that origin.
    pub async fn entries(&self, h: &Handle, id: TabId) -> BackendResult<VaultEntries> {
        let url = match open_sign_in(h, id).await? {
            Some((_, url)) => url,
            None => frame_url(h, id, WhichFrame::Main).await?,
        };
        let origin = origin_of(&url).ok_or_else(|| remote_err(RemoteError::UnsupportedOrigin))?;
        let o = origin.clone();
        let list = self.call(move |r| r.entries_for_origin(&o)).await?;
        Ok(VaultEntries {
            origin: origin.to_string(),
            entries: list
                .into_iter()
                .map(|e| VaultEntry {
                    id: e.id.to_string(),
                    label: e.label,
                    has_totp: e.has_totp,
                })
                .collect(),
        })
    }

    /// The fill behind `vault_request_fill`. See [`aperture_mcp::backend::Backend::vault_fill`].
    pub async fn fill(
        &self,
        h: &Handle,
        id: TabId,
        entry: &str,
        targets: Vec<VaultTarget>,
    ) -> BackendResult<()> {
        self.fill_inner(h, id, entry, targets, true).await
    }

    /// Answers the sign-in (HTTP authentication) open in the tab with entry `entry`: for the
    /// agent's `vault_request_fill` with no fields. The entry must belong to the site asking
    /// (the challenged request's origin, from Chromium's network stack, not the page), and the
    /// human must have allowed fills there, as for a form. The values go from the vault
    /// process to the network stack, recorded for redaction, and never to the agent.
    pub async fn sign_in(&self, h: &Handle, id: TabId, entry: &str) -> BackendResult<()> {
        self.sign_in_inner(h, id, entry, None).await
    }

    /// The human picked `entry` on sign-in sheet `dialog`: answered as [`VaultWiring::sign_in`]
    /// without the consent sheet (the human asked), and only while that very sheet is open.
    pub async fn sign_in_for_human(
        &self,
        h: &Handle,
        id: TabId,
        dialog: u64,
        entry: &str,
    ) -> BackendResult<()> {
        self.sign_in_inner(h, id, entry, Some(dialog)).await
    }

    /// `human`: the sheet the human answered (no consent asked); `None`: the agent's.
    async fn sign_in_inner(
        &self,
        h: &Handle,
        id: TabId,
        entry: &str,
        human: Option<u64>,
    ) -> BackendResult<()> {
        let Some((dialog, url)) = open_sign_in(h, id)
            .await?
            .filter(|(d, _)| human.is_none_or(|want| *d == want))
        else {
            return Err(BackendError::InvalidInput(
                "no sign-in (HTTP authentication) is open in this tab: name the fields to fill \
                 (`username`, `password` or `one_time_code`)"
                    .into(),
            ));
        };
        let origin = origin_of(&url).ok_or_else(|| remote_err(RemoteError::UnsupportedOrigin))?;
        if past_cert_warning(h, id).await? {
            return Err(refused(
                "this tab was taken past a certificate warning, so the site asking may not be the \
                 real one: the vault fills nothing here",
            ));
        }
        if human.is_none() && !self.allow_fill.contains(&origin) {
            let fields = vec!["username".to_string(), "password".to_string()];
            self.consent_to(h, id, &origin, fields).await?;
        }
        let eid = EntryId::parse(entry).ok_or_else(|| refused(NOT_AVAILABLE))?;
        let o = origin.clone();
        let grant = self
            .call(move |r| r.request_fill(&eid, &o, FillTarget::Login))
            .await?;
        let (o, parts) = (origin.clone(), [LoginPart::Username, LoginPart::Password]);
        let fill = self.call(move |r| r.redeem(grant, &o, &parts)).await?;
        let o = origin.clone();
        let values = self
            .call(move |r| {
                let user = r.fill_value(fill, &o, LoginPart::Username)?;
                let password = r.fill_value(fill, &o, LoginPart::Password)?;
                Ok((user, password))
            })
            .await;
        let _ = self.call(move |r| r.end_fill(fill)).await;
        let (user, password) = values?;
        let container = container_of(h, id).await?;
        // A page that shows the signed-in username shows it redacted, as after a form fill.
        self.taint_values(
            id,
            &container,
            [user.as_str(), password.as_str()].into_iter(),
            &origin,
        );
        let answered = h
            .on_ui(move |a| {
                // Only to the sign-in whose site was checked: another asked meanwhile gets
                // nothing.
                let still = a.with(|st| {
                    st.tabs
                        .get(&id)
                        .and_then(|t| t.asks.dialog.as_ref())
                        .is_some_and(|d| d.id == dialog)
                });
                still
                    && crate::browser::page::answer_dialog(
                        a,
                        id,
                        true,
                        None,
                        Some((user.as_str(), password.as_str())),
                        false,
                    )
                    .is_ok()
            })
            .await
            .map_err(|e| tab_err(id, e))?;
        if answered {
            Ok(())
        } else {
            Err(refused(
                "the sign-in was answered or withdrawn meanwhile; nothing was sent",
            ))
        }
    }

    /// A fill; `ask`: the agent's, which needs the human's consent for the origin.
    async fn fill_inner(
        &self,
        h: &Handle,
        id: TabId,
        entry: &str,
        targets: Vec<VaultTarget>,
        ask: bool,
    ) -> BackendResult<()> {
        if targets.is_empty() {
            return Err(BackendError::InvalidInput("no field to fill".into()));
        }
        let url = frame_url(h, id, WhichFrame::Main).await?;
        let origin = origin_of(&url).ok_or_else(|| remote_err(RemoteError::UnsupportedOrigin))?;
        // A page reached past a certificate warning may be an impostor of the site an entry is
        // bound to: its origin proves nothing there, so nothing is filled, for the agent or the
        // human (Chrome's password manager refuses too).
        if past_cert_warning(h, id).await? {
            return Err(refused(
                "this page was reached past a certificate warning, so it may not be the real site: \
                 the vault fills nothing here",
            ));
        }
        // Consent before anything else, so on an origin the human did not approve the answer
        // says nothing about which ids exist.
        if ask && !self.allow_fill.contains(&origin) {
            self.consent(h, id, &origin, &targets).await?;
        }
        let eid = EntryId::parse(entry).ok_or_else(|| refused(NOT_AVAILABLE))?;
        let target = if targets.iter().any(|t| t.field == FillField::OneTimeCode) {
            FillTarget::OneTimeCode
        } else {
            FillTarget::Login
        };
        let o = origin.clone();
        let grant = self.call(move |r| r.request_fill(&eid, &o, target)).await?;
        let tab = crate::tab::Tab::new(h, id);

        // Focus the first field, then redeem against the frame that actually has focus: that
        // is where the keystrokes go.
        let first = targets[0];
        if let Err(e) = focus(&tab, id, first).await {
            return Err(self.redact_focus(h, id, e).await);
        }
        let frame = self.focused_origin(h, id).await?;
        // The vault process checks the focused frame against the grant and keeps the fill;
        // only the parts these fields take, one field's value at a time, cross to here.
        let parts: Vec<LoginPart> = targets.iter().map(|t| part(t.field)).collect();
        let (f, p) = (frame.clone(), parts.clone());
        let fill = self.call(move |r| r.redeem(grant, &f, &p)).await?;
        let result = self.type_into(h, id, &tab, &targets, &parts, fill, &frame).await;
        let _ = self.call(move |r| r.end_fill(fill)).await;
        result
    }

    /// Types the value of `parts[i]` of `fill` into `targets[i]`, the first already focused
    /// (in `frame`), each later one focused here and refused if focus lands in a frame of
    /// another site than `frame`. Each value is asked of the vault process right before its
    /// field is typed (for the frame focused then, which it checks again), recorded for
    /// redaction, typed, and wiped. What a failure says follows what was typed before it.
    #[allow(clippy::too_many_arguments)]
    async fn type_into(
        &self,
        h: &Handle,
        id: TabId,
        tab: &crate::tab::Tab,
        targets: &[VaultTarget],
        parts: &[LoginPart],
        fill: aperture_vault::remote::RemoteFill,
        frame: &Origin,
    ) -> BackendResult<()> {
        let container = container_of(h, id).await?;
        let mut typed: Vec<&'static str> = Vec::new();
        for (i, (t, part)) in targets.iter().zip(parts).enumerate() {
            let word = field_word(t.field);
            // Up to the clear, a failure leaves this field as it was.
            let ready = async {
                let now = if i > 0 {
                    focus(tab, id, *t).await?;
                    // Never type a value into a frame of another site, whatever focus did.
                    let now = self.focused_origin(h, id).await?;
                    if now.site() != frame.site() {
                        return Err(refused("focus moved to a frame of another site; stopped"));
                    }
                    now
                } else {
                    frame.clone()
                };
                let part = *part;
                let v = self.call(move |r| r.fill_value(fill, &now, part)).await?;
                // Recorded before typing: a page that echoes keystrokes as they arrive is
                // covered. Both scopes: this tab wherever it goes, and every tab of this site
                // in this container (the page can store what it was given and show it in
                // another tab).
                self.taint_values(id, &container, std::iter::once(v.as_str()), frame);
                element(tab, id, *t, aperture_engine::protocol::ElementOp::Clear).await?;
                Ok(v)
            };
            let v = match ready.await {
                Ok(v) => v,
                Err(e) => {
                    let e = self.redact_focus(h, id, e).await;
                    return Err(if typed.is_empty() {
                        e
                    } else {
                        stopped(&typed, word, false, e)
                    });
                }
            };
            match tab.type_text(v.as_str()).await {
                Ok(()) => typed.push(word),
                // Not one key of this field went in, and none of a later one was sent.
                Err(crate::tab::TabError::FocusMoved { typed: 0, went, .. }) => {
                    let e = BackendError::FocusMoved {
                        typed: 0,
                        total: 0,
                        went,
                    };
                    return Err(stopped(&typed, word, true, self.redact_focus(h, id, e).await));
                }
                // Some of its characters may have gone in.
                Err(e) if typed.is_empty() => {
                    return Err(BackendError::ActionOutcomeUnknown(format!(
                        "while typing the {word}: {}",
                        tab_err(id, e)
                    )));
                }
                Err(e) => {
                    return Err(BackendError::ActionOutcomeUnknown(format!(
                        "the {} was typed, then while typing the {word}: {}",
                        typed.join(" and "),
                        tab_err(id, e)
                    )));
                }
            }
        }
        Ok(())
    }

    /// A strong password for a sign-up: generated, saved in the vault for the origin of the
    /// frame the (first) password field is in, with `username` when the page already holds
    /// one, then typed into every target (the password field and its confirmation). Needs no
    /// consent: the value is new and bound to the page it is typed into, so it can leak to no
    /// other site; it needs an unlocked vault. The agent learns the entry id, never the value.
    pub async fn generate(
        &self,
        h: &Handle,
        id: TabId,
        username: Option<String>,
        targets: Vec<VaultTarget>,
    ) -> BackendResult<GeneratedPassword> {
        if targets.is_empty() || targets.iter().any(|t| t.field != FillField::Password) {
            return Err(BackendError::InvalidInput(
                "a generated password goes into password fields only".into(),
            ));
        }
        let tab = crate::tab::Tab::new(h, id);
        if let Err(e) = focus(&tab, id, targets[0]).await {
            return Err(self.redact_focus(h, id, e).await);
        }
        let frame = self.focused_origin(h, id).await?;
        let label = format!("{} (generated)", frame.host());
        let username = username.map(|u| u.trim().to_owned()).filter(|u| !u.is_empty());
        // Generated and saved in the vault process; only the value to type comes to here,
        // field by field.
        let f = frame.clone();
        let (entry, bits, fill) = self
            .call(move |r| {
                let made = r.generate_password(&f, &label, username.as_deref())?;
                let fill = r.redeem(made.grant, &f, &[LoginPart::Password])?;
                Ok((made.id.to_string(), made.entropy_bits, fill))
            })
            .await?;
        let parts = vec![LoginPart::Password; targets.len()];
        let result = self.type_into(h, id, &tab, &targets, &parts, fill, &frame).await;
        let _ = self.call(move |r| r.end_fill(fill)).await;
        result?;
        Ok(GeneratedPassword {
            entry,
            origin: frame.to_string(),
            entropy_bits: bits.floor() as u32,
        })
    }

    /// The logins the vault holds for `url`'s site, for the human's omnibox key; none while
    /// the vault is locked or absent.
    pub fn human_offers(&self, url: &str) -> Vec<aperture_ui::LoginOffer> {
        let Some(origin) = origin_of(url).filter(|o| matches!(o.scheme(), "http" | "https")) else {
            return Vec::new();
        };
        self.remote
            .human_offers(&origin)
            .unwrap_or_default()
            .into_iter()
            .map(|o| aperture_ui::LoginOffer {
                username: o.username,
                entry: o.id.to_string(),
                label: o.label,
            })
            .collect()
    }

    /// What the vault says of a login the human just submitted on `url`: `None` when there is
    /// nothing to offer (the vault is locked or absent, the page is not http(s), or this exact
    /// login is saved); `Some(None)` when it is new; `Some(Some(id))` when entry `id` has that
    /// username for the site with another password. The comparison is made in the vault
    /// process.
    pub fn login_status(&self, url: &str, username: &str, password: &str) -> Option<Option<EntryId>> {
        let origin = origin_of(url).filter(|o| matches!(o.scheme(), "http" | "https"))?;
        match self.remote.login_status(&origin, username, password).ok()? {
            LoginStatus::Saved => None,
            LoginStatus::New => Some(None),
            LoginStatus::Changed(id) => Some(Some(id)),
        }
    }

    /// Saves the login the human just submitted (or updates entry `update`'s password); what
    /// to tell the human.
    pub fn save_login(
        &self,
        url: &str,
        username: &str,
        password: &str,
        update: Option<&EntryId>,
    ) -> Result<String, String> {
        let origin = origin_of(url).ok_or("the page has no web origin")?;
        match self.remote.save_login(&origin, username, password, update) {
            Ok(_) if update.is_some() => Ok(format!(
                "Updated the password for {} in the vault.",
                origin.host()
            )),
            Ok(_) => Ok(format!("Saved the password for {} in the vault.", origin.host())),
            Err(RemoteError::NoVault) => Err("there is no vault yet (create one in the vault window)".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The human picked saved login `entry` for tab `id`: finds the page's sign-in fields (the
    /// focused or first visible password input, and the nearest text or email input before
    /// it in the same frame; or, on a page asking only for a username, that field) and fills
    /// them like an agent's fill, without the consent sheet: the human asked.
    pub async fn fill_for_human(&self, h: &Handle, id: TabId, entry: &str) -> BackendResult<()> {
        let walk = crate::tab::Tab::new(h, id)
            .walk()
            .await
            .map_err(|e| tab_err(id, e))?;
        let targets = login_fields(&walk)
            .ok_or_else(|| BackendError::InvalidInput("this page shows no sign-in field".into()))?;
        self.fill_inner(h, id, entry, targets, false).await
    }

    /// The files in the human's vault library.
    pub fn attachments(&self) -> BackendResult<Vec<VaultAttachment>> {
        Ok(self
            .remote
            .attachments()
            .map_err(remote_err)?
            .into_iter()
            .map(|a| VaultAttachment {
                id: a.id.to_string(),
                label: a.label,
                file_name: a.file_name,
                media_type: a.media_type,
                size: a.size,
            })
            .collect())
    }

    /// Uploads library file `attachment` through the file input `target`: after the human's
    /// consent (asked every time: a file is not a login), the file is decrypted to
    /// `<profile>/uploads/<n>/<name>` (0700/0600; Chromium reads uploads from a path; the
    /// directory is emptied at the next start), the tab's next file chooser is set to answer
    /// with it, and a trusted Enter on the focused input opens the chooser.
    pub async fn attach(
        &self,
        h: &Handle,
        id: TabId,
        attachment: &str,
        target: VaultTarget,
    ) -> BackendResult<VaultAttachment> {
        let url = frame_url(h, id, WhichFrame::Main).await?;
        let origin = origin_of(&url).ok_or_else(|| remote_err(RemoteError::UnsupportedOrigin))?;
        let aid = aperture_vault::AttachmentId::parse(attachment).ok_or_else(|| refused(NOT_AVAILABLE))?;
        let info = self
            .call(|r| r.attachments())
            .await?
            .into_iter()
            .find(|a| a.id == aid)
            .ok_or_else(|| refused(NOT_AVAILABLE))?;
        if !self.allow_fill.contains(&origin) {
            let Some(c) = self.consent.get() else {
                return Err(refused(
                    "the human has not allowed vault uploads on this page's origin (a browser without \
                     a window asks nobody: it must be started with --vault-allow-fill for it); nothing \
                     was attached",
                ));
            };
            let req = crate::consent::Request {
                what: format!("upload “{}” from your vault", info.file_name),
                fresh: true,
                origin: origin.to_string(),
                fields: vec![format!("{} ({} bytes)", info.label, info.size)],
                tab_title: String::new(),
            };
            ask_in_window(c, h, id, req, "upload", "nothing was attached").await?;
        }
        let dir = uploads_dir(&self.profile).join(format!(
            "{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default()
        ));
        // The vault process decrypts it straight into the upload directory (0700/0600): the
        // file's bytes never pass through this process.
        let d = dir.clone();
        let data = self
            .call(move |r| {
                let grant = r.request_attachment(&aid)?;
                r.stage_attachment(grant, &d)
            })
            .await?;
        let staged = data.path.clone();
        let tab = crate::tab::Tab::new(h, id);
        let opened = async {
            if let Err(e) = focus(&tab, id, target).await {
                return Err(self.redact_focus(h, id, e).await);
            }
            // The consent and the allowlist were for the page's origin: a file input in a
            // frame of another origin (an embedded widget) would hand the file to a site the
            // human never approved. Checked on the UI thread in the same step that arms the
            // chooser's answer, so focus cannot move in between; no focused frame is no
            // answer.
            let want = origin.clone();
            let armed = h
                .on_ui(move |a| {
                    let at = a.browser(id).and_then(|b| b.focused_frame()).map(|f| f.url());
                    if at.as_deref().and_then(origin_of) != Some(want) {
                        return false;
                    }
                    a.with(|st| {
                        if let Some(t) = st.tabs.get_mut(&id) {
                            t.asks.upload = Some(staged);
                        }
                    });
                    true
                })
                .await
                .map_err(|e| tab_err(id, e))?;
            if !armed {
                return Err(refused(
                    "that file input is not in a frame of the page's own origin, which the human \
                     approved uploads to; nothing was attached",
                ));
            }
            tab.key("Enter").await.map_err(|e| tab_err(id, e))?;
            // The chooser opens as the key lands; the actor answers it and clears the slot.
            for _ in 0..50 {
                let pending = h
                    .on_ui(move |a| a.with(|st| st.tabs.get(&id).is_some_and(|t| t.asks.upload.is_some())))
                    .await
                    .map_err(|e| tab_err(id, e))?;
                if !pending {
                    return Ok(());
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(refused(
                "pressing Enter on that file input opened no file chooser; nothing was attached",
            ))
        };
        let result = opened.await;
        if result.is_err() {
            // Nothing may answer a later chooser of this page with the file.
            let _ = h
                .on_ui(move |a| {
                    a.with(|st| {
                        if let Some(t) = st.tabs.get_mut(&id) {
                            t.asks.upload = None;
                        }
                    })
                })
                .await;
            let _ = std::fs::remove_dir_all(&dir);
        }
        result.map(|()| VaultAttachment {
            id: info.id.to_string(),
            label: info.label,
            file_name: data.file_name,
            media_type: data.media_type,
            size: data.size,
        })
    }

    /// The vault's profiles, names and sizes only.
    pub fn profiles(&self) -> BackendResult<Vec<ProfileInfo>> {
        Ok(self
            .remote
            .profiles()
            .map_err(remote_err)?
            .into_iter()
            .map(|p| ProfileInfo {
                name: p.name,
                fields: p.fields,
            })
            .collect())
    }

    /// A profile plan over `controls` for the tab's page and, with `apply`, the fill: the
    /// vault decides which rows need the human's approval (every sensitive one, and facts not
    /// yet approved for this site and profile); with a window the sheet asks, headless the
    /// start-up allowlist approves the non-sensitive ones and sensitive ones are skipped.
    pub async fn profile_fill(
        &self,
        h: &Handle,
        id: TabId,
        profile: &str,
        controls: Vec<ProfileControl>,
        apply: bool,
    ) -> BackendResult<ProfileOutcome> {
        use aperture_vault::{Decision, FieldDescriptor, SelectOption};
        let url = frame_url(h, id, WhichFrame::Main).await?;
        let origin = origin_of(&url).ok_or_else(|| remote_err(RemoteError::UnsupportedOrigin))?;
        let descs: Vec<FieldDescriptor> = controls
            .iter()
            .map(|c| FieldDescriptor {
                field_ref: c.field_ref.clone(),
                tag: c.tag.clone(),
                input_type: c.input_type.clone(),
                autocomplete: c.autocomplete.clone(),
                name: c.name.clone(),
                id: c.id.clone(),
                label: c.label.clone(),
                aria_label: None,
                placeholder: c.placeholder.clone(),
                max_length: None,
                options: c
                    .options
                    .iter()
                    .map(|o| SelectOption {
                        value: o.clone(),
                        text: o.clone(),
                    })
                    .collect(),
            })
            .collect();
        let name = profile.to_owned();
        let plan = self
            .remote
            .plan_profile_fill(&name, &descs)
            .map_err(|e| match e {
                RemoteError::NotAvailable => {
                    refused("there is no profile of that name (action=list shows them)")
                }
                other => remote_err(other),
            })?;
        let rows = plan
            .rows
            .iter()
            .map(|i| ProfileRow {
                field_ref: i.field_ref.clone(),
                label: i.label.clone(),
                field: i.field.map(|f| f.as_str().to_owned()),
                confidence: (i.confidence * 100.0).round() as u32,
                decision: match i.decision {
                    Decision::Fill => "fill".to_owned(),
                    Decision::LowConfidence => "low confidence, not filled".to_owned(),
                    Decision::Skip(r) => format!("skip: {r:?}"),
                },
                sensitive: i.sensitive,
            })
            .collect();
        let mut out = ProfileOutcome {
            rows,
            ..Default::default()
        };
        if !apply {
            return Ok(out);
        }
        let o = origin.clone();
        let grant = self.call(move |r| r.request_profile_fill(plan, &o)).await?;
        // The refs the human approved (none when no row needs approval: then rows that
        // needed it, every sensitive one included, are skipped by the vault).
        let approval: Vec<String> = if !grant.needs_dialog() {
            Vec::new()
        } else {
            let asked: Vec<&aperture_vault::ConsentRow> =
                grant.rows.iter().filter(|r| r.needs_approval).collect();
            match self.consent.get() {
                Some(c) => {
                    let fields = asked
                        .iter()
                        .map(|r| {
                            let s = r.field.as_str();
                            if r.sensitive {
                                format!("{s} (sensitive)")
                            } else {
                                s.to_owned()
                            }
                        })
                        .collect();
                    let req = crate::consent::Request {
                        what: format!("fill from your profile “{profile}”"),
                        fresh: asked.iter().any(|r| r.sensitive),
                        origin: origin.to_string(),
                        fields,
                        tab_title: String::new(),
                    };
                    ask_in_window(c, h, id, req, "profile fill", "nothing was typed").await?;
                    asked.iter().map(|r| r.field_ref.clone()).collect()
                }
                // Headless: the human's start-up allowlist approves everyday facts; a sensitive
                // one needs a human present, every time.
                None if self.allow_fill.contains(&origin) => asked
                    .iter()
                    .filter(|r| !r.sensitive)
                    .map(|r| r.field_ref.clone())
                    .collect(),
                None => {
                    return Err(refused(
                        "the human has not allowed vault fills on this page's origin (a browser without a \
                         window asks nobody: it must be started with --vault-allow-fill for it); nothing \
                         was typed",
                    ));
                }
            }
        };
        let o = origin.clone();
        let fill = self.call(move |r| r.redeem_profile(grant, &o, approval)).await?;
        let ticket = fill.fill;
        let result = self
            .type_profile(h, id, &controls, &fill.refs, ticket, &origin, &mut out)
            .await;
        let _ = self.call(move |r| r.end_fill(ticket)).await;
        result?;
        out.skipped = fill.skipped;
        Ok(out)
    }

    /// Fills the profile fields `refs` of `controls` from `fill`, one value at a time: each is
    /// asked of the vault process right before its field is filled (for the frame focused
    /// then, which it checks against the fill's site), recorded for redaction, typed or
    /// selected, and wiped. Adds each filled ref to `out.filled`.
    #[allow(clippy::too_many_arguments)]
    async fn type_profile(
        &self,
        h: &Handle,
        id: TabId,
        controls: &[ProfileControl],
        refs: &[String],
        fill: aperture_vault::remote::RemoteFill,
        origin: &Origin,
        out: &mut ProfileOutcome,
    ) -> BackendResult<()> {
        use aperture_engine::protocol::ElementOp;
        let container = container_of(h, id).await?;
        let tab = crate::tab::Tab::new(h, id);
        for r in refs {
            let Some(c) = controls.iter().find(|c| &c.field_ref == r) else {
                continue;
            };
            let t = VaultTarget {
                field: FillField::Username,
                walk_id: c.walk_id,
                idx: c.idx,
            };
            let container = &container;
            let value = |frame: Origin| {
                let r = r.clone();
                async move {
                    let v = self.call(move |x| x.profile_value(fill, &frame, &r)).await?;
                    self.taint_values(id, container, std::iter::once(v.as_str()), origin);
                    Ok::<_, BackendError>(v)
                }
            };
            let step = async {
                if c.tag == "select" {
                    // Chosen in the element's own frame by the walker; no keys, no focus.
                    let v = value(origin.clone()).await?;
                    return element(
                        &tab,
                        id,
                        t,
                        ElementOp::Select {
                            values: vec![v.as_str().to_owned()],
                        },
                    )
                    .await;
                }
                focus(&tab, id, t).await?;
                let now = self.focused_origin(h, id).await?;
                if now.site() != origin.site() {
                    return Err(refused("focus moved to a frame of another site; stopped"));
                }
                let v = value(now).await?;
                element(&tab, id, t, ElementOp::Clear).await?;
                tab.type_text(v.as_str()).await.map_err(|e| tab_err(id, e))
            };
            if let Err(e) = step.await {
                let e = self.redact_focus(h, id, e).await;
                if out.filled.is_empty() && e.nothing_sent() {
                    return Err(e);
                }
                return Err(BackendError::ActionOutcomeUnknown(format!(
                    "filled {} from the profile, then while filling {r}: {e}",
                    if out.filled.is_empty() {
                        "nothing".to_owned()
                    } else {
                        out.filled.join(", ")
                    }
                )));
            }
            out.filled.push(r.to_owned());
        }
        Ok(())
    }

    /// The human's yes for filling `targets` on `origin`, asked in the window; headless,
    /// only the start-up allowlist says yes.
    async fn consent(
        &self,
        h: &Handle,
        id: TabId,
        origin: &Origin,
        targets: &[VaultTarget],
    ) -> BackendResult<()> {
        let mut fields: Vec<String> = Vec::new();
        for t in targets {
            let w = field_word(t.field).to_string();
            if !fields.contains(&w) {
                fields.push(w);
            }
        }
        self.consent_to(h, id, origin, fields).await
    }

    /// Asks the human to allow a fill of `fields` on `origin` (refused at once without a
    /// window, where only `--vault-allow-fill` approves).
    async fn consent_to(
        &self,
        h: &Handle,
        id: TabId,
        origin: &Origin,
        fields: Vec<String>,
    ) -> BackendResult<()> {
        let Some(c) = self.consent.get() else {
            return Err(refused(
                "the human has not allowed vault fills on this page's origin (a browser without a \
                 window asks nobody: it must be started with --vault-allow-fill for it); nothing \
                 was typed",
            ));
        };
        let req = crate::consent::Request {
            what: "fill from your vault".into(),
            fresh: false,
            origin: origin.to_string(),
            fields,
            tab_title: String::new(),
        };
        ask_in_window(c, h, id, req, "fill", "nothing was typed").await
    }

    /// Records `values`, about to be typed into tab `id` (in `container`) on a frame of
    /// `frame`, for redaction: in the tab's own set and in its container's set for the site.
    fn taint_values<'a>(
        &self,
        id: TabId,
        container: &str,
        values: impl Iterator<Item = &'a str>,
        frame: &Origin,
    ) {
        let mut g = self.taint.lock().unwrap_or_else(|e| e.into_inner());
        for v in values {
            g.tabs.entry(id.0).or_default().add(v, frame);
            g.sites.add(container, v, frame);
        }
    }

    /// Redacts `texts`, read from tab `id` just now, against the tab's current page. Costs
    /// nothing while the vault has filled nothing.
    pub async fn redact_live(&self, h: &Handle, id: TabId, texts: &mut [&mut String]) {
        let Some(container) = self.tainted_container(h, id).await else {
            return;
        };
        // An unknown URL still redacts the tab's own values except site-scoped short ones.
        let url = frame_url(h, id, WhichFrame::Main).await.unwrap_or_default();
        for t in texts.iter_mut() {
            self.redact(id, &container, &url, t);
        }
    }

    /// Whether reads of tab `id` are redacted: something the vault filled is on it, or may
    /// be (filled on its site in its container). Searching its text would then answer "is
    /// this in the secret?" one guess at a time, which redaction cannot hide.
    pub async fn reads_redacted(&self, h: &Handle, id: TabId) -> bool {
        self.tainted_container(h, id).await.is_some()
    }

    /// Tab `id`'s container when its reads are redacted, else `None` (nothing filled
    /// anywhere is answered without asking the actor).
    async fn tainted_container(&self, h: &Handle, id: TabId) -> Option<String> {
        if self.nothing_filled() {
            return None;
        }
        // A tab whose container cannot be read any more is gone; its own set still applies.
        let container = container_of(h, id).await.unwrap_or_default();
        self.tainted(id, &container).then_some(container)
    }

    fn nothing_filled(&self) -> bool {
        let g = self.taint.lock().unwrap_or_else(|e| e.into_inner());
        g.tabs.is_empty() && g.sites.is_empty()
    }

    /// `e`, with where focus went (page text) redacted like any read of the tab.
    async fn redact_focus(&self, h: &Handle, id: TabId, e: BackendError) -> BackendError {
        match e {
            BackendError::FocusMoved {
                typed,
                total,
                mut went,
            } => {
                self.redact_live(h, id, &mut [&mut went]).await;
                BackendError::FocusMoved { typed, total, went }
            }
            other => other,
        }
    }

    async fn focused_origin(&self, h: &Handle, id: TabId) -> BackendResult<Origin> {
        let url = frame_url(h, id, WhichFrame::Focused).await?;
        origin_of(&url)
            .ok_or_else(|| refused("the focused frame's origin cannot use the vault; nothing was typed"))
    }

    /// Whether reads of tab `id`, in `container`, may need redacting: something was filled
    /// into this tab, or into any site in its container.
    pub fn tainted(&self, id: TabId, container: &str) -> bool {
        self.taint
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .applies(id, container)
    }

    /// Redacts from `text` every value filled into tab `id`, and every value filled on the
    /// site of `page_url` in `container` (the tab's container), whichever tab it went into.
    pub fn redact(&self, id: TabId, container: &str, page_url: &str, text: &mut String) {
        let g = self.taint.lock().unwrap_or_else(|e| e.into_inner());
        let page = page_origin(page_url);
        redact_in(&g.sets_for(id, container, &page), &page, text);
    }

    /// Redacts a walk of tab `id` (see [`VaultWiring::redact`] for which values): every string
    /// the page authored in it (URL, title, and each record's names, text, values, attributes).
    pub async fn redact_walk(&self, h: &Handle, id: TabId, w: &mut Walk) {
        if self.nothing_filled() {
            return;
        }
        let container = container_of(h, id).await.unwrap_or_default();
        self.redact_walk_in(id, &container, w);
    }

    fn redact_walk_in(&self, id: TabId, container: &str, w: &mut Walk) {
        let g = self.taint.lock().unwrap_or_else(|e| e.into_inner());
        if !g.applies(id, container) {
            return;
        }
        let o = page_origin(&w.url);
        let t = &g.sets_for(id, container, &o)[..];
        if t.is_empty() {
            return;
        }
        redact_in(t, &o, &mut w.url);
        redact_in(t, &o, &mut w.title);
        for n in &mut w.nodes {
            for s in [
                &mut n.role,
                &mut n.name,
                &mut n.dom_id,
                &mut n.testid,
                &mut n.name_attr,
                &mut n.text,
                &mut n.href,
                &mut n.input_type,
                &mut n.placeholder,
                &mut n.autocomplete,
                &mut n.state.value,
            ]
            .into_iter()
            .flatten()
            {
                redact_in(t, &o, s);
            }
            redact_in(t, &o, &mut n.tag);
        }
    }

    /// Forgets the per-tab sets of tabs that no longer exist (they hold copies of secrets).
    /// The per-site sets stay: the site may still show the value in a tab opened later.
    pub fn retain_tabs(&self, live: &[TabId]) {
        self.taint
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .tabs
            .retain(|id, _| live.iter().any(|l| l.0 == *id));
    }
}

fn page_origin(url: &str) -> Origin {
    origin_of(url).unwrap_or_else(|| Origin::parse(OPAQUE_ORIGIN).expect("a valid constant origin"))
}

fn field_word(f: FillField) -> &'static str {
    match f {
        FillField::Username => "username",
        FillField::Password => "password",
        FillField::OneTimeCode => "one-time code",
    }
}

fn part(f: FillField) -> LoginPart {
    match f {
        FillField::Username => LoginPart::Username,
        FillField::Password => LoginPart::Password,
        FillField::OneTimeCode => LoginPart::OneTimeCode,
    }
}

async fn element(
    tab: &crate::tab::Tab,
    id: TabId,
    t: VaultTarget,
    op: aperture_engine::protocol::ElementOp,
) -> BackendResult<()> {
    tab.element(t.walk_id, t.idx, op)
        .await
        .map(|_| ())
        .map_err(|e| match e {
            crate::tab::TabError::Walker(w) => BackendError::from_walker(t.walk_id, w),
            other => tab_err(id, other),
        })
}

/// Focuses `t`'s field and checks focus stayed there: a focus handler can move it (a popup, a
/// re-render), and then nothing may be typed.
async fn focus(tab: &crate::tab::Tab, id: TabId, t: VaultTarget) -> BackendResult<()> {
    use aperture_engine::protocol::ElementOp;
    element(tab, id, t, ElementOp::Focus).await?;
    let check = tab
        .element(t.walk_id, t.idx, ElementOp::Focused)
        .await
        .map_err(|e| match e {
            crate::tab::TabError::Walker(w) => BackendError::from_walker(t.walk_id, w),
            other => tab_err(id, other),
        })?;
    match check.focus {
        // Counts are left out: a fill's would be a secret's length.
        Some(went) => Err(BackendError::FocusMoved {
            typed: 0,
            total: 0,
            went: went.line(),
        }),
        None => Ok(()),
    }
}

/// A fill that stopped before typing anything into `field` (emptied first when `emptied`),
/// after filling `filled` whole.
fn stopped(filled: &[&str], field: &str, emptied: bool, why: BackendError) -> BackendError {
    BackendError::FillStopped {
        filled: filled.iter().map(|f| f.to_string()).collect(),
        stopped: field.to_string(),
        emptied,
        why: Box::new(why),
    }
}

#[cfg(test)]
impl VaultWiring {
    /// A wiring whose vault is served by a thread of this (test) process: the test binary
    /// has no vault-process subcommand. The protocol is the same.
    pub(crate) fn served_in_thread(profile: &Path) -> Arc<VaultWiring> {
        let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let path = vault_path(profile);
        std::thread::spawn(move || aperture_vault::remote::serve(&path, &mut theirs));
        load_with(profile, RemoteVault::over(ours), None, &[]).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_redaction_covers_values_and_names() {
        let dir = std::env::temp_dir().join(format!("aperture-vault-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let w = VaultWiring::served_in_thread(&dir);
        let v = w.remote();
        v.create("pw", aperture_vault::remote::KdfChoice::InsecureFastForTests)
            .unwrap();
        let origin = Origin::parse("http://127.0.0.1:9").unwrap();
        v.add_entry(NewEntry {
            origin: &origin,
            label: "L",
            username: "ada.lovelace",
            password: "correct-horse".into(),
            totp: None,
        })
        .unwrap();
        let e = v.entries_for_origin(&origin).unwrap();
        let g = v.request_fill(&e[0].id, &origin, FillTarget::Login).unwrap();
        let fill = v
            .redeem(g, &origin, &[LoginPart::Username, LoginPart::Password])
            .unwrap();
        let user = v.fill_value(fill, &origin, LoginPart::Username).unwrap();
        let pass = v.fill_value(fill, &origin, LoginPart::Password).unwrap();
        assert!(!w.tainted(TabId(1), ""));
        // What `fill` records for a fill into tab 1, in the default container.
        w.taint_values(TabId(1), "", [user.as_str(), pass.as_str()].into_iter(), &origin);
        let mut walk = Walk {
            url: "http://127.0.0.1:9/hi?u=ada.lovelace".into(),
            title: "Welcome ada.lovelace".into(),
            ..Default::default()
        };
        walk.nodes.push(aperture_engine::record::NodeRecord {
            tag: "input".into(),
            name: Some("User ada.lovelace".into()),
            state: aperture_engine::record::State {
                value: Some("ada.lovelace".into()),
                ..Default::default()
            },
            ..Default::default()
        });
        let mut walk_b = walk.clone();
        w.redact_walk_in(TabId(1), "", &mut walk);
        let all = serde_json::to_string(&walk).unwrap();
        assert!(!all.contains("ada.lovelace"), "{all}");
        assert!(all.contains(aperture_vault::REDACTION_MARKER));
        // Another tab of the same site in the same container: redacted too (the site may have
        // kept the value and shows it there).
        w.redact_walk_in(TabId(2), "", &mut walk_b);
        let all = serde_json::to_string(&walk_b).unwrap();
        assert!(
            !all.contains("ada.lovelace"),
            "tab 2, same site and container: {all}"
        );
        let redacted = |id: u64, container: &str, url: &str| {
            let mut s = "ada.lovelace".to_string();
            w.redact(TabId(id), container, url, &mut s);
            s != "ada.lovelace"
        };
        assert!(redacted(2, "", "http://127.0.0.1:9/other"));
        // Another container (separate storage) or another site: untouched.
        assert!(!redacted(2, "work", "http://127.0.0.1:9"));
        assert!(!redacted(2, "", "http://localhost:9"));
        // The filled tab itself is covered wherever it goes.
        assert!(redacted(1, "", "about:blank"));
        // Closing the filled tab drops its own set, not the site's.
        w.retain_tabs(&[TabId(2)]);
        assert!(!redacted(1, "", "about:blank"));
        assert!(redacted(3, "", "http://127.0.0.1:9/later"));
        assert!(w.tainted(TabId(3), "") && !w.tainted(TabId(3), "work"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
