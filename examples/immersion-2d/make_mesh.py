#!/usr/bin/env python3
"""Writes block.msh (Gmsh 4.1, ASCII): a steel block with a side-drilled hole under a layer of water,
in cross-section (plane strain), for examples/immersion-2d/model.toml.

Square quad4 cells of 0.1 mm over x in [-9, 9] mm and y in [-8, 4] mm: steel below y = 0, water
above. Around the hole (radius 0.75 mm, centre 5 mm below the front wall) the cells of a 2.4 mm
square are replaced by an O-grid: rings of cells between the square's edge and the circle, so the
hole's wall is a polygon of 96 sides instead of a staircase. Physical groups: "water" and "steel"
(the sections' element sets) and "top", the water's top edge (the surface the probe stands on).
The model raises the cells to GLL order 4 (`order = 4` in [mesh]).

Usage: make_mesh.py [OUTPUT]   (default: block.msh beside this script)
"""
import math
import os
import sys

H = 0.1e-3                         # cell size, m
X0, NX = -9e-3, 180                # x from X0, NX cells
Y0, NY = -8e-3, 120                # y from Y0 (the back wall), NY cells; the front wall at y = 0
HOLE = (0.0, -5e-3)                # the hole's centre, m
RADIUS = 0.75e-3                   # m
HALF = 12                          # the O-grid's square: HALF cells each side of the centre
RINGS = 5                          # cells from the square's edge to the circle


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "block.msh")
    nodes = {}    # key -> tag
    coords = []

    def node(key, x, y):
        if key not in nodes:
            nodes[key] = len(coords) + 1
            coords.append((x, y))
        return nodes[key]

    def grid(i, j):
        return node(("g", i, j), X0 + i * H, Y0 + j * H)

    ci = round((HOLE[0] - X0) / H)
    cj = round((HOLE[1] - Y0) / H)
    cells = []    # (node tags counter-clockwise, region)
    for j in range(NY):
        for i in range(NX):
            if ci - HALF <= i < ci + HALF and cj - HALF <= j < cj + HALF:
                continue  # the O-grid's
            region = "water" if Y0 + (j + 0.5) * H > 0.0 else "steel"
            cells.append(([grid(i, j), grid(i + 1, j), grid(i + 1, j + 1), grid(i, j + 1)], region))
    # The square's boundary, counter-clockwise from its lower-left corner: grid nodes.
    boundary = []
    for k in range(2 * HALF):
        boundary.append((ci - HALF + k, cj - HALF))
    for k in range(2 * HALF):
        boundary.append((ci + HALF, cj - HALF + k))
    for k in range(2 * HALF):
        boundary.append((ci + HALF - k, cj + HALF))
    for k in range(2 * HALF):
        boundary.append((ci - HALF, cj + HALF - k))
    n = len(boundary)

    def ring(b, r):
        """Node r of the ray from the circle (r = 0) to boundary point b (r = RINGS)."""
        i, j = boundary[b]
        if r == RINGS:
            return grid(i, j)
        x, y = X0 + i * H - HOLE[0], Y0 + j * H - HOLE[1]
        length = math.hypot(x, y)
        cx, cy = RADIUS * x / length, RADIUS * y / length
        w = r / RINGS
        return node(("o", b, r), HOLE[0] + cx + w * (x - cx), HOLE[1] + cy + w * (y - cy))

    for b in range(n):
        for r in range(RINGS):
            # Out along ray b, then on around the hole (counter-clockwise), then back in along ray b + 1.
            quad = [ring(b, r), ring(b, r + 1), ring((b + 1) % n, r + 1), ring((b + 1) % n, r)]
            cells.append((quad, "steel"))
    # Every cell counter-clockwise (positive area).
    for quad, _ in cells:
        area = 0.0
        for a in range(4):
            x1, y1 = coords[quad[a] - 1]
            x2, y2 = coords[quad[(a + 1) % 4] - 1]
            area += x1 * y2 - x2 * y1
        assert area > 0.0, "a cell turns clockwise"
    top = [(grid(i, NY), grid(i + 1, NY)) for i in range(NX)]
    water = [q for q, region in cells if region == "water"]
    steel = [q for q, region in cells if region == "steel"]

    xmax, ymax = X0 + NX * H, Y0 + NY * H
    lines = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat",
             "$PhysicalNames", "3", '1 3 "top"', '2 1 "water"', '2 2 "steel"', "$EndPhysicalNames",
             "$Entities", "0 1 2 0",
             f"1 {X0} {ymax} 0 {xmax} {ymax} 0 1 3 0",
             f"1 {X0} 0 0 {xmax} {ymax} 0 1 1 0",
             f"2 {X0} {Y0} 0 {xmax} 0 0 1 2 0",
             "$EndEntities",
             "$Nodes", f"1 {len(coords)} 1 {len(coords)}", f"2 1 0 {len(coords)}"]
    lines += [str(t) for t in range(1, len(coords) + 1)]
    lines += [f"{x:.10g} {y:.10g} 0" for x, y in coords]
    lines += ["$EndNodes"]
    total = len(water) + len(steel) + len(top)
    lines += ["$Elements", f"3 {total} 1 {total}"]
    tag = 1
    for dim, entity, kind, block in ((2, 1, 3, water), (2, 2, 3, steel), (1, 1, 1, top)):
        lines.append(f"{dim} {entity} {kind} {len(block)}")
        for element in block:
            lines.append(" ".join(str(v) for v in (tag, *element)))
            tag += 1
    lines += ["$EndElements"]
    with open(out + ".part", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(out + ".part", out)
    print(f"{out}: {len(coords)} nodes, {len(water)} water and {len(steel)} steel cells, {len(top)} top edges")


if __name__ == "__main__":
    main()
