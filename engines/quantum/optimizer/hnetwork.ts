/**
 * A CX network between Hadamards (level 3). H on every wire of a set W, a network of CX with
 * both ends in W, then H on every wire of W again, is the same network with every CX reversed:
 *   (H ⊗ H) CX(a, b) (H ⊗ H) = CX(b, a).
 * So a block of CX on wires W (convex: nothing outside it runs between two of its gates) can be
 * written as H on each wire of W, the reversed block, H on each wire of W; where a wire already
 * has an H right before (or after) the block, the two H cancel. Per wire that is -2 H when it
 * had one on both sides, 0 with one, +2 with none; a block is rewritten where the sum is
 * negative. hflip.ts is the case of one control wire; this is the case of networks that mix
 * their wires, as the reduction network of gf2^8_mult, between the H pairs of its output wires:
 * they go, and the phase regions on both sides join.
 */
import { H, hPhase } from './hflip.ts';
import { type Ir, type IrOp, isFree, qubitsOf, wireIndex } from './ir.ts';

const isFreeCx = (op: IrOp): boolean => op.k === 'cx' && isFree(op);

/** Rewrites the CX blocks between Hadamards where that drops H gates; returns how many. */
export function flipHadamardNetworks(ir: Ir, maxRewrites = 16): number {
  let rewritten = 0;
  while (rewritten < maxRewrites && rewriteOne(ir)) rewritten++;
  return rewritten;
}

/** Finds the block whose rewrite drops the most H gates and rewrites it; false when none does. */
function rewriteOne(ir: Ir): boolean {
  const ops = ir.ops;
  const { wires, pos: at } = wireIndex(ops, ir.n);
  // Blocks: CX gates joined when one follows the other on a wire.
  const parent = ops.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (const w of wires) {
    for (let k = 1; k < w.length; k++) {
      if (isFreeCx(ops[w[k - 1]]) && isFreeCx(ops[w[k]])) parent[find(w[k - 1])] = find(w[k]);
    }
  }
  const blocks = new Map<number, number[]>();
  ops.forEach((op, i) => {
    if (!isFreeCx(op)) return;
    const r = find(i);
    const b = blocks.get(r);
    if (b) b.push(i);
    else blocks.set(r, [i]);
  });
  let best: { block: number[]; span: Map<number, [number, number]>; before: Map<number, number>; after: Map<number, number>; feeds: Uint8Array; gain: number } | null = null;
  for (const block of blocks.values()) {
    // Each wire's gates of the block, as a range of its positions on the wire.
    const span = new Map<number, [number, number]>();
    const count = new Map<number, number>();
    for (const i of block) {
      for (const q of qubitsOf(ops[i])) {
        const p = at[q].get(i)!;
        const s = span.get(q);
        span.set(q, s ? [Math.min(s[0], p), Math.max(s[1], p)] : [p, p]);
        count.set(q, (count.get(q) ?? 0) + 1);
      }
    }
    let contiguous = true;
    for (const [q, [lo, hi]] of span) if (hi - lo + 1 !== count.get(q)) contiguous = false;
    if (!contiguous) continue;
    const before = new Map<number, number>();
    const after = new Map<number, number>();
    let gain = 0;
    for (const [q, [lo, hi]] of span) {
      const b = wires[q][lo - 1];
      const a = wires[q][hi + 1];
      if (b !== undefined && hPhase(ops[b]) !== null) before.set(q, b);
      if (a !== undefined && hPhase(ops[a]) !== null) after.set(q, a);
      gain += 2 * ((before.has(q) ? 1 : 0) + (after.has(q) ? 1 : 0)) - 2;
    }
    if (gain <= 0 || (best && gain <= best.gain)) continue;
    const feeds = feedsIfConvex(ops, block);
    if (feeds) best = { block, span, before, after, feeds, gain };
  }
  if (!best) return false;
  const { block, span, before, after, feeds } = best;
  const inBlock = new Set(block);
  const first = Math.min(...block);
  const last = Math.max(...block);
  const dropped = new Set<number>([...before.values(), ...after.values()]);
  for (const i of dropped) ir.phase += hPhase(ops[i])!;
  // Gates between the block's first and last that later block gates depend on run first.
  const wiresOf = [...span.keys()].sort((a, b) => a - b);
  const replacement: IrOp[] = [
    ...wiresOf.filter((q) => !before.has(q)).map((q): IrOp => ({ k: 'u', q, m: H })),
    ...block.sort((a, b) => a - b).map((i): IrOp => {
      const cx = ops[i] as IrOp & { c: number; t: number };
      return { k: 'cx', c: cx.t, t: cx.c };
    }),
    ...wiresOf.filter((q) => !after.has(q)).map((q): IrOp => ({ k: 'u', q, m: H })),
  ];
  const out: IrOp[] = [];
  for (let i = 0; i < ops.length; i++) {
    if (i === first) {
      for (let j = first + 1; j < last; j++) if (feeds[j - first] && !inBlock.has(j) && !dropped.has(j)) out.push(ops[j]);
      out.push(...replacement);
      continue;
    }
    if (inBlock.has(i) || dropped.has(i)) continue;
    if (i > first && i < last && feeds[i - first]) continue;
    out.push(ops[i]);
  }
  ir.ops = out;
  return true;
}

/**
 * For a convex block (no gate outside it both follows one of its gates and precedes another,
 * on the wires), which gates from its first to its last feed a block gate; null otherwise.
 */
function feedsIfConvex(ops: readonly IrOp[], block: readonly number[]): Uint8Array | null {
  const inBlock = new Set(block);
  const first = Math.min(...block);
  const last = Math.max(...block);
  const after = afterBlock(ops, inBlock, first, last);
  const feeds = feedsBlock(ops, inBlock, first, last);
  for (let i = first + 1; i < last; i++) if (!inBlock.has(i) && after[i - first] && feeds[i - first]) return null;
  return feeds;
}

/** For the gates from `first` to `last`: whether each follows a block gate through its wires. */
function afterBlock(ops: readonly IrOp[], inBlock: ReadonlySet<number>, first: number, last: number): Uint8Array {
  const marked = new Uint8Array(last - first + 1);
  const wire = new Map<number, boolean>();
  for (let i = first; i <= last; i++) {
    const qs = qubitsOf(ops[i]);
    const hit = inBlock.has(i) || qs.some((q) => wire.get(q));
    marked[i - first] = hit ? 1 : 0;
    if (hit) for (const q of qs) wire.set(q, true);
  }
  return marked;
}

/** For the gates from `first` to `last`: whether a block gate follows each through its wires. */
function feedsBlock(ops: readonly IrOp[], inBlock: ReadonlySet<number>, first: number, last: number): Uint8Array {
  const marked = new Uint8Array(last - first + 1);
  const wire = new Map<number, boolean>();
  for (let i = last; i >= first; i--) {
    const qs = qubitsOf(ops[i]);
    const hit = inBlock.has(i) || qs.some((q) => wire.get(q));
    marked[i - first] = hit ? 1 : 0;
    if (hit) for (const q of qs) wire.set(q, true);
  }
  return marked;
}
