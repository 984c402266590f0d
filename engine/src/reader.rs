//! A mechanical reader of the observation stream. It sees only the text an agent sees and
//! rebuilds the page model from FULL SNAPSHOTs and diffs, following the rules in
//! `engine/FORMAT.md` to the letter and refusing anything it cannot apply unambiguously.
//!
//! It exists to prove the stream is complete: the fidelity tests check that the model it
//! rebuilds equals the one a fresh full snapshot describes, after every step. It deliberately
//! shares no parsing code with the engine (only the text), so a renderer bug cannot be
//! mirrored by a matching reader bug.

use std::collections::{BTreeMap, BTreeSet};

/// One parsed element line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Line {
    /// Ref number (`e12` → 12).
    pub refn: Option<u32>,
    /// Role word, `None` for a bare quoted text line.
    pub role: Option<String>,
    /// Quoted name after the role.
    pub name: Option<String>,
    /// Text: after `: ` on a role line, or the whole of a bare quoted line.
    pub text: Option<String>,
    /// Flags (`disabled` → value `None`) and `key=value` attributes, in order. A select's
    /// `options=[…]` is kept as one attribute whose value restates the list.
    pub attrs: Vec<(String, Option<String>)>,
    /// Elements inline in the text (`"Read the" [e4 link "docs"] "first."`), each with the
    /// number of quoted text segments before it. Their refs are the line's too.
    pub inline: Vec<(usize, Line)>,
}

impl Line {
    /// Marked `live`: the engine does not keep this element's values current.
    pub fn is_live(&self) -> bool {
        self.attrs.iter().any(|(k, v)| k == "live" && v.is_none())
    }

    /// Every ref on the line: its own, then its inline elements'.
    pub fn all_refs(&self) -> impl Iterator<Item = u32> + '_ {
        self.refn
            .into_iter()
            .chain(self.inline.iter().filter_map(|(_, l)| l.refn))
    }

    /// An attribute value (`value`, `href`, …).
    pub fn attr(&self, k: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(a, _)| a == k)
            .and_then(|(_, v)| v.as_deref())
    }
}

/// What went wrong reading the stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// A line that does not follow the grammar.
    #[error("syntax: {0}")]
    Syntax(String),
    /// A diff for a state the reader is not in.
    #[error("sequence: {0}")]
    Seq(String),
    /// An address that does not name a node.
    #[error("address: {0}")]
    Address(String),
    /// The refs that vanished are not the refs the stream said died (or vice versa).
    #[error("gone mismatch: died {died:?}, announced {announced:?}")]
    Gone {
        /// Refs that disappeared from the rebuilt model.
        died: Vec<u32>,
        /// Refs the stream listed as gone.
        announced: Vec<u32>,
    },
}

fn syn<T>(msg: impl Into<String>) -> Result<T, ReadError> {
    Err(ReadError::Syntax(msg.into()))
}

#[derive(Debug, Clone)]
struct Node {
    line: Line,
    parent: Option<usize>,
    children: Vec<usize>,
}

/// Counters over everything the reader applied; tests use them as vacuity guards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Full snapshots read.
    pub fulls: usize,
    /// Diffs applied.
    pub diffs: usize,
    /// "no change" observations.
    pub unchanged: usize,
    /// Ops applied, by kind.
    pub removes: usize,
    /// Replace ops.
    pub replaces: usize,
    /// Insert ops.
    pub inserts: usize,
    /// Move items.
    pub moves: usize,
    /// Change ops.
    pub changes: usize,
    /// Refs announced gone (diffs and full snapshots).
    pub gone: usize,
    /// Views read (they change nothing).
    pub views: usize,
}

/// The reader: its rebuilt model and the state it names.
#[derive(Debug, Clone, Default)]
pub struct StreamReader {
    nodes: Vec<Node>,
    roots: Vec<usize>,
    /// The `url` line's value.
    pub url: Option<String>,
    /// The `title` line's value.
    pub title: Option<String>,
    /// `(epoch, minor)` of the state the model is in.
    pub seq: Option<(u32, u32)>,
    /// What has been applied so far.
    pub stats: Stats,
    /// The lines of the last VIEW read, `(depth, line)` from its top.
    pub last_view: Vec<(usize, Line)>,
}

