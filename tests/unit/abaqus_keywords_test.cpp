// The Abaqus reader's keyword table (io/abaqus_keywords.hpp): each entry does what it says, and
// docs/readers.md names every keyword the table reads or refuses.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/abaqus.hpp"
#include "tremor/io/abaqus_keywords.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

using io::abaqus::Keyword;
using io::abaqus::Use;

// One brick, a material and a section: a deck that reads without a warning.
const std::string brick = R"(*NODE
1, 0., 0., 0.
2, 1., 0., 0.
3, 1., 1., 0.
4, 0., 1., 0.
5, 0., 0., 1.
6, 1., 0., 1.
7, 1., 1., 1.
8, 0., 1., 1.
*ELEMENT, TYPE=C3D8, ELSET=EALL
1, 1, 2, 3, 4, 5, 6, 7, 8
*MATERIAL, NAME=STEEL
*ELASTIC
210.E9, 0.3
*DENSITY
7800.
*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL
)";
constexpr long brick_lines = 17;

std::vector<std::string> warnings_of(const std::string& text) {
  const log::Quiet quiet;
  std::vector<std::string> warnings;
  const std::string error = test::error_of([&] { (void)io::read_abaqus_buffer(text, "deck.inp"); });
  warnings = log::take_warnings();
  EXPECT_EQ(error, "no error");
  return warnings;
}

TEST(AbaqusKeywords, EachEntryIsFoundByItsNameAndSaysHowItIsHandled) {
  std::set<std::string_view> names;
  for (const Keyword& keyword : io::abaqus::keywords()) {
    EXPECT_TRUE(names.insert(keyword.name).second) << keyword.name << " is in the table twice";
    EXPECT_EQ(io::abaqus::find_keyword(keyword.name), &keyword);
    // The name is the display as parse_keyword spells it: no '*', no blanks.
    std::string spelled;
    for (char c : keyword.display.substr(1))
      if (c != ' ') spelled += c;
    EXPECT_EQ(keyword.display[0], '*');
    EXPECT_EQ(spelled, keyword.name);
    if (keyword.use == Use::Refused) {
      EXPECT_EQ(keyword.read, nullptr) << keyword.name;
      EXPECT_FALSE(keyword.why.empty()) << keyword.name;
    } else if (keyword.name != "INCLUDE") {  // the line source follows *INCLUDE
      EXPECT_NE(keyword.read, nullptr) << keyword.name;
    }
  }
  EXPECT_EQ(io::abaqus::find_keyword("ORIENTATION"), nullptr);
}

TEST(AbaqusKeywords, RefusedKeywordsStopTheReaderWithTheirReason) {
  for (const Keyword& keyword : io::abaqus::keywords()) {
    if (keyword.use != Use::Refused) continue;
    const std::string text = brick + std::string(keyword.display) + "\n";
    const std::string error = test::error_of([&] { (void)io::read_abaqus_buffer(text, "deck.inp"); });
    EXPECT_EQ(error, str("deck.inp:", brick_lines + 1, ": ", keyword.display, keyword.why));
  }
}

TEST(AbaqusKeywords, IgnoredKeywordsAreListedInTheWarning) {
  for (const Keyword& keyword : io::abaqus::keywords()) {
    if (keyword.use != Use::Ignored) continue;
    // With a data line, which the reader skips.
    const auto warnings = warnings_of(brick + std::string(keyword.display) + "\nU\n");
    ASSERT_EQ(warnings.size(), 1u) << keyword.name;
    EXPECT_NE(warnings[0].find(str(keyword.display, " (at deck.inp:", brick_lines + 1, ")")), std::string::npos)
        << warnings[0];
  }
  EXPECT_TRUE(warnings_of(brick).empty());
}

