//! The gateway process dying and starting again: what survives a crash (the journals, and the
//! checker's record of the clientOids placed), and the restart from the journals in the shell's
//! order (`gateway_core::recovery`).

use super::*;

impl Gateway {
    /// The process dies: only the journals survive (each with a torn last record when
    /// `torn`), and the checker's record of the clientOids placed.
    pub fn crash(self, rng: &mut SimRng, torn: bool) -> Crashed {
        let held_at_crash: BTreeSet<u64> = self
            .sessions
            .iter()
            .filter(|s| s.wa.pending_len() > 0 || s.wa.durability().failing().is_some())
            .map(|s| s.grant.session_id)
            .collect();
        let journals = self
            .sessions
            .into_iter()
            .map(|mut s| {
                let torn = torn && rng.chance(0.5);
                s.journal.crash(rng, torn);
                s.journal
            })
            .collect();
        Crashed {
            journals,
            placed: self.placed,
            repeated_client_oids: self.repeated_client_oids,
            placed_while_failing: self.placed_while_failing,
            legacy_journal_errors: self.legacy_journal_errors,
            held_at_crash,
        }
    }

    /// The gateway starts again after `crashed`, as `gateway::engine` does: every session's
    /// journal opened (newest segment, torn tail cut) and marked with a clock record, its
    /// outbound numbering and order entry rebuilt; the sessions established before the crash
    /// opened in the tracker, their epoch, then their orders restored from the journal
    /// (`Tracker::restore_session`: the resolution requests go to `w`). The exchange link is
    /// down and no strategy connection is attached; what is returned tells the restart's
    /// reconciliation which orders ended before it.
    pub fn restart(
        crashed: Crashed,
        rules: Vec<InstrumentRules>,
        retention: Retention,
        now_ns: u64,
        utc_ns: u64,
        w: &mut impl Wire,
    ) -> Restarted {
        let held_at_crash = crashed.held_at_crash;
        let mut journals = crashed.journals;
        let mut recovered: Vec<(Recovered, RecoveryNote)> =
            journals.iter_mut().map(SimJournal::recover).collect();
        for j in &mut journals {
            j.clock(utc_ns / 1_000_000);
        }
        let mut gw = Gateway::empty(journals, rules, now_ns, retention);
        gw.placed = crashed.placed;
        gw.repeated_client_oids = crashed.repeated_client_oids;
        gw.placed_while_failing = crashed.placed_while_failing;
        gw.set_legacy_journal_errors(crashed.legacy_journal_errors);
        let mut ended = EndedBeforeRestart::new();
        let mut unanswered = BTreeSet::new();
        for (i, (rec, _)) in recovered.iter_mut().enumerate() {
            let (session_id, account) = (
                gw.sessions[i].grant.session_id,
                gw.sessions[i].grant.account,
            );
            gw.sessions[i].entry = Some(gateway_core::recovery::order_entry(session_id, rec));
            gw.sessions[i].epoch = rec.epoch;
            if !rec.established() {
                continue;
            }
            ended.add(session_id, rec);
            unanswered.extend(
                rec.unanswered_since_ms
                    .keys()
                    .map(|root| (session_id, *root)),
            );
            let (drive, mut sink) = gw.drive(now_ns, w);
            drive.on_session_opened(&mut sink, session_id, account);
            if let Some((epoch, order_epochs)) = rec.epoch_step() {
                drive.on_epoch(&mut sink, session_id, epoch, &order_epochs, false, utc_ns);
            }
            drive.on_restore(
                &mut sink,
                session_id,
                &rec.roots,
                &rec.reports,
                &rec.unanswered_since_ms,
                &rec.unanswered_amends,
            );
            if rec.status_due {
                // The gateway stopped while the epoch's OrderStatus reports were being made:
                // made again, from the restored orders (as `gateway::engine::io`).
                let order_epochs = rec.epoch_step().map(|(_, o)| o).unwrap_or_default();
                drive.on_epoch(
                    &mut sink,
                    session_id,
                    rec.epoch,
                    &order_epochs,
                    true,
                    utc_ns,
                );
            }
        }
        let notes = recovered.into_iter().map(|(_, n)| n).collect();
        Restarted {
            gateway: gw,
            ended,
            unanswered,
            notes,
            held_at_crash,
        }
    }
}

/// A gateway started again ([`Gateway::restart`]).
#[derive(Debug)]
pub struct Restarted {
    /// The gateway.
    pub gateway: Gateway,
    /// What its reconciliation leaves out.
    pub ended: EndedBeforeRestart,
    /// (SessionID, root) of the orders the journal holds without any report (in flight at
    /// the crash: the restored tracker knows only their ClOrdIDs).
    pub unanswered: BTreeSet<(u64, u64)>,
    /// What each session's recovery found.
    pub notes: Vec<RecoveryNote>,
    /// Sessions whose journal held records when the gateway crashed (a storage fault): they
    /// were lost with the process, so the restored tracker knows those sessions as their
    /// journal last had them, behind the crashed one (the restart's reconciliation brings
    /// them forward).
    pub held_at_crash: BTreeSet<u64>,
}

/// What survives a crash of the gateway: the journals, and (the checker's, not the gateway's)
/// the clientOids placed so far.
#[derive(Debug)]
pub struct Crashed {
    journals: Vec<SimJournal>,
    placed: BTreeMap<String, (usize, u64)>,
    repeated_client_oids: Vec<String>,
    placed_while_failing: Vec<(u64, u64)>,
    legacy_journal_errors: bool,
    held_at_crash: BTreeSet<u64>,
}
