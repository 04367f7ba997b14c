/**
 * POST /timing (time now, with bounds on request), GET /timing/status (lock state and holdover
 * readiness), POST /timing/sync (waits for the next clock measurement and reports how much the
 * accuracy improved, measured).
 */
import { Type } from 'typebox';
import { timingStatusReport } from '../../../engines/gnss/report.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { navError, responses } from '../errors.ts';
import { currentTiming } from '../timing.ts';
import { bearerSecurity, type NavDeps } from './context.ts';
import { Timing } from './schemas.ts';

const N = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export function registerTiming(app: ServiceApp, deps: NavDeps): void {

  app.post(
    '/timing',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Timing'],
        summary: 'UTC, TAI and GPS time now, with the clock accuracy (and bounds)',
        security: bearerSecurity,
        body: Type.Optional(
          Type.Object({
            fallback_to_holdover: Type.Optional(Type.Boolean({ default: true, description: 'answer from the holdover prediction when there is no GNSS lock' })),
            include_bounds: Type.Optional(Type.Boolean({ default: false, description: 'add the 95 % bound of the clock error' })),
          }),
        ),
        response: responses(Timing),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const t = currentTiming(deps.receiver, { includeBounds: body.include_bounds === true });
      if (t.source === 'none') throw navError('NO_TIME', 'No time yet: the receiver has not measured its clock (no fix so far)', { 'retry-after': '1' });
      if (t.source === 'holdover' && body.fallback_to_holdover === false) {
        throw navError('NO_TIME', 'No GNSS time: the receiver is in holdover and fallback_to_holdover is false', { 'retry-after': '1' });
      }
      return ok(t);
    },
  );

  app.get(
    '/timing/status',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Timing'],
        summary: 'Lock state, time source, last clock measurement, accuracy, holdover readiness',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            status: Type.String({ description: 'acquiring, locked or holdover' }),
            source: Type.String({ description: 'none, gnss or holdover' }),
            last_sync: N(Type.String({ description: 'UTC of the last clock measurement' })),
            accuracy_ns: N(Type.Number()),
            holdover_ready: Type.Boolean({ description: 'the drift model has 60+ clock measurements' }),
            holdover_calibration_age_h: N(Type.Number()),
          }),
        ),
      },
    },
    async () => {
      const engine = deps.receiver.gnssEngine;
      if (!engine) {
        const held = deps.receiver.latest?.holdover ?? true;
        return ok({ status: !deps.receiver.latest ? 'acquiring' : held ? 'holdover' : 'locked', source: !deps.receiver.latest ? 'none' : held ? 'holdover' : 'gnss', last_sync: deps.receiver.latest?.position?.timestamp ?? null, accuracy_ns: null, holdover_ready: false, holdover_calibration_age_h: null });
      }
      const reading = deps.receiver.nowGps();
      const t = engine.clock.initialised ? reading - engine.clock.predict(reading).offset : reading;
      return ok(timingStatusReport(engine, t));
    },
  );

  app.post(
    '/timing/sync',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Timing'],
        summary: 'Resynchronise on the next clock measurement and report the improvement',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            sync_status: Type.String({ description: 'synchronized' }),
            sync_time_ms: Type.Number({ description: 'wall-clock ms until a fresh clock measurement was applied' }),
            new_accuracy_ns: Type.Number(),
            previous_accuracy_ns: N(Type.Number({ description: 'the accuracy just before, propagated to now' })),
            improvement_ns: N(Type.Number()),
          }),
        ),
      },
    },
    async () => {
      const engine = deps.receiver.gnssEngine;
      if (!engine) throw navError('SYNC_FAILED', 'This source reports only its own fixes: the service has no clock measurement to resynchronise on');
      const started = performance.now();
      const before = engine.clock.initialised ? engine.holdover(deps.receiver.nowGps()) : undefined;
      const timeoutMs = Math.min(10_000, Math.max(1000, ((5 * 1000 * deps.receiver.source.intervalS) / deps.receiver.source.rate)));
      let seq = deps.receiver.latest?.seq ?? 0;
      // The next epoch whose clock measurement the filter accepted (not in holdover).
      for (;;) {
        const left = timeoutMs - (performance.now() - started);
        const s = left > 0 ? await deps.receiver.nextSolution(seq, left) : null;
        if (!s) throw navError('SYNC_FAILED', `No clock measurement within ${Math.round(timeoutMs)} ms: the receiver is in holdover (${deps.receiver.sourceStatus.message})`);
        seq = s.seq;
        const update = s.assessment?.clock.update;
        if (!s.holdover && update && !update.rejected) {
          const after = engine.holdover(s.gpsTime);
          const nowNs = after ? after.sigma * 1e9 : s.assessment!.clock.sigmaNs;
          const prevNs = before ? before.sigma * 1e9 : null;
          const r = (v: number) => Math.round(v * 100) / 100;
          return ok({
            sync_status: 'synchronized',
            sync_time_ms: r(performance.now() - started),
            new_accuracy_ns: r(nowNs),
            previous_accuracy_ns: prevNs === null ? null : r(prevNs),
            improvement_ns: prevNs === null ? null : r(prevNs - nowNs),
          });
        }
      }
    },
  );
}
