//! `springsim restitution`: seed 000's study of how much bounce IPC contact gives.
//!
//! A single particle falls onto the ground under the barrier of [`barrier`]; the
//! study sweeps h, d̂, κ, the Newton tolerance and the impact speed ([`sweep`]) over
//! both integrators ([`particle`]), measures the coefficient of restitution and the
//! contact ([`measure`]), and writes tables, trajectories and plots ([`study`]);
//! [`cli`] is the command.

pub mod barrier;
pub mod cli;
pub mod law;
pub mod measure;
pub mod newton;
pub mod particle;
pub mod study;
pub mod sweep;
