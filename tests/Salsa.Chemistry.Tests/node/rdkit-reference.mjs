// RDKit MinimalLib in Node.js, beside the service under test: every molecule of a CSV file
// (id,smiles,…) with its ECFP4 (Morgan radius 2, 1,024 bits) and MACCS fingerprints as hex in the
// data files' bit order (bit i in byte i / 8, least significant first), or that RDKit refuses it.
// The reference runs in a worker whose stack is large enough for 10,000-atom chains, and gives
// RDKit's C++ a stack of the same size (its own is 64 KiB), so very large molecules are read here
// as the service reads them.
//
//   node rdkit-reference.mjs <folder of RDKit_minimal.js and .wasm> <file.csv>   → JSON on stdout
import { Worker, isMainThread, workerData, parentPort } from 'node:worker_threads';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

if (isMainThread) {
  const [dir, file] = process.argv.slice(2);
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { dir, file }, resourceLimits: { stackSizeMb: 256 } });
  worker.on('message', (answer) => process.stdout.write(JSON.stringify(answer)));
  worker.on('error', (error) => { console.error(error); process.exitCode = 1; });
} else {
  const { dir, file } = workerData;
  const require = createRequire(import.meta.url);
  const initRDKitModule = require(`${dir}/RDKit_minimal.js`);
  const glue = fs.readFileSync(`${dir}/RDKit_minimal.js`, 'utf8');
  const exportOf = (name) => glue.match(new RegExp(`${name}=wasmExports\\["([^"]+)"\\]`))[1];
  let instance = null;
  const RDKit = await initRDKitModule({
    instantiateWasm: (imports, done) => {
      WebAssembly.instantiate(fs.readFileSync(`${dir}/RDKit_minimal.wasm`), imports).then((r) => { instance = r.instance; done(r.instance); });
      return {};
    },
    print: () => {},
    printErr: () => {},
  });
  const stack = 256 << 20;
  instance.exports[exportOf('__emscripten_stack_restore')](instance.exports[exportOf('_malloc')](stack) + stack);
  const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  const pack = (bits) => {
    let out = '';
    for (let s = 0; s < bits.length; s += 8) {
      let v = 0;
      for (let i = 0; i < 8 && s + i < bits.length; i++) if (bits.charCodeAt(s + i) === 49) v |= 1 << i;
      out += v.toString(16).padStart(2, '0');
    }
    return out;
  };
  const morgan = JSON.stringify({ radius: 2, nBits: 1024 });
  const molecules = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1).filter((l) => l.length > 0)) {
    const [id, smiles] = line.split(',');
    let molecule = null;
    try {
      molecule = RDKit.get_mol(smiles);
      molecules.push(!molecule || !molecule.is_valid()
        ? { id, ok: false }
        : { id, ok: true, ecfp4: hex(molecule.get_morgan_fp_as_uint8array(morgan)), maccs: pack(molecule.get_maccs_fp()) });
    } catch (e) {
      molecules.push({ id, ok: false, error: String(e) });
    } finally {
      if (molecule) molecule.delete();
    }
  }
  parentPort.postMessage({ version: RDKit.version(), molecules });
}
