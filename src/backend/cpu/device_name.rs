//! The CPU backend's device in words.

/// The CPU's model name from `/proc/cpuinfo`, or a generic word where there is none.
pub fn cpu_model_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_else(|| "CPU".to_string())
}
