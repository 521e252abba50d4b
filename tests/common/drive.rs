//! Scenes with driven nodes (docs/SCRIPTED.md) shared by the CPU and GPU tests.

use springsim::model::Model;

/// A 2D scene without walls: `solver` lines, then `bodies` (`[[bodies]]` sections).
pub fn scene_2d(solver: &str, bodies: &str) -> Model {
    super::scene(&format!(
        "dimension = 2\n[solver]\n{solver}\n[contact]\ndhat = 0.01\nkappa = 1e5\n{bodies}"
    ))
    .model
}

/// A plate of 16 × 1 cells, 1.6 m × 0.1 m, centred at `center`, with `drive` (the keys
/// of its `[[bodies.drive]]`).
pub fn plate(name: &str, center: &str, drive: &str) -> String {
    format!(
        "[[bodies]]\nname = \"{name}\"\ngenerator = \"grid\"\nsize = [1.6, 0.1]\ncells = [16, 1]\n\
         center = {center}\ndensity = 1000.0\nmaterial_stiffness = 2e6\n[[bodies.drive]]\n{drive}\n"
    )
}

/// A free 8 × 8-cell unit square at `center`.
pub fn square(center: &str) -> String {
    format!(
        "[[bodies]]\nname = \"square\"\ngenerator = \"grid\"\nsize = [1.0, 1.0]\ncells = [8, 8]\n\
         center = {center}\ndensity = 1000.0\nmaterial_stiffness = 2e5\n"
    )
}

/// A unit square (E = 2e6 N/m) crushed between two plates closing at 0.25 m/s each
/// for 0.6 s, from 1.04 m apart to 0.74 m. (A mass-spring square folds its interior
/// through itself beyond about a third: springs know lengths, not orientations.)
pub fn crush() -> Model {
    let lower = plate(
        "lower",
        "[0.0, -0.57]",
        "velocity = [0.0, 0.25]\nstop = 0.6",
    );
    let upper = plate(
        "upper",
        "[0.0, 0.57]",
        "velocity = [0.0, -0.25]\nstop = 0.6",
    );
    let square = square("[0.0, 0.0]").replace("2e5", "2e6");
    scene_2d("dt = 0.01", &format!("{square}{lower}{upper}"))
}

/// A plate driven down at 1 m/s onto a fixed 0.5 m block 0.1 m below it: blocked
/// from about step 10 on.
pub fn press() -> Model {
    let block =
        "[[bodies]]\nname = \"block\"\ngenerator = \"grid\"\nsize = [0.5, 0.5]\ncells = [4, 4]\n\
                 density = 1000.0\nmaterial_stiffness = 2e5\nfixed_where = \"y < 10\"\n";
    let press = plate("press", "[0.0, 0.4]", "velocity = [0.0, -1.0]");
    scene_2d("dt = 0.01", &format!("{block}{press}"))
}
