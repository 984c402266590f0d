//! Identity containers: named, coloured, each with its own cache directory (→ its own CEF
//! request context: cookies, cache, storage) and its own fingerprint seed.
//!
//! Two surfaces, deliberately unequal:
//!
//! * [`ContainerRegistry`] is the human's: create, rename, recolour, bind a site to a
//!   container, reset a container's state, delete it.
//! * [`AgentContainers`] is the only thing the agent-facing code (MCP) should ever be handed.
//!   It can list containers, create a fresh one, and ask which container a navigation must use.
//!   It has no merge, no bind, no move, no reset, no delete, and no way to reach the registry
//!   behind it: a page that talks the agent into "move bank.com into the Shopping container"
//!   finds there is no such call to make.
//!
//! There is no merge anywhere, for the human either: merging cookie jars is not something a
//! request context can do, and a half-merge would be worse than none.
//!
//! The seed is generated once per container and persisted; it changes only in
//! [`ContainerRegistry::reset_state`], which first wipes the container's cache directory. So
//! while a container holds state (cookies a site could correlate), its fingerprint is stable.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

use aperture_common::fs::write_atomic as atomic_write;

use crate::fsutil::{hex, unhex};

const STORE_VERSION: u32 = 1;
const MAX_NAME_CHARS: usize = 64;

/// Stable identifier of a container; also its cache directory name, so it is restricted to
/// `[a-z0-9-]` (a hand-edited store cannot point a container at `../../`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ContainerId(String);

impl ContainerId {
    fn generate() -> Self {
        Self(format!("c-{}", hex(&rand::random::<[u8; 8]>())))
    }

    /// Parses an id as it appears in the store or an MCP argument.
    pub fn parse(s: &str) -> Result<Self, ContainerError> {
        let ok = (1..=40).contains(&s.len())
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !s.starts_with('-');
        if ok {
            Ok(Self(s.to_string()))
        } else {
            Err(ContainerError::InvalidId(s.chars().take(60).collect()))
        }
    }

    /// The id as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for ContainerId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for ContainerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A container's colour in the tab strip (the Firefox Multi-Account Containers palette, which
/// people already recognise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Colour {
    Blue,
    Turquoise,
    Green,
    Yellow,
    Orange,
    Red,
    Pink,
    Purple,
    Grey,
}

impl Colour {
    /// Hex RGB for the UI.
    pub fn rgb(self) -> &'static str {
        match self {
            Self::Blue => "#37adff",
            Self::Turquoise => "#00c79a",
            Self::Green => "#51cd00",
            Self::Yellow => "#ffcb00",
            Self::Orange => "#ff9f00",
            Self::Red => "#ff613d",
            Self::Pink => "#ff4bda",
            Self::Purple => "#af51f5",
            Self::Grey => "#8f8f9d",
        }
    }
}

/// Per-container fingerprint seed: 32 random bytes, persisted with the container.
///
/// Consistency beats randomness: a machine whose canvas noise changes every load stands out.
/// Every fingerprinting surface should derive its values from this one seed via
/// [`FingerprintSeed::derive`], so they agree with each other and stay put between restarts.
#[derive(Clone, PartialEq, Eq)]
pub struct FingerprintSeed([u8; 32]);

impl FingerprintSeed {
    fn generate() -> Self {
        Self(rand::random())
    }

    /// A 64-bit value for one named surface (`"canvas"`, `"audio"`, …): SHA-256 of the seed
    /// and the name, so surfaces are independent but all fixed by the seed.
    pub fn derive(&self, surface: &str) -> u64 {
        let mut h = Sha256::new();
        h.update(b"aperture fingerprint v1\0");
        h.update(self.0);
        h.update(surface.as_bytes());
        let d = h.finalize();
        u64::from_le_bytes(d[..8].try_into().expect("sha256 has 32 bytes"))
    }

    /// The raw seed, for a renderer-side implementation that needs all of it.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for FingerprintSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Enough to tell seeds apart in a log, not enough to replay one.
        write!(f, "FingerprintSeed({}…)", hex(&self.0[..4]))
    }
}

impl Serialize for FingerprintSeed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex(&self.0))
    }
}

impl<'de> Deserialize<'de> for FingerprintSeed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let bytes = unhex(&s).ok_or_else(|| serde::de::Error::custom("seed is not hex"))?;
        let arr: [u8; 32] = bytes
            .try_into()
            .map_err(|_| serde::de::Error::custom("seed is not 32 bytes"))?;
        Ok(Self(arr))
    }
}

