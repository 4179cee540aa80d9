// Salsa.Chemistry's side of RDKit MinimalLib: whole batches per call (one crossing of the
// .NET/V8 boundary per batch, not per molecule), fingerprints as hex in the shipped data's bit order
// (bit i in byte i / 8, least significant bit first), RDKit's own parse messages kept.
"use strict";

const salsaErrors = [];
let RDKit = null;
let salsaLog = null;

function salsaLoad(wasm) {
  return initRDKitModule({
    instantiateWasm: (imports, done) => {
      WebAssembly.instantiate(wasm, imports).then(r => done(r.instance));
      return {};
    },
    print: () => {},
    printErr: text => salsaErrors.push(String(text)),
  }).then(module => {
    RDKit = module;
    // RDKit's parse errors (rdApp.error) go to a buffer read after each molecule it refuses.
    RDKit.enable_logging("rdApp.error");
    salsaLog = RDKit.set_log_capture("rdApp.error");
    return RDKit.version();
  });
}

// RDKit's byte arrays already hold bit i in byte i / 8, least significant bit first: each byte is
// two hex digits.
const hexOfByte = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

function salsaHex(bytes) {
  let hex = "";
  for (let i = 0; i < bytes.length; i++) hex += hexOfByte[bytes[i]];
  return hex;
}

// The same from RDKit's "0101…" text (its MACCS byte array is slower to get than the text).
function salsaPack(bits) {
  let hex = "";
  for (let start = 0; start < bits.length; start += 8) {
    let value = 0;
    for (let i = 0; i < 8 && start + i < bits.length; i++) {
      if (bits.charCodeAt(start + i) === 49) value |= 1 << i;
    }
    hex += hexOfByte[value];
  }
  return hex;
}

// The molecule of a SMILES or a molblock (its line breaks sent as U+001E, one molecule a line),
// or null, with RDKit's reason in salsaErrors.
function salsaMolecule(smiles) {
  salsaErrors.length = 0;
  if (salsaLog) salsaLog.clear_buffer();
  if (smiles.indexOf("\u001e") >= 0) smiles = smiles.replace(/\u001e/g, "\n");
  if (smiles.trim() === "") {
    salsaErrors.push("empty SMILES");
    return null;
  }
  let molecule = null;
  try {
    molecule = RDKit.get_mol(smiles);
  } catch (e) {
    salsaErrors.push(String(e));
  }
  if (molecule && molecule.is_valid()) return molecule;
  if (molecule) molecule.delete();
  return null;
}

// RDKit's messages about the molecule it just refused: without timestamps, repeats, or the echo of
// the input and the caret under it.
function salsaReason(smiles) {
  if (salsaLog) salsaErrors.push(salsaLog.get_buffer());
  const lines = salsaErrors.join("\n").replace(/\[\d\d:\d\d:\d\d\] ?/g, "").split("\n")
    .map(line => line.trim())
    .filter(line => line && line !== smiles && !/^~*\^$/.test(line) && line.indexOf("\u001e") < 0);
  return [...new Set(lines)].join("; ") || "RDKit cannot read it as a molecule";
}

// One line per SMILES line: the asked fingerprints' hex, space-separated, or "!" and the reason.
function salsaFingerprints(text, morganJson, maccs) {
  const lines = text.split("\n");
  const out = new Array(lines.length);
  for (let n = 0; n < lines.length; n++) {
    const molecule = salsaMolecule(lines[n]);
    if (molecule === null) {
      out[n] = "!" + salsaReason(lines[n]);
      continue;
    }
    try {
      const parts = [];
      if (morganJson) parts.push(salsaHex(molecule.get_morgan_fp_as_uint8array(morganJson)));
      if (maccs) parts.push(salsaPack(molecule.get_maccs_fp()));
      out[n] = parts.join(" ");
    } finally {
      molecule.delete();
    }
  }
  return out.join("\n");
}

// RDKit's 2D depiction as SVG, or "!" and the reason.
function salsaSvg(smiles, width, height) {
  const molecule = salsaMolecule(smiles);
  if (molecule === null) return "!" + salsaReason(smiles);
  try {
    return molecule.get_svg(width, height);
  } finally {
    molecule.delete();
  }
}

// RDKit's molblock (V2000, with 2D coordinates), or "!" and the reason.
function salsaMolBlock(smiles) {
  const molecule = salsaMolecule(smiles);
  if (molecule === null) return "!" + salsaReason(smiles);
  try {
    molecule.set_new_coords();
    return molecule.get_molblock();
  } finally {
    molecule.delete();
  }
}

// One line per molecule line: RDKit's canonical SMILES, or "!" and the reason.
function salsaSmilesOf(text) {
  return text.split("\n").map(line => salsaCanonical(line)).join("\n");
}

// RDKit's canonical SMILES, or "!" and the reason.
function salsaCanonical(smiles) {
  const molecule = salsaMolecule(smiles);
  if (molecule === null) return "!" + salsaReason(smiles);
  try {
    return molecule.get_smiles();
  } finally {
    molecule.delete();
  }
}
