//! `gaps health`: asks a running node whether it is healthy, for a container's health
//! check (the image has no shell and no HTTP client, so the binary asks itself).
//!
//! Invariants: exit code 0 only when the answer's status line says 200; any other
//! answer, a refused connection or a timeout is exit code 1, a malformed address exit
//! code 2, with the reason on stderr.

use super::input_error;
use anyhow::{bail, Context};
use clap::Args;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

#[derive(Args, Debug)]
pub struct HealthCmd {
    /// The address asked, `http://HOST:PORT/PATH` (plain HTTP: a node's own port).
    #[arg(default_value = "http://127.0.0.1:8080/healthz")]
    url: String,
    /// Seconds to wait for the connection and for the answer.
    #[arg(long, default_value_t = 3)]
    timeout: u64,
}

pub fn run(cmd: HealthCmd) -> anyhow::Result<()> {
    let (authority, path) = split_url(&cmd.url)?;
    let timeout = Duration::from_secs(cmd.timeout.max(1));
    let address = authority
        .to_socket_addrs()
        .with_context(|| format!("resolving {authority}"))?
        .next()
        .with_context(|| format!("{authority} resolves to no address"))?;
    let mut stream = TcpStream::connect_timeout(&address, timeout)
        .with_context(|| format!("connecting to {authority}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )?;
    // The status line is all that is read: "HTTP/1.x 200 ...".
    let mut head = [0u8; 64];
    let mut got = 0;
    while got < head.len() {
        let n = stream
            .read(&mut head[got..])
            .context("reading the answer")?;
        if n == 0 {
            break;
        }
        got += n;
        if head[..got].contains(&b'\n') {
            break;
        }
    }
    let line = String::from_utf8_lossy(&head[..got]);
    let status = line.lines().next().unwrap_or("").trim().to_string();
    match status.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        _ => bail!("{} answered {status:?}", cmd.url),
    }
}

/// `("host:port", "/path")` of a plain `http://` address (port 80 when none is given).
fn split_url(url: &str) -> anyhow::Result<(String, String)> {
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(input_error(format!(
            "only http:// addresses are asked (got {url})"
        )));
    };
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        return Err(input_error(format!("no host in {url}")));
    }
    let authority = if authority.contains(':') {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    Ok((authority, path.to_string()))
}

#[cfg(test)]
mod tests {
    use super::split_url;

    #[test]
    fn addresses_split_into_authority_and_path() {
        assert_eq!(
            split_url("http://127.0.0.1:8080/healthz").unwrap(),
            ("127.0.0.1:8080".into(), "/healthz".into())
        );
        assert_eq!(
            split_url("http://node").unwrap(),
            ("node:80".into(), "/".into())
        );
        assert!(split_url("https://node/healthz").is_err());
        assert!(split_url("http:///healthz").is_err());
    }
}
