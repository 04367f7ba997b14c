// Worker thread of VerifyPool: verifies ML-DSA signatures with liboqs (WebAssembly) off the
// main thread. Plain JavaScript so that it starts without a TypeScript loader.
import { parentPort } from 'node:worker_threads';
import { createMLDSA44, createMLDSA65, createMLDSA87 } from '@oqs/liboqs-js';

const factories = { 'ML-DSA-44': createMLDSA44, 'ML-DSA-65': createMLDSA65, 'ML-DSA-87': createMLDSA87 };
const signers = new Map();

parentPort.on('message', async ({ id, alg, publicKey, message, signature }) => {
  let ok = false;
  try {
    let signer = signers.get(alg);
    if (!signer) {
      signer = await factories[alg]();
      signers.set(alg, signer);
    }
    ok = signer.verify(message, signature, publicKey);
  } catch {
    ok = false;
  }
  parentPort.postMessage({ id, ok });
});
