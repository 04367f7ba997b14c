/** Index selections on registers (`q[1]`, `q[0:2]`, `q[{0, 3}]`) and loop ranges, evaluated at compile time. */
import type { IndexItem } from './ast.ts';
import { errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import { evalInt } from './expr.ts';
import type { Lookup } from './expr.ts';

/** Indices selected by an index item on a register of `size` (all of them without an index). */
export function selectIndices(item: IndexItem | undefined, size: number, look: Lookup, pos: Pos, name: string): number[] {
  if (!item) return Array.from({ length: size }, (_, i) => i);
  const check = (i: number): number => {
    const j = i < 0 ? size + i : i;
    if (j < 0 || j >= size) throw errorAt(pos, `index ${i} is out of range for '${name}' of size ${size}`);
    return j;
  };
  if (item.k === 'expr') return [check(evalInt(item.e, look, 'index'))];
  if (item.k === 'set') return item.items.map((e) => check(evalInt(e, look, 'index')));
  return rangeValues(item, look, pos, size).map(check);
}

/** The values of `[start:stop]` or `[start:step:stop]`; OpenQASM 3 ranges include their end. */
export function rangeValues(item: Extract<IndexItem, { k: 'range' }>, look: Lookup, pos: Pos, size?: number): number[] {
  const start = item.start ? evalInt(item.start, look, 'range start') : 0;
  const step = item.step ? evalInt(item.step, look, 'range step') : 1;
  let stop: number;
  if (item.stop) stop = evalInt(item.stop, look, 'range end');
  else if (size !== undefined) stop = size - 1;
  else throw errorAt(pos, 'a loop range needs an end');
  if (step === 0) throw errorAt(pos, 'a range step cannot be 0');
  const out: number[] = [];
  for (let v = start; step > 0 ? v <= stop : v >= stop; v += step) out.push(v);
  return out;
}
