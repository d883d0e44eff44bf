//! The metrics endpoint's HTTP server (`[metrics] listen`): `GET /metrics` (Prometheus text
//! exposition), `GET /healthz` (200 `ok` while the process runs), `GET /readyz` (200 `ready`,
//! or 503 with a one-line reason); anything else 404. The operator's control surface
//! (`/control/...`, `crate::control`) is served beside them ([`MetricsServer::start_with`]).
//!
//! It runs on a thread of its own (`bgw-metrics-http`) with a current-thread tokio runtime and
//! axum: a scrape is parsed, rendered and written there, never on the io thread (whose event
//! loop is the order path) nor the tracker thread. The thread sleeps in epoll between scrapes;
//! what it reads was published by the other threads ([`super::state`]), so a scrape takes no
//! lock the order path takes.

use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::exposition::CONTENT_TYPE;

/// Renders the exposition text (called per scrape, on the server's thread).
pub type RenderFn = Arc<dyn Fn() -> String + Send + Sync>;
/// Decides readiness: `Ok(())` or the one-line reason (called per `/readyz`).
pub type ReadyFn = Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

/// A running metrics endpoint; dropping it stops the server.
#[derive(Debug)]
pub struct MetricsServer {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    join: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Binds `listen` (port 0 picks a free port) now, so a taken address is an error here, and
    /// serves on a new thread.
    ///
    /// Errors: the address cannot be bound, or the thread or runtime cannot start.
    pub fn start(
        listen: SocketAddr,
        render: RenderFn,
        ready: ReadyFn,
    ) -> std::io::Result<MetricsServer> {
        MetricsServer::start_with(listen, render, ready, Router::new())
    }

    /// [`MetricsServer::start`] with more routes served beside the metrics ones (the
    /// operator's control surface, `crate::control::routes`).
    ///
    /// Errors: as [`MetricsServer::start`].
    pub fn start_with(
        listen: SocketAddr,
        render: RenderFn,
        ready: ReadyFn,
        extra: Router,
    ) -> std::io::Result<MetricsServer> {
        let std_listener = std::net::TcpListener::bind(listen)?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let join = std::thread::Builder::new()
            .name("bgw-metrics-http".into())
            .spawn(move || {
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(std_listener) {
                        Ok(l) => l,
                        Err(e) => {
                            tracing::error!(error = %e, "metrics endpoint: cannot listen");
                            return;
                        }
                    };
                    let app = router(render, ready).merge(extra);
                    let served = axum::serve(listener, app)
                        .with_graceful_shutdown(async {
                            let _ = stop_rx.await;
                        })
                        .await;
                    if let Err(e) = served {
                        tracing::warn!(error = %e, "metrics endpoint stopped");
                    }
                });
            })?;
        Ok(MetricsServer {
            addr,
            stop: Some(stop_tx),
            join: Some(join),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops the server and waits for its thread.
    pub fn stop(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop_now();
    }
}

fn router(render: RenderFn, ready: ReadyFn) -> Router {
    Router::new()
        .route(
            "/metrics",
            get(move || {
                let render = Arc::clone(&render);
                async move { ([(header::CONTENT_TYPE, CONTENT_TYPE)], render()).into_response() }
            }),
        )
        .route("/healthz", get(|| async { text(StatusCode::OK, "ok") }))
        .route(
            "/readyz",
            get(move || {
                let ready = Arc::clone(&ready);
                async move {
                    match ready() {
                        Ok(()) => text(StatusCode::OK, "ready"),
                        Err(reason) => text(StatusCode::SERVICE_UNAVAILABLE, &reason),
                    }
                }
            }),
        )
        .fallback(|| async { text(StatusCode::NOT_FOUND, "not found") })
}

/// A plain-text answer ending with a newline.
fn text(status: StatusCode, body: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{body}\n"),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn get(addr: SocketAddr, path: &str) -> String {
        let mut s = std::net::TcpStream::connect(addr).expect("connect");
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .expect("write");
        let mut out = String::new();
        s.read_to_string(&mut out).expect("read");
        out
    }

    #[test]
    fn routes() {
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let f = Arc::clone(&flag);
        let server = MetricsServer::start(
            "127.0.0.1:0".parse().expect("addr"),
            Arc::new(|| "bgw_x 1\n".to_owned()),
            Arc::new(move || {
                if f.load(std::sync::atomic::Ordering::Relaxed) {
                    Ok(())
                } else {
                    Err("exchange link down (account main)".into())
                }
            }),
        )
        .expect("start");
        let addr = server.addr();
        let m = get(addr, "/metrics");
        assert!(m.starts_with("HTTP/1.1 200"), "{m}");
        assert!(m.contains("text/plain; version=0.0.4"), "{m}");
        assert!(m.ends_with("bgw_x 1\n"), "{m}");
        assert!(get(addr, "/healthz").ends_with("\r\n\r\nok\n"));
        let r = get(addr, "/readyz");
        assert!(r.starts_with("HTTP/1.1 503"), "{r}");
        assert!(r.ends_with("exchange link down (account main)\n"), "{r}");
        flag.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(get(addr, "/readyz").starts_with("HTTP/1.1 200"));
        assert!(get(addr, "/nope").starts_with("HTTP/1.1 404"));
        // A taken address is refused at start.
        assert!(MetricsServer::start(addr, Arc::new(String::new), Arc::new(|| Ok(()))).is_err());
        server.stop();
    }
}
