//! Importing logins from the CSV files other password managers export.
//!
//! Chrome (`name,url,username,password[,note]`), Firefox (`url,username,password,httpRealm,
//! formActionOrigin,guid,…`) and Bitwarden (`folder,favorite,type,name,notes,fields,reprompt,
//! login_uri,login_username,login_password,login_totp`, or `collections,…` for an
//! organisation) are told apart by their header row.
//!
//! Import is two steps so that nothing is ever half-imported. [`CsvImport::parse`] reads the
//! whole file and sorts every record into a login that can be saved or a [`RowProblem`] (line
//! and reason); nothing is written. The human sees both lists, and
//! [`crate::Vault::import_logins`] then saves every ready login in one vault write: all of them
//! or, if that write fails, none. A record is never imported in part (a login whose two-factor
//! seed does not parse is a problem row, not a login without its seed).
//!
//! The parser is RFC 4180 (quoted fields, `""` escapes, line breaks inside quotes, CRLF or LF,
//! a UTF-8 byte-order mark), written here because the file holds every password in clear and
//! each field is wiped after use.

use zeroize::Zeroizing;

use crate::origin::Origin;
use crate::secret::SecretString;
use crate::totp::Totp;

/// Largest file accepted. Exports of thousands of logins are well under a megabyte.
pub const MAX_CSV_BYTES: usize = 16 * 1024 * 1024;

/// Which password manager wrote the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvFormat {
    /// Chrome, Edge, Brave and other Chromium browsers ("Export passwords").
    Chrome,
    /// Firefox ("Export logins").
    Firefox,
    /// Bitwarden ("Export vault", `.csv`), personal or organisation.
    Bitwarden,
}

impl CsvFormat {
    /// The name to show the human.
    pub fn name(self) -> &'static str {
        match self {
            CsvFormat::Chrome => "Chrome",
            CsvFormat::Firefox => "Firefox",
            CsvFormat::Bitwarden => "Bitwarden",
        }
    }
}

/// Why a file cannot be imported at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// Nothing in the file.
    #[error("the file is empty")]
    Empty,
    /// Larger than [`MAX_CSV_BYTES`].
    #[error("the file is larger than {} MiB; that is not a password export", MAX_CSV_BYTES / (1024 * 1024))]
    TooLarge,
    /// The header is not one of the known exports.
    #[error(
        "not a Chrome, Firefox or Bitwarden password export (the first line should name columns \
         such as url, username and password; found: {0})"
    )]
    UnknownFormat(String),
    /// A quoted field never ends: the file was cut off or is not CSV.
    #[error("line {0}: a quoted field is never closed (the file may be cut off)")]
    UnclosedQuote(usize),
}

/// A record that will not be imported, and why. The reason never contains a field's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowProblem {
    /// Line of the file the record starts on (the header is line 1).
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// One login ready to be saved.
pub(crate) struct ImportedLogin {
    pub origin: Origin,
    pub label: String,
    pub username: String,
    pub password: SecretString,
    pub notes: SecretString,
    pub totp: Option<Totp>,
}

/// A parsed export: logins ready to save and the records that are not. Holds passwords (wiped
/// on drop); `Debug` shows counts only.
pub struct CsvImport {
    format: CsvFormat,
    pub(crate) logins: Vec<ImportedLogin>,
    problems: Vec<RowProblem>,
}

impl std::fmt::Debug for CsvImport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CsvImport")
            .field("format", &self.format)
            .field("logins", &self.logins.len())
            .field("problems", &self.problems)
            .finish()
    }
}

/// What [`crate::Vault::import_logins`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportOutcome {
    /// New entries saved.
    pub added: usize,
    /// Logins already in the vault (same site, username and password), or repeated in the
    /// file, and so not added again.
    pub duplicates: usize,
}

/// Column positions of the fields we use.
struct Columns {
    format: CsvFormat,
    url: usize,
    username: usize,
    password: usize,
    label: Option<usize>,
    notes: Option<usize>,
    totp: Option<usize>,
    /// Bitwarden's item type: only `login` items are logins.
    kind: Option<usize>,
}