// *DAMPING gives the material's Rayleigh damping, ALPHA (1/s) and BETA (s); a negative one is refused
// at its line.
TEST(AbaqusKeywords, DampingGivesAlphaAndBeta) {
  const std::string damped = brick.substr(0, brick.find("*SOLID SECTION")) + "*DAMPING, ALPHA=250., BETA=2.5E-8\n" +
                             brick.substr(brick.find("*SOLID SECTION"));
  const log::Quiet quiet;
  const Model model = io::read_abaqus_buffer(damped, "deck.inp");
  EXPECT_TRUE(log::take_warnings().empty());
  ASSERT_EQ(model.materials.size(), 1u);
  EXPECT_EQ(model.materials[0].damping_alpha, 250.0);
  EXPECT_EQ(model.materials[0].damping_beta, 2.5e-8);
  const std::string negative = brick.substr(0, brick.find("*SOLID SECTION")) + "*DAMPING, BETA=-1E-8\n" +
                               brick.substr(brick.find("*SOLID SECTION"));
  const std::string error = test::error_of([&] { (void)io::read_abaqus_buffer(negative, "deck.inp"); });
  EXPECT_NE(error.find("deck.inp:17"), std::string::npos) << error;
  EXPECT_NE(error.find("*DAMPING, BETA must not be negative, got -1e-08"), std::string::npos) << error;
}

// *ACOUSTIC MEDIUM with *DENSITY makes a fluid (kappa = rho c^2), taken by acoustic elements: a
// water brick on a steel one; acoustic elements with an elastic material, solid ones with an
// acoustic material, and a material with both are refused at their lines.
TEST(AbaqusKeywords, AcousticMediumMakesAFluidOfAcousticElements) {
  const std::string nodes = R"(*NODE
1, 0., 0., 0.
2, 1., 0., 0.
3, 1., 1., 0.
4, 0., 1., 0.
5, 0., 0., 1.
6, 1., 0., 1.
7, 1., 1., 1.
8, 0., 1., 1.
9, 0., 0., 2.
10, 1., 0., 2.
11, 1., 1., 2.
12, 0., 1., 2.
*ELEMENT, TYPE=C3D8, ELSET=STEEL
1, 1, 2, 3, 4, 5, 6, 7, 8
)";  // 15 lines
  const std::string water = R"(*ELEMENT, TYPE=AC3D8, ELSET=WATER
2, 5, 6, 7, 8, 9, 10, 11, 12
*MATERIAL, NAME=STEEL
*ELASTIC
210.E9, 0.3
*DENSITY
7800.
*MATERIAL, NAME=WATER
*DENSITY
1000.
*ACOUSTIC MEDIUM, BULK MODULUS
2.1904E9
*SOLID SECTION, ELSET=STEEL, MATERIAL=STEEL
)";  // lines 16-28
  const auto read = [&](const std::string& materials, const std::string& water_material) {
    return io::read_abaqus_buffer(nodes + materials + "*SOLID SECTION, ELSET=WATER, MATERIAL=" + water_material + "\n",
                                  "deck.inp");
  };
  const Model model = read(water, "WATER");
  ASSERT_EQ(model.materials.size(), 2u);
  const Material& w = model.materials[1];
  EXPECT_TRUE(w.fluid);
  EXPECT_DOUBLE_EQ(w.sound_speed(), 1480.0);  // sqrt(2.1904e9 / 1000), to rounding
  EXPECT_TRUE(model.has_fluids());
  // The acoustic elements with the steel (its section at line 29), the solid ones with the water (28).
  std::string e = test::error_of([&] { (void)read(water, "STEEL"); });
  EXPECT_NE(e.find("deck.inp:29: element set 'WATER' holds acoustic elements (AC2D*, AC3D*) and its material 'STEEL' "
                   "has no *ACOUSTIC MEDIUM"),
            std::string::npos)
      << e;
  std::string swapped = water;
  swapped.replace(swapped.find("ELSET=STEEL, MATERIAL=STEEL"), 27, "ELSET=STEEL, MATERIAL=WATER");
  e = test::error_of([&] { (void)read(swapped, "WATER"); });
  EXPECT_NE(e.find("deck.inp:28: material 'WATER' is acoustic (*ACOUSTIC MEDIUM) and element set 'STEEL' holds solid "
                   "elements"),
            std::string::npos)
      << e;
  // A VOLUMETRIC DRAG block gives a drag coefficient, not the bulk modulus: skipped whole and named
  // among what was ignored, after the bulk modulus as Abaqus takes them, or alone (then none).
  std::string drag = water;
  drag.replace(drag.find("2.1904E9\n"), 9, "2.1904E9\n*ACOUSTIC MEDIUM, VOLUMETRIC DRAG\n500.\n");
  {
    const log::Quiet quiet;
    EXPECT_DOUBLE_EQ(read(drag, "WATER").materials[1].sound_speed(), 1480.0);
    const auto warnings = log::take_warnings();
    ASSERT_FALSE(warnings.empty());
    EXPECT_NE(warnings.back().find("*ACOUSTIC MEDIUM, VOLUMETRICDRAG (the block and its data lines) (at deck.inp:28)"),
              std::string::npos)
        << warnings.back();
    std::string drag_alone = water;
    drag_alone.replace(drag_alone.find("BULK MODULUS"), 12, "VOLUMETRIC DRAG");
    e = test::error_of([&] { (void)read(drag_alone, "WATER"); });
    EXPECT_NE(e.find("has no *ACOUSTIC MEDIUM"), std::string::npos) << e;
  }
  std::string both = water;
  both.replace(both.find("*DENSITY\n1000."), 14, "*ELASTIC\n1.E9, 0.3\n*DENSITY\n1000.");
  e = test::error_of([&] { (void)read(both, "WATER"); });
  EXPECT_NE(e.find("deck.inp:24: material 'WATER' has both *ELASTIC and *ACOUSTIC MEDIUM (at deck.inp:28)"),
            std::string::npos)
      << e;
  // *BOUNDARY on degree of freedom 8, the acoustic pressure, holds it at 0: the water's top a
  // pressure-release surface; another value is refused, naming its line (33).
  const auto with_boundary = [&](const std::string& line) {
    return nodes + water + "*SOLID SECTION, ELSET=WATER, MATERIAL=WATER\n*NSET, NSET=TOP\n9, 10, 11, 12\n*BOUNDARY\n" +
           line + "\n";
  };
  const Model released = io::read_abaqus_buffer(with_boundary("TOP, 8, 8"), "deck.inp");
  ASSERT_EQ(released.fixed.size(), 1u);
  EXPECT_EQ(released.fixed[0].component, FixedDof::pressure);
  EXPECT_EQ(released.fixed[0].nodes, (std::vector<Index>{8, 9, 10, 11}));
  e = test::error_of([&] { (void)io::read_abaqus_buffer(with_boundary("TOP, 8, 8, 2.5"), "deck.inp"); });
  EXPECT_NE(e.find("deck.inp:33: a prescribed pressure of 2.5: a fluid's pressure is held at 0"), std::string::npos)
      << e;
}