fn parse_seq(s: &str) -> Option<(u32, u32)> {
    let s = s.strip_prefix('#')?;
    let (a, b) = s.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

fn parse_ref(w: &str) -> Option<u32> {
    let d = w.strip_prefix('e')?;
    (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .then(|| d.parse().ok())
        .flatten()
}

#[derive(Debug, PartialEq)]
enum Tok {
    Bare(String),
    Quoted(String),
    Colon,
    /// `[`: an inline element or an option list starts.
    Open,
    /// `]`.
    Close,
    /// `*`: the next option is selected.
    Star,
}

fn lex(s: &str) -> Result<Vec<Tok>, ReadError> {
    let mut out = Vec::new();
    let mut it = s.chars().peekable();
    while let Some(&c) = it.peek() {
        match c {
            ' ' => {
                it.next();
            }
            ':' => {
                it.next();
                out.push(Tok::Colon);
            }
            '[' => {
                it.next();
                out.push(Tok::Open);
            }
            ']' => {
                it.next();
                out.push(Tok::Close);
            }
            '*' => {
                it.next();
                if it.peek() != Some(&'"') {
                    return syn(format!("`*` not before a quoted option in {s:?}"));
                }
                out.push(Tok::Star);
            }
            '"' => {
                it.next();
                let mut q = String::new();
                loop {
                    match it.next() {
                        None => return syn(format!("unterminated quote in {s:?}")),
                        Some('\\') => match it.next() {
                            Some(e @ ('"' | '\\')) => q.push(e),
                            Some('n') => q.push('\n'),
                            Some('t') => q.push('\t'),
                            _ => return syn(format!("bad escape in {s:?}")),
                        },
                        Some('"') => break,
                        Some(ch) if ch.is_control() => return syn("control character inside quotes"),
                        Some(ch) => q.push(ch),
                    }
                }
                // Something must separate a quoted string from what follows.
                if it.peek().is_some_and(|c| !matches!(c, ' ' | ':' | ']')) {
                    return syn(format!("junk after quote in {s:?}"));
                }
                out.push(Tok::Quoted(q));
            }
            _ => {
                let mut w = String::new();
                while let Some(&ch) = it.peek() {
                    if matches!(ch, ' ' | ':' | '[' | ']') {
                        break;
                    }
                    if ch == '"' {
                        if w.ends_with('=') {
                            break;
                        }
                        return syn(format!("quote inside a bare word in {s:?}"));
                    }
                    w.push(ch);
                    it.next();
                }
                out.push(Tok::Bare(w));
            }
        }
    }
    Ok(out)
}

fn bare_ok(w: &str) -> bool {
    !w.is_empty()
        && w.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'=')
}

/// Parses one element line (no indentation).
pub fn parse_line(s: &str) -> Result<Line, ReadError> {
    let toks = lex(s)?;
    let mut i = 0;
    let line = parse_element(&toks, &mut i, s, false)?;
    if i != toks.len() {
        return syn(format!("unexpected {:?} in {s:?}", toks[i]));
    }
    Ok(line)
}

/// One element from `toks[*i]`: the whole line, or (`inline`) one between `[` and `]`, which
/// has a role, at most one quoted text and no inline elements of its own.
fn parse_element(toks: &[Tok], i: &mut usize, s: &str, inline: bool) -> Result<Line, ReadError> {
    let mut line = Line::default();
    if let Some(Tok::Bare(w)) = toks.get(*i)
        && let Some(r) = parse_ref(w)
    {
        line.refn = Some(r);
        *i += 1;
    }
    match toks.get(*i) {
        Some(Tok::Quoted(_) | Tok::Open) if !inline => parse_text(toks, i, &mut line, s)?,
        Some(Tok::Bare(role)) if bare_ok(role) && !role.contains('=') && parse_ref(role).is_none() => {
            line.role = Some(role.clone());
            *i += 1;
            // `ROLE "A" "B"…` or `ROLE [e4 …]…`: a text of several segments, no name.
            let sentence = matches!(toks.get(*i), Some(Tok::Open))
                || (matches!(toks.get(*i), Some(Tok::Quoted(_)))
                    && matches!(toks.get(*i + 1), Some(Tok::Quoted(_) | Tok::Open)));
            if sentence && !inline {
                parse_text(toks, i, &mut line, s)?;
            } else if let Some(Tok::Quoted(n)) = toks.get(*i) {
                line.name = Some(n.clone());
                *i += 1;
            }
            if let Some(Tok::Colon) = toks.get(*i) {
                *i += 1;
                match toks.get(*i) {
                    Some(Tok::Quoted(t)) if inline => {
                        line.text = Some(t.clone());
                        *i += 1;
                    }
                    Some(Tok::Quoted(_) | Tok::Open) if !inline => parse_text(toks, i, &mut line, s)?,
                    _ => return syn(format!("`:` not followed by a quoted text in {s:?}")),
                }
            }
        }
        _ => return syn(format!("no head in {s:?}")),
    }
    while *i < toks.len() {
        match &toks[*i] {
            Tok::Close if inline => break,
            Tok::Bare(w) if w == "options=" => {
                *i += 1;
                let v = parse_options(toks, i, s)?;
                line.attrs.push(("options".to_owned(), Some(v)));
            }
            Tok::Bare(w) if w.ends_with('=') => {
                let Some(Tok::Quoted(v)) = toks.get(*i + 1) else {
                    return syn(format!("{w} without a quoted value in {s:?}"));
                };
                line.attrs
                    .push((w.trim_end_matches('=').to_owned(), Some(v.clone())));
                *i += 2;
            }
            Tok::Bare(w) if bare_ok(w) => {
                match w.split_once('=') {
                    Some((k, v)) => line.attrs.push((k.to_owned(), Some(v.to_owned()))),
                    None => line.attrs.push((w.clone(), None)),
                }
                *i += 1;
            }
            t => return syn(format!("unexpected {t:?} in {s:?}")),
        }
    }
    Ok(line)
}

/// A text: quoted segments and `[…]` inline elements, at least one segment, in order.
fn parse_text(toks: &[Tok], i: &mut usize, line: &mut Line, s: &str) -> Result<(), ReadError> {
    let mut segs: Vec<String> = Vec::new();
    loop {
        match toks.get(*i) {
            Some(Tok::Quoted(t)) => {
                segs.push(t.clone());
                *i += 1;
            }
            Some(Tok::Open) => {
                *i += 1;
                let el = parse_element(toks, i, s, true)?;
                if toks.get(*i) != Some(&Tok::Close) {
                    return syn(format!("inline element not closed in {s:?}"));
                }
                *i += 1;
                if el.role.is_none() {
                    return syn(format!("inline element without a role in {s:?}"));
                }
                line.inline.push((segs.len(), el));
            }
            _ => break,
        }
    }
    if segs.is_empty() && line.inline.is_empty() {
        return syn(format!("empty text in {s:?}"));
    }
    if !segs.is_empty() {
        line.text = Some(segs.join(" "));
    }
    Ok(())
}

/// `[*"A" "B" +3]` after `options=`: returns it restated in canonical form.
fn parse_options(toks: &[Tok], i: &mut usize, s: &str) -> Result<String, ReadError> {
    if toks.get(*i) != Some(&Tok::Open) {
        return syn(format!("options= without a list in {s:?}"));
    }
    *i += 1;
    let mut out = String::from("[");
    let mut items = 0;
    loop {
        let star = toks.get(*i) == Some(&Tok::Star);
        if star {
            *i += 1;
        }
        match toks.get(*i) {
            Some(Tok::Quoted(q)) => {
                if items > 0 {
                    out.push(' ');
                }
                if star {
                    out.push('*');
                }
                out.push_str(&format!("{q:?}"));
                items += 1;
                *i += 1;
            }
            _ if star => return syn(format!("`*` without an option in {s:?}")),
            Some(Tok::Bare(w))
                if w.strip_prefix('+')
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
            {
                if items > 0 {
                    out.push(' ');
                }
                out.push_str(w);
                items += 1;
                *i += 1;
                if toks.get(*i) != Some(&Tok::Close) {
                    return syn(format!("a count must end an option list in {s:?}"));
                }
            }
            Some(Tok::Close) => {
                *i += 1;
                break;
            }
            t => return syn(format!("unexpected {t:?} in an option list in {s:?}")),
        }
    }
    if items == 0 {
        return syn(format!("empty option list in {s:?}"));
    }
    out.push(']');
    Ok(out)
}

/// An address: a ref and/or 1-based child positions.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Addr {
    anchor: Option<u32>,
    path: Vec<usize>,
}

