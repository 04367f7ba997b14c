/**
 * GET /spoofing/status (the last epoch's checks), POST /spoofing/analyze (the checks' figures:
 * Doppler residuals, GPS-Galileo agreement, signal power; `full` adds the last minute of
 * epochs), GET /spoofing/history (events from the database, with durations and a summary).
 */
import { Type } from 'typebox';
import { gpsToUnixMs } from '../../../engines/gnss/time.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { navError, responses } from '../errors.ts';
import type { Solution } from '../solution.ts';
import { bearerSecurity, type NavDeps } from './context.ts';
import { Any, Check } from './schemas.ts';

const N = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** What an operator should do about a verdict. */
export function recommendedAction(status: string, threat: string | null): string {
  if (status === 'clear') return 'none';
  if (status === 'warning') return 'monitor: one check is outside its threshold; cross-check the position with an independent source';
  if (threat === 'jamming') return 'interference: time is held over on the local oscillator; locate the interference source';
  if (threat === 'spoofing_time') return 'time spoofing: do not use GNSS time; time is held over on the local oscillator until the event clears';
  return 'spoofing: do not trust the GNSS position or time; hold over on the local oscillator and alert operators';
}

function latestOrFail(deps: NavDeps): Solution {
  const s = deps.receiver.latest;
  if (!s) throw navError('NO_FIX', 'No epoch solved yet: the source has delivered nothing', { 'retry-after': '1' });
  return s;
}

const iso = (gps: number) => new Date(gpsToUnixMs(gps)).toISOString();

