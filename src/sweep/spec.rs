//! What a sweep runs: the varied keys and their values (`--vary KEY=V1,V2,…`), the
//! grid or zipped list of variants they make, each variant's folder name, and the
//! share of them one shard runs (`--shard I/N`, or a Slurm array task).

use crate::scene::Override;
use serde::{Deserialize, Serialize};

/// One `--vary KEY=V1,V2,…`: a scene key and the values it takes (TOML value syntax,
/// as given).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Axis {
    /// The scene key (`contact.kappa`, `bodies[0].cells`).
    pub key: String,
    /// Its values, as written on the command line.
    pub values: Vec<String>,
}

/// Splits `text` at the commas that are not inside brackets, braces or quotes:
/// `[32,32],[64,64]` is two values.
pub fn split_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut cur = String::new();
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

impl Axis {
    /// Parses `KEY=V1,V2,…`; each value is checked as a TOML value here, and against
    /// the scene when the variants are loaded. The error is one line naming the
    /// `--vary`.
    pub fn parse(arg: &str) -> Result<Self, String> {
        let (key, list) = arg
            .split_once('=')
            .ok_or_else(|| format!("--vary {arg}: expected KEY=V1,V2,..."))?;
        let key = key.trim().to_string();
        if list.trim().is_empty() {
            return Err(format!("--vary {arg}: the list of values is empty"));
        }
        let values = split_values(list);
        if let Some(i) = values.iter().position(|v| v.is_empty()) {
            return Err(format!("--vary {arg}: value {} is empty", i + 1));
        }
        for v in &values {
            Override::new("--vary", &key, v)?;
        }
        Ok(Self { key, values })
    }
}

/// One variant: its number (from 0, in grid order), the value of every varied key
/// and the folder it runs in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// Position in the sweep, from 0.
    pub index: usize,
    /// `(key, value)` for every `--vary`, in the order given.
    pub values: Vec<(String, String)>,
    /// Folder name under the sweep's output folder (`007-kappa=1e5-dhat=0.01`).
    pub dir: String,
}

impl Variant {
    /// The overrides that make this variant from the scene.
    pub fn overrides(&self) -> Vec<Override> {
        self.values
            .iter()
            .map(|(k, v)| Override::new("--vary", k, v).expect("checked when parsed"))
            .collect()
    }
}

/// Most variants one sweep may have.
pub const MAX_VARIANTS: usize = 100_000;

/// The variants of `axes`: every combination (the first key varies slowest), or with
/// `zip` the i-th value of every key together (the lists must be equally long).
pub fn variants(axes: &[Axis], zip: bool) -> Result<Vec<Variant>, String> {
    if axes.is_empty() {
        return Err("give at least one --vary KEY=V1,V2,...".into());
    }
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.key == a.key) {
            return Err(format!("--vary {}: the key is varied twice", a.key));
        }
    }
    let rows: Vec<Vec<usize>> = if zip {
        let n = axes[0].values.len();
        if let Some(a) = axes.iter().find(|a| a.values.len() != n) {
            return Err(format!(
                "--zip: --vary {} has {} values, --vary {} has {n}; zipped lists must be equally long",
                a.key,
                a.values.len(),
                axes[0].key
            ));
        }
        (0..n).map(|i| vec![i; axes.len()]).collect()
    } else {
        let total = axes
            .iter()
            .try_fold(1usize, |acc, a| acc.checked_mul(a.values.len()))
            .filter(|&t| t <= MAX_VARIANTS)
            .ok_or_else(|| format!("the grid has more than {MAX_VARIANTS} variants"))?;
        (0..total)
            .map(|mut k| {
                let mut row = vec![0; axes.len()];
                for (j, a) in axes.iter().enumerate().rev() {
                    row[j] = k % a.values.len();
                    k /= a.values.len();
                }
                row
            })
            .collect()
    };
    let width = (rows.len().saturating_sub(1)).to_string().len().max(3);
    Ok(rows
        .into_iter()
        .enumerate()
        .map(|(index, row)| {
            let values: Vec<(String, String)> = axes
                .iter()
                .zip(&row)
                .map(|(a, &i)| (a.key.clone(), a.values[i].clone()))
                .collect();
            let dir = dir_name(index, width, &values);
            Variant { index, values, dir }
        })
        .collect())
}

/// `NNN-key=value-…`: the index (zero-padded to `width`), then each varied key's last
/// part and its value without brackets, quotes and spaces, commas written `x`
/// (`cells=16x16`), other characters than letters, digits and `.+_=` as `_`; cut to
/// 100 characters.
pub fn dir_name(index: usize, width: usize, values: &[(String, String)]) -> String {
    let mut name = format!("{index:0width$}");
    for (k, v) in values {
        let short = k.rsplit('.').next().unwrap_or(k);
        name.push('-');
        name.push_str(short);
        name.push('=');
        name.push_str(v);
    }
    let compact: String = name
        .chars()
        .filter(|c| !"[]{}\"' ".contains(*c))
        .map(|c| if c == ',' { 'x' } else { c })
        .collect();
    plain(&compact, "-.+_=").chars().take(100).collect()
}

/// `text` with every character other than ASCII letters, digits and those in `keep`
/// written as `_`: for file and job names.
pub fn plain(text: &str, keep: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || keep.contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The share of the variants one process runs: those whose index is `index` modulo
/// `count` (round-robin, so slow and fast variants spread over the shards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0.
    pub index: usize,
    /// How many shards there are.
    pub count: usize,
}

