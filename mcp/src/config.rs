//! How a client learns where the listener is and what token to present: the ready-to-paste
//! `claude mcp add` line, and the same configuration as `mcp.json` in the user's config dir.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::auth::Token;

/// The server name clients register Aperture under.
pub const SERVER_NAME: &str = "aperture";

/// The URL of the MCP endpoint for a listener bound at `addr`.
pub fn endpoint_url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

/// The `claude mcp add` command that registers this launch's listener with Claude Code.
pub fn claude_add_line(addr: SocketAddr, token: &Token) -> String {
    format!(
        "claude mcp add --transport http {SERVER_NAME} {} -H \"Authorization: Bearer {}\"",
        endpoint_url(addr),
        token.expose()
    )
}

/// The same registration as [`claude_add_line`], in the `mcpServers` JSON shape that Claude
/// Code's `--mcp-config` and most MCP hosts read.
pub fn mcp_json(addr: SocketAddr, token: &Token) -> serde_json::Value {
    serde_json::json!({
        "mcpServers": {
            SERVER_NAME: {
                "type": "http",
                "url": endpoint_url(addr),
                "headers": { "Authorization": format!("Bearer {}", token.expose()) }
            }
        }
    })
}

/// `$XDG_CONFIG_HOME/aperture`, else `$HOME/.config/aperture` (a relative `XDG_CONFIG_HOME` is
/// invalid per the spec and ignored).
pub fn config_dir() -> Option<PathBuf> {
    aperture_common::xdg::config_dir()
}

/// Writes `mcp.json` for this launch into [`config_dir`] and returns its path.
pub fn write_mcp_json(addr: SocketAddr, token: &Token) -> io::Result<PathBuf> {
    let dir = config_dir()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "neither XDG_CONFIG_HOME nor HOME is set"))?;
    write_mcp_json_in(&dir, addr, token)
}

/// The name a profile's entry has in `mcp.json`: `aperture` for the default profile,
/// `aperture-<dir name>` for any other, so two browsers on two profiles keep an entry each.
pub fn server_name_for(profile: &Path, default_profile: Option<&Path>) -> String {
    if default_profile.is_some_and(|d| d == profile) {
        return SERVER_NAME.to_string();
    }
    let base: String = profile
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    if base.is_empty() {
        SERVER_NAME.to_string()
    } else {
        format!("{SERVER_NAME}-{base}")
    }
}

/// Sets one server's entry in `dir/mcp.json`, keeping every other entry (another profile's
/// browser, or servers the human added by hand). A file that is not JSON is kept aside as
/// `mcp.json.damaged` rather than overwritten silently.
pub fn write_mcp_json_entry(dir: &Path, name: &str, addr: SocketAddr, token: &Token) -> io::Result<PathBuf> {
    let path = dir.join("mcp.json");
    let mut doc = match std::fs::read(&path) {
        Ok(b) => match serde_json::from_slice::<serde_json::Value>(&b) {
            Ok(v) if v.is_object() => v,
            _ => {
                std::fs::rename(&path, dir.join("mcp.json.damaged"))?;
                serde_json::json!({})
            }
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => serde_json::json!({}),
        Err(e) => return Err(e),
    };
    let entry = mcp_json(addr, token)["mcpServers"][SERVER_NAME].clone();
    let servers = doc
        .as_object_mut()
        .expect("object")
        .entry("mcpServers")
        .or_insert_with(|| serde_json::json!({}));
    if !servers.is_object() {
        *servers = serde_json::json!({});
    }
    servers
        .as_object_mut()
        .expect("object")
        .insert(name.to_string(), entry);
    let mut body = serde_json::to_vec_pretty(&doc).map_err(io::Error::other)?;
    body.push(b'\n');
    aperture_common::fs::write_atomic(&path, &body)?;
    Ok(path)
}

/// What a profile remembers about its MCP listener (`<profile>/mcp-endpoint.json`, 0600):
/// the port and token it used last, so a host registered once keeps working after a restart,
/// and so `aperture mcp` can bridge stdio to the browser running there. Deleting the file
/// makes the next launch choose a new token.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProfileEndpoint {
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The port (kept apart from `url` so a launch can ask for it again).
    pub port: u16,
    /// The bearer token.
    pub token: String,
}

/// The file [`ProfileEndpoint`] lives in.
pub fn profile_endpoint_path(profile: &Path) -> PathBuf {
    profile.join("mcp-endpoint.json")
}

