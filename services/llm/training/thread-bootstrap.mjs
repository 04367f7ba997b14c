// Starts a LoRA training thread from TypeScript sources: registers tsx in this thread first.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
