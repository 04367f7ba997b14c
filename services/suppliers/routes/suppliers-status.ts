/** GET /api/v1/suppliers/status: every supplier, whether it is configured, and its providers or targets. */
import type { ServiceApp } from '../../../platform/http/app.ts';
import { SUPPLIER_NAMES, type SupplierTarget } from '../catalog.ts';
import { SUPPLIER_IDS } from '../config.ts';
import type { Deps } from '../jobs.ts';
import { security } from './responses.ts';

export function registerSuppliersStatus(app: ServiceApp, deps: Deps): void {
  app.get('/api/v1/suppliers/status', { preValidation: deps.auth, schema: { security, tags: ['Suppliers'], summary: 'Suppliers and their providers' } }, async () => {
    const suppliers = [];
    for (const id of SUPPLIER_IDS) {
      const adapter = deps.adapters[id];
      let targets: SupplierTarget[] = [];
      let error: string | null = null;
      try {
        targets = await adapter.targets();
      } catch (err) {
        // A remote supplier that cannot be reached is reported, not fatal to the listing.
        error = (err as Error).message;
      }
      suppliers.push({
        id,
        name: SUPPLIER_NAMES[id],
        configured: adapter.mode !== 'disabled',
        enabled: adapter.mode !== 'disabled' && error === null,
        mode: adapter.mode,
        ...(error ? { error } : {}),
        providers: targets.map((t) => ({ id: t.id, name: t.name, num_qubits: t.numQubits, status: t.status })),
      });
    }
    return {
      total_suppliers: suppliers.length,
      enabled_suppliers: suppliers.filter((s) => s.enabled).length,
      configured_suppliers: suppliers.filter((s) => s.configured).length,
      total_providers: suppliers.reduce((n, s) => n + s.providers.length, 0),
      suppliers,
    };
  });
}
