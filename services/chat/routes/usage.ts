/** GET /api/usage — the day's messages used and left under both daily limits. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ChatErrorSchema } from '../errors.ts';
import { remaining } from '../limits.ts';
import { TAG, sessionSecurity, type ChatDeps } from './context.ts';

const Counter = Type.Object({ limit: Type.Integer(), used: Type.Integer(), remaining: Type.Integer() });
export const UsageSchema = Type.Object(
  {
    day: Type.String({ description: 'The UTC day counted, YYYY-MM-DD' }),
    resetsAt: Type.String({ description: 'Next midnight UTC, when both counters start again' }),
    messages: Counter,
    proMessages: Counter,
  },
);

export function registerUsage(app: ServiceApp, deps: ChatDeps): void {
  app.get(
    '/api/usage',
    {
      preHandler: deps.sessions.required(),
      schema: {
        tags: [TAG],
        summary: "Today's message counts and limits",
        description: 'Every message counts against `messages`; a message to a pro model also counts against `proMessages`.',
        security: sessionSecurity,
        response: { 200: UsageSchema, '4xx': ChatErrorSchema },
      },
    },
    async (req) => remaining(deps.ctx.db, deps.config, deps.sessions.of(req).accountId, deps.ctx.now()),
  );
}
