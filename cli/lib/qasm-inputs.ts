/**
 * `--input name=value` for OpenQASM 3 `input` declarations. A value is a number or a small
 * arithmetic expression of numbers and the constants pi (π), tau (τ) and euler (ℯ), e.g.
 * `theta=pi/4`, `phi=-0.5`, `n=3`.
 */

const CONSTANTS: Record<string, number> = { pi: Math.PI, 'π': Math.PI, tau: 2 * Math.PI, 'τ': 2 * Math.PI, euler: Math.E, 'ℯ': Math.E };

/** Evaluates `+ - * /`, parentheses, unary minus, numbers and the constants above. */
export function evalNumber(text: string): number {
  const tokens = text.match(/\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|[A-Za-zπτℯ_]+|\S/gu) ?? [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`'${text}' is not a number or an expression of numbers and pi (${why})`);
  };
  const primary = (): number => {
    const t = tokens[i++];
    if (t === undefined) return fail('it ends early');
    if (t === '-') return -primary();
    if (t === '+') return primary();
    if (t === '(') {
      const v = sum();
      if (tokens[i++] !== ')') fail("a '(' is not closed");
      return v;
    }
    if (/^(\d|\.\d)/.test(t)) return Number(t);
    if (t in CONSTANTS) return CONSTANTS[t]!;
    return fail(`unknown '${t}'`);
  };
  const product = (): number => {
    let v = primary();
    while (tokens[i] === '*' || tokens[i] === '/') v = tokens[i++] === '*' ? v * primary() : v / primary();
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (tokens[i] === '+' || tokens[i] === '-') v = tokens[i++] === '+' ? v + product() : v - product();
    return v;
  };
  const v = sum();
  if (i !== tokens.length) fail(`unexpected '${tokens[i]}'`);
  if (!Number.isFinite(v)) fail('it is not finite');
  return v;
}

/** The names the program declares with `input <type> name;` (OpenQASM 3). */
export function declaredInputs(source: string): string[] {
  const withoutComments = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  return [...withoutComments.matchAll(/(?:^|[;{}\s])input\s+[^;]*?([A-Za-z_][A-Za-z0-9_]*)\s*;/g)].map((m) => m[1]!);
}

/** `--input` values (each `name=value`) checked against the program's declared inputs. */
export function parseInputs(pairs: readonly string[] | undefined, source: string): Record<string, number> {
  const inputs: Record<string, number> = {};
  if (!pairs?.length) return inputs;
  const declared = declaredInputs(source);
  for (const pair of pairs) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(.+)$/s.exec(pair);
    if (!m) throw new Error(`--input must be name=value, got '${pair}'`);
    const name = m[1]!;
    if (!declared.includes(name)) {
      throw new Error(`--input ${name}: the circuit declares no input '${name}' (${declared.length ? `its inputs: ${declared.join(', ')}` : 'it has no inputs'})`);
    }
    try {
      inputs[name] = evalNumber(m[2]!.trim());
    } catch (err) {
      throw new Error(`--input ${name}: ${(err as Error).message}`);
    }
  }
  return inputs;
}
