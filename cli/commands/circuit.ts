/** `lattice circuit run`: parse an OpenQASM file (or stdin) and sample it on one of the simulators. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { getBackend, parseQasm, run } from '../../engines/quantum/index.ts';
import type { Method } from '../../engines/quantum/index.ts';

const METHODS = ['statevector', 'density_matrix', 'mps'];

function intOption(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new Error(`--${name} must be an integer, got '${v}'`);
  return Number(v);
}

function readInput(file: string): string {
  return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
}

export function register(program: Command): void {
  const circuit = program.commands.find((c) => c.name() === 'circuit') ?? program.command('circuit').description('OpenQASM circuits: run and optimize');
  circuit
    .command('run')
    .description('simulate an OpenQASM 2/3 circuit and print counts')
    .argument('<file>', "OpenQASM file, or '-' for standard input")
    .option('--shots <n>', 'number of shots', '1024')
    .option('--seed <s>', 'seed for reproducible shots')
    .option('--method <m>', 'statevector | density_matrix | mps', 'statevector')
    .option('--noise <backend>', 'emulate the noise of this backend id')
    .option('--memory', 'print every shot')
    .option('--statevector', 'print the final statevector (statevector method)')
    .option('--max-bond <n>', 'MPS bond dimension cap', '256')
    .option('--json', 'print JSON')
    .action((file: string, o: Record<string, string | boolean | undefined>) => {
      const shots = intOption('shots', o.shots as string)!;
      if (shots < 0) throw new Error(`--shots must be zero or more, got ${shots}`);
      const seed = intOption('seed', o.seed as string | undefined);
      const method = o.method as string;
      if (!METHODS.includes(method)) throw new Error(`--method must be one of ${METHODS.join(', ')}, got '${method}'`);
      let noise;
      if (o.noise) {
        noise = getBackend(o.noise as string);
        if (!noise) throw new Error(`unknown backend '${o.noise as string}'`);
        if (!noise.calibration) throw new Error(`backend '${noise.id}' is an ideal simulator and has no noise model`);
      }
      const c = parseQasm(readInput(file));
      const r = run(c, {
        method: method as Method,
        shots,
        seed,
        memory: Boolean(o.memory),
        statevector: Boolean(o.statevector),
        noise,
        maxBond: intOption('max-bond', o.maxBond as string),
      });
      const out: Record<string, unknown> = {
        num_qubits: r.numQubits,
        method: r.method,
        counts: r.counts,
        execution_time_ms: Math.round(r.executionTimeMs * 1000) / 1000,
        seed: r.seed,
        memory_required_bytes: r.memoryBytes,
      };
      if (r.memory) out.memory = r.memory;
      if (o.statevector) {
        if (!r.statevector) throw new Error('--statevector needs the statevector method and a circuit without mid-circuit measurement or noise');
        out.statevector = Array.from(r.statevector);
      }
      if (r.truncationError !== undefined) {
        out.truncation_error = r.truncationError;
        out.max_bond = r.maxBondReached;
      }
      if (o.json) {
        console.log(JSON.stringify(out));
        return;
      }
      console.log(`${r.numQubits} qubits, ${r.method}, ${r.shots} shots, seed ${r.seed}, ${out.execution_time_ms} ms`);
      for (const [k, v] of Object.entries(r.counts)) console.log(`${k}  ${v}`);
      if (out.memory) console.log(`memory: ${(out.memory as string[]).join(' ')}`);
      if (out.statevector) console.log(`statevector: ${JSON.stringify(out.statevector)}`);
    });
}
