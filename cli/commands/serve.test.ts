import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/lattice.mjs');
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'lattice-serve-'));
  dirs.push(d);
  return d;
}

// Every service on a port the OS picks, so that these tests never collide with a real server.
const allPortsZero = { LATTICE_LICENSING_PORT: '0', LATTICE_LICENSING_C_PORT: '0' };

function serve(dataDir: string, env: Record<string, string>) {
  const started = Date.now();
  const r = spawnSync(process.execPath, [bin, 'serve', '--only', 'licensing', '--data-dir', dataDir], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...allPortsZero, DATABASE_URL: '', ...env },
  });
  return { ...r, seconds: (Date.now() - started) / 1000 };
}

test('serve on a taken port exits at once with one line naming the port and how to choose another', { skip: process.env.DATABASE_URL ? 'embedded store only' : false }, async () => {
  const holder: Server = createServer();
  await new Promise<void>((r) => holder.listen({ port: 0, host: '127.0.0.1' }, r));
  const port = (holder.address() as { port: number }).port;
  try {
    const r = serve(tempDir(), { LATTICE_LICENSING_PORT: String(port) });
    assert.equal(r.signal, null, 'exited by itself');
    assert.equal(r.status, 1);
    assert.ok(r.seconds < 15, `exited after ${r.seconds} s`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`port ${port} on 127\\.0\\.0\\.1 \\(service licensing\\) is already in use`));
    assert.match(lines[0]!, /LATTICE_LICENSING_PORT=<port>/);
  } finally {
    holder.close();
  }
});

test('a second serve on the same data dir exits at once naming the process that holds it', { skip: process.env.DATABASE_URL ? 'embedded store only' : false }, async () => {
  const dataDir = tempDir();
  const first = spawn(process.execPath, [bin, 'serve', '--only', 'licensing', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, ...allPortsZero, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  first.stdout.on('data', (c: Buffer) => (log += c.toString()));
  first.stderr.on('data', (c: Buffer) => (log += c.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => log.includes('lattice: store') && (clearInterval(timer), resolve()), 100);
      first.once('exit', (code) => (clearInterval(timer), reject(new Error(`first serve exited with ${code}: ${log}`))));
    });
    const r = serve(dataDir, {});
    assert.equal(r.signal, null, 'exited by itself');
    assert.equal(r.status, 1);
    assert.ok(r.seconds < 15, `exited after ${r.seconds} s`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`in use by process ${first.pid} .*kill ${first.pid}.*another --data-dir`));
  } finally {
    await new Promise<void>((resolve) => {
      first.once('exit', () => resolve());
      first.kill('SIGTERM');
    });
  }
});
