/**
 * Core's evidence bundles on the shared evidence module: issued when an optimize job that
 * asked for evidence completes, stored as issued, verified with a verdict per check, exported.
 *
 * Bundle (spec, plus what makes it useful to an auditor): `{bundle_id, version: "3.0",
 * created_at, job_id, circuit_hash, execution_proof {backend, shots, timestamp,
 * optimization_level, execution_time_ms, results_hash}, signatures {algorithm, signature},
 * key_id}`. `circuit_hash` pins the QASM text exactly as submitted; `results_hash` pins the
 * canonical JSON of the results' counts; `execution_proof.timestamp` is when the run finished.
 */
import {
  bundleForSubject,
  EvidenceKeys,
  exportBundle,
  loadBundle,
  newBundleId,
  saveBundle,
  sealBundle,
  sha3Hash,
  sha3HashJson,
  verifyBundle,
  type Bundle,
  type CheckResult,
  type ExportFormat,
  type ExportedBundle,
  type PublicKeysDocument,
  type StoredBundle,
} from '../../platform/evidence/index.ts';
import type { ServiceContext } from '../../platform/service.ts';

export const BUNDLE_VERSION = '3.0';

// Advisory-lock namespace of bundle issuing (one bundle per job across processes).
const EVIDENCE_LOCK = 7_310_933;

/** What a bundle is made from: the finished job. */
export interface EvidenceSubject {
  jobId: string;
  accountId: string;
  qasm: string;
  backend: string;
  shots: number;
  optimizationLevel: number;
  completedAt: Date;
  executionTimeMs: number;
  counts: Record<string, number>;
}

export interface CoreVerification {
  valid: boolean;
  checks: Record<string, CheckResult>;
  key_id: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class CoreEvidence {
  readonly keys: EvidenceKeys;

  constructor(private readonly ctx: ServiceContext) {
    this.keys = new EvidenceKeys(ctx.db, 'core');
  }

  /**
   * Seals and stores the bundle of a finished job and returns its id; once per job, whoever
   * asks first (the finished-job handler, or a read that finds the job completed before the
   * handler ran): a transaction-scoped advisory lock on the job orders concurrent issuers.
   */
  async issue(subject: EvidenceSubject): Promise<string> {
    const existing = await bundleForSubject(this.ctx.db, { service: 'core', subjectId: subject.jobId });
    if (existing) return existing.bundle_id;
    // Sealed before the transaction: signing reads the key store, which on the embedded store
    // cannot be reached while a transaction holds its only connection.
    const bundleId = newBundleId('evb');
    const createdAt = new Date(Math.max(this.ctx.now().getTime(), subject.completedAt.getTime()));
    const bundle = await sealBundle(this.keys, 'core', {
      bundle_id: bundleId,
      version: BUNDLE_VERSION,
      created_at: createdAt.toISOString(),
      job_id: subject.jobId,
      circuit_hash: sha3Hash(subject.qasm),
      execution_proof: {
        backend: subject.backend,
        shots: subject.shots,
        timestamp: subject.completedAt.toISOString(),
        optimization_level: subject.optimizationLevel,
        execution_time_ms: Math.round(subject.executionTimeMs * 1000) / 1000,
        results_hash: sha3HashJson(subject.counts),
      },
    });
    return this.ctx.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [EVIDENCE_LOCK, subject.jobId]);
      const first = await bundleForSubject(tx, { service: 'core', subjectId: subject.jobId });
      if (first) return first.bundle_id;
      await saveBundle(tx, { bundleId, service: 'core', kind: 'core', accountId: subject.accountId, subjectId: subject.jobId, bundle });
      return bundleId;
    });
  }

  /** The account's bundle, or null (another account's bundle is not found either). */
  get(accountId: string, bundleId: string): Promise<StoredBundle | null> {
    return loadBundle(this.ctx.db, { service: 'core', bundleId, accountId });
  }

  publicKeys(): Promise<PublicKeysDocument> {
    return this.keys.publicKeys();
  }

  export(bundle: Bundle, format: ExportFormat): Promise<ExportedBundle> {
    return exportBundle(bundle, format);
  }

  /**
   * Verifies a bundle: the ML-DSA signature against this service's published keys, the
   * `hash` check, and the `timestamp` check. When this service issued a bundle with the same
   * id, the hashes are also compared with the circuit and results it ran (`inputs`) and the
   * times with those it recorded, so that a changed byte in those fields fails the check that
   * names them, not only the signature.
   */
  async verify(bundle: unknown, inputs: (jobId: string) => Promise<{ qasm: string; counts: Record<string, number> | null } | null>): Promise<CoreVerification> {
    const published = await this.publicKeys();
    const issued = isObject(bundle) && typeof bundle.bundle_id === 'string' ? await loadBundle(this.ctx.db, { service: 'core', bundleId: bundle.bundle_id }) : null;
    const ran = issued?.subject_id ? await inputs(issued.subject_id) : null;
    const result = await verifyBundle(bundle, {
      keys: published,
      kind: 'core',
      hashInputs: ran ? { circuit_hash: ran.qasm } : {},
      now: this.ctx.now(),
    });
    const checks = { ...result.checks };
    if (issued && isObject(bundle)) {
      const proof = isObject(bundle.execution_proof) ? bundle.execution_proof : {};
      const recorded = isObject(issued.bundle.execution_proof) ? issued.bundle.execution_proof : {};
      if (checks.hash?.verdict === 'valid' && ran?.counts && proof.results_hash !== sha3HashJson(ran.counts)) {
        checks.hash = { verdict: 'invalid', reason: 'execution_proof.results_hash does not match the SHA3-256 of the results this job produced' };
      }
      if (checks.timestamp?.verdict === 'valid') {
        if (bundle.created_at !== issued.bundle.created_at) {
          checks.timestamp = { verdict: 'invalid', reason: 'created_at differs from the time recorded when the bundle was issued' };
        } else if (proof.timestamp !== recorded.timestamp) {
          checks.timestamp = { verdict: 'invalid', reason: 'execution_proof.timestamp differs from the time the execution was recorded' };
        }
      }
    }
    return { valid: Object.values(checks).every((c) => c.verdict === 'valid'), checks, key_id: result.key_id };
  }
}
