//! `vault_request_fill`: the browser types a saved login into fields the agent points at.
//!
//! This is the only way the agent uses a credential, and it never sees one: the MCP layer
//! passes an opaque entry id and element addresses down, the browser resolves the page's
//! origin, checks the human's consent, types the values with trusted key events and taints
//! them so every later read of the page is redacted. The answer is which refs were filled
//! plus the usual diff (whose filled values are already redacted). There is no argument that
//! names an origin or overrides a refusal.

use aperture_engine::record::NodeRecord;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::act::StepFail;
use crate::backend::{BackendError, FillField, VaultTarget};
use crate::server::{Aperture, CALL_TIMEOUT, Reply, call, resolve};

const DESCRIPTION: &str = "Have the browser fill a saved vault login into the current page: \
`entry` is an id from vault_entries_for_origin; `username` and/or `password` are the refs of \
those fields (either alone works for two-step sign-ins), or `one_time_code` alone is the ref of \
a two-factor code field. The browser checks that the entry belongs to the page's own site and \
that the human allowed fills there, then focuses, clears and types into each field. You get \
back which refs were filled and the diff; the values never appear in any result (filled values \
read back from the page show as [redacted:vault]). A refusal is final for this page: there is \
no override. Does not submit. Sign-ups: `generate_password: true` instead of `entry` creates, \
saves and types a new password. Uploads: `attachment` (a library file id) and `file_input` (a \
file input's ref). A sign-in the browser asks for (HTTP authentication, no page fields): \
`entry` alone answers it.";

/// Arguments of `vault_request_fill`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VaultFillArgs {
    /// Tab id; your current tab when omitted.
    pub tab: Option<u64>,
    /// Entry id from vault_entries_for_origin; omitted with `generate_password`.
    pub entry: Option<String>,
    /// Ref of the username (or email) field.
    pub username: Option<String>,
    /// Ref of the password field (an input of type password).
    pub password: Option<String>,
    /// Ref of a one-time-code field; not combined with username or password.
    pub one_time_code: Option<String>,
    /// Create a new password (no `entry`).
    pub generate_password: Option<bool>,
    /// Ref of the confirm-password field.
    pub confirm_password: Option<String>,
    /// Library file id to upload.
    pub attachment: Option<String>,
    /// Ref of the file input.
    pub file_input: Option<String>,
}

#[tool_router(router = vault_fill_router, vis = "pub(crate)")]
impl Aperture {
    #[tool(
        name = "vault_request_fill",
        description = DESCRIPTION,
        input_schema = super::schema::input::<VaultFillArgs>(),
        annotations(
            title = "Fill a vault login",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn vault_request_fill(
        &self,
        Parameters(args): Parameters<VaultFillArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.vault_fill(args).await.into_result())
    }
}

fn field_name(f: FillField) -> &'static str {
    match f {
        FillField::Username => "username",
        FillField::Password => "password",
        FillField::OneTimeCode => "one-time code",
    }
}

/// The fields asked for, in typing order, or why the request is unusable.
fn wanted(args: &VaultFillArgs) -> Result<Vec<(FillField, String)>, String> {
    let mut out = Vec::new();
    if let Some(r) = &args.username {
        out.push((FillField::Username, r.trim().to_owned()));
    }
    if let Some(r) = &args.password {
        out.push((FillField::Password, r.trim().to_owned()));
    }
    if let Some(r) = &args.one_time_code {
        if !out.is_empty() {
            return Err("`one_time_code` is filled on its own, not with `username` or `password`".into());
        }
        out.push((FillField::OneTimeCode, r.trim().to_owned()));
    }
    if out.is_empty() {
        return Err("name at least one field: `username`, `password` or `one_time_code`".into());
    }
    if out.len() == 2 && out[0].1 == out[1].1 {
        return Err("`username` and `password` must be different fields".into());
    }
    Ok(out)
}

/// Whether `rec` may receive `field`. A password goes only into a password input, so a page
/// cannot have the agent type it into a visible text box (which every later read would echo
/// until redaction catches it, and which the page might label misleadingly).
fn suitable(field: FillField, rec: &NodeRecord) -> Result<(), &'static str> {
    let ty = rec.input_type.as_deref().unwrap_or("").to_ascii_lowercase();
    if !rec.editable || rec.state.disabled || rec.state.readonly {
        return Err("is not an editable field");
    }
    match field {
        FillField::Password if ty != "password" => Err("is not a password input"),
        FillField::Username | FillField::OneTimeCode if ty == "password" => {
            Err("is a password input; pass it as `password`")
        }
        _ => Ok(()),
    }
}