/// One identity container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Container {
    /// Stable id (and cache directory name).
    pub id: ContainerId,
    /// Display name, unique case-insensitively.
    pub name: String,
    /// Tab-strip colour.
    pub colour: Colour,
    /// Fingerprint seed; see [`FingerprintSeed`].
    pub seed: FingerprintSeed,
    /// How many times [`ContainerRegistry::reset_state`] has replaced the seed.
    pub generation: u32,
    /// Creation time, seconds since the Unix epoch.
    pub created_unix: u64,
}

/// What the agent may know about a container: no seed, no cache path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContainerSummary {
    /// Id to pass back in navigation tools.
    pub id: ContainerId,
    /// Display name.
    pub name: String,
    /// Colour.
    pub colour: Colour,
}

/// Container registry errors.
#[derive(Debug, thiserror::Error)]
pub enum ContainerError {
    /// An id with characters outside `[a-z0-9-]` or of bad length.
    #[error("invalid container id {0:?}")]
    InvalidId(String),
    /// No container has this id.
    #[error("no container with id {0}")]
    NoSuchContainer(ContainerId),
    /// Names are unique so the human can tell containers apart.
    #[error("a container named {0:?} already exists")]
    DuplicateName(String),
    /// Empty, too long, or contains control characters.
    #[error("invalid container name {0:?}: 1–64 printable characters")]
    InvalidName(String),
    /// "Private" names the browser's private tabs, which keep nothing on disk; a saved
    /// container by that name would be mistaken for them.
    #[error("the name {0:?} is reserved for private tabs")]
    ReservedName(String),
    /// A site binding must be a host name like `example.com`.
    #[error("invalid site {0:?}: give a host name such as example.com")]
    InvalidSite(String),
    /// The last container cannot be deleted: every tab needs one.
    #[error("cannot delete the last container")]
    LastContainer,
    /// The agent asked to open a site in a container other than the one the human bound it to.
    #[error(
        "{site} is bound to container {bound} by the user; it cannot be opened in {requested}. \
         Only the user can move a site between containers"
    )]
    SiteBoundElsewhere {
        /// The bound site (domain suffix).
        site: String,
        /// The container it is bound to.
        bound: ContainerId,
        /// The container the agent asked for.
        requested: ContainerId,
    },
    /// The store file exists but cannot be read as a registry. [`ContainerRegistry::open`]
    /// never replaces it; [`ContainerRegistry::open_or_recover`] moves it aside and rebuilds
    /// the registry from the containers' directories (new seeds, the same cookies).
    #[error("container store {path} is unreadable ({reason}); fix or move it aside")]
    Corrupt {
        /// The store file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Filesystem error.
    #[error("{op} {path}: {source}")]
    Io {
        /// What we were doing.
        op: &'static str,
        /// Where.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Store {
    version: u32,
    default: ContainerId,
    containers: Vec<Container>,
    /// Domain suffix → container. `example.com` covers `www.example.com` too.
    sites: BTreeMap<String, ContainerId>,
}

/// What [`ContainerRegistry::open_or_recover`] repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovered {
    /// Where the unreadable store now is.
    pub moved_to: PathBuf,
    /// Why it could not be read.
    pub reason: String,
    /// How many containers the rebuilt registry has.
    pub containers: usize,
}

/// The human-side container registry, persisted as JSON (atomically, after every change).
#[derive(Debug)]
pub struct ContainerRegistry {
    store_path: PathBuf,
    cache_root: PathBuf,
    store: Store,
}

impl ContainerRegistry {
    /// Opens (or creates, with one "Personal" container) the registry in `profile_dir`:
    /// store at `profile_dir/containers.json`, container caches at `profile_dir/<id>`.
    /// `profile_dir` must be CEF's `root_cache_path`: Chromium only creates an on-disk profile
    /// for a request context whose `cache_path` is a *direct* child of it. A deeper path (this
    /// registry once used `containers/<id>`) makes Chromium log "Cannot create profile" and
    /// silently keep the container in memory, so logins vanish on quit.
    pub fn open(profile_dir: &Path) -> Result<Self, ContainerError> {
        Self::open_at(&profile_dir.join("containers.json"), profile_dir)
    }

