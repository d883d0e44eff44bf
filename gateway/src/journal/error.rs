//! Why a session journal could not be opened or written.

use std::path::PathBuf;

/// Why the journal could not be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// Reading, creating or writing a journal file failed.
    #[error("journal {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file does not start with the journal magic.
    #[error("{0} is not a gateway journal (bad magic)")]
    NotAJournal(PathBuf),
}
