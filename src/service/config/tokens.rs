//! Bearer tokens as the service keeps and shows them: a SHA-256 digest, and a name.
//!
//! Invariant: a token's name never reveals its secret: the part before the first `:` of
//! a `name:secret` token, else `token-` and the first 8 hex digits of its digest.

use sha2::{Digest, Sha256};

/// The digest a token is kept as.
pub fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// The name a token is shown and recorded under.
pub fn token_name(token: &str) -> String {
    match token.split_once(':') {
        Some((name, _)) if !name.is_empty() => name.to_string(),
        _ => format!("token-{}", &hex::encode(digest(token))[..8]),
    }
}
