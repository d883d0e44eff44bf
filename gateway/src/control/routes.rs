//! The `/control/` routes (axum), merged into the metrics endpoint's router: authentication,
//! parsing and name resolution here, on the HTTP thread; the action on the io thread (a
//! [`ControlCommand`] answered on a oneshot). Every request is counted and logged once, here.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::Router;
use serde::Serialize;

use super::api::{self, ErrorJson, KillSwitchVerb};
use super::auth::ControlAuth;
use super::{ControlCommand, ControlReply, ControlRequest, ControlTx};
use crate::metrics::control::{ControlAction, ControlMetrics, ControlResult};

/// How long a route waits for the io thread's answer (a kill switch's cancel-alls included).
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// What the routes share.
#[derive(Debug, Clone)]
pub struct ControlState {
    /// The token.
    pub auth: ControlAuth,
    /// Sessions and accounts by name.
    pub directory: Arc<api::Directory>,
    /// To the io thread.
    pub tx: ControlTx,
    /// Counters and gauges.
    pub metrics: Arc<ControlMetrics>,
}

/// The `/control/` routes (see the module doc of [`super`]); unknown `/control/...` paths
/// answer 404 JSON once authenticated.
pub fn router(state: ControlState) -> Router {
    Router::new()
        .route("/control/sessions", get(list))
        .route("/control/kill-switch", post(kill_switch))
        .route("/control/sessions/{session}/drain", post(drain))
        .route("/control/sessions/{session}/resume", post(resume))
        .route("/control/{*rest}", any(unknown_route))
        .route("/control", any(unknown_route))
        .with_state(state)
}

/// A JSON answer.
fn json<T: Serialize>(status: StatusCode, body: &T) -> Response {
    let mut text = serde_json::to_string(body).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    (status, [(header::CONTENT_TYPE, "application/json")], text).into_response()
}

fn error(status: StatusCode, text: &str) -> Response {
    json(
        status,
        &ErrorJson {
            error: text.to_owned(),
        },
    )
}

/// Who an action is about, for its log line: the session (its SessionID, or the name asked
/// for when unknown) and the account (`*`: every account).
#[derive(Debug, Default)]
struct Target<'a> {
    session: Option<&'a str>,
    account: Option<&'a str>,
}

/// Counts and logs one finished request.
fn finish(
    st: &ControlState,
    action: ControlAction,
    target: &Target<'_>,
    status: StatusCode,
    result: ControlResult,
    detail: &str,
) {
    st.metrics.count(action, result);
    let (action, result) = (action.name(), result.name());
    // Fields with no value (a listing names no session) are left out of the line.
    let (session, account) = (target.session, target.account);
    let status = status.as_u16();
    if action == "list" && result == "ok" {
        tracing::info!(action, session, account, result, status, "control action");
    } else {
        tracing::warn!(
            action,
            session,
            account,
            result,
            status,
            detail,
            "control action"
        );
    }
}

/// Authenticates: `None` when the request may go on, else the refusal's answer (already
/// counted and logged).
fn authenticate(st: &ControlState, action: ControlAction, headers: &HeaderMap) -> Option<Response> {
    let given = headers.get(header::AUTHORIZATION).map(|v| v.as_bytes());
    st.auth.check(given).err().map(|why| {
        let status = match why {
            super::auth::AuthRefusal::Disabled => StatusCode::FORBIDDEN,
            super::auth::AuthRefusal::Unauthorized => StatusCode::UNAUTHORIZED,
        };
        finish(
            st,
            action,
            &Target::default(),
            status,
            ControlResult::Refused,
            why.text(),
        );
        error(status, why.text())
    })
}

/// A refusal before acting (400, 404): counted, logged, answered.
fn refuse(
    st: &ControlState,
    action: ControlAction,
    target: &Target<'_>,
    status: StatusCode,
    text: &str,
) -> Response {
    finish(st, action, target, status, ControlResult::Refused, text);
    error(status, text)
}

/// Sends `command` to the io thread and waits for its answer (`None`: none in
/// [`REPLY_TIMEOUT`], or the io thread is gone).
async fn ask(st: &ControlState, command: ControlCommand) -> Option<ControlReply> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    st.tx.send(ControlRequest { command, reply: tx }).ok()?;
    tokio::time::timeout(REPLY_TIMEOUT, rx).await.ok()?.ok()
}

