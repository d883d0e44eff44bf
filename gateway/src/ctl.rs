//! `gateway ctl`: the operator's command-line client of the control surface
//! (`crate::control`, `/control/` on the metrics listener).
//!
//! ```text
//! gateway ctl [--url http://127.0.0.1:9184] [--token-env BGW_CONTROL_TOKEN] sessions
//! gateway ctl kill-switch pull [--account A]
//! gateway ctl kill-switch release [--account A]
//! gateway ctl drain SESSION [--cancel-open]
//! gateway ctl resume SESSION
//! ```
//!
//! It sends the token of the environment variable `--token-env` names as `Authorization:
//! Bearer`, prints the JSON answer pretty on stdout and exits 0 on a 2xx answer, 1 on an HTTP
//! error answer (its JSON error printed too), 2 on a usage or connection error (message on
//! stderr).

use std::time::Duration;

use clap::{Args, Subcommand};

/// Default address of the metrics listener (as in `config/gateway.example.toml`).
pub const DEFAULT_URL: &str = "http://127.0.0.1:9184";

/// How long `gateway ctl` waits for an answer (the gateway gives up on its io thread after
/// 30 s).
pub const TIMEOUT: Duration = Duration::from_secs(40);

/// Exit code of a 2xx answer.
pub const EXIT_OK: i32 = 0;
/// Exit code of an HTTP error answer (4xx, 5xx).
pub const EXIT_HTTP_ERROR: i32 = 1;
/// Exit code of a usage or connection error.
pub const EXIT_USAGE: i32 = 2;

/// `gateway ctl` options.
#[derive(Debug, Clone, Args)]
pub struct CtlArgs {
    /// Base URL of the gateway's metrics listener (`[metrics] listen`).
    #[arg(long, default_value = DEFAULT_URL)]
    pub url: String,
    /// Environment variable holding the control token.
    #[arg(long, default_value = crate::control::TOKEN_ENV)]
    pub token_env: String,
    /// What to do.
    #[command(subcommand)]
    pub command: CtlCommand,
}

/// A control action.
#[derive(Debug, Clone, Subcommand)]
pub enum CtlCommand {
    /// List the sessions, their state and their open orders (`GET /control/sessions`).
    Sessions,
    /// Pull or release the kill switch (`POST /control/kill-switch`).
    KillSwitch {
        /// pull or release.
        #[command(subcommand)]
        action: KillSwitchCmd,
    },
    /// Drain a session: refuse its new orders (`POST /control/sessions/{session}/drain`).
    Drain {
        /// SessionID or configured name.
        session: String,
        /// Also cancel its open orders.
        #[arg(long)]
        cancel_open: bool,
    },
    /// Undo a drain (`POST /control/sessions/{session}/resume`).
    Resume {
        /// SessionID or configured name.
        session: String,
    },
}

/// `gateway ctl kill-switch ...`.
#[derive(Debug, Clone, Subcommand)]
pub enum KillSwitchCmd {
    /// Refuse new orders and cancel every open order (one account, or all).
    Pull {
        /// The account's configured name (default: every account).
        #[arg(long)]
        account: Option<String>,
    },
    /// Let new orders pass again (one account, or all).
    Release {
        /// The account's configured name (default: every account).
        #[arg(long)]
        account: Option<String>,
    },
}

/// The HTTP request a command makes: method (`GET` or `POST`), path and JSON body.
pub fn request_of(command: &CtlCommand) -> (&'static str, String, Option<serde_json::Value>) {
    match command {
        CtlCommand::Sessions => ("GET", "/control/sessions".to_owned(), None),
        CtlCommand::KillSwitch { action } => {
            let (verb, account) = match action {
                KillSwitchCmd::Pull { account } => ("pull", account),
                KillSwitchCmd::Release { account } => ("release", account),
            };
            (
                "POST",
                "/control/kill-switch".to_owned(),
                Some(serde_json::json!({ "action": verb, "account": account })),
            )
        }
        CtlCommand::Drain {
            session,
            cancel_open,
        } => (
            "POST",
            format!("/control/sessions/{}/drain", encode_segment(session)),
            Some(serde_json::json!({ "cancel_open": cancel_open })),
        ),
        CtlCommand::Resume { session } => (
            "POST",
            format!("/control/sessions/{}/resume", encode_segment(session)),
            Some(serde_json::json!({})),
        ),
    }
}

