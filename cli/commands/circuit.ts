/**
 * `lattice circuit run`: parse an OpenQASM file (or stdin) and sample it on one of the simulators.
 * `lattice circuit draw`: the circuit as a text diagram, or as an SVG file with `--svg OUT`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Method } from '../../engines/quantum/index.ts';
import { parseInputs } from '../lib/qasm-inputs.ts';

const METHODS = ['statevector', 'density_matrix', 'mps'];

function intOption(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new Error(`--${name} must be an integer, got '${v}'`);
  return Number(v);
}

/** The program's text; an empty file (or one of only comments) is an error, never a 0-qubit run. */
export function readProgram(file: string): string {
  const name = file === '-' ? 'standard input' : file;
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${name}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '').trim() === '') throw new Error(`${name} is empty: no OpenQASM program to run`);
  return text;
}

/** Runs the parse; an input without a value names the flag that gives one. */
export function withInputHint<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof Error) err.message = err.message.replace(/input '(\w+)' needs a value \(supply it in inputs\)/, "input '$1' needs a value: give it with --input $1=VALUE");
    throw err;
  }
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
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
    .option('--precision <p>', 'statevector amplitudes: double (complex128) | single (complex64: half the memory, faster on large circuits)', 'double')
    .option('--input <name=value>', 'value of an OpenQASM 3 input, e.g. theta=pi/4 (repeat for several)', collect)
    .option('--json', 'print JSON')
    .action(async (file: string, o: Record<string, string | boolean | undefined>) => {
      const { getBackend, parseQasm, run } = await import('../../engines/quantum/index.ts');
      const shots = intOption('shots', o.shots as string)!;
      if (shots < 0) throw new Error(`--shots must be zero or more, got ${shots}`);
      const seed = intOption('seed', o.seed as string | undefined);
      const method = o.method as string;
      if (!METHODS.includes(method)) throw new Error(`--method must be one of ${METHODS.join(', ')}, got '${method}'`);
      const precision = o.precision as string;
      if (precision !== 'double' && precision !== 'single') throw new Error(`--precision must be double or single, got '${precision}'`);
      let noise;
      if (o.noise) {
        noise = getBackend(o.noise as string);
        if (!noise) throw new Error(`unknown backend '${o.noise as string}'`);
        if (!noise.calibration) throw new Error(`backend '${noise.id}' is an ideal simulator and has no noise model`);
      }
      const text = readProgram(file);
      const c = withInputHint(() => parseQasm(text, { inputs: parseInputs(o.input as unknown as string[] | undefined, text) }));
      if (c.numQubits === 0) throw new Error(`${file === '-' ? 'standard input' : file} declares no qubits: nothing to run`);
      const r = run(c, {
        method: method as Method,
        shots,
        seed,
        memory: Boolean(o.memory),
        statevector: Boolean(o.statevector),
        noise,
        maxBond: intOption('max-bond', o.maxBond as string),
        precision,
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
  circuit
    .command('draw')
    .description('draw an OpenQASM 2/3 circuit: a text diagram, or an SVG picture with --svg')
    .argument('<file>', "OpenQASM file, or '-' for standard input")
    .option('--svg <out>', "write an SVG picture to this file ('-' for standard output)")
    .option('--input <name=value>', 'value of an OpenQASM 3 input, e.g. theta=pi/4 (repeat for several)', collect)
    .action(async (file: string, o: { svg?: string; input?: string[] }) => {
      const { parseQasm } = await import('../../engines/quantum/index.ts');
      const { circuitSvg, circuitText } = await import('../../engines/quantum/draw/index.ts');
      const text = readProgram(file);
      const c = withInputHint(() => parseQasm(text, { inputs: parseInputs(o.input, text) }));
      if (c.numQubits === 0) throw new Error(`${file === '-' ? 'standard input' : file} declares no qubits: nothing to draw`);
      if (o.svg === undefined) {
        process.stdout.write(circuitText(c));
        return;
      }
      const svg = circuitSvg(c);
      if (o.svg === '-') {
        process.stdout.write(svg + '\n');
        return;
      }
      try {
        writeFileSync(o.svg, svg + '\n');
      } catch (err) {
        throw new Error(`cannot write ${o.svg}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
      console.log(`wrote ${o.svg}`);
    });
}
