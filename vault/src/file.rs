//! On-disk format and atomic replacement.
//!
//! Format version 2 (written by this build):
//!
//! ```text
//! offset  size  field
//!      0     8  magic  b"APVAULT\0"
//!      8     2  format version (u16 LE)             -- read before anything else
//!     10     1  KDF id (1 = Argon2id v1.3)
//!     11    12  m_cost KiB, t_cost, p_cost (u32 LE each)
//!     23    16  salt
//!     39    32  passphrase verifier = HMAC(master, "verifier")
//!     71    24  XChaCha20-Poly1305 nonce (random, fresh per save)
//!     95     8  ciphertext length (u64 LE)
//!    103     8  generation (u64 LE), one more on every save
//!    111    32  SHA-256 of bytes 0..111
//!    143     n  ciphertext (payload JSON + 16-byte tag), AAD = bytes 0..111
//! ```
//!
//! Version 1 is the same without the generation field (checksum at 103, ciphertext at 135).
//! It is still read, as generation 0, and the next save writes version 2.
//!
//! Why each piece exists:
//! * The version comes right after the magic and is checked first, so a future layout is
//!   reported as [`VaultError::FutureVersion`] rather than as corruption.
//! * The header is the AEAD's associated data, so KDF parameters, salt and length cannot be
//!   changed (e.g. downgraded) without the tag failing.
//! * The verifier lets a wrong passphrase be told apart from a tampered payload. It is no new
//!   oracle: anyone with the file can already test a guess against the AEAD tag, and both cost
//!   one Argon2 derivation.
//! * The checksum is unkeyed and only for diagnosis: it lets a flipped header byte be reported
//!   as corruption instead of masquerading as a wrong passphrase. Security never rests on it.
//! * The length field makes truncation detectable before any crypto runs.
//! * The generation makes a rolled-back file detectable: an older copy of the vault put back in
//!   place (a restored backup, a sync conflict, an attacker undoing a password change) carries
//!   a lower number than the last one this profile saw, which is kept outside the file (see
//!   [`generation_path`] and [`crate::VaultError::RolledBack`]). It is inside the AAD, so an old
//!   copy cannot be given a higher number without the passphrase.

use std::io;
use std::path::{Path, PathBuf};

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::error::VaultError;
use crate::kdf::{KdfParams, MasterKey, derive_master};

pub(crate) const MAGIC: &[u8; 8] = b"APVAULT\0";
/// Highest format version this build reads, and the one it writes.
pub const FORMAT_VERSION: u16 = 2;
const KDF_ARGON2ID: u8 = 1;
/// AAD length of version 1 (no generation field).
const AAD_LEN_V1: usize = 103;
const AAD_LEN: usize = AAD_LEN_V1 + 8;
pub(crate) const HEADER_LEN: usize = AAD_LEN + 32;

/// Bytes covered by the AAD in a file of format `version` (1 or 2).
fn aad_len(version: u16) -> usize {
    if version == 1 { AAD_LEN_V1 } else { AAD_LEN }
}

pub(crate) const LABEL_PAYLOAD: &[u8] = b"aperture-vault v1 payload key";
pub(crate) const LABEL_VERIFIER: &[u8] = b"aperture-vault v1 passphrase verifier";

/// What stays fixed across saves of one vault (until the passphrase changes).
#[derive(Clone)]
pub(crate) struct KeyHeader {
    pub params: KdfParams,
    pub salt: [u8; 16],
    pub verifier: [u8; 32],
}

pub(crate) fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    // The OS RNG failing is not recoverable in any meaningful way for a crypto vault.
    getrandom::fill(&mut b).expect("OS random number generator unavailable");
    b
}

pub(crate) fn verifier_for(key: &MasterKey) -> [u8; 32] {
    *key.subkey(LABEL_VERIFIER)
}

/// Derives a fresh key for a new vault or passphrase change.
pub(crate) fn new_key(passphrase: &str, params: KdfParams) -> Result<(MasterKey, KeyHeader), VaultError> {
    let salt = random_bytes::<16>();
    let key = derive_master(passphrase.as_bytes(), &salt, &params)?;
    let verifier = verifier_for(&key);
    Ok((
        key,
        KeyHeader {
            params,
            salt,
            verifier,
        },
    ))
}

