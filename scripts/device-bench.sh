#!/usr/bin/env bash
# The GPU figures on a machine with a hardware GPU, in one call of under ten minutes.
#
#   scripts/device-bench.sh prepare        # here: build once, carry what the device needs
#   scripts/device-bench.sh run OUT [MODE] # there: every GPU figure into OUT, the GPU
#                                          # in precision MODE (f32, mixed, f64; one
#                                          # call each, as each takes up to ten minutes)
#   scripts/device-bench.sh contact OUT [MODE] # there: the self-contact figures (one
#                                          # more call, under ten minutes)
#   scripts/device-bench.sh all OUT        # there: the first figures of a short lease
#                                          # in one call (about eight minutes, f32;
#                                          # OUT/results.tgz): what the first H200
#                                          # call ran (benchmarks/NOTES.md)
#   scripts/device-bench.sh profile OUT    # there: the ladder with every kernel timed
#                                          # (OUT/profile.tgz, about five minutes)
#   scripts/device-bench.sh ladder OUT     # there: the f32 ladder per family, as `all`
#                                          # runs it (OUT/ladder.tgz, about five minutes)
#   scripts/device-bench.sh ensemble OUT   # there: batched ensembles of the square drop
#                                          # (issue 27), 256 and 10,000 variants in f32
#                                          # and 256 in f64 (under five minutes)
#   scripts/device-bench.sh lease OUT      # there: the V-cycle's first hardware ladder
#                                          # (f32, block-Jacobi, MAS and V-cycle to 1M
#                                          # nodes), batched seed-004 and friction sweeps
#                                          # against the CPU on the same host, and the
#                                          # f32 agreement list (about nine minutes;
#                                          # OUT/lease.tgz)
#   scripts/device-bench.sh speed OUT      # there: issue 52's rows: the adapter
#                                          # measured (devices --calibrate), the
#                                          # square ladder with the split and the fused
#                                          # CG (f32, block-Jacobi and MAS), the GPU
#                                          # against the CPU on the same host per rung,
#                                          # and the counted scenes' summaries (about
#                                          # eight minutes; OUT/speed.tgz)
#   scripts/device-bench.sh collect DIR    # here: OUT's files into benchmarks/<device>/
#
# A lease of 15 minutes fits `all` and `profile` with room for one retry: the
# device call is `carry [".devbin", ".gl"]`, command
# `scripts/device-bench.sh all $OUT > $OUT/log.txt 2>&1`.
#
# `prepare` builds the release binary and the hot-path benchmark on this machine
# (x86-64, like the device machine, which has no Rust toolchain and no registry),
# strips them into .devbin/ (a binary with debuginfo is larger than the 64 MiB a
# call carries) and downloads the Vulkan loader into .gl/ as Debian packages. Both
# folders are ignored by git; a device call carries them:
#   carry [".devbin", ".gl"], command "scripts/device-bench.sh run $OUT"
# `run` unpacks the loader, names the adapter, then runs
#   - the bench ladder on the GPU and on the CPU (all the host's cores), squares to
#     1M nodes, lattices and cloth (bench-gpu.*, bench-cpu.*);
#   - the per-CG-iteration time from the hot-path benchmark at 66k nodes, against
#     the bandwidth bound in bench.csv's gpu_cg_bytes_per_iter (hot_paths.txt);
#   - the GPU–CPU agreement table of benchmarks/NOTES.md's `compare` scenes (compare.txt).
# `contact` runs the self-contact ladder (the cloth of scenes/cloth_on_sphere.toml at
# 64, 128 and 256 cells, 40 steps: benchmarks/NOTES.md, "Contact between and within
# bodies") on the GPU, and the bundled self-contact scenes side by side with the CPU
# (compare-contact.txt).
# `collect` copies them to benchmarks/<device>/ with the adapter line as device.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

