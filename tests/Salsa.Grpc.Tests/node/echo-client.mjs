// An outside gRPC client for Salsa.Grpc's interop test: grpc-js (the Node.js implementation of
// gRPC) calls salsa.test.v1.Echo at the address given and prints what it got as one JSON object.
// Usage: node echo-client.mjs http://127.0.0.1:5001
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const here = path.dirname(fileURLToPath(import.meta.url));
const address = (process.argv[2] ?? '').replace(/^https?:\/\//, '').replace(/\/$/, '');
if (!address) {
  console.error('usage: node echo-client.mjs <address>');
  process.exit(2);
}

const definition = protoLoader.loadSync(path.join(here, '..', 'Protos', 'echo.proto'), { keepCase: false, longs: Number, defaults: true });
const { Echo } = grpc.loadPackageDefinition(definition).salsa.test.v1;
const client = new Echo(address, grpc.credentials.createInsecure());
const deadlineIn = (ms) => new Date(Date.now() + ms);
const failure = (error) => ({ code: error.code, details: error.details, trailers: error.metadata?.getMap() ?? {} });

function unary() {
  return new Promise((resolve) => {
    const metadata = new grpc.Metadata();
    metadata.set('echo-node', 'from grpc-js');
    metadata.set('echo-node-bin', Buffer.from([1, 2, 3, 255]));
    let headers = {};
    let outcome;
    let trailers;
    // grpc-js reports the reply before the status event that carries the trailers: wait for both.
    const settle = () => {
      if (outcome && trailers) resolve({ ...outcome, headers, trailers: trailers.getMap() });
    };
    const call = client.unary({ text: 'hello from node', payload: Buffer.from('payload') }, metadata, { deadline: deadlineIn(10_000) }, (error, reply) => {
      outcome = error ? { error: failure(error) } : { text: reply.text, payload: Buffer.from(reply.payload).toString() };
      settle();
    });
    call.on('metadata', (m) => {
      headers = { node: m.get('echo-node')[0], nodeBin: Array.from(m.get('echo-node-bin')[0] ?? []) };
    });
    call.on('status', (status) => {
      trailers = status.metadata;
      settle();
    });
  });
}

function serverStream(count) {
  return new Promise((resolve) => {
    const indexes = [];
    const call = client.serverStream({ text: 'stream', count }, { deadline: deadlineIn(20_000) });
    call.on('data', (reply) => indexes.push(reply.index));
    call.on('error', (error) => resolve({ error: failure(error) }));
    call.on('status', (status) => {
      if (status.code === grpc.status.OK) resolve({ count: indexes.length, inOrder: indexes.every((value, i) => value === i) });
    });
  });
}

function clientStream(texts) {
  return new Promise((resolve) => {
    const call = client.clientStream({ deadline: deadlineIn(10_000) }, (error, reply) => {
      resolve(error ? { error: failure(error) } : { text: reply.text, index: reply.index });
    });
    for (const text of texts) call.write({ text });
    call.end();
  });
}

function duplex(texts) {
  return new Promise((resolve) => {
    const replies = [];
    const call = client.duplex({ deadline: deadlineIn(10_000) });
    call.on('data', (reply) => replies.push(reply.text));
    call.on('error', (error) => resolve({ error: failure(error) }));
    call.on('end', () => resolve({ replies }));
    for (const text of texts) call.write({ text });
    call.end();
  });
}

function unaryError(method, request, deadlineMs = 10_000) {
  return new Promise((resolve) => {
    client[method](request, { deadline: deadlineIn(deadlineMs) }, (error, reply) => {
      resolve(error ? failure(error) : { unexpected: reply });
    });
  });
}

const results = {
  unary: await unary(),
  serverStream: await serverStream(1000),
  clientStream: await clientStream(['a', 'b', 'c', 'd', 'e']),
  duplex: await duplex(['x', 'y', 'z']),
  deadline: await unaryError('waitForCancellation', { text: process.argv[3] ?? 'node-deadline' }, 300),
  fail: await unaryError('fail', { text: 'failed on purpose', count: 5 }),
  unimplemented: await unaryError('unimplemented', {}),
};
client.close();
console.log(JSON.stringify(results));
