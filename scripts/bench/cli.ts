/**
 * Start-up benchmark of the `lattice` program as a user runs it (the compiled dist/, built
 * first when stale): whole-process wall time of `lattice --help`, of `lattice circuit run` of
 * a Bell circuit, and of `lattice serve` from spawn to every service's `/health` answering, each
 * beside bare `node -e 0` measured in the same run (the floor of any Node program); and of
 * `serve` to every `/ready` answering 200, once the queue workers that start after the services
 * answer run. Median of LATTICE_BENCH_RUNS runs (default 9). Aim: each under 0.3 s.
 *
 * "Minus the database opening": `serve` runs on a prepared data dir (every migration already
 * applied, as on any start after the first). The opening is measured apart, in its own
 * process, doing what `serve` does to open that store: load PGlite, open the data dir, the
 * migration check's statements, start the unix-socket server, and wait one timer turn (PGlite
 * holds the main thread a while after opening). Its median is subtracted from serve's.
 * Beside each whole start: the service whose first answering /health took longest, and how
 * long (a /health that checks a component for real on its first call, as the language API's
 * loads its model, is on the start's path).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allMigrations } from '../../platform/server.ts';
import { openStore } from '../../platform/storage/store.ts';
import { EMBEDDED_SHARED_BUFFERS, PGLITE_TIERING_BUDGET, V8_TIERING_BUDGET } from '../../platform/storage/database.ts';
import { services } from '../../services/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/lattice.mjs');
const RUNS = Math.max(1, Number(process.env.LATTICE_BENCH_RUNS ?? 9));
const AIM_MS = 300;
const BELL = 'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The environment of every measured process: no source mode, no stray database or ports. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of Object.keys(env)) {
    if (name === 'LATTICE_FROM_SOURCES' || name === 'DATABASE_URL' || (name.startsWith('LATTICE_') && name.endsWith('_PORT') && !(name in extra))) delete env[name];
  }
  return env;
}

/** Wall time of one process from spawn to exit; fails on a non-zero exit or a source-mode notice. */
function timeProcess(args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.trim()}`));
      else if (/running from the TypeScript sources/.test(stderr)) reject(new Error(`dist/ is stale: ${stderr.trim()}`));
      else resolve(ms);
    });
  });
}

/**
 * Whether `url` gives an HTTP answer now (any status: a 503 is a service up and saying what it
 * lacks; with `ok`, only a 200 counts); a 404 means the bench asks the wrong path, and fails it.
 */
function answers(url: string, ok = false): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 404 ? reject(new Error(`${url} answered 404`)) : resolve(!ok || res.statusCode === 200)));
    });
    req.on('error', () => resolve(false));
  });
}

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Spawns `lattice serve` and returns the time until every started service's `GET /health` has
 * answered (whatever its status but 404), each polled every 2 ms; then stops it with SIGTERM and
 * waits for its exit (not counted), so that the data dir is free for the next run.
 */
/**
 * CPU time (user + system, every thread) a process has used so far, in ms; NaN where /proc is
 * missing. On a busy machine it varies far less than wall time, so it shows a change better.
 */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // in clock ticks of 1/100 s
  } catch {
    return Number.NaN;
  }
}

/**
 * `until: 'ready'` waits instead for every service's `/ready` to answer 200: the services up and
 * the queue workers they start after answering running (no drain period at the stop: it is
 * waited only when `/ready` was polled).
 */
async function timeServe(
  ids: readonly string[],
  dataDir: string,
  cwd: string,
  cpu: number[] = [],
  until: 'health' | 'ready' = 'health',
  /** Per run, the service whose first answering request took longest, and how long it took. */
  slowest: Array<{ id: string; ms: number }> = [],
): Promise<number> {
  const ports: Record<string, string> = until === 'ready' ? { LATTICE_DRAIN_SECONDS: '0' } : {};
  const urls: string[] = [];
  for (const id of ids) {
    const port = await freePort();
    ports[`LATTICE_${id.toUpperCase().replaceAll('-', '_')}_PORT`] = String(port);
    urls.push(`http://127.0.0.1:${port}/${until}`);
  }
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve', '--only', ids.join(','), '--data-dir', dataDir], { cwd, env: cleanEnv(ports), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    let worst = { id: '', ms: -1 };
    for (const [i, url] of urls.entries()) {
      for (;;) {
        const asked = performance.now();
        if (await answers(url, until === 'ready')) {
          const ms = performance.now() - asked;
          if (ms > worst.ms) worst = { id: ids[i]!, ms };
          break;
        }
        if (gone) throw new Error(`lattice serve exited before answering: ${stderr.trim()}`);
        if (/running from the TypeScript sources/.test(stderr)) throw new Error(`dist/ is stale: ${stderr.trim()}`);
        if (performance.now() - t0 > 120_000) throw new Error(`lattice serve did not answer ${url} within 120 s`);
        await new Promise((r) => setTimeout(r, 2));
      }
    }
    slowest.push(worst);
    const wall = performance.now() - t0;
    cpu.push(cpuMs(child.pid!));
    return wall;
  } finally {
    if (!gone) child.kill('SIGTERM');
    await exited;
  }
}

