//! `POST /sim/control/faults` (served only with `faults.control_api = true`): the control API
//! over HTTP for tests that do not link the simulator. Body: one JSON object
//! `{"fault":<name>,"uid":<uid, absent = all>, ...}` with
//!
//! | `fault` | other fields |
//! | --- | --- |
//! | `close_connections` | – |
//! | `service_upgrade` | `ms` (close delay) |
//! | `delay_replies`, `delay_pushes`, `reorder_pushes` | `ms` |
//! | `duplicate_pushes` | `on` (bool) |
//! | `pause_pushes`, `resume_pushes`, `clear` | – |
//! | `reject_trade_ops` | `count`, `topic`?, `code`, `msg` |
//! | `unknown_outcome` | `count`, `topic`?, `applied` (bool) |
//!
//! Answer: `{"code":"00000","msg":"success","data":{"connections":<n>}}` (`n` = connections
//! signalled by `close_connections` / `service_upgrade`, else 0); a bad body or an unknown uid →
//! HTTP 400 `40017`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::{FaultControl, Scope};
use crate::state::AppState;

#[derive(Debug, Deserialize)]
struct Request {
    fault: String,
    #[serde(default)]
    uid: Option<String>,
    #[serde(default)]
    ms: u64,
    #[serde(default)]
    on: Option<bool>,
    #[serde(default)]
    count: Option<u32>,
    #[serde(default)]
    topic: Option<String>,
    #[serde(default)]
    code: Option<u32>,
    #[serde(default)]
    msg: Option<String>,
    #[serde(default)]
    applied: Option<bool>,
}

fn answer(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn bad(msg: &str) -> Response {
    let mut s = String::from("{\"code\":\"40017\",\"msg\":");
    crate::render::push_json_str(&mut s, msg);
    s.push_str(",\"data\":null}");
    answer(StatusCode::BAD_REQUEST, s)
}

/// The handler of `POST /sim/control/faults`.
pub(crate) async fn control_endpoint(State(state): State<Arc<AppState>>, body: String) -> Response {
    let req: Request = match serde_json::from_str(&body) {
        Ok(r) => r,
        Err(e) => return bad(&format!("bad fault request: {e}")),
    };
    let ctl = FaultControl { state };
    let scope = match &req.uid {
        Some(u) => Scope::Uid(u.clone()),
        None => Scope::All,
    };
    let topic = req.topic.as_deref();
    let res = match req.fault.as_str() {
        "close_connections" => ctl.close_connections(scope),
        "service_upgrade" => ctl.service_upgrade(scope, req.ms),
        "delay_replies" => ctl.delay_replies(scope, req.ms).map(|()| 0),
        "delay_pushes" => ctl.delay_pushes(scope, req.ms).map(|()| 0),
        "reorder_pushes" => ctl.reorder_pushes(scope, req.ms).map(|()| 0),
        "duplicate_pushes" => ctl
            .duplicate_pushes(scope, req.on.unwrap_or(true))
            .map(|()| 0),
        "pause_pushes" => ctl.pause_pushes(scope).map(|()| 0),
        "resume_pushes" => ctl.resume_pushes(scope).map(|()| 0),
        "silence" => ctl.silence(scope, req.on.unwrap_or(true)).map(|()| 0),
        "clear" => {
            ctl.clear();
            Ok(0)
        }
        "reject_trade_ops" => ctl
            .reject_trade_ops(
                scope,
                req.count.unwrap_or(1),
                topic,
                req.code.unwrap_or(40725),
                req.msg.as_deref().unwrap_or("service return an error"),
            )
            .map(|()| 0),
        "unknown_outcome" => ctl
            .unknown_outcome(
                scope,
                req.count.unwrap_or(1),
                topic,
                req.applied.unwrap_or(true),
            )
            .map(|()| 0),
        other => return bad(&format!("unknown fault {other}")),
    };
    match res {
        Ok(n) => answer(
            StatusCode::OK,
            format!("{{\"code\":\"00000\",\"msg\":\"success\",\"data\":{{\"connections\":{n}}}}}"),
        ),
        Err(e) => bad(&e.to_string()),
    }
}
