/**
 * GET /api/v1/provenance/{job_id}: the job's hashes, its lineage (the provenance chain from
 * submission to end), a verification of that chain recomputed now, and a reproducibility
 * score. Requires the enterprise license tier: the account's `enterprise` plan on this service.
 */
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { sha3 } from '../circuit.ts';
import { supplierError } from '../errors.ts';
import { refresh, resultHash, type Deps } from '../jobs.ts';
import { supplierPlan } from '../../../platform/quantum-jobs/plans.ts';
import { readProvenance, verifyChain } from '../provenance.ts';
import { findAnyJob } from '../store.ts';
import { JobIdParam } from './schemas.ts';
import { security } from './responses.ts';

export function registerProvenance(app: ServiceApp, deps: Deps): void {
  app.get('/api/v1/provenance/:job_id', { preValidation: deps.auth, schema: { security, tags: ['Provenance'], summary: 'Hashes, lineage and chain verification of a job (enterprise)', params: JobIdParam } }, async (req) => {
    const id = who(req);
    const plan = supplierPlan(id.plan);
    if (plan.name !== 'enterprise') {
      throw supplierError('LICENSE_REQUIRED', `Provenance requires the enterprise license tier; this account's plan is ${plan.name}`, { required_plan: 'enterprise', plan: plan.name });
    }
    const found = await findAnyJob(deps.ctx.db, id.accountId, req.params.job_id);
    if (!found) throw supplierError('JOB_NOT_FOUND', `Job ${req.params.job_id} not found`);
    const job = await refresh(deps, found);
    const records = await readProvenance(deps.ctx.db, job.id);
    const chain = verifyChain(records);
    // Reproducibility: what a second run would need, each checked against the stored data now.
    const checks = {
      circuit_hash_matches: sha3(job.qasm) === job.circuitHash,
      result_hash_matches: job.result ? resultHash(job.result) === job.resultHash : null,
      seed_recorded: job.result ? typeof job.result.seed === 'number' : null,
      chain_valid: chain.valid,
      deterministic_backend: job.mode === 'emulated',
    };
    const known = Object.values(checks).filter((v) => v !== null);
    const score = known.length ? known.filter(Boolean).length / known.length : 0;
    return {
      job_id: job.publicId,
      provider: job.supplier,
      backend: job.target,
      status: job.status,
      hashes: { algorithm: 'sha3-256', circuit_hash: job.circuitHash, result_hash: job.resultHash, chain_head: chain.head_hash },
      lineage: records.map((r) => ({ seq: r.seq, event: r.event, at: r.created_at, prev_hash: r.prev_hash, hash: r.hash, details: r.payload })),
      chain_verification: { ...chain, checked_at: deps.ctx.now().toISOString() },
      reproducibility_score: Math.round(score * 1000) / 1000,
      reproducibility_checks: checks,
    };
  });
}
