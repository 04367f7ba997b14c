/** Picks each supplier's adapter from the configuration: its real API with credentials, else emulation (unless switched off). */
import type { ServiceContext } from '../../../platform/service.ts';
import type { SupplierTarget } from '../catalog.ts';
import type { SupplierId, SuppliersConfig } from '../config.ts';
import { supplierError } from '../errors.ts';
import type { SupplierJob } from '../store.ts';
import { EmulatedAdapter } from './emulated.ts';
import { SupplierAAdapter } from './supplier-a.ts';
import { SupplierBAdapter } from './supplier-b.ts';
import { SupplierCAdapter } from './supplier-c.ts';
import type { SupplierAdapter } from './types.ts';

class DisabledAdapter implements SupplierAdapter {
  readonly mode = 'disabled' as const;
  constructor(readonly supplier: SupplierId) {}
  private refuse(): never {
    throw supplierError('SUPPLIER_NOT_CONFIGURED', `${this.supplier} has no credentials configured and emulation is switched off`, { supplier: this.supplier });
  }
  targets(): Promise<SupplierTarget[]> {
    this.refuse();
  }
  submit(): Promise<never> {
    this.refuse();
  }
  observe(_job: SupplierJob): Promise<never> {
    this.refuse();
  }
  cancel(_job: SupplierJob): Promise<never> {
    this.refuse();
  }
}

/**
 * A remote supplier's target list, kept for a short while: every estimate and execution
 * looks its target up, and a listing costs the supplier several requests.
 */
class CachedTargets implements SupplierAdapter {
  private cached: { at: number; list: Promise<SupplierTarget[]> } | null = null;
  constructor(
    private readonly inner: SupplierAdapter,
    private readonly ttlMs: number,
  ) {}
  get supplier() {
    return this.inner.supplier;
  }
  get mode() {
    return this.inner.mode;
  }
  targets(): Promise<SupplierTarget[]> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > this.ttlMs) {
      const list = this.inner.targets();
      this.cached = { at: now, list };
      // A failed listing is not kept: the next call asks again.
      list.catch(() => {
        if (this.cached?.list === list) this.cached = null;
      });
    }
    return this.cached.list;
  }
  submit(...a: Parameters<SupplierAdapter['submit']>) {
    return this.inner.submit(...a);
  }
  observe(job: SupplierJob) {
    return this.inner.observe(job);
  }
  cancel(job: SupplierJob) {
    return this.inner.cancel(job);
  }
}

/** How long a remote supplier's target list is reused. */
export const TARGETS_TTL_MS = 30_000;

export type Adapters = Record<SupplierId, SupplierAdapter>;

export function buildAdapters(ctx: ServiceContext, config: SuppliersConfig): Adapters {
  const fallback = (id: SupplierId): SupplierAdapter => (config.emulation ? new EmulatedAdapter(id, ctx) : new DisabledAdapter(id));
  return {
    // The HPC GPU supplier is our own simulator: always available.
    hpc_gpu: new EmulatedAdapter('hpc_gpu', ctx),
    supplier_a_quantum: config.a ? new CachedTargets(new SupplierAAdapter(config.a), TARGETS_TTL_MS) : fallback('supplier_a_quantum'),
    supplier_b_quantum: config.b ? new CachedTargets(new SupplierBAdapter(config.b), TARGETS_TTL_MS) : fallback('supplier_b_quantum'),
    supplier_c: config.c ? new CachedTargets(new SupplierCAdapter(config.c, ctx.now), TARGETS_TTL_MS) : fallback('supplier_c'),
  };
}

export type { SupplierAdapter } from './types.ts';
