/**
 * Splits a `command` (or `setup`) string into an argument vector the way a POSIX shell splits
 * words, and nothing more: single and double quotes group, a backslash escapes the next
 * character, and every other character (`;`, `|`, `&`, `$`, `>`, backticks) is plain text of
 * an argument. The vector is given to the program directly (no shell), so there is nothing to
 * inject into: `echo hi; rm -rf x` prints `hi; rm -rf x`.
 *
 * @example splitCommand(`python3 -c "print('a b')"`)  // ['python3', '-c', "print('a b')"]
 */
export class CommandError extends Error {}

export const MAX_ARGS = 256;
export const MAX_ARG_LENGTH = 16_384;

export function splitCommand(text: string): string[] {
  const out: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1]!)) word += text[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= text.length) throw new CommandError('the command ends with a lone backslash');
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new CommandError(`the command has an unclosed ${quote === '"' ? 'double' : 'single'} quote`);
  if (inWord) out.push(word);
  return out;
}

/** A command given as a string or as an argument array, checked: a program and sane sizes. */
export function toArgv(value: string | string[], field: string): string[] {
  const argv = typeof value === 'string' ? splitCommand(value) : value;
  if (argv.length === 0 || argv[0] === '') throw new CommandError(`${field} names no program`);
  if (argv.length > MAX_ARGS) throw new CommandError(`${field} has more than ${MAX_ARGS} arguments`);
  for (const a of argv) {
    if (a.length > MAX_ARG_LENGTH) throw new CommandError(`an argument of ${field} is longer than ${MAX_ARG_LENGTH} characters`);
    if (a.includes('\0')) throw new CommandError(`${field} contains a NUL character`);
  }
  return argv;
}
