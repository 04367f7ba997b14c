/** The quantum jobs page's labels and formats: the services' names, the job states, times, prices and durations as shown. */

/** Each quantum service as the page names it, with its interface numbers. */
export const SERVICES: Record<string, string> = {
  qcos: 'QCOS (1)',
  suppliers: 'Suppliers (2, 4)',
  core: 'Core (3)',
  platform: 'Platform (5)',
  runtime: 'Runtime (6)',
};
/** Every job state, in the order of a job's life (the status filter's choices). */
export const STATUSES = ['queued', 'validating', 'optimizing', 'running', 'completed', 'failed', 'cancelled'] as const;
/** The states of a job that has not ended. */
export const ACTIVE = new Set(['queued', 'validating', 'optimizing', 'running']);

/** UTC to the second, or a dash. */
export const when = (d: Date | null) => (d ? d.toISOString().slice(0, 19).replace('T', ' ') : '—');
/** Dollars: cents, or six decimals below a cent. */
export const usd = (x: number | null) => (x === null ? '—' : x === 0 ? '$0' : `$${x < 0.01 ? x.toFixed(6) : x.toFixed(2)}`);
/** Milliseconds below a second, else seconds. */
export const dur = (ms: number | null) => (ms === null ? '—' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);
