//! The HTTP accept loop: HTTP/1.1 connections (hyper) over the axum router, with the bounds that
//! `axum::serve` does not offer.
//!
//! Invariants: at most `max_connections` connections are open at once (beyond it the
//! loop stops accepting, so new clients wait in the kernel's backlog instead of
//! costing memory here); a client that does not finish sending a request's headers
//! within `header_read_timeout` (an idle keep-alive connection included) is
//! disconnected, so slow clients cannot hold connections; an accept error (out of file
//! descriptors) pauses the loop instead of ending it. On shutdown the loop stops
//! accepting and open connections finish their current request, up to `grace`.

use crate::service::config::Config;
use axum::extract::connect_info::IntoMakeServiceWithConnectInfo;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::Service;

/// Connection bounds (configuration `server`).
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Longest time a client may take to send a request's headers.
    pub header_read_timeout: Duration,
    /// Longest wait for open connections at shutdown.
    pub grace: Duration,
}

impl ConnectionLimits {
    /// The bounds that `config`'s `server` section sets.
    pub fn of(config: &Config) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: config.server.max_connections,
            header_read_timeout: Duration::from_millis(config.server.header_read_timeout_ms),
            grace: Duration::from_secs(config.server.shutdown_grace_s),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` completes, then lets open connections
/// finish (up to `limits.grace`).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
) {
    let mut make_service: IntoMakeServiceWithConnectInfo<Router, SocketAddr> =
        app.into_make_service_with_connect_info::<SocketAddr>();
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Usually EMFILE/ENFILE: wait for connections to close.
                    tracing::warn!(error = %e, "accept failed; pausing 100 ms");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Small JSON answers: send them at once rather than waiting for more bytes.
        let _ = stream.set_nodelay(true);
        let tower_service = match make_service.call(peer).await {
            Ok(service) => service,
            Err(never) => match never {},
        };
        let connection = builder.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(tower_service),
        );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // Errors here are the client's (reset, malformed request, header timeout).
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, %peer, "connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the grace period; closing them");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    /// A server of `GET /` on an ephemeral port with `limits`; its address.
    async fn start(limits: ConnectionLimits) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new().route("/", get(|| async { "ok" }));
        tokio::spawn(serve(listener, app, limits, std::future::pending()));
        addr
    }

    /// Sends one keep-alive request on `stream` and reads its answer's first bytes.
    async fn request(stream: &mut TcpStream) -> String {
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: test\r\n\r\n")
            .await
            .unwrap();
        let mut buf = [0u8; 256];
        let n = stream.read(&mut buf).await.unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    #[tokio::test]
    async fn a_client_slow_to_send_its_headers_is_disconnected() {
        let addr = start(ConnectionLimits {
            max_connections: 16,
            header_read_timeout: Duration::from_millis(200),
            grace: Duration::from_secs(1),
        })
        .await;
        let mut slow = TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"GET / HTTP/1.1\r\nHost: te").await.unwrap();
        // The server closes the connection (possibly after a 408): reading ends.
        let mut rest = Vec::new();
        // (A reset instead of an orderly close is an ending too.)
        let _ = tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut rest))
            .await
            .expect("the server closed the slow connection");
        assert!(!String::from_utf8_lossy(&rest).contains("200 OK"));
        // A prompt client is served.
        let mut prompt = TcpStream::connect(addr).await.unwrap();
        assert!(request(&mut prompt).await.starts_with("HTTP/1.1 200"));
    }

    #[tokio::test]
    async fn beyond_the_connection_cap_a_client_waits_until_one_closes() {
        let addr = start(ConnectionLimits {
            max_connections: 2,
            header_read_timeout: Duration::from_secs(30),
            grace: Duration::from_secs(1),
        })
        .await;
        let mut first = TcpStream::connect(addr).await.unwrap();
        let mut second = TcpStream::connect(addr).await.unwrap();
        assert!(request(&mut first).await.starts_with("HTTP/1.1 200"));
        assert!(request(&mut second).await.starts_with("HTTP/1.1 200"));
        // The third connects (the kernel's backlog) but is not served while two are open.
        let mut third = TcpStream::connect(addr).await.unwrap();
        let waiting = tokio::time::timeout(Duration::from_millis(300), request(&mut third)).await;
        assert!(waiting.is_err(), "served beyond the cap");
        drop(first);
        let mut buf = [0u8; 64];
        let n = tokio::time::timeout(Duration::from_secs(5), third.read(&mut buf))
            .await
            .expect("served once a connection closed")
            .unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    }
}
