//! Issue 16's end-to-end Slurm test: `scripts/slurm-test.sh` with this build's binary.
//! It installs Debian's `slurm-wlm` and `munge` if missing, starts a private one-node
//! cluster (`scripts/slurm-cluster.sh`: every file in its own folder, its own ports
//! and munged, never /etc/slurm), runs a 4-variant `springsim sweep` locally and as a
//! 2-task Slurm array job, merges the array's folders with `sweep collect`, and checks
//! that both `sweep.csv` tables agree in every column but the timings (docs/SLURM.md).
//!
//! It runs where the machine allows it: root or passwordless sudo, and apt-get (or
//! Slurm already installed). Elsewhere it says why in one line and passes, except
//! under `CI`, where it fails. On a machine that already runs Slurm the test keeps to
//! its private cluster beside it; with `SPRINGSIM_SLURM_USE_EXISTING=1` it submits to
//! the cluster that `sinfo` answers for instead (and needs neither root nor apt-get).
//! Either way the machine's `/etc/slurm/slurm.conf` and `/etc/munge/munge.key` must be
//! byte-identical afterwards.
//!
//! Issue 29's check (the second test) runs the first inside
//! `scripts/slurm-foreign-check.sh`: beside a foreign cluster started from a foreign
//! `/etc/slurm/slurm.conf`, which it must leave as it was. It writes to /etc, so it runs
//! only under `CI` or with `SPRINGSIM_SLURM_FOREIGN_CHECK=1`, and only where there is no
//! `/etc/slurm/slurm.conf` (where there is one, the first test has just run beside it).
//!
//! Expected run time on the 2-core Debian 12 container: apt-get update + install about
//! 8 s (first run only), cluster start under 1 s, the whole script with the debug
//! binary 16 s with Slurm installed (most of it `sbatch --wait`'s polling and the
//! cluster's stop), about 25 s from a bare machine; the foreign-cluster check about
//! 23 s more.

use std::process::Command;
use std::sync::Mutex;

const REPO: &str = env!("CARGO_MANIFEST_DIR");
const MAIN_TEST: &str = "a_sweep_run_as_a_slurm_array_job_equals_the_same_sweep_run_locally";
/// The machine's own Slurm files, which no run of the test may change.
const GUARDED: [&str; 2] = ["/etc/slurm/slurm.conf", "/etc/munge/munge.key"];

/// The private cluster is one per machine: the two tests take turns.
static CLUSTER: Mutex<()> = Mutex::new(());

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

fn env_is(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == value)
}

/// The user asked to submit to the cluster the environment names.
fn use_existing() -> bool {
    env_is("SPRINGSIM_SLURM_USE_EXISTING", "1")
}

/// A Slurm controller answers `sinfo` within `seconds`, with the caller's environment
/// (a `slurm.conf` whose controller is down costs sinfo 9 s to say so).
fn sinfo_answers(seconds: u32) -> bool {
    on_path("sinfo") && succeeds("timeout", &[&seconds.to_string(), "sinfo", "-h"])
}

/// Why this machine cannot start the private cluster, if it cannot.
fn cannot_run() -> Option<String> {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    if !root && !succeeds("sudo", &["-n", "true"]) {
        return Some("not root and no passwordless sudo".into());
    }
    let installed = ["sbatch", "slurmctld", "slurmd", "munged", "mungekey"]
        .iter()
        .all(|p| on_path(p));
    if !installed && !on_path("apt-get") {
        return Some("Slurm is not installed and there is no apt-get".into());
    }
    None
}

/// Skip with one line, or fail under `CI`.
fn skip(why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but the Slurm test cannot run here: {why}"
    );
    eprintln!("skipping the Slurm test: {why}");
}

/// `SLURM_CONF` of the private cluster, from `scripts/slurm-cluster.sh env`.
fn private_slurm_conf() -> String {
    let o = Command::new("bash")
        .arg(format!("{REPO}/scripts/slurm-cluster.sh"))
        .arg("env")
        .output()
        .expect("run scripts/slurm-cluster.sh env");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "scripts/slurm-cluster.sh env failed: {out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out.lines()
        .find_map(|l| l.strip_prefix("export SLURM_CONF="))
        .unwrap_or_else(|| panic!("scripts/slurm-cluster.sh env printed no SLURM_CONF: {out}"))
        .to_string()
}

