// `lattice circuit optimize`: transpiles an OpenQASM circuit to a basis and coupling map at level 0-3.
import type { Command } from 'commander';
import { parseInputs } from '../lib/qasm-inputs.ts';
import { readProgram, withInputHint } from './circuit.ts';

interface Options {
  level: string;
  basis?: string;
  coupling?: string;
  backend?: string;
  preserveLayout?: boolean;
  format?: string;
  seed: string;
  json?: boolean;
  input?: string[];
}

function parseCoupling(text: string): Array<[number, number]> {
  let edges: unknown;
  try {
    edges = JSON.parse(text);
  } catch {
    throw new Error(`--coupling must be a JSON list of pairs such as [[0,1],[1,2]], got "${text}"`);
  }
  if (!Array.isArray(edges) || !edges.every((e) => Array.isArray(e) && e.length === 2 && e.every((q) => Number.isInteger(q) && q >= 0))) {
    throw new Error('--coupling must be a JSON list of [control, target] pairs of qubit indices');
  }
  return edges as Array<[number, number]>;
}


export function register(program: Command): void {
  const circuit =
    program.commands.find((c) => c.name() === 'circuit') ?? program.command('circuit').description('quantum circuits: simulate and optimize');
  circuit
    .command('optimize')
    .description('optimize and transpile a circuit (OpenQASM 2 or 3) to a basis and coupling map')
    .argument('<file>', 'OpenQASM file, or - for standard input')
    .option('--level <n>', 'optimization level 0-3', '2')
    .option('--basis <gates>', 'target basis gates, comma separated (default: the backend\'s, else u3,cx)')
    .option('--coupling <edges>', 'coupling map as JSON [[control, target], ...]')
    .option('--backend <id>', 'take basis gates and coupling map from a catalog backend')
    .option('--preserve-layout', 'keep logical qubit i on physical qubit i at the start and the end')
    .option('--format <fmt>', 'output format qasm2 or qasm3 (default: the input\'s)')
    .option('--seed <n>', 'seed of the layout search', '11')
    .option('--input <name=value>', 'value of an OpenQASM 3 input, e.g. theta=pi/4 (repeat for several)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--json', 'print one JSON object {optimized_circuit, metrics, qubit_mapping}')
    .action(async (file: string, opts: Options) => {
      const [{ getBackend }, { gateMatrix }, { toQasm }, { parseQasm }, { optimize }] = await Promise.all([
        import('../../engines/quantum/backends.ts'),
        import('../../engines/quantum/gates.ts'),
        import('../../engines/quantum/qasm/emit.ts'),
        import('../../engines/quantum/qasm/index.ts'),
        import('../../engines/quantum/optimizer/index.ts'),
      ]);
      /** Matrices of the engine's gate table for any gate the optimizer has no decomposition of. */
      const tableMatrix = (name: string, params: number[]): Float64Array | null => {
        try {
          return gateMatrix(name, params);
        } catch {
          return null;
        }
      };
      const level = Number(opts.level);
      if (![0, 1, 2, 3].includes(level)) throw new Error(`--level must be 0, 1, 2 or 3, got "${opts.level}"`);
      if (opts.format && opts.format !== 'qasm2' && opts.format !== 'qasm3') throw new Error(`--format must be qasm2 or qasm3, got "${opts.format}"`);
      if (opts.coupling && opts.backend) throw new Error('give either --coupling or --backend, not both');
      const seed = Number(opts.seed);
      if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got "${opts.seed}"`);
      const text = readProgram(file);
      const input = withInputHint(() => parseQasm(text, { inputs: parseInputs(opts.input, text) }));
      if (input.numQubits === 0) throw new Error(`${file === '-' ? 'standard input' : file} declares no qubits: nothing to optimize`);
      let basisGates = opts.basis?.split(',').map((g) => g.trim()).filter(Boolean);
      let couplingMap = opts.coupling ? parseCoupling(opts.coupling) : undefined;
      if (opts.backend) {
        const backend = getBackend(opts.backend);
        if (!backend) throw new Error(`unknown backend '${opts.backend}'`);
        if (input.numQubits > backend.qubits) throw new Error(`the circuit has ${input.numQubits} qubits but ${backend.id} has ${backend.qubits}`);
        basisGates ??= backend.basis_gates.filter((g) => g !== 'id' && g !== 'measure' && g !== 'reset');
        couplingMap = backend.coupling_map ?? undefined;
      }
      const result = optimize(input, {
        level: level as 0 | 1 | 2 | 3,
        basisGates,
        couplingMap,
        preserveLayout: opts.preserveLayout ?? false,
        seed,
        matrixFallback: tableMatrix,
      });
      const version = opts.format ? (opts.format === 'qasm3' ? 3 : 2) : /^\s*(\/\/.*\n\s*)*OPENQASM\s+3/m.test(text) ? 3 : 2;
      const qasm = toQasm(result.circuit, version);
      if (opts.json) {
        process.stdout.write(
          `${JSON.stringify({ optimized_circuit: qasm, metrics: result.metrics, qubit_mapping: result.qubitMapping, initial_layout: result.initialLayout })}\n`,
        );
        return;
      }
      process.stdout.write(qasm.endsWith('\n') ? qasm : `${qasm}\n`);
      const m = result.metrics;
      process.stderr.write(
        `depth ${m.original_depth} -> ${m.optimized_depth} (${m.depth_reduction_percent}%), gates ${m.original_gates} -> ${m.optimized_gates} (${m.gate_reduction_percent}%)\n`,
      );
    });
}
