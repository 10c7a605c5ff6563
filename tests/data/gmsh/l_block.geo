// The L-shaped plate of l_plate.geo extruded to z = 1 (volume 3). With hexes=1 a structured
// hexahedral grid of n x n x n cells per unit cube; otherwise unstructured tetrahedra of size `size`.
DefineConstant[ n = 2, hexes = 0, size = 0.5 ];

Point(1) = {0, 0, 0, size};  Point(2) = {1, 0, 0, size};  Point(3) = {2, 0, 0, size};
Point(4) = {0, 1, 0, size};  Point(5) = {1, 1, 0, size};  Point(6) = {2, 1, 0, size};
Point(7) = {0, 2, 0, size};  Point(8) = {1, 2, 0, size};

Line(1) = {1, 2};  Line(2) = {2, 3};  Line(3) = {4, 5};  Line(4) = {5, 6};  Line(5) = {7, 8};
Line(6) = {1, 4};  Line(7) = {4, 7};  Line(8) = {2, 5};  Line(9) = {5, 8};  Line(10) = {3, 6};

Curve Loop(1) = {1, 8, -3, -6};   Plane Surface(1) = {1};
Curve Loop(2) = {2, 10, -4, -8};  Plane Surface(2) = {2};
Curve Loop(3) = {3, 9, -5, -7};   Plane Surface(3) = {3};

If (hexes)
  Transfinite Curve{1:10} = n + 1;
  Transfinite Surface{1:3};
  Recombine Surface{1:3};
  out[] = Extrude {0, 0, 1} { Surface{1:3}; Layers{n}; Recombine; };
Else
  out[] = Extrude {0, 0, 1} { Surface{1:3}; };
EndIf

// Extruding each surface gives its top, its volume and four sides.
Physical Volume("block") = {out[1], out[7], out[13]};
Physical Surface("bottom") = {1:3};  // z = 0
