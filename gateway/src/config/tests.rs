//! Unit tests of the configuration: the example file, defaults, overrides and refusals.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::exchange::ExchangeError;

use super::*;

const MINIMAL: &str = r#"
[[session]]
session_id = 1
credentials = "tok"

[exchange]
api_key = "k"
secret = "s"
passphrase = "p"
"#;

fn example_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../config/gateway.example.toml")
}

fn example_env(k: &str) -> Option<String> {
    match k {
        ENV_API_KEY => Some("env-key".into()),
        ENV_API_SECRET => Some("env-secret".into()),
        ENV_API_PASSPHRASE => Some("env-pass".into()),
        _ => None,
    }
}

#[test]
fn risk_limits_parse_per_session_and_default() {
    let text = format!(
        "{MINIMAL}\n[risk]\nmark_refresh_ms = 250\n[risk.account]\nmax_open_orders = 3\n\
         max_order_notional = \"1000.5\"\n[risk.session]\nmax_order_qty = 2\n"
    );
    let cfg = GatewayConfig::from_toml_str(&text).expect("valid");
    assert_eq!(cfg.risk.mark_refresh_ms, 250);
    assert_eq!(cfg.risk.account.max_open_orders, Some(3));
    assert_eq!(
        cfg.risk.account.max_order_notional,
        Some("1000.5".parse().unwrap())
    );
    assert_eq!(
        cfg.risk.session.max_order_qty,
        Some(codec::Decimal::from(2))
    );
    let own = MINIMAL.replace(
        "credentials = \"tok\"",
        "credentials = \"tok\"\n[session.risk]\nmax_deviation = \"0.01\"",
    );
    let cfg = GatewayConfig::from_toml_str(&own).expect("valid");
    let risk = cfg.sessions[0].risk.clone().expect("session risk");
    assert_eq!(risk.max_deviation, Some("0.01".parse().unwrap()));
    let bad = format!("{MINIMAL}\n[risk.account]\nmax_order_qty = \"x\"\n");
    assert!(GatewayConfig::from_toml_str(&bad).is_err());
}

#[test]
fn example_file_parses() {
    let text = std::fs::read_to_string(example_path()).expect("example file");
    let cfg = GatewayConfig::from_toml_str_with_env(&text, example_env).expect("valid");
    assert_eq!(cfg.strategy.max_frame_len, 4096);
    assert_eq!(cfg.exchange.ping_interval_ms, 20_000);
    assert_eq!(cfg.exchange.secret.expose(), "env-secret");
    assert_eq!(cfg.exchange.passphrase.expose(), "env-pass");
    assert!(!cfg.sessions.is_empty());
    assert!(cfg.metrics.hlog_path.is_some());
    assert_eq!(cfg.rate, crate::budget::RateConfig::bitget());
    // The query endpoints at Bitget's 20/s/UID each.
    assert_eq!(cfg.rate.query_limits().per_s, [20; 4]);
    assert_eq!(
        cfg.sessions[0].budget_policy(),
        crate::types::BudgetPolicy::Reject
    );
    // Without the environment the example lacks credentials.
    assert!(matches!(
        GatewayConfig::from_toml_str(&text),
        Err(ConfigError::MissingCredential(_))
    ));
}

#[test]
fn example_file_documents_every_field() {
    let text = std::fs::read_to_string(example_path()).expect("example file");
    for key in [
        "listen",
        "max_frame_len",
        "keepalive_min_ms",
        "keepalive_max_ms",
        "max_connections",
        "max_unauthenticated",
        "max_backlog_bytes",
        "allow_empty_credentials",
        "session_id",
        "credentials",
        "name",
        "ws_private_url",
        "rest_url",
        "api_key",
        "secret",
        "passphrase",
        "ca_cert_pem_path",
        "ping_interval_ms",
        "pong_timeout_ms",
        "request_timeout_ms",
        "silence_timeout_ms",
        "reconnect_min_ms",
        "reconnect_max_ms",
        "categories",
        "demo_trading",
        "locale",
        "core",
        "idle",
        "placement",
        "report_interval_ms",
        "hlog_path",
        "account",
        "role",
        "connections",
        "position_updates",
        "BGW_<NAME>_SECRET",
        "master_accounts",
        "extra_uids",
        "[journal]",
        "segment_bytes",
        "keep_segments",
        "archive_dir",
    ] {
        assert!(text.contains(key), "example lacks {key}");
    }
}

