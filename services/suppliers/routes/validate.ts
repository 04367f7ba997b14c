/**
 * POST /api/v1/validate: checks a circuit against targets without running it. Syntax errors,
 * gates without a definition, qubit counts above a target or the plan, shots above a target,
 * mid-circuit measurements where a target measures only at the end are errors; gates outside
 * a device's native set (translated when it runs), missing or partial measurements are warnings.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { who } from '../auth.ts';
import type { SupplierTarget } from '../catalog.ts';
import { analyzeCircuit, type CircuitInfo } from '../circuit.ts';
import type { Deps } from '../jobs.ts';
import { supplierPlan, type SupplierPlan } from '../../../platform/quantum-jobs/plans.ts';
import { pickTargets } from '../targets.ts';
import { Qasm } from './schemas.ts';
import { security } from './responses.ts';

interface Finding {
  code: string;
  message: string;
  line?: number;
  column?: number;
}

export const TargetRefs = Type.Optional(
  Type.Array(Type.Object({ provider: Type.String({ minLength: 1, maxLength: 64 }), backend: Type.String({ minLength: 1, maxLength: 512 }) }), { maxItems: 50, description: 'Targets to check; all when left out' }),
);

function checkTarget(t: SupplierTarget, info: CircuitInfo, plan: SupplierPlan, shots: number | undefined) {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  if (info.numQubits > t.numQubits) errors.push({ code: 'QUBITS_EXCEEDED', message: `${info.numQubits} qubits used; ${t.id} has ${t.numQubits}` });
  if (info.numQubits > plan.maxQubits) errors.push({ code: 'QUBITS_EXCEEDED', message: `${info.numQubits} qubits used; the ${plan.name} plan allows ${plan.maxQubits}` });
  if (shots !== undefined && shots > t.maxShots) errors.push({ code: 'SHOTS_EXCEEDED', message: `${shots} shots requested; ${t.id} allows ${t.maxShots}` });
  for (const g of info.undefinedGates) errors.push({ code: 'GATE_UNSUPPORTED', message: `Gate '${g}' has no definition and cannot run anywhere` });
  if (t.type === 'qpu' && t.basisGates.length) {
    const native = new Set([...t.basisGates, 'barrier', 'measure', 'reset']);
    const foreign = info.gateNames.filter((g) => !native.has(g) && !info.undefinedGates.includes(g));
    if (foreign.length) warnings.push({ code: 'GATES_TRANSLATED', message: `Not native to ${t.id} (${t.basisGates.join(', ')}); translated before running: ${foreign.join(', ')}` });
  }
  if (info.midCircuitMeasurement) {
    if (t.supplier === 'supplier_a_quantum') errors.push({ code: 'MID_CIRCUIT_MEASUREMENT', message: `${t.id} measures only at the end of a circuit` });
    else if (t.type === 'qpu') warnings.push({ code: 'MID_CIRCUIT_MEASUREMENT', message: 'Operations follow a measurement of the same qubit' });
  }
  return { provider: t.supplier, backend: t.id, valid: errors.length === 0, errors, warnings };
}

export function registerValidate(app: ServiceApp, deps: Deps): void {
  app.post(
    '/api/v1/validate',
    {
      preValidation: deps.auth,
      schema: {
        security, tags: ['Catalog'],
        summary: 'Validate a circuit for target backends without running it',
        body: Type.Object({ qasm: Qasm, targets: TargetRefs, shots: Type.Optional(Type.Integer({ minimum: 1, description: 'checked against each target\'s own limit (SHOTS_EXCEEDED in its errors)' })) }),
      },
    },
    async (req) => {
      const plan = supplierPlan(who(req).plan);
      const targets = await pickTargets(deps, req.body.targets);
      let info: CircuitInfo;
      try {
        info = analyzeCircuit(req.body.qasm);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const syntax: Finding = { code: 'CIRCUIT_INVALID', message: err.message, ...(err.extra.line ? { line: err.extra.line as number, column: err.extra.column as number } : {}) };
        return { valid: false, syntax: { valid: false, errors: [syntax] }, circuit: null, errors: [syntax], warnings: [], targets: [] };
      }
      const warnings: Finding[] = [];
      if (info.measurements === 0) warnings.push({ code: 'NO_MEASUREMENTS', message: 'The circuit measures nothing: its counts will hold only zeros' });
      else {
        const measured = new Set(info.circuit.ops.flatMap((o) => (o.kind === 'measure' ? [o.qubit] : [])));
        if (measured.size < info.numQubits) warnings.push({ code: 'UNMEASURED_QUBITS', message: `${info.numQubits - measured.size} of ${info.numQubits} qubits are never measured` });
      }
      const per = targets.map((t) => checkTarget(t, info, plan, req.body.shots));
      const errors: Finding[] = info.undefinedGates.map((g) => ({ code: 'GATE_UNSUPPORTED', message: `Gate '${g}' has no definition` }));
      return {
        valid: errors.length === 0 && per.some((p) => p.valid),
        syntax: { valid: true, errors: [] },
        circuit: {
          num_qubits: info.numQubits, num_clbits: info.numClbits, depth: info.depth, gates: info.gateNames,
          one_qubit_gates: info.oneQubitGates, two_qubit_gates: info.twoQubitGates, measurements: info.measurements,
        },
        errors,
        warnings,
        targets: per,
      };
    },
  );
}