/// A generate request's refs: the password fields in typing order, and the username field
/// whose value is saved, or why the request is unusable.
fn wanted_generate(args: &VaultFillArgs) -> Result<(Vec<String>, Option<String>), String> {
    if args.entry.is_some() {
        return Err("`generate_password` creates a new entry: leave out `entry`".into());
    }
    if args.one_time_code.is_some() {
        return Err("`generate_password` does not take `one_time_code`".into());
    }
    let Some(p) = &args.password else {
        return Err("`generate_password` needs `password`: the ref of the new password field".into());
    };
    let mut fields = vec![p.trim().to_owned()];
    if let Some(c) = &args.confirm_password {
        if c.trim() == fields[0] {
            return Err("`confirm_password` must be another field than `password`".into());
        }
        fields.push(c.trim().to_owned());
    }
    Ok((fields, args.username.as_ref().map(|u| u.trim().to_owned())))
}

impl Aperture {
    async fn vault_fill(&self, args: VaultFillArgs) -> Reply {
        if args.attachment.is_some() || args.file_input.is_some() {
            return self.vault_upload(args).await;
        }
        if args.generate_password == Some(true) {
            return self.vault_generate(args).await;
        }
        if args.confirm_password.is_some() {
            return Reply::error("`confirm_password` goes with `generate_password: true`");
        }
        let Some(entry) = args.entry.clone() else {
            return Reply::error(
                "name the `entry` to fill (from vault_entries_for_origin), or set `generate_password: true`",
            );
        };
        if args.username.is_none() && args.password.is_none() && args.one_time_code.is_none() {
            return self.vault_sign_in(args.tab, &entry).await;
        }
        let fields = match wanted(&args) {
            Ok(f) => f,
            Err(why) => return Reply::error(why),
        };
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        let mut targets = Vec::new();
        for (field, r) in &fields {
            let (walk_id, rec) = match resolve(&st, r) {
                Ok(x) => x,
                Err(why) => return StepFail::Refused(why).render(Reply::new()).mark_error(),
            };
            if let Err(why) = suitable(*field, &rec) {
                return Reply::error(format!(
                    "{r} {why}, so it cannot take the {} (nothing was filled)",
                    field_name(*field)
                ));
            }
            st.session.touch(r);
            targets.push(VaultTarget {
                field: *field,
                walk_id,
                idx: rec.idx,
            });
        }
        // Focusing, clearing and typing each field is several round trips per field.
        let limit = CALL_TIMEOUT * 2;
        let result = call(self.backend().vault_fill(id, &entry, targets), limit).await;
        let filled = fields
            .iter()
            .map(|(f, r)| format!("{r} ({})", field_name(*f)))
            .collect::<Vec<_>>()
            .join(", ");
        let r = match result {
            Ok(()) => Reply::new().say(format!(
                "filled {filled} from the vault; the values are not shown, and reads of this tab \
                 show them as [redacted:vault]"
            )),
            Err(e @ BackendError::StaleWalk { .. }) => {
                return StepFail::Failed(e)
                    .render(Reply::new().say("nothing was filled:"))
                    .mark_error();
            }
            Err(e) if e.nothing_sent() => {
                // Terminal by design: the same refusal for an unknown id and another site's.
                return Reply::new()
                    .say("nothing was filled:")
                    .backend_error(&e)
                    .mark_error();
            }
            // Known to the field: what was filled, and that nothing went into the rest.
            Err(e @ BackendError::FillStopped { .. }) => Reply::new()
                .say(format!("filling {filled} stopped:"))
                .backend_error(&e)
                .mark_error(),
            Err(e) => StepFail::Unknown(e)
                .render(Reply::new().say(format!("filling {filled}:")))
                .mark_error(),
        };
        let failed = r.is_error();
        let r = self.answer_with_trail(id, &mut st, r, Vec::new()).await;
        if failed { r.mark_error() } else { r }
    }
}

