/** Supplier C (quantum tasks): devices, estimate per shot plus task fee, execute, status and cancel, statuses in upper case. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { supplierError } from '../errors.ts';
import { cancelSupplierJob, checkShots, findTarget, priced, refresh, submitSupplierJob, type Deps } from '../jobs.ts';
import { getObject } from '../objects.ts';
import { findJob } from '../store.ts';
import { statusWord, supplierCView } from '../views.ts';
import { DevicesC, errors, EstimateC, ExecuteC, security, StatusC } from './responses.ts';
import { Qasm, Shots, TaskIdParam } from './schemas.ts';

const S = 'supplier_c' as const;
const EstimateBody = Type.Object({ qasm: Qasm, device_arn: Type.String({ minLength: 1, maxLength: 512 }), shots: Shots });
const ExecuteBody = Type.Object({
  qasm: Qasm,
  device_arn: Type.String({ minLength: 1, maxLength: 512 }),
  shots: Shots,
  storage_bucket: Type.Optional(Type.String({ minLength: 3, maxLength: 63, pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$' })),
  storage_prefix: Type.Optional(Type.String({ maxLength: 512 })),
});
const StorageParams = Type.Object({ bucket: Type.String({ minLength: 3, maxLength: 63 }), '*': Type.String({ minLength: 1, maxLength: 1024 }) });
const tags = ['Supplier C'];

export function registerSupplierC(app: ServiceApp, deps: Deps): void {
  app.get('/api/v1/supplier_c/devices', { preValidation: deps.auth, schema: { tags, summary: 'Devices', security, response: { 200: DevicesC, ...errors } } }, async () => ({
    devices: (await deps.adapters[S].targets()).map((t) => ({
      arn: t.id,
      name: t.name,
      type: t.type === 'qpu' ? 'QPU' : 'SIMULATOR',
      num_qubits: t.numQubits,
      status: t.status,
      ...(t.mode === 'emulated' ? { note: `Emulated on the Lattice simulators as ${t.backend}` } : {}),
    })),
  }));

  app.post('/api/v1/supplier_c/estimate', { preValidation: deps.auth, schema: { tags, summary: 'Cost of a task: per shot plus task fee', security, body: EstimateBody, response: { 200: EstimateC, ...errors } } }, async (req) => {
    const b = req.body;
    const t = await findTarget(deps, S, b.device_arn, 'device_arn');
    checkShots(t, b.shots);
    const { cost } = priced(t, b.qasm, b.shots);
    const free = cost.costModel === 'free';
    return {
      device: t.id, estimated_cost_usd: cost.usd, currency: 'USD', list_price_usd: cost.listMicros / 1e6, fees_usd: (cost.micros - cost.listMicros) / 1e6,
      pricing: { per_shot: free ? 0 : (cost.breakdown.per_shot as number), shots: b.shots, task_fee: free ? 0 : (cost.breakdown.task_fee as number) },
    };
  });

  app.post('/api/v1/supplier_c/execute', { preValidation: deps.auth, schema: { tags, summary: 'Create a quantum task', security, body: ExecuteBody, response: { 201: ExecuteC, ...errors } } }, async (req, reply) => {
    const b = req.body;
    const t = await findTarget(deps, S, b.device_arn, 'device_arn');
    const { job } = await submitSupplierJob(deps, {
      who: who(req), target: t, qasm: b.qasm, shots: b.shots, storage: { bucket: b.storage_bucket ?? null, prefix: b.storage_prefix ?? null },
    });
    reply.code(201);
    return { task_id: job.publicId, status: statusWord(S, job.status), device: t.id, shots: job.shots };
  });

  app.get('/api/v1/supplier_c/status/:task_id', { preValidation: deps.auth, schema: { tags, summary: 'Task status and result', security, params: TaskIdParam, response: { 200: StatusC, ...errors } } }, async (req) => {
    const job = await findJob(deps.ctx.db, who(req).accountId, S, req.params.task_id);
    if (!job) throw supplierError('JOB_NOT_FOUND', `Task ${req.params.task_id} not found`, { supplier: S });
    return supplierCView(await refresh(deps, job));
  });

  app.get('/api/v1/supplier_c/storage/:bucket/*', {
    preValidation: deps.auth,
    schema: {
      tags, security, params: StorageParams,
      summary: 'An object of the local store of emulated tasks',
      description: 'Reads back a document an emulated task wrote: `storage_result_location` `s3://{bucket}/{directory}` holds `{directory}/results.json`, ' +
        'read at `/api/v1/supplier_c/storage/{bucket}/{directory}/results.json`. Buckets are per account. With credentials, results are in the supplier\'s own object store.',
      response: errors,
    },
  }, async (req, reply) => {
    const key = req.params['*'];
    const obj = await getObject(deps.ctx.db, who(req).accountId, req.params.bucket, key);
    if (!obj) throw supplierError('NOT_FOUND', `No object ${key} in bucket ${req.params.bucket}`, { supplier: S, bucket: req.params.bucket, key });
    reply.type(obj.contentType).header('etag', `"${obj.sha3}"`).header('last-modified', obj.createdAt.toUTCString());
    // The document's bytes as stored (no response schema applies to them).
    return reply.send(obj.body as never);
  });

  app.delete('/api/v1/supplier_c/jobs/:task_id', { preValidation: deps.auth, schema: { tags, summary: 'Cancel a queued task', security, params: TaskIdParam, response: { 200: StatusC, ...errors } } }, async (req) => {
    const job = await findJob(deps.ctx.db, who(req).accountId, S, req.params.task_id);
    if (!job) throw supplierError('JOB_NOT_FOUND', `Task ${req.params.task_id} not found`, { supplier: S });
    return supplierCView(await cancelSupplierJob(deps, job));
  });
}
