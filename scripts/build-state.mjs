// Whether dist/ (the compiled `lattice` program) is current: no dependencies, a few stat
// calls, so that bin/lattice.mjs can decide in a millisecond or two on every start.
//
// dist/manifest.json lists every source file the build read and the folders whose contents
// decide what is built (a new command in cli/commands/ changes that folder). The build is
// current when it exists and none of them changed after it was made.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const MANIFEST = 'dist/manifest.json';
export const MANIFEST_VERSION = 1;

/** null when dist/ is current; otherwise why it is not (for the one-line notice). */
export function staleReason(root) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(root, MANIFEST), 'utf8'));
  } catch {
    return 'the compiled program (dist/) is missing';
  }
  if (manifest.version !== MANIFEST_VERSION) return 'the compiled program (dist/) is from another build version';
  const builtAt = manifest.builtAt;
  for (const rel of [...manifest.dirs, ...manifest.inputs]) {
    let mtime;
    try {
      mtime = statSync(join(root, rel)).mtimeMs;
    } catch {
      return `${rel} was removed after the last build`;
    }
    if (mtime > builtAt) return `${rel} changed after the last build`;
  }
  return null;
}