/// Encrypts `plaintext` under `key` into a complete file image of the current format, stamped
/// with `generation`.
pub(crate) fn seal(key: &MasterKey, kh: &KeyHeader, generation: u64, plaintext: &[u8]) -> Vec<u8> {
    let nonce = random_bytes::<24>();
    let ct_len = (plaintext.len() + 16) as u64;
    let mut out = Vec::with_capacity(HEADER_LEN + plaintext.len() + 16);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(KDF_ARGON2ID);
    out.extend_from_slice(&kh.params.m_cost_kib.to_le_bytes());
    out.extend_from_slice(&kh.params.t_cost.to_le_bytes());
    out.extend_from_slice(&kh.params.p_cost.to_le_bytes());
    out.extend_from_slice(&kh.salt);
    out.extend_from_slice(&kh.verifier);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&ct_len.to_le_bytes());
    out.extend_from_slice(&generation.to_le_bytes());
    debug_assert_eq!(out.len(), AAD_LEN);
    let sum = Sha256::digest(&out);
    out.extend_from_slice(&sum);
    let cipher = XChaCha20Poly1305::new(key.subkey(LABEL_PAYLOAD).as_ref().into());
    let ct = cipher
        .encrypt(
            XNonce::from_slice(&nonce),
            Payload {
                msg: plaintext,
                aad: &out[..AAD_LEN],
            },
        )
        .expect("XChaCha20-Poly1305 encryption cannot fail for in-memory sizes");
    out.extend_from_slice(&ct);
    out
}

/// A header that parsed and passed its structural checks.
pub(crate) struct ParsedHeader<'a> {
    pub key_header: KeyHeader,
    /// The save count in the header (0 for a version-1 file). Not yet authenticated: trust it
    /// only after [`open`] succeeded.
    pub generation: u64,
    nonce: [u8; 24],
    aad: &'a [u8],
    ciphertext: &'a [u8],
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Structural checks, in the order that makes each error accurate.
pub(crate) fn parse(bytes: &[u8]) -> Result<ParsedHeader<'_>, VaultError> {
    let found = bytes.len() as u64;
    if bytes.len() < MAGIC.len() {
        // Too short to even tell; a prefix of our magic is most plausibly our file cut short.
        return if MAGIC.starts_with(bytes) {
            Err(VaultError::Truncated {
                expected: HEADER_LEN as u64,
                found,
            })
        } else {
            Err(VaultError::NotAVault)
        };
    }
    if &bytes[..8] != MAGIC {
        return Err(VaultError::NotAVault);
    }
    if bytes.len() < 10 {
        return Err(VaultError::Truncated {
            expected: HEADER_LEN as u64,
            found,
        });
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version > FORMAT_VERSION {
        return Err(VaultError::FutureVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if version == 0 {
        return Err(VaultError::Corrupted("format version 0"));
    }
    let aad_len = aad_len(version);
    let header_len = aad_len + 32;
    if bytes.len() < header_len {
        return Err(VaultError::Truncated {
            expected: header_len as u64,
            found,
        });
    }
    if Sha256::digest(&bytes[..aad_len])[..] != bytes[aad_len..header_len] {
        return Err(VaultError::Corrupted("header checksum mismatch"));
    }
    if bytes[10] != KDF_ARGON2ID {
        return Err(VaultError::Corrupted("unknown KDF"));
    }
    let params = KdfParams {
        m_cost_kib: u32_at(bytes, 11),
        t_cost: u32_at(bytes, 15),
        p_cost: u32_at(bytes, 19),
    };
    params
        .validate()
        .map_err(|_| VaultError::Corrupted("KDF parameters out of range"))?;
    let salt: [u8; 16] = bytes[23..39].try_into().expect("16");
    let verifier: [u8; 32] = bytes[39..71].try_into().expect("32");
    let nonce: [u8; 24] = bytes[71..95].try_into().expect("24");
    let ct_len = u64::from_le_bytes(bytes[95..103].try_into().expect("8"));
    if ct_len < 16 {
        return Err(VaultError::Corrupted("ciphertext shorter than a tag"));
    }
    let generation = if version == 1 {
        0
    } else {
        u64::from_le_bytes(bytes[103..111].try_into().expect("8"))
    };
    let expected = header_len as u64 + ct_len;
    if found < expected {
        return Err(VaultError::Truncated { expected, found });
    }
    if found > expected {
        return Err(VaultError::Corrupted("trailing bytes after payload"));
    }
    Ok(ParsedHeader {
        key_header: KeyHeader {
            params,
            salt,
            verifier,
        },
        generation,
        nonce,
        aad: &bytes[..aad_len],
        ciphertext: &bytes[header_len..],
    })
}

/// What [`open`] returns: the key, the fixed header, the authenticated generation, and the
/// decrypted payload.
pub(crate) type Opened = (MasterKey, KeyHeader, u64, Zeroizing<Vec<u8>>);

/// Full open: structure, passphrase, then authentication.
pub(crate) fn open(bytes: &[u8], passphrase: &str) -> Result<Opened, VaultError> {
    let h = parse(bytes)?;
    let key = derive_master(passphrase.as_bytes(), &h.key_header.salt, &h.key_header.params)?;
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&[0u8; 32]).expect("any key length");
    // Constant-time compare via HMAC's verify: re-MAC both sides under a throwaway key so the
    // comparison does not short-circuit on the first differing byte.
    mac.update(&verifier_for(&key));
    let ours = mac.finalize().into_bytes();
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&[0u8; 32]).expect("any key length");
    mac.update(&h.key_header.verifier);
    if mac.verify_slice(&ours).is_err() {
        return Err(VaultError::WrongPassphrase);
    }
    let cipher = XChaCha20Poly1305::new(key.subkey(LABEL_PAYLOAD).as_ref().into());
    let plain = cipher
        .decrypt(
            XNonce::from_slice(&h.nonce),
            Payload {
                msg: h.ciphertext,
                aad: h.aad,
            },
        )
        .map_err(|_| VaultError::Tampered)?;
    Ok((key, h.key_header, h.generation, Zeroizing::new(plain)))
}

