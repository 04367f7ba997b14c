/**
 * GET /health (no key) — `status`, `version` and real checks of each component: the database
 * answers a query; inference loads the default chat model and tokenizes with it (an upstream
 * model is only reported, not called); quantum runs a two-qubit fidelity-kernel circuit on
 * the statevector simulator and checks it against its closed form. `status` is `healthy`
 * when every check passes, else `degraded`; `starting` while the model is still loading
 * (`lattice serve` loads it after every service listens, and /ready waits for it): that check
 * says `loading` at once instead of holding the answer until the load ends.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { TAG, type QDeps } from './context.ts';

export const VERSION = '2.1.0';

interface Check {
  status: 'ok' | 'error' | 'loading';
  latency_ms: number;
  detail: string;
}

async function timed(fn: () => Promise<string>): Promise<Check> {
  const t = performance.now();
  try {
    const detail = await fn();
    return { status: 'ok', latency_ms: Math.round((performance.now() - t) * 10) / 10, detail };
  } catch (err) {
    return { status: 'error', latency_ms: Math.round((performance.now() - t) * 10) / 10, detail: (err as Error).message };
  }
}

/** The default chat model loads and tokenizes; a load already under way is reported, not waited for. */
async function inferenceCheck(deps: QDeps): Promise<Check> {
  const m = deps.language.model(deps.language.config.default_chat_model, 'chat');
  if (m.provider !== 'local') return timed(async () => `${m.id} is served upstream by ${m.base_url}; not called by health`);
  const { isModelLoading, loadModel } = await import('../../../engines/language/local/runtime.ts');
  // Under `lattice serve` the load waits for every service to listen; asked before, it is loading too.
  if (deps.warmingUp() || isModelLoading(m.path ?? '')) return { status: 'loading', latency_ms: 0, detail: `${m.id} is loading (llama.cpp, CPU)` };
  return timed(async () => {
    const model = await loadModel(m.path ?? '');
    const n = model.tokenize('health check').length;
    if (n === 0) throw new Error(`${m.id} tokenized nothing`);
    return `${m.id} loaded (llama.cpp, CPU), tokenizer ok`;
  });
}

const CheckSchema = Type.Object({ status: Type.String({ description: 'ok, error, or loading (the model is loading; asked again later, it says ok or error)' }), latency_ms: Type.Number(), detail: Type.String() });

export function registerHealth(app: ServiceApp, deps: QDeps): void {
  app.get(
    '/health',
    {
      schema: {
        tags: [TAG.admin],
        summary: 'Health with real checks of the database, inference and the quantum simulator',
        response: {
          200: Type.Object({
            status: Type.String({ description: 'healthy, degraded, or starting (a component is still loading)' }),
            version: Type.String(),
            components: Type.Object({ api: CheckSchema, database: CheckSchema, inference: CheckSchema, quantum: CheckSchema }),
          }),
        },
      },
    },
    async () => {
      const api: Check = { status: 'ok', latency_ms: 0, detail: `serving ${VERSION}` };
      const [database, inference, quantum] = await Promise.all([
        timed(async () => {
          await deps.ctx.db.query('SELECT 1');
          return `${deps.ctx.db.kind} answers`;
        }),
        inferenceCheck(deps),
        timed(async () => {
          const { fidelityKernel } = await import('../../../engines/language/rerank/quantum.ts');
          // RY(π/4·x) twice around a CX ring of two qubits; x=(1,1) against itself has fidelity 1.
          const same = fidelityKernel([1, 1], [1, 1]);
          const other = fidelityKernel([1, 1], [0, 0]);
          if (Math.abs(same - 1) > 1e-9 || !(other >= 0 && other < 1)) throw new Error(`fidelity kernel gave ${same} and ${other}`);
          return `statevector simulator (CPU): kernel(x, x) = 1, kernel(x, 0) = ${other.toFixed(4)}`;
        }),
      ]);
      const checks = [database, inference, quantum];
      const status = checks.some((c) => c.status === 'error') ? 'degraded' : checks.some((c) => c.status === 'loading') ? 'starting' : 'healthy';
      return { status, version: VERSION, components: { api, database, inference, quantum } };
    },
  );
}
