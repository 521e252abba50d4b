// The candidate pairs of the broad phase (kernels/broad_phase.wgsl): which targets a
// query pairs with, and the record of a pair with the filters of
// collision::pairs::candidates (no shared node, bodies that may collide, not
// excluded), then the near filter of collision::pairs::near_candidates (may the pair
// come within d̂ at x, or on the segment to x + p?).
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

// Whether the candidate with record `rec` may come within d̂ at x (static broad
// phase) or anywhere on the segment from x to x + p (swept): its distance at x less
// its displacement bound is below NEAR_REACH d̂ plus a margin for `real`'s rounding
// (twin of collision::near::may_come_within; NaN keeps the pair). A pair it drops
// stays at least d̂ apart on the whole segment: it has no barrier, no CCD bound and
// no terms anywhere the line search or the next assembly can look.
fn may_come_near(rec: array<u32, 7>) -> bool {
    let kind = rec[0];
    let nodes = vec4<u32>(rec[3], rec[4], rec[5], rec[6]);
    let s = stacked_x(nodes);
    var approach: real = 0.0;
    if (grid_load(HDR_SWEEP) != 0u) {
        var q: Stacked;
        for (var l = 0u; l < pair_node_count(); l++) { q.s[l] = load_p(nodes[l]); }
        approach = displacement_bound(kind, q);
    }
    return stacked_may_come_near(kind, pair_node_count(), s, approach, P.dhat);
}

// Whether target j is of the kind query q pairs with: faces for 3D vertices, edges
// for 2D vertices, edges after a for edge a.
fn pairs_with(q: u32, j: u32) -> bool {
    let is_face = j >= P.contact_counts.y;
    if (q < P.contact_counts.x) { return is_face == (P.dim == 3u); }
    return !is_face && j > q - P.contact_counts.x;
}

