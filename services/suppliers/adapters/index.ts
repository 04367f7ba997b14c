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

export type Adapters = Record<SupplierId, SupplierAdapter>;

export function buildAdapters(ctx: ServiceContext, config: SuppliersConfig): Adapters {
  const fallback = (id: SupplierId): SupplierAdapter => (config.emulation ? new EmulatedAdapter(id, ctx) : new DisabledAdapter(id));
  return {
    // The HPC GPU supplier is our own simulator: always available.
    hpc_gpu: new EmulatedAdapter('hpc_gpu', ctx),
    supplier_a_quantum: config.a ? new SupplierAAdapter(config.a) : fallback('supplier_a_quantum'),
    supplier_b_quantum: config.b ? new SupplierBAdapter(config.b) : fallback('supplier_b_quantum'),
    supplier_c: config.c ? new SupplierCAdapter(config.c, ctx.now) : fallback('supplier_c'),
  };
}

export type { SupplierAdapter } from './types.ts';
