//! The switching rule on hand-made step sequences: when it leaves a route, what it
//! probes, and what the e-fold model predicts.

use super::*;
use crate::newton::MIN_EFOLDS;

/// A tolerance of one e-fold, so a route's iterations per e-fold are its
/// iterations per direction.
const ETA: f64 = 0.36787944117144233;

/// Steps on the route `from` until the solver leaves it (each with `cg`
/// iterations in one direction where it is a PCG route).
fn steps_on(s: &mut SwitchingSolver, from: Route, cg: u32) -> u32 {
    let mut n = 0;
    while s.route == from {
        n += 1;
        match from {
            Route::Direct => s.record_direct(false, ETA),
            _ => s.record(cg, ETA),
        }
        s.begin_step();
        assert!(n <= 2 * PROBE_MAX, "never left {from:?}");
    }
    n
}

#[test]
fn switches_on_expensive_steps_and_probes_back_ever_less_often() {
    let mut s = SwitchingSolver::starting(50.0, false);
    s.begin_step();
    assert_eq!(s.route, Route::Jacobi, "the first step runs PCG");
    s.record(40, ETA);
    s.record(60, ETA);
    s.begin_step();
    assert_eq!(
        s.route,
        Route::Jacobi,
        "50 per direction is not above break-even"
    );
    s.record(80, ETA);
    s.record(30, ETA);
    s.begin_step();
    assert!(s.direct(), "55 per direction is");
    assert_eq!(
        steps_on(&mut s, Route::Direct, 0),
        PROBE_EVERY,
        "then a probe"
    );
    assert_eq!(s.route, Route::Jacobi);
    // A probe that is still expensive doubles the wait, up to PROBE_MAX.
    for wait in [2, 4, 8, 16, 32, 64, 64] {
        s.record(99, ETA);
        s.begin_step();
        assert_eq!(
            steps_on(&mut s, Route::Direct, 0),
            (wait * PROBE_EVERY).min(PROBE_MAX)
        );
    }
    // A probe that finds CG cheap stays on PCG, with no probe of its own (the
    // factorisation's cost does not change); the next switch waits PROBE_EVERY.
    s.record(5, ETA);
    s.begin_step();
    assert_eq!(s.route, Route::Jacobi, "cheap again: stays on PCG");
    s.begin_step();
    assert_eq!(
        s.route,
        Route::Jacobi,
        "a step with no direction keeps the route"
    );
    for _ in 0..3 * PROBE_MAX {
        s.record(20, ETA);
        s.begin_step();
        assert_eq!(s.route, Route::Jacobi);
    }
    s.record(60, ETA);
    s.begin_step();
    assert!(s.direct());
    assert_eq!(steps_on(&mut s, Route::Direct, 0), PROBE_EVERY);
}

#[test]
fn finds_block_jacobi_where_the_vcycle_setup_dominates() {
    // square_64's fold: the V-cycle needs 3 iterations a direction but costs its
    // setup, the factorisation 20, block-Jacobi 10.
    let mut s = SwitchingSolver::starting(20.0, true);
    s.begin_step();
    assert_eq!(
        s.route,
        Route::VCycle,
        "starts where the preconditioner's auto would"
    );
    assert_eq!(steps_on(&mut s, Route::VCycle, 3), 1);
    assert!(s.direct(), "25 + 4.5·3 is dearer than 20");
    assert_eq!(steps_on(&mut s, Route::Direct, 0), PROBE_EVERY);
    // A probe runs every PCG route once, the one never measured first.
    assert_eq!(s.route, Route::Jacobi);
    assert_eq!(steps_on(&mut s, Route::Jacobi, 15), 1);
    assert_eq!(s.route, Route::VCycle);
    assert_eq!(steps_on(&mut s, Route::VCycle, 3), 1);
    assert_eq!(s.route, Route::Jacobi, "15 is the cheapest");
    // On block-Jacobi the V-cycle (38.5, within 3× of 15) is probed, as its cost
    // may have fallen, and loses: the wait doubles.
    assert_eq!(steps_on(&mut s, Route::Jacobi, 15), PROBE_EVERY);
    assert_eq!(steps_on(&mut s, Route::VCycle, 3), 1);
    assert_eq!(steps_on(&mut s, Route::Jacobi, 15), 2 * PROBE_EVERY);
    assert_eq!(s.route, Route::VCycle);
    // A fold: block-Jacobi's first direction is dear, the 19 later ones cheap;
    // per step that beats 20 factorisations by far.
    s.record(3, ETA);
    s.begin_step();
    s.record(60, ETA);
    (0..19).for_each(|_| s.record(2, ETA));
    s.begin_step();
    assert_eq!(s.route, Route::Jacobi, "60 + 19·2 against 20·20");
    // Where every direction grows dear (a stiff contact) the factorisation
    // takes over. Its probe skips block-Jacobi (140 for the last step's two
    // directions, over 3× the factorisation's 40) and runs the V-cycle (77).
    s.record(70, ETA);
    s.record(70, ETA);
    s.begin_step();
    assert!(s.direct(), "140 against 40");
    assert_eq!(steps_on(&mut s, Route::Direct, 0), PROBE_EVERY);
    assert_eq!(s.route, Route::VCycle);
}