/// Where the last generation this profile saw of the vault at `vault` is kept: beside it, as
/// `<stem>.generation` (`vault.aperture` → `vault.generation`). Outside the vault file, since
/// the point is to notice that file being replaced by an older copy of itself.
///
/// It only catches a copy put back *without* this record being rolled back too: a restored
/// backup of the vault file alone, a sync tool resurrecting an old version, someone swapping
/// the file. Whoever can write the whole profile directory can also delete or lower it.
pub fn generation_path(vault: &Path) -> PathBuf {
    vault.with_extension("generation")
}

/// The last generation recorded for `vault`, or `None` when there is no record yet (a vault
/// from before records were kept, or one never opened by this build).
pub(crate) fn last_seen_generation(vault: &Path) -> Result<Option<u64>, VaultError> {
    let path = generation_path(vault);
    match std::fs::read_to_string(&path) {
        Ok(s) => s
            .trim()
            .parse::<u64>()
            .map(Some)
            .map_err(|_| VaultError::GenerationRecord(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Records that generation `g` of `vault` was seen (atomically, `0600`).
pub(crate) fn record_generation(vault: &Path, g: u64) -> Result<(), VaultError> {
    aperture_common::fs::write_atomic(&generation_path(vault), format!("{g}\n").as_bytes())?;
    Ok(())
}

/// Refuses a vault file whose generation is below the last one recorded for it.
pub(crate) fn check_generation(vault: &Path, found: u64) -> Result<(), VaultError> {
    match last_seen_generation(vault)? {
        Some(last_seen) if found < last_seen => Err(VaultError::RolledBack { found, last_seen }),
        _ => Ok(()),
    }
}

/// Replaces `path` with `bytes` so that a crash at any instant leaves either the old or the
/// new file, never a mixture: write a sibling temp file (0600), fsync it, rename over the target
/// (atomic within one filesystem on POSIX and on NTFS), then fsync the directory so the rename
/// itself survives power loss. The shared implementation, re-exported under the name the vault
/// (and its crash test) have always used.
pub use aperture_common::fs::write_atomic as atomic_write;

/// Like [`atomic_write`] but fails if `path` already exists, without a window in which a
/// concurrently created file could be replaced.
pub(crate) fn atomic_create(path: &Path, bytes: &[u8]) -> Result<(), VaultError> {
    aperture_common::fs::create_atomic(path, bytes).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            VaultError::AlreadyExists(path.to_owned())
        } else {
            VaultError::from(e)
        }
    })
}

/// Removes temp files a crashed writer left beside `path`. Called at unlock, when this
/// process is about to become the vault's only writer.
pub(crate) fn remove_stale_temps(path: &Path) {
    aperture_common::fs::remove_stale_temps(path);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::PathBuf;

    fn sealed(pass: &str, msg: &[u8]) -> Vec<u8> {
        let (k, kh) = new_key(pass, KdfParams::insecure_fast_for_tests()).unwrap();
        seal(&k, &kh, 7, msg)
    }

    /// A version-1 image, as builds before the generation field wrote them.
    pub(crate) fn seal_v1(key: &MasterKey, kh: &KeyHeader, plaintext: &[u8]) -> Vec<u8> {
        let v2 = seal(key, kh, 0, plaintext);
        let nonce: [u8; 24] = v2[71..95].try_into().unwrap();
        let mut out = v2[..AAD_LEN_V1].to_vec();
        out[8..10].copy_from_slice(&1u16.to_le_bytes());
        let sum = Sha256::digest(&out);
        out.extend_from_slice(&sum);
        let cipher = XChaCha20Poly1305::new(key.subkey(LABEL_PAYLOAD).as_ref().into());
        let ct = cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: plaintext,
                    aad: &out[..AAD_LEN_V1],
                },
            )
            .unwrap();
        out.extend_from_slice(&ct);
        out
    }

    fn sealed_v1(pass: &str, msg: &[u8]) -> Vec<u8> {
        let (k, kh) = new_key(pass, KdfParams::insecure_fast_for_tests()).unwrap();
        seal_v1(&k, &kh, msg)
    }

    #[test]
    fn roundtrip() {
        let f = sealed("pw", b"hello");
        let (_, _, generation, plain) = open(&f, "pw").unwrap();
        assert_eq!(&plain[..], b"hello");
        assert_eq!(generation, 7);
        assert_eq!(parse(&f).unwrap().generation, 7);
    }

    #[test]
    fn version_1_files_still_open_as_generation_0() {
        let f = sealed_v1("pw", b"old format");
        assert_eq!(f.len(), AAD_LEN_V1 + 32 + b"old format".len() + 16);
        let (_, _, generation, plain) = open(&f, "pw").unwrap();
        assert_eq!((&plain[..], generation), (&b"old format"[..], 0));
    }

    #[test]
    fn generation_is_authenticated() {
        // Raising an old copy's generation (checksum recomputed, as anyone can) must fail the
        // tag, or a rolled-back file could be passed off as current.
        let mut f = sealed("pw", b"payload");
        f[103..111].copy_from_slice(&1000u64.to_le_bytes());
        let sum = Sha256::digest(&f[..AAD_LEN]);
        f[AAD_LEN..HEADER_LEN].copy_from_slice(&sum);
        assert_eq!(parse(&f).unwrap().generation, 1000);
        assert!(matches!(open(&f, "pw").map(|_| ()), Err(VaultError::Tampered)));
    }

    #[test]
    fn nonces_are_fresh() {
        let (k, kh) = new_key("pw", KdfParams::insecure_fast_for_tests()).unwrap();
        assert_ne!(seal(&k, &kh, 1, b"x")[71..95], seal(&k, &kh, 1, b"x")[71..95]);
    }

    #[test]
    fn every_single_byte_flip_is_detected_with_the_right_class() {
        for (f, header_len) in [
            (sealed("pw", b"some payload bytes"), HEADER_LEN),
            (sealed_v1("pw", b"some payload bytes"), AAD_LEN_V1 + 32),
        ] {
            let version = u16::from_le_bytes([f[8], f[9]]);
            for i in 0..f.len() {
                let mut g = f.clone();
                g[i] ^= 0x01;
                let err = open(&g, "pw").map(|_| ()).unwrap_err();
                let ok = match i {
                    0..8 => matches!(err, VaultError::NotAVault),
                    // Low bit of version 1 -> 0 is "corrupted", of version 2 -> 3 is a future
                    // version; a high byte flip is a future version.
                    8 if version == 1 => matches!(err, VaultError::Corrupted(_)),
                    8 | 9 => matches!(err, VaultError::FutureVersion { .. }),
                    _ if i < header_len => matches!(err, VaultError::Corrupted(_)),
                    _ => matches!(err, VaultError::Tampered),
                };
                assert!(ok, "v{version} byte {i}: {err:?}");
            }
        }
    }

    #[test]
    fn header_change_with_recomputed_checksum_still_fails_authentication() {
        // An attacker can recompute the unkeyed checksum; the AEAD must still catch a
        // header edit. Edit the nonce (not covered by the verifier).
        let mut f = sealed("pw", b"payload");
        f[80] ^= 0xff;
        let sum = Sha256::digest(&f[..AAD_LEN]);
        f[AAD_LEN..HEADER_LEN].copy_from_slice(&sum);
        assert!(matches!(open(&f, "pw").map(|_| ()), Err(VaultError::Tampered)));
    }

    #[test]
    fn every_truncation_is_reported_as_truncated() {
        for f in [
            sealed("pw", b"some payload bytes"),
            sealed_v1("pw", b"some payload bytes"),
        ] {
            for n in 1..f.len() {
                let err = open(&f[..n], "pw").map(|_| ()).unwrap_err();
                assert!(matches!(err, VaultError::Truncated { .. }), "len {n}: {err:?}");
            }
        }
        assert!(matches!(
            open(&[], "pw").map(|_| ()),
            Err(VaultError::Truncated { .. })
        ));
    }

    #[test]
    fn distinct_errors() {
        let f = sealed("pw", b"x");
        assert!(matches!(
            open(&f, "nope").map(|_| ()),
            Err(VaultError::WrongPassphrase)
        ));
        let mut g = f.clone();
        g[8..10].copy_from_slice(&7u16.to_le_bytes());
        assert!(matches!(
            open(&g, "pw").map(|_| ()),
            Err(VaultError::FutureVersion {
                found: 7,
                supported: 2
            })
        ));
        let mut g = f.clone();
        g.push(0);
        assert!(matches!(
            open(&g, "pw").map(|_| ()),
            Err(VaultError::Corrupted(_))
        ));
        assert!(matches!(
            open(b"PK\x03\x04zipzip", "pw").map(|_| ()),
            Err(VaultError::NotAVault)
        ));
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempdir();
        let p = dir.join("v.bin");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        assert!(matches!(
            atomic_create(&p, b"three"),
            Err(VaultError::AlreadyExists(_))
        ));
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let mark = aperture_common::fs::TEMP_MARK;
        fs::write(dir.join(format!(".v.bin{mark}dead")), b"partial").unwrap();
        remove_stale_temps(&p);
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_version_1_vault_unlocks_and_is_migrated_on_the_next_save() {
        let dir = tempdir();
        let path = dir.join("old.vault");
        let (k, kh) = new_key("pw", KdfParams::insecure_fast_for_tests()).unwrap();
        let payload = crate::state::serialize(&crate::state::Payload::new()).unwrap();
        let v1 = seal_v1(&k, &kh, &payload);
        fs::write(&path, &v1).unwrap();
        let v = crate::Vault::open_unlocked(&path, "pw").unwrap();
        assert_eq!(v.generation().unwrap(), 0);
        let o = crate::Origin::parse("https://example.com").unwrap();
        v.add_entry(crate::NewEntry {
            origin: &o,
            label: "l",
            username: "u",
            password: "secret-pw".into(),
            totp: None,
        })
        .unwrap();
        let now = fs::read(&path).unwrap();
        assert_eq!(u16::from_le_bytes([now[8], now[9]]), FORMAT_VERSION);
        assert_eq!(parse(&now).unwrap().generation, 1);
        drop(v);
        assert_eq!(
            crate::Vault::open_unlocked(&path, "pw")
                .unwrap()
                .entries()
                .unwrap()
                .len(),
            1
        );
        // The pre-migration file put back is an older copy.
        fs::write(&path, &v1).unwrap();
        assert!(matches!(
            crate::Vault::open(&path).map(|_| ()),
            Err(VaultError::RolledBack {
                found: 0,
                last_seen: 1
            })
        ));
        let _ = fs::remove_dir_all(&dir);
    }

    pub(crate) fn tempdir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "aperture-vault-unit-{}",
            random_bytes::<8>()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        ));
        fs::create_dir_all(&d).unwrap();
        d
    }
}
