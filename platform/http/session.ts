/**
 * Browser sessions of console users (`lattice console-users create`): email and password buy an
 * HttpOnly, SameSite=Strict cookie holding a random secret; the database keeps only its SHA-256,
 * so a copy of the table signs nobody in. API keys are never accepted here.
 *
 * Each service keeps its sessions in a table of its own (create it with `sessionTableSql` in the
 * service's migrations) and names its own cookie: browsers share cookies across the ports of one
 * host, so two services on 127.0.0.1 must not overwrite each other's.
 *
 * Usage:
 *
 *   // migrations.ts:  { id: 'chat/0001_init', sql: sessionTableSql('chat_sessions') + ... }
 *   const sessions = new ConsoleSessions(ctx.db, {
 *     table: 'chat_sessions', cookie: 'lattice_chat', path: `${prefix}/`, now: ctx.now,
 *     notAuthenticated: () => new ApiError(401, 'authentication_error', 'Not authenticated'),
 *     badCredentials: () => new ApiError(401, 'authentication_error', 'Invalid email or password'),
 *   });
 *   // login route:   const { token, session } = await sessions.login(email, password);
 *   //                sessions.setCookie(reply, token);
 *   // logout route:  await sessions.logout(req); sessions.clearCookie(reply);
 *   // guarded route: { preHandler: sessions.required() }, then sessions.of(req).accountId
 */
import { parseCookie } from 'cookie';
import { sha256Hex } from '../../engines/crypto/encoding.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceApp } from './app.ts';
import { Type } from 'typebox';
import { hashPassword, verifyPassword } from '../identity/console-users.ts';
import { randomBase62 } from '../identity/ids.ts';
import type { Sql } from '../storage/database.ts';

export interface ConsoleSession {
  userId: string;
  accountId: string;
  email: string;
}

export interface ConsoleSessionOptions {
  /** The service's own session table (see sessionTableSql). */
  table: string;
  /** Cookie name, distinct per service. */
  cookie: string;
  /** Cookie path: the service's prefix plus `/`. */
  path: string;
  /** Lifetime in seconds (default 7 days). */
  maxAgeSeconds?: number;
  now: () => Date;
  notAuthenticated: () => Error;
  badCredentials: () => Error;
}

const TABLE = /^[a-z_][a-z0-9_]{0,62}$/;
const COOKIE = /^[A-Za-z0-9_-]{1,64}$/;

/** The table a service creates for its sessions (token_hash, user, account, expiry). */
export function sessionTableSql(table: string): string {
  if (!TABLE.test(table)) throw new Error(`bad session table name ${table}`);
  return `
CREATE TABLE ${table} (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL REFERENCES console_users(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
--;
CREATE INDEX ${table}_expires ON ${table} (expires_at);
`;
}


// Checked when the email is unknown, so that the answer takes as long either way.
let decoy: Promise<string> | null = null;

/** The value of cookie `name` in the request (percent-decoded, as the cookie library reads it), or null. */
export function cookieValue(req: FastifyRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return null;
  return parseCookie(header)[name] ?? null;
}

const SESSION = Symbol('consoleSession');
type WithSession = FastifyRequest & { [SESSION]?: ConsoleSession };

export class ConsoleSessions {
  private readonly maxAge: number;

  constructor(
    private readonly db: Sql,
    private readonly options: ConsoleSessionOptions,
  ) {
    if (!TABLE.test(options.table)) throw new Error(`bad session table name ${options.table}`);
    if (!COOKIE.test(options.cookie)) throw new Error(`bad cookie name ${options.cookie}`);
    this.maxAge = options.maxAgeSeconds ?? 7 * 24 * 3600;
  }

