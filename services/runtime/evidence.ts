/**
 * `execution_evidence.json` of a completed runtime job, sealed by the evidence module (kind
 * `runtime`: ML-DSA-65 over the RFC 8785 canonical JSON of the bundle without `signature`),
 * issued once per job and verifiable offline with the keys published at
 * `/api/v1/runtime/evidence/keys`. It pins the circuit as submitted (`qasm_hash`), the exact
 * bytes of the `result.json` artifact (`result_hash`) and the circuit the device ran.
 */
import {
  bundleForSubject,
  canonicalJson,
  EvidenceKeys,
  newBundleId,
  saveBundle,
  sealBundle,
  sha3Hash,
  type Bundle,
  type PublicKeysDocument,
} from '../../platform/evidence/index.ts';
import type { QuantumJob, TaskResult } from '../../platform/quantum-jobs/index.ts';
import type { Database } from '../../platform/storage/database.ts';
import type { RuntimeJob } from './records.ts';

export const EVIDENCE_VERSION = '1.0';

// Advisory-lock namespace of bundle issuing: one bundle per job across processes.
const EVIDENCE_LOCK = 7_310_966;

/** The `result.json` artifact: canonical JSON, so that its bytes (and hash) never depend on who wrote them. */
export function resultDocument(job: RuntimeJob, run: QuantumJob<unknown>, result: TaskResult): string {
  return canonicalJson({
    job_id: job.id,
    backend_id: job.backendId,
    shots: result.shots,
    counts: result.counts,
    num_qubits: result.num_qubits,
    num_clbits: result.num_clbits,
    method: result.method,
    seed: result.seed,
    execution_time_ms: result.execution_time_ms,
    completed_at: run.finishedAt?.toISOString() ?? null,
  });
}

/** The circuit the device ran (the transpiled one), or the submitted one when nothing was transpiled. */
export function executedCircuit(job: RuntimeJob, result: TaskResult | null): string {
  return result?.optimization?.optimized_circuit ?? job.prepared?.optimized_circuit ?? job.qasm;
}

export class RuntimeEvidence {
  readonly keys: EvidenceKeys;

  constructor(private readonly db: Database) {
    this.keys = new EvidenceKeys(db, 'runtime');
  }

  /** The job's bundle, sealing and storing it first when the job has none yet. */
  async issue(job: RuntimeJob, run: QuantumJob<unknown>, result: TaskResult, now: Date): Promise<Bundle> {
    const existing = await bundleForSubject(this.db, { service: 'runtime', subjectId: job.id });
    if (existing) return existing.bundle;
    const completedAt = run.finishedAt ?? now;
    const createdAt = new Date(Math.max(now.getTime(), completedAt.getTime()));
    // Sealed before the transaction: signing reads the key store, which on the embedded store
    // cannot be reached while a transaction holds its only connection.
    const bundle = await sealBundle(this.keys, 'runtime', {
      evidence_version: EVIDENCE_VERSION,
      bundle_id: newBundleId('rte'),
      job_id: job.id,
      backend_id: job.backendId,
      shots: job.shots,
      qasm_hash: sha3Hash(job.qasm),
      executed_circuit_hash: sha3Hash(executedCircuit(job, result)),
      result_hash: sha3Hash(resultDocument(job, run, result)),
      approval: { required: job.approvalRequired, approved_at: job.approvedAt?.toISOString() ?? null },
      cost: {
        currency: 'USD',
        estimated_usd: (job.estimatedMicros ?? 0) / 1e6,
        charged_usd: (job.chargedMicros ?? 0) / 1e6,
      },
      created_at: createdAt.toISOString(),
      completed_at: completedAt.toISOString(),
    });
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [EVIDENCE_LOCK, job.id]);
      const first = await bundleForSubject(tx, { service: 'runtime', subjectId: job.id });
      if (first) return first.bundle;
      await saveBundle(tx, { bundleId: bundle.bundle_id as string, service: 'runtime', kind: 'runtime', accountId: job.accountId, subjectId: job.id, bundle });
      return bundle;
    });
  }

  async existing(jobId: string): Promise<Bundle | null> {
    return (await bundleForSubject(this.db, { service: 'runtime', subjectId: jobId }))?.bundle ?? null;
  }

  publicKeys(): Promise<PublicKeysDocument> {
    return this.keys.publicKeys();
  }
}