    /// [`ContainerRegistry::open`], and when the store is unreadable (a torn or hand-broken
    /// file), the browser still starts and no login is lost: the file is moved aside (kept, for
    /// repair by hand) and the registry is rebuilt from the containers' cache directories, which
    /// hold their cookies and storage under their ids. What the file alone knew is gone: the
    /// names (the recovered containers are "Personal" when there is one, else "Recovered N",
    /// most recently used first and the default), colours, site bindings and fingerprint seeds
    /// (new ones: a site that saw the old one sees a new device with the same cookies, which is
    /// the lesser harm than a browser that will not start or logins that seem gone).
    pub fn open_or_recover(profile_dir: &Path) -> Result<(Self, Option<Recovered>), ContainerError> {
        let store_path = profile_dir.join("containers.json");
        let reason = match Self::open_at(&store_path, profile_dir) {
            Err(ContainerError::Corrupt { reason, .. }) => reason,
            other => return other.map(|r| (r, None)),
        };
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let moved_to = profile_dir.join(format!("containers.json.unreadable-{secs}"));
        fs::rename(&store_path, &moved_to).map_err(|source| ContainerError::Io {
            op: "move aside",
            path: store_path.clone(),
            source,
        })?;
        let store = rebuild(profile_dir)?;
        save(&store_path, &store)?;
        let recovered = Recovered {
            moved_to,
            reason,
            containers: store.containers.len(),
        };
        Ok((
            Self {
                store_path,
                cache_root: profile_dir.to_path_buf(),
                store,
            },
            Some(recovered),
        ))
    }

    /// Like [`ContainerRegistry::open`] with explicit store file and cache root.
    pub fn open_at(store_path: &Path, cache_root: &Path) -> Result<Self, ContainerError> {
        let store = match fs::read(store_path) {
            Ok(bytes) => parse_store(store_path, &bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let first = new_container("Personal", Colour::Blue);
                let store = Store {
                    version: STORE_VERSION,
                    default: first.id.clone(),
                    containers: vec![first],
                    sites: BTreeMap::new(),
                };
                save(store_path, &store)?;
                store
            }
            Err(source) => {
                return Err(ContainerError::Io {
                    op: "read",
                    path: store_path.to_path_buf(),
                    source,
                });
            }
        };
        Ok(Self {
            store_path: store_path.to_path_buf(),
            cache_root: cache_root.to_path_buf(),
            store,
        })
    }

    /// All containers, in creation order.
    pub fn containers(&self) -> &[Container] {
        &self.store.containers
    }

    /// A container by id.
    pub fn get(&self, id: &ContainerId) -> Option<&Container> {
        self.store.containers.iter().find(|c| &c.id == id)
    }

    /// A container by name (case-insensitive).
    pub fn by_name(&self, name: &str) -> Option<&Container> {
        let n = name.trim().to_lowercase();
        self.store.containers.iter().find(|c| c.name.to_lowercase() == n)
    }

    /// The container new tabs use when nothing else decides.
    pub fn default_container(&self) -> &Container {
        self.get(&self.store.default)
            .expect("store invariant: default container exists")
    }

    /// The directory to use as this container's CEF request-context `cache_path`.
    pub fn cache_path(&self, id: &ContainerId) -> PathBuf {
        // Ids are validated to [a-z0-9-], so this cannot escape cache_root.
        self.cache_root.join(id.as_str())
    }

    /// Creates an empty container with a fresh seed.
    pub fn create(&mut self, name: &str, colour: Colour) -> Result<ContainerId, ContainerError> {
        let name = valid_name(name)?;
        if self.by_name(&name).is_some() {
            return Err(ContainerError::DuplicateName(name));
        }
        let c = new_container(&name, colour);
        let id = c.id.clone();
        self.update(|s| {
            s.containers.push(c);
            Ok(())
        })?;
        Ok(id)
    }

    /// Renames a container (human only).
    pub fn rename(&mut self, id: &ContainerId, name: &str) -> Result<(), ContainerError> {
        let name = valid_name(name)?;
        if self.by_name(&name).is_some_and(|c| &c.id != id) {
            return Err(ContainerError::DuplicateName(name));
        }
        self.update(|s| {
            find_mut(s, id)?.name = name;
            Ok(())
        })
    }

    /// Recolours a container (human only).
    pub fn set_colour(&mut self, id: &ContainerId, colour: Colour) -> Result<(), ContainerError> {
        self.update(|s| {
            find_mut(s, id)?.colour = colour;
            Ok(())
        })
    }