impl Columns {
    fn detect(header: &[String]) -> Option<Columns> {
        let names: Vec<String> = header.iter().map(|h| h.trim().to_ascii_lowercase()).collect();
        let at = |n: &str| names.iter().position(|h| h == n);
        if let (Some(url), Some(username), Some(password), Some(kind)) = (
            at("login_uri"),
            at("login_username"),
            at("login_password"),
            at("type"),
        ) {
            return Some(Columns {
                format: CsvFormat::Bitwarden,
                url,
                username,
                password,
                label: at("name"),
                notes: at("notes"),
                totp: at("login_totp"),
                kind: Some(kind),
            });
        }
        let (url, username, password) = (at("url")?, at("username")?, at("password")?);
        // Firefox's own columns; Chrome's export has `name` and at most a `note`.
        let firefox = at("httprealm").is_some() || at("formactionorigin").is_some() || at("guid").is_some();
        Some(Columns {
            format: if firefox {
                CsvFormat::Firefox
            } else {
                CsvFormat::Chrome
            },
            url,
            username,
            password,
            label: at("name"),
            notes: at("note").or_else(|| at("notes")),
            totp: None,
            kind: None,
        })
    }
}

impl CsvImport {
    /// Parses an export. Fails only when the file as a whole is unusable; bad records are
    /// collected in [`CsvImport::problems`].
    pub fn parse(text: &str) -> Result<CsvImport, ImportError> {
        if text.len() > MAX_CSV_BYTES {
            return Err(ImportError::TooLarge);
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let records = parse_records(text)?;
        let mut it = records.into_iter().filter(|(_, r)| !is_blank(r));
        let (_, header) = it.next().ok_or(ImportError::Empty)?;
        let cols = Columns::detect(&header).ok_or_else(|| {
            let mut shown: String = header.join(",").chars().take(80).collect();
            if shown.is_empty() {
                shown = "an empty line".into();
            }
            ImportError::UnknownFormat(shown)
        })?;
        let mut out = CsvImport {
            format: cols.format,
            logins: Vec::new(),
            problems: Vec::new(),
        };
        for (line, rec) in it {
            match login(&cols, header.len(), &rec) {
                Ok(l) => out.logins.push(l),
                Err(reason) => out.problems.push(RowProblem { line, reason }),
            }
        }
        Ok(out)
    }

    /// Which password manager wrote the file.
    pub fn format(&self) -> CsvFormat {
        self.format
    }

    /// How many logins are ready to save.
    pub fn ready(&self) -> usize {
        self.logins.len()
    }

    /// The records that will not be imported.
    pub fn problems(&self) -> &[RowProblem] {
        &self.problems
    }
}

fn is_blank(rec: &[String]) -> bool {
    rec.iter().all(|f| f.trim().is_empty())
}

/// One record as a login, or the reason it is not one.
fn login(cols: &Columns, width: usize, rec: &[String]) -> Result<ImportedLogin, String> {
    let field = |i: usize| rec.get(i).map(|s| s.as_str()).unwrap_or("");
    let needed = [cols.url, cols.username, cols.password]
        .into_iter()
        .chain(cols.kind)
        .max()
        .unwrap_or(0);
    if rec.len() <= needed {
        return Err(format!(
            "has {} field{} where the header names {width}",
            rec.len(),
            if rec.len() == 1 { "" } else { "s" }
        ));
    }
    if let Some(k) = cols.kind {
        let kind = field(k).trim();
        // Bitwarden writes the type as a word; older exports used its number (1 = login).
        if !(kind.eq_ignore_ascii_case("login") || kind == "1") {
            return Err(format!(
                "a Bitwarden {} item, not a login",
                if kind.is_empty() { "untyped" } else { kind }
            ));
        }
    }
    let url_field = field(cols.url).trim();
    if url_field.is_empty() {
        return Err("has no web address".into());
    }
    // Bitwarden puts every URI of an item in the one column; the first web one is the login's.
    let origin = url_field
        .split([',', '\n'])
        .map(str::trim)
        .find_map(|u| {
            Origin::parse(u).ok().or_else(|| {
                Origin::parse(&format!("https://{u}"))
                    .ok()
                    .filter(|_| !u.contains("://"))
            })
        })
        .ok_or_else(|| {
            let scheme = url_field.split(':').next().unwrap_or("");
            if url_field.contains("://") && !scheme.is_empty() && scheme.len() < 20 {
                format!("its address is not a web page ({scheme}:)")
            } else {
                "its address is not a web address".to_string()
            }
        })?;
    let password = field(cols.password);
    if password.is_empty() {
        return Err("has no password".into());
    }
    let totp = match cols.totp.map(field).map(str::trim).filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => Some(
            if t.to_ascii_lowercase().starts_with("otpauth://") {
                Totp::from_uri(t)
            } else {
                Totp::from_base32(t)
            }
            .map_err(|_| "its two-factor seed is not an otpauth:// URI or base32 secret".to_string())?,
        ),
    };
    let label = cols
        .label
        .map(field)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| origin.host().to_owned());
    Ok(ImportedLogin {
        origin,
        label,
        username: field(cols.username).trim().to_owned(),
        password: SecretString::new(password),
        notes: SecretString::new(cols.notes.map(field).unwrap_or("")),
        totp,
    })
}

