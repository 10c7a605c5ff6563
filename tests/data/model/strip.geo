// A 40 x 20 mm strip meshed by Gmsh as 4 x 2 transfinite quad4 for the model-file tests
// (strip.msh: gmsh strip.geo -2 -format msh41 -o strip.msh).
L = 0.04; H = 0.02;
Point(1) = {0, 0, 0}; Point(2) = {L, 0, 0}; Point(3) = {L, H, 0}; Point(4) = {0, H, 0};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 5; Transfinite Curve{2, 4} = 3;
Transfinite Surface{1};
Recombine Surface{1};
Physical Surface("strip") = {1};
Physical Curve("left") = {4};