    /// Makes `id` the default container for new tabs (human only).
    pub fn set_default(&mut self, id: &ContainerId) -> Result<(), ContainerError> {
        self.update(|s| {
            find_mut(s, id)?;
            s.default = id.clone();
            Ok(())
        })
    }

    /// Binds `site` (a domain; subdomains included) to a container, replacing any earlier
    /// binding. Human only: this is the "move a site" operation the agent does not get.
    pub fn bind_site(&mut self, site: &str, id: &ContainerId) -> Result<(), ContainerError> {
        let site = normalise_site(site)?;
        self.update(|s| {
            find_mut(s, id)?;
            s.sites.insert(site, id.clone());
            Ok(())
        })
    }

    /// Removes a site binding (human only). Returns whether one existed.
    pub fn unbind_site(&mut self, site: &str) -> Result<bool, ContainerError> {
        let site = normalise_site(site)?;
        let mut existed = false;
        self.update(|s| {
            existed = s.sites.remove(&site).is_some();
            Ok(())
        })?;
        Ok(existed)
    }

    /// The binding that applies to `host`: the longest bound domain suffix.
    pub fn site_binding(&self, host: &str) -> Option<(&str, &ContainerId)> {
        let h = host.trim_end_matches('.').to_ascii_lowercase();
        self.store
            .sites
            .iter()
            .filter(|(site, _)| h == **site || h.ends_with(&format!(".{site}")))
            .max_by_key(|(site, _)| site.len())
            .map(|(s, id)| (s.as_str(), id))
    }

    /// All site bindings.
    pub fn site_bindings(&self) -> impl Iterator<Item = (&str, &ContainerId)> {
        self.store.sites.iter().map(|(s, id)| (s.as_str(), id))
    }

    /// Wipes the container's state (its cache directory) and only then gives it a new seed.
    ///
    /// Call only after the app has closed every browser in the container and released its
    /// request context, or CEF will keep writing into the directory being removed. The order
    /// matters: if we crash between the two steps, the container has an old seed and no state
    /// (harmless), never a new seed on old cookies (a visible fingerprint change to a site
    /// that still knows you).
    pub fn reset_state(&mut self, id: &ContainerId) -> Result<(), ContainerError> {
        self.get(id)
            .ok_or_else(|| ContainerError::NoSuchContainer(id.clone()))?;
        let dir = self.cache_path(id);
        remove_dir_if_exists(&dir)?;
        self.update(|s| {
            let c = find_mut(s, id)?;
            c.seed = FingerprintSeed::generate();
            c.generation += 1;
            Ok(())
        })
    }

    /// Deletes a container, its bindings and its state (human only; same caveat as
    /// [`ContainerRegistry::reset_state`]). If it was the default, the first remaining
    /// container becomes the default.
    pub fn delete(&mut self, id: &ContainerId) -> Result<(), ContainerError> {
        self.get(id)
            .ok_or_else(|| ContainerError::NoSuchContainer(id.clone()))?;
        if self.store.containers.len() == 1 {
            return Err(ContainerError::LastContainer);
        }
        self.update(|s| {
            s.containers.retain(|c| &c.id != id);
            s.sites.retain(|_, c| c != id);
            if &s.default == id {
                s.default = s.containers[0].id.clone();
            }
            Ok(())
        })?;
        remove_dir_if_exists(&self.cache_path(id))
    }

    /// Applies `f` to a copy of the store, persists the copy, and only then adopts it, so the
    /// in-memory registry never runs ahead of what is on disk.
    fn update(
        &mut self,
        f: impl FnOnce(&mut Store) -> Result<(), ContainerError>,
    ) -> Result<(), ContainerError> {
        let mut next = self.store.clone();
        f(&mut next)?;
        save(&self.store_path, &next)?;
        self.store = next;
        Ok(())
    }
}

/// The agent's view of the containers. Clone it into the MCP layer; it cannot merge
/// containers, bind or move sites, reset or delete anything, and cannot hand out the registry.
#[derive(Debug, Clone)]
pub struct AgentContainers {
    registry: Arc<Mutex<ContainerRegistry>>,
}

impl AgentContainers {
    /// Wraps the app's shared registry. The app keeps its own `Arc` for the human UI.
    pub fn new(registry: Arc<Mutex<ContainerRegistry>>) -> Self {
        Self { registry }
    }

    fn lock(&self) -> MutexGuard<'_, ContainerRegistry> {
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Id, name and colour of every container (no seeds, no paths).
    pub fn list(&self) -> Vec<ContainerSummary> {
        self.lock()
            .containers()
            .iter()
            .map(|c| ContainerSummary {
                id: c.id.clone(),
                name: c.name.clone(),
                colour: c.colour,
            })
            .collect()
    }

