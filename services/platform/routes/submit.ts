/**
 * POST /api/v1/platform/execution/jobs — submit a workload. The job row and its hold are
 * written in one transaction, keyed by the account's Idempotency-Key: a retry with the same
 * key and body collides with the row (or waits on its insert), holds nothing and replays the
 * first answer with 200,
 * so it can never submit or reserve twice; the same key with another body is refused (409
 * `idempotency_key_reused`). A request refused for any reason writes and holds nothing.
 */
import { BillingError, microsToUsd, availableMicros, placeHold } from '../../../platform/billing/index.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { sha256Hex } from '../../../engines/crypto/encoding.ts';
import { canonicalJson } from '../../../platform/evidence/index.ts';
import { newId } from '../../../platform/identity/ids.ts';
import { Type } from 'typebox';
import { who } from '../auth.ts';
import { platformError, PlatformErrorBody } from '../errors.ts';
import { platformPlan } from '../plans.ts';
import { worstCaseMicros } from '../pricing.ts';
import { checkCircuit, SERVICE, startCircuit } from '../quantum.ts';
import { sandboxAvailable } from '../sandbox.ts';
import { insertJob, selectByIdempotencyKey, type PlatformJob } from '../store.ts';
import { jobView, PlatformJobOut } from '../views.ts';
import { acceptWorkload, WorkloadIn, type WorkloadBody } from '../workload.ts';
import { security, TAG, type PlatformDeps } from './context.ts';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
// A hold outlives its job's wall-clock limit by a day: repair extends the holds of live jobs.
const HOLD_GRACE_MS = 24 * 3_600_000;

const KNOWN_FIELDS = new Set(Object.keys(WorkloadIn.properties));

/**
 * The validator drops unknown properties silently; a workload with a misspelt field (`shot`)
 * would then run with a default, so unknown fields are refused before it runs.
 */
async function refuseUnknownFields(req: { body: unknown }): Promise<void> {
  const body = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const unknown = Object.keys(body).filter((k) => !KNOWN_FIELDS.has(k));
  if (unknown.length) throw platformError('invalid_request', `Unknown workload field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, { fields: unknown });
}

function replay(existing: PlatformJob, requestHash: string) {
  if (existing.requestHash !== requestHash) {
    throw platformError('idempotency_key_reused', 'This Idempotency-Key was used with another request body', { job_id: existing.id });
  }
  return JSON.parse(existing.firstResponse) as ReturnType<typeof jobView>;
}

export function registerSubmit(app: ServiceApp, deps: PlatformDeps): void {
  const { ctx } = deps;
  app.post(
    '/api/v1/platform/execution/jobs',
    {
      preValidation: [...deps.auth, refuseUnknownFields],
      schema: {
        tags: [TAG],
        summary: 'Submit a workload',
        description:
          'Runs a QUANTUM_CIRCUIT on the job system, or the `command` of a CPU_JOB / GPU_JOB in the sandbox. On the prepaid plan the ' +
          'worst case (the whole wall-clock limit, every shot) is held on the balance first; the job is settled to what it measured. ' +
          'Send `Idempotency-Key` so that a retried request never submits or reserves twice: 201 for a new job, 200 for a replay.',
        security,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: 'Up to 255 visible ASCII characters, unique per account' })) }),
        body: WorkloadIn,
        response: { 200: PlatformJobOut, 201: PlatformJobOut, '4xx': PlatformErrorBody, '5xx': PlatformErrorBody },
      },
    },
    async (req, reply) => {
      const id = who(req);
      const plan = platformPlan(id.plan);
      const body = req.body as WorkloadBody;
      const rawKey = req.headers['idempotency-key'];
      const idemKey = typeof rawKey === 'string' ? rawKey : null;
      if (idemKey !== null && !IDEMPOTENCY_KEY.test(idemKey)) {
        throw platformError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters', {});
      }
      const requestHash = sha256Hex(canonicalJson(body));
      // No read of the key up front: the insert below finds a taken key (retries are rare, every
      // submission would pay for the read), before any hold is tried.
      const replayOf = async () => {
        const existing = idemKey ? await selectByIdempotencyKey(ctx.db, id.accountId, idemKey) : null;
        if (existing) reply.header('idempotent-replayed', 'true');
        return existing ? replay(existing, requestHash) : null;
      };

      const accepted = await acceptWorkload(body, plan);
      const prepared = accepted.workload.circuit ? await checkCircuit(ctx, accepted.workload.circuit) : undefined;
      if (!accepted.workload.circuit && !sandboxAvailable()) throw platformError('sandbox_unavailable', 'This host cannot apply the sandbox limits (prlimit is missing)');
      const now = ctx.now();
      const worst = worstCaseMicros(accepted.price, accepted.workload.max_runtime_seconds, accepted.workload.circuit?.shots ?? 0);
      const job: PlatformJob = {
        id: newId('pjob'),
        accountId: id.accountId,
        keyId: id.keyId,
        idempotencyKey: idemKey,
        requestHash,
        type: accepted.workload.type,
        status: 'QUEUED',
        billingMode: plan.billingMode,
        plan: plan.name,
        workload: accepted.workload,
        backend: accepted.backend?.id ?? null,
        price: accepted.price,
        holdId: null,
        heldMicros: plan.holds ? worst : 0,
        chargedMicros: null,
        firstResponse: '',
        owner: null,
        leaseUntil: null,
        usageMetrics: null,
        result: null,
        resultHash: null,
        evidenceHash: null,
        evidenceBundleId: null,
        error: null,
        createdAt: now,
        startedAt: null,
        finishedAt: null,
        settledAt: null,
        cancelRequestedAt: null,
      };
      const answer = jobView(job);
      job.firstResponse = JSON.stringify(answer);
      let inserted: boolean;
      try {
        // The job row first, then the hold it names: the order in which settlement locks them
        // too (job, then balance), so a retry waiting on a job being settled holds no balance.
        if (plan.holds) job.holdId = newId('hold');
        inserted = await ctx.db.transaction(async (tx) => {
          if (!(await insertJob(tx, job))) return false;
          if (plan.holds) {
            await placeHold(tx, {
              id: job.holdId!,
              accountId: id.accountId,
              service: SERVICE,
              reference: job.id,
              micros: worst,
              owner: 'platform',
              expiresAt: new Date(now.getTime() + job.workload.max_runtime_seconds * 1000 + HOLD_GRACE_MS),
            });
          }
          return true;
        });
      } catch (err) {
        if (err instanceof BillingError && err.code === 'insufficient_credits') {
          const available = await availableMicros(ctx.db, id.accountId);
          throw platformError('insufficient_credits', `This job holds up to $${microsToUsd(worst)} and the balance is $${microsToUsd(available)}`, {
            required_usd: microsToUsd(worst),
            available_usd: microsToUsd(available),
          });
        } else throw err;
      }
      // The key was taken (by an earlier or a concurrent request): this one is its retry.
      if (!inserted) return (await replayOf())!;
      if (job.workload.circuit) await startCircuit(ctx, job, prepared);
      else deps.compute.kick();
      reply.code(201);
      return answer;
    },
  );
}
