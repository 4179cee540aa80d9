// RDKit's own C++ as a bare loop: one SMILES a line on stdin, "ECFP4 MACCS" as hex a line on stdout
// ("!" for a molecule RDKit cannot read), RDKit's version on stderr. Built by
// rdkit_native_pinned.sh against the pinned release (2026.09.1, Debian sid's build) and against the
// system's (Debian 12's 2022.09.3), to time the release's own code beside MinimalLib and python3-rdkit.
#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/Fingerprints/MorganFingerprints.h>
#include <GraphMol/Fingerprints/MACCS.h>
#include <DataStructs/ExplicitBitVect.h>
#include <RDGeneral/RDLog.h>
#include <RDGeneral/versions.h>
#include <iostream>
#include <string>
#include <memory>
static const char *hexd = "0123456789abcdef";
static void hex(const ExplicitBitVect &bits, std::string &out) {
  unsigned n = bits.getNumBits();
  for (unsigned b = 0; b < (n + 7) / 8; ++b) {
    unsigned v = 0;
    for (unsigned i = 0; i < 8 && b * 8 + i < n; ++i) if (bits.getBit(b * 8 + i)) v |= 1u << i;
    out += hexd[v >> 4]; out += hexd[v & 15];
  }
}
int main() {
  RDLog::InitLogs();
  boost::logging::disable_logs("rdApp.*");
  std::ios::sync_with_stdio(false);
  std::string line, out;
  std::cerr << RDKit::rdkitVersion << std::endl;
  while (std::getline(std::cin, line)) {
    out.clear();
    try {
      std::unique_ptr<RDKit::ROMol> m(RDKit::SmilesToMol(line));
      if (!m) { std::cout << "!\n"; continue; }
      std::unique_ptr<ExplicitBitVect> a(RDKit::MorganFingerprints::getFingerprintAsBitVect(*m, 2, 1024));
      std::unique_ptr<ExplicitBitVect> b(RDKit::MACCSFingerprints::getFingerprintAsBitVect(*m));
      hex(*a, out); out += ' '; hex(*b, out);
      std::cout << out << '\n';
    } catch (...) { std::cout << "!\n"; }
  }
}
