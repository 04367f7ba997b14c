/** Usage per key, model and UTC day, recorded when a call settles (or by the leases' flusher, in batches), read by the console. */
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

export interface UsageRecord {
  keyId: string;
  accountId: string;
  model: string;
  at: Date;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
}

/**
 * Many calls' usage in one statement: the same rows and `last_used_at` as one `recordUsage`
 * per call, in call order (the flusher of the credit leases writes them this way).
 */
export async function recordUsageBatch(db: Sql, records: readonly UsageRecord[]): Promise<void> {
  if (records.length === 0) return;
  // One row per key, model and day: an upsert may not touch the same row twice.
  const rows = new Map<string, { keyId: string; accountId: string; model: string; day: string; requests: number; prompt: number; completion: number; cost: number }>();
  const lastUsed = new Map<string, Date>();
  for (const r of records) {
    const day = r.at.toISOString().slice(0, 10);
    const id = `${r.keyId}\u0000${r.model}\u0000${day}`;
    const row = rows.get(id) ?? { keyId: r.keyId, accountId: r.accountId, model: r.model, day, requests: 0, prompt: 0, completion: 0, cost: 0 };
    row.requests++;
    row.prompt += r.promptTokens;
    row.completion += r.completionTokens;
    row.cost += r.costMicros;
    rows.set(id, row);
    lastUsed.set(r.keyId, r.at);
  }
  // A fixed order of the rows locked (usage rows, then keys): two writers never wait on each other in a circle.
  const list = [...rows.values()].sort((x, y) => (x.keyId < y.keyId ? -1 : x.keyId > y.keyId ? 1 : x.model < y.model ? -1 : x.model > y.model ? 1 : x.day < y.day ? -1 : x.day > y.day ? 1 : 0));
  const keys = [...lastUsed.keys()].sort();
  await db.query(
    `WITH used AS (
       INSERT INTO llm_gateway_usage (key_id, account_id, model, day, requests, prompt_tokens, completion_tokens, cost_micros)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[])
       ON CONFLICT (key_id, model, day) DO UPDATE SET
         requests = llm_gateway_usage.requests + EXCLUDED.requests,
         prompt_tokens = llm_gateway_usage.prompt_tokens + EXCLUDED.prompt_tokens,
         completion_tokens = llm_gateway_usage.completion_tokens + EXCLUDED.completion_tokens,
         cost_micros = llm_gateway_usage.cost_micros + EXCLUDED.cost_micros
     )
     UPDATE api_keys k SET last_used_at = u.at FROM unnest($9::text[], $10::timestamptz[]) AS u(id, at) WHERE k.id = u.id`,
    [
      list.map((r) => r.keyId),
      list.map((r) => r.accountId),
      list.map((r) => r.model),
      list.map((r) => r.day),
      list.map((r) => r.requests),
      list.map((r) => r.prompt),
      list.map((r) => r.completion),
      list.map((r) => r.cost),
      keys,
      keys.map((k) => lastUsed.get(k)!.toISOString()),
    ],
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
