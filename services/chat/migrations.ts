/** Tables of the chat application: sessions, conversations, messages, daily message counters. */
import { sessionTableSql } from '../../platform/http/session.ts';
import type { Migration } from '../../platform/storage/migrate.ts';

export const chatMigrations: Migration[] = [
  {
    id: 'chat/0001_init',
    sql: `${sessionTableSql('chat_sessions')}
--;
CREATE TABLE chat_conversations (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES console_users(id) ON DELETE CASCADE,
  title text NOT NULL,
  model text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
--;
CREATE INDEX chat_conversations_owner ON chat_conversations (account_id, updated_at DESC);
--;
CREATE TABLE chat_messages (
  id text PRIMARY KEY,
  conversation_id text NOT NULL REFERENCES chat_conversations(id) ON DELETE CASCADE,
  -- Order within the conversation; a user message and its reply are written together.
  seq bigint NOT NULL,
  role text NOT NULL CHECK (role IN ('user', 'assistant')),
  content text NOT NULL,
  model text NOT NULL,
  -- complete | stopped (the user stopped it) | failed (the model failed; the error is kept)
  status text NOT NULL CHECK (status IN ('complete', 'streaming', 'stopped', 'failed')),
  error text,
  prompt_tokens integer,
  completion_tokens integer,
  created_at timestamptz NOT NULL,
  UNIQUE (conversation_id, seq)
);
--;
-- One row per account and UTC day; both counters move in one statement (limits.ts).
CREATE TABLE chat_daily_usage (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  day date NOT NULL,
  messages integer NOT NULL DEFAULT 0 CHECK (messages >= 0),
  pro_messages integer NOT NULL DEFAULT 0 CHECK (pro_messages >= 0),
  PRIMARY KEY (account_id, day)
);
`,
  },
];
