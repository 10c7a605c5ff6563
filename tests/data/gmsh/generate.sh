#!/bin/sh
# Regenerates the Gmsh test meshes (Gmsh 4.8.4): each one in ASCII and in binary MSH 4.1.
set -e
cd "$(dirname "$0")"
mesh() {  # name, geo, dimension, gmsh options...
  name=$1 geo=$2 dim=$3
  shift 3
  gmsh "$geo" -$dim "$@" -format msh41 -o "$name.msh" > /dev/null
  gmsh "$geo" -$dim "$@" -format msh41 -bin -o "${name}_bin.msh" > /dev/null
}
mesh tri3 l_plate.geo 2
mesh tri6 l_plate.geo 2 -order 2
mesh quad4 l_plate.geo 2 -setnumber quads 1
mesh quad8 l_plate.geo 2 -setnumber quads 1 -order 2 -string "Mesh.SecondOrderIncomplete=1;"
mesh quad9 l_plate.geo 2 -setnumber quads 1 -order 2
mesh tet4 l_block.geo 3
mesh tet10 l_block.geo 3 -order 2
mesh hex8 l_block.geo 3 -setnumber hexes 1
mesh hex20 l_block.geo 3 -setnumber hexes 1 -order 2 -string "Mesh.SecondOrderIncomplete=1;"
mesh hex27 l_block.geo 3 -setnumber hexes 1 -order 2
# The triangle plate split in two partitions: elements sit on the entities of $PartitionedEntities.
mesh tri3_part l_plate.geo 2 -part 2
# The triangle plate with the nodes' parametric coordinates saved (u on curves, u v on surfaces).
mesh tri3_param l_plate.geo 2 -string "Mesh.SaveParametric=1;"