#[test]
fn defaults() {
    let cfg = GatewayConfig::from_toml_str(MINIMAL).expect("valid");
    assert_eq!(cfg.strategy.listen, SocketAddr::from(([127, 0, 0, 1], 0)));
    assert_eq!(cfg.strategy.max_frame_len, 4096);
    assert_eq!(
        cfg.exchange.ws_private_url,
        "wss://ws.bitget.com/v3/ws/private"
    );
    assert_eq!(cfg.exchange.ping_interval(), Duration::from_secs(20));
    assert_eq!(cfg.exchange.categories, vec!["USDT-FUTURES".to_owned()]);
    assert_eq!(cfg.tracker.idle, IdleStrategy::Park);
    assert_eq!(cfg.tracker.core, None);
    assert_eq!(cfg.metrics.report_interval_ms, 10_000);
    assert_eq!(cfg.sessions[0].name, "");
    assert!(!format!("{cfg:?}").contains("\"s\""));
}

#[test]
fn session_budget_policy_and_rate_section() {
    let text = MINIMAL.replace(
        "credentials = \"tok\"\n",
        "credentials = \"tok\"\non_budget_exhausted = \"queue\"\nqueue_deadline_ms = 250\n",
    ) + "[rate]\ntier = \"unlimited\"\n";
    let cfg = GatewayConfig::from_toml_str(&text).expect("valid");
    assert_eq!(
        cfg.sessions[0].budget_policy(),
        crate::types::BudgetPolicy::Queue(Duration::from_millis(250))
    );
    assert_eq!(cfg.rate.tier, crate::budget::Tier::Unlimited);
    let settings = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
    assert_eq!(settings.rate.limits().connection, 0);
    assert_eq!(settings.rate.query_limits().per_s, [0; 4]);
    let paced = GatewayConfig::from_toml_str(
        &(MINIMAL.to_owned()
            + "[rate]\ntier = \"unlimited\"\n[rate.overrides]\nunfilled_orders = 40\n"),
    )
    .expect("valid");
    assert_eq!(paced.rate.query_limits().per_s, [0, 40, 0, 0]);
    assert!(GatewayConfig::from_toml_str(&MINIMAL.replace(
        "credentials = \"tok\"\n",
        "credentials = \"tok\"\non_budget_exhausted = \"wait\"\n"
    ))
    .is_err());
}

#[test]
fn exchange_helpers() {
    let cfg = GatewayConfig::from_toml_str(&MINIMAL.replace(
        "[exchange]\n",
        "[exchange]\nrequest_timeout_ms = 1234\nrest_url = \"https://example.test/\"\n",
    ))
    .expect("valid");
    let x = &cfg.exchange;
    assert_eq!(
        x.connect_options().step_timeout,
        Duration::from_millis(1234)
    );
    assert_eq!(x.connect_options().topics, vec!["order", "fill"]);
    let tls = x.tls_config().expect("tls");
    assert_eq!(
        x.rest_client(&tls).expect("rest").base_url(),
        "https://example.test"
    );
    assert_eq!(
        x.keepalive(std::time::Instant::now()).interval(),
        Duration::from_secs(20)
    );
    assert_eq!(x.credentials().secret.expose(), "s");
    let mut bad = x.clone();
    bad.ca_cert_pem_path = Some(PathBuf::from("/nonexistent/ca.pem"));
    assert!(matches!(bad.tls_config(), Err(ExchangeError::Tls(_))));
}

#[test]
fn env_overrides_file() {
    let cfg = GatewayConfig::from_toml_str_with_env(MINIMAL, example_env).expect("valid");
    assert_eq!(cfg.exchange.api_key, "env-key");
    assert_eq!(cfg.exchange.secret.expose(), "env-secret");
    let cfg =
        GatewayConfig::from_toml_str_with_env(MINIMAL, |_| Some(String::new())).expect("valid");
    assert_eq!(cfg.exchange.secret.expose(), "s");
}

