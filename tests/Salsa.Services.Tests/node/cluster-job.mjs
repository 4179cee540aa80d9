// An outside client of a Salsa clustering service: grpc-js loads the contracts from proto/, uploads
// points in chunks (Datasets.Upload), starts deterministic annealing (Annealing.Start), follows the
// job (Jobs.Watch), fetches the result (Annealing.GetResult) and the per-point assignments
// (Jobs.DownloadArtifact), and prints what it saw as one JSON object.
// Usage: node cluster-job.mjs <proto dir> <grpc address> <points.csv: x,y,weight> <max clusters>
import { readFileSync } from 'node:fs';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const [protoDir, addressArg, csvPath, maxClustersArg] = process.argv.slice(2);
if (!protoDir || !addressArg || !csvPath || !maxClustersArg) {
  console.error('usage: node cluster-job.mjs <proto dir> <grpc address> <points.csv> <max clusters>');
  process.exit(2);
}

const address = addressArg.replace(/^https?:\/\//, '').replace(/\/$/, '');
const files = ['salsa/datasets/v1/datasets.proto', 'salsa/common/v1/jobs.proto', 'salsa/annealing/v1/annealing.proto'];
const definition = protoLoader.loadSync(files, { includeDirs: [protoDir], keepCase: false, longs: String, enums: String, defaults: true, oneofs: true });
const salsa = grpc.loadPackageDefinition(definition).salsa;
const credentials = grpc.credentials.createInsecure();
const datasets = new salsa.datasets.v1.Datasets(address, credentials);
const jobs = new salsa.common.v1.Jobs(address, credentials);
const annealing = new salsa.annealing.v1.Annealing(address, credentials);

const unary = (client, method, request) => new Promise((resolve, reject) =>
  client[method](request, (error, reply) => (error ? reject(error) : resolve(reply))));

function readPoints(path) {
  const rows = readFileSync(path, 'utf8').trim().split('\n').slice(1).map((line) => line.split(',').map(Number));
  return { values: rows.flatMap((r) => [r[0], r[1]]), weights: rows.map((r) => r[2]), count: rows.length };
}

function upload(points) {
  return new Promise((resolve, reject) => {
    const call = datasets.upload((error, info) => (error ? reject(error) : resolve(info)));
    call.write({ header: { name: 'from-node', kind: 'DATASET_KIND_DENSE', dimension: 2 } });
    const perChunk = 500;
    for (let start = 0; start < points.count; start += perChunk) {
      const end = Math.min(points.count, start + perChunk);
      call.write({ chunk: { values: points.values.slice(2 * start, 2 * end), weights: points.weights.slice(start, end) } });
    }
    call.end();
  });
}

function watch(jobId) {
  return new Promise((resolve, reject) => {
    const seen = { progress: 0, statuses: [], phases: new Set(), finalProgress: null };
    const call = jobs.watch({ jobId });
    call.on('data', (event) => {
      if (event.event === 'progress') {
        seen.progress += 1;
        seen.phases.add(event.progress.phase);
      } else {
        seen.statuses.push(event.status.state);
        seen.finalProgress = event.status.progress ?? null;
      }
    });
    call.on('error', reject);
    call.on('end', () => resolve({ progress: seen.progress, statuses: seen.statuses, phases: [...seen.phases], finalProgress: seen.finalProgress }));
  });
}

function download(jobId, name) {
  return new Promise((resolve, reject) => {
    const parts = [];
    let contentType = '';
    const call = jobs.downloadArtifact({ jobId, name });
    call.on('data', (chunk) => {
      if (chunk.contentType) contentType = chunk.contentType;
      parts.push(chunk.data);
    });
    call.on('error', reject);
    call.on('end', () => resolve({ contentType, data: Buffer.concat(parts) }));
  });
}

async function main() {
  const points = readPoints(csvPath);
  const dataset = await upload(points);
  const job = await unary(annealing, 'start', { datasetId: dataset.datasetId, maxClusters: Number(maxClustersArg) });
  const watched = await watch(job.jobId);
  const result = await unary(annealing, 'getResult', { jobId: job.jobId });
  const artifact = await download(job.jobId, 'assignments');
  const assignments = [];
  for (let i = 0; i < artifact.data.length; i += 4) assignments.push(artifact.data.readInt32LE(i));
  const failure = (error) => ({ code: error.code, details: error.details, trailers: Object.keys(error.metadata?.getMap() ?? {}) });
  const fails = (call) => call.then((reply) => ({ unexpected: reply }), failure);
  const badRequest = await fails(unary(annealing, 'start', { datasetId: dataset.datasetId, maxClusters: 0 }));
  const notFound = await fails(unary(jobs, 'get', { jobId: '00000000-0000-0000-0000-000000000001' }));
  // A deadline already past: refused before any work.
  const deadline = await fails(new Promise((resolve, reject) =>
    annealing.start({ datasetId: dataset.datasetId, maxClusters: 3 }, { deadline: new Date(Date.now() - 1000) }, (error, reply) => (error ? reject(error) : resolve(reply)))));
  // A method the service does not have.
  const unimplemented = await fails(new Promise((resolve, reject) =>
    jobs.makeUnaryRequest('/salsa.common.v1.Jobs/NoSuchMethod', (x) => x, (x) => x, Buffer.alloc(0), (error, reply) => (error ? reject(error) : resolve(reply)))));
  // The service's own time, as a trailer of a successful call.
  const serverTiming = await new Promise((resolve) => {
    const call = jobs.get({ jobId: job.jobId }, () => {});
    call.on('status', (status) => resolve(status.metadata.get('server-timing')[0] ?? null));
  });
  console.log(JSON.stringify({
    dataset: { id: dataset.datasetId, count: dataset.count, totalWeight: dataset.totalWeight },
    job: { id: job.jobId, state: job.state },
    watched,
    result: { clusters: result.clustering.clusters, centres: result.clustering.centres, clusterSizes: result.clustering.clusterSizes, cost: result.clustering.cost },
    assignments: { contentType: artifact.contentType, count: assignments.length, max: Math.max(...assignments) },
    badRequest,
    notFound,
    deadline,
    unimplemented,
    serverTiming,
  }));
}

main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
