// Builds the native statevector kernels at install time (npm's postinstall). The engine runs
// without them (a JavaScript implementation of the same kernels), so a machine with no C++
// compiler still installs; LATTICE_NATIVE_REQUIRED=1 makes a failed build fail the install.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function nodeGyp() {
  // npm names its own node-gyp to install scripts; otherwise look beside npm, then in node_modules.
  if (process.env.npm_config_node_gyp && existsSync(process.env.npm_config_node_gyp)) return process.env.npm_config_node_gyp;
  const beside = resolve(dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
  if (existsSync(beside)) return beside;
  try {
    return createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return null;
  }
}

/** Node's own headers (installed with Node), so the build never downloads them. */
function nodeDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = resolve(dirname(process.execPath), '..');
  return existsSync(join(prefix, 'include/node/node_api.h')) ? prefix : null;
}

const gyp = nodeGyp();
const dir = nodeDir();
const required = process.env.LATTICE_NATIVE_REQUIRED === '1';
if (process.env.LATTICE_NATIVE === '0') {
  console.log('lattice: native statevector kernels not built (LATTICE_NATIVE=0)');
  process.exit(0);
}
if (!gyp) {
  console.log('lattice: node-gyp not found; the statevector simulator will use its JavaScript kernels');
  process.exit(required ? 1 : 0);
}
const args = [gyp, 'rebuild', '--release', ...(dir ? [`--nodedir=${dir}`] : [])];
const r = spawnSync(process.execPath, args, { cwd: here, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
if (r.status === 0) {
  recordCpu();
  console.log('lattice: native statevector kernels built');
  process.exit(0);
}
console.log(`lattice: building the native statevector kernels failed; the JavaScript kernels will be used\n${(r.stderr || '').split('\n').slice(-15).join('\n')}`);
process.exit(required ? 1 : 0);

/**
 * The kernels are compiled for this CPU (-march=native). Record its instruction-set
 * extensions beside the binary, so that a copy of node_modules moved to an older CPU falls
 * back to the JavaScript kernels instead of dying on an illegal instruction.
 */
function recordCpu() {
  const flags = cpuFlags();
  if (flags) writeFileSync(join(here, 'build/Release/cpu-flags.json'), JSON.stringify({ arch: process.arch, flags }) + '\n');
}

function cpuFlags() {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => /^flags\s*:/.test(l));
    return line ? line.split(':')[1].trim().split(/\s+/).filter((f) => /^(sse|ssse3|avx|fma|bmi|f16c|popcnt|movbe|abm|adx|vaes|vpclmulqdq|gfni)/.test(f)) : null;
  } catch {
    return null;
  }
}