fn parse_addr(w: &str) -> Result<Addr, ReadError> {
    let (head, rest) = match w.find('/') {
        Some(p) => (&w[..p], &w[p..]),
        None => (w, ""),
    };
    let anchor = if head.is_empty() {
        None
    } else {
        Some(parse_ref(head).ok_or_else(|| ReadError::Syntax(format!("bad address {w:?}")))?)
    };
    let mut path = Vec::new();
    for seg in rest.split('/').skip(1) {
        let k: usize = seg
            .parse()
            .map_err(|_| ReadError::Syntax(format!("bad address {w:?}")))?;
        if k == 0 {
            return syn(format!("bad address {w:?}"));
        }
        path.push(k);
    }
    if anchor.is_none() && path.is_empty() {
        return syn(format!("empty address {w:?}"));
    }
    Ok(Addr { anchor, path })
}

fn split_word(s: &str) -> (&str, &str) {
    match s.find(' ') {
        Some(p) => (&s[..p], &s[p + 1..]),
        None => (s, ""),
    }
}

/// A line's depth: one leading space per level.
fn depth_of(l: &str) -> Result<(usize, &str), ReadError> {
    let sp = l.len() - l.trim_start_matches(' ').len();
    Ok((sp, &l[sp..]))
}

fn parse_gone(s: &str) -> Result<Vec<u32>, ReadError> {
    s.split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| parse_ref(w).ok_or_else(|| ReadError::Syntax(format!("bad gone ref {w:?}"))))
        .collect()
}