/// Carries out `command` and answers with what the io thread said.
async fn act(
    st: &ControlState,
    action: ControlAction,
    target: &Target<'_>,
    command: ControlCommand,
) -> Response {
    let Some(reply) = ask(st, command).await else {
        let text = "the gateway's io thread did not answer";
        finish(
            st,
            action,
            target,
            StatusCode::SERVICE_UNAVAILABLE,
            ControlResult::Error,
            text,
        );
        return error(StatusCode::SERVICE_UNAVAILABLE, text);
    };
    let (status, result, detail, resp) = match &reply {
        ControlReply::Sessions(s) => (
            StatusCode::OK,
            ControlResult::Ok,
            String::new(),
            json(StatusCode::OK, s),
        ),
        ControlReply::KillSwitch(k) if k.errors.is_empty() => (
            StatusCode::OK,
            ControlResult::Ok,
            format!("canceled {}", k.canceled),
            json(StatusCode::OK, k),
        ),
        ControlReply::KillSwitch(k) => (
            StatusCode::BAD_GATEWAY,
            ControlResult::Error,
            k.errors.join("; "),
            json(StatusCode::BAD_GATEWAY, k),
        ),
        ControlReply::Drain(d) => (
            StatusCode::OK,
            ControlResult::Ok,
            format!(
                "open orders {}, cancel_open {}",
                d.open_orders, d.cancel_open
            ),
            json(StatusCode::OK, d),
        ),
    };
    finish(st, action, target, status, result, &detail);
    resp
}

/// `GET /control/sessions`.
async fn list(State(st): State<ControlState>, headers: HeaderMap) -> Response {
    let action = ControlAction::List;
    if let Some(r) = authenticate(&st, action, &headers) {
        return r;
    }
    act(&st, action, &Target::default(), ControlCommand::List).await
}

/// `POST /control/kill-switch`.
async fn kill_switch(State(st): State<ControlState>, headers: HeaderMap, body: Bytes) -> Response {
    // The action is in the body: an unreadable body is counted as a refused pull.
    let parsed = api::parse_kill_switch(&body);
    let action = match &parsed {
        Ok(b) if b.action == KillSwitchVerb::Release => ControlAction::KillSwitchRelease,
        _ => ControlAction::KillSwitchPull,
    };
    if let Some(r) = authenticate(&st, action, &headers) {
        return r;
    }
    let body = match parsed {
        Ok(b) => b,
        Err(e) => {
            return refuse(
                &st,
                action,
                &Target::default(),
                StatusCode::BAD_REQUEST,
                &e.0,
            )
        }
    };
    let account = match body.account.as_deref() {
        None => None,
        Some(name) => match st.directory.account(name) {
            Some(ix) => Some(ix),
            None => {
                let target = Target {
                    session: None,
                    account: Some(name),
                };
                let text = format!("unknown account {name:?}");
                return refuse(&st, action, &target, StatusCode::NOT_FOUND, &text);
            }
        },
    };
    let target = Target {
        session: None,
        account: Some(body.account.as_deref().unwrap_or("*")),
    };
    let command = ControlCommand::KillSwitch {
        pull: body.action == KillSwitchVerb::Pull,
        account,
    };
    act(&st, action, &target, command).await
}

/// The `{session}` of a path (`Err`: not UTF-8 once percent-decoded).
type SessionPath = Result<Path<String>, axum::extract::rejection::PathRejection>;

/// `POST /control/sessions/{session}/drain`.
async fn drain(
    State(st): State<ControlState>,
    session: SessionPath,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    drain_or_resume(st, ControlAction::Drain, session, &headers, &body).await
}

/// `POST /control/sessions/{session}/resume`.
async fn resume(
    State(st): State<ControlState>,
    session: SessionPath,
    headers: HeaderMap,
) -> Response {
    drain_or_resume(st, ControlAction::Resume, session, &headers, &[]).await
}

async fn drain_or_resume(
    st: ControlState,
    action: ControlAction,
    session: SessionPath,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    if let Some(r) = authenticate(&st, action, headers) {
        return r;
    }
    let session = match session {
        Ok(Path(s)) => s,
        Err(e) => {
            let text = format!("bad session in the path: {e}");
            return refuse(
                &st,
                action,
                &Target::default(),
                StatusCode::BAD_REQUEST,
                &text,
            );
        }
    };
    let session = session.as_str();
    let Some(entry) = st.directory.session(session) else {
        let text = format!("unknown session {session:?}");
        let target = Target {
            session: Some(session),
            account: None,
        };
        return refuse(&st, action, &target, StatusCode::NOT_FOUND, &text);
    };
    let id = entry.session_id.to_string();
    let target = Target {
        session: Some(&id),
        account: Some(st.directory.account_name(entry.account)),
    };
    let command = if action == ControlAction::Drain {
        match api::parse_body::<api::DrainBody>(body, true) {
            Ok(b) => ControlCommand::Drain {
                session_id: entry.session_id,
                cancel_open: b.cancel_open,
            },
            Err(e) => return refuse(&st, action, &target, StatusCode::BAD_REQUEST, &e.0),
        }
    } else {
        ControlCommand::Resume {
            session_id: entry.session_id,
        }
    };
    act(&st, action, &target, command).await
}

