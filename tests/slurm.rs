//! Issue 16's end-to-end Slurm test: `scripts/slurm-test.sh` with this build's binary.
//! It installs Debian's `slurm-wlm` and `munge` if missing, starts a one-node cluster
//! (`scripts/slurm-cluster.sh`), runs a 4-variant `springsim sweep` locally and as a
//! 2-task Slurm array job, merges the array's folders with `sweep collect`, and checks
//! that both `sweep.csv` tables agree in every column but the timings (docs/SLURM.md).
//!
//! It runs where the machine allows it: root or passwordless sudo, and apt-get (or
//! Slurm already installed). Elsewhere it says why and passes, except under `CI`,
//! where it fails.
//!
//! Expected run time on the 2-core Debian 12 container: apt-get update + install about
//! 8 s (first run only), cluster start under 1 s, the whole script with the debug
//! binary 16 s with Slurm installed (most of it `sbatch --wait`'s polling and the
//! cluster's stop), about 25 s from a bare machine.

use std::process::Command;

fn succeeds(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn on_path(program: &str) -> bool {
    succeeds("sh", &["-c", &format!("command -v {program}")])
}

/// Why this machine cannot run the test, if it cannot.
fn cannot_run() -> Option<String> {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    if !root && !succeeds("sudo", &["-n", "true"]) {
        return Some("not root and no passwordless sudo".into());
    }
    let installed = ["sbatch", "slurmctld", "slurmd", "munged"]
        .iter()
        .all(|p| on_path(p));
    if !installed && !on_path("apt-get") {
        return Some("Slurm is not installed and there is no apt-get".into());
    }
    None
}

#[test]
fn a_sweep_run_as_a_slurm_array_job_equals_the_same_sweep_run_locally() {
    if let Some(why) = cannot_run() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the Slurm test cannot run here: {why}"
        );
        eprintln!("skipping the Slurm test: {why}");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-test.sh");
    let o = Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_springsim"))
        .output()
        .expect("run scripts/slurm-test.sh");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "scripts/slurm-test.sh failed ({}):\n{stdout}{stderr}",
        o.status
    );
    assert!(stdout.contains("slurm-test: OK ("), "{stdout}{stderr}");
    eprint!("{stdout}");
}