/// The text split around its envelope, found by the reader's own rules: an opening line
/// `<untrusted-page-content nonce=N>`, then lines up to the exact closing line with the same N.
/// Harness lines before the envelope, the body lines (if there is an envelope), harness after.
type Sections<'a> = (Vec<&'a str>, Option<Vec<&'a str>>, Vec<&'a str>);

fn envelope_lines(text: &str) -> Result<Sections<'_>, ReadError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let open = lines
        .iter()
        .position(|l| l.starts_with("<untrusted-page-content nonce=") && l.ends_with('>'));
    let Some(o) = open else {
        return Ok((lines, None, Vec::new()));
    };
    let nonce = &lines[o]["<untrusted-page-content nonce=".len()..lines[o].len() - 1];
    if nonce.is_empty() || !nonce.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return syn("bad nonce");
    }
    let close = format!("</untrusted-page-content nonce={nonce}>");
    let Some(c) = lines[o + 1..].iter().position(|l| *l == close).map(|p| p + o + 1) else {
        return syn("unclosed envelope");
    };
    let after = lines[c + 1..].to_vec();
    if after.iter().any(|l| l.starts_with("<untrusted-page-content")) {
        return syn("second envelope");
    }
    Ok((lines[..o].to_vec(), Some(lines[o + 1..c].to_vec()), after))
}

enum Target {
    Top,
    Node(usize),
    /// The start of a node's children.
    Start(usize),
}

impl StreamReader {
    /// An empty reader, in no state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one observation text.
    pub fn apply(&mut self, text: &str) -> Result<(), ReadError> {
        let first = text.split('\n').next().unwrap_or("");
        if let Some(rest) = first.strip_prefix("FULL SNAPSHOT ") {
            self.apply_full(rest, text)
        } else if let Some(rest) = first.strip_prefix("diff from ") {
            self.apply_diff(rest, text)
        } else if let Some(rest) = first.strip_prefix("VIEW of ") {
            self.apply_view(rest, text)
        } else if let Some(rest) = first.strip_prefix("no change since ") {
            // The seq, then perhaps a note in parentheses (a clock ticked).
            let seq = rest.split_whitespace().next().unwrap_or("");
            let s = parse_seq(seq).ok_or_else(|| ReadError::Syntax(first.to_owned()))?;
            if self.seq != Some(s) {
                return Err(ReadError::Seq(format!(
                    "no change since {s:?} but reader is at {:?}",
                    self.seq
                )));
            }
            if text.contains('\n') {
                return syn("no-change observation has more lines");
            }
            self.stats.unchanged += 1;
            Ok(())
        } else {
            syn(format!("unknown header {first:?}"))
        }
    }

    /// A VIEW: one part of the page, for reading; the model and its state do not change.
    fn apply_view(&mut self, header: &str, text: &str) -> Result<(), ReadError> {
        let mut w = header.split(' ');
        let (Some(r), Some("at"), Some(seq)) = (
            w.next().and_then(parse_ref),
            w.next(),
            w.next().and_then(parse_seq),
        ) else {
            return syn(format!("bad view header {header:?}"));
        };
        if self.seq != Some(seq) {
            return Err(ReadError::Seq(format!(
                "view at {seq:?} but reader is at {:?}",
                self.seq
            )));
        }
        let (before, body, after) = envelope_lines(text)?;
        let Some(body) = body else {
            return syn("view without envelope");
        };
        if before.len() != 1 || after.iter().any(|l| !l.is_empty() && !l.starts_with("note: ")) {
            return syn("harness lines around a view's envelope");
        }
        let mut lines = Vec::new();
        let mut prev = 0usize;
        for (k, l) in body.iter().enumerate() {
            let (d, s) = depth_of(l)?;
            if (k == 0 && d != 0) || (k > 0 && (d == 0 || d > prev + 1)) {
                return syn(format!("bad indentation in a view at {l:?}"));
            }
            prev = d;
            lines.push((d, parse_line(s)?));
        }
        let _ = r;
        self.last_view = lines;
        self.stats.views += 1;
        Ok(())
    }

