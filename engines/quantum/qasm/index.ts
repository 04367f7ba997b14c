/** OpenQASM 2/3 front end: text in, shared Circuit model out. */
import type { Circuit } from '../circuit.ts';
import { elaborate } from './elaborate.ts';
import type { ElaborateOptions } from './elaborate.ts';
import { parseProgram } from './parser.ts';

export { QasmError } from './errors.ts';

/**
 * Parse OpenQASM 2 or 3 (detected from the `OPENQASM` header; 3 when absent) into a Circuit.
 * Errors are QasmError with the line and column.
 *
 * @example
 * const c = parseQasm('OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; h q[0]; cx q[0],q[1];');
 * c.ops.length // 2
 */
export function parseQasm(text: string, opts: ElaborateOptions = {}): Circuit {
  return elaborate(parseProgram(text), opts);
}