fn with(extra: &str) -> Result<GatewayConfig, ConfigError> {
    GatewayConfig::from_toml_str(&format!("{MINIMAL}\n{extra}"))
}

const TWO_ACCOUNTS: &str = r#"
[[session]]
session_id = 1
credentials = "a"

[[session]]
session_id = 2
credentials = "b"
account = "sub-1"
role = "drop_copy"

[exchange]
categories = ["USDT-FUTURES", "SPOT"]

[[account]]
name = "master"
api_key = "mk"
secret = "ms"
passphrase = "mp"
connections = 2

[[account]]
name = "sub-1"
api_key = "sk"
categories = ["spot"]
position_updates = false
"#;

fn sub_env(k: &str) -> Option<String> {
    match k {
        "BGW_SUB_1_SECRET" => Some("env-sub-secret".into()),
        "BGW_SUB_1_PASSPHRASE" => Some("env-sub-pass".into()),
        "BGW_MASTER_API_KEY" => Some("env-master-key".into()),
        ENV_API_SECRET => Some("legacy-ignored".into()),
        _ => None,
    }
}

#[test]
fn accounts_with_env_overrides_and_roles() {
    let cfg = GatewayConfig::from_toml_str_with_env(TWO_ACCOUNTS, sub_env).expect("valid");
    assert_eq!(account_env_var("sub-1", "SECRET"), "BGW_SUB_1_SECRET");
    let accounts = cfg.account_list();
    assert_eq!(accounts.len(), 2);
    assert_eq!(accounts[0].api_key, "env-master-key");
    assert_eq!(accounts[0].secret.expose(), "ms");
    assert_eq!(accounts[0].connections, 2);
    assert!(accounts[0].position_updates);
    assert_eq!(accounts[0].categories, None);
    assert_eq!(accounts[1].secret.expose(), "env-sub-secret");
    assert_eq!(accounts[1].passphrase.expose(), "env-sub-pass");
    assert_eq!(accounts[1].categories, Some(vec!["SPOT".to_owned()]));
    assert!(!accounts[1].position_updates);
    assert!(cfg.exchange.secret.is_empty(), "legacy variables unused");
    assert_eq!(cfg.account_index(&cfg.sessions[0]).expect("default"), 0);
    assert_eq!(cfg.account_index(&cfg.sessions[1]).expect("named"), 1);
    assert_eq!(cfg.sessions[0].role, crate::types::SessionRole::Trading);
    assert_eq!(cfg.sessions[1].role, crate::types::SessionRole::DropCopy);

    let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
    assert_eq!(s.accounts.len(), 2);
    assert_eq!(s.accounts[1].name, "sub-1");
    assert_eq!(s.accounts[1].credentials.api_key, "sk");
    assert_eq!(s.accounts[1].categories, vec![codec::sbe::Category::Spot]);
    assert!(s.accounts[0].categories.is_empty());
    assert_eq!(s.sessions[1].account, 1);
    assert_eq!(s.sessions[1].role, crate::types::SessionRole::DropCopy);
    assert_eq!(s.sessions[0].account, 0);
}

#[test]
fn exchange_credentials_are_the_main_account() {
    let cfg = with("").expect("valid");
    let accounts = cfg.account_list();
    assert_eq!(accounts.len(), 1);
    assert_eq!(accounts[0].name, "main");
    assert_eq!(accounts[0].api_key, "k");
    assert_eq!(accounts[0].connections, 1);
    let cfg = GatewayConfig::from_toml_str(&MINIMAL.replace(
        "credentials = \"tok\"\n",
        "credentials = \"tok\"\naccount = \"main\"\nrole = \"operator\"\n",
    ))
    .expect("valid");
    assert_eq!(cfg.sessions[0].role, crate::types::SessionRole::Operator);
    let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
    assert_eq!(s.accounts[0].name, "main");
    assert_eq!(s.accounts[0].credentials.secret.expose(), "s");
    assert!(s.accounts[0].position_updates);
    assert_eq!(s.sessions[0].role, crate::types::SessionRole::Operator);
}

