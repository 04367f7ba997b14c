/**
 * The training set of a tenant, built from its feedback: a correction teaches its text as the
 * reply to the prompt it corrects; a thumbs up, or a rating of 4 or 5, teaches the reply that
 * was given. Thumbs down, reports and low ratings say what not to answer, which supervised
 * LoRA cannot learn from, so they are counted but not trained on. The prompt comes from the
 * tenant's own completion named by `message_id` (never another tenant's), or from the
 * feedback's `metadata.prompt` (with `metadata.response` for positives) when the reply was
 * produced elsewhere. One sample per message: the latest feedback on it wins.
 */
import type { TrainingPair } from '../../../engines/language/builtin/lora.ts';
import type { Sql } from '../../../platform/storage/database.ts';

interface Row {
  message_id: string | null;
  type: string;
  rating: number | null;
  correction: string | null;
  metadata: Record<string, unknown>;
  prompt: string | null;
  system: string | null;
  reply: string | null;
}

export async function trainingPairs(db: Sql, tenantId: string, systemPrompt: string | null): Promise<TrainingPair[]> {
  const rows = await db.query<Row>(
    `SELECT f.message_id, f.type, f.rating, f.correction, f.metadata, c.prompt, c.system, c.reply
       FROM llm_feedback f
       LEFT JOIN llm_completions c ON c.id = f.message_id AND c.tenant_id = f.tenant_id
      WHERE f.tenant_id = $1
      ORDER BY f.created_at, f.id`,
    [tenantId],
  );
  const byMessage = new Map<string, TrainingPair>();
  let anonymous = 0;
  for (const r of rows) {
    const meta = r.metadata ?? {};
    const prompt = r.prompt ?? (typeof meta.prompt === 'string' ? meta.prompt : null);
    if (!prompt) continue;
    const system = r.prompt !== null ? r.system : systemPrompt;
    let completion: string | null = null;
    if (r.type === 'correction') completion = r.correction;
    else if (r.type === 'thumbs_up' || (r.type === 'rating' && (r.rating ?? 0) >= 4)) {
      completion = r.reply ?? (typeof meta.response === 'string' ? meta.response : null);
    } else if (r.message_id) {
      // A later negative judgement withdraws an earlier positive one on the same message.
      byMessage.delete(r.message_id);
      continue;
    }
    if (!completion || !completion.trim()) continue;
    const pair: TrainingPair = { prompt, completion, ...(system ? { system } : {}) };
    byMessage.set(r.message_id ?? `anonymous:${anonymous++}`, pair);
  }
  return [...byMessage.values()];
}
