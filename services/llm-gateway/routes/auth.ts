/** Console sign-in: POST /api/auth/login, POST /api/auth/logout, GET /api/auth/me (session cookie). */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { GatewayError } from '../errors.ts';
import { TAG_CONSOLE, cookieSecurity, type GatewayDeps } from './context.ts';

const Me = Type.Object({
  user: Type.Object({ id: Type.String(), email: Type.String() }),
  workspace: Type.Object({ id: Type.String({ description: 'the account the console user belongs to' }) }),
});

export function registerAuth(app: ServiceApp, deps: GatewayDeps): void {
  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: [TAG_CONSOLE],
        summary: 'Sign in with email and password; sets the HttpOnly, SameSite=Strict session cookie',
        body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }) }),
        response: { 200: Me, '4xx': GatewayError },
      },
    },
    async (req, reply) => {
      const { email, password } = req.body as { email: string; password: string };
      const { token, session } = await deps.sessions.login(email, password);
      deps.sessions.setCookie(reply, token);
      return { user: { id: session.userId, email: session.email }, workspace: { id: session.accountId } };
    },
  );
  app.post(
    '/api/auth/logout',
    { schema: { tags: [TAG_CONSOLE], summary: 'Sign out: ends the session', response: { 200: Type.Object({ ok: Type.Boolean() }) } } },
    async (req, reply) => {
      await deps.sessions.logout(req);
      deps.sessions.clearCookie(reply);
      return { ok: true };
    },
  );
  app.get(
    '/api/auth/me',
    {
      preHandler: deps.session,
      schema: { tags: [TAG_CONSOLE], summary: 'The signed-in console user', security: cookieSecurity, response: { 200: Me, '4xx': GatewayError } },
    },
    async (req) => {
      const s = deps.sessions.of(req);
      return { user: { id: s.userId, email: s.email }, workspace: { id: s.accountId } };
    },
  );
}