#[test]
fn a_sweep_run_as_a_slurm_array_job_equals_the_same_sweep_run_locally() {
    let _turn = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    let mut cmd = Command::new("bash");
    cmd.arg(format!("{REPO}/scripts/slurm-test.sh"))
        .arg(env!("CARGO_BIN_EXE_springsim"));
    if use_existing() {
        assert!(
            sinfo_answers(30),
            "SPRINGSIM_SLURM_USE_EXISTING=1 but sinfo does not answer (SLURM_CONF={})",
            std::env::var("SLURM_CONF").unwrap_or_else(|_| "/etc/slurm/slurm.conf".into())
        );
        eprintln!(
            "the Slurm test submits to the existing cluster (SPRINGSIM_SLURM_USE_EXISTING=1)"
        );
    } else {
        if let Some(why) = cannot_run() {
            skip(&why);
            return;
        }
        if sinfo_answers(5) {
            eprintln!(
                "a Slurm cluster answers sinfo here; the test runs its private cluster beside \
                 it (SPRINGSIM_SLURM_USE_EXISTING=1 submits to that one instead)"
            );
        }
        // Every Slurm client the script runs talks to the private cluster.
        cmd.env("SLURM_CONF", private_slurm_conf());
    }
    let before = GUARDED.map(|p| std::fs::read(p).ok());
    let o = cmd.output().expect("run scripts/slurm-test.sh");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    for (path, before) in GUARDED.iter().zip(before) {
        if let Some(before) = before {
            assert!(
                std::fs::read(path).ok().as_ref() == Some(&before),
                "the Slurm test changed {path}:\n{stdout}{stderr}"
            );
        }
    }
    assert!(
        o.status.success(),
        "scripts/slurm-test.sh failed ({}):\n{stdout}{stderr}",
        o.status
    );
    assert!(stdout.contains("slurm-test: OK ("), "{stdout}{stderr}");
    eprint!("{stdout}");
}

/// Issue 29: the test above passes on a machine that already runs Slurm (a foreign
/// `/etc/slurm/slurm.conf` and its daemons), and leaves that Slurm as it was.
#[test]
fn the_slurm_test_passes_beside_a_foreign_cluster_and_leaves_it_alone() {
    if env_is("SPRINGSIM_SLURM_FOREIGN_CHECK", "inside") {
        eprintln!("skipping the foreign-cluster check: this run is inside it");
        return;
    }
    if std::env::var_os("CI").is_none() && !env_is("SPRINGSIM_SLURM_FOREIGN_CHECK", "1") {
        eprintln!(
            "skipping the foreign-cluster check: it writes /etc/slurm/slurm.conf while it \
             runs (CI runs it; SPRINGSIM_SLURM_FOREIGN_CHECK=1 asks for it)"
        );
        return;
    }
    if std::path::Path::new(GUARDED[0]).exists() {
        // The check will not replace a real configuration; on this machine the first
        // test has run beside the machine's own Slurm and checked it unchanged.
        eprintln!(
            "skipping the foreign-cluster check: {} exists (this machine has its own \
             Slurm, beside which the first test runs)",
            GUARDED[0]
        );
        return;
    }
    if let Some(why) = cannot_run() {
        skip(&why);
        return;
    }
    let _turn = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    // The first test, run by this very test binary inside the check.
    let exe = std::env::current_exe().expect("the test binary's path");
    let o = Command::new("bash")
        .arg(format!("{REPO}/scripts/slurm-foreign-check.sh"))
        .arg(exe)
        .args(["--exact", MAIN_TEST, "--nocapture", "--test-threads=1"])
        .output()
        .expect("run scripts/slurm-foreign-check.sh");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "scripts/slurm-foreign-check.sh failed ({}):\n{stdout}{stderr}",
        o.status
    );
    assert!(
        stdout.contains("slurm-foreign-check: OK ("),
        "{stdout}{stderr}"
    );
    // The check passes on CMD's exit 0: make sure the test ran and was not skipped.
    assert!(
        stdout.contains("1 passed") && stderr.contains("slurm-test: OK ("),
        "the Slurm test did not run inside the check:\n{stdout}{stderr}"
    );
    eprint!("{stderr}{stdout}");
}
