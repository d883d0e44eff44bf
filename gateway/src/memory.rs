//! Giving freed memory back to the operating system after a burst of strategy connections.
//!
//! glibc keeps what a thread freed in that thread's arena and returns only the top of each
//! arena: after 2 000 idle connections closed, the gateway stayed ~18 MB above its idle
//! resident size for good (measured, `tests/tests/hostile_admission.rs`). `malloc_trim(0)` gives
//! the free pages of every arena back (`madvise`), which brought it within 3 % of idle. When to
//! call it is decided in `gateway_core::admission::TrimAfterBurst`; it runs on a short-lived
//! thread of its own, never on the io thread.

/// Asks the C allocator to give the memory it holds free back to the operating system
/// (glibc's `malloc_trim(0)`; a no-op with other C libraries, which do not keep it the same
/// way). Returns whether anything was given back. Walks and briefly locks every arena: call it
/// off the order path, after a burst.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn give_back_free_memory() -> bool {
    // SAFETY: malloc_trim takes a byte count and has no caller-side invariants; glibc makes it
    // safe to call from any thread while others allocate (it takes each arena's lock).
    unsafe { libc::malloc_trim(0) != 0 }
}

/// Asks the C allocator to give free memory back: nothing to do off glibc.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn give_back_free_memory() -> bool {
    false
}

/// Reads this process's resident set size in KiB (`VmRSS` in `/proc/self/status`); `None` where
/// that file is not there.
pub fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
