//! RFC 6238 time-based one-time passwords (and the RFC 4226 HOTP core under them).
//!
//! Offline by nature: a seed and a clock are all it takes, so nothing here touches the
//! network. Seeds arrive either as the base32 text a site prints beside its QR code or as the
//! `otpauth://totp/...` URI the QR code encodes.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};

use crate::secret::SecretString;

/// Errors parsing a TOTP seed or URI.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TotpError {
    /// The seed is not valid base32.
    #[error("secret is not valid base32")]
    BadBase32,
    /// The seed decodes to nothing (or too little to be a real seed).
    #[error("secret too short")]
    ShortSecret,
    /// Digits outside 6..=8.
    #[error("digits must be 6, 7 or 8")]
    BadDigits,
    /// Period of zero or absurdly long.
    #[error("period must be 1..=3600 seconds")]
    BadPeriod,
    /// Unknown HMAC algorithm.
    #[error("unsupported algorithm {0}")]
    BadAlgorithm(String),
    /// Not an `otpauth://totp/` URI, or a required part is missing.
    #[error("not a TOTP otpauth URI: {0}")]
    BadUri(String),
}

/// HMAC hash function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TotpAlgorithm {
    /// HMAC-SHA-1, the default and what almost every site uses.
    Sha1,
    /// HMAC-SHA-256.
    Sha256,
    /// HMAC-SHA-512.
    Sha512,
}

/// A TOTP configuration. The seed is kept as raw bytes inside a wiping wrapper.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totp {
    /// Base32 of the seed, so the stored form is the one humans recognise.
    secret_b32: SecretString,
    /// Hash function.
    pub algorithm: TotpAlgorithm,
    /// Code length, 6 to 8.
    pub digits: u32,
    /// Step in seconds (usually 30).
    pub period: u64,
    /// Issuer from the URI, shown to the human.
    pub issuer: Option<String>,
    /// Account name from the URI, shown to the human.
    pub account: Option<String>,
}

impl std::fmt::Debug for Totp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Totp")
            .field("algorithm", &self.algorithm)
            .field("digits", &self.digits)
            .field("period", &self.period)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

impl Totp {
    /// From a base32 seed with the common defaults (SHA-1, 6 digits, 30 s). Spaces, dashes,
    /// lowercase and missing `=` padding are accepted, because that is how sites print them.
    pub fn from_base32(secret: &str) -> Result<Self, TotpError> {
        Self::new(secret, TotpAlgorithm::Sha1, 6, 30)
    }

    /// Fully specified.
    pub fn new(secret: &str, algorithm: TotpAlgorithm, digits: u32, period: u64) -> Result<Self, TotpError> {
        let cleaned: String = secret
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .map(|c| c.to_ascii_uppercase())
            .collect();
        let raw = zeroize::Zeroizing::new(base32_decode(&cleaned)?);
        // RFC 4226 requires 128 bits; 80 bits is what many real sites issue, so accept it.
        if raw.len() < 10 {
            return Err(TotpError::ShortSecret);
        }
        if !(6..=8).contains(&digits) {
            return Err(TotpError::BadDigits);
        }
        if period == 0 || period > 3600 {
            return Err(TotpError::BadPeriod);
        }
        Ok(Self {
            secret_b32: SecretString::new(cleaned.trim_end_matches('=')),
            algorithm,
            digits,
            period,
            issuer: None,
            account: None,
        })
    }

