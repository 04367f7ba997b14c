// Starts a quantum job worker thread. From a compiled build the JavaScript worker sits beside
// this file; from TypeScript sources tsx is registered in this thread first.
import { existsSync } from 'node:fs';

const compiled = new URL('./worker.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./worker.ts');
}
