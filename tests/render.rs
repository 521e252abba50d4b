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

#[test]
fn container_run_renders_gif_and_stills() {
    let dir = std::env::temp_dir().join(format!("springsim_render_{}", std::process::id()));
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_springsim"))
        .args([
            "run",
            "circle_balls",
            "--backend",
            "cpu",
            "--steps",
            "200",
            "--trajectory",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
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
