//! springsim: mass-spring meshes through Incremental Potential Contact.
//!
//! Implicit time integration as energy minimisation, log-barrier contact that
//! never lets a node pass a wall, and Newton iterations whose line search is
//! capped by continuous collision detection. See `docs/PHYSICS.md` for the
//! conventions and the README and `scenes/README.md` for the commands and the scene
//! format.

pub mod backend;
pub mod bench;
pub mod cli;
pub mod collision;
pub mod compare;
pub mod contact;
pub mod drive;
pub mod energy;
pub mod ensemble;
pub mod implicit;
pub mod integrator;
pub mod interrupt;
pub mod linear_solver;
pub mod mas;
pub mod mesh;
pub mod model;
pub mod newton;
pub mod nonsmooth;
pub mod output;
pub mod parallel;
pub mod pcg;
pub mod plot;
pub mod potential;
pub mod precision;
pub mod rebound;
pub mod render;
pub mod restitution;
pub mod run;
pub mod scene;
pub mod script;
pub mod sim;
pub mod soak;
pub mod sweep;
pub mod wall;
