//! The run's trace: a SHA-256 over every event as it runs (time, kind, bytes), so that two runs
//! of one seed can be compared by one hash, and, when asked for, the events themselves as
//! lines (the replay of a failing seed prints those of the order it broke).

use sha2::{Digest, Sha256};

/// Hash of the events so far, and optionally their text.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    hash: Sha256,
    events: u64,
    /// Kept lines (only when [`Trace::keep_lines`] was asked for).
    lines: Option<Vec<String>>,
}

impl Trace {
    /// A trace that also keeps every event as a line.
    pub fn keep_lines(mut self) -> Self {
        self.lines = Some(Vec::new());
        self
    }

    /// Adds one event at `t_ns`: `what` names it, `bytes` is its content.
    pub fn event(&mut self, t_ns: u64, what: &str, bytes: &[u8]) {
        self.events += 1;
        self.hash.update(t_ns.to_le_bytes());
        self.hash.update(what.as_bytes());
        self.hash.update((bytes.len() as u64).to_le_bytes());
        self.hash.update(bytes);
        if let Some(lines) = &mut self.lines {
            lines.push(format!(
                "{:>10.3} ms  {what}  {}",
                t_ns as f64 / 1e6,
                describe(bytes)
            ));
        }
    }

    /// Events traced.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The hash so far, as 16 hex digits (the first 8 bytes of the SHA-256).
    pub fn hash_hex(&self) -> String {
        let digest = self.hash.clone().finalize();
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    /// The kept lines (empty unless kept).
    pub fn lines(&self) -> &[String] {
        self.lines.as_deref().unwrap_or(&[])
    }
}

/// Text as is; an SBE frame decoded; anything else as its length.
fn describe(bytes: &[u8]) -> String {
    if let Ok(s) = std::str::from_utf8(bytes) {
        return s.to_owned();
    }
    let payload = bytes.get(codec::frame::SOFH_LEN..).unwrap_or(&[]);
    use codec::sbe::Message;
    match codec::sbe::decode(payload) {
        Ok(Message::NewOrderSingle(m)) => format!("{:?}", m.to_owned()),
        Ok(Message::OrderCancelRequest(m)) => format!("{:?}", m.to_owned()),
        Ok(Message::OrderCancelReplaceRequest(m)) => format!("{:?}", m.to_owned()),
        Ok(Message::ExecutionReport(m)) => format!("{:?}", m.to_owned()),
        Ok(Message::OrderCancelReject(m)) => format!("{:?}", m.to_owned()),
        Ok(Message::BusinessMessageReject(m)) => format!("{:?}", m.to_owned()),
        Ok(Message::Terminate(m)) => format!("{:?}", m.to_owned()),
        Ok(m) => format!("template {}", m.template_id()),
        Err(_) => format!("{} bytes", bytes.len()),
    }
}