// The Abaqus section of docs/readers.md, up to the next section.
std::string abaqus_section() {
  std::ifstream file(test::source_path("docs/readers.md"));
  std::stringstream text;
  text << file.rdbuf();
  const std::string all = text.str();
  const auto begin = all.find("## Abaqus");
  EXPECT_NE(begin, std::string::npos);
  return all.substr(begin, all.find("\n## ", begin + 1) - begin);
}

TEST(AbaqusKeywords, TheDocsNameEveryKeywordReadOrRefused) {
  const std::string docs = abaqus_section();
  for (const Keyword& keyword : io::abaqus::keywords()) {
    if (keyword.use == Use::Ignored) continue;
    // As `*NAME` or `*NAME, PARAMETER...`.
    const std::string shown = str("`", keyword.display);
    const bool named = docs.find(shown + "`") != std::string::npos || docs.find(shown + ",") != std::string::npos;
    EXPECT_TRUE(named) << keyword.display << " is not in docs/readers.md";
  }
  // And the keyword column of its table names only keywords the table reads.
  const std::regex row(R"(\n\| (`\*[^|]*)\|)");
  const std::regex keyword(R"(`\*([A-Z ]+))");
  int rows = 0;
  for (auto r = std::sregex_iterator(docs.begin(), docs.end(), row); r != std::sregex_iterator(); ++r, ++rows) {
    const std::string cell = (*r)[1];
    for (auto k = std::sregex_iterator(cell.begin(), cell.end(), keyword); k != std::sregex_iterator(); ++k) {
      std::string name;
      for (char c : std::string((*k)[1]))
        if (c != ' ') name += c;
      const Keyword* entry = io::abaqus::find_keyword(name);
      EXPECT_TRUE(entry != nullptr && entry->use == Use::Read) << "docs/readers.md's table lists *" << (*k)[1];
    }
  }
  EXPECT_GT(rows, 10);
}

}  // namespace
}  // namespace tremor
