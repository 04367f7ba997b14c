/** POST /api/auth/login, POST /api/auth/logout, GET /api/auth/me — console users' browser sessions. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ChatErrorSchema } from '../errors.ts';
import { TAG, sessionSecurity, type ChatDeps } from './context.ts';

const Me = Type.Object(
  { userId: Type.String(), accountId: Type.String(), email: Type.String() },
);

export function registerAuth(app: ServiceApp, deps: ChatDeps): void {
  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: [TAG],
        summary: 'Sign in with a console user\'s email and password',
        description: 'Sets an HttpOnly, SameSite=Strict session cookie (`lattice_chat`). Users come from `lattice console-users create`.',
        body: Type.Object({
          email: Type.String({ minLength: 1, maxLength: 320 }),
          password: Type.String({ minLength: 1, maxLength: 1024 }),
        }),
        response: { 200: Me, '4xx': ChatErrorSchema },
      },
    },
    async (req, reply) => {
      const { token, session } = await deps.sessions.login(req.body.email.trim(), req.body.password);
      deps.sessions.setCookie(reply, token);
      return session;
    },
  );

  app.post(
    '/api/auth/logout',
    {
      schema: { tags: [TAG], summary: 'Sign out (ends the session; always succeeds)', response: { 204: Type.Null() } },
    },
    async (req, reply) => {
      await deps.sessions.logout(req);
      deps.sessions.clearCookie(reply);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/auth/me',
    {
      preHandler: deps.sessions.required(),
      schema: { tags: [TAG], summary: 'The signed-in user', security: sessionSecurity, response: { 200: Me, '4xx': ChatErrorSchema } },
    },
    async (req) => deps.sessions.of(req),
  );
}
