/** The error every OpenQASM problem is reported with: line, column and what was expected. */

export class QasmError extends Error {
  readonly line: number;
  readonly column: number;

  constructor(message: string, line: number, column: number) {
    super(`line ${line}, column ${column}: ${message}`);
    this.name = 'QasmError';
    this.line = line;
    this.column = column;
  }
}

/** A source position carried by tokens and syntax nodes. */
export interface Pos {
  line: number;
  column: number;
}

export function errorAt(pos: Pos, message: string): QasmError {
  return new QasmError(message, pos.line, pos.column);
}