#[test]
fn account_refusals() {
    let ok = |t: &str| GatewayConfig::from_toml_str_with_env(t, sub_env);
    let bad =
        |from: &str, to: &str| ok(&TWO_ACCOUNTS.replacen(from, to, 1)).expect_err("must refuse");
    assert!(matches!(
        bad("account = \"sub-1\"", "account = \"nope\""),
        ConfigError::UnknownAccount { session_id: 2, ref account } if account == "nope"
    ));
    assert!(matches!(
        bad("name = \"sub-1\"", "name = \"master\""),
        ConfigError::DuplicateAccount(ref n) if n == "master"
    ));
    assert!(matches!(
        bad("name = \"sub-1\"", "name = \"\""),
        ConfigError::Invalid {
            field: "account.name",
            ..
        }
    ));
    assert!(matches!(
        bad("name = \"sub-1\"", "name = \"sub 1\""),
        ConfigError::Invalid {
            field: "account.name",
            ..
        }
    ));
    assert!(matches!(
        bad("connections = 2", "connections = 0"),
        ConfigError::Invalid {
            field: "account.connections",
            ..
        }
    ));
    assert!(matches!(
        bad("categories = [\"spot\"]", "categories = [\"COIN-FUTURES\"]"),
        ConfigError::Invalid {
            field: "account.categories",
            ..
        }
    ));
    assert!(matches!(
        bad("categories = [\"spot\"]", "categories = []"),
        ConfigError::Invalid {
            field: "account.categories",
            ..
        }
    ));
    assert!(matches!(
        bad("role = \"drop_copy\"", "role = \"admin\""),
        ConfigError::Parse(_)
    ));
    assert!(matches!(
        bad("connections = 2", "connections = 2\ncolour = 1"),
        ConfigError::Parse(_)
    ));
    assert!(matches!(
        bad("[exchange]\n", "[exchange]\napi_key = \"x\"\n"),
        ConfigError::Invalid {
            field: "exchange.api_key",
            ..
        }
    ));
    // Without the environment the sub-account lacks its secret; the error names the variable.
    match GatewayConfig::from_toml_str(TWO_ACCOUNTS) {
        Err(ConfigError::MissingAccountCredential {
            account,
            field: "secret",
            env_var,
        }) => {
            assert_eq!(account, "sub-1");
            assert_eq!(env_var, "BGW_SUB_1_SECRET");
        }
        other => panic!("{other:?}"),
    }
    // Unknown account name without any [[account]]: only "main" exists.
    assert!(matches!(
        with("[[session]]\nsession_id = 2\ncredentials = \"x\"\naccount = \"sub\""),
        Err(ConfigError::UnknownAccount { session_id: 2, .. })
    ));
}

#[test]
fn move_master_accounts_resolve_by_name() {
    let cfg = with("[moves]\nmaster_accounts = [\"main\"]\nextra_uids = [7]").expect("valid");
    let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
    assert_eq!(s.moves.masters, vec![0]);
    assert_eq!(s.moves.extra_uids, vec![7]);
    let cfg = with("[moves]\nmaster_accounts = [\"nope\"]").expect("valid");
    assert!(matches!(
        crate::engine::EngineSettings::from_config(&cfg),
        Err(ConfigError::Invalid {
            field: "moves.master_accounts",
            ..
        })
    ));
    let s =
        crate::engine::EngineSettings::from_config(&with("").expect("valid")).expect("settings");
    assert!(s.moves.masters.is_empty());
}

