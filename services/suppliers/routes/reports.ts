/** POST /api/v1/reports/chargeback, POST /api/v1/reports/audit and GET /api/v1/reports/usage, as JSON or CSV. */
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { supplierError } from '../errors.ts';
import type { Deps } from '../jobs.ts';
import { audit, chargeback, GROUPS, toCsv, usage, type Period as Range } from '../reports.ts';
import { Format, Period } from './schemas.ts';
import { security } from './responses.ts';

const tags = ['Reports'];
const DAY = 86_400_000;

function period(deps: Deps, from?: string, to?: string): Range {
  const end = to ? new Date(to) : deps.ctx.now();
  const start = from ? new Date(from) : new Date(end.getTime() - 30 * DAY);
  if (start > end) throw supplierError('INVALID_PARAMETERS', '`from` is after `to`', { from, to });
  if (end.getTime() - start.getTime() > 366 * DAY) throw supplierError('INVALID_PARAMETERS', 'A report covers at most 366 days', { from, to });
  return { from: start, to: end };
}

function csv(reply: FastifyReply, name: string, body: string): string {
  reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}.csv"`);
  return body;
}

const span = (p: Range) => ({ from: p.from.toISOString(), to: p.to.toISOString() });

export function registerReports(app: ServiceApp, deps: Deps): void {
  app.post(
    '/api/v1/reports/chargeback',
    {
      preValidation: deps.auth,
      schema: {
        security, tags,
        summary: 'Chargeback report: charges per provider, backend, API key or batch',
        body: Type.Object({ ...Period, group_by: Type.Union(Object.keys(GROUPS).map((g) => Type.Literal(g)), { default: 'provider' }), format: Format }),
      },
    },
    async (req, reply) => {
      const p = period(deps, req.body.from, req.body.to);
      const group = req.body.group_by as keyof typeof GROUPS;
      const r = await chargeback(deps.ctx.db, who(req).accountId, p, group);
      if (req.body.format === 'csv') return csv(reply, 'chargeback', toCsv(r.rows, ['group', 'jobs', 'completed_jobs', 'shots', 'charged_usd', 'ledger_charged_usd', 'held_usd']));
      return { report: 'chargeback', period: span(p), group_by: group, currency: 'USD', rows: r.rows, total_usd: r.total_usd, generated_at: deps.ctx.now().toISOString() };
    },
  );

  app.post(
    '/api/v1/reports/audit',
    { preValidation: deps.auth, schema: { security, tags, summary: 'Audit trail: ledger movements and job events', body: Type.Object({ ...Period, format: Format }) } },
    async (req, reply) => {
      const p = period(deps, req.body.from, req.body.to);
      const r = await audit(deps.ctx.db, who(req).accountId, p);
      if (req.body.format === 'csv') return csv(reply, 'audit', toCsv(r.rows, ['at', 'source', 'action', 'service', 'job_id', 'provider', 'backend', 'amount_usd', 'reference', 'hash']));
      return { report: 'audit', period: span(p), entries: r.rows, total: r.rows.length, generated_at: deps.ctx.now().toISOString() };
    },
  );

  app.get(
    '/api/v1/reports/usage',
    { preValidation: deps.auth, schema: { security, tags, summary: 'Usage analytics by provider and day', querystring: Type.Object({ ...Period, format: Format }) } },
    async (req, reply) => {
      const p = period(deps, req.query.from, req.query.to);
      const r = await usage(deps.ctx.db, who(req).accountId, p);
      if (req.query.format === 'csv') return csv(reply, 'usage', toCsv(r.rows, ['day', 'provider', 'jobs', 'completed', 'failed', 'cancelled', 'shots', 'charged_usd']));
      return { report: 'usage', period: span(p), totals: r.totals, by_provider: r.by_provider, by_day: r.rows, generated_at: deps.ctx.now().toISOString() };
    },
  );
}
