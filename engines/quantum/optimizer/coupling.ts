/** A device coupling map: adjacency, all-pairs distances and connected components. */

export interface Coupling {
  size: number;
  adj: number[][];
  dist: Int32Array[];
  /** Directed edges as given (c -> t), for devices whose CX runs one way only. */
  directed: Set<number>;
  component: Int32Array;
}

export function couplingFrom(edges: Array<[number, number]>, minSize = 0): Coupling {
  let size = minSize;
  for (const [a, b] of edges) {
    if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0 || a === b) {
      throw new Error(`bad coupling edge [${a}, ${b}]: two different non-negative qubit indices expected`);
    }
    size = Math.max(size, a + 1, b + 1);
  }
  const adjSets = Array.from({ length: size }, () => new Set<number>());
  const directed = new Set<number>();
  for (const [a, b] of edges) {
    adjSets[a].add(b);
    adjSets[b].add(a);
    directed.add(a * size + b);
  }
  const adj = adjSets.map((s) => [...s].sort((x, y) => x - y));
  const dist: Int32Array[] = [];
  const component = new Int32Array(size).fill(-1);
  for (let s = 0; s < size; s++) {
    const d = new Int32Array(size).fill(1 << 29);
    d[s] = 0;
    const queue = [s];
    for (let h = 0; h < queue.length; h++) {
      const v = queue[h];
      for (const w of adj[v]) if (d[w] > d[v] + 1) {
        d[w] = d[v] + 1;
        queue.push(w);
      }
    }
    if (component[s] < 0) for (const v of queue) component[v] = s;
    dist.push(d);
  }
  return { size, adj, dist, directed, component };
}

/** Whether CX(c, t) is native in the given direction (true for maps listing both directions). */
export function allowsCx(cm: Coupling, c: number, t: number): boolean {
  return cm.directed.has(c * cm.size + t);
}
