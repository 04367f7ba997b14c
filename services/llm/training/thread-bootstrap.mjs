// Starts a LoRA training thread from TypeScript sources: registers tsx in this thread first. The
// compiled program starts dist/worker-training.js instead (platform/threads.ts).
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
