#pragma once
// Surface loads on element faces (mesh/faces.hpp): the face types' shape functions, a quadrature
// rule per face type, and the consistent nodal forces of a traction or a pressure,
//
//   f_a = int_face N_a t dA                      (traction t, N/m^2, global axes)
//   f_a = -p int_face N_a n dA                   (pressure p, against the outward normal n),
//
// (Zienkiewicz, Taylor & Zhu, "The Finite Element Method", vol. 1, sec. 6.2: the load vector of
// boundary tractions). With the face parametrised by its nodes, x(xi) = sum_a N_a(xi) x_a, the
// area element and normal together are the vector
//   g(xi) = dx/dxi_1 x dx/dxi_2 in 3D,   g(xi) = (dy/dxi, -dx/dxi) in 2D   (n dA = g dxi),
// which is a polynomial, so the pressure forces are integrated exactly on curved faces too. The
// rule of face_quadrature() is exact for N_a g: degree 2p - 1 on lines of order p, 3p - 1 per
// direction on quadrilaterals (serendipity quad8 counting as p = 2), 3p - 2 on triangles. The
// traction forces use |g|, a polynomial only on flat faces (n constant, |g| = n . g), where they
// are exact too; on a curved face the rule's error is that of integrating |g| approximately.
// In 2D the forces are per unit thickness and are multiplied by the section thickness.
//
// Host-side setup code: the solvers precompute the nodal forces once (fem/loads.hpp).
#include <array>
#include <span>
#include <vector>

#include "tremor/mesh/faces.hpp"

namespace tremor::fem {

// Shape functions N[a] and their derivatives dN[a * face_dimension + j] = dN_a / dxi_j at a
// reference point of the face: lines on [-1, 1], triangles on the unit triangle, quadrilaterals
// on [-1, 1]^2, nodes ordered as face_nodes() lists them.
void face_shape(FaceType type, int order, const double* xi, double* N, double* dN);

// Reference coordinates of face node a.
void face_node(FaceType type, int order, int a, double* xi);

// Points (face_dimension values each) and weights of the rule described above.
struct FaceRule {
  int dim = 1;
  std::vector<double> points;
  std::vector<double> weights;
  int n_points() const { return static_cast<int>(weights.size()); }
};
FaceRule face_quadrature(FaceType type, int order);

// A face of `type` in `dim` space dimensions, its nodes at `coordinates` (dim values per face
// node, in face order). Each function writes dim values per face node into `forces` (resized).
// Throws tremor::Error when the face is degenerate (|g| = 0 at a quadrature point).
void traction_forces(FaceType type, int order, int dim, std::span<const double> coordinates,
                     const std::array<double, 3>& traction, std::vector<double>& forces);
void pressure_forces(FaceType type, int order, int dim, std::span<const double> coordinates, double pressure,
                     std::vector<double>& forces);
// The coupling of a fluid and a solid across a face (docs/model-file.md, "Fluids"),
//   C_ab = int_face N_a N_b n dA,   C[(a n_nodes + b) dim + c] its component c,
// n the face's normal as its nodes order it (outward from the element whose face it is). The rule
// of coupling_quadrature is exact for it on curved faces too (N_a N_b g a polynomial: degree 3p - 1
// on lines, 4p - 2 on triangles, 4p - 1 per direction on quadrilaterals); with `nodal` (GLL faces
// only) it is the GLL rule at the face's nodes, as a spectral element's lumped mass takes it: C is
// then diagonal, exact on flat faces for its row sums int N_a n dA.
FaceRule coupling_quadrature(FaceType type, int order, bool nodal = false);
void coupling_matrix(FaceType type, int order, int dim, std::span<const double> coordinates, bool nodal,
                     std::vector<double>& C);
// Area (3D) or length (2D) of the face.
double face_area(FaceType type, int order, int dim, std::span<const double> coordinates);
// A flat face's shares of its area, per face node a = int N_a dA, written into `weights` (resized):
// a uniform pressure's consistent forces along the face's unit normal. Throws as face_area does.
void face_weights(FaceType type, int order, int dim, std::span<const double> coordinates,
                  std::vector<double>& weights);
// The part of a face within distance `radius` of `centre` (dim values): a piston's share of it
// (model/transducer.hpp), per face node a = int N_a dA over the points x of the face with
// |x - centre| <= radius, written into `weights` (resized). The face's reference domain is halved
// where the sphere cuts it, down to 1/1024 of the face per direction (2^-24 on lines); a piece
// inside is integrated by the face's rule (a face wholly inside: exactly), a finest piece still cut
// by its centroid where that is inside, so the disc's edge costs about 1e-4 of a face's area.
// Throws as face_area does.
void disc_weights(FaceType type, int order, int dim, std::span<const double> coordinates,
                  std::span<const double> centre, double radius, std::vector<double>& weights);

}  // namespace tremor::fem