impl Shard {
    /// The whole sweep in one process.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `--shard I/N` (I from 0 to N−1).
    pub fn parse(arg: &str) -> Result<Self, String> {
        let bad = || format!("--shard {arg}: expected I/N with 0 <= I < N, e.g. 0/4");
        let (i, n) = arg.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 {
            return Err(format!("--shard {arg}: N must be at least 1"));
        }
        if index >= count {
            return Err(format!(
                "--shard {arg}: shard {index} is out of range for {count} shard{} (0 to {})",
                if count == 1 { "" } else { "s" },
                count.saturating_sub(1)
            ));
        }
        Ok(Self { index, count })
    }

    /// The shard of a Slurm array task (`SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN`
    /// of `SLURM_ARRAY_TASK_COUNT`), read through `var`; `None` outside an array job.
    pub fn from_slurm(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, String> {
        let Some(id) = var("SLURM_ARRAY_TASK_ID") else {
            return Ok(None);
        };
        let num = |name: &str, text: Option<String>| -> Result<Option<usize>, String> {
            text.map(|t| {
                t.trim()
                    .parse::<usize>()
                    .map_err(|_| format!("{name}={t}: not a whole number"))
            })
            .transpose()
        };
        let id = num("SLURM_ARRAY_TASK_ID", Some(id))?.unwrap_or(0);
        let min = num("SLURM_ARRAY_TASK_MIN", var("SLURM_ARRAY_TASK_MIN"))?.unwrap_or(0);
        let count = num("SLURM_ARRAY_TASK_COUNT", var("SLURM_ARRAY_TASK_COUNT"))?
            .ok_or("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not")?;
        if id < min || id - min >= count {
            return Err(format!(
                "SLURM_ARRAY_TASK_ID={id} is outside the array ({count} tasks from {min}); submit the script springsim --emit-slurm wrote, or give --shard I/N"
            ));
        }
        Ok(Some(Self {
            index: id - min,
            count,
        }))
    }

    /// Whether this shard runs variant `index`.
    pub fn includes(&self, index: usize) -> bool {
        index % self.count == self.index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(key: &str, values: &[&str]) -> Axis {
        Axis {
            key: key.into(),
            values: values.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn values_split_at_top_level_commas() {
        assert_eq!(split_values("1e4, 1e5"), vec!["1e4", "1e5"]);
        assert_eq!(
            split_values("[32,32],[64, 64]"),
            vec!["[32,32]", "[64, 64]"]
        );
        assert_eq!(split_values("\"a,b\",c"), vec!["\"a,b\"", "c"]);
        assert_eq!(split_values("{x = 1, y = 2}"), vec!["{x = 1, y = 2}"]);
    }

    #[test]
    fn bad_vary_arguments_are_refused() {
        for bad in [
            "solver.dt",
            "solver.dt=",
            "solver.dt=1,,2",
            "solver..dt=1",
            "a=1e3x",
        ] {
            let e = Axis::parse(bad).unwrap_err();
            assert!(e.starts_with("--vary "), "{bad}: {e}");
        }
        assert_eq!(Axis::parse("a.b=1, 2").unwrap(), axis("a.b", &["1", "2"]));
    }

    #[test]
    fn grids_and_zips_list_every_variant_once() {
        let axes = [
            axis("contact.kappa", &["1e4", "1e5", "1e6"]),
            axis("contact.dhat", &["0.01", "0.02"]),
        ];
        let v = variants(&axes, false).unwrap();
        assert_eq!(v.len(), 6);
        assert_eq!(v[1].values[0].1, "1e4");
        assert_eq!(v[1].values[1].1, "0.02");
        assert_eq!(v[5].dir, "005-kappa=1e5-dhat=0.02".replace("1e5", "1e6"));
        let mut dirs: Vec<&str> = v.iter().map(|x| x.dir.as_str()).collect();
        dirs.dedup();
        assert_eq!(dirs.len(), 6);
        assert!(variants(&axes, true).unwrap_err().contains("equally long"));
        let z = variants(&[axis("a", &["1", "2"]), axis("b", &["3", "4"])], true).unwrap();
        assert_eq!(z.len(), 2);
        assert_eq!(
            z[1].values,
            vec![("a".into(), "2".into()), ("b".into(), "4".into())]
        );
        assert!(variants(&[axis("a", &["1"]), axis("a", &["2"])], false).is_err());
        assert_eq!(
            dir_name(3, 3, &[("bodies[0].cells".into(), "[4, 4]".into())]),
            "003-cells=4x4"
        );
    }

    #[test]
    fn shards_split_the_variants_and_follow_slurm() {
        let s = Shard::parse("1/3").unwrap();
        let mine: Vec<usize> = (0..8).filter(|&i| s.includes(i)).collect();
        assert_eq!(mine, vec![1, 4, 7]);
        for bad in ["3/3", "0/0", "x/2", "1", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
        };
        assert_eq!(Shard::from_slurm(env(&[])).unwrap(), None);
        let got = Shard::from_slurm(env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]));
        assert_eq!(got.unwrap(), Some(Shard { index: 1, count: 3 }));
        assert!(Shard::from_slurm(env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "3")
        ]))
        .is_err());
    }
}
