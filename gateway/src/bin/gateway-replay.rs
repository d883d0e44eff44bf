//! `gateway-replay <file>...`: replays gateway recordings (`[record] path`) through a fresh
//! order tracker and prints, per file, the counts and the first mismatch. Exit status 0 when
//! every file replays identically, 1 on a mismatch, 2 on an unreadable file.

use std::path::PathBuf;

use clap::Parser;

/// Command-line options.
#[derive(Debug, Parser)]
#[command(
    name = "gateway-replay",
    about = "Replay gateway recordings through the sans-I/O tracker"
)]
struct Args {
    /// Recording files (`.bgwrec`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

fn main() {
    let args = Args::parse();
    let mut status = 0;
    for file in &args.files {
        match gateway::replay::replay_file(file) {
            Ok(report) => {
                let verdict = if report.is_identical() {
                    "identical"
                } else {
                    status = status.max(1);
                    "DIFFERS"
                };
                println!("{}: {verdict}: {report}", file.display());
            }
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                status = 2;
            }
        }
    }
    std::process::exit(status);
}
