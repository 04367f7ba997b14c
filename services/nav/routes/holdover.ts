/**
 * GET /holdover/status (the clock filter's drift and the longest holdover within 1 us),
 * POST /holdover/calibrate (a fit over the recent clock history, stored), GET /holdover/metrics
 * (recorded holdover periods of the last 24 hours, and the measured entropy of the quantum sampler).
 */
import { Type } from 'typebox';
import { holdoverReport } from '../../../engines/gnss/report.ts';
import { gpsToUnixMs } from '../../../engines/gnss/time.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { measureEntropy } from '../entropy.ts';
import { responses } from '../errors.ts';
import { newId } from '../ids.ts';
import { bearerSecurity, type NavDeps } from './context.ts';

const N = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const r = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

export function registerHoldover(app: ServiceApp, deps: NavDeps): void {
  const { ctx } = deps;

  const lastCalibration = async () =>
    (await ctx.db.query<{ calibrated_at: Date; drift_sigma_ns_per_hour: number }>('SELECT calibrated_at, drift_sigma_ns_per_hour FROM nav_calibrations ORDER BY calibrated_at DESC LIMIT 1'))[0];

  app.get(
    '/holdover/status',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Holdover'],
        summary: 'Whether the clock is holding over, and how long it can',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            active: Type.Boolean(),
            ready: Type.Boolean({ description: 'the drift model has 60+ clock measurements' }),
            last_calibration: N(Type.String()),
            estimated_drift_ns_per_hour: N(Type.Number({ description: 'clock filter drift estimate' })),
            drift_sigma_ns_per_hour: N(Type.Number()),
            max_holdover_duration_h: N(Type.Number({ description: 'until the 95 % bound of the clock error reaches 1 us' })),
            current_holdover_age_s: Type.Number(),
            oscillator: Type.String(),
          }),
        ),
      },
    },
    async () => {
      const engine = deps.receiver.gnssEngine;
      const cal = await lastCalibration();
      if (!engine) {
        return ok({ active: deps.receiver.latest?.holdover ?? true, ready: false, last_calibration: cal ? new Date(cal.calibrated_at).toISOString() : null, estimated_drift_ns_per_hour: null, drift_sigma_ns_per_hour: null, max_holdover_duration_h: null, current_holdover_age_s: 0, oscillator: deps.settings.oscillator });
      }
      const rep = holdoverReport(engine, deps.receiver.nowGps());
      return ok({ ...rep, last_calibration: cal ? new Date(cal.calibrated_at).toISOString() : rep.last_calibration });
    },
  );

  app.post(
    '/holdover/calibrate',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Holdover'],
        summary: 'Calibrate the drift over the last hour of clock measurements',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            calibration_status: Type.String({ description: 'completed, or insufficient_data (fewer than 10 clock measurements)' }),
            calibration_time_s: Type.Number({ description: 'span of clock history the fit used, seconds' }),
            new_drift_estimate_ns_per_hour: N(Type.Number()),
            drift_sigma_ns_per_hour: N(Type.Number()),
            improvement_percent: N(Type.Number({ description: 'how much the drift uncertainty shrank against the previous calibration (or the clock filter before the first)' })),
            samples: Type.Integer(),
            residual_rms_ns: N(Type.Number()),
          }),
        ),
      },
    },
    async () => {
      const fit = deps.receiver.clockHistory.fit();
      if (!fit) {
        return ok({ calibration_status: 'insufficient_data', calibration_time_s: 0, new_drift_estimate_ns_per_hour: null, drift_sigma_ns_per_hour: null, improvement_percent: null, samples: deps.receiver.clockHistory.size, residual_rms_ns: null });
      }
      const sigmaNsH = fit.driftSigma * 3600e9;
      const previous = (await lastCalibration())?.drift_sigma_ns_per_hour ?? (deps.receiver.gnssEngine?.clock.initialised ? deps.receiver.gnssEngine.clock.state().driftSigma * 3600e9 : null);
      const improvement = previous ? r(100 * (1 - sigmaNsH / Number(previous)), 1) : null;
      const row = {
        calibration_status: 'completed',
        calibration_time_s: r(fit.spanS, 1),
        new_drift_estimate_ns_per_hour: r(fit.drift * 3600e9),
        drift_sigma_ns_per_hour: r(sigmaNsH),
        improvement_percent: improvement,
        samples: fit.samples,
        residual_rms_ns: r(fit.residualRmsS * 1e9),
      };
      await ctx.db.query(
        `INSERT INTO nav_calibrations (calibration_id, calibrated_at, samples, span_s, drift_ns_per_hour, drift_sigma_ns_per_hour, residual_rms_ns, improvement_percent)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [newId('cal'), ctx.now(), fit.samples, fit.spanS, row.new_drift_estimate_ns_per_hour, row.drift_sigma_ns_per_hour, row.residual_rms_ns, improvement ?? 0],
      );
      return ok(row);
    },
  );

  app.get(
    '/holdover/metrics',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Holdover'],
        summary: 'Recorded holdovers of the last 24 hours and the quantum sampler entropy',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            qrng_entropy_quality: Type.Number({ description: 'min-entropy per bit (NIST SP 800-90B MCV) of the quantum sampler, 0 if it fails the SP 800-22 monobit or runs test on a second sample too' }),
            qrng_tests: Type.Object({ bits: Type.Integer(), monobit_p: Type.Number(), runs_p: Type.Number(), min_entropy_per_bit: Type.Number(), measured_at: Type.String() }),
            drift_model_accuracy: N(Type.Number({ description: 'share of recoveries whose clock error was inside the predicted 95 % bound' })),
            last_24h_holdover_events: Type.Integer(),
            total_holdover_time_s: Type.Number(),
            max_drift_observed_ns: N(Type.Number({ description: 'largest clock error found at a recovery' })),
          }),
        ),
      },
    },
    async () => {
      await deps.receiver.flush();
      const now = gpsToUnixMs(deps.receiver.nowGps());
      const since = now - 86_400_000;
      const rows = await ctx.db.query<{ started_at: Date; ended_at: Date | null; error_ns: number | null; predicted_sigma_ns: number | null }>(
        'SELECT started_at, ended_at, error_ns, predicted_sigma_ns FROM nav_holdovers WHERE COALESCE(ended_at, $1) >= $2',
        [new Date(now), new Date(since)],
      );
      const total = rows.reduce((s, h) => s + Math.max(0, (h.ended_at ? new Date(h.ended_at).getTime() : now) - Math.max(new Date(h.started_at).getTime(), since)), 0) / 1000;
      const judged = rows.filter((h) => h.error_ns !== null && h.predicted_sigma_ns !== null);
      const inside = judged.filter((h) => Math.abs(Number(h.error_ns)) <= 1.96 * Number(h.predicted_sigma_ns));
      const entropy = measureEntropy(ctx.now());
      return ok({
        qrng_entropy_quality: entropy.quality,
        qrng_tests: { bits: entropy.bits, monobit_p: entropy.monobit_p, runs_p: entropy.runs_p, min_entropy_per_bit: entropy.min_entropy_per_bit, measured_at: entropy.measured_at },
        drift_model_accuracy: judged.length ? r(inside.length / judged.length) : null,
        last_24h_holdover_events: rows.length,
        total_holdover_time_s: r(total, 1),
        max_drift_observed_ns: judged.length ? r(Math.max(...judged.map((h) => Math.abs(Number(h.error_ns)))), 2) : null,
      });
    },
  );
}
