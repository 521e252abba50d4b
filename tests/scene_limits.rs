//! Limits a scene must keep (issue 12): bodies that do not fit in memory, names
//! that would leave the output folder, run lengths past the cap, extreme normals;
//! each refused with one error naming file, field, line and reason.

mod common;
use common::bad_scene::{err, expect, expect_each, GOOD};
use springsim::scene;

/// Issue 12, defect 8: a body too large for memory is refused from its counts, before
/// anything is allocated, naming the nodes, the springs and the memory.
#[test]
fn a_body_too_large_for_memory_is_refused_before_it_is_generated() {
    let start = std::time::Instant::now();
    let (n, s) = (
        10_001u64 * 10_001,
        2 * 10_000 * 10_001 + 2 * 10_000 * 10_000,
    );
    let need = scene::memory::estimate_bytes(2, n, s).unwrap();
    match scene::memory::available_bytes() {
        Some(have) if have < need => expect(
            &GOOD.replace("cells = [4, 4]", "cells = [10000, 10000]"),
            "bodies[0].cells",
            14,
            &format!("{n} nodes and {s} springs need about "),
        ),
        have => eprintln!("skipped the 10000² case: {have:?} bytes available, {need} needed"),
    }
    // Counts that overflow 64 bits, and more nodes than springsim indexes.
    expect_each(&[
        (
            "cells = [4, 4]",
            "cells = [4000000000, 4000000000]",
            "bodies[0].cells",
            14,
            "overflows 64-bit arithmetic",
        ),
        (
            "cells = [4, 4]",
            "cells = [100000, 100000]",
            "bodies[0].cells",
            14,
            "10000200001 nodes is more than springsim handles",
        ),
    ]);
    let lattice = GOOD
        .replace("dimension = 2", "dimension = 3")
        .replace("generator = \"grid\"", "generator = \"lattice\"")
        .replace("size = [1.0, 1.0]", "size = [1.0, 1.0, 1.0]")
        .replace("cells = [4, 4]", "cells = [3000000, 3000000, 3000000]")
        .replace("[0.0, -1.0]", "[0.0, -1.0, 0.0]")
        .replace("[0.0, 1.0]", "[0.0, 1.0, 0.0]");
    expect(&lattice, "bodies[0].cells", 14, "overflows");
    assert!(
        start.elapsed().as_secs_f64() < 5.0,
        "took {:?}",
        start.elapsed()
    );
}

/// Issue 12, defect 9: the name is one safe path component (it names out/NAME).
#[test]
fn a_name_that_would_leave_the_output_folder_is_refused() {
    let long = format!("\"{}\"", "a".repeat(101));
    for (name, why) in [
        ("\"../escape\"", "may hold only letters"),
        ("\"/tmp/abs\"", "may hold only letters"),
        ("\"a/b\"", "may hold only letters"),
        ("\"a\\\\b\"", "may hold only letters"),
        ("\"..\"", "must not start with `.`"),
        ("\".hidden\"", "must not start with `.`"),
        ("\"\"", "must not be empty"),
        (long.as_str(), "at most 100 characters"),
    ] {
        expect(&format!("name = {name}\n{GOOD}"), "name", 1, why);
    }
    for ok in ["square-2.v1", "Würfel_3"] {
        let s = scene::parse(&format!("name = \"{ok}\"\n{GOOD}"), "ok.toml", "ok").unwrap();
        assert_eq!(s.name, ok);
    }
    // A default from the file stem is made safe rather than refused.
    let s = scene::parse(GOOD, "my scene.toml", "my scene").unwrap();
    assert_eq!(s.name, "my_scene");
    let s = scene::parse(GOOD, "..toml", ".").unwrap();
    assert_eq!(s.name, "scene");
}

/// Issue 12, defect 11: the run length is capped and numbers in messages are short.
#[test]
fn run_length_is_capped_and_numbers_print_short() {
    let run = |r: &str| GOOD.replace("[[walls]]", &format!("[run]\n{r}\n[[walls]]"));
    expect(
        &run("duration = 1e300"),
        "run.duration",
        8,
        "1e300 s at solver.dt = 0.01 s is 1e302 steps, more than the 1000000000",
    );
    expect(&run("duration = inf"), "run.duration", 8, "positive finite");
    expect(
        &run("duration = -1.0"),
        "run.duration",
        8,
        "positive finite",
    );
    expect(
        &run("steps = 2000000000"),
        "run.steps",
        8,
        "between 1 and 1000000000",
    );
    let ok = scene::parse(&run("duration = 10.0"), "ok.toml", "ok").unwrap();
    assert_eq!(ok.default_steps, Some(1000));
    // The command line's --steps / --duration go through the same cap.
    assert!(ok.run_steps(Some(0), None).is_err());
    assert!(ok.run_steps(Some(2_000_000_000), None).is_err());
    assert_eq!(ok.run_steps(None, Some(0.1)), Ok(10));
    assert_eq!(ok.run_steps(None, None), Ok(1000));
    let e = ok.run_steps(None, Some(1e300)).unwrap_err();
    assert!(e.contains("1e302 steps") && e.len() < 200, "{e}");
    assert!(ok.run_steps(None, Some(f64::NAN)).is_err());
    // 1e300 is shown as 1e300, not a 1 with 300 zeros.
    for (from, to, field, line) in [
        ("dt = 0.01", "dt = -1e300", "solver.dt", 3),
        ("kappa = 1e5", "kappa = -1e300", "contact.kappa", 6),
        (
            "density = 1000.0",
            "density = -1e300",
            "bodies[0].density",
            15,
        ),
    ] {
        let e = err(&GOOD.replace(from, to));
        assert_eq!(e.field.as_deref(), Some(field));
        assert_eq!(e.line, Some(line));
        assert!(e.reason.ends_with("got -1e300"), "{e}");
    }
    let near = err(&GOOD.replace("dhat = 0.01", "dhat = 1e300"));
    assert!(near.to_string().len() < 250, "{near}");
    assert!(near.reason.contains("contact.dhat = 1e300"), "{near}");
}

/// Issue 12, defect 11: a normal with a huge (or tiny) component is normalised by
/// its largest component first instead of overflowing to a "zero vector".
#[test]
fn extreme_normals_are_normalised() {
    let wall = |n: &str| {
        GOOD.replace("point = [0.0, -1.0]", "point = [-1.0, 0.0]")
            .replace("normal = [0.0, 1.0]", &format!("normal = {n}"))
    };
    let s = scene::parse(&wall("[1e308, 1.0]"), "ok.toml", "ok").unwrap();
    assert_eq!(s.model.walls[0].normal[0], 1.0);
    assert!(s.model.walls[0].normal[1] > 0.0 && s.model.walls[0].normal[1] < 1e-300);
    let s = scene::parse(&wall("[1e-320, 0.0]"), "ok.toml", "ok").unwrap();
    assert_eq!(s.model.walls[0].normal, vec![1.0, 0.0]);
    let s = scene::parse(&wall("[4e200, 3e200]"), "ok.toml", "ok").unwrap();
    assert!((s.model.walls[0].normal[0] - 0.8).abs() < 1e-15);
    expect(&wall("[0.0, 0.0]"), "walls[0].normal", 10, "zero vector");
}
