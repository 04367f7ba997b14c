/**
 * The reports of interface 4, built from the job table (`supplier_jobs`), the credits ledger
 * (`billing_ledger`) and the provenance chain: chargeback per group, an audit trail of money
 * movements and job events, and usage by provider and day. Each is a list of flat rows, so it
 * also prints as CSV (RFC 4180).
 */
import type { Sql } from '../../platform/storage/database.ts';

export interface Period {
  from: Date;
  to: Date;
}

const usd = (micros: number | string | null) => Number(micros ?? 0) / 1e6;

export const GROUPS = {
  provider: 'j.supplier',
  backend: "j.supplier || ':' || j.target",
  api_key: "COALESCE(j.key_id, 'none')",
  batch: "COALESCE(j.batch_id, 'none')",
} as const;

export async function chargeback(db: Sql, accountId: string, p: Period, groupBy: keyof typeof GROUPS) {
  const rows = await db.query<Record<string, string | number | null>>(
    `SELECT ${GROUPS[groupBy]} AS grp, count(*) AS jobs, count(*) FILTER (WHERE j.status = 'completed') AS completed,
            COALESCE(sum(j.shots), 0) AS shots, COALESCE(sum(j.charged_micros), 0) AS charged,
            COALESCE(sum(j.estimated_micros) FILTER (WHERE j.status IN ('queued', 'running')), 0) AS pending,
            COALESCE(sum(l.ledger), 0) AS ledger
       FROM supplier_jobs j
       LEFT JOIN LATERAL (SELECT -sum(amount_micros) AS ledger FROM billing_ledger b
                           WHERE j.hold_id IS NOT NULL AND b.hold_id = j.hold_id AND b.kind = 'charge') l ON true
      WHERE j.account_id = $1 AND j.created_at >= $2 AND j.created_at <= $3
      GROUP BY grp ORDER BY grp`,
    [accountId, p.from, p.to],
  );
  const out = rows.map((r) => ({
    group: String(r.grp),
    jobs: Number(r.jobs),
    completed_jobs: Number(r.completed),
    shots: Number(r.shots),
    charged_usd: usd(r.charged),
    ledger_charged_usd: usd(r.ledger),
    held_usd: usd(r.pending),
  }));
  return { rows: out, total_usd: Math.round(out.reduce((s, r) => s + r.charged_usd, 0) * 1e6) / 1e6 };
}

export async function audit(db: Sql, accountId: string, p: Period) {
  const ledger = await db.query<Record<string, string | number | Date | null>>(
    `SELECT b.created_at AS at, b.kind, b.amount_micros, b.service, b.reference, b.hold_id, j.public_id, j.supplier
       FROM billing_ledger b LEFT JOIN supplier_jobs j ON j.hold_id = b.hold_id AND b.hold_id IS NOT NULL
      WHERE b.account_id = $1 AND b.created_at >= $2 AND b.created_at <= $3`,
    [accountId, p.from, p.to],
  );
  const events = await db.query<Record<string, string | number | Date | null>>(
    `SELECT pr.created_at AS at, pr.event, pr.hash, j.public_id, j.supplier, j.target
       FROM supplier_provenance pr JOIN supplier_jobs j ON j.id = pr.job_row_id
      WHERE j.account_id = $1 AND pr.created_at >= $2 AND pr.created_at <= $3`,
    [accountId, p.from, p.to],
  );
  const rows = [
    ...ledger.map((r) => ({
      at: new Date(r.at as string).toISOString(), source: 'ledger', action: String(r.kind), service: String(r.service),
      job_id: (r.public_id as string | null) ?? null, provider: (r.supplier as string | null) ?? null, backend: null as string | null,
      amount_usd: usd(r.amount_micros as number), reference: (r.reference as string | null) ?? null, hash: null as string | null,
    })),
    ...events.map((r) => ({
      at: new Date(r.at as string).toISOString(), source: 'job', action: String(r.event), service: 'suppliers',
      job_id: r.public_id as string, provider: r.supplier as string, backend: r.target as string,
      amount_usd: null as number | null, reference: null as string | null, hash: r.hash as string,
    })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.source.localeCompare(b.source)));
  return { rows };
}

export async function usage(db: Sql, accountId: string, p: Period) {
  const byDay = await db.query<Record<string, string | number>>(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, supplier, count(*) AS jobs,
            count(*) FILTER (WHERE status = 'completed') AS completed, count(*) FILTER (WHERE status = 'failed') AS failed,
            count(*) FILTER (WHERE status = 'cancelled') AS cancelled, COALESCE(sum(shots), 0) AS shots,
            COALESCE(sum(charged_micros), 0) AS charged
       FROM supplier_jobs WHERE account_id = $1 AND created_at >= $2 AND created_at <= $3
      GROUP BY day, supplier ORDER BY day, supplier`,
    [accountId, p.from, p.to],
  );
  const rows = byDay.map((r) => ({
    day: String(r.day), provider: String(r.supplier), jobs: Number(r.jobs), completed: Number(r.completed), failed: Number(r.failed),
    cancelled: Number(r.cancelled), shots: Number(r.shots), charged_usd: usd(r.charged),
  }));
  const sum = (rs: typeof rows, k: 'jobs' | 'completed' | 'failed' | 'cancelled' | 'shots' | 'charged_usd') => rs.reduce((s, r) => s + r[k], 0);
  const providers = [...new Set(rows.map((r) => r.provider))].map((provider) => {
    const rs = rows.filter((r) => r.provider === provider);
    return { provider, jobs: sum(rs, 'jobs'), completed: sum(rs, 'completed'), failed: sum(rs, 'failed'), cancelled: sum(rs, 'cancelled'), shots: sum(rs, 'shots'), charged_usd: Math.round(sum(rs, 'charged_usd') * 1e6) / 1e6 };
  });
  return {
    totals: { jobs: sum(rows, 'jobs'), completed: sum(rows, 'completed'), failed: sum(rows, 'failed'), cancelled: sum(rows, 'cancelled'), shots: sum(rows, 'shots'), charged_usd: Math.round(sum(rows, 'charged_usd') * 1e6) / 1e6 },
    by_provider: providers,
    rows,
  };
}

/** RFC 4180 CSV with a header line; null prints as an empty field. */
export function toCsv(rows: ReadonlyArray<Record<string, unknown>>, columns?: string[]): string {
  const cols = columns ?? Object.keys(rows[0] ?? {});
  const cell = (v: unknown) => {
    if (v === null || v === undefined) return '';
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [cols.join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\r\n') + '\r\n';
}
