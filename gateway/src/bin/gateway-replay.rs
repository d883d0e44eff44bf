//! `gateway-replay <file>...`: replays gateway recordings (`[record] path`) through a fresh
//! order tracker and prints, per file, the counts and the first mismatch. Exit status 0 when
//! every file replays identically, 1 on a mismatch, 2 on an unreadable file.
//!
//! `gateway-replay --order <clientOid> <file>...` prints instead what each recording holds
//! about one order (`gateway::replay::order_trace`): its requests, the exchange frames and
//! states that name it, link and session events, its reports.

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
    /// Print what the recordings hold about this order (clientOid `<session>:<root>`, as in
    /// the soak's output) instead of replaying them.
    #[arg(long)]
    order: Option<String>,
}

fn main() {
    let args = Args::parse();
    if let Some(oid) = &args.order {
        std::process::exit(trace(oid, &args.files));
    }
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

/// `--order`: the order's lines from each file; the exit status.
fn trace(oid: &str, files: &[PathBuf]) -> i32 {
    let Some((session, root)) = gateway::ids::ClientOid::parse(oid) else {
        eprintln!("{oid}: not a clientOid of the gateway's form (<session>:<root>)");
        return 2;
    };
    let mut status = 0;
    for file in files {
        let lines = std::fs::read(file)
            .map_err(|e| e.to_string())
            .and_then(|b| {
                gateway::replay::order_trace(&b, session, root).map_err(|e| e.to_string())
            });
        match lines {
            Ok(lines) => {
                println!("{}: {} lines about {oid}", file.display(), lines.len());
                for l in lines {
                    println!("{l}");
                }
            }
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                status = 2;
            }
        }
    }
    status
}
