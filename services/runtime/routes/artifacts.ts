/**
 * GET /api/v1/runtime/jobs/{job_id}/artifacts: the files of a completed job, each with its
 * content, size and SHA3-256: `circuit.qasm` (as submitted), `executed_circuit.qasm` (as the
 * backend ran it), `result.json` (canonical JSON) and the sealed `execution_evidence.json`,
 * whose hashes pin the other three. GET .../artifacts/{name} serves one file's exact bytes, so
 * that `lattice evidence verify execution_evidence.json --hash-input result_hash=result.json`
 * can check them offline.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { sha3Hash } from '../../../platform/evidence/index.ts';
import { who } from '../auth.ts';
import { RuntimeError, runtimeError } from '../errors.ts';
import { executedCircuit, resultDocument } from '../evidence.ts';
import { statusOf } from '../views.ts';
import { security, TAG_JOBS, type RuntimeDeps } from './context.ts';
import { JobParams } from './jobs.ts';

export const ARTIFACT_NAMES = ['circuit.qasm', 'executed_circuit.qasm', 'result.json', 'execution_evidence.json'] as const;

const Artifact = Type.Object({
  name: Type.String({ enum: [...ARTIFACT_NAMES] }),
  content_type: Type.String(),
  size_bytes: Type.Integer(),
  sha3_256: Type.String({ description: '`sha3-256:<hex>` of the exact bytes' }),
  url: Type.String({ description: 'Path of the raw file' }),
  content: Type.String({ description: 'The file as UTF-8 text' }),
});

export function registerArtifacts(app: ServiceApp, deps: RuntimeDeps): void {
  /** The artifacts of the caller's completed job; 409 while it has not completed. */
  async function artifactsOf(accountId: string, id: string) {
    const { job, run, result } = await deps.jobs.read(accountId, id);
    if (!run || run.status !== 'completed' || !result) {
      const status = statusOf(job, run);
      throw runtimeError('CONFLICT', `Job ${id} is ${status}; artifacts exist once it has completed`, { status });
    }
    // The end handler seals the evidence; a read racing it finishes the same work (once).
    let bundle = await deps.jobs.evidence.existing(job.id);
    if (!bundle) {
      await deps.jobs.finished(run);
      bundle = await deps.jobs.evidence.existing(job.id);
    }
    const files: Array<[string, string, string]> = [
      ['circuit.qasm', 'text/plain; charset=utf-8', job.qasm],
      ['executed_circuit.qasm', 'text/plain; charset=utf-8', executedCircuit(job, result)],
      ['result.json', 'application/json; charset=utf-8', resultDocument(job, run, result)],
      ['execution_evidence.json', 'application/json; charset=utf-8', `${JSON.stringify(bundle, null, 2)}\n`],
    ];
    return files.map(([name, contentType, content]) => ({
      name,
      content_type: contentType,
      size_bytes: Buffer.byteLength(content, 'utf8'),
      sha3_256: sha3Hash(content),
      url: `/api/v1/runtime/jobs/${job.id}/artifacts/${name}`,
      content,
    }));
  }

  app.get(
    '/api/v1/runtime/jobs/:job_id/artifacts',
    {
      preValidation: deps.auth.read,
      schema: {
        tags: [TAG_JOBS],
        summary: "A completed job's artifacts, including the sealed execution_evidence.json",
        security,
        params: JobParams,
        response: { 200: Type.Object({ job_id: Type.String(), artifacts: Type.Array(Artifact) }), '4xx': RuntimeError },
      },
    },
    async (req) => ({ job_id: req.params.job_id, artifacts: await artifactsOf(who(req).accountId, req.params.job_id) }),
  );

  app.get(
    '/api/v1/runtime/jobs/:job_id/artifacts/:name',
    {
      preValidation: deps.auth.read,
      schema: {
        tags: [TAG_JOBS],
        summary: 'One artifact, its exact bytes',
        security,
        params: Type.Object({ job_id: JobParams.properties.job_id, name: Type.String({ enum: [...ARTIFACT_NAMES] }) }),
        response: { 200: Type.String({ description: 'The file, exactly' }), '4xx': RuntimeError },
      },
    },
    async (req, reply) => {
      const all = await artifactsOf(who(req).accountId, req.params.job_id);
      const file = all.find((a) => a.name === req.params.name)!;
      reply.type(file.content_type).header('content-disposition', `attachment; filename="${file.name}"`);
      return file.content;
    },
  );
}
