//! `--sweep NAME=V1,V2,…`: which parameter of [`ParticleParams`] a study varies and
//! over which values.

use super::particle::ParticleParams;
use std::fmt;
use std::str::FromStr;

/// A parameter the study can sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// Time step h (s).
    H,
    /// Barrier activation distance d̂ (m).
    Dhat,
    /// Barrier stiffness κ (seed 000's, added without h²).
    Kappa,
    /// Newton tolerance on `|Δx|/h` (m/s).
    Tol,
    /// Initial (impact) velocity v₀ (m/s, negative downwards).
    V0,
    E,
}

impl Param {
    /// Every sweepable parameter, with the name used on the command line.
    pub const ALL: [(Param, &'static str); 6] = [
        (Param::H, "h"),
        (Param::Dhat, "dhat"),
        (Param::Kappa, "kappa"),
        (Param::Tol, "tol"),
        (Param::V0, "v0"),
        (Param::E, "e"),
    ];

    /// The command-line name (`h`, `dhat`, `kappa`, `tol`, `v0`).
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(p, _)| *p == self)
            .map_or("?", |e| e.1)
    }

    /// Whether plots put this parameter on a logarithmic axis.
    pub fn log_scale(self) -> bool {
        !matches!(self, Param::V0 | Param::E)
    }

    /// `base` with this parameter set to `value`.
    pub fn apply(self, base: &ParticleParams, value: f64) -> ParticleParams {
        let mut p = *base;
        match self {
            Param::H => p.h = value,
            Param::Dhat => p.dhat = value,
            Param::Kappa => p.kappa = value,
            Param::Tol => p.tol = value,
            Param::V0 => p.v0 = value,
            Param::E => p.e = value,
        }
        p
    }

    /// This parameter's value in `p`.
    pub fn get(self, p: &ParticleParams) -> f64 {
        match self {
            Param::H => p.h,
            Param::Dhat => p.dhat,
            Param::Kappa => p.kappa,
            Param::Tol => p.tol,
            Param::V0 => p.v0,
            Param::E => p.e,
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One sweep: a parameter and the values it takes, in the order given.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The varied parameter.
    pub param: Param,
    /// Its values (units of the parameter).
    pub values: Vec<f64>,
}

impl FromStr for Sweep {
    type Err = String;

    /// Parses `NAME=V1,V2,…`, e.g. `kappa=1,10,100`.
    fn from_str(s: &str) -> Result<Self, String> {
        let names = Param::ALL.map(|e| e.1).join(", ");
        let (name, list) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}` is not NAME=V1,V2,… (NAME one of {names})"))?;
        let name = name.trim();
        let param = Param::ALL
            .iter()
            .find(|(_, n)| *n == name)
            .map(|e| e.0)
            .ok_or_else(|| format!("unknown parameter `{name}` (one of {names})"))?;
        let values = list
            .split(',')
            .map(|v| {
                let v = v.trim();
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| format!("{name}: `{v}` is not a finite number"))
            })
            .collect::<Result<Vec<f64>, String>>()?;
        Ok(Sweep { param, values })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        let s: Sweep = "kappa=1,10,1e4".parse().unwrap();
        assert_eq!(s.param, Param::Kappa);
        assert_eq!(s.values, vec![1.0, 10.0, 1e4]);
        let v: Sweep = "v0=-2,-5".parse().unwrap();
        assert_eq!(v.values, vec![-2.0, -5.0]);
        assert!("kapa=1".parse::<Sweep>().unwrap_err().contains("kapa"));
        assert!("kappa=1,x".parse::<Sweep>().unwrap_err().contains("`x`"));
        assert!("kappa".parse::<Sweep>().is_err());
        assert!("h=".parse::<Sweep>().is_err());
    }
}