prepare() {
    cargo build --release --locked
    cargo bench --locked --bench hot_paths --no-run 2>&1 | tee /tmp/hot_paths_build.txt
    cargo bench --locked --bench ensemble --no-run 2>&1 | tee /tmp/ensemble_build.txt
    local hp en
    hp=$(grep -o 'target/release/deps/hot_paths-[0-9a-f]*' /tmp/hot_paths_build.txt | tail -1)
    en=$(grep -o 'target/release/deps/ensemble-[0-9a-f]*' /tmp/ensemble_build.txt | tail -1)
    mkdir -p .devbin
    strip -o .devbin/springsim target/release/springsim
    strip -o .devbin/hot_paths "$hp"
    strip -o .devbin/ensemble "$en"
    mkdir -p .gl /tmp/amd64/partial
    local o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
    # shellcheck disable=SC2086
    apt-get $o update -qq
    # shellcheck disable=SC2086
    (cd .gl && apt-get $o download libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libgles2 libopengl0)
    du -sh .devbin .gl
}

bin=.devbin/springsim

# On the device machine: OUT made, the Vulkan loader from .gl/ and the NVIDIA
# driver's ICD set up, and the adapter named in OUT/devices.txt.
device_env() {
    mkdir -p "$1"
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    fi
    export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
    $bin devices | tee "$1/devices.txt"
}

run() {
    local out=$1
    # The GPU's precision mode (solver.precision): the rows and files name it.
    local mode=${2:-f32}
    device_env "$out"
    # The ladder to about a million nodes per family on the GPU, block-Jacobi and
    # multilevel (MAS) PCG side by side; then the CPU's 1M-node square (the CPU
    # default there: V-cycle PCG with inexact Newton, every core, one timed step) for
    # the GPU/CPU ratio. Rows print
    # as they finish, so a timeout keeps the ones done. Worst case 250 + 150 + 60 +
    # 7 × 15 s, inside a device call's ten minutes. (At most 8 files come back.)
    timeout 250 $bin bench --backends gpu,gpu-mas,gpu-mg --precision "$mode" --steps 5 --warmup 2 \
        --out /tmp/bench-gpu | tee "$out/bench-gpu-$mode.txt" \
        || echo "bench ended early (status $?)" | tee -a "$out/bench-gpu-$mode.txt"
    cp /tmp/bench-gpu/bench.csv "$out/bench-gpu-$mode.csv" 2>/dev/null || true
    # The CPU rows once, with the first mode.
    if [ "$mode" = f32 ]; then
        timeout 150 $bin bench --backends cpu-mg --family square2d --min-nodes 1000000 \
            --forcing eisenstat_walker --steps 1 --warmup 0 --out /tmp/bench-cpu \
            | tee "$out/bench-cpu.txt" || echo "bench ended early (status $?)" | tee -a "$out/bench-cpu.txt"
        cp /tmp/bench-cpu/bench.csv "$out/bench-cpu.csv" 2>/dev/null || true
    fi
    # One GPU CG iteration: the direction with 65 and with 1 CG iterations, 66k nodes.
    SPRINGSIM_BENCH_CELLS=256 SPRINGSIM_BENCH_PRECISION=$mode timeout 60 .devbin/hot_paths \
        --bench --warm-up-time 1 --measurement-time 3 gpu/direction 2>&1 \
        | tee "$out/hot_paths-$mode.txt" || true
    # GPU–CPU agreement (benchmarks/NOTES.md's compare scenes; two_squares: GPU self-contact).
    compare_all 15 "$mode" "$out/compare-$mode.txt" "scenes/square_drop.toml --steps 500" \
        lattice_drop cloth_drop balls_3d "square_on_slope --steps 800" cube_on_slope \
        block_thrown "two_squares --steps 100"
}

# compare_all SECONDS MODE FILE SCENE...: `compare` of each SCENE (with its options,
# one word) in precision MODE, at most SECONDS each, printed and written to FILE.
compare_all() {
    local seconds=$1 mode=$2 file=$3
    shift 3
    for s in "$@"; do
        # shellcheck disable=SC2086
        timeout "$seconds" $bin compare $s --set solver.precision="$mode" || echo "compare $s: status $?"
    done 2>&1 | tee "$file"
}

