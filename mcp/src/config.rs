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
