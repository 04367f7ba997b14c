/**
 * POST /jobs/{id}/approve. The token is checked before anything else (a wrong one changes
 * nothing); then the estimate is held on the balance (402 when it does not cover it: the job
 * keeps waiting and may be approved again after a top-up), and the job is submitted. Of
 * concurrent approvals (or an approval racing a cancel) one conditional UPDATE wins; a loser
 * that already placed its hold gives it back at once.
 */
import { BillingError, placeHold, releaseHold } from '../../platform/billing/index.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { runtimeError } from './errors.ts';
import { SERVICE, type RuntimeLifecycle } from './lifecycle.ts';
import { selectRuntimeJob, tokenMatches, transition, type RuntimeJob } from './records.ts';

/** How long a hold stays good before repair may count its work as dead (a device queue can be long). */
const HOLD_HOURS = 24;

const OWNER = `runtime@${process.pid}`;

async function notWaiting(jobs: RuntimeLifecycle, job: RuntimeJob): Promise<Error> {
  const status = await jobs.statusOf(job);
  const why = job.phase === 'validating' ? 'is still being validated; approve it once it is awaiting_approval' : job.phase === 'submitted' ? 'is already approved' : `is ${status}`;
  return runtimeError('CONFLICT', `Job ${job.id} ${why}`, { status });
}

export async function approveJob(ctx: ServiceContext, jobs: RuntimeLifecycle, who: Identity, id: string, token: string): Promise<RuntimeJob> {
  const job = await jobs.find(who.accountId, id);
  if (!job.approvalRequired) {
    throw runtimeError('CONFLICT', `Job ${id} runs on a simulator and needs no approval`, { status: await jobs.statusOf(job) });
  }
  if (!tokenMatches(token, job.approvalTokenHash)) {
    throw runtimeError('INVALID_APPROVAL_TOKEN', 'The approval token does not match this job; the job keeps waiting for approval');
  }
  if (job.phase !== 'awaiting_approval') throw await notWaiting(jobs, job);
  const micros = job.estimatedMicros!;
  let hold;
  try {
    hold = await placeHold(ctx.db, {
      accountId: job.accountId,
      service: SERVICE,
      reference: job.id,
      micros,
      owner: OWNER,
      expiresAt: new Date(ctx.now().getTime() + HOLD_HOURS * 3_600_000),
    });
  } catch (err) {
    if (err instanceof BillingError && err.code === 'insufficient_credits') {
      throw runtimeError('INSUFFICIENT_CREDITS', `Approving job ${id} holds $${micros / 1e6}, more than the account's available credits; it keeps waiting for approval`, {
        credits_required: micros / 1e6,
      });
    }
    throw err;
  }
  const now = ctx.now();
  const approved = await transition(ctx.db, job.id, ['awaiting_approval'], 'submitted', now, { hold_id: hold.id, approved_at: now, approved_by: who.keyId });
  if (!approved) {
    // Another approval or a cancel came first: this hold pays for nothing.
    await releaseHold(ctx.db, hold.id);
    throw await notWaiting(jobs, (await selectRuntimeJob(ctx.db, id, who.accountId))!);
  }
  await jobs.run(approved);
  return approved;
}
