//! Why a recording could not be read or replayed.

use super::header::VERSION;

/// Why a recording could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file does not start with the `BGWREC` header.
    #[error("not a gateway recording (bad header)")]
    BadHeader,
    /// The header names a version this build does not read.
    #[error("recording version {0} is not supported (this build reads {VERSION})")]
    Version(u16),
    /// The header names an older version, whose format this build no longer reads (version 1:
    /// hand-written records): record the scenario again with this build.
    #[error(
        "recording version {0} is an older format this build no longer reads (it reads version \
         {VERSION}): re-record it with this build"
    )]
    Obsolete(u16),
    /// A record's body does not decode.
    #[error("record {index} is malformed: {what}")]
    Malformed {
        /// Index of the record (0 = first after the header).
        index: u64,
        /// What was wrong.
        what: &'static str,
    },
}