    /// The subtree of the line carrying ref `r` (as a node's own ref), `(depth, line)` from its
    /// top, as in [`StreamReader::outline`].
    pub fn subtree(&self, r: u32) -> Option<Vec<(usize, Line)>> {
        let mut found = None;
        self.walk(|d, n| {
            if found.is_none() && n.line.refn == Some(r) {
                found = Some(d);
            }
        });
        let d0 = found?;
        let mut out = Vec::new();
        let mut inside = false;
        self.walk(|d, n| {
            if inside && d <= d0 {
                inside = false;
            }
            if !inside && out.is_empty() && n.line.refn == Some(r) {
                inside = true;
            }
            if inside {
                out.push((d - d0, n.line.clone()));
            }
        });
        Some(out)
    }

    fn refs_now(&self) -> BTreeSet<u32> {
        let mut s = BTreeSet::new();
        self.walk(|_, n| s.extend(n.line.all_refs()));
        s
    }

    fn walk(&self, mut f: impl FnMut(usize, &Node)) {
        let mut stack: Vec<(usize, usize)> = self.roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((i, d)) = stack.pop() {
            let n = &self.nodes[i];
            f(d, n);
            stack.extend(n.children.iter().rev().map(|&c| (c, d + 1)));
        }
    }

    /// The rebuilt model in document order: `(depth, line)`.
    pub fn outline(&self) -> Vec<(usize, Line)> {
        let mut v = Vec::new();
        self.walk(|d, n| v.push((d, n.line.clone())));
        v
    }

    /// Ref → line for every ref in the model (an inline element's ref → its own line).
    pub fn refs(&self) -> BTreeMap<u32, Line> {
        let mut m = BTreeMap::new();
        self.walk(|_, n| {
            if let Some(r) = n.line.refn {
                m.insert(r, n.line.clone());
            }
            for (_, l) in &n.line.inline {
                if let Some(r) = l.refn {
                    m.insert(r, l.clone());
                }
            }
        });
        m
    }

    fn apply_full(&mut self, header: &str, text: &str) -> Result<(), ReadError> {
        let (seq_w, rest) = split_word(header);
        let seq = parse_seq(seq_w).ok_or_else(|| ReadError::Syntax(format!("bad seq {seq_w:?}")))?;
        let (before, body, after) = envelope_lines(text)?;
        let Some(body) = body else {
            return syn("full snapshot without envelope");
        };
        if before.len() != 1 {
            return syn("harness lines before a full snapshot's envelope");
        }
        let prev_refs = self.refs_now();
        let had_model = self.seq.is_some();
        self.nodes.clear();
        self.roots.clear();
        self.url = None;
        self.title = None;
        let mut stack: Vec<usize> = Vec::new();
        for l in body {
            if let Some(u) = l.strip_prefix("url ") {
                self.url = Some(self.page_value(u)?);
                continue;
            }
            if let Some(t) = l.strip_prefix("title ") {
                self.title = Some(self.page_value(t)?);
                continue;
            }
            let (d, s) = depth_of(l)?;
            let line = parse_line(s)?;
            if d > stack.len() {
                return syn(format!("indentation jump at {l:?}"));
            }
            stack.truncate(d);
            let parent = stack.last().copied();
            let id = self.push_node(line, parent);
            match parent {
                Some(p) => self.nodes[p].children.push(id),
                None => self.roots.push(id),
            }
            stack.push(id);
        }
        let mut announced = Vec::new();
        for l in after {
            if let Some(g) = l.strip_prefix("gone:") {
                announced.extend(parse_gone(g)?);
            } else if l.starts_with("note: ") || l.is_empty() {
            } else {
                return syn(format!("unexpected harness line {l:?}"));
            }
        }
        // A reset that is not a navigation must still say which refs died since the state the
        // reader held.
        let navigated = rest.contains("(navigated)") || rest.contains("(origin changed)");
        let reread = rest.contains("(re-read)");
        if had_model && !navigated && !reread {
            let now = self.refs_now();
            let died: Vec<u32> = prev_refs.difference(&now).copied().collect();
            announced.sort_unstable();
            if died != announced {
                return Err(ReadError::Gone { died, announced });
            }
        }
        self.stats.gone += announced.len();
        self.stats.fulls += 1;
        self.seq = Some(seq);
        Ok(())
    }

    fn page_value(&self, s: &str) -> Result<String, ReadError> {
        match lex(s)?.as_slice() {
            [Tok::Quoted(q)] => Ok(q.clone()),
            _ => syn(format!("bad page line {s:?}")),
        }
    }

    fn push_node(&mut self, line: Line, parent: Option<usize>) -> usize {
        self.nodes.push(Node {
            line,
            parent,
            children: Vec::new(),
        });
        self.nodes.len() - 1
    }

