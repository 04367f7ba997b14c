// Starts a statevector worker from TypeScript sources: registers tsx in this thread first. The
// compiled program starts dist/worker-statevector.js instead (parallel.ts).
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
