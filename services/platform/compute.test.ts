/** CPU_JOB and GPU_JOB: the command in the sandbox, its limits, its result and its charge. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestService } from '../../platform/testing/harness.ts';
import { balance, client, fund, holdsOf, settled, startPlatform } from './testing.ts';

let svc: TestService;
let c: ReturnType<typeof client>;
let accountId: string;
before(async () => {
  svc = await startPlatform();
  const k = await svc.newKey({ plan: 'prepaid' });
  accountId = k.accountId;
  await fund(svc.db, accountId, 10);
  c = client(svc.url, k.key);
});
after(() => svc.close());

async function run(body: Record<string, unknown>) {
  const s = await c.submit({ max_runtime_seconds: 20, ...body });
  assert.equal(s.status, 201, JSON.stringify(s.body));
  return (await settled(c, s.body.id)).body;
}

describe('the sandbox', () => {
  test('captures output and exit code; settles to wall-clock time x the resources asked', async () => {
    const job = await run({ type: 'CPU_JOB', command: ['sh', '-c', 'echo out; echo err >&2; exit 3'], cpus: 2, memory_gb: 2 });
    assert.equal(job.status, 'SETTLED');
    assert.equal(job.result.exit_code, 3);
    assert.equal(job.result.stdout, 'out\n');
    assert.equal(job.result.stderr, 'err\n');
    assert.equal(job.result_verified, true);
    assert.deepEqual(job.price, { basis: 'resource_hour', usd_per_hour: 0.09, cpus: 2, memory_gb: 2, gpus: 0 });
    assert.equal(job.reservation.held_usd, Math.ceil((20 / 3600) * 0.09 * 1e6) / 1e6);
    const expected = Math.ceil((job.usage_metrics.wall_clock_seconds / 3600) * 0.09 * 1e6);
    assert.ok(Math.abs(Math.round(job.charged_usd * 1e6) - expected) <= 1, `${job.charged_usd} vs ${expected}`);
    assert.equal(job.usage_metrics.cpus, 2);
    assert.equal(job.usage_metrics.qpu_seconds, null);
  });

  test('a command string is split into words and never given to a shell', async () => {
    const marker = `/tmp/lattice-injected-${process.pid}`;
    const job = await run({ type: 'CPU_JOB', command: `echo "a b" 'c;d' $HOME; touch ${marker} | cat` });
    assert.equal(job.status, 'SETTLED');
    assert.equal(job.result.stdout, `a b c;d $HOME; touch ${marker} | cat\n`);
    assert.equal(existsSync(marker), false);
  });

  test('runs in a fresh private directory with a minimal environment', async () => {
    const job = await run({ type: 'CPU_JOB', command: ['sh', '-c', 'pwd; env | sort; ls -A | wc -l'] });
    const lines = (job.result.stdout as string).trim().split('\n');
    assert.match(lines[0]!, /\/lattice-job-/);
    const env = lines.slice(1, -1).map((l) => l.split('=')[0]);
    assert.deepEqual(env.sort(), ['HOME', 'LANG', 'PATH', 'PWD', 'TMPDIR']);
    assert.equal(lines.at(-1), '0');
    assert.equal(existsSync(lines[0]!), false, 'removed afterwards');
  });

  test('the memory limit is enforced', async () => {
    const job = await run({ type: 'CPU_JOB', command: ['python3', '-c', 'x = bytearray(512 * 1024 * 1024); print("allocated")'], memory_gb: 0.25 });
    assert.equal(job.status, 'SETTLED');
    assert.notEqual(job.result.exit_code, 0);
    assert.match(job.result.stderr, /MemoryError/);
  });

  test('the wall-clock limit kills the job, which is charged its whole limit', async () => {
    const job = await run({ type: 'CPU_JOB', command: 'sleep 30', max_runtime_seconds: 1 });
    assert.equal(job.status, 'SETTLED');
    assert.equal(job.result.timed_out, true);
    assert.equal(job.result.signal, 'SIGKILL');
    assert.equal(job.usage_metrics.wall_clock_seconds, 1);
    assert.equal(job.charged_usd, job.reservation.held_usd);
  });

  test('setup runs first in the same directory; a failing setup stops the job', async () => {
    const ok = await run({ type: 'CPU_JOB', setup: ['sh', '-c', 'echo 42 > input.txt'], command: 'cat input.txt' });
    assert.equal(ok.result.stdout, '42\n');
    const failed = await run({ type: 'CPU_JOB', setup: 'false', command: 'echo never' });
    assert.equal(failed.result.failed_phase, 'setup');
    assert.equal(failed.result.stdout, '');
  });

  test('a program that does not exist fails and is charged nothing', async () => {
    const before = await balance(svc.db, accountId);
    const job = await run({ type: 'CPU_JOB', command: 'no-such-program-here --flag' });
    assert.equal(job.status, 'FAILED');
    assert.equal(job.error.code, 'command_not_started');
    assert.equal(job.charged_usd, 0);
    assert.equal(job.reservation.status, 'released');
    assert.equal(job.result_verified, false);
    assert.equal((await balance(svc.db, accountId)).availableMicros, before.availableMicros);
    const hold = (await holdsOf(svc.db, accountId)).find((h) => h.reference === job.id)!;
    assert.equal(hold.status, 'released');
  });

  test('a GPU job\'s memory is limited as its data segment (CUDA needs a large address space), still enforced', async () => {
    const job = await run({ type: 'GPU_JOB', command: ['python3', '-c', 'x = bytearray(512 * 1024 * 1024); print("allocated")'], memory_gb: 0.25 });
    assert.equal(job.status, 'SETTLED');
    assert.match(job.result.stderr, /MemoryError/);
    const fits = await run({ type: 'GPU_JOB', command: ['python3', '-c', 'x = bytearray(64 * 1024 * 1024); print("allocated")'], memory_gb: 0.5 });
    assert.equal(fits.result.stdout, 'allocated\n');
  });

  test('a GPU job runs on the CPU when the host has no GPU, and is priced per GPU-hour', async () => {
    const job = await run({ type: 'GPU_JOB', command: ['sh', '-c', 'echo "[$CUDA_VISIBLE_DEVICES]"'], gpu: 'any' });
    assert.equal(job.status, 'SETTLED');
    assert.equal(job.usage_metrics.gpus, 1);
    assert.equal(job.price.usd_per_hour, 0.04 + 0.005 + 2.5);
    if (!job.usage_metrics.gpu_available) assert.equal(job.result.stdout, '[]\n');
  });
});

describe('refusals of compute workloads change nothing', () => {
  test('bad commands, resources and mixed fields answer 4xx with their reason', async () => {
    const before = await balance(svc.db, accountId);
    const [{ n: jobsBefore }] = await svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform_jobs');
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ type: 'CPU_JOB' }, 400, 'invalid_command'],
      [{ type: 'CPU_JOB', command: 'echo "unclosed' }, 400, 'invalid_command'],
      [{ type: 'CPU_JOB', command: '   ' }, 400, 'invalid_command'],
      [{ type: 'CPU_JOB', command: 'true', cpus: 256 }, 422, 'resources_exceeded'],
      [{ type: 'CPU_JOB', command: 'true', memory_gb: 1024 }, 422, 'resources_exceeded'],
      [{ type: 'CPU_JOB', command: 'true', num_gpus: 1 }, 400, 'invalid_request'],
      [{ type: 'GPU_JOB', command: 'true', num_gpus: 0 }, 400, 'invalid_request'],
      [{ type: 'CPU_JOB', command: 'true', qasm: 'OPENQASM 2.0;' }, 400, 'invalid_request'],
      [{ type: 'CPU_JOB', command: 'true', max_runtime_seconds: 0 }, 400, 'invalid_request'],
      [{ type: 'CPU_JOB', command: 'true', cpus: 1.5 }, 400, 'invalid_request'],
    ];
    for (const [body, status, detail] of cases) {
      const r = await c.submit(body);
      assert.equal(r.status, status, `${JSON.stringify(body)} -> ${JSON.stringify(r.body)}`);
      assert.equal(r.body.detail, detail, JSON.stringify(body));
      assert.equal(typeof r.body.message, 'string');
    }
    const [{ n: jobsAfter }] = await svc.db.query<{ n: number }>('SELECT count(*)::int AS n FROM platform_jobs');
    assert.equal(jobsAfter, jobsBefore);
    assert.deepEqual(await balance(svc.db, accountId), before);
  });
});
