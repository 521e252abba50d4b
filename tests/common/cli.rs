//! Running the `springsim` binary from the integration tests: an argument list written
//! as one line of words, a run that must succeed, and the `summary.json` a run writes.

use std::path::Path;
use std::process::Output;

/// The arguments of `line`, split at white space (for arguments that hold no spaces).
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Runs `springsim WORDS --out OUT` (`words` split at white space) and returns its
/// output.
pub fn springsim_out(words: &str, out: &Path) -> Output {
    let mut args = self::words(words);
    args.extend(["--out", out.to_str().unwrap()]);
    super::springsim(&args)
}

/// Asserts that a run of the binary succeeded; its stderr is the message.
pub fn assert_ok(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Runs `springsim WORDS --out OUT` as [`springsim_out`] does, asserts that it
/// succeeded and returns the `summary.json` it wrote into `out`.
pub fn run_summary(words: &str, out: &Path) -> serde_json::Value {
    assert_ok(&springsim_out(words, out));
    read_summary(out)
}

/// The `summary.json` a run wrote into `dir`, parsed.
pub fn read_summary(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary parses")
}