#[test]
fn skips_probes_that_cannot_win() {
    // tet_drop: block-Jacobi's one direction costs 5× a factorisation.
    let mut s = SwitchingSolver::starting(20.0, false);
    s.record(100, ETA);
    s.begin_step();
    assert!(s.direct());
    // No probe runs; each skipped one doubles the wait as a lost one would.
    for _ in 0..(PROBE_EVERY + 2 * PROBE_EVERY + 4 * PROBE_EVERY) {
        s.record_direct(false, ETA);
        s.begin_step();
        assert!(s.direct());
    }
    assert_eq!(s.probe_wait, 8 * PROBE_EVERY);
    // Directions that ask for half an e-fold each bring block-Jacobi's predicted
    // cost within reach (50 against the factorisation's 20): it is probed again.
    let half_efold = (-0.5f64).exp();
    let mut steps = 0;
    while s.direct() {
        s.record_direct(false, half_efold);
        s.begin_step();
        steps += 1;
        assert!(steps <= PROBE_MAX);
    }
    assert_eq!(steps, 8 * PROBE_EVERY);
    assert_eq!(s.route, Route::Jacobi);
}

#[test]
fn predicts_a_folds_loose_directions_from_a_free_falls_tight_one() {
    // square_64: in free fall one direction at η = 0.1 takes 140 block-Jacobi
    // iterations, dearer than a factorisation (27).
    let mut s = SwitchingSolver::starting(27.0, false);
    s.record(140, 0.1);
    s.begin_step();
    assert!(s.direct());
    // Then the fold: 100 directions on one step, all but the first at η = 0.9.
    s.record_direct(false, 0.1);
    (0..99).for_each(|_| s.record_direct(false, 0.9));
    s.begin_step();
    // 61 iterations per e-fold × (2.3 + 99 × 0.105) = 774, against 100 × 27.
    assert_eq!(s.route, Route::Jacobi);
    assert!(efolds(0.99) == MIN_EFOLDS && (efolds(0.5) - 2f64.ln()).abs() < 1e-12);
}

#[test]
fn charges_the_factorisation_its_symbolic_analyses() {
    let mut s = SwitchingSolver::starting(20.0, false);
    s.record(30, ETA);
    s.begin_step();
    assert!(s.direct(), "30 against 20");
    // Contact pairs that change at every direction make each factorisation
    // analyse the pattern anew; the run's first analysis is its set-up and is not
    // charged: 2 of 3 directions analysed, 33 per direction, dearer than
    // block-Jacobi's 30.
    s.record_direct(true, ETA);
    s.record_direct(true, ETA);
    s.record_direct(true, ETA);
    s.begin_step();
    assert_eq!(s.route, Route::Jacobi);
    s.record(30, ETA);
    s.begin_step();
    assert_eq!(
        s.route,
        Route::Jacobi,
        "the factorisation's last cost was 40"
    );
    // A step with nothing to solve measures nothing and changes nothing.
    s.begin_step();
    assert_eq!(s.route, Route::Jacobi);
    // The factorisation is probed again: the pairs may have settled.
    assert_eq!(steps_on(&mut s, Route::Jacobi, 30), PROBE_EVERY - 1);
    assert!(s.direct());
    s.record_direct(false, ETA);
    s.begin_step();
    assert!(s.direct(), "without analyses it costs 20 again");
}

#[test]
fn the_first_symbolic_analysis_is_set_up_not_a_recurring_cost() {
    let mut s = SwitchingSolver::starting(20.0, false);
    s.record(25, ETA);
    s.record(25, ETA);
    s.begin_step();
    assert!(s.direct(), "50 against 40");
    // The first factored step analyses the pattern once and reuses it.
    s.record_direct(true, ETA);
    s.record_direct(false, ETA);
    s.begin_step();
    assert!(s.direct(), "40 against 50, not 40 × 1.5 = 60");
    // A later analysis is the contact pairs changing: charged.
    s.record_direct(true, ETA);
    s.record_direct(true, ETA);
    s.begin_step();
    assert_eq!(s.route, Route::Jacobi, "80 against 50");
}
