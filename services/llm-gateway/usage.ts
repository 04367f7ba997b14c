/** Usage per key, model and UTC day, recorded when a call settles, read by the console. */
import type { Sql } from '../../platform/storage/database.ts';

export async function recordUsage(
  db: Sql,
  u: { keyId: string; accountId: string; model: string; at: Date; promptTokens: number; completionTokens: number; costMicros: number },
): Promise<void> {
  await db.query(
    `WITH used AS (
       INSERT INTO llm_gateway_usage (key_id, account_id, model, day, requests, prompt_tokens, completion_tokens, cost_micros)
       VALUES ($1, $2, $3, $4::date, 1, $5, $6, $7)
       ON CONFLICT (key_id, model, day) DO UPDATE SET
         requests = llm_gateway_usage.requests + 1,
         prompt_tokens = llm_gateway_usage.prompt_tokens + EXCLUDED.prompt_tokens,
         completion_tokens = llm_gateway_usage.completion_tokens + EXCLUDED.completion_tokens,
         cost_micros = llm_gateway_usage.cost_micros + EXCLUDED.cost_micros
     )
     UPDATE api_keys SET last_used_at = $8 WHERE id = $1`,
    [u.keyId, u.accountId, u.model, u.at.toISOString().slice(0, 10), u.promptTokens, u.completionTokens, u.costMicros, u.at],
  );
}

export interface UsageRow {
  day: string;
  keyId: string;
  keyName: string | null;
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

/** The workspace's usage of the last `days` UTC days (today included), one row per key, model and day. */
export async function readUsage(db: Sql, accountId: string, now: Date, days: number): Promise<UsageRow[]> {
  const since = new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const rows = await db.query<{
    day: Date | string;
    key_id: string;
    name: string | null;
    model: string;
    requests: number | string;
    prompt_tokens: number | string;
    completion_tokens: number | string;
    cost_micros: number | string;
  }>(
    `SELECT to_char(u.day, 'YYYY-MM-DD') AS day, u.key_id, k.name, u.model, u.requests, u.prompt_tokens, u.completion_tokens, u.cost_micros
       FROM llm_gateway_usage u JOIN api_keys k ON k.id = u.key_id
      WHERE u.account_id = $1 AND u.day >= $2::date ORDER BY u.day, u.key_id, u.model`,
    [accountId, since],
  );
  return rows.map((r) => ({
    day: String(r.day),
    keyId: r.key_id,
    keyName: r.name,
    model: r.model,
    requests: Number(r.requests),
    promptTokens: Number(r.prompt_tokens),
    completionTokens: Number(r.completion_tokens),
    costUsd: Number(r.cost_micros) / 1e6,
  }));
}