    fn resolve(&self, a: &Addr, refmap: &BTreeMap<u32, usize>) -> Result<Target, ReadError> {
        let mut cur = match a.anchor {
            Some(r) => Target::Node(
                *refmap
                    .get(&r)
                    .ok_or_else(|| ReadError::Address(format!("no e{r}")))?,
            ),
            None => Target::Top,
        };
        for &k in &a.path {
            let kids = match cur {
                Target::Top => &self.roots,
                Target::Node(i) | Target::Start(i) => &self.nodes[i].children,
            };
            let c = *kids
                .get(k - 1)
                .ok_or_else(|| ReadError::Address(format!("{a:?} out of range")))?;
            cur = Target::Node(c);
        }
        Ok(cur)
    }

    fn node_of(&self, a: &Addr, refmap: &BTreeMap<u32, usize>) -> Result<usize, ReadError> {
        match self.resolve(a, refmap)? {
            Target::Node(i) => Ok(i),
            Target::Top | Target::Start(_) => Err(ReadError::Address("the top is not a node".into())),
        }
    }

    fn detach(&mut self, i: usize) -> Result<(), ReadError> {
        let list = match self.nodes[i].parent {
            Some(p) => &mut self.nodes[p].children,
            None => &mut self.roots,
        };
        let pos = list
            .iter()
            .position(|&c| c == i)
            .ok_or_else(|| ReadError::Address("detached twice".into()))?;
        list.remove(pos);
        Ok(())
    }

    /// Parses an indented block (depth ≥ 1 relative) into detached subtrees; returns their roots.
    fn build_block(&mut self, lines: &[(usize, &str)]) -> Result<Vec<usize>, ReadError> {
        let mut roots = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        for &(d, s) in lines {
            if d == 0 || d > stack.len() + 1 {
                return syn(format!("bad indentation in block at {s:?}"));
            }
            stack.truncate(d - 1);
            let parent = stack.last().copied();
            let id = self.push_node(parse_line(s)?, parent);
            match parent {
                Some(p) => self.nodes[p].children.push(id),
                None => roots.push(id),
            }
            stack.push(id);
        }
        Ok(roots)
    }

