//! Chapter 15 exercise 15.2: how often to save. A job that saves every `interval` seconds
//! of work loses two things to failures: the saves themselves (`save` seconds each, every
//! `interval`), and, at each failure, the work since the last save (on average half an
//! interval, failures arriving at random with a mean time `mtbf` between them). Young
//! (1974) balanced the two to first order: the waste per second of work is
//! `save / interval + interval / (2 mtbf)`, smallest at `interval = sqrt(2 save mtbf)`.
//! Check with `make check CH=15`.
#![allow(unused_variables)] // the stubs do not use their arguments yet

// ANCHOR: waste
/// The fraction of time lost per second of work when saving every `interval` seconds, a
/// save costing `save` seconds, failures coming every `mtbf` seconds on average: the saves
/// (`save / interval`) plus the work lost at a failure, half an interval on average, once
/// per `mtbf` (`interval / (2 mtbf)`). First order: for `save`, `interval` << `mtbf`.
pub fn waste(interval: f64, save: f64, mtbf: f64) -> f64 {
    // TODO(ex 15.2): the saves' share plus the lost work's
    todo!("ex 15.2: the waste of a save interval")
}
// ANCHOR_END: waste

// ANCHOR: young
/// The interval that makes [`waste`] smallest: Young's `sqrt(2 save mtbf)`.
pub fn young_interval(save: f64, mtbf: f64) -> f64 {
    // TODO(ex 15.2): set the derivative of the waste to zero
    todo!("ex 15.2: Young's interval")
}
// ANCHOR_END: young
