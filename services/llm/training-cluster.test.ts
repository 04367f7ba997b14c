/**
 * Three `lattice serve` processes on one PostgreSQL training LoRA jobs of the language API: when
 * the process training one is killed with SIGKILL, every job still ends `completed`, once (one
 * adapter and one training.completed event per job), readable through the survivors, within a
 * bound of seconds set by the job's lease, not the queue's 30-minute expiry.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { issueFeatureKey } from '../../platform/licenses/feature-keys.ts';
import { call } from '../../platform/testing/harness.ts';
import { clusterKey, clusterTestServer, eventually, startCluster, type Cluster } from '../../platform/testing/cluster.ts';
import { LEASE_SECONDS, RECOVER_MS } from './training/lease.ts';

const { url: pg, skip } = await clusterTestServer();

interface Delivery {
  id: string;
  event: string;
  job_id: string;
}

describe('three processes training LoRA jobs of the language API', { skip }, () => {
  let cluster: Cluster;
  let receiver: Server;
  let hookUrl = '';
  const received: Delivery[] = [];
  before(async () => {
    receiver = createServer((r, res) => {
      let body = '';
      r.on('data', (c) => (body += c));
      r.on('end', () => {
        const payload = JSON.parse(body) as { id: string; event?: string; type?: string; data: { job_id: string } };
        received.push({ id: payload.id, event: payload.event ?? payload.type ?? '', job_id: payload.data.job_id });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const addr = receiver.address();
    hookUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/`;
    cluster = await startCluster(pg!, { services: ['llm'] });
  });
  after(async () => {
    await cluster?.close();
    receiver?.close();
  });

  test('jobs accepted before the process training one is killed with SIGKILL all complete once, readable through the survivors', async () => {
    const url = (i: number) => cluster.processes[i % cluster.processes.length]!.urls.llm!;
    const { key: admin } = await clusterKey(cluster.db, 'llm', 'lq', 'enterprise', 'admin');
    const license = (await issueFeatureKey(cluster.db, { service: 'llm', features: ['lora_training'] })).license_key;
    const as = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });
    const hook = await call(`${url(0)}/v1/webhooks`, { headers: as(admin), body: { url: hookUrl, events: ['training.completed', 'training.failed'], secret: 'cluster' } });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    // Four tenants, each with enough corrections to train on; requests spread over the three.
    const tenants: { id: string; key: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(`${url(i)}/v1/tenants`, { headers: as(admin), body: { name: `t${i}`, slug: `t${i}`, tier: 'enterprise', settings: { min_feedback_count: 4 } } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      tenants.push({ id: r.body.id, key: r.body.api_key });
    }
    for (const [i, t] of tenants.entries()) {
      for (const [k, s] of ['wing', 'shell', 'nozzle', 'plate', 'cone', 'jet', 'panel', 'inlet'].entries()) {
        const r = await call(`${url(i + k)}/v1/tenants/${t.id}/feedback`, { headers: as(t.key), body: { type: 'correction', correction: `zulu ${s} ${i}`, metadata: { prompt: `code word for ${s}` } } });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
    }
    // Long enough (60 steps) that the job picked below is still training when its process dies.
    const jobs: { tenant: { id: string; key: string }; id: string }[] = [];
    for (const [i, t] of tenants.entries()) {
      const r = await call(`${url(i)}/v1/tenants/${t.id}/train/lora`, {
        headers: as(t.key, { 'x-license-key': license }),
        body: { epochs: 30, batch_size: 4, lora_r: 2, lora_alpha: 4, learning_rate: 0.02 },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.status, 'queued');
      jobs.push({ tenant: t, id: r.body.job_id });
    }

    // The process holding the lease of a job in the middle of its training: its pid is in the owner.
    const victim = await eventually(
      'a job in the middle of training',
      async () => {
        const [row] = await cluster.db.query<{ id: string; lease_owner: string }>(
          `SELECT id, lease_owner FROM llm_training_jobs WHERE id = ANY($1) AND status = 'running' AND progress > 0 AND progress < 0.5 ORDER BY progress LIMIT 1`,
          [jobs.map((j) => j.id)],
        );
        return row;
      },
      120_000,
    );
    const pid = Number(victim.lease_owner.split(':').at(-2));
    const killed = cluster.processes.find((p) => p.pid === pid);
    assert.ok(killed, `the lease owner ${victim.lease_owner} is one of the cluster's processes`);
    await killed.kill('SIGKILL');
    const killedAt = Date.now();
    const survivors = cluster.processes.filter((p) => p.alive);
    assert.equal(survivors.length, 2);

    // Re-queued by the leader once the lease runs out, and trained by a survivor: seconds, where
    // the queue's own expiry would take 30 minutes. The bound leaves room for a loaded machine.
    const retaken = await eventually(
      `job ${victim.id} taken by a survivor`,
      async () => {
        const [row] = await cluster.db.query<{ attempts: number; lease_owner: string; started_at: Date }>(
          `SELECT attempts, lease_owner, started_at FROM llm_training_jobs WHERE id = $1 AND attempts = 2 AND status IN ('running', 'completed')`,
          [victim.id],
        );
        return row;
      },
      (LEASE_SECONDS + RECOVER_MS / 1000) * 1000 + 60_000,
    );
    assert.notEqual(Number(retaken.lease_owner.split(':').at(-2)), pid);
    console.log(`job ${victim.id} retaken ${((new Date(retaken.started_at).getTime() - killedAt) / 1000).toFixed(1)} s after the SIGKILL (lease ${LEASE_SECONDS} s)`);

    for (const [i, job] of jobs.entries()) {
      const p = survivors[i % survivors.length]!;
      const done = await eventually(
        `job ${job.id} finished`,
        async () => {
          const r = await call(`${p.urls.llm}/v1/tenants/${job.tenant.id}/train/${job.id}`, { headers: as(job.tenant.key) });
          return r.status === 200 && ['completed', 'failed'].includes(r.body.status) && r.body;
        },
        240_000,
      );
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal(done.progress, 1);
      assert.equal(done.current_epoch, 30);
      assert.equal(done.attempts, job.id === victim.id ? 2 : 1, JSON.stringify(done));
      // The survivors' chats use the job's adapter.
      const chat = await call(`${p.urls.llm}/v1/chat/completions`, {
        headers: as(job.tenant.key),
        body: { model: 'lattice-tiny', messages: [{ role: 'user', content: 'code word for wing' }], max_tokens: 8, temperature: 0 },
      });
      assert.equal(chat.status, 200, JSON.stringify(chat.body));
      assert.equal(chat.body.meta.adapter, job.id);
    }

    // Exactly once: one adapter per job, each tenant on its own job's adapter, no event left pending.
    const rows = await cluster.db.query<{ id: string; status: string; has_adapter: boolean; event_pending: boolean; adapter_job_id: string }>(
      `SELECT j.id, j.status, j.adapter IS NOT NULL AS has_adapter, j.event_pending, t.adapter_job_id
         FROM llm_training_jobs j JOIN llm_tenants t ON t.id = j.tenant_id WHERE j.id = ANY($1)`,
      [jobs.map((j) => j.id)],
    );
    assert.equal(rows.length, jobs.length);
    for (const r of rows) assert.deepEqual({ status: r.status, has_adapter: r.has_adapter, pending: r.event_pending, adapter: r.adapter_job_id }, { status: 'completed', has_adapter: true, pending: false, adapter: r.id });
    // One training.completed event per job (deliveries are at least once, under one event id), none failed.
    await eventually('an event for every job', async () => jobs.every((j) => received.some((d) => d.job_id === j.id)));
    for (const job of jobs) {
      const events = new Set(received.filter((d) => d.job_id === job.id).map((d) => `${d.event} ${d.id}`));
      assert.equal(events.size, 1, `job ${job.id}: ${[...events].join(', ')}`);
      assert.match([...events][0]!, /^training\.completed evt_/);
    }
  });
});
