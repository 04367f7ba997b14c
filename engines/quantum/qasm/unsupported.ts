/**
 * OpenQASM 3 features outside the supported subset, by keyword. The parser rejects them with
 * their position rather than skipping them, so a program never runs with a part left out.
 */
import { errorAt } from './errors.ts';
import type { Token } from './lexer.ts';

const UNSUPPORTED = new Map<string, string>(Object.entries({
  def: 'subroutine definitions (def)',
  defcal: 'calibration definitions (defcal)',
  cal: 'calibration blocks (cal)',
  defcalgrammar: 'defcalgrammar',
  while: 'while loops',
  switch: 'switch statements',
  box: 'box statements',
  delay: 'delay instructions',
  stretch: 'stretch types',
  duration: 'duration types',
  extern: 'extern declarations',
  let: 'aliases (let)',
  array: 'arrays',
  complex: 'complex types',
  break: 'break',
  continue: 'continue',
  return: 'return',
  end: 'end',
  output: 'output declarations',
  durationof: 'durationof',
}));

/** Throws when the token starts a statement or type that the subset does not support. */
export function rejectUnsupported(t: Token): void {
  // A Map, not an object: a gate named `toString` or `constructor` is no keyword.
  const what = UNSUPPORTED.get(t.text);
  if (what) throw errorAt(t, `${what} are not supported`);
}
