// Starts a quantum job worker thread from the TypeScript sources: registers tsx in this thread
// first. The compiled program starts dist/worker-quantum-jobs.js instead (platform/threads.ts).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
