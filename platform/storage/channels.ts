/**
 * NOTIFY channels per schema. Channels are database-wide, and several deployments (or test
 * files) may share one PostgreSQL database in separate schemas (their search_path): a job
 * submitted in one schema woke the job runners of all of them, and each cache dropped entries
 * on the others' changes. So every channel is named after the session's schema: `public`
 * keeps the bare name (as before, so processes of an older version in the default schema
 * still hear each other), any other schema `name@schema`, or `name@` and an md5 of the schema
 * where that would pass PostgreSQL's 63-byte names.
 *
 * The server computes the name (`channelSql`) wherever a notice is raised, from SQL or from a
 * trigger, and a listener asks for it on its own session before it LISTENs, so both sides
 * agree without the process knowing its schema. The embedded store has one schema, `public`.
 */
import type { Sql } from './database.ts';

/** SQL expression of the channel `base` (an SQL text expression) in the session's schema. */
export function channelSql(base: string): string {
  const schema = `COALESCE(current_schema(), 'public')`;
  return `(CASE WHEN ${schema} = 'public' THEN ${base} WHEN octet_length(${base} || '@' || ${schema}) <= 63 THEN ${base} || '@' || ${schema} ELSE ${base} || '@' || md5(${schema}) END)`;
}

/** Raises `payload` on `channel` for the listeners of the caller's schema (in a transaction, at commit). */
export async function notify(sql: Sql, channel: string, payload: string): Promise<void> {
  await sql.query(`SELECT pg_notify(${channelSql('$1::text')}, $2)`, [channel, payload]);
}