/// A record's fields, wiped when it is dropped.
type Record = Zeroizing<Vec<String>>;

/// Records with the line each starts on.
fn parse_records(text: &str) -> Result<Vec<(usize, Record)>, ImportError> {
    let mut out = Vec::new();
    let mut rec: Record = Zeroizing::new(Vec::new());
    let mut field = Zeroizing::new(String::new());
    let mut chars = text.chars().peekable();
    let mut line = 1;
    let mut start = 1;
    let mut in_quotes = false;
    let mut quote_line = 0;
    // A field that started with a quote: text after its closing quote is kept as written
    // (lenient, like the exporters' own readers), but it is no longer quoted.
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                '\n' => {
                    line += 1;
                    field.push('\n');
                }
                '\r' if chars.peek() == Some(&'\n') => {}
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => {
                in_quotes = true;
                quote_line = line;
            }
            ',' => rec.push(std::mem::take(&mut *field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                rec.push(std::mem::take(&mut *field));
                out.push((start, std::mem::replace(&mut rec, Zeroizing::new(Vec::new()))));
                line += 1;
                start = line;
            }
            _ => field.push(c),
        }
    }
    if in_quotes {
        return Err(ImportError::UnclosedQuote(quote_line));
    }
    if !field.is_empty() || !rec.is_empty() {
        rec.push(std::mem::take(&mut *field));
        out.push((start, rec));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> Vec<(usize, Vec<String>)> {
        parse_records(text)
            .unwrap()
            .into_iter()
            .map(|(l, r)| (l, r.to_vec()))
            .collect()
    }

    #[test]
    fn rfc4180_quoting_line_breaks_and_line_numbers() {
        let got = fields("a,b\r\n\"x,1\",\"say \"\"hi\"\"\"\n\"multi\nline\",z\nlast,\n");
        assert_eq!(
            got,
            vec![
                (1, vec!["a".into(), "b".into()]),
                (2, vec!["x,1".into(), "say \"hi\"".into()]),
                (3, vec!["multi\nline".into(), "z".into()]),
                (5, vec!["last".into(), "".into()]),
            ]
        );
        // No final newline; a lone CR ends a record too (old Mac exports).
        assert_eq!(
            fields("a,b\rc,d"),
            vec![
                (1, vec!["a".into(), "b".into()]),
                (2, vec!["c".into(), "d".into()])
            ]
        );
        assert_eq!(
            parse_records("a,\"open\nb,c\n").unwrap_err(),
            ImportError::UnclosedQuote(1)
        );
    }

    #[test]
    fn headers_pick_the_format() {
        let chrome = CsvImport::parse("name,url,username,password,note\n").unwrap();
        assert_eq!(chrome.format(), CsvFormat::Chrome);
        let old_chrome = CsvImport::parse("name,url,username,password\n").unwrap();
        assert_eq!(old_chrome.format(), CsvFormat::Chrome);
        let ff = CsvImport::parse(
            "\"url\",\"username\",\"password\",\"httpRealm\",\"formActionOrigin\",\"guid\",\"timeCreated\",\"timeLastUsed\",\"timePasswordChanged\"\n",
        )
        .unwrap();
        assert_eq!(ff.format(), CsvFormat::Firefox);
        let bw = CsvImport::parse(
            "\u{feff}folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n",
        )
        .unwrap();
        assert_eq!(bw.format(), CsvFormat::Bitwarden);
        let org = CsvImport::parse(
            "collections,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n",
        )
        .unwrap();
        assert_eq!(org.format(), CsvFormat::Bitwarden);
        assert!(matches!(
            CsvImport::parse("title,website,secret\nx,y,z\n"),
            Err(ImportError::UnknownFormat(h)) if h.starts_with("title,website")
        ));
        assert_eq!(CsvImport::parse("\n\n").unwrap_err(), ImportError::Empty);
        assert_eq!(CsvImport::parse("").unwrap_err(), ImportError::Empty);
    }

    #[test]
    fn problems_name_the_line_and_never_the_value() {
        let csv = "name,url,username,password,note\n\
                   Good,https://a.example.com/login,ada,pw-ok-1,\n\
                   NoPass,https://b.example.com/,bob,,\n\
                   NoUrl,,carol,pw-secret-2,\n\
                   App,android://hash@com.example/,dan,pw-secret-3,\n\
                   Short,https://c.example.com/\n\
                   Bare,d.example.com,erin,pw-ok-4,\n";
        let imp = CsvImport::parse(csv).unwrap();
        assert_eq!(imp.ready(), 2);
        let p: Vec<(usize, &str)> = imp
            .problems()
            .iter()
            .map(|p| (p.line, p.reason.as_str()))
            .collect();
        assert_eq!(
            p,
            vec![
                (3, "has no password"),
                (4, "has no web address"),
                (5, "its address is not a web page (android:)"),
                (6, "has 2 fields where the header names 5"),
            ]
        );
        let dbg = format!("{imp:?}");
        assert!(!dbg.contains("pw-"), "{dbg}");
        // A bare host is taken as https.
        assert_eq!(imp.logins[1].origin.to_string(), "https://d.example.com");
    }

    #[test]
    fn bitwarden_items_that_are_not_logins_and_bad_seeds_are_problems() {
        let csv = "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n\
                   ,,note,My note,secret text,,0,,,,\n\
                   ,1,login,Mail,\"two\nlines\",,0,\"androidapp://x,https://mail.example.org\",ada,pw-1,JBSWY3DPEHPK3PXP\n\
                   ,,login,Bank,,,0,https://bank.example,bob,pw-2,not a seed!\n\
                   ,,card,Visa,,,0,,,,\n";
        let imp = CsvImport::parse(csv).unwrap();
        assert_eq!(imp.ready(), 1);
        let l = &imp.logins[0];
        assert_eq!(
            (l.label.as_str(), l.origin.to_string(), l.totp.is_some()),
            ("Mail", "https://mail.example.org".into(), true)
        );
        let p: Vec<(usize, &str)> = imp
            .problems()
            .iter()
            .map(|p| (p.line, p.reason.as_str()))
            .collect();
        assert_eq!(
            p,
            vec![
                (2, "a Bitwarden note item, not a login"),
                (5, "its two-factor seed is not an otpauth:// URI or base32 secret"),
                (6, "a Bitwarden card item, not a login"),
            ]
        );
    }

    fn temp_vault(tag: &str) -> (std::path::PathBuf, crate::Vault) {
        let dir = std::env::temp_dir().join(format!("apv-import-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let v = crate::Vault::create_with_params(
            dir.join("v.vault"),
            "pw",
            crate::KdfParams::insecure_fast_for_tests(),
        )
        .unwrap();
        (dir, v)
    }

    #[test]
    fn import_saves_ready_logins_once_and_skips_duplicates() {
        let (dir, v) = temp_vault("dups");
        let csv = "name,url,username,password\n\
                   A,https://a.example.com/,ada,pw-1\n\
                   A again,https://www.a.example.com/x,ada,pw-1\n\
                   B,https://b.example.net/,bob,pw-2\n";
        let gen0 = v.generation().unwrap();
        let out = v.import_logins(CsvImport::parse(csv).unwrap()).unwrap();
        assert_eq!(
            out,
            ImportOutcome {
                added: 2,
                duplicates: 1
            }
        );
        assert_eq!(
            v.generation().unwrap(),
            gen0 + 1,
            "one write for the whole import"
        );
        let again = v.import_logins(CsvImport::parse(csv).unwrap()).unwrap();
        assert_eq!(
            again,
            ImportOutcome {
                added: 0,
                duplicates: 3
            }
        );
        let mut sites: Vec<String> = v.entries().unwrap().into_iter().map(|e| e.site).collect();
        sites.sort();
        assert_eq!(sites, ["https://example.com", "https://example.net"]);
        let b = v.entries().unwrap().into_iter().find(|e| e.label == "B").unwrap();
        assert_eq!(v.reveal_for_human(&b.id).unwrap().password(), "pw-2");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_failed_save_imports_nothing() {
        let (dir, v) = temp_vault("fail");
        // The vault file's place taken by a directory: the atomic rename fails (even as root).
        std::fs::remove_file(dir.join("v.vault")).unwrap();
        std::fs::create_dir(dir.join("v.vault")).unwrap();
        let csv = "name,url,username,password\nA,https://a.example.com/,ada,pw-1\nB,https://b.example.net/,bob,pw-2\n";
        assert!(v.import_logins(CsvImport::parse(csv).unwrap()).is_err());
        assert!(v.entries().unwrap().is_empty(), "half an import stayed in memory");
        std::fs::remove_dir_all(&dir).ok();
    }
}