/// Any other `/control/...` path: 404 once authenticated (counted as a refused list).
async fn unknown_route(State(st): State<ControlState>, headers: HeaderMap) -> Response {
    let action = ControlAction::List;
    if let Some(r) = authenticate(&st, action, &headers) {
        return r;
    }
    refuse(
        &st,
        action,
        &Target::default(),
        StatusCode::NOT_FOUND,
        "unknown control route (see GET /control/sessions, POST /control/kill-switch, POST /control/sessions/{session}/drain|resume)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::api::{DrainJson, SessionEntry, SessionsJson};
    use crate::metrics::http::MetricsServer;
    use std::io::{Read, Write};
    use std::net::SocketAddr;

    fn directory() -> Arc<api::Directory> {
        Arc::new(api::Directory {
            sessions: vec![SessionEntry {
                session_id: 1,
                name: "alpha".into(),
                account: 0,
                role: "trading",
            }],
            accounts: vec!["main".into()],
        })
    }

    /// A server with the control routes whose "io thread" answers every command at once
    /// (and records them).
    fn server(
        token: Option<&str>,
    ) -> (
        MetricsServer,
        Arc<ControlMetrics>,
        std::sync::mpsc::Receiver<ControlCommand>,
    ) {
        let (tx, mut rx) = crate::control::channel();
        let (seen_tx, seen) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            while let Some(req) = rx.blocking_recv() {
                let reply = match req.command {
                    ControlCommand::List => ControlReply::Sessions(SessionsJson {
                        sessions: Vec::new(),
                        kill_switch: Vec::new(),
                    }),
                    ControlCommand::KillSwitch { pull, .. } => {
                        ControlReply::KillSwitch(api::KillSwitchJson {
                            action: if pull {
                                KillSwitchVerb::Pull
                            } else {
                                KillSwitchVerb::Release
                            },
                            scope: "global".into(),
                            active: pull,
                            canceled: 0,
                            errors: Vec::new(),
                        })
                    }
                    ControlCommand::Drain { session_id, .. }
                    | ControlCommand::Resume { session_id } => ControlReply::Drain(DrainJson {
                        action: "drain".into(),
                        session_id,
                        name: String::new(),
                        draining: true,
                        cancel_open: false,
                        open_orders: 0,
                    }),
                };
                let _ = seen_tx.send(req.command);
                let _ = req.reply.send(reply);
            }
        });
        let metrics = Arc::new(ControlMetrics::new(vec!["main".into()]));
        let state = ControlState {
            auth: ControlAuth::new(token),
            directory: directory(),
            tx,
            metrics: Arc::clone(&metrics),
        };
        let s = MetricsServer::start_with(
            "127.0.0.1:0".parse().expect("addr"),
            Arc::new(String::new),
            Arc::new(|| Ok(())),
            router(state),
        )
        .expect("start");
        (s, metrics, seen)
    }

    /// `(status, body)` of a request.
    fn call(
        addr: SocketAddr,
        method: &str,
        path: &str,
        auth: Option<&str>,
        body: &str,
    ) -> (u16, String) {
        let mut s = std::net::TcpStream::connect(addr).expect("connect");
        let auth = auth.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("write");
        let mut out = String::new();
        s.read_to_string(&mut out).expect("read");
        let (head, body) = out.split_once("\r\n\r\n").expect("answer");
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("status");
        (status, body.to_owned())
    }

    #[test]
    fn disabled_surface_answers_403_everywhere_and_metrics_stay_open() {
        let (server, metrics, seen) = server(None);
        let addr = server.addr();
        for (m, p) in [
            ("GET", "/control/sessions"),
            ("POST", "/control/kill-switch"),
            ("POST", "/control/sessions/1/drain"),
            ("POST", "/control/sessions/1/resume"),
            ("GET", "/control/nope"),
        ] {
            let (status, body) = call(addr, m, p, Some("Bearer x"), "{}");
            assert_eq!(status, 403, "{m} {p}");
            assert!(body.contains("BGW_CONTROL_TOKEN"), "{body}");
            assert_eq!(body.lines().count(), 1, "{body}");
        }
        assert_eq!(call(addr, "GET", "/healthz", None, "").0, 200);
        assert_eq!(call(addr, "GET", "/metrics", None, "").0, 200);
        assert!(seen.try_recv().is_err(), "nothing reached the io thread");
        assert_eq!(
            metrics.counted(ControlAction::List, ControlResult::Refused),
            2
        );
    }

    #[test]
    fn token_bodies_and_names_are_checked_before_acting() {
        let (server, metrics, seen) = server(Some("tok"));
        let addr = server.addr();
        let ok = Some("Bearer tok");
        // No or wrong token: 401.
        assert_eq!(call(addr, "GET", "/control/sessions", None, "").0, 401);
        assert_eq!(
            call(addr, "GET", "/control/sessions", Some("Bearer tok2"), "").0,
            401
        );
        assert_eq!(
            call(addr, "GET", "/control/sessions", Some("tok"), "").0,
            401
        );
        // Bad bodies: 400.
        for body in ["", "{", "{\"action\":\"explode\"}", "[1]", "\u{0}"] {
            let (status, text) = call(addr, "POST", "/control/kill-switch", ok, body);
            assert_eq!(status, 400, "{body:?}: {text}");
            assert!(text.contains("\"error\""), "{text}");
        }
        let (status, _) = call(
            addr,
            "POST",
            "/control/sessions/1/drain",
            ok,
            "{\"cancel_open\":1}",
        );
        assert_eq!(status, 400);
        let (status, text) = call(addr, "POST", "/control/sessions/%FF%FE/resume", ok, "");
        assert_eq!(status, 400, "{text}");
        assert!(text.contains("bad session in the path"), "{text}");
        // Unknown names: 404.
        let (status, text) = call(addr, "POST", "/control/sessions/2/drain", ok, "{}");
        assert_eq!(status, 404, "{text}");
        assert!(text.contains("unknown session"), "{text}");
        let (status, text) = call(
            addr,
            "POST",
            "/control/kill-switch",
            ok,
            "{\"action\":\"pull\",\"account\":\"nope\"}",
        );
        assert_eq!(status, 404, "{text}");
        assert!(text.contains("unknown account"), "{text}");
        assert_eq!(call(addr, "GET", "/control/what", ok, "").0, 404);
        assert!(seen.try_recv().is_err(), "nothing reached the io thread");
        // Good requests reach it, names resolved.
        assert_eq!(call(addr, "GET", "/control/sessions", ok, "").0, 200);
        assert_eq!(seen.recv().ok(), Some(ControlCommand::List));
        let (status, text) = call(addr, "POST", "/control/sessions/alpha/drain", ok, "");
        assert_eq!(status, 200, "{text}");
        assert_eq!(
            seen.recv().ok(),
            Some(ControlCommand::Drain {
                session_id: 1,
                cancel_open: false
            })
        );
        let body = "{\"action\":\"pull\",\"account\":\"main\"}";
        let (status, text) = call(addr, "POST", "/control/kill-switch", ok, body);
        assert_eq!(status, 200, "{text}");
        assert_eq!(
            seen.recv().ok(),
            Some(ControlCommand::KillSwitch {
                pull: true,
                account: Some(0)
            })
        );
        let (status, _) = call(addr, "POST", "/control/sessions/1/resume", ok, "");
        assert_eq!(status, 200);
        assert_eq!(
            seen.recv().ok(),
            Some(ControlCommand::Resume { session_id: 1 })
        );
        assert_eq!(metrics.counted(ControlAction::List, ControlResult::Ok), 1);
        assert_eq!(
            metrics.counted(ControlAction::List, ControlResult::Refused),
            4
        );
        assert_eq!(metrics.counted(ControlAction::Drain, ControlResult::Ok), 1);
        assert_eq!(
            metrics.counted(ControlAction::Drain, ControlResult::Refused),
            2
        );
        assert_eq!(
            metrics.counted(ControlAction::KillSwitchPull, ControlResult::Ok),
            1
        );
        assert_eq!(
            metrics.counted(ControlAction::KillSwitchPull, ControlResult::Refused),
            6
        );
        assert_eq!(metrics.counted(ControlAction::Resume, ControlResult::Ok), 1);
        assert_eq!(
            metrics.counted(ControlAction::Resume, ControlResult::Refused),
            1
        );
    }
}
