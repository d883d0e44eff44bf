//! A small file system for the storage-fault tests (issue 37): a tmpfs of a few KiB mounted on
//! a fresh directory, filled and freed by the test, unmounted on drop. Used by the writer's
//! unit tests (`session/out/storage_fault_tests.rs`) and the end-to-end tests (`e2e`), which
//! is why it lives in the library; nothing in the gateway itself uses it.

/// A tmpfs of a few KiB mounted on a fresh directory and unmounted on drop: a small disk the
/// storage-fault tests fill and free. Mounting needs root (CI runs as root).
#[derive(Debug)]
pub struct Tmpfs {
    /// The mount point.
    pub dir: std::path::PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs of `kib` KiB at a directory named after `name`; `None` (and a SKIPPED
    /// line on stderr) where mounting is refused.
    pub fn mount(name: &str, kib: u32) -> Option<Tmpfs> {
        let dir = std::env::temp_dir().join(format!("bgw-{name}-{}", std::process::id()));
        let _ = std::process::Command::new("umount").arg(&dir).status();
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(&dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!(
                "SKIPPED: cannot mount a tmpfs at {} (needs root): the storage-fault test did not run",
                dir.display()
            );
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        Some(Tmpfs { dir })
    }

    /// Writes the file `filler` until the file system is full; returns its path (remove it to
    /// free the space).
    pub fn fill(&self) -> std::path::PathBuf {
        use std::io::Write;
        let path = self.dir.join("filler");
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .expect("filler");
        let chunk = [0u8; 1024];
        while f.write_all(&chunk).is_ok() {}
        let small = [0u8; 1];
        while f.write_all(&small).is_ok() {}
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.dir)
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