#[test]
fn idle_and_categories() {
    let cfg = GatewayConfig::from_toml_str(&MINIMAL.replace(
        "[exchange]\n",
        "[exchange]\ncategories = [\"spot\", \"USDT-FUTURES\"]\n",
    ))
    .expect("valid");
    assert_eq!(cfg.exchange.categories, vec!["SPOT", "USDT-FUTURES"]);
    let cfg = with("[tracker]\ncore = 1\nidle = \"spin_yield\"\n[io]\ncore = 0").expect("ok");
    assert_eq!(cfg.tracker.idle, IdleStrategy::SpinYield);
    assert_eq!(
        cfg.tracker.placement,
        crate::tracker::port::TrackerPlacement::IoThread
    );
    assert_eq!((cfg.tracker.core, cfg.io.core), (Some(1), Some(0)));
    let cfg = with("[tracker]\nplacement = \"own_thread\"").expect("ok");
    assert_eq!(
        cfg.tracker.placement,
        crate::tracker::port::TrackerPlacement::OwnThread
    );
    assert!(with("[tracker]\nplacement = \"elsewhere\"").is_err());
}

#[test]
fn unknown_outcome_deadlines() {
    let s =
        crate::engine::EngineSettings::from_config(&with("").expect("valid")).expect("settings");
    assert_eq!(s.tracker.deadlines, crate::tracker::Deadlines::default());
    let cfg = with("[tracker]\nreply_timeout_ms = 800\npush_deadline_ms = 200").expect("ok");
    let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
    assert_eq!(
        (
            s.tracker.deadlines.reply_timeout_ms,
            s.tracker.deadlines.push_deadline_ms
        ),
        (800, 200)
    );
    assert_eq!(
        s.tracker.order_capacity,
        crate::tracker::core::INITIAL_ORDERS
    );
    let cfg = with("[tracker]\norder_capacity = 200000").expect("ok");
    let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
    assert_eq!(s.tracker.order_capacity, 200_000);
}

#[test]
fn retention_of_ended_orders() {
    let s =
        crate::engine::EngineSettings::from_config(&with("").expect("valid")).expect("settings");
    assert_eq!(s.tracker.retention, crate::tracker::Retention::default());
    assert_eq!(
        (
            s.tracker.retention.retention_ms,
            s.tracker.retention.retention_orders,
            s.tracker.retention.tombstones
        ),
        (60_000, 16_384, 65_536)
    );
    let cfg = with(
        "[tracker]\nretention_ms = 250\nretention_orders = 0\ntombstones = 10\nunseen_tail_ms = 0",
    )
    .expect("ok");
    let s = crate::engine::EngineSettings::from_config(&cfg).expect("settings");
    assert_eq!(
        s.tracker.retention,
        crate::tracker::Retention {
            retention_ms: 250,
            retention_orders: 0,
            tombstones: 10,
            unseen_tail_ms: 0,
        }
    );
    for bad in [
        "[tracker]\ntombstones = 0",
        "[tracker]\ntombstones = 67108865",
        "[tracker]\nretention_orders = 16777217",
    ] {
        assert!(
            matches!(with(bad), Err(ConfigError::Invalid { .. })),
            "{bad} accepted"
        );
    }
    // Open orders the risk limits allow beyond the table's room are warned about.
    assert_eq!(with("").expect("ok").tracker_capacity_warning(), None);
    let cfg = with("[risk.account]\nmax_open_orders = 20000").expect("ok");
    let why = cfg.tracker_capacity_warning().expect("a warning");
    assert!(why.contains("20000 open orders"), "{why}");
    let cfg = with("[tracker]\norder_capacity = 20000\n[risk.account]\nmax_open_orders = 20000")
        .expect("ok");
    assert_eq!(cfg.tracker_capacity_warning(), None);
}

