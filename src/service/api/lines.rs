//! Bodies streamed as lines: NDJSON by default, CSV (a header line first) when the
//! client's `Accept` names `text/csv`.
//!
//! Invariants: items come through a bounded channel filled by a task reading the store,
//! so a body of any length takes constant memory; a failed read ends the body
//! unfinished, so the client sees it was cut.

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

/// True when the client asks for CSV (`Accept` naming `text/csv`).
pub fn wants_csv(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/csv"))
}

/// A 200 whose body is `csv_header` (when `csv`), then `render(item, csv)` of each item
/// received, in order, until the channel closes.
pub fn streamed<T: Send + 'static>(
    items: tokio::sync::mpsc::Receiver<sqlx::Result<T>>,
    csv: bool,
    csv_header: &'static str,
    render: impl Fn(&T, bool) -> String + Send + Sync + 'static,
) -> Response {
    let render = std::sync::Arc::new(render);
    let first = csv.then_some(csv_header);
    let chunks = futures_util::stream::unfold((items, first), move |(mut items, first)| {
        let render = render.clone();
        async move {
            if let Some(header_line) = first {
                let line = bytes::Bytes::from_static(header_line.as_bytes());
                return Some((Ok(line), (items, None)));
            }
            let chunk = match items.recv().await? {
                Ok(item) => Ok(render(&item, csv)),
                Err(e) => Err(std::io::Error::other(e.to_string())),
            };
            Some((chunk.map(bytes::Bytes::from), (items, None)))
        }
    });
    let content_type = if csv {
        "text/csv; charset=utf-8"
    } else {
        "application/x-ndjson"
    };
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, content_type)],
        Body::from_stream(chunks),
    )
        .into_response()
}
