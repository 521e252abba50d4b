//! `springsim render`: the GIF encoder round-trips through an independent LZW decoder,
//! and a short container run renders to a GIF and PNG stills whose wall pixels lie on
//! the circle.

use springsim::render::gif::GifWriter;
use springsim::render::{render, RenderArgs};

/// Decodes the image data of every frame of a GIF written by [`GifWriter`].
fn decode_frames(b: &[u8]) -> Vec<Vec<u8>> {
    assert_eq!(&b[..6], b"GIF89a");
    let bits = (b[10] & 7) + 1;
    let mut at = 13 + 3 * (1usize << bits);
    let mut frames = Vec::new();
    loop {
        match b[at] {
            0x3B => return frames,
            0x21 => {
                at += 2;
                while b[at] != 0 {
                    at += b[at] as usize + 1;
                }
                at += 1;
            }
            0x2C => {
                at += 10;
                let min = b[at] as u32;
                at += 1;
                let mut data = Vec::new();
                while b[at] != 0 {
                    data.extend_from_slice(&b[at + 1..at + 1 + b[at] as usize]);
                    at += b[at] as usize + 1;
                }
                at += 1;
                frames.push(lzw_decode(&data, min));
            }
            x => panic!("unexpected block {x:#x} at {at}"),
        }
    }
}

fn lzw_decode(data: &[u8], min: u32) -> Vec<u8> {
    let clear = 1usize << min;
    let end = clear + 1;
    let mut dict: Vec<Vec<u8>> = Vec::new();
    let reset = |d: &mut Vec<Vec<u8>>| {
        d.clear();
        for k in 0..clear {
            d.push(vec![k as u8]);
        }
        d.push(vec![]);
        d.push(vec![]);
    };
    reset(&mut dict);
    let mut width = min + 1;
    let (mut acc, mut n, mut pos) = (0u32, 0u32, 0usize);
    let mut prev: Option<usize> = None;
    let mut out = Vec::new();
    loop {
        while n < width {
            acc |= (data[pos] as u32) << n;
            pos += 1;
            n += 8;
        }
        let code = (acc & ((1 << width) - 1)) as usize;
        acc >>= width;
        n -= width;
        if code == clear {
            reset(&mut dict);
            width = min + 1;
            prev = None;
            continue;
        }
        if code == end {
            return out;
        }
        let entry = if code < dict.len() {
            dict[code].clone()
        } else {
            let p = &dict[prev.expect("first code in the table")];
            let mut e = p.clone();
            e.push(p[0]);
            e
        };
        out.extend_from_slice(&entry);
        if let Some(p) = prev {
            if dict.len() < 4096 {
                let mut e = dict[p].clone();
                e.push(entry[0]);
                dict.push(e);
            }
        }
        if dict.len() == 1 << width && width < 12 {
            width += 1;
        }
        prev = Some(code);
    }
}

#[test]
fn gif_frames_round_trip() {
    let (w, h) = (97u16, 61u16);
    let mut seed = 12345u64;
    let mut frames = Vec::new();
    for f in 0..3 {
        let frame: Vec<u8> = (0..w as usize * h as usize)
            .map(|k| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if f == 0 {
                    (k / 50 % 16) as u8
                } else if f == 1 {
                    ((seed >> 60) as u8) % 16
                } else {
                    0
                }
            })
            .collect();
        frames.push(frame);
    }
    let pal: Vec<[u8; 3]> = (0..16).map(|k| [k * 16, 0, 255 - k * 16]).collect();
    let mut g = GifWriter::new(w, h, &pal);
    for f in &frames {
        g.frame(f, 4);
    }
    let decoded = decode_frames(&g.finish());
    assert_eq!(decoded, frames);
}