export function registerSpoofing(app: ServiceApp, deps: NavDeps): void {

  app.get(
    '/spoofing/status',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Spoofing'],
        summary: 'Verdict of the last epoch and each check',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            status: Type.String({ description: 'clear, warning (one check) or alert (two or more)' }),
            confidence: Type.Number(),
            threat_type: N(Type.String()),
            last_check: Type.String({ description: 'UTC of the epoch checked' }),
            checks_performed: Type.Array(Check, { description: 'one entry per check type of the spec: doppler_consistency, multi_constellation, carrier_phase, clock_consistency, ml_anomaly' }),
            detection_latency_ms: Type.Number({ description: 'wall-clock ms from the epoch arriving to its verdict' }),
          }),
        ),
      },
    },
    async () => {
      const s = latestOrFail(deps);
      return ok({
        status: s.spoofing.status,
        confidence: s.spoofing.confidence,
        threat_type: s.spoofing.threat_type,
        last_check: iso(s.gpsTime),
        // The spec's five check types only: clients enumerate them. Signal power (C/N0 and AGC) is
        // reported by /spoofing/analyze (analysis.signal_power) and weighs in the status and threat type.
        checks_performed: s.spoofing.checks_performed,
        detection_latency_ms: s.solvedAt - s.receivedAt,
      });
    },
  );

  app.post(
    '/spoofing/analyze',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Spoofing'],
        summary: 'The checks in figures, with a recommended action',
        security: bearerSecurity,
        body: Type.Optional(
          Type.Object({
            depth: Type.Optional(Type.Union([Type.Literal('quick'), Type.Literal('full')], { default: 'full', description: 'quick: the last epoch; full: also the last 60 epochs' })),
            include_raw_metrics: Type.Optional(Type.Boolean({ default: false })),
          }),
        ),
        response: responses(
          Type.Object({
            status: Type.String(),
            confidence: Type.Number(),
            threat_type: N(Type.String()),
            analysis: Type.Object({
              doppler_residuals: Type.Object({ status: Type.String(), mean_residual_hz: N(Type.Number()), threshold_hz: N(Type.Number()) }),
              constellation_agreement: Type.Object({ status: Type.String(), gps_galileo_delta_m: N(Type.Number()) }),
              signal_power: Type.Object({ status: Type.String(), measured_dbm: N(Type.Number()), expected_dbm: N(Type.Number()) }),
            }),
            window: Type.Optional(
              Type.Object({ epochs: Type.Integer(), from: Type.String(), to: Type.String(), warnings: Type.Integer(), alerts: Type.Integer(), worst_status: Type.String() }),
            ),
            recommended_action: Type.String(),
            raw_metrics: Type.Optional(Type.Record(Type.String(), Any)),
          }),
        ),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const s = latestOrFail(deps);
      const sp = s.spoofing;
      let window;
      if ((body.depth ?? 'full') === 'full') {
        const recent = deps.receiver.recent.slice(-60);
        const warnings = recent.filter((x) => x.spoofing.status === 'warning').length;
        const alerts = recent.filter((x) => x.spoofing.status === 'alert').length;
        window = { epochs: recent.length, from: iso(recent[0]!.gpsTime), to: iso(recent[recent.length - 1]!.gpsTime), warnings, alerts, worst_status: alerts ? 'alert' : warnings ? 'warning' : 'clear' };
      }
      return ok({
        status: sp.status,
        confidence: sp.confidence,
        threat_type: sp.threat_type,
        analysis: sp.analysis,
        window,
        recommended_action: recommendedAction(sp.status, sp.threat_type),
        raw_metrics: body.include_raw_metrics === true ? sp.raw_metrics : undefined,
      });
    },
  );

  app.get(
    '/spoofing/history',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Spoofing'],
        summary: 'Spoofing and interference events between two times (receiver UTC)',
        security: bearerSecurity,
        querystring: Type.Object({
          from: Type.Optional(Type.String({ format: 'date-time', description: 'default: 24 hours before the receiver\'s present time' })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'default: the receiver\'s present time' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
        }),
        response: responses(
          Type.Object({
            events: Type.Array(
              Type.Object({
                event_id: Type.String(),
                timestamp: Type.String({ description: 'when the event opened' }),
                status: Type.String({ description: 'warning or alert (the highest reached)' }),
                threat_type: Type.String(),
                duration_s: Type.Number({ description: 'first to last suspect epoch once resolved; to now while open' }),
                resolved: Type.Boolean(),
                resolved_at: N(Type.String()),
                checks: Type.Array(Type.String()),
              }),
            ),
            summary: Type.Object({ total_alerts: Type.Integer(), total_warnings: Type.Integer(), uptime_percent: Type.Number({ description: 'share of the range without an open event' }) }),
            from: Type.String(),
            to: Type.String(),
          }),
        ),
      },
    },
    async (req) => {
      await deps.receiver.flush();
      const nowMs = gpsToUnixMs(deps.receiver.nowGps());
      const to = req.query.to ? Date.parse(req.query.to) : nowMs;
      const from = req.query.from ? Date.parse(req.query.from) : to - 86_400_000;
      if (!Number.isFinite(from) || !Number.isFinite(to)) throw navError('INVALID_REQUEST', 'from and to must be ISO 8601 date-times');
      if (from >= to) throw navError('INVALID_REQUEST', 'from must be before to');
      const rows = await deps.ctx.db.query<{ event_id: string; started_at: Date; last_at: Date; resolved_at: Date | null; status: string; threat_type: string; checks: string }>(
        `SELECT event_id, started_at, last_at, resolved_at, status, threat_type, checks FROM nav_spoofing_events
          WHERE started_at <= $2 AND COALESCE(resolved_at, $3) >= $1 ORDER BY started_at DESC LIMIT 10000`,
        [new Date(from), new Date(to), new Date(nowMs)],
      );
      let covered = 0;
      const events = rows.map((row) => {
        const start = new Date(row.started_at).getTime();
        // Duration: from the first to the last suspect epoch once resolved; to now while open.
        const end = row.resolved_at ? new Date(row.last_at).getTime() : nowMs;
        covered += Math.max(0, Math.min(row.resolved_at ? new Date(row.resolved_at).getTime() : nowMs, to) - Math.max(start, from));
        return {
          event_id: row.event_id,
          timestamp: new Date(start).toISOString(),
          status: row.status,
          threat_type: row.threat_type,
          duration_s: Math.round((end - start) / 100) / 10,
          resolved: row.resolved_at !== null,
          resolved_at: row.resolved_at ? new Date(row.resolved_at).toISOString() : null,
          checks: row.checks ? row.checks.split(',') : [],
        };
      });
      return ok({
        events: events.slice(0, req.query.limit ?? 100),
        summary: {
          total_alerts: events.filter((e) => e.status === 'alert').length,
          total_warnings: events.filter((e) => e.status === 'warning').length,
          uptime_percent: Math.round(10000 * (1 - covered / (to - from))) / 100,
        },
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
      });
    },
  );
}
