// Salsa.Chemistry's side of RDKit MinimalLib: whole batches per call (one crossing of the
// .NET/V8 boundary per batch, not per molecule), fingerprints as hex in the shipped data's bit order
// (bit i in byte i / 8, least significant bit first), RDKit's own parse messages kept.
"use strict";

const salsaErrors = [];
let RDKit = null;
let salsaLog = null;

// Loads RDKit from its WebAssembly, then gives its C++ a stack of stackBytes: MinimalLib's own is
// 64 KiB (a 1,000-atom chain overran it), so a block of that size is taken from RDKit's heap and
// the stack pointer set to its top with RDKit's own exports (their minified names read from its
// script by the host). The block is larger than the machine stack a call may use, by a margin, so a
// molecule too deep for the host's stack stops there (a RangeError) before RDKit's stack overruns.
function salsaLoad(wasm, mallocExport, stackRestoreExport, stackBytes) {
  let instance = null;
  return initRDKitModule({
    instantiateWasm: (imports, done) => {
      WebAssembly.instantiate(wasm, imports).then(r => {
        instance = r.instance;
        done(r.instance);
      });
      return {};
    },
    print: () => {},
    printErr: text => salsaErrors.push(String(text)),
  }).then(module => {
    RDKit = module;
    const block = instance.exports[mallocExport](stackBytes);
    if (!block) throw new Error("RDKit's heap has no room for a stack of " + stackBytes + " bytes");
    instance.exports[stackRestoreExport](block + stackBytes);
    // RDKit's parse errors (rdApp.error) go to a buffer read after each molecule it refuses.
    RDKit.enable_logging("rdApp.error");
    salsaLog = RDKit.set_log_capture("rdApp.error");
    return RDKit.version();
  });
}

// A failure of the engine itself, not RDKit's word on a molecule: a trap (memory out of bounds, a
// stack overrun) or a C++ exception MinimalLib let through (out of memory) leaves RDKit's memory in
// no known state, so the host discards the engine.
function salsaBroken(e) {
  return e instanceof WebAssembly.RuntimeError || e instanceof RangeError || e instanceof WebAssembly.Exception || !(e instanceof Error);
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
// the input and the caret under it; a long input RDKit quotes is cut to its first 40 characters,
// and the reason to 1,000 (a 100,000-character SMILES is quoted several times over).
function salsaReason(smiles) {
  if (salsaLog) salsaErrors.push(salsaLog.get_buffer());
  const short = smiles.length > 60 ? smiles.slice(0, 40) + "…" : smiles;
  const lines = salsaErrors.join("\n").replace(/\[\d\d:\d\d:\d\d\] ?/g, "").split("\n")
    .map(line => line.trim())
    .filter(line => line && line !== smiles && !/^~*\^$/.test(line) && line.indexOf("\u001e") < 0)
    .map(line => short === smiles ? line : line.split(smiles).join(short).replace(/[^\s;:'"]{80,}/g, word => word.slice(0, 40) + "…"));
  const reason = [...new Set(lines)].join("; ") || "RDKit cannot read it as a molecule";
  return reason.length > 1000 ? reason.slice(0, 999) + "…" : reason;
}

// Each line of text read as a molecule and given to answer: one line out per line in, the answer or
// "!" and the reason RDKit refused it. progress(n) is called before molecule n: the host's
// watchdog times each molecule. A failure of the engine itself ends the batch: the lines so far,
// then "!!" and what failed (at the molecule after them).
function salsaEach(text, progress, answer) {
  const lines = text.split("\n");
  const out = [];
  for (let n = 0; n < lines.length; n++) {
    progress(n);
    let molecule = null;
    try {
      molecule = salsaMolecule(lines[n]);
      out.push(molecule === null ? "!" + salsaReason(lines[n]) : answer(molecule));
    } catch (e) {
      if (salsaBroken(e)) {
        out.push("!!" + String(e));
        return out.join("\n");
      }
      out.push("!" + String(e));
    } finally {
      if (molecule !== null) {
        try { molecule.delete(); } catch (e) { /* the engine is discarded after a failure */ }
      }
    }
  }
  return out.join("\n");
}

// Per line: the asked fingerprints' hex, space-separated.
function salsaFingerprints(text, morganJson, maccs, progress) {
  return salsaEach(text, progress, molecule => {
    const parts = [];
    if (morganJson) parts.push(salsaHex(molecule.get_morgan_fp_as_uint8array(morganJson)));
    if (maccs) parts.push(salsaPack(molecule.get_maccs_fp()));
    return parts.join(" ");
  });
}

// RDKit's 2D depiction as SVG.
function salsaSvg(smiles, width, height, progress) {
  return salsaEach(smiles, progress, molecule => molecule.get_svg(width, height));
}

// RDKit's molblock (V2000, with 2D coordinates): its line breaks travel as U+001E.
function salsaMolBlock(smiles, progress) {
  return salsaEach(smiles, progress, molecule => {
    molecule.set_new_coords();
    return molecule.get_molblock().replace(/\r?\n/g, "\u001e");
  });
}

// Per line: RDKit's canonical SMILES.
function salsaSmilesOf(text, progress) {
  return salsaEach(text, progress, molecule => molecule.get_smiles());
}
