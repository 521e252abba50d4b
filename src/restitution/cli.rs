//! The `springsim restitution` command: its arguments and what it does with them.

use super::measure::Contact;
use super::particle::{ParticleParams, Scheme};
use super::study::{
    fixed_text, run_sweep, table_text, write_plots, write_table, write_trajectories,
};
use super::sweep::Sweep;
use crate::plot::axis::fmt_g;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Which integrators a study runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum IntegratorChoice {
    /// Implicit Euler only (the seed's experiment).
    Euler,
    /// Newmark β = ¼, γ = ½ only.
    Newmark,
    /// Both, one line each.
    Both,
    /// Implicit Euler with the restitution law asking for `--restitution`.
    Law,
    /// Euler, Newmark and the law, one line each.
    All,
}

/// Arguments of `springsim restitution` (defaults: seed 000's setup).
#[derive(Clone, Debug, clap::Args)]
pub struct RestitutionArgs {
    /// Sweep one parameter: NAME=V1,V2,… with NAME one of h, dhat, kappa, tol, v0, e.
    /// May be given several times, once per parameter; each sweep varies one parameter
    /// from the base values.
    #[arg(
        long = "sweep",
        value_name = "NAME=V1,V2,...",
        allow_hyphen_values = true
    )]
    pub sweeps: Vec<String>,
    /// Time integrator(s).
    #[arg(long, value_enum, default_value = "euler")]
    pub integrator: IntegratorChoice,
    /// Mass m (kg).
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true)]
    pub m: f64,
    /// Initial height x₀ above the ground (m).
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true)]
    pub x0: f64,
    /// Initial velocity v₀ (m/s, negative is downwards).
    #[arg(long, default_value_t = -10.0, allow_hyphen_values = true)]
    pub v0: f64,
    /// Gravitational acceleration (m/s², negative is downwards).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub g: f64,
    /// Time step h (s).
    #[arg(long, default_value_t = 1e-3, allow_hyphen_values = true)]
    pub h: f64,
    /// Barrier activation distance d̂ (m).
    #[arg(long, default_value_t = 1e-3, allow_hyphen_values = true)]
    pub dhat: f64,
    /// The coefficient of restitution the law asks for (`--integrator law` or `all`;
    /// sweep it with `--sweep e=…`).
    #[arg(long, default_value_t = 0.5, allow_hyphen_values = true)]
    pub restitution: f64,
    /// Barrier stiffness κ, added without h² as in the seed.
    #[arg(long, default_value_t = 100.0, allow_hyphen_values = true)]
    pub kappa: f64,
    /// Newton stops when |Δx|/h < tol (m/s).
    #[arg(long, default_value_t = 1e-5, allow_hyphen_values = true)]
    pub tol: f64,
    /// Simulated time (s).
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true)]
    pub duration: f64,
    /// Output folder.
    #[arg(long, default_value = "out/restitution")]
    pub out: PathBuf,
    /// Write the CSV files only, no PNG plots.
    #[arg(long)]
    pub no_plots: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs the command; errors go to stderr with a non-zero exit status
/// (2 for bad arguments, 1 for failures while simulating or writing).
pub fn main(args: RestitutionArgs) -> ExitCode {
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, e)) => {
            eprintln!("error: {e}");
            ExitCode::from(code)
        }
    }
}

fn run(args: &RestitutionArgs) -> Result<(), (u8, String)> {
    let base = ParticleParams {
        m: args.m,
        x0: args.x0,
        v0: args.v0,
        g: args.g,
        h: args.h,
        dhat: args.dhat,
        kappa: args.kappa,
        tol: args.tol,
        duration: args.duration,
        scheme: Scheme::Euler,
        e: args.restitution,
    };
    base.validate().map_err(|e| (2, format!("--{e}")))?;
    if args.sweeps.is_empty() {
        base.check_reaches_ground()
            .map_err(|e| (2, format!("--{e}")))?;
    }
    let schemes: &[Scheme] = match args.integrator {
        IntegratorChoice::Euler => &[Scheme::Euler],
        IntegratorChoice::Newmark => &[Scheme::Newmark],
        IntegratorChoice::Both => &[Scheme::Euler, Scheme::Newmark],
        IntegratorChoice::Law => &[Scheme::Law],
        IntegratorChoice::All => &[Scheme::Euler, Scheme::Newmark, Scheme::Law],
    };
    let mut sweeps: Vec<(String, Option<Sweep>)> = Vec::new();
    for (k, s) in args.sweeps.iter().enumerate() {
        let sweep: Sweep = s.parse().map_err(|e| (2, format!("--sweep {s}: {e}")))?;
        let name = sweep.param.name();
        // Each sweep writes NAME_*.csv/png: a second sweep of the same name would
        // overwrite the first one's files, so it is refused (not merged: the two
        // lists may have been meant as separate studies, and one list says so plainly).
        if let Some(first) = args.sweeps[..k]
            .iter()
            .find(|t| t.parse::<Sweep>().is_ok_and(|t| t.param == sweep.param))
        {
            return Err((
                2,
                format!(
                    "--sweep {s}: {name} is already swept by --sweep {first} and both would write {name}_table.csv; give all its values in one --sweep"
                ),
            ));
        }
        for &v in &sweep.values {
            let p = sweep.param.apply(&base, v);
            p.validate()
                .and_then(|()| p.check_reaches_ground())
                .map_err(|e| (2, format!("--sweep {s}: {name}={}: {e}", fmt_g(v))))?;
        }
        sweeps.push((name.to_string(), Some(sweep)));
    }
    if sweeps.is_empty() {
        sweeps.push(("single".to_string(), None));
    }
    std::fs::create_dir_all(&args.out).map_err(|e| (1, crate::output::io_error(&args.out, e)))?;
    for (name, sweep) in &sweeps {
        let sweep = sweep.clone().unwrap_or(Sweep {
            param: super::sweep::Param::Kappa,
            values: vec![base.kappa],
        });
        let runs = run_sweep(&base, &sweep, schemes).map_err(|e| (2, e))?;
        if !args.quiet {
            for r in runs
                .iter()
                .filter(|r| r.measurement.contact() == Contact::None)
            {
                eprintln!(
                    "note: sweep {name}: {}={} ({}) never came within dhat = {} m of the ground in {} s: no contact, so no COR (contact `none` in the table)",
                    sweep.param,
                    fmt_g(r.value),
                    r.params.scheme,
                    fmt_g(r.params.dhat),
                    fmt_g(r.params.duration)
                );
            }
        }
        let swept = (name != "single").then_some(sweep.param);
        let fixed = fixed_text(&base, swept, schemes.contains(&Scheme::Law));
        let mut files = vec![
            write_table(&args.out, name, &runs).map_err(|e| (1, e))?,
            write_trajectories(&args.out, name, &runs).map_err(|e| (1, e))?,
        ];
        if !args.no_plots {
            files.extend(write_plots(&args.out, name, &fixed, &runs).map_err(|e| (1, e))?);
        }
        if !args.quiet {
            let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
            let text = format!(
                "sweep {name} ({fixed}):\n{}wrote {}\n\n",
                table_text(sweep.param.name(), &runs),
                names.join(", ")
            );
            // A closed pipe (`| head`) is not an error of the study.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    Ok(())
}