impl Aperture {
    /// `entry` with no fields: the answer to a sign-in the browser asks for.
    async fn vault_sign_in(&self, tab: Option<u64>, entry: &str) -> Reply {
        let id = match self.target(tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        let r = match call(self.backend().vault_sign_in(id, entry), CALL_TIMEOUT * 2).await {
            Ok(()) => Reply::new().say(
                "signed in from the vault: the username and password went to the site asking \
                 (not shown; reads of this tab show them as [redacted:vault]); the server may ask \
                 again if it refuses them",
            ),
            Err(e) if e.nothing_sent() => {
                return Reply::new()
                    .say("nothing was filled:")
                    .backend_error(&e)
                    .mark_error();
            }
            Err(e) => StepFail::Unknown(e)
                .render(Reply::new().say("signing in:"))
                .mark_error(),
        };
        let failed = r.is_error();
        let r = self.answer_with_trail(id, &mut st, r, Vec::new()).await;
        if failed { r.mark_error() } else { r }
    }

    async fn vault_upload(&self, args: VaultFillArgs) -> Reply {
        let (Some(attachment), Some(input)) = (args.attachment.clone(), args.file_input.clone()) else {
            return Reply::error(
                "an upload needs both `attachment` (a library file id) and `file_input` (a ref)",
            );
        };
        if args.entry.is_some()
            || args.username.is_some()
            || args.password.is_some()
            || args.one_time_code.is_some()
            || args.generate_password.is_some()
        {
            return Reply::error("`attachment` goes alone with `file_input`, not with a login fill");
        }
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        let (walk_id, rec) = match resolve(&st, input.trim()) {
            Ok(x) => x,
            Err(why) => return StepFail::Refused(why).render(Reply::new()).mark_error(),
        };
        let is_file = rec.tag == "input"
            && rec
                .input_type
                .as_deref()
                .is_some_and(|t| t.eq_ignore_ascii_case("file"));
        if !is_file || rec.state.disabled {
            return Reply::error(format!(
                "{} is not an enabled file input (<input type=file>), so nothing was attached",
                input.trim()
            ));
        }
        st.session.touch(input.trim());
        let target = VaultTarget {
            field: FillField::Username,
            walk_id,
            idx: rec.idx,
        };
        let limit = CALL_TIMEOUT * 2;
        let r = match call(self.backend().vault_attach(id, &attachment, target), limit).await {
            Ok(f) => Reply::new().say(format!(
                "attached the vault library file {} to {} ({}, {} KB); the page has the file, you \
                 never see its contents",
                f.id,
                input.trim(),
                f.media_type
                    .chars()
                    .filter(|c| !c.is_control())
                    .collect::<String>(),
                f.size.div_ceil(1024)
            )),
            Err(e @ BackendError::StaleWalk { .. }) => {
                return StepFail::Failed(e)
                    .render(Reply::new().say("nothing was attached:"))
                    .mark_error();
            }
            Err(e) if e.nothing_sent() => {
                return Reply::new()
                    .say("nothing was attached:")
                    .backend_error(&e)
                    .mark_error();
            }
            Err(e) => StepFail::Unknown(e)
                .render(Reply::new().say("attaching the file:"))
                .mark_error(),
        };
        let failed = r.is_error();
        let r = self.answer_with_trail(id, &mut st, r, Vec::new()).await;
        if failed { r.mark_error() } else { r }
    }

    pub(crate) async fn vault_generate(&self, args: VaultFillArgs) -> Reply {
        let (fields, username) = match wanted_generate(&args) {
            Ok(f) => f,
            Err(why) => return Reply::error(why),
        };
        let id = match self.target(args.tab).await {
            Ok(id) => id,
            Err(r) => return r,
        };
        let lock = self.tab_state(id);
        let mut st = lock.lock().await;
        let mut targets = Vec::new();
        for r in &fields {
            let (walk_id, rec) = match resolve(&st, r) {
                Ok(x) => x,
                Err(why) => return StepFail::Refused(why).render(Reply::new()).mark_error(),
            };
            if let Err(why) = suitable(FillField::Password, &rec) {
                return Reply::error(format!("{r} {why}, so no password was generated or typed"));
            }
            st.session.touch(r);
            targets.push(VaultTarget {
                field: FillField::Password,
                walk_id,
                idx: rec.idx,
            });
        }
        // The username is what the page already holds in that field, as last observed.
        let username = match &username {
            None => None,
            Some(r) => match resolve(&st, r) {
                Ok((_, rec)) => {
                    if let Err(why) = suitable(FillField::Username, &rec) {
                        return Reply::error(format!(
                            "{r} {why}, so it cannot name the username (nothing was generated)"
                        ));
                    }
                    rec.state.value.clone()
                }
                Err(why) => return StepFail::Refused(why).render(Reply::new()).mark_error(),
            },
        };
        let typed = fields.join(" and ");
        let limit = CALL_TIMEOUT * 2;
        let r = match call(self.backend().vault_generate(id, username, targets), limit).await {
            Ok(g) => Reply::new()
                .say(format!(
                    "generated a new password ({} bits), saved it in the vault as entry {} for \
                     this origin, and typed it into {typed}; the value is not shown, and reads \
                     of this tab show it as [redacted:vault]:",
                    g.entropy_bits, g.entry
                ))
                .page(&g.origin),
            Err(e @ BackendError::StaleWalk { .. }) => {
                return StepFail::Failed(e)
                    .render(Reply::new().say("no password was generated:"))
                    .mark_error();
            }
            Err(e) if e.nothing_sent() => {
                return Reply::new()
                    .say("no password was typed:")
                    .backend_error(&e)
                    .mark_error();
            }
            Err(e @ BackendError::FillStopped { .. }) => Reply::new()
                .say(format!("typing the generated password into {typed} stopped:"))
                .backend_error(&e)
                .mark_error(),
            Err(e) => StepFail::Unknown(e)
                .render(Reply::new().say(format!("typing the generated password into {typed}:")))
                .mark_error(),
        };
        let failed = r.is_error();
        let r = self.answer_with_trail(id, &mut st, r, Vec::new()).await;
        if failed { r.mark_error() } else { r }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(u: Option<&str>, p: Option<&str>, o: Option<&str>) -> VaultFillArgs {
        VaultFillArgs {
            tab: None,
            entry: Some("e0123456789abcdef".into()),
            username: u.map(Into::into),
            password: p.map(Into::into),
            one_time_code: o.map(Into::into),
            generate_password: None,
            confirm_password: None,
            attachment: None,
            file_input: None,
        }
    }

    #[test]
    fn field_combinations() {
        assert_eq!(
            wanted(&args(Some("e1"), Some("e2"), None)).unwrap(),
            vec![
                (FillField::Username, "e1".into()),
                (FillField::Password, "e2".into())
            ]
        );
        assert!(wanted(&args(None, Some("e2"), None)).is_ok());
        assert!(wanted(&args(None, None, Some("e3"))).is_ok());
        assert!(wanted(&args(None, None, None)).is_err());
        assert!(wanted(&args(Some("e1"), None, Some("e3"))).is_err());
        assert!(wanted(&args(Some("e1"), Some("e1"), None)).is_err());
    }

    #[test]
    fn generate_combinations() {
        let mut a = args(Some("e1"), Some("e2"), None);
        a.generate_password = Some(true);
        assert!(wanted_generate(&a).is_err(), "an entry id with generate");
        a.entry = None;
        assert_eq!(
            wanted_generate(&a).unwrap(),
            (vec!["e2".into()], Some("e1".into()))
        );
        a.confirm_password = Some("e3".into());
        assert_eq!(
            wanted_generate(&a).unwrap(),
            (vec!["e2".into(), "e3".into()], Some("e1".into()))
        );
        a.confirm_password = Some("e2".into());
        assert!(wanted_generate(&a).is_err(), "confirm is the password field");
        a.confirm_password = None;
        a.password = None;
        assert!(wanted_generate(&a).is_err(), "no password field");
        let mut o = args(None, None, Some("e4"));
        o.entry = None;
        o.generate_password = Some(true);
        o.password = Some("e2".into());
        assert!(wanted_generate(&o).is_err(), "one-time code with generate");
    }

    #[test]
    fn passwords_only_into_password_inputs() {
        let mut rec = NodeRecord {
            tag: "input".into(),
            editable: true,
            input_type: Some("text".into()),
            ..Default::default()
        };
        assert!(suitable(FillField::Username, &rec).is_ok());
        assert!(suitable(FillField::Password, &rec).is_err());
        rec.input_type = Some("Password".into());
        assert!(suitable(FillField::Password, &rec).is_ok());
        assert!(suitable(FillField::Username, &rec).is_err());
        rec.editable = false;
        assert!(suitable(FillField::Password, &rec).is_err());
    }
}
