//! `springsim sweep … --emit-slurm FILE`: an `sbatch` array script whose tasks each
//! run one shard of the sweep (the shard comes from `SLURM_ARRAY_TASK_ID`), all into
//! the same output folder; `springsim sweep collect OUT` tabulates them afterwards.

use std::path::Path;

/// The `#SBATCH` choices of an emitted script.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct SlurmOptions {
    /// Time limit per array task, in Slurm's syntax (`01:00:00`, `2-00:00:00`).
    #[arg(long, value_name = "TIME")]
    pub slurm_time: Option<String>,
    /// Memory per array task, in Slurm's syntax (`4G`, `500M`).
    #[arg(long, value_name = "MEM")]
    pub slurm_mem: Option<String>,
    /// Partition to submit to.
    #[arg(long, value_name = "NAME")]
    pub slurm_partition: Option<String>,
    /// Ask one GPU per task (`--gres=gpu:1`); variants then run on `--backend gpu`
    /// when the sweep says so.
    #[arg(long)]
    pub slurm_gpu: bool,
    /// Array tasks (default: one per variant); each runs every N-th variant.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub slurm_tasks: Option<u64>,
    /// CPU cores per task (default 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub slurm_cpus: Option<u64>,
}

/// `text` quoted for a POSIX shell (single quotes, with `'` written as `'\''`).
pub fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Checks a Slurm option's text: one line, no shell or `#SBATCH` breakers.
fn check_value(flag: &str, v: &str) -> Result<(), String> {
    if v.is_empty()
        || v.chars()
            .any(|c| c.is_whitespace() || c.is_control() || "'\"\\$`;&|<>#".contains(c))
    {
        return Err(format!(
            "{flag} {v:?}: must be one word without quotes or shell characters"
        ));
    }
    Ok(())
}

/// The script: `tasks` array tasks, each `cd`-ing to `workdir` and running `sweep`
/// (the full `springsim sweep …` command, already quoted) as its shard; task logs go
/// to `OUT/slurm/`. `name` is the job name.
pub fn script(
    o: &SlurmOptions,
    name: &str,
    tasks: u64,
    out: &Path,
    workdir: &Path,
    sweep: &str,
) -> Result<String, String> {
    let cpus = o.slurm_cpus.unwrap_or(1);
    let mut s = String::from("#!/bin/bash\n");
    s.push_str(&format!(
        "# Written by `springsim sweep --emit-slurm`: {tasks} array task(s), each running one\n# shard of the sweep into {}.\n# Submit with `sbatch THIS_FILE`; when every task has ended, tabulate with\n#   springsim sweep collect {}\n",
        out.display(),
        shell_quote(&out.display().to_string())
    ));
    let job = super::spec::plain(name, "-_.");
    s.push_str(&format!("#SBATCH --job-name=springsim-{job}\n"));
    s.push_str(&format!("#SBATCH --array=0-{}\n", tasks - 1));
    s.push_str("#SBATCH --ntasks=1\n");
    s.push_str(&format!("#SBATCH --cpus-per-task={cpus}\n"));
    let logs = out.join("slurm");
    if logs.display().to_string().chars().any(char::is_whitespace) {
        return Err(format!(
            "--emit-slurm: the output folder {} has a space, which #SBATCH --output cannot hold",
            out.display()
        ));
    }
    s.push_str(&format!("#SBATCH --output={}/%A_%a.log\n", logs.display()));
    if let Some(t) = &o.slurm_time {
        check_value("--slurm-time", t)?;
        s.push_str(&format!("#SBATCH --time={t}\n"));
    }
    if let Some(m) = &o.slurm_mem {
        check_value("--slurm-mem", m)?;
        s.push_str(&format!("#SBATCH --mem={m}\n"));
    }
    if let Some(p) = &o.slurm_partition {
        check_value("--slurm-partition", p)?;
        s.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if o.slurm_gpu {
        s.push_str("#SBATCH --gres=gpu:1\n");
    }
    s.push_str("set -euo pipefail\n");
    s.push_str(&format!(
        "cd {}\n",
        shell_quote(&workdir.display().to_string())
    ));
    s.push_str("# The shard is SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT;\n# --resume keeps what an earlier attempt of this task finished.\n");
    s.push_str(&format!("exec {sweep}\n"));
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_the_shell() {
        assert_eq!(shell_quote("solver.dt=1e-3"), "solver.dt=1e-3");
        assert_eq!(
            shell_quote("bodies[0].cells=[4, 4]"),
            "'bodies[0].cells=[4, 4]'"
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn scripts_carry_the_options_and_refuse_bad_ones() {
        let o = SlurmOptions {
            slurm_time: Some("01:00:00".into()),
            slurm_mem: Some("4G".into()),
            slurm_partition: Some("gpu".into()),
            slurm_gpu: true,
            slurm_tasks: None,
            slurm_cpus: Some(4),
        };
        let s = script(
            &o,
            "sq drop",
            5,
            Path::new("/o"),
            Path::new("/w d"),
            "springsim sweep x",
        )
        .unwrap();
        for want in [
            "#SBATCH --array=0-4",
            "#SBATCH --cpus-per-task=4",
            "#SBATCH --time=01:00:00",
            "#SBATCH --mem=4G",
            "#SBATCH --partition=gpu",
            "#SBATCH --gres=gpu:1",
            "#SBATCH --output=/o/slurm/%A_%a.log",
            "#SBATCH --job-name=springsim-sq_drop",
            "cd '/w d'",
            "exec springsim sweep x",
        ] {
            assert!(s.contains(want), "{want}: {s}");
        }
        let bad = SlurmOptions {
            slurm_mem: Some("4G; rm".into()),
            ..SlurmOptions::default()
        };
        assert!(script(&bad, "x", 1, Path::new("/o"), Path::new("/"), "x").is_err());
    }
}
