//! Giving freed memory back to the operating system: fixed allocator thresholds for the
//! process's life ([`fix_allocator_thresholds`], a gateway running for weeks), and a trim after
//! a burst of strategy connections.
//!
//! glibc keeps what a thread freed in that thread's arena and returns only the top of each
//! arena: after 2 000 idle connections closed, the gateway stayed ~18 MB above its idle
//! resident size for good (measured, `tests/tests/hostile_admission.rs`). `malloc_trim(0)` gives
//! the free pages of every arena back (`madvise`), which brought it within 3 % of idle. When to
//! call it is decided in `gateway_core::admission::TrimAfterBurst`; it runs on a short-lived
//! thread of its own, never on the io thread.

/// Largest allocation glibc serves from its arenas; larger ones get pages of their own
/// (`mmap`) and give them back when freed: 1 MiB. Not glibc's starting 128 KiB: the latency
/// histograms the io and tracker threads start every report interval (~220 KiB each) would
/// then be mapped fresh each time and page-fault on their first records, on the order path
/// (measured below).
pub const MMAP_THRESHOLD_BYTES: usize = 1024 * 1024;

/// Free bytes at the top of an arena above which glibc gives them back at once: 8 MiB (glibc
/// starts at 128 KiB). Lower, a thread's arena top is given back and faulted in again as its
/// buffers come and go (measured below).
pub const TRIM_THRESHOLD_BYTES: usize = 8 * 1024 * 1024;

/// Fixes glibc's `mmap` and trim thresholds ([`MMAP_THRESHOLD_BYTES`],
/// [`TRIM_THRESHOLD_BYTES`]) for the process's life: a no-op with other C libraries. Returns
/// whether both were set.
///
/// glibc raises its `mmap` threshold to the size of every large block freed (up to 32 MiB), so
/// once the start-up's journal fold and reconciliation listings (tens of MB, freed when the
/// restart is done) are freed, later buffers up to that size come from the arenas and stay
/// there. Setting a threshold explicitly is what stops glibc moving it (`mallopt(3)`).
/// Measured with the endurance bench (600 000 orders, restarts at 10/50/90 %, rollovers every
/// 30 s; RSS each restarted process settled at) and the tracker thread's minor page faults
/// (150 000 orders, rollovers every 10 s, `/proc/<pid>/task/<tid>/stat`, two runs each):
///
/// | thresholds (mmap / trim) | RSS after restarts | tracker faults/s |
/// |---|---|---|
/// | glibc's sliding ones | 70–80 MiB | 103–105 |
/// | 128 KiB / 1 MiB | 51–65 MiB | 606–608 |
/// | 1 MiB / 1 MiB | 62–71 MiB | 159–169 |
/// | 1 MiB / 8 MiB (these) | 64–75 MiB | 73–75 |
///
/// The heap in use is about 47 MB in every case (heaptrack); `MALLOC_ARENA_MAX=2` changed
/// nothing and mimalloc settled at 99–134 MiB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn fix_allocator_thresholds() -> bool {
    // SAFETY: mallopt takes two integers and has no caller-side invariants; both values are
    // small positive constants glibc accepts (M_MMAP_THRESHOLD at most 32 MiB on 64-bit).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES as libc::c_int) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES as libc::c_int) == 1
    }
}

/// Fixes the C allocator's thresholds: nothing to do off glibc.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn fix_allocator_thresholds() -> bool {
    false
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// glibc takes both thresholds (mallopt returns 1); a value it refused would leave the
    /// sliding `mmap` threshold on.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn glibc_takes_the_fixed_thresholds() {
        assert!(fix_allocator_thresholds());
    }

    #[test]
    fn the_resident_size_is_read() {
        let kib = resident_kib().expect("/proc/self/status has VmRSS");
        assert!(kib > 0);
    }
}
