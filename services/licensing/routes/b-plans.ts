/** GET /api/v1/plans — the variant B plans and their monthly allowances (no authentication). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { LICENSING_PLANS } from '../plans.ts';
import { TAG_B } from './b-context.ts';

export function registerPlans(app: ServiceApp): void {
  app.get(
    '/api/v1/plans',
    {
      schema: {
        tags: [TAG_B],
        summary: 'Plans (Enterprise is unlimited and listed as 999999999)',
        response: {
          200: Type.Array(
            Type.Object({
              name: Type.String(),
              price_monthly: Type.String(),
              licenses_per_month: Type.Integer(),
              features: Type.Array(Type.String()),
            }),
          ),
        },
      },
    },
    async () => [...LICENSING_PLANS],
  );
}