/// Reads a profile's [`ProfileEndpoint`]; `Ok(None)` when it has none yet.
pub fn read_profile_endpoint(profile: &Path) -> io::Result<Option<ProfileEndpoint>> {
    match std::fs::read(profile_endpoint_path(profile)) {
        Ok(b) => serde_json::from_slice(&b)
            .map(Some)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("mcp-endpoint.json: {e}"))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Records the listener of this launch in the profile (0600, atomic).
pub fn write_profile_endpoint(profile: &Path, addr: SocketAddr, token: &Token) -> io::Result<PathBuf> {
    let e = ProfileEndpoint {
        url: endpoint_url(addr),
        port: addr.port(),
        token: token.expose().to_string(),
    };
    let path = profile_endpoint_path(profile);
    let mut body = serde_json::to_vec_pretty(&e).map_err(io::Error::other)?;
    body.push(b'\n');
    aperture_common::fs::write_atomic(&path, &body)?;
    Ok(path)
}

/// Writes `mcp.json` into `dir` (created 0700 if missing) and returns its path.
///
/// The file holds a live credential, so it goes through [`aperture_common::fs::write_atomic`]:
/// created 0600 from the first byte (never chmod-ed after the fact) and replaced atomically (a
/// temp file in the same directory, fsync-ed, then renamed over the old one), so a reader sees
/// the old token or the new one, never a torn file.
pub fn write_mcp_json_in(dir: &Path, addr: SocketAddr, token: &Token) -> io::Result<PathBuf> {
    let path = dir.join("mcp.json");
    let mut body = serde_json::to_vec_pretty(&mcp_json(addr, token)).map_err(io::Error::other)?;
    body.push(b'\n');
    aperture_common::fs::write_atomic(&path, &body)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn claude_line_is_ready_to_paste() {
        let addr: SocketAddr = "127.0.0.1:8817".parse().unwrap();
        let line = claude_add_line(addr, &Token::from_string("abc"));
        assert_eq!(
            line,
            "claude mcp add --transport http aperture http://127.0.0.1:8817/mcp \
             -H \"Authorization: Bearer abc\""
        );
    }

    #[test]
    fn each_profile_keeps_its_own_entry() {
        let dir = tempfile::tempdir().unwrap();
        let a: SocketAddr = "127.0.0.1:8817".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:40001".parse().unwrap();
        let def = Path::new("/home/u/.local/share/aperture/profiles/default");
        let work = Path::new("/tmp/work profile");
        assert_eq!(server_name_for(def, Some(def)), "aperture");
        let name = server_name_for(work, Some(def));
        assert_eq!(name, "aperture-work-profile");
        // A server the human added by hand survives too.
        fs::write(
            dir.path().join("mcp.json"),
            r#"{"mcpServers":{"other":{"command":"x"}}}"#,
        )
        .unwrap();
        write_mcp_json_entry(dir.path(), "aperture", a, &Token::from_string("one")).unwrap();
        let p = write_mcp_json_entry(dir.path(), &name, b, &Token::from_string("two")).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&fs::read(&p).unwrap()).unwrap();
        assert_eq!(
            v["mcpServers"]["aperture"]["headers"]["Authorization"],
            "Bearer one"
        );
        assert_eq!(v["mcpServers"][&name]["url"], "http://127.0.0.1:40001/mcp");
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        // Not JSON: kept aside, not lost.
        fs::write(&p, b"{oops").unwrap();
        write_mcp_json_entry(dir.path(), "aperture", a, &Token::from_string("three")).unwrap();
        assert_eq!(fs::read(dir.path().join("mcp.json.damaged")).unwrap(), b"{oops");
    }

    #[test]
    fn the_profile_remembers_port_and_token() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_profile_endpoint(dir.path()).unwrap(), None);
        let a: SocketAddr = "127.0.0.1:40002".parse().unwrap();
        let p = write_profile_endpoint(dir.path(), a, &Token::from_string("tok")).unwrap();
        assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        let e = read_profile_endpoint(dir.path()).unwrap().unwrap();
        assert_eq!(
            (e.port, e.token.as_str(), e.url.as_str()),
            (40002, "tok", "http://127.0.0.1:40002/mcp")
        );
        fs::write(&p, b"nonsense").unwrap();
        let err = read_profile_endpoint(dir.path()).unwrap_err();
        assert!(err.to_string().contains("mcp-endpoint.json"), "{err}");
    }

    #[test]
    fn mcp_json_is_private_and_replaced_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("aperture");
        let addr: SocketAddr = "127.0.0.1:8817".parse().unwrap();
        let path = write_mcp_json_in(&sub, addr, &Token::from_string("one")).unwrap();
        let path2 = write_mcp_json_in(&sub, addr, &Token::from_string("two")).unwrap();
        assert_eq!(path, path2);
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let v: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(
            v["mcpServers"]["aperture"]["headers"]["Authorization"],
            "Bearer two"
        );
        assert_eq!(v["mcpServers"]["aperture"]["url"], "http://127.0.0.1:8817/mcp");
        let leftovers: Vec<_> = fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("mcp.json")]);
    }
}
