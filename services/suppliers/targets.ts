/** Every target of every supplier in one list (remote suppliers that cannot be reached are left out and named). */
import type { SupplierTarget } from './catalog.ts';
import { SUPPLIER_IDS, type SupplierId } from './config.ts';
import { supplierError } from './errors.ts';
import type { Deps } from './jobs.ts';

export async function allTargets(deps: Deps): Promise<{ targets: SupplierTarget[]; unavailable: Array<{ provider: SupplierId; detail: string }> }> {
  const targets: SupplierTarget[] = [];
  const unavailable: Array<{ provider: SupplierId; detail: string }> = [];
  for (const id of SUPPLIER_IDS) {
    if (deps.adapters[id].mode === 'disabled') continue;
    try {
      targets.push(...(await deps.adapters[id].targets()));
    } catch (err) {
      unavailable.push({ provider: id, detail: (err as Error).message });
    }
  }
  return { targets, unavailable };
}

export interface TargetRef {
  provider: string;
  backend: string;
}

/** The named targets (each `{provider, backend}`), or all of them when none is named. */
export async function pickTargets(deps: Deps, refs: readonly TargetRef[] | undefined): Promise<SupplierTarget[]> {
  const { targets } = await allTargets(deps);
  if (!refs || refs.length === 0) return targets;
  return refs.map((r) => {
    const t = targets.find((x) => x.supplier === r.provider && x.id === r.backend);
    if (!t) throw supplierError('INVALID_PARAMETERS', `Unknown target '${r.backend}' of provider '${r.provider}' (see GET /api/v1/backends/all)`, { provider: r.provider, backend: r.backend });
    return t;
  });
}
