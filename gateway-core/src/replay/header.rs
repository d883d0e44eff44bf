//! A recording's file header: magic and format version (below the format and its errors).

/// File header magic.
pub const MAGIC: &[u8; 6] = b"BGWREC";
/// Format version this build writes and reads (1: hand-written records; 2: Restore without
/// the unanswered cancels and replaces; 3: order entry without the decision's refusal; none
/// is read any more).
pub const VERSION: u16 = 4;