    fn apply_diff(&mut self, header: &str, text: &str) -> Result<(), ReadError> {
        let mut hw = header.split(' ');
        let from = hw.next().and_then(parse_seq);
        let arrow = hw.next();
        let to = hw.next().and_then(parse_seq);
        let (Some(from), Some("→"), Some(to), None) = (from, arrow, to, hw.next()) else {
            return syn(format!("bad diff header {header:?}"));
        };
        if self.seq != Some(from) {
            return Err(ReadError::Seq(format!(
                "diff from {from:?} but reader is at {:?}",
                self.seq
            )));
        }
        if to != (from.0, from.1 + 1) {
            return Err(ReadError::Seq(format!("diff {from:?} → {to:?} skips a state")));
        }
        let (before, body, after) = envelope_lines(text)?;
        if after.iter().any(|l| !l.is_empty()) {
            return syn("harness lines after a diff's envelope");
        }
        let refmap: BTreeMap<u32, usize> = {
            let mut m = BTreeMap::new();
            let mut stack: Vec<usize> = self.roots.clone();
            while let Some(i) = stack.pop() {
                if let Some(r) = self.nodes[i].line.refn
                    && m.insert(r, i).is_some()
                {
                    return Err(ReadError::Address(format!("e{r} twice in the model")));
                }
                stack.extend(self.nodes[i].children.iter().copied());
            }
            m
        };
        let prev_refs = self.refs_now();
        let mut announced: Vec<u32> = Vec::new();
        let mut removes: Vec<usize> = Vec::new();
        let mut replace_gone: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut restate_gone: Vec<usize> = Vec::new();
        for l in before.iter().skip(1) {
            let (op, rest) = split_word(l);
            let (a, tail) = split_word(rest);
            let addr = parse_addr(a)?;
            let gone = match tail.strip_prefix("gone:") {
                Some(g) => parse_gone(g)?,
                None if tail.is_empty() => Vec::new(),
                None => return syn(format!("bad harness line {l:?}")),
            };
            let node = self.node_of(&addr, &refmap)?;
            match op {
                "-" => removes.push(node),
                "=" if !gone.is_empty() => replace_gone.push((node, gone.clone())),
                // A restated line that no longer carries these refs (its sentence lost them).
                "~" if !gone.is_empty() => restate_gone.push(node),
                _ => return syn(format!("bad harness line {l:?}")),
            }
            announced.extend(gone);
        }
        // Parse the content ops, resolving every address against the old state first.
        enum COp {
            Change(usize, Line),
            Replace(usize, Vec<usize>),
            Insert(Target, Vec<(Option<usize>, Option<Line>)>),
            Page(bool, String),
        }
        let mut cops: Vec<COp> = Vec::new();
        let body = body.unwrap_or_default();
        let mut i = 0;
        let block_end = |from: usize| -> usize {
            let mut j = from;
            while j < body.len() && body[j].starts_with(' ') {
                j += 1;
            }
            j
        };
        while i < body.len() {
            let l = body[i];
            if let Some(u) = l.strip_prefix("url ") {
                cops.push(COp::Page(true, self.page_value(u)?));
                i += 1;
                continue;
            }
            if let Some(t) = l.strip_prefix("title ") {
                cops.push(COp::Page(false, self.page_value(t)?));
                i += 1;
                continue;
            }
            let (op, rest) = split_word(l);
            match op {
                "~" => {
                    let (a, line) = split_word(rest);
                    let addr = parse_addr(a)?;
                    let node = self.node_of(&addr, &refmap)?;
                    let line = self.target_line(&addr, line)?;
                    cops.push(COp::Change(node, line));
                    i += 1;
                }
                "=" => {
                    let addr = parse_addr(rest)?;
                    let node = self.node_of(&addr, &refmap)?;
                    let end = block_end(i + 1);
                    let lines: Vec<(usize, &str)> = body[i + 1..end]
                        .iter()
                        .map(|l| depth_of(l))
                        .collect::<Result<_, _>>()?;
                    if lines.is_empty() {
                        return syn("replace without content");
                    }
                    let roots = self.build_block(&lines)?;
                    cops.push(COp::Replace(node, roots));
                    i = end;
                }
                "+" => {
                    let target = if rest == "first" {
                        Target::Top
                    } else if let Some(a) = rest.strip_prefix("first in ") {
                        Target::Start(self.node_of(&parse_addr(a)?, &refmap)?)
                    } else if let Some(a) = rest.strip_prefix("after ") {
                        Target::Node(self.node_of(&parse_addr(a)?, &refmap)?)
                    } else {
                        return syn(format!("bad insert {l:?}"));
                    };
                    let end = block_end(i + 1);
                    let mut items: Vec<(Option<usize>, Option<Line>)> = Vec::new();
                    let mut j = i + 1;
                    while j < end {
                        let (d, s) = depth_of(body[j])?;
                        if d != 1 {
                            return syn(format!("insert item not at depth 1: {:?}", body[j]));
                        }
                        if let Some(m) = s.strip_prefix("> ") {
                            let (a, line) = split_word(m);
                            let addr = parse_addr(a)?;
                            let node = self.node_of(&addr, &refmap)?;
                            items.push((Some(node), Some(self.target_line(&addr, line)?)));
                            j += 1;
                        } else {
                            let mut k = j + 1;
                            while k < end && body[k].starts_with("  ") {
                                k += 1;
                            }
                            let lines: Vec<(usize, &str)> =
                                body[j..k].iter().map(|l| depth_of(l)).collect::<Result<_, _>>()?;
                            let roots = self.build_block(&lines)?;
                            if roots.len() != 1 {
                                return syn("insert item is not one subtree");
                            }
                            items.push((Some(roots[0]), None));
                            j = k;
                        }
                    }
                    if items.is_empty() {
                        return syn("insert without items");
                    }
                    cops.push(COp::Insert(target, items));
                    i = end;
                }
                _ => return syn(format!("unknown op line {l:?}")),
            }
        }
        // The lines this diff shows: restated ones, and every line of a replacement or a new
        // subtree (a moved item restates its own line only).
        let mut shown: BTreeSet<usize> = BTreeSet::new();
        let mut deep: Vec<usize> = Vec::new();
        for c in &cops {
            match c {
                COp::Change(n, _) => {
                    shown.insert(*n);
                }
                COp::Replace(_, roots) => deep.extend(roots.iter().copied()),
                COp::Insert(_, items) => {
                    for (node, line) in items {
                        match (node, line) {
                            (Some(n), Some(_)) => {
                                shown.insert(*n);
                            }
                            (Some(n), None) => deep.push(*n),
                            _ => {}
                        }
                    }
                }
                COp::Page(..) => {}
            }
        }
        while let Some(n) = deep.pop() {
            shown.insert(n);
            deep.extend(self.nodes[n].children.iter().copied());
        }
        // Apply: removals, changes and replaces touch old nodes in place; moved nodes are then
        // detached; insertions go after anchors that never move.
        for &n in &removes {
            self.detach(n)?;
            self.stats.removes += 1;
        }
        for (node, _) in &replace_gone {
            if !cops.iter().any(|c| matches!(c, COp::Replace(n, _) if n == node)) {
                return syn("replace gone list without a replacement");
            }
        }
        for node in &restate_gone {
            let restated = cops.iter().any(|c| match c {
                COp::Change(n, _) => n == node,
                COp::Insert(_, items) => items.iter().any(|(n, l)| *n == Some(*node) && l.is_some()),
                _ => false,
            });
            if !restated {
                return syn("restated gone list without a restatement");
            }
        }
        for c in &cops {
            if let COp::Insert(_, items) = c {
                for (node, line) in items {
                    if let (Some(n), Some(_)) = (node, line) {
                        self.detach(*n)?;
                    }
                }
            }
        }
        for c in cops {
            match c {
                COp::Page(true, u) => self.url = Some(u),
                COp::Page(false, t) => self.title = Some(t),
                COp::Change(n, line) => {
                    self.nodes[n].line = line;
                    self.stats.changes += 1;
                }
                COp::Replace(n, roots) => {
                    let parent = self.nodes[n].parent;
                    let list = match parent {
                        Some(p) => &mut self.nodes[p].children,
                        None => &mut self.roots,
                    };
                    let pos = list
                        .iter()
                        .position(|&c| c == n)
                        .ok_or_else(|| ReadError::Address("replace target detached".into()))?;
                    list.splice(pos..=pos, roots.iter().copied());
                    for r in roots {
                        self.nodes[r].parent = parent;
                    }
                    self.stats.replaces += 1;
                }
                COp::Insert(target, items) => {
                    let (parent, mut at) = match target {
                        Target::Top => (None, 0),
                        Target::Start(p) => (Some(p), 0),
                        Target::Node(a) => {
                            let p = self.nodes[a].parent;
                            let list = match p {
                                Some(p) => &self.nodes[p].children,
                                None => &self.roots,
                            };
                            let pos = list
                                .iter()
                                .position(|&c| c == a)
                                .ok_or_else(|| ReadError::Address("anchor detached".into()))?;
                            (p, pos + 1)
                        }
                    };
                    for (node, line) in items {
                        let Some(n) = node else { continue };
                        if let Some(line) = line {
                            self.nodes[n].line = line;
                            self.stats.moves += 1;
                        }
                        self.nodes[n].parent = parent;
                        let list = match parent {
                            Some(p) => &mut self.nodes[p].children,
                            None => &mut self.roots,
                        };
                        list.insert(at, n);
                        at += 1;
                    }
                    self.stats.inserts += 1;
                }
            }
        }
        // Focus is in one place: a shown line marked `focused` takes the mark off every line
        // the diff does not show (the engine does not restate a line only to drop it).
        let is_focused = |l: &Line| l.attrs.iter().any(|(k, v)| k == "focused" && v.is_none());
        if shown.iter().any(|&n| is_focused(&self.nodes[n].line)) {
            let mut stack: Vec<usize> = self.roots.clone();
            while let Some(i) = stack.pop() {
                if !shown.contains(&i) {
                    self.nodes[i]
                        .line
                        .attrs
                        .retain(|(k, v)| !(k == "focused" && v.is_none()));
                }
                stack.extend(self.nodes[i].children.iter().copied());
            }
        }
        let now = self.refs_now();
        let mut died: Vec<u32> = prev_refs.difference(&now).copied().collect();
        died.sort_unstable();
        announced.sort_unstable();
        if died != announced {
            return Err(ReadError::Gone { died, announced });
        }
        // A ref that survives must still be unique.
        let mut seen = BTreeSet::new();
        let mut dup = None;
        self.walk(|_, n| {
            for r in n.line.all_refs() {
                if !seen.insert(r) {
                    dup = Some(r);
                }
            }
        });
        if let Some(r) = dup {
            return Err(ReadError::Address(format!("e{r} twice after the diff")));
        }
        self.stats.gone += announced.len();
        self.stats.diffs += 1;
        self.seq = Some(to);
        Ok(())
    }

    /// The new line of a node addressed by `addr`: when the address is a bare ref, the ref is
    /// the line's own and the rest follows without it.
    fn target_line(&self, addr: &Addr, rest: &str) -> Result<Line, ReadError> {
        let mut line = parse_line(rest)?;
        if addr.path.is_empty() {
            if line.refn.is_some() {
                return syn("ref-addressed line repeats a ref");
            }
            line.refn = addr.anchor;
        } else if line.refn.is_some() {
            return syn("path-addressed line carries a ref");
        }
        Ok(line)
    }
}