contact() {
    local out=$1
    local mode=${2:-f64}
    device_env "$out"
    # The ladder: one summary.json per size (ms/step, Newton and CG iterations, the
    # most contact pairs, device memory). Worst case 3 × 130 + 4 × 35 s.
    for c in 64 128 256; do
        timeout 130 $bin run scenes/cloth_on_sphere.toml --backend gpu --steps 40 --quiet \
            --out "/tmp/contact-$c" --set "bodies[0].cells=[$c, $c]" \
            --set solver.precision="$mode" >/dev/null || echo "cloth_on_sphere $c: status $?"
        cp "/tmp/contact-$c/summary.json" "$out/contact-cloth_on_sphere-$c-$mode.json" || true
    done
    compare_all 35 "$mode" "$out/compare-contact-$mode.txt" "two_squares --steps 200" \
        "tet_stack --steps 100" rope_pile "cloth_pile --steps 200"
}

# ladder_into DIR: the GPU ladder per family in f32, block-Jacobi, MAS and V-cycle, 1 warm-up
# and 4 timed steps, unprofiled (the cost model's wall-time check), into DIR.
ladder_into() {
    local res=$1 fam t
    for fam in ${LADDER:-square2d:120 lattice3d:70 cloth3d:70}; do
        t=${fam#*:}
        fam=${fam%:*}
        timeout "$t" $bin bench --backends gpu,gpu-mas,gpu-mg --precision f32 --family "$fam" \
            --steps 4 --warmup 1 --out "/tmp/bench-$fam" | tee "$res/bench-gpu-f32-$fam.txt" \
            || echo "bench $fam ended early (status $?)" | tee -a "$res/bench-gpu-f32-$fam.txt"
        cp "/tmp/bench-$fam/bench.csv" "$res/bench-gpu-f32-$fam.csv" 2>/dev/null || true
    done
}

# ladder OUT: that ladder alone (about five minutes), OUT/ladder.tgz.
ladder() {
    local out=$1 res=/tmp/ladder
    device_env "$res"
    ladder_into "$res"
    tar czf "$out/ladder.tgz" -C /tmp ladder
}

# all OUT: the first figures of a short lease in one call of about eight minutes:
# the GPU ladder per family (f32, block-Jacobi, MAS and V-cycle), the CPU's 1M-node square,
# one GPU CG iteration, the `compare` agreement lists (f32 and, for self-contact,
# f64) and the self-contact ladder's first two rungs; every file into one archive,
# OUT/results.tgz (a call brings back at most eight files), for `collect`.
all() {
    local out=$1 res=/tmp/res
    device_env "$res"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$res/nvidia-smi.txt" 2>&1 || true
    ladder_into "$res"
    timeout 60 $bin bench --backends cpu-mg --family square2d --min-nodes 1000000 \
        --forcing eisenstat_walker --steps 1 --warmup 0 --out /tmp/bench-cpu \
        | tee "$res/bench-cpu.txt" || echo "bench ended early (status $?)" | tee -a "$res/bench-cpu.txt"
    cp /tmp/bench-cpu/bench.csv "$res/bench-cpu.csv" 2>/dev/null || true
    SPRINGSIM_BENCH_CELLS=256 SPRINGSIM_BENCH_PRECISION=f32 timeout 40 .devbin/hot_paths \
        --bench --warm-up-time 1 --measurement-time 3 gpu/direction 2>&1 \
        | tee "$res/hot_paths-f32.txt" || true
    compare_all 12 f32 "$res/compare-f32.txt" "scenes/square_drop.toml --steps 500" \
        lattice_drop cloth_drop "two_squares --steps 100"
    for c in 64 128; do
        timeout 45 $bin run scenes/cloth_on_sphere.toml --backend gpu --steps 40 --quiet \
            --out "/tmp/contact-$c" --set "bodies[0].cells=[$c, $c]" \
            --set solver.precision=f64 >/dev/null || echo "cloth_on_sphere $c: status $?"
        cp "/tmp/contact-$c/summary.json" "$res/contact-cloth_on_sphere-$c-f64.json" || true
    done
    compare_all 20 f64 "$res/compare-contact-f64.txt" "two_squares --steps 200" "tet_stack --steps 100"
    tar czf "$out/results.tgz" -C /tmp res
}

# profile OUT: the ladder per family in f32 (block-Jacobi, MAS, V-cycle) with every
# kernel timed (`bench --profile-kernels`: kernels.csv beside bench.csv), for the
# cost model's per-kernel check; one archive, OUT/profile.tgz.
profile() {
    local out=$1 res=/tmp/profile
    device_env "$res"
    local fam t
    # family:seconds:most nodes (the 1M cloth drapes for minutes: left out)
    for fam in square2d:130:2000000 lattice3d:110:2000000 cloth3d:60:100000; do
        IFS=: read -r fam t most <<<"$fam"
        timeout "$t" $bin bench --backends gpu,gpu-mas,gpu-mg --precision f32 --family "$fam" \
            --max-nodes "$most" --steps 2 --warmup 1 --profile-kernels --out "$res/$fam" \
            | tee "$res/bench-$fam.txt" || echo "bench $fam ended early (status $?)" | tee -a "$res/bench-$fam.txt"
    done
    tar czf "$out/profile.tgz" -C /tmp profile
}

# ensemble OUT: throughput of batched square drops (benches/ensemble.rs) against
# one variant at a time, into OUT/ensemble-*.txt.
ensemble() {
    local out=$1
    device_env "$out"
    local run
    # variants:steps:precision:seconds (10,000 variants are 10,000 host threads in
    # lockstep: their coordination is what that row measures)
    for run in 256:500:f32:60 10000:200:f32:180 256:500:f64:60; do
        IFS=: read -r k n mode t <<<"$run"
        SPRINGSIM_BENCH_VARIANTS=$k SPRINGSIM_BENCH_STEPS=$n SPRINGSIM_BENCH_ALONE=1 \
            SPRINGSIM_BENCH_PRECISION=$mode timeout "$t" .devbin/ensemble --bench 2>&1 \
            | tee "$out/ensemble-$k-$mode.txt" || echo "ensemble $k $mode ended early (status $?)" | tee -a "$out/ensemble-$k-$mode.txt"
    done
}

# walls_sweeps DIR: batched sweeps of seed 004's balls (implicit walls) and of the
# square on its slope (wall friction) on the GPU, and the same sweeps on every CPU
# core, timed (wall s) into DIR/walls-sweeps.txt.
walls_sweeps() {
    local res=$1 b
    local cores
    cores=$(nproc)
    {
        for b in gpu cpu; do
            local jobs=()
            [ "$b" = cpu ] && jobs=(--jobs "$cores")
            local t0 t1
            t0=$(date +%s%N)
            timeout 60 $bin sweep circle_balls --vary 'bodies[0].speed=2,4,6,8' \
                --vary 'contact.kappa=1e3,1e4,1e5,1e6' --steps 2000 --backend "$b" "${jobs[@]}" \
                --out "/tmp/sweep-balls-$b" 2>&1 | grep -v '^  ' | tail -4 || echo "sweep balls $b: status $?"
            t1=$(date +%s%N)
            echo "circle_balls 16 x 2000 --backend $b ${jobs[*]}: $(((t1 - t0) / 1000000)) ms"
            t0=$(date +%s%N)
            timeout 60 $bin sweep square_on_slope --set contact.self_contact=false \
                --vary 'walls[0].friction=0,0.02,0.04,0.06,0.08,0.1,0.12,0.14' \
                --vary 'solver.friction_updates=0,2' --steps 300 --backend "$b" "${jobs[@]}" \
                --set solver.linear_solver=pcg --out "/tmp/sweep-slope-$b" 2>&1 | grep -v '^  ' | tail -4 \
                || echo "sweep slope $b: status $?"
            t1=$(date +%s%N)
            echo "square_on_slope 16 x 300 --backend $b ${jobs[*]}: $(((t1 - t0) / 1000000)) ms"
        done
        for d in /tmp/sweep-balls-gpu /tmp/sweep-balls-cpu /tmp/sweep-slope-gpu /tmp/sweep-slope-cpu; do
            echo "== $d/sweep.csv"
            cut -d, -f1,3-5,10,11,14,15 "$d/sweep.csv" 2>/dev/null | head -20
        done
    } 2>&1 | tee "$res/walls-sweeps.txt"
}

# lease OUT: the V-cycle's first hardware ladder, the batched wall sweeps and the
# f32 agreement list, in one call of about nine minutes; OUT/lease.tgz.
lease() {
    local out=$1 res=/tmp/lease
    device_env "$res"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$res/nvidia-smi.txt" 2>&1 || true
    LADDER="square2d:210 lattice3d:80 cloth3d:80" ladder_into "$res"
    walls_sweeps "$res"
    compare_all 12 f32 "$res/compare-f32.txt" "scenes/square_drop.toml --steps 500" \
        lattice_drop cloth_drop "two_squares --steps 100"
    tar czf "$out/lease.tgz" -C /tmp lease
}

# speed OUT: the figures of issue 52 (the GPU at the device's speed) in one call.
speed() {
    local out=$1 res=/tmp/speed
    device_env "$res"
    SPRINGSIM_CACHE_DIR="$res/cache" $bin devices --calibrate | tee "$res/calibrate.txt"
    # the model's figures from that measurement, for every run below
    export SPRINGSIM_CACHE_DIR="$res/cache"
    for form in split fused; do
        timeout 150 $bin bench --backends gpu,gpu-mas --family square2d --precision f32 \
            --cg-form "$form" --steps 5 --warmup 2 --out "/tmp/bench-$form" \
            | tee "$res/bench-$form.txt" || echo "bench ended early (status $?)" | tee -a "$res/bench-$form.txt"
        cp "/tmp/bench-$form/bench.csv" "$res/bench-$form.csv" 2>/dev/null || true
    done
    # the smallest rung where the GPU beats the CPU backend on this host's cores
    timeout 120 $bin bench --backends cpu --family square2d --max-nodes 300000 --steps 5 \
        --warmup 2 --out /tmp/bench-cpu | tee "$res/bench-cpu.txt" || true
    cp /tmp/bench-cpu/bench.csv "$res/bench-cpu.csv" 2>/dev/null || true
    # box_on_belt: the scene whose Newton directions vary most between steps (the
    # slots' margin against empty dispatches, benchmarks/NOTES.md 2026-11-30)
    for s in square_drop lattice_drop cloth_drop tet_stack two_squares box_on_belt; do
        timeout 30 $bin run "$s" --backend gpu --steps 100 --precision f32 --quiet \
            --out "$res/run-$s" || echo "$s: status $?"
        # the solve decided on the device (f64, block-Jacobi) against the host's
        # decisions between reads: the same iterates, ms per step on this device
        for newton in device host; do
            SPRINGSIM_NEWTON=$newton timeout 30 $bin run "$s" --backend gpu --steps 100 \
                --precision f64 --quiet --out "$res/run-$s-f64-$newton" || echo "$s $newton: status $?"
        done
    done
    tar czf "$out/speed.tgz" -C /tmp speed
}

collect() {
    local dir=$1
    local device
    device=$(grep -m1 -v '^$' "$dir/devices.txt" | sed 's/[^A-Za-z0-9]\+/-/g; s/^-//; s/-$//' | cut -c1-60)
    mkdir -p "benchmarks/$device"
    cp "$dir"/*.txt "$dir"/*.csv "benchmarks/$device/"
    echo "benchmarks/$device"
}

case "${1:-}" in
prepare) prepare ;;
run) run "${2:?OUT folder}" "${3:-f32}" ;;
contact) contact "${2:?OUT folder}" "${3:-f64}" ;;
all) all "${2:?OUT folder}" ;;
ensemble) ensemble "${2:?OUT folder}" ;;
ladder) ladder "${2:?OUT folder}" ;;
lease) lease "${2:?OUT folder}" ;;
speed) speed "${2:?OUT folder}" ;;
profile) profile "${2:?OUT folder}" ;;
collect) collect "${2:?folder with the run files}" ;;
*)
    echo "usage: scripts/device-bench.sh prepare | run OUT [f32|mixed|f64] | contact OUT [f32|mixed|f64] | all OUT | ladder OUT | lease OUT | speed OUT | profile OUT | ensemble OUT | collect DIR" >&2
    exit 2
    ;;
esac