#[test]
fn refusals() {
    assert!(matches!(
        with("[tracker]\nidle = \"nap\""),
        Err(ConfigError::Parse(_))
    ));
    assert!(matches!(
        with("[metrics]\ntypo = 1"),
        Err(ConfigError::Parse(_))
    ));
    assert!(matches!(
        with("[strategy]\nmax_frame_len = 10"),
        Err(ConfigError::Invalid {
            field: "strategy.max_frame_len",
            ..
        })
    ));
    assert!(matches!(
        with("[strategy]\nkeepalive_min_ms = 5000\nkeepalive_max_ms = 10"),
        Err(ConfigError::Invalid {
            field: "strategy.keepalive_max_ms",
            ..
        })
    ));
    assert!(matches!(
        with("[[session]]\nsession_id = 1\ncredentials = \"x\""),
        Err(ConfigError::DuplicateSession(1))
    ));
    assert!(matches!(
        with("[[session]]\nsession_id = 0\ncredentials = \"x\""),
        Err(ConfigError::Invalid {
            field: "session.session_id",
            ..
        })
    ));
    let long = "x".repeat(65);
    assert!(matches!(
        with(&format!(
            "[[session]]\nsession_id = 2\ncredentials = \"{long}\""
        )),
        Err(ConfigError::Invalid {
            field: "session.credentials",
            ..
        })
    ));
    assert!(matches!(
        with("[metrics]\nreport_interval_ms = 0"),
        Err(ConfigError::Invalid { .. })
    ));
    let no_sessions = MINIMAL.replace("[[session]]\nsession_id = 1\ncredentials = \"tok\"\n", "");
    assert!(matches!(
        GatewayConfig::from_toml_str(&no_sessions),
        Err(ConfigError::NoSessions)
    ));
    let bad = |from: &str, to: &str| {
        GatewayConfig::from_toml_str(&MINIMAL.replace(from, to)).expect_err("must refuse")
    };
    assert!(matches!(
        bad("[exchange]\n", "[exchange]\nping_interval_ms = 31000\n"),
        ConfigError::Invalid {
            field: "exchange.ping_interval_ms",
            ..
        }
    ));
    for (extra, field) in [
        (
            "silence_timeout_ms = 20000\n",
            "exchange.silence_timeout_ms",
        ),
        ("reconnect_min_ms = 0\n", "exchange.reconnect_min_ms"),
        (
            "reconnect_min_ms = 500\nreconnect_max_ms = 100\n",
            "exchange.reconnect_max_ms",
        ),
    ] {
        match bad("[exchange]\n", &format!("[exchange]\n{extra}")) {
            ConfigError::Invalid { field: f, .. } => assert_eq!(f, field),
            other => panic!("{extra}: {other:?}"),
        }
    }
    assert!(matches!(
        bad(
            "[exchange]\n",
            "[exchange]\nws_private_url = \"https://x\"\n"
        ),
        ConfigError::Invalid {
            field: "exchange.ws_private_url",
            ..
        }
    ));
    assert!(matches!(
        bad("[exchange]\n", "[exchange]\ncategories = [\"FOO\"]\n"),
        ConfigError::Invalid {
            field: "exchange.categories",
            ..
        }
    ));
    assert!(matches!(
        bad("secret = \"s\"\n", ""),
        ConfigError::MissingCredential("exchange.secret")
    ));
    assert!(matches!(
        GatewayConfig::load(Path::new("/nonexistent/gw.toml")),
        Err(ConfigError::Read { .. })
    ));
}

#[test]
fn metrics_listen() {
    let off = crate::engine::EngineSettings::from_config(&with("").expect("ok")).expect("settings");
    assert_eq!(off.metrics_listen, None);
    let empty = with("[metrics]\nlisten = \"\"").expect("ok");
    assert_eq!(empty.metrics.listen_addr().expect("addr"), None);
    let on = with("[metrics]\nlisten = \"127.0.0.1:9184\"").expect("ok");
    let s = crate::engine::EngineSettings::from_config(&on).expect("settings");
    assert_eq!(
        s.metrics_listen,
        Some("127.0.0.1:9184".parse().expect("addr"))
    );
    assert!(matches!(
        with("[metrics]\nlisten = \"localhost\""),
        Err(ConfigError::Invalid {
            field: "metrics.listen",
            ..
        })
    ));
}