    /// Parses `otpauth://totp/Issuer:account?secret=...&issuer=...&algorithm=SHA256&digits=8&period=60`.
    pub fn from_uri(uri: &str) -> Result<Self, TotpError> {
        let url = url::Url::parse(uri).map_err(|e| TotpError::BadUri(e.to_string()))?;
        if url.scheme() != "otpauth" {
            return Err(TotpError::BadUri("scheme is not otpauth".into()));
        }
        if url.host_str().map(|h| h.to_ascii_lowercase()) != Some("totp".into()) {
            // hotp:// counters need write-back on every use; not supported.
            return Err(TotpError::BadUri("only totp is supported".into()));
        }
        let mut secret = None;
        let (mut algorithm, mut digits, mut period, mut issuer) = (TotpAlgorithm::Sha1, 6, 30, None);
        for (k, v) in url.query_pairs() {
            match k.to_ascii_lowercase().as_str() {
                "secret" => secret = Some(zeroize::Zeroizing::new(v.into_owned())),
                "algorithm" => {
                    algorithm = match v.to_ascii_uppercase().as_str() {
                        "SHA1" => TotpAlgorithm::Sha1,
                        "SHA256" => TotpAlgorithm::Sha256,
                        "SHA512" => TotpAlgorithm::Sha512,
                        other => return Err(TotpError::BadAlgorithm(other.into())),
                    }
                }
                "digits" => digits = v.parse().map_err(|_| TotpError::BadDigits)?,
                "period" => period = v.parse().map_err(|_| TotpError::BadPeriod)?,
                "issuer" => issuer = Some(v.into_owned()),
                _ => {}
            }
        }
        let secret = secret.ok_or_else(|| TotpError::BadUri("missing secret".into()))?;
        let mut t = Self::new(&secret, algorithm, digits, period)?;
        let label = url.path().trim_start_matches('/');
        let label = percent_decode(label);
        let (label_issuer, account) = match label.split_once(':') {
            Some((i, a)) => (Some(i.trim().to_owned()), a.trim().to_owned()),
            None => (None, label.trim().to_owned()),
        };
        t.issuer = issuer.or(label_issuer);
        t.account = (!account.is_empty()).then_some(account);
        Ok(t)
    }

    /// The code for a Unix time in seconds.
    pub fn code_at(&self, unix_seconds: u64) -> String {
        let counter = unix_seconds / self.period;
        let key = zeroize::Zeroizing::new(
            base32_decode(self.secret_b32.expose()).expect("validated at construction"),
        );
        hotp(&key, counter, self.digits, self.algorithm)
    }

    /// The code now, and seconds until it changes (for the countdown in the vault window).
    pub fn code_now(&self) -> (String, u64) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        (self.code_at(now), self.period - now % self.period)
    }
}

/// RFC 4226 HOTP with dynamic truncation.
pub fn hotp(key: &[u8], counter: u64, digits: u32, alg: TotpAlgorithm) -> String {
    let msg = counter.to_be_bytes();
    let mac: Vec<u8> = match alg {
        TotpAlgorithm::Sha1 => mac_bytes::<Hmac<sha1::Sha1>>(key, &msg),
        TotpAlgorithm::Sha256 => mac_bytes::<Hmac<sha2::Sha256>>(key, &msg),
        TotpAlgorithm::Sha512 => mac_bytes::<Hmac<sha2::Sha512>>(key, &msg),
    };
    let off = (mac[mac.len() - 1] & 0x0f) as usize;
    let bin = u32::from_be_bytes([mac[off] & 0x7f, mac[off + 1], mac[off + 2], mac[off + 3]]);
    let code = bin % 10u32.pow(digits);
    format!("{code:0width$}", width = digits as usize)
}

fn mac_bytes<M: Mac + hmac::digest::KeyInit>(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut m = <M as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    m.update(msg);
    m.finalize().into_bytes().to_vec()
}

/// RFC 4648 base32 (uppercase alphabet, optional padding).
pub fn base32_decode(s: &str) -> Result<Vec<u8>, TotpError> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 5 / 8);
    let (mut buf, mut bits) = (0u64, 0u32);
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a',
            b'2'..=b'7' => c - b'2' + 26,
            _ => return Err(TotpError::BadBase32),
        };
        buf = (buf << 5) | u64::from(v);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be zero padding, or the text was cut mid-character.
    if bits >= 5 || buf != 0 {
        return Err(TotpError::BadBase32);
    }
    Ok(out)
}

/// RFC 4648 base32 encoding without padding.
pub fn base32_encode(data: &[u8]) -> String {
    const A: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    let (mut buf, mut bits) = (0u64, 0u32);
    for &b in data {
        buf = (buf << 8) | u64::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(A[((buf >> bits) & 31) as usize] as char);
        }
        buf &= (1 << bits) - 1;
    }
    if bits > 0 {
        out.push(A[((buf << (5 - bits)) & 31) as usize] as char);
    }
    out
}