  /** Checks the password and opens a session; throws badCredentials() for any mismatch. */
  async login(email: string, password: string): Promise<{ token: string; session: ConsoleSession }> {
    const [user] = await this.db.query<{ id: string; account_id: string; email: string; password_hash: string }>(
      'SELECT id, account_id, email, password_hash FROM console_users WHERE lower(email) = lower($1)',
      [email],
    );
    decoy ??= hashPassword('decoy password for unknown emails');
    const ok = await verifyPassword(password, user?.password_hash ?? (await decoy));
    if (!user || !ok) throw this.options.badCredentials();
    const token = randomBase62(43);
    const now = this.options.now();
    await this.db.query(`INSERT INTO ${this.options.table} (token_hash, user_id, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`, [
      sha256Hex(token),
      user.id,
      user.account_id,
      now,
      new Date(now.getTime() + this.maxAge * 1000),
    ]);
    // Expired sessions of this user go at each login, so the table does not grow without end.
    await this.db.query(`DELETE FROM ${this.options.table} WHERE user_id = $1 AND expires_at <= $2`, [user.id, now]);
    return { token, session: { userId: user.id, accountId: user.account_id, email: user.email } };
  }

  /** The session the request's cookie names, or null when absent, unknown or expired. */
  async find(req: FastifyRequest): Promise<ConsoleSession | null> {
    const token = cookieValue(req, this.options.cookie);
    if (!token || token.length > 100) return null;
    const [row] = await this.db.query<{ user_id: string; account_id: string; email: string }>(
      `SELECT s.user_id, s.account_id, u.email FROM ${this.options.table} s JOIN console_users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > $2`,
      [sha256Hex(token), this.options.now()],
    );
    return row ? { userId: row.user_id, accountId: row.account_id, email: row.email } : null;
  }

  async logout(req: FastifyRequest): Promise<void> {
    const token = cookieValue(req, this.options.cookie);
    if (token) await this.db.query(`DELETE FROM ${this.options.table} WHERE token_hash = $1`, [sha256Hex(token)]);
  }

  setCookie(reply: FastifyReply, token: string): void {
    reply.header('set-cookie', `${this.options.cookie}=${token}; Path=${this.options.path}; HttpOnly; SameSite=Strict; Max-Age=${this.maxAge}${this.secure(reply)}`);
  }

  clearCookie(reply: FastifyReply): void {
    reply.header('set-cookie', `${this.options.cookie}=; Path=${this.options.path}; HttpOnly; SameSite=Strict; Max-Age=0${this.secure(reply)}`);
  }

  // Marked Secure when the request came over HTTPS (directly or through a proxy that says so).
  private secure(reply: FastifyReply): string {
    const proto = reply.request.headers['x-forwarded-proto'];
    return reply.request.protocol === 'https' || proto === 'https' ? '; Secure' : '';
  }

  /** A preHandler: the session, or the service's 401. */
  required() {
    return async (req: FastifyRequest): Promise<void> => {
      const session = await this.find(req);
      if (!session) throw this.options.notAuthenticated();
      (req as WithSession)[SESSION] = session;
    };
  }

  /** The session a `required()` preHandler found for this request. */
  of(req: FastifyRequest): ConsoleSession {
    const session = (req as WithSession)[SESSION];
    if (!session) throw new Error('route reached without a session preHandler');
    return session;
  }
}

/**
 * The sign-in and sign-out routes of a service's console page (`POST {prefix}/console/login`,
 * `POST {prefix}/console/logout`), hidden from its API documents. `answer` wraps what they
 * return in the service's own body shape.
 */
export function registerConsoleSignIn(
  app: ServiceApp,
  sessions: ConsoleSessions,
  prefix: string,
  answer: (data: Record<string, unknown>) => unknown = (data) => data,
): void {
  app.post(
    `${prefix}/console/login`,
    { schema: { hide: true, body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1000 }) }) } },
    async (req, reply) => {
      const body = req.body as { email: string; password: string };
      const { token, session } = await sessions.login(body.email.trim(), body.password);
      sessions.setCookie(reply, token);
      return answer({ email: session.email });
    },
  );
  app.post(`${prefix}/console/logout`, { schema: { hide: true } }, async (req, reply) => {
    await sessions.logout(req);
    sessions.clearCookie(reply);
    return answer({});
  });
}