    /// Creates a new, empty container. Harmless to give the agent: a fresh identity holds
    /// nothing that could leak.
    pub fn create(&self, name: &str, colour: Colour) -> Result<ContainerId, ContainerError> {
        self.lock().create(name, colour)
    }

    /// Which container a navigation to `host` must happen in.
    ///
    /// A host bound by the human always opens in its bound container; asking for another one
    /// is refused rather than silently redirected, so the agent learns the rule. An unbound
    /// host opens where the agent asked, or in the default container.
    pub fn container_for_navigation(
        &self,
        requested: Option<&ContainerId>,
        host: &str,
    ) -> Result<ContainerId, ContainerError> {
        let reg = self.lock();
        if let Some(r) = requested {
            reg.get(r)
                .ok_or_else(|| ContainerError::NoSuchContainer(r.clone()))?;
        }
        match (reg.site_binding(host), requested) {
            (Some((site, bound)), Some(r)) if bound != r => Err(ContainerError::SiteBoundElsewhere {
                site: site.to_string(),
                bound: bound.clone(),
                requested: r.clone(),
            }),
            (Some((_, bound)), _) => Ok(bound.clone()),
            (None, Some(r)) => Ok(r.clone()),
            (None, None) => Ok(reg.default_container().id.clone()),
        }
    }
}

/// The registry's containers as their cache directories show them (`c-` and 16 hex digits, the
/// ids [`ContainerId::generate`] makes), most recently used first; one fresh "Personal" when
/// there are none.
fn rebuild(cache_root: &Path) -> Result<Store, ContainerError> {
    let io = |source| ContainerError::Io {
        op: "list",
        path: cache_root.to_path_buf(),
        source,
    };
    let mut found: Vec<(SystemTime, ContainerId)> = Vec::new();
    for entry in fs::read_dir(cache_root).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.len() == 18
            && name.starts_with("c-")
            && name[2..]
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let Ok(meta) = entry.metadata() else { continue };
        if ours && meta.is_dir() {
            let used = meta.modified().unwrap_or(UNIX_EPOCH);
            found.push((used, ContainerId::parse(&name)?));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    const COLOURS: [Colour; 9] = [
        Colour::Blue,
        Colour::Orange,
        Colour::Green,
        Colour::Pink,
        Colour::Turquoise,
        Colour::Yellow,
        Colour::Red,
        Colour::Purple,
        Colour::Grey,
    ];
    let one = found.len() == 1;
    let containers: Vec<Container> = found
        .into_iter()
        .enumerate()
        .map(|(i, (_, id))| {
            let name = if one {
                "Personal".to_string()
            } else {
                format!("Recovered {}", i + 1)
            };
            Container {
                id,
                ..new_container(&name, COLOURS[i % COLOURS.len()])
            }
        })
        .collect();
    let containers = if containers.is_empty() {
        vec![new_container("Personal", Colour::Blue)]
    } else {
        containers
    };
    Ok(Store {
        version: STORE_VERSION,
        default: containers[0].id.clone(),
        containers,
        sites: BTreeMap::new(),
    })
}

fn new_container(name: &str, colour: Colour) -> Container {
    let created_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Container {
        id: ContainerId::generate(),
        name: name.to_string(),
        colour,
        seed: FingerprintSeed::generate(),
        generation: 0,
        created_unix,
    }
}

fn find_mut<'a>(s: &'a mut Store, id: &ContainerId) -> Result<&'a mut Container, ContainerError> {
    s.containers
        .iter_mut()
        .find(|c| &c.id == id)
        .ok_or_else(|| ContainerError::NoSuchContainer(id.clone()))
}

/// The name of the browser's private (in-memory, never recorded) tabs.
pub const PRIVATE_NAME: &str = "Private";

fn valid_name(name: &str) -> Result<String, ContainerError> {
    let n = name.trim();
    if n.is_empty() || n.chars().count() > MAX_NAME_CHARS || n.chars().any(char::is_control) {
        return Err(ContainerError::InvalidName(name.chars().take(80).collect()));
    }
    if n.eq_ignore_ascii_case(PRIVATE_NAME) {
        return Err(ContainerError::ReservedName(n.to_string()));
    }
    Ok(n.to_string())
}