/// Percent-encodes a path segment (everything but RFC 3986 unreserved characters).
fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `url: error: its source: ...` (reqwest's own message leaves the cause to its sources).
fn chain(url: &str, e: &dyn std::error::Error) -> String {
    let mut text = format!("{url}: {e}");
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// Pretty JSON of an answer body (the body as it is when it is not JSON).
fn pretty(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| body.trim_end().to_owned())
}

/// Runs `gateway ctl`; returns the process exit code ([`EXIT_OK`], [`EXIT_HTTP_ERROR`],
/// [`EXIT_USAGE`]).
pub fn run(args: CtlArgs) -> i32 {
    let token = std::env::var(&args.token_env)
        .ok()
        .filter(|t| !t.trim().is_empty());
    if token.is_none() {
        eprintln!(
            "gateway ctl: {} is not set: sending no token (the gateway will refuse)",
            args.token_env
        );
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gateway ctl: {e}");
            return EXIT_USAGE;
        }
    };
    match rt.block_on(call(&args, token.as_deref())) {
        Ok((status, body)) => {
            println!("{}", pretty(&body));
            if (200..300).contains(&status) {
                EXIT_OK
            } else {
                eprintln!("gateway ctl: HTTP {status}");
                EXIT_HTTP_ERROR
            }
        }
        Err(e) => {
            eprintln!("gateway ctl: {e}");
            EXIT_USAGE
        }
    }
}

/// Makes the request; `(status, body)` or why it could not be made.
async fn call(args: &CtlArgs, token: Option<&str>) -> Result<(u16, String), String> {
    let tls = crate::exchange::tls::client_config(None).map_err(|e| e.to_string())?;
    let client = reqwest::Client::builder()
        .use_preconfigured_tls((*tls).clone())
        .no_proxy()
        .timeout(TIMEOUT)
        .build()
        .map_err(|e| e.to_string())?;
    let (method, path, body) = request_of(&args.command);
    let url = format!("{}{path}", args.url.trim_end_matches('/'));
    let mut req = match method {
        "GET" => client.get(&url),
        _ => client.post(&url),
    };
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.map_err(|e| chain(&url, &e))?;
    let status = resp.status().as_u16();
    let text = resp.text().await.map_err(|e| chain(&url, &e))?;
    Ok((status, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_of_commands() {
        let (m, p, b) = request_of(&CtlCommand::KillSwitch {
            action: KillSwitchCmd::Pull {
                account: Some("main".into()),
            },
        });
        assert_eq!((m, p.as_str()), ("POST", "/control/kill-switch"));
        assert_eq!(
            b,
            Some(serde_json::json!({"action": "pull", "account": "main"}))
        );
        let (_, _, b) = request_of(&CtlCommand::KillSwitch {
            action: KillSwitchCmd::Release { account: None },
        });
        assert_eq!(
            b,
            Some(serde_json::json!({"action": "release", "account": null}))
        );
        let (m, p, b) = request_of(&CtlCommand::Drain {
            session: "alpha beta/1".into(),
            cancel_open: true,
        });
        assert_eq!(
            (m, p.as_str()),
            ("POST", "/control/sessions/alpha%20beta%2F1/drain")
        );
        assert_eq!(b, Some(serde_json::json!({"cancel_open": true})));
        assert_eq!(request_of(&CtlCommand::Sessions).0, "GET");
    }

    #[test]
    fn a_refused_connection_is_a_usage_error() {
        // Port 1 on loopback: nothing listens there.
        let code = run(CtlArgs {
            url: "http://127.0.0.1:1".into(),
            token_env: "BGW_CTL_TEST_UNSET_VARIABLE".into(),
            command: CtlCommand::Sessions,
        });
        assert_eq!(code, EXIT_USAGE);
    }
}
