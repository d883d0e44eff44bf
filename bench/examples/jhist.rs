use codec::sbe::Message;
use gateway::journal::record::{Record, Records};
use std::collections::BTreeMap;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut hist: BTreeMap<u64, BTreeMap<String, u64>> = BTreeMap::new();
    for f in &a[1..] {
        let bytes = std::fs::read(f).unwrap();
        for rec in Records::new(&bytes[8..]) {
            if let Record::Outbound { origin, frame, .. } = rec {
                let (t, k) = match codec::sbe::decode(&frame[6..]) {
                    Ok(Message::ExecutionReport(d)) => {
                        let e = d.to_owned();
                        (
                            e.transact_time,
                            format!(
                                "ER {:?} {:?} {}",
                                e.exec_type,
                                e.ord_rej_reason,
                                origin.name()
                            ),
                        )
                    }
                    Ok(Message::OrderCancelReject(d)) => {
                        let e = d.to_owned();
                        (
                            e.transact_time,
                            format!("OCR {:?} {}", e.cxl_rej_reason, e.exchange_code),
                        )
                    }
                    _ => continue,
                };
                *hist
                    .entry(t / 1_000_000_000)
                    .or_default()
                    .entry(k)
                    .or_default() += 1;
            }
        }
    }
    for (s, m) in hist {
        println!("{s}: {m:?}");
    }
}