// What `serve` does to open a prepared embedded store (platform/storage/store.ts, database.ts, migrate.ts).
const PROBE = `
const dir = process.argv[1];
const t0 = performance.now();
const c0 = process.cpuUsage();
const { setFlagsFromString } = await import('node:v8');
const { PGlite } = await import('@electric-sql/pglite');
setFlagsFromString('--wasm-tiering-budget=${PGLITE_TIERING_BUDGET}');
const db = await PGlite.create(dir + '/pgdata', { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=${EMBEDDED_SHARED_BUFFERS}'] });
setFlagsFromString('--wasm-tiering-budget=${V8_TIERING_BUDGET}');
await db.exec('CREATE TABLE IF NOT EXISTS lattice_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
await db.query('SELECT pg_advisory_lock(7310425)');
await db.query('SELECT id FROM lattice_migrations');
await db.query('SELECT pg_advisory_unlock(7310425)');
const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
const server = new PGLiteSocketServer({ db, path: dir + '/.s.PGSQL.5432', maxConnections: 16 });
await server.start();
await new Promise((r) => setTimeout(r, 0));
const cpu = process.cpuUsage(c0);
process.stdout.write((performance.now() - t0) + ' ' + (cpu.user + cpu.system) / 1000);
await server.stop();
await db.close();
`;

/** Milliseconds the probe spends opening the store, as it reports them. */
function timeProbe(dataDir: string, cpu: number[] = []): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', PROBE, dataDir], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const [wall, used] = out.split(' ').map(Number);
      if (code !== 0 || !(wall! > 0)) return reject(new Error(`store probe failed (${code}): ${err.trim()}`));
      cpu.push(used!);
      resolve(wall!);
    });
  });
}

// By URL: the build script is plain JavaScript without type declarations.
const { buildIfStale } = (await import(new URL('../build.mjs', import.meta.url).href)) as { buildIfStale(o?: { quiet?: boolean }): Promise<boolean> };

/**
 * One run on a current dist/, run again (up to 3 tries) when the machine changed under it: a
 * source edited between the build and the spawn, or a chosen port taken before the server
 * bound it (other programs on a shared machine edit files and open ports too).
 */
async function onCurrentDist(fn: () => Promise<number>): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    await buildIfStale({ quiet: true });
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 3 || !/dist\/ is stale|is already in use/.test(String(err))) throw err;
    }
  }
}

/** Median of RUNS runs, each on a current dist/ (rebuilt, untimed, if a source changed meanwhile). */
async function medianOf(fn: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await onCurrentDist(fn));
  return median(times);
}

function row(label: string, ms: number, floor: number, note = ''): void {
  const mark = ms < AIM_MS ? '' : `  over the ${AIM_MS} ms aim`;
  console.log(`${label.padEnd(58)} ${ms.toFixed(0).padStart(6)} ms  ${(ms / floor).toFixed(2).padStart(5)}x node -e 0${note ? `  ${note}` : ''}${mark}`);
}

export async function run(): Promise<void> {
  if (await buildIfStale({ quiet: true })) console.log('built dist/ first: it was older than the sources');
  const work = mkdtempSync(join(tmpdir(), 'lattice-bench-cli-'));
  try {
    const bell = join(work, 'bell.qasm');
    writeFileSync(bell, BELL);
    // One untimed run of each, so that every run reads warm file caches.
    await timeProcess(['-e', '0'], work);
    await timeProcess([BIN, '--help'], work);
    await timeProcess([BIN, 'circuit', 'run', bell], work);

    console.log(`-- whole-process wall time, median of ${RUNS} runs (${process.platform}, Node ${process.versions.node})`);
    const floor = await medianOf(() => timeProcess(['-e', '0'], work));
    console.log(`${'node -e 0 (the floor)'.padEnd(58)} ${floor.toFixed(0).padStart(6)} ms`);
    row('lattice --help', await medianOf(() => timeProcess([BIN, '--help'], work)), floor);
    row('lattice circuit run bell.qasm (2 qubits, 1024 shots)', await medianOf(() => timeProcess([BIN, 'circuit', 'run', bell], work)), floor);

    console.log('\n-- lattice serve, spawn to the first answer of every service it starts (GET /health, any status but 404)');
    const dataDir = join(work, 'data');
    await (await openStore({ dataDir, migrations: allMigrations(services) })).close();
    await timeProbe(dataDir);
    const probeCpu: number[] = [];
    const opening = await medianOf(() => timeProbe(dataDir, probeCpu));
    const openingCpu = median(probeCpu);
    console.log(`${'opening the embedded store alone (measured apart)'.padEnd(58)} ${opening.toFixed(0).padStart(6)} ms  (cpu ${openingCpu.toFixed(0)} ms)`);
    const all = services.map((s) => s.id);
    for (const [label, ids] of [['licensing', ['licensing']], [`all ${all.length} services`, all]] as const) {
      await onCurrentDist(() => timeServe(ids, dataDir, work));
      const serveCpu: number[] = [];
      const slowest: Array<{ id: string; ms: number }> = [];
      const full = await medianOf(() => timeServe(ids, dataDir, work, serveCpu, 'health', slowest));
      const fullCpu = median(serveCpu);
      console.log(`${`serve ${label}, whole start`.padEnd(58)} ${full.toFixed(0).padStart(6)} ms  ${(full / floor).toFixed(2).padStart(5)}x node -e 0  (cpu ${fullCpu.toFixed(0)} ms)`);
      // A /health that does real work on its first call (the language API loads its model) is part of the start above.
      const names = [...new Set(slowest.map((w) => w.id))].join(', ');
      console.log(`${`   its slowest first /health (${names})`.padEnd(58)} ${median(slowest.map((w) => w.ms)).toFixed(0).padStart(6)} ms  (median of the runs; included in the whole start)`);
      row(`serve ${label}, minus the opening`, full - opening, floor, `(cpu ${(fullCpu - openingCpu).toFixed(0)} ms)`);
      const readyCpu: number[] = [];
      const ready = await medianOf(() => timeServe(ids, dataDir, work, readyCpu, 'ready'));
      console.log(`${`serve ${label}, to every /ready 200 (queue workers running)`.padEnd(58)} ${ready.toFixed(0).padStart(6)} ms  ${(ready / floor).toFixed(2).padStart(5)}x node -e 0  (cpu ${median(readyCpu).toFixed(0)} ms)`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
