// L-shaped plate from three unit squares, [0,1]x[0,1], [1,2]x[0,1] and [0,1]x[1,2] (area 3),
// meshed as a structured grid of n x n cells per square: triangles, or quadrilaterals with quads=1.
DefineConstant[ n = 2, quads = 0 ];

Point(1) = {0, 0, 0};  Point(2) = {1, 0, 0};  Point(3) = {2, 0, 0};
Point(4) = {0, 1, 0};  Point(5) = {1, 1, 0};  Point(6) = {2, 1, 0};
Point(7) = {0, 2, 0};  Point(8) = {1, 2, 0};

Line(1) = {1, 2};  Line(2) = {2, 3};  Line(3) = {4, 5};  Line(4) = {5, 6};  Line(5) = {7, 8};
Line(6) = {1, 4};  Line(7) = {4, 7};  Line(8) = {2, 5};  Line(9) = {5, 8};  Line(10) = {3, 6};

// Counter-clockwise loops: the surface normals, and so the elements, face +z.
Curve Loop(1) = {1, 8, -3, -6};   Plane Surface(1) = {1};
Curve Loop(2) = {2, 10, -4, -8};  Plane Surface(2) = {2};
Curve Loop(3) = {3, 9, -5, -7};   Plane Surface(3) = {3};

Transfinite Curve{1:10} = n + 1;
If (quads)
  Transfinite Surface{1:3};
  Recombine Surface{1:3};
Else
  // Alternating diagonals give triangles of several orientations.
  Transfinite Surface{1:3} Alternate;
EndIf

Physical Surface("plate") = {1:3};
Physical Curve("left") = {6, 7};  // the edge x = 0
Physical Point(7) = {1};          // unnamed: the node at the origin