#[test]
fn strategy_admission_limits() {
    let cfg = GatewayConfig::from_toml_str(MINIMAL).expect("valid");
    assert_eq!(
        (
            cfg.strategy.max_connections,
            cfg.strategy.max_unauthenticated
        ),
        (256, 64)
    );
    let cfg = GatewayConfig::from_toml_str(&format!(
        "[strategy]\nmax_connections = 10\nmax_unauthenticated = 3\n{MINIMAL}"
    ))
    .expect("valid");
    assert_eq!(
        (
            cfg.strategy.max_connections,
            cfg.strategy.max_unauthenticated
        ),
        (10, 3)
    );
    for bad in ["max_connections = 0", "max_unauthenticated = 0"] {
        let err =
            GatewayConfig::from_toml_str(&format!("[strategy]\n{bad}\n{MINIMAL}")).expect_err(bad);
        assert!(err.to_string().contains("strategy.max_"), "{err}");
    }
}

#[test]
fn strategy_backlog_limit() {
    let cfg = GatewayConfig::from_toml_str(MINIMAL).expect("valid");
    assert_eq!(cfg.strategy.max_backlog_bytes, 8 << 20);
    let cfg = GatewayConfig::from_toml_str(&format!(
        "[strategy]\nmax_backlog_bytes = 100000\n{MINIMAL}"
    ))
    .expect("valid");
    assert_eq!(cfg.strategy.max_backlog_bytes, 100_000);
    let err =
        GatewayConfig::from_toml_str(&format!("[strategy]\nmax_backlog_bytes = 1000\n{MINIMAL}"))
            .expect_err("too small");
    assert!(
        err.to_string().contains("strategy.max_backlog_bytes"),
        "{err}"
    );
}

/// Empty credentials accept any Negotiate: refused on a listener others can reach, unless
/// explicitly allowed; always fine on loopback.
#[test]
fn empty_credentials_need_loopback_or_an_explicit_allowance() {
    let open = MINIMAL.replace("credentials = \"tok\"", "credentials = \"\"");
    for listen in ["127.0.0.1:7001", "[::1]:7001"] {
        GatewayConfig::from_toml_str(&format!("[strategy]\nlisten = \"{listen}\"\n{open}"))
            .expect("loopback");
    }
    let err =
        GatewayConfig::from_toml_str(&format!("[strategy]\nlisten = \"0.0.0.0:7001\"\n{open}"))
            .expect_err("open to the network");
    let text = err.to_string();
    assert!(
        text.contains("session.credentials") && text.contains("allow_empty_credentials"),
        "{text}"
    );
    GatewayConfig::from_toml_str(&format!(
        "[strategy]\nlisten = \"0.0.0.0:7001\"\nallow_empty_credentials = true\n{open}"
    ))
    .expect("explicitly allowed");
    // With credentials, any address is fine.
    GatewayConfig::from_toml_str(&format!("[strategy]\nlisten = \"0.0.0.0:7001\"\n{MINIMAL}"))
        .expect("credentials set");
}

#[test]
fn the_rollover_schedule_is_parsed_and_a_bad_one_refused() {
    use gateway_core::session::rollover::RolloverSchedule;
    let cfg = with("[strategy]\nrollover = \"weekly sun 22:00\"").expect("ok");
    assert_eq!(
        cfg.strategy.rollover,
        RolloverSchedule::Weekly {
            weekday: 6,
            minute: 22 * 60
        }
    );
    let err = with("[strategy]\nrollover = \"hourly\"").unwrap_err();
    assert!(err.to_string().contains("daily HH:MM"), "{err}");
}

#[test]
fn journal_segment_fields_default_and_are_checked() {
    let cfg = GatewayConfig::from_toml_str(MINIMAL).expect("valid");
    assert_eq!(
        cfg.journal.segment_policy(),
        crate::journal::segments::SegmentPolicy::default()
    );
    let journal =
        |extra: &str| GatewayConfig::from_toml_str(&format!("{MINIMAL}\n[journal]\n{extra}\n"));
    let cfg =
        journal("segment_bytes = 8192\nkeep_segments = 3\narchive_dir = \"a\"").expect("valid");
    let p = cfg.journal.segment_policy();
    assert_eq!((p.segment_bytes, p.keep_segments), (8192, 3));
    assert_eq!(p.archive_dir.as_deref(), Some(std::path::Path::new("a")));
    assert!(journal("segment_bytes = 100").is_err());
    assert!(journal("keep_segments = 1").is_err());
}
