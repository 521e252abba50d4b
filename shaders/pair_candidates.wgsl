// The candidate pairs of the broad phase (kernels/broad_phase.wgsl): which targets a
// query pairs with, and the record of a pair with the filters of
// collision::pairs::candidates (no shared node, bodies that may collide, not
// excluded).
// #import contact_pairs.wgsl

// A candidate pair's record (kind, primitives a and b, the four stacked nodes), and
// whether it is kept: it shares no node, its bodies may collide, it is not excluded.
struct Candidate {
    keep: bool,
    rec: array<u32, 7>,
}

// The pair of query q and target j (a face for a 3D vertex, else an edge).
fn candidate(q: u32, j: u32) -> Candidate {
    var o: Candidate;
    let nv = P.contact_counts.x;
    if (q >= nv) {
        let a = q - nv;
        let ea = mesh_edge(a);
        let eb = mesh_edge(j);
        let shares = ea.x == eb.x || ea.x == eb.y || ea.y == eb.x || ea.y == eb.y;
        o.keep = !shares && bodies_may_collide(ea.x, eb.x) && !edge_pair_excluded(a, j);
        o.rec = array<u32, 7>(KIND_EDGE_EDGE, a, j, ea.x, ea.y, eb.x, eb.y);
        return o;
    }
    let node = mesh_vertex(q);
    if (P.dim == 3u) {
        let f = j - P.contact_counts.y;
        let c = mesh_face(f);
        let shares = node == c.x || node == c.y || node == c.z;
        o.keep = !shares && bodies_may_collide(node, c.x) && !vertex_pair_excluded(q, f);
        o.rec = array<u32, 7>(KIND_POINT_TRIANGLE, node, f, node, c.x, c.y, c.z);
        return o;
    }
    let ends = mesh_edge(j);
    let shares = node == ends.x || node == ends.y;
    o.keep = !shares && bodies_may_collide(node, ends.x) && !vertex_pair_excluded(q, j);
    o.rec = array<u32, 7>(KIND_POINT_EDGE, node, j, node, ends.x, ends.y, 0u);
    return o;
}

// Whether target j is of the kind query q pairs with: faces for 3D vertices, edges
// for 2D vertices, edges after a for edge a.
fn pairs_with(q: u32, j: u32) -> bool {
    let is_face = j >= P.contact_counts.y;
    if (q < P.contact_counts.x) { return is_face == (P.dim == 3u); }
    return !is_face && j > q - P.contact_counts.x;
}

