/**
 * A circuit as a text diagram for the terminal: one line per qubit wire (─), a line between
 * wires for vertical connectors, and one double line (═) per classical register. Gates are
 * `[H]`, `[rz(π/2)]`; controls `■`, X targets `⊕`, swaps `×`, measurements `[M]` with a double
 * line (║) down to the register and the bit index under it, barriers `░`. Columns are the same
 * as the SVG's (layout.ts).
 */
import type { Circuit } from '../circuit.ts';
import { layoutCircuit, type Placed } from './layout.ts';

function cellLabel(p: Placed, q: number): string | undefined {
  for (const part of p.parts) {
    switch (part.kind) {
      case 'control':
        if (part.qubit === q) return '■';
        break;
      case 'plus':
        if (part.qubit === q) return '⊕';
        break;
      case 'swap':
        if (part.qubit === q) return '×';
        break;
      case 'measure':
        if (part.qubit === q) return '[M]';
        break;
      case 'barrier':
        if (q >= part.first && q <= part.last) return '░';
        break;
      case 'box':
        if (part.qubits.includes(q)) return `[${part.label}${p.condition && q === part.first ? ` ${p.condition}` : ''}]`;
        else if (q > part.first && q < part.last) return '│';
        break;
    }
  }
  return undefined;
}

const len = (s: string) => [...s].length;

function center(s: string, width: number, padChar: string): string {
  const left = Math.floor((width - len(s)) / 2);
  return padChar.repeat(left) + s + padChar.repeat(width - len(s) - left);
}

export function circuitText(c: Circuit): string {
  const layout = layoutCircuit(c);
  const nq = layout.numQubits;
  const nc = layout.cregs.length;
  const byColumn: Placed[][] = Array.from({ length: layout.columns }, () => []);
  for (const p of layout.placed) byColumn[p.column]!.push(p);

  // Row model: wire rows at 2q, gap rows at 2q+1 (after the last qubit: between it and the registers),
  // then a register row and an index row per classical register.
  const wireRows = 2 * nq;
  const rows: string[] = [];
  const labels = [...layout.qubitLabels.map((l) => `${l}: `), ...layout.cregs.map((r) => `${r.name}: ${r.size}/`)];
  const lw = Math.max(0, ...labels.map(len));
  for (const l of labels) {
    rows.push(l.padStart(lw));
    rows.push(' '.repeat(lw));
  }
  const pad = (row: number, s: string) => (rows[row] += s);
  const wireChar = (row: number) => (row < wireRows ? (row % 2 === 0 ? '─' : ' ') : (row - wireRows) % 2 === 0 ? '═' : ' ');
  for (let r = 0; r < rows.length; r++) pad(r, wireChar(r).repeat(1));

  for (const ops of byColumn) {
    const cells: string[][] = rows.map(() => []);
    let width = 1;
    const grid = new Map<number, string>();
    for (const p of ops) {
      for (let q = 0; q < nq; q++) {
        const l = cellLabel(p, q);
        if (l !== undefined) grid.set(2 * q, l);
      }
      const measure = p.parts.find((x) => x.kind === 'measure');
      if (measure && measure.kind === 'measure') {
        // Double line from under the meter to the register, crossing the wires below.
        for (let r = 2 * measure.qubit + 1; r < wireRows; r++) grid.set(r, r % 2 === 0 ? '╫' : '║');
        const regRow = wireRows + 2 * measure.creg;
        for (let r = wireRows; r < regRow; r++) grid.set(r, (r - wireRows) % 2 === 0 ? '╫' : '║');
        grid.set(regRow, '╩');
        grid.set(regRow + 1, String(measure.bit));
      } else if (p.kind === 'barrier') {
        for (let r = 2 * p.top; r <= 2 * p.bottom; r++) grid.set(r, '░');
      } else if (p.bottom > p.top) {
        for (let r = 2 * p.top + 1; r < 2 * p.bottom; r++) if (!grid.has(r)) grid.set(r, '│');
        for (let q = p.top + 1; q < p.bottom; q++) if (!grid.has(2 * q) || grid.get(2 * q) === '│') grid.set(2 * q, '┼');
      }
      if (p.condition && !p.parts.some((x) => x.kind === 'box')) {
        const row = 2 * p.bottom + 1;
        grid.set(row, p.condition);
      }
    }
    for (const v of grid.values()) width = Math.max(width, len(v));
    width += 4;
    for (let r = 0; r < rows.length; r++) {
      const v = grid.get(r);
      cells[r]!.push(v === undefined ? wireChar(r).repeat(width) : center(v, width, wireChar(r) === ' ' || /^\d+$/.test(v) ? ' ' : wireChar(r)));
    }
    for (let r = 0; r < rows.length; r++) rows[r] += cells[r]!.join('');
  }
  for (let r = 0; r < rows.length; r++) rows[r] += wireChar(r);
  // Gap rows are kept only where something crosses them or they separate wires; the last gap
  // row of each register holds bit indices and goes when empty.
  return rows.map((r) => r.replace(/\s+$/, '')).filter((r, i) => r !== '' || (i < wireRows - 1 && i % 2 === 1)).join('\n') + '\n';
}
