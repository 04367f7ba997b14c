/**
 * Conversations and their messages in the database. Every read and write is scoped by the
 * owning account, so another account's conversation is indistinguishable from a missing one.
 */
import { newId } from '../../platform/identity/ids.ts';
import type { Sql } from '../../platform/storage/database.ts';
import { errors } from './errors.ts';

export interface Conversation {
  id: string;
  title: string;
  model: string;
  createdAt: string;
  updatedAt: string;
}

export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'failed';

export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  model: string;
  status: MessageStatus;
  error: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  createdAt: string;
}

interface ConversationRow {
  id: string;
  title: string;
  model: string;
  created_at: Date | string;
  updated_at: Date | string;
}
interface MessageRow {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  model: string;
  status: MessageStatus;
  error: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  created_at: Date | string;
}

const iso = (d: Date | string): string => new Date(d).toISOString();

const toConversation = (r: ConversationRow): Conversation => ({
  id: r.id,
  title: r.title,
  model: r.model,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toMessage = (r: MessageRow): Message => ({
  id: r.id,
  role: r.role,
  content: r.content,
  model: r.model,
  status: r.status,
  error: r.error,
  promptTokens: r.prompt_tokens === null ? null : Number(r.prompt_tokens),
  completionTokens: r.completion_tokens === null ? null : Number(r.completion_tokens),
  createdAt: iso(r.created_at),
});

/** A title from the first message: its first line, cut at a word near 60 characters. */
export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ');
  if (line.length <= 60) return line || 'New chat';
  const cut = line.slice(0, 60);
  const space = cut.lastIndexOf(' ');
  return `${space > 30 ? cut.slice(0, space) : cut}…`;
}

export const NEW_CHAT_TITLE = 'New chat';

export class ChatStore {
  constructor(private readonly db: Sql) {}

  async create(owner: { accountId: string; userId: string }, input: { model: string; title?: string }, now: Date): Promise<Conversation> {
    const [row] = await this.db.query<ConversationRow>(
      `INSERT INTO chat_conversations (id, account_id, user_id, title, model, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id, title, model, created_at, updated_at`,
      [newId('conv'), owner.accountId, owner.userId, input.title?.trim() || NEW_CHAT_TITLE, input.model, now],
    );
    return toConversation(row!);
  }

  async list(accountId: string, limit: number, before?: string): Promise<Conversation[]> {
    const rows = await this.db.query<ConversationRow>(
      `SELECT id, title, model, created_at, updated_at FROM chat_conversations
        WHERE account_id = $1 AND ($2::timestamptz IS NULL OR updated_at < $2)
        ORDER BY updated_at DESC, id DESC LIMIT $3`,
      [accountId, before ?? null, limit],
    );
    return rows.map(toConversation);
  }

  /** The conversation, or the 404 (also for another account's). */
  async get(accountId: string, id: string): Promise<Conversation> {
    const [row] = await this.db.query<ConversationRow>(
      'SELECT id, title, model, created_at, updated_at FROM chat_conversations WHERE id = $1 AND account_id = $2',
      [id, accountId],
    );
    if (!row) throw errors.conversationNotFound();
    return toConversation(row);
  }

  async update(accountId: string, id: string, patch: { title?: string; model?: string }, now: Date): Promise<Conversation> {
    const [row] = await this.db.query<ConversationRow>(
      `UPDATE chat_conversations SET title = COALESCE($3, title), model = COALESCE($4, model), updated_at = $5
        WHERE id = $1 AND account_id = $2 RETURNING id, title, model, created_at, updated_at`,
      [id, accountId, patch.title?.trim() || null, patch.model ?? null, now],
    );
    if (!row) throw errors.conversationNotFound();
    return toConversation(row);
  }

  async remove(accountId: string, id: string): Promise<void> {
    const rows = await this.db.query('DELETE FROM chat_conversations WHERE id = $1 AND account_id = $2 RETURNING id', [id, accountId]);
    if (rows.length === 0) throw errors.conversationNotFound();
  }

  async messages(conversationId: string): Promise<Message[]> {
    const rows = await this.db.query<MessageRow>(
      `SELECT id, role, content, model, status, error, prompt_tokens, completion_tokens, created_at
         FROM chat_messages WHERE conversation_id = $1 ORDER BY seq`,
      [conversationId],
    );
    return rows.map(toMessage);
  }

  /**
   * Appends the user's message and an empty assistant reply marked `streaming`, in one
   * statement, and names the conversation after its first message.
   */
  async startTurn(conversation: Conversation, content: string, model: string, now: Date): Promise<{ user: Message; reply: Message }> {
    const userId = newId('msg');
    const replyId = newId('msg');
    const rows = await this.db.query<MessageRow>(
      `WITH next AS (SELECT COALESCE(MAX(seq), 0) AS seq FROM chat_messages WHERE conversation_id = $1),
            touched AS (
              UPDATE chat_conversations SET updated_at = $5,
                     title = CASE WHEN title = $7 AND NOT EXISTS (SELECT 1 FROM chat_messages WHERE conversation_id = $1) THEN $6 ELSE title END
               WHERE id = $1 RETURNING id)
       INSERT INTO chat_messages (id, conversation_id, seq, role, content, model, status, created_at)
       SELECT v.id, $1, next.seq + v.n, v.role, v.content, $4, v.status, $5
         FROM next, touched, (VALUES ($2, 1, 'user', $3, 'complete'), ($8, 2, 'assistant', '', 'streaming')) AS v(id, n, role, content, status)
       RETURNING id, role, content, model, status, error, prompt_tokens, completion_tokens, created_at`,
      [conversation.id, userId, content, model, now, titleFrom(content), NEW_CHAT_TITLE, replyId],
    );
    const user = rows.find((r) => r.id === userId);
    const reply = rows.find((r) => r.id === replyId);
    // The conversation was read a moment ago; if it was deleted since, it is gone for the user too.
    if (!user || !reply) throw errors.conversationNotFound();
    return { user: toMessage(user), reply: toMessage(reply) };
  }

  /** Writes the reply's final text and state. */
  async finishReply(
    id: string,
    result: { content: string; status: MessageStatus; error?: string; promptTokens?: number; completionTokens?: number },
  ): Promise<Message> {
    const [row] = await this.db.query<MessageRow>(
      `UPDATE chat_messages SET content = $2, status = $3, error = $4, prompt_tokens = $5, completion_tokens = $6
        WHERE id = $1 RETURNING id, role, content, model, status, error, prompt_tokens, completion_tokens, created_at`,
      [id, result.content, result.status, result.error ?? null, result.promptTokens ?? null, result.completionTokens ?? null],
    );
    if (!row) throw errors.conversationNotFound();
    return toMessage(row);
  }
}