/// Runs `springsim run SCENE --backend cpu --steps STEPS --trajectory --quiet --out DIR`
/// and asserts that it succeeds.
fn run_with_trajectory(scene: &str, steps: u64, dir: &std::path::Path) {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args([
            "run",
            scene,
            "--backend",
            "cpu",
            "--steps",
            &steps.to_string(),
        ])
        .args(["--trajectory", "--quiet", "--out"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn container_run_renders_gif_and_stills() {
    let dir = std::env::temp_dir().join(format!("springsim_render_{}", std::process::id()));
    run_with_trajectory("circle_balls", 200, &dir);
    let files = render(&RenderArgs {
        dir: dir.clone(),
        scene: None,
        size: 120,
        frame_time: Some(0.05),
        until: None,
        stills: 2,
        quiet: true,
    })
    .unwrap();
    assert_eq!(files.len(), 3, "{files:?}");
    let gif = std::fs::read(dir.join("animation.gif")).unwrap();
    let frames = decode_frames(&gif);
    assert_eq!(frames.len(), 5, "steps 0, 50, 100, 150, 200");
    // wall pixels (palette index 1, black) lie near the circle of radius 15 m
    let f = &frames[0];
    let black: Vec<(usize, usize)> = (0..120 * 120)
        .filter(|k| f[*k] == 1)
        .map(|k| (k % 120, k / 120))
        .filter(|(_, y)| *y > 50) // below the text
        .collect();
    assert!(black.len() > 100);
    let cx = black.iter().map(|p| p.0 as f64).sum::<f64>() / black.len() as f64;
    assert!((cx - 60.0).abs() < 6.0, "circle centre at x pixel {cx}");
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args(["render", "/nonexistent/run"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("summary.json"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 12, defect 6: a damaged trajectory.csv never panics `springsim render`. An
/// incomplete last step (a killed run, a full disk) is left out with one warning line
/// and the complete steps are rendered; a duplicate or missing node row, an
/// out-of-range node, a field that is not a number or a wrong number of fields is one
/// error line naming the file and the line, exit status 2.
#[test]
fn damaged_trajectories_are_rendered_or_refused_in_one_line() {
    let bin = env!("CARGO_BIN_EXE_springsim");
    let dir = std::env::temp_dir().join(format!("springsim_render_bad_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    run_with_trajectory("square_drop", 3, &dir);
    let path = dir.join("trajectory.csv");
    let good = std::fs::read_to_string(&path).unwrap();
    // Header, then steps 0..=3 of 25 nodes: step s, node i is on line 2 + 25 s + i.
    let lines: Vec<&str> = good.lines().collect();
    assert_eq!(lines.len(), 1 + 4 * 25);
    assert!(lines[29].starts_with("1,3,"), "{}", lines[29]);
    let render = |text: &str| {
        std::fs::write(&path, text).unwrap();
        let out = std::process::Command::new(bin)
            .args(["render", dir.to_str().unwrap(), "--frame-time", "0.01"])
            .args(["--size", "64", "--stills", "1"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), stderr)
    };
    let join = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
    let gif_frames = || decode_frames(&std::fs::read(dir.join("animation.gif")).unwrap()).len();

    let (code, stderr) = render(&good);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    assert_eq!(gif_frames(), 4);
    // Cut in the middle of the last line, and three whole rows short.
    for (text, rows) in [
        (
            &good[..good.len() - 5],
            "24 of 25 node rows, then a cut-off line",
        ),
        (&join(&lines[..lines.len() - 3])[..], "22 of 25 node rows;"),
    ] {
        let (code, stderr) = render(text);
        assert_eq!(code, Some(0), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("warning: ")
                && stderr.contains("trajectory.csv: the last step (3) is incomplete")
                && stderr.contains(rows),
            "{stderr}"
        );
        assert_eq!(gif_frames(), 3, "steps 0, 1 and 2");
    }
    let edit = |f: &dyn Fn(&mut Vec<String>)| {
        let mut ls: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        f(&mut ls);
        ls.iter().map(|l| format!("{l}\n")).collect::<String>()
    };
    for (text, message) in [
        (
            edit(&|ls| ls.insert(30, ls[29].clone())),
            "trajectory.csv:31: duplicate row for node 3 of step 1",
        ),
        (
            edit(&|ls| ls[29] = ls[29].replacen("1,3,", "1,999,", 1)),
            "trajectory.csv:30: node index 999 is out of range: the scene has 25 nodes",
        ),
        (
            edit(&|ls| ls[29] = ls[29].replacen("1,3,", "1,3,abc", 1)),
            "trajectory.csv:30: coordinate x `abc",
        ),
        (
            edit(&|ls| ls[29] = "1,3,0.5".into()),
            "trajectory.csv:30: expected 4 fields (step, node and 2 coordinates), got 3",
        ),
        (
            edit(&|ls| {
                ls.remove(29);
            }),
            "trajectory.csv:30: node 3 of step 1 is missing",
        ),
        (
            edit(&|ls| ls.truncate(40)),
            "trajectory.csv: the last step (1) is incomplete",
        ),
        (edit(&|ls| ls.retain(|l| !l.starts_with("1,"))), ""),
        (
            edit(&|ls| ls.swap(27, 52)),
            "trajectory.csv:28: step 1 ends after 1 of its 25 node rows (node 1 is missing)",
        ),
        (
            edit(&|ls| ls[27] = ls[27].replacen("1,1,", "0,1,", 1)),
            "trajectory.csv:28: step 0 after step 1: steps must increase",
        ),
    ] {
        let (code, stderr) = render(&text);
        if message.is_empty() {
            // A step left out entirely is not damage: steps 0, 2, 3 render.
            assert_eq!(code, Some(0), "{stderr}");
            assert_eq!(gif_frames(), 3);
            continue;
        }
        if message.contains("is incomplete") {
            // Only steps 0 and 1 (cut short) are there: step 0 renders.
            assert_eq!(code, Some(0), "{stderr}");
            assert!(stderr.contains(message), "{stderr}");
            assert_eq!(gif_frames(), 1);
            continue;
        }
        assert_eq!(code, Some(2), "{message}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(message),
            "expected `{message}`: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