fn percent_decode(s: &str) -> String {
    fn hex(c: u8) -> Option<u8> {
        (c as char).to_digit(16).map(|d| d as u8)
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h << 4) | l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 6238 Appendix B. The seeds are the ASCII strings "1234567890" repeated to the hash
    // length (20, 32, 64 bytes), which is the detail most implementations get wrong.
    const SEED20: &[u8] = b"12345678901234567890";
    const SEED32: &[u8] = b"12345678901234567890123456789012";
    const SEED64: &[u8] = b"1234567890123456789012345678901234567890123456789012345678901234";

    const VECTORS: &[(u64, &str, &str, &str)] = &[
        (59, "94287082", "46119246", "90693936"),
        (1111111109, "07081804", "68084774", "25091201"),
        (1111111111, "14050471", "67062674", "99943326"),
        (1234567890, "89005924", "91819424", "93441116"),
        (2000000000, "69279037", "90698825", "38618901"),
        (20000000000, "65353130", "77737706", "47863826"),
    ];

    #[test]
    fn rfc6238_appendix_b_vectors() {
        for &(t, s1, s256, s512) in VECTORS {
            for (seed, alg, want) in [
                (SEED20, TotpAlgorithm::Sha1, s1),
                (SEED32, TotpAlgorithm::Sha256, s256),
                (SEED64, TotpAlgorithm::Sha512, s512),
            ] {
                let totp = Totp::new(&base32_encode(seed), alg, 8, 30).unwrap();
                assert_eq!(totp.code_at(t), want, "t={t} {alg:?}");
            }
        }
    }

    #[test]
    fn six_and_seven_digits_are_suffixes_of_the_truncation() {
        let t = Totp::new(&base32_encode(SEED20), TotpAlgorithm::Sha1, 6, 30).unwrap();
        assert_eq!(t.code_at(59), "287082");
        let t = Totp::new(&base32_encode(SEED20), TotpAlgorithm::Sha1, 7, 30).unwrap();
        assert_eq!(t.code_at(1111111109), "7081804");
    }

    #[test]
    fn rfc4226_appendix_d_hotp_vectors() {
        let want = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871",
            "520489",
        ];
        for (c, w) in want.iter().enumerate() {
            assert_eq!(hotp(SEED20, c as u64, 6, TotpAlgorithm::Sha1), *w);
        }
    }

    #[test]
    fn base32_roundtrip_and_human_formatting() {
        assert_eq!(base32_encode(b"foobar"), "MZXW6YTBOI");
        assert_eq!(base32_decode("MZXW6YTBOI======").unwrap(), b"foobar");
        let a = Totp::from_base32("gezd gnbv gy3t qojq gezd gnbv gy3t qojq").unwrap();
        let b = Totp::from_base32("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").unwrap();
        assert_eq!(a.code_at(59), b.code_at(59));
        assert_eq!(b.code_at(59), "287082");
        assert_eq!(Totp::from_base32("not base32!"), Err(TotpError::BadBase32));
        assert_eq!(Totp::from_base32("GEZDGNBV"), Err(TotpError::ShortSecret));
    }

    #[test]
    fn otpauth_uri() {
        let t = Totp::from_uri(
            "otpauth://totp/ACME%20Co:john.doe@email.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30",
        )
        .unwrap();
        assert_eq!(t.issuer.as_deref(), Some("ACME Co"));
        assert_eq!(t.account.as_deref(), Some("john.doe@email.com"));
        assert_eq!(t.code_at(59), "287082");

        let seed256 = base32_encode(SEED32);
        let t = Totp::from_uri(&format!(
            "otpauth://totp/Example:alice?secret={seed256}&algorithm=SHA256&digits=8&period=30"
        ))
        .unwrap();
        assert_eq!(t.algorithm, TotpAlgorithm::Sha256);
        assert_eq!(t.code_at(1234567890), "91819424");
        assert_eq!(t.issuer.as_deref(), Some("Example"));

        let t = Totp::from_uri(&format!("otpauth://totp/x?secret={seed256}&period=60")).unwrap();
        assert_eq!(t.period, 60);

        assert!(Totp::from_uri("otpauth://hotp/x?secret=GEZDGNBVGY3TQOJQ&counter=1").is_err());
        assert!(Totp::from_uri("otpauth://totp/x?issuer=y").is_err());
        assert!(Totp::from_uri("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&digits=9").is_err());
        assert!(Totp::from_uri("otpauth://totp/x?secret=GEZDGNBVGY3TQOJQ&algorithm=MD5").is_err());
        assert!(Totp::from_uri("https://totp/x?secret=GEZDGNBVGY3TQOJQ").is_err());
    }

    #[test]
    fn debug_hides_the_seed() {
        let t = Totp::from_base32("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ").unwrap();
        assert!(!format!("{t:?}").contains("GEZD"));
    }
}
