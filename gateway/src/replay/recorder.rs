//! The recording side: the tracker thread copies each record into a buffer and hands it to a
//! writer thread (buffered file writes, flushed whenever the queue is empty).

use std::io::Write;
use std::path::Path;
use std::thread::JoinHandle;

use crossbeam_channel::Sender;

use super::format::{self, MAGIC, VERSION};
use crate::tracker::TrackerInput;

/// Writes a recording (format in [`crate::replay`]). Dropping it flushes and closes the file.
#[derive(Debug)]
pub struct Recorder {
    tx: Option<Sender<Vec<u8>>>,
    join: Option<JoinHandle<()>>,
}

impl Recorder {
    /// Creates (truncates) `path`, writes the header and starts the writer thread.
    /// Errors: the file cannot be created or the thread cannot start.
    pub fn create(path: &Path) -> std::io::Result<Recorder> {
        let file = std::fs::File::create(path)?;
        let mut w = std::io::BufWriter::with_capacity(64 << 10, file);
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.flush()?;
        let (tx, rx) = crossbeam_channel::unbounded::<Vec<u8>>();
        let join = std::thread::Builder::new()
            .name("bgw-record".into())
            .spawn(move || {
                let mut failed = false;
                loop {
                    let rec = match rx.try_recv() {
                        Ok(rec) => rec,
                        Err(crossbeam_channel::TryRecvError::Empty) => {
                            if !failed && w.flush().is_err() {
                                failed = true;
                            }
                            match rx.recv() {
                                Ok(rec) => rec,
                                Err(_) => break,
                            }
                        }
                        Err(crossbeam_channel::TryRecvError::Disconnected) => break,
                    };
                    if !failed && w.write_all(&rec).is_err() {
                        failed = true;
                        tracing::warn!("record: write failed; recording stopped");
                    }
                }
                let _ = w.flush();
            })?;
        Ok(Recorder {
            tx: Some(tx),
            join: Some(join),
        })
    }

    fn send(&self, mut rec: Vec<u8>) {
        let len = u32::try_from(rec.len().saturating_sub(4)).unwrap_or(u32::MAX);
        if let Some(head) = rec.get_mut(..4) {
            head.copy_from_slice(&len.to_le_bytes());
        }
        if let Some(tx) = &self.tx {
            let _ = tx.send(rec);
        }
    }

    fn start() -> Vec<u8> {
        let mut rec = Vec::with_capacity(128);
        rec.extend_from_slice(&[0; 4]);
        rec
    }

    /// Records an input the tracker is about to handle with the wall clock `utc_ns` (ns).
    pub fn input(&self, input: &TrackerInput, utc_ns: u64) {
        let mut rec = Self::start();
        if format::encode_input(&mut rec, input, utc_ns) {
            self.send(rec);
        }
    }

    /// Records a frame written to session `session_id`; `encode` appends the frame.
    pub fn report(&self, session_id: u64, encode: impl FnOnce(&mut Vec<u8>)) {
        let mut rec = Self::start();
        format::encode_report(&mut rec, session_id, &[]);
        encode(&mut rec);
        self.send(rec);
    }

    /// Records one order of an open-orders answer; `encode` appends its frame.
    pub fn open_order(&self, session_id: u64, root: u64, encode: impl FnOnce(&mut Vec<u8>)) {
        let mut rec = Self::start();
        format::encode_open_order(&mut rec, session_id, root, &[]);
        encode(&mut rec);
        self.send(rec);
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(join) = self.join.take() {
            let _ = join.join();
        }
    }
}