fn normalise_site(site: &str) -> Result<String, ContainerError> {
    let bad = || ContainerError::InvalidSite(site.chars().take(80).collect());
    let s = site.trim().trim_end_matches('.');
    if s.is_empty() || s.contains(['/', ':', '@', ' ']) {
        return Err(bad());
    }
    // Reuse the URL parser for IDNA and case folding, so the binding matches the hosts the
    // browser will report.
    let url = url::Url::parse(&format!("http://{s}/")).map_err(|_| bad())?;
    url.host_str().map(str::to_string).ok_or_else(bad)
}

fn parse_store(path: &Path, bytes: &[u8]) -> Result<Store, ContainerError> {
    let corrupt = |reason: String| ContainerError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let store: Store = serde_json::from_slice(bytes).map_err(|e| corrupt(e.to_string()))?;
    if store.version != STORE_VERSION {
        return Err(corrupt(format!("unsupported version {}", store.version)));
    }
    if !store.containers.iter().any(|c| c.id == store.default) {
        return Err(corrupt("default container missing".into()));
    }
    let mut ids: Vec<_> = store.containers.iter().map(|c| &c.id).collect();
    ids.sort();
    ids.dedup();
    if ids.len() != store.containers.len() {
        return Err(corrupt("duplicate container id".into()));
    }
    if let Some((site, _)) = store
        .sites
        .iter()
        .find(|(_, id)| !store.containers.iter().any(|c| &c.id == *id))
    {
        return Err(corrupt(format!("site {site} bound to a missing container")));
    }
    Ok(store)
}

fn save(path: &Path, store: &Store) -> Result<(), ContainerError> {
    let json = serde_json::to_vec_pretty(store).expect("store serialises");
    atomic_write(path, &json).map_err(|source| ContainerError::Io {
        op: "write",
        path: path.to_path_buf(),
        source,
    })
}

