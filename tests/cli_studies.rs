//! The `restitution` and `plot` commands end to end: files written, PNGs that decode,
//! tables printed, and bad input answered with a named error and a non-zero status.

mod common;
use common::cli::{assert_ok, springsim_out};
use common::{springsim, temp_dir as temp};
use std::path::Path;
use std::process::Output;

/// Runs the binary and asserts that it succeeded (its stderr is the message).
fn springsim_ok(args: &[&str]) -> Output {
    let out = springsim(args);
    assert!(
        out.status.success(),
        "springsim {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Decodes a PNG and returns (width, height, number of distinct colours seen).
fn png_info(path: &Path) -> (u32, u32, usize) {
    let dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let mut colours: Vec<&[u8]> = buf[..info.buffer_size()].chunks(3).collect();
    colours.sort_unstable();
    colours.dedup();
    (info.width, info.height, colours.len())
}

#[test]
fn restitution_sweep_prints_its_table_and_writes_csv_and_png() {
    let dir = temp("restitution");
    let out = springsim_out(
        "restitution --sweep kappa=10,100,1000 --sweep dhat=0.1,0.01 --integrator both \
         --duration 2",
        &dir,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("sweep kappa"), "{stdout}");
    assert!(stdout.contains("sweep dhat"), "{stdout}");
    // Seed 000's default (κ = 100, Euler) COR, in the printed table.
    assert!(stdout.contains("0.01346"), "{stdout}");
    for name in ["kappa", "dhat"] {
        let table = std::fs::read_to_string(dir.join(format!("{name}_table.csv"))).unwrap();
        assert!(
            table.starts_with(&format!("{name},integrator,cor,")),
            "{table}"
        );
        assert_eq!(table.lines().count(), if name == "kappa" { 7 } else { 5 });
        let traj = std::fs::read_to_string(dir.join(format!("{name}_trajectories.csv"))).unwrap();
        assert!(traj.starts_with(&format!("{name},integrator,step,t,x,v\n")));
        for plot in ["height", "velocity", "cor"] {
            let (w, h, colours) = png_info(&dir.join(format!("{name}_{plot}.png")));
            assert_eq!((w, h), (960, 560));
            assert!(colours > 10, "{name}_{plot}.png is nearly blank");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn restitution_rejects_bad_arguments_by_name() {
    let cases: [(&[&str], &str); 4] = [
        (&["--sweep", "kapa=1,2"], "unknown parameter `kapa`"),
        (&["--sweep", "dhat=0.1,-1"], "dhat must be a positive"),
        (&["--sweep", "kappa=1,x"], "`x` is not a finite number"),
        (&["--h", "0"], "--h must be a positive"),
    ];
    for (args, message) in cases {
        let dir = temp("restitution_bad");
        let mut all = vec!["restitution", "--out", dir.to_str().unwrap()];
        all.extend_from_slice(args);
        let out = springsim(&all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(!dir.exists(), "nothing is written for bad arguments");
    }
}

#[test]
fn plot_turns_steps_csv_into_pngs() {
    let dir = temp("plot");
    assert_ok(&springsim_out("run ball_bounce --steps 300 --quiet", &dir));
    for f in [
        "gap",
        "velocity",
        "lambda",
        "energy_balance",
        "energy_variation",
    ] {
        assert!(png_info(&dir.join(format!("{f}.png"))).2 > 10, "{f}.png");
    }
    springsim_ok(&["plot", dir.to_str().unwrap()]);
    for f in ["energies", "iterations", "cg_iterations", "min_distance"] {
        let (w, _, colours) = png_info(&dir.join(format!("{f}.png")));
        assert_eq!(w, 960);
        assert!(colours > 10, "{f}.png is nearly blank");
    }
    // A damaged steps.csv is reported with its line and column.
    let steps = dir.join("steps.csv");
    let text = std::fs::read_to_string(&steps).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let kinetic = lines[0]
        .split(',')
        .position(|c| c == "kinetic")
        .expect("steps.csv has a kinetic column");
    lines[3] = {
        let mut f: Vec<&str> = lines[3].split(',').collect();
        f[kinetic] = "abc";
        f.join(",")
    };
    std::fs::write(&steps, lines.join("\n")).unwrap();
    let out = springsim(&["plot", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("steps.csv:4: column `kinetic`"), "{stderr}");
    let missing = springsim(&["plot", dir.join("nope").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    // A wrong number of fields in a middle row is an error too.
    let mut short = text.lines().map(String::from).collect::<Vec<_>>();
    short[5] = short[5].split(',').skip(1).collect::<Vec<_>>().join(",");
    std::fs::write(&steps, short.join("\n") + "\n").unwrap();
    let out = springsim(&["plot", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("steps.csv:6: "), "{stderr}");
    // A last row cut off by a killed run (no newline) is left out with a warning.
    std::fs::write(&steps, &text[..text.len() - 7]).unwrap();
    let out = springsim(&["plot", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("warning: ")
            && stderr.contains("steps.csv:301: the last line is cut off"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn plot_draws_friction_contacts_and_dissipation_for_a_friction_run() {
    let dir = temp("plot_friction");
    assert_ok(&springsim_out(
        "run square_on_slope --backend cpu --steps 120 --quiet",
        &dir,
    ));
    springsim_ok(&["plot", dir.to_str().unwrap()]);
    for f in ["friction_contacts", "friction_dissipation"] {
        let (w, _, colours) = png_info(&dir.join(format!("{f}.png")));
        assert_eq!(w, 960);
        assert!(colours > 10, "{f}.png is nearly blank");
    }
    // A run without friction draws no friction plots.
    let plain = dir.join("plain");
    assert_ok(&springsim_out(
        "run square_drop --backend cpu --steps 40 --quiet",
        &plain,
    ));
    springsim_ok(&["plot", plain.to_str().unwrap()]);
    assert!(!plain.join("friction_contacts.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
