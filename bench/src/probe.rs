//! What a bench reads of a running process from outside: fields of `/proc/<pid>/status`, an
//! HTTP `GET` of its metrics endpoint (`/metrics`, `/readyz`), the sum of a metric family in
//! the exposition text, and the bytes a directory holds on disk. Shared by `hostile` and
//! `endurance`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::Duration;

/// A `kB` field of `/proc/<pid>/status` (e.g. `"VmRSS:"`), KiB (0 when unreadable, e.g. the
/// process is gone).
pub fn proc_status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// Resident set of process `pid` (`VmRSS`), bytes (0 when unreadable).
pub fn rss_bytes(pid: u32) -> u64 {
    proc_status_kib(pid, "VmRSS:") * 1024
}

/// CPU time process `pid` has used, user + system, ns (`/proc/<pid>/stat` fields 14 and 15,
/// read at the kernel's 100 Hz tick: 10 ms granularity). `None` when unreadable (the process is
/// gone).
pub fn cpu_ns(pid: u32) -> Option<u64> {
    /// `sysconf(_SC_CLK_TCK)` on Linux: the `/proc` tick is USER_HZ, 100 on every
    /// architecture Linux supports.
    const NS_PER_TICK: u64 = 10_000_000;
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) * NS_PER_TICK)
}

/// `GET path` over a plain socket (HTTP/1.1, `Connection: close`): the status code and the
/// whole response (headers and body).
///
/// Errors: connect (2 s), write or read (5 s) failed, or no status line, as text.
pub fn http_get(addr: SocketAddr, path: &str) -> Result<(u16, String), String> {
    let mut s =
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut text = String::new();
    s.read_to_string(&mut text).map_err(|e| e.to_string())?;
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("GET {path}: no status line"))?;
    Ok((status, text))
}

/// `GET /metrics`: the response (headers, then the Prometheus text exposition).
///
/// Errors: as [`http_get`].
pub fn scrape(addr: SocketAddr) -> Result<String, String> {
    http_get(addr, "/metrics").map(|(_, text)| text)
}

/// The sum of every sample of the family `name` in an exposition text (`name 3` and
/// `name{label="x"} 3` alike; `name_count`, `name_sum` and other names that merely start with
/// `name` are not counted). `None` when the family has no sample (the gateway does not export
/// it).
pub fn metric_sum(text: &str, name: &str) -> Option<f64> {
    let mut found = None;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix(name) else {
            continue;
        };
        let value = if let Some(labelled) = rest.strip_prefix('{') {
            labelled.split_once('}').map(|(_, v)| v)
        } else if rest.starts_with(' ') {
            Some(rest)
        } else {
            None
        };
        if let Some(v) = value.and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok()) {
            *found.get_or_insert(0.0) += v;
        }
    }
    found
}

/// Bytes of every regular file under `dir`, recursively (0 when it does not exist; files that
/// vanish while it is read are skipped).
pub fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map_or(0, |m| m.len()),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_sum_adds_every_series_of_the_family_only() {
        let text = "# HELP bgw_tracker_orders x\n# TYPE bgw_tracker_orders gauge\n\
                    bgw_tracker_orders{state=\"open\"} 12\nbgw_tracker_orders{state=\"ended\"} 30\n\
                    bgw_tracker_orders_total 99\nbgw_tracker_tombstones 7\n";
        assert_eq!(metric_sum(text, "bgw_tracker_orders"), Some(42.0));
        assert_eq!(metric_sum(text, "bgw_tracker_tombstones"), Some(7.0));
        assert_eq!(metric_sum(text, "bgw_tracker"), None);
        assert_eq!(metric_sum(text, "bgw_absent"), None);
    }

    #[test]
    fn dir_bytes_sums_files_recursively() {
        let dir = std::env::temp_dir().join(format!("bgw-probe-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a/b")).expect("dirs");
        std::fs::write(dir.join("x"), [0u8; 10]).expect("x");
        std::fs::write(dir.join("a/b/y"), [0u8; 32]).expect("y");
        assert_eq!(dir_bytes(&dir), 42);
        assert_eq!(dir_bytes(&dir.join("none")), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn cpu_ns_counts_this_process_spinning_and_nothing_for_a_gone_one() {
        let me = std::process::id();
        let before = cpu_ns(me).expect("own stat");
        // Spin until the count moves 50 ms (at most 20 s of wall time on a loaded machine):
        // a field that is not CPU time would not move, or not this far.
        let t = std::time::Instant::now();
        let mut x = 0u64;
        let mut after = before;
        while after < before + 50_000_000 && t.elapsed() < Duration::from_secs(20) {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_add(1));
            }
            after = cpu_ns(me).expect("own stat");
        }
        assert!(after >= before + 50_000_000, "{before} -> {after}");
        assert!(after < before + 25_000_000_000, "{before} -> {after}");
        assert_eq!(cpu_ns(u32::MAX), None);
    }
}