fn remove_dir_if_exists(dir: &Path) -> Result<(), ContainerError> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(ContainerError::Io {
            op: "remove",
            path: dir.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &Path) -> ContainerRegistry {
        ContainerRegistry::open(dir).unwrap()
    }

    #[test]
    fn first_open_creates_default_and_persists() {
        let d = tempfile::tempdir().unwrap();
        let r = open(d.path());
        assert_eq!(r.containers().len(), 1);
        assert_eq!(r.default_container().name, "Personal");
        assert!(d.path().join("containers.json").is_file());
    }

    #[test]
    fn seed_is_stable_across_reopen_and_changes_only_on_reset() {
        let d = tempfile::tempdir().unwrap();
        let mut r = open(d.path());
        let work = r.create("Work", Colour::Orange).unwrap();
        let seed = r.get(&work).unwrap().seed.clone();
        let canvas = seed.derive("canvas");
        assert_ne!(canvas, seed.derive("audio"));
        r.rename(&work, "Job").unwrap();
        r.set_colour(&work, Colour::Red).unwrap();
        drop(r);

        let mut r = open(d.path());
        let c = r.get(&work).unwrap();
        assert_eq!((c.name.as_str(), c.colour), ("Job", Colour::Red));
        assert_eq!(c.seed, seed);
        assert_eq!(c.seed.derive("canvas"), canvas);

        // State in the container's cache dir, then reset: dir gone, new seed, generation + 1.
        let cache = r.cache_path(&work);
        fs::create_dir_all(cache.join("Local Storage")).unwrap();
        fs::write(cache.join("Cookies"), b"sqlite").unwrap();
        r.reset_state(&work).unwrap();
        assert!(!cache.exists());
        let c = r.get(&work).unwrap();
        assert_ne!(c.seed, seed);
        assert_eq!(c.generation, 1);
        let new_seed = c.seed.clone();
        drop(r);
        assert_eq!(open(d.path()).get(&work).unwrap().seed, new_seed);
    }

    #[test]
    fn cache_paths_are_distinct_and_inside_root() {
        let d = tempfile::tempdir().unwrap();
        let mut r = open(d.path());
        let a = r.default_container().id.clone();
        let b = r.create("Shopping", Colour::Pink).unwrap();
        let (pa, pb) = (r.cache_path(&a), r.cache_path(&b));
        assert_ne!(pa, pb);
        for p in [pa, pb] {
            // Directly under the root: Chromium refuses deeper profile paths.
            assert_eq!(p.parent(), Some(d.path()), "{}", p.display());
        }
    }

    #[test]
    fn names_unique_and_validated() {
        let d = tempfile::tempdir().unwrap();
        let mut r = open(d.path());
        assert!(matches!(
            r.create("personal", Colour::Grey),
            Err(ContainerError::DuplicateName(_))
        ));
        assert!(matches!(
            r.create("  ", Colour::Grey),
            Err(ContainerError::InvalidName(_))
        ));
        assert!(matches!(
            r.create("a\u{7}b", Colour::Grey),
            Err(ContainerError::InvalidName(_))
        ));
        assert!(matches!(
            r.create(&"x".repeat(65), Colour::Grey),
            Err(ContainerError::InvalidName(_))
        ));
        assert!(matches!(
            r.create(" private ", Colour::Grey),
            Err(ContainerError::ReservedName(_))
        ));
        let id = r.create("Bank", Colour::Green).unwrap();
        assert!(
            r.rename(&id, "BANK").is_ok(),
            "renaming to itself in another case is fine"
        );
    }

    #[test]
    fn agent_cannot_open_bound_site_elsewhere() {
        let d = tempfile::tempdir().unwrap();
        let mut r = open(d.path());
        let personal = r.default_container().id.clone();
        let bank = r.create("Bank", Colour::Green).unwrap();
        r.bind_site("Bank.Example", &bank).unwrap();
        let shared = Arc::new(Mutex::new(r));
        let agent = AgentContainers::new(shared.clone());

        assert_eq!(
            agent.container_for_navigation(None, "www.bank.example").unwrap(),
            bank
        );
        assert_eq!(
            agent
                .container_for_navigation(Some(&bank), "bank.example")
                .unwrap(),
            bank
        );
        let e = agent
            .container_for_navigation(Some(&personal), "login.bank.example")
            .unwrap_err();
        assert!(matches!(e, ContainerError::SiteBoundElsewhere { .. }), "{e}");
        assert!(e.to_string().contains("Only the user"));
        // Unbound and look-alike hosts follow the request or the default.
        assert_eq!(
            agent.container_for_navigation(None, "notbank.example").unwrap(),
            personal
        );
        assert_eq!(
            agent
                .container_for_navigation(Some(&bank), "news.example")
                .unwrap(),
            bank
        );

        // The agent view lists without seeds and can create, nothing more.
        let new = agent.create("Scratch", Colour::Yellow).unwrap();
        assert_eq!(agent.list().len(), 3);
        assert!(agent.list().iter().any(|c| c.id == new));
        let bogus = ContainerId::parse("c-0000000000000000").unwrap();
        assert!(matches!(
            agent.container_for_navigation(Some(&bogus), "x.example"),
            Err(ContainerError::NoSuchContainer(_))
        ));

        // The human can still move the site.
        shared
            .lock()
            .unwrap()
            .bind_site("bank.example", &personal)
            .unwrap();
        assert_eq!(
            agent.container_for_navigation(None, "bank.example").unwrap(),
            personal
        );
    }

    #[test]
    fn longest_binding_wins_and_unbind() {
        let d = tempfile::tempdir().unwrap();
        let mut r = open(d.path());
        let a = r.default_container().id.clone();
        let b = r.create("B", Colour::Purple).unwrap();
        r.bind_site("example.com", &a).unwrap();
        r.bind_site("mail.example.com", &b).unwrap();
        assert_eq!(r.site_binding("x.mail.example.com").unwrap().1, &b);
        assert_eq!(r.site_binding("www.example.com").unwrap().1, &a);
        assert!(r.site_binding("example.org").is_none());
        assert!(r.unbind_site("mail.example.com").unwrap());
        assert_eq!(r.site_binding("mail.example.com").unwrap().1, &a);
        assert!(matches!(
            r.bind_site("http://x.com/", &a),
            Err(ContainerError::InvalidSite(_))
        ));
    }

    #[test]
    fn delete_removes_state_bindings_and_moves_default() {
        let d = tempfile::tempdir().unwrap();
        let mut r = open(d.path());
        let a = r.default_container().id.clone();
        assert!(matches!(r.delete(&a), Err(ContainerError::LastContainer)));
        let b = r.create("B", Colour::Blue).unwrap();
        r.bind_site("a.example", &a).unwrap();
        fs::create_dir_all(r.cache_path(&a)).unwrap();
        r.delete(&a).unwrap();
        assert!(!r.cache_path(&a).exists());
        assert_eq!(r.default_container().id, b);
        assert!(r.site_binding("a.example").is_none());
        drop(r);
        assert_eq!(open(d.path()).containers().len(), 1);
    }

    #[test]
    fn corrupt_or_tampered_store_is_refused_not_replaced() {
        let d = tempfile::tempdir().unwrap();
        let store = d.path().join("containers.json");
        fs::write(&store, b"{ half a file").unwrap();
        assert!(matches!(
            ContainerRegistry::open(d.path()),
            Err(ContainerError::Corrupt { .. })
        ));
        assert_eq!(fs::read(&store).unwrap(), b"{ half a file");

        drop(open(tempfile::tempdir().unwrap().path()));
        let good = {
            let d2 = tempfile::tempdir().unwrap();
            drop(open(d2.path()));
            fs::read_to_string(d2.path().join("containers.json")).unwrap()
        };
        let v: serde_json::Value = serde_json::from_str(&good).unwrap();
        let id = v["default"].as_str().unwrap().to_string();
        let evil = good.replace(&id, "../../etc");
        fs::write(&store, evil).unwrap();
        let e = ContainerRegistry::open(d.path()).unwrap_err();
        assert!(matches!(e, ContainerError::Corrupt { .. }), "{e}");
    }

    /// An unreadable store is moved aside and the registry rebuilt from the containers'
    /// directories, which keep their cookies: the same ids, the most recently used first and
    /// the default; a readable store is opened as it is.
    #[test]
    fn an_unreadable_store_is_moved_aside_and_rebuilt_from_the_containers_directories() {
        let d = tempfile::tempdir().unwrap();
        let mut r = open(d.path());
        let personal = r.default_container().id.clone();
        let work = r.create("Work", Colour::Red).unwrap();
        for id in [&personal, &work] {
            fs::create_dir_all(d.path().join(id.as_str()).join("Cookies-dir")).unwrap();
        }
        // Work was used last.
        std::thread::sleep(std::time::Duration::from_millis(20));
        fs::write(d.path().join(work.as_str()).join("Cookies"), b"x").unwrap();
        drop(r);
        let (_, none) = ContainerRegistry::open_or_recover(d.path()).unwrap();
        assert_eq!(none, None, "a readable store is not touched");

        let store = d.path().join("containers.json");
        fs::write(&store, b"{ half a file").unwrap();
        // Not a container's directory: Chromium's own, and a name that only looks close.
        fs::create_dir_all(d.path().join("Default")).unwrap();
        fs::create_dir_all(d.path().join("c-xyz")).unwrap();
        let (r, rec) = ContainerRegistry::open_or_recover(d.path()).unwrap();
        let rec = rec.expect("a repair");
        assert_eq!(fs::read(&rec.moved_to).unwrap(), b"{ half a file", "kept aside");
        assert_eq!(rec.containers, 2);
        let ids: Vec<_> = r.containers().iter().map(|c| c.id.clone()).collect();
        assert_eq!(ids, vec![work.clone(), personal.clone()]);
        assert_eq!(r.default_container().id, work);
        assert_eq!(r.containers()[0].name, "Recovered 1");
        // Saved: the next start opens it as it is.
        let (again, rec) = ContainerRegistry::open_or_recover(d.path()).unwrap();
        assert_eq!(rec, None);
        assert_eq!(again.containers().len(), 2);

        // One directory: it is Personal.
        let d = tempfile::tempdir().unwrap();
        let id = open(d.path()).default_container().id.clone();
        fs::create_dir_all(d.path().join(id.as_str())).unwrap();
        fs::write(d.path().join("containers.json"), b"[]").unwrap();
        let (r, rec) = ContainerRegistry::open_or_recover(d.path()).unwrap();
        assert!(rec.is_some());
        assert_eq!(r.default_container().id, id);
        assert_eq!(r.containers()[0].name, "Personal");
    }

    #[test]
    fn failed_save_leaves_memory_unchanged() {
        let d = tempfile::tempdir().unwrap();
        let mut r = open(d.path());
        // Make the store path unwritable by replacing it with a directory.
        let store = d.path().join("containers.json");
        fs::remove_file(&store).unwrap();
        fs::create_dir(&store).unwrap();
        assert!(r.create("Nope", Colour::Grey).is_err());
        assert_eq!(r.containers().len(), 1);
    }

    #[test]
    fn seed_debug_is_redacted() {
        let s = FingerprintSeed([0xab; 32]);
        assert_eq!(format!("{s:?}"), "FingerprintSeed(abababab…)");
    }
}
