// Salsa.Chemistry's native side of RDKit: the fingerprints an import asks for, from RDKit's own
// C++ (the system's librdkit), for one molecule per call (a SMILES, or a molblock: text holding "M  END",
// as RDKit MinimalLib tells them apart). The bits are the ones Rdkit.js returns
// from MinimalLib: bit i in byte i / 8, least significant bit first. A molecule RDKit refuses
// returns 1 and nothing else: the caller asks MinimalLib for RDKit's reason (RDKit's log is off
// here, so nothing reaches the service's stderr). Thread-safe (RDKit built with
// RDK_BUILD_THREADSAFE_SSS); no state between calls.
#include <GraphMol/GraphMol.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <RDGeneral/FileParseException.h>
#include <GraphMol/Fingerprints/MorganFingerprints.h>
#include <GraphMol/Fingerprints/MACCS.h>
#include <DataStructs/ExplicitBitVect.h>
#include <RDGeneral/RDLog.h>
#include <RDGeneral/versions.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>

namespace {

void pack(const ExplicitBitVect &bits, std::uint8_t *out, int bytes) {
  std::memset(out, 0, bytes);
  for (unsigned int i = 0; i < bits.getNumBits(); ++i) {
    if (bits.getBit(i)) {
      out[i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
    }
  }
}

std::once_flag quiet;

}  // namespace

extern "C" {

// RDKit's version ("2022.09.3").
__attribute__((visibility("default"))) const char *salsa_rdkit_version() { return RDKit::rdkitVersion; }

// The fingerprints of one molecule (a SMILES, or a molblock when the text holds "M  END"): Morgan radius 2 folded to morgan_bits into morgan (when
// morgan_bits > 0), MACCS (167 bits, 21 bytes) into maccs (when not null). 0: done; 1: RDKit
// cannot read the SMILES; 2: RDKit failed on it otherwise.
__attribute__((visibility("default"))) int salsa_rdkit_fingerprints(const char *smiles, int morgan_bits,
                                                                    std::uint8_t *morgan, std::uint8_t *maccs) {
  std::call_once(quiet, [] {
    RDLog::InitLogs();
    boost::logging::disable_logs("rdApp.*");
  });
  try {
    std::unique_ptr<RDKit::ROMol> molecule(std::strstr(smiles, "M  END") != nullptr ? RDKit::MolBlockToMol(smiles) : RDKit::SmilesToMol(smiles));
    if (!molecule) {
      return 1;
    }
    if (morgan_bits > 0) {
      std::unique_ptr<ExplicitBitVect> bits(
          RDKit::MorganFingerprints::getFingerprintAsBitVect(*molecule, 2, static_cast<unsigned int>(morgan_bits)));
      pack(*bits, morgan, (morgan_bits + 7) / 8);
    }
    if (maccs != nullptr) {
      std::unique_ptr<ExplicitBitVect> bits(RDKit::MACCSFingerprints::getFingerprintAsBitVect(*molecule));
      pack(*bits, maccs, 21);
    }
    return 0;
  } catch (const RDKit::MolSanitizeException &) {
    return 1;
  } catch (const RDKit::FileParseException &) {
    return 1;
  } catch (...) {
    return 2;
  }
}

}  // extern "C"
