/** GET /integrity and GET /integrity/constellation: the live solution's integrity, geometry and signals. */
import { Type } from 'typebox';
import { gpsToIso } from '../../../engines/gnss/time.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { navError, responses } from '../errors.ts';
import { bearerSecurity, type NavDeps } from './context.ts';

const N = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export function registerIntegrity(app: ServiceApp, deps: NavDeps): void {
  const latest = () => {
    const s = deps.receiver.latest;
    if (!s) throw navError('NO_FIX', 'No epoch solved yet: the source has delivered nothing', { 'retry-after': '1' });
    return s;
  };

  app.get(
    '/integrity',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Integrity'],
        summary: 'Integrity scores (0-100), satellites and dilution of precision of the live solution',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            overall_score: Type.Number(),
            position_integrity: Type.Number({ description: 'RAIM consistency x geometry' }),
            timing_integrity: Type.Number({ description: 'clock check score, halved in holdover' }),
            spoofing_integrity: Type.Number({ description: 'lowest score of the available checks' }),
            satellites_visible: Type.Integer(),
            satellites_used: Type.Integer(),
            pdop: N(Type.Number()),
            hdop: N(Type.Number()),
            vdop: N(Type.Number()),
            mean_cn0_dbhz: N(Type.Number()),
            timestamp: Type.String({ description: 'UTC of the epoch' }),
          }),
        ),
      },
    },
    async () => {
      const s = latest();
      return ok({ ...s.view, timestamp: gpsToIso(s.gpsTime) });
    },
  );

  app.get(
    '/integrity/constellation',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Integrity'],
        summary: 'Per constellation: satellites visible and used, integrity, mean C/N0',
        security: bearerSecurity,
        response: responses(
          Type.Object({
            constellations: Type.Record(
              Type.String(),
              Type.Object({ satellites_visible: Type.Integer(), satellites_used: Type.Integer(), integrity: Type.Number(), cn0_avg: N(Type.Number()) }),
            ),
          }),
        ),
      },
    },
    async () => ok({ constellations: latest().constellations }),
  );
}
