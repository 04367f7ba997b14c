// Starts a statevector worker from TypeScript sources: registers tsx in this thread first.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
