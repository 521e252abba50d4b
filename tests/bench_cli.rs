//! `springsim bench --quick`: the table, bench.csv and bench.json hold every entry
//! on every backend asked for, with sane figures (their speed is not checked).

mod common;
use std::process::Command;

fn bench(args: &[&str], out: &std::path::Path) -> (String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .arg("bench")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run springsim bench");
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (
        stdout,
        std::fs::read_to_string(out.join("bench.csv")).unwrap(),
    )
}

/// The cells of one CSV line; a quoted cell may hold commas and doubled quotes.
fn split(line: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// The rows of bench.csv as maps from column name to cell.
fn rows(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let (header, rows) = table(csv);
    assert_eq!(header, springsim::bench::table::CSV_COLUMNS);
    rows
}

/// The header and rows of a CSV text, each row a map from column name to cell.
fn table(csv: &str) -> (Vec<String>, Vec<std::collections::HashMap<String, String>>) {
    let mut lines = csv.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| {
            let cells = split(l);
            assert_eq!(cells.len(), header.len(), "{l}");
            header.iter().cloned().zip(cells).collect()
        })
        .collect();
    (header, rows)
}

#[test]
fn quick_ladder_on_the_cpu_with_pcg_and_direct() {
    let out = std::env::temp_dir().join(format!("springsim-bench-{}", std::process::id()));
    let (stdout, csv) = bench(
        &[
            "--quick",
            "--backends",
            "cpu,direct",
            "--steps",
            "2",
            "--warmup",
            "1",
        ],
        &out,
    );
    let rows = rows(&csv);
    let ladder = springsim::bench::ladder::ladder(true);
    assert_eq!(rows.len(), 2 * ladder.len());
    for (i, r) in rows.iter().enumerate() {
        let entry = &ladder[i / 2];
        let f = |k: &str| {
            r[k].parse::<f64>()
                .unwrap_or_else(|_| panic!("{k} = {:?} in {r:?}", r[k]))
        };
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["scene"], entry.name());
        assert_eq!(r["backend"], ["cpu", "direct"][i % 2]);
        assert_eq!(f("nodes") as usize, entry.nodes());
        assert!(f("springs") > f("nodes"), "{r:?}");
        assert!(r["device"].contains("threads, f64"), "{r:?}");
        assert_eq!((f("steps"), f("warmup")), (2.0, 1.0));
        let ms = f("ms_per_step");
        assert!(ms > 0.0 && ms < 60_000.0, "{r:?}");
        // Throughput is nodes × steps / seconds.
        let tp = f("node_steps_per_s");
        assert!((tp - f("nodes") * 1e3 / ms).abs() < 1e-6 * tp, "{r:?}");
        assert!(
            f("newton_per_step") >= 1.0 && f("newton_per_step") < 50.0,
            "{r:?}"
        );
        match r["backend"].as_str() {
            "cpu" => assert!(f("cg_per_newton") >= 1.0, "{r:?}"),
            _ => assert_eq!(f("cg_per_newton"), 0.0, "{r:?}"),
        }
        assert!(r["gpu_memory_mib"].is_empty());
        assert!(f("host_rss_mib") > 1.0);
        // About 250 (small square) to 700 (lattice) bytes per node for a GPU CG iteration.
        let per_node = f("gpu_cg_bytes_per_iter") / f("nodes");
        assert!(per_node > 200.0 && per_node < 800.0, "{r:?}");
        // Bodies start 5–6 cm above the ground: after the steps they are close, never through.
        let d = f("min_wall_distance");
        assert!(d > 0.0 && d < 0.06, "{r:?}");
        assert!(stdout.contains(&entry.name()));
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench.json")).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), rows.len());
    assert!(json["command"].as_str().unwrap().contains("bench --quick"));
    assert_eq!(json["date_utc"].as_str().unwrap().len(), 16);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn gpu_rows_on_the_small_entries_and_skips_with_reasons() {
    let out = std::env::temp_dir().join(format!("springsim-bench-gpu-{}", std::process::id()));
    let probe = common::random_model(4, 2, "book", 1);
    let have_gpu = common::gpu_backend(probe, Default::default()).is_some();
    let (_, csv) = bench(
        &[
            "--quick",
            "--backends",
            "gpu",
            "--steps",
            "1",
            "--warmup",
            "1",
            "--max-nodes",
            "300",
        ],
        &out,
    );
    let rows = rows(&csv);
    assert_eq!(rows.len(), springsim::bench::ladder::ladder(true).len());
    for r in &rows {
        let nodes: usize = r["nodes"].parse().unwrap();
        if nodes > 300 {
            assert_eq!(r["status"], "skipped: more than --max-nodes 300", "{r:?}");
            assert!(r["ms_per_step"].is_empty());
        } else if have_gpu {
            assert_eq!(r["status"], "ok", "{r:?}");
            let mem: f64 = r["gpu_memory_mib"].parse().unwrap();
            assert!(mem > 0.0 && mem < 64.0, "{r:?}");
            let d: f64 = r["min_wall_distance"].parse().unwrap();
            assert!(d > 0.0 && d < 0.06, "{r:?}");
        } else {
            assert!(r["status"].starts_with("skipped: "), "{r:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    let bad = Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args(["bench", "--quick", "--backends", "cpu,tpu"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown backend `tpu`"));
}

/// `--profile-kernels`: kernels.csv times every dispatch of the timed steps (its
/// calls add up to the row's dispatches), the MAS rows time the factorisation's
/// kernels, and every GPU row carries the cost model's prediction.
#[test]
fn profiled_gpu_rows_time_every_dispatch() {
    let probe = common::random_model(4, 2, "book", 1);
    if common::gpu_backend(probe, Default::default()).is_none() {
        return; // no adapter outside CI (in CI the helper fails instead)
    }
    let out = std::env::temp_dir().join(format!("springsim-bench-prof-{}", std::process::id()));
    let args = "--quick --backends gpu,gpu-mas --family square2d --steps 1 --warmup 1 \
                --max-nodes 300 --profile-kernels";
    let (_, csv) = bench(&args.split_whitespace().collect::<Vec<_>>(), &out);
    let kernels = std::fs::read_to_string(out.join("kernels.csv")).unwrap();
    let (_, krows) = table(&kernels);
    let mut checked = 0;
    for r in rows(&csv).iter().filter(|r| r["status"] == "ok") {
        let mine: Vec<_> = krows
            .iter()
            .filter(|k| k["scene"] == r["scene"] && k["backend"] == r["backend"])
            .collect();
        let calls: f64 = mine
            .iter()
            .map(|k| k["calls_per_step"].parse::<f64>().unwrap())
            .sum();
        let dispatches: f64 = r["dispatches_per_step"].parse().unwrap();
        assert!(dispatches > 20.0, "{r:?}");
        assert_eq!(calls, dispatches, "{r:?}");
        for k in &mine {
            let us: f64 = k["us_per_call"].parse().unwrap();
            assert!(us > 0.0 && us < 5e6, "{k:?}");
        }
        let has = |name: &str| mine.iter().any(|k| k["kernel"] == name);
        // the fused CG iteration's α kernel (with block-Jacobi and MAS alike)
        let alpha = has("cg_alpha_update");
        assert!(
            has("newton_matvec") && alpha && !has("cg_alpha"),
            "{mine:?}"
        );
        let num = |k: &str| r[k].parse::<f64>().unwrap();
        assert!(
            num("submissions_per_step") >= num("readbacks_per_step"),
            "{r:?}"
        );
        let empty = num("empty_dispatches_per_step");
        assert!(empty >= 0.0 && empty < dispatches, "{r:?}");
        let per_cg: f64 = r["dispatches_per_cg_iteration"].parse().unwrap();
        match r["backend"].as_str() {
            "gpu" => assert_eq!(per_cg, 3.0, "{r:?}"),
            _ => assert!(per_cg > 3.0, "{r:?}"),
        }
        assert_eq!(has("mas_invert"), r["backend"] == "gpu-mas", "{mine:?}");
        let measured: f64 = r["ms_per_step"].parse().unwrap();
        let model: f64 = r["model_ms_per_step"].parse().unwrap();
        assert!(model > 0.0 && model.is_finite(), "{r:?}");
        // profiled runs are slower (a pass and a read per kernel): only the order
        assert!(model < 5.0 * measured && model > measured / 20.0, "{r:?}");
        assert!(
            r["readbacks_per_step"].parse::<f64>().unwrap() >= 1.0,
            "{r:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 4, "{csv}");
    let _ = std::fs::remove_dir_all(&out);
}
