/** Schema of the webhooks module: registered webhooks and a log row for every delivery attempt. */
import { channelSql } from '../storage/channels.ts';
import { CHANGES_CHANNEL } from '../storage/changes.ts';
import type { Migration } from '../storage/migrate.ts';
import { WEBHOOKS_TOPIC } from './none-known.ts';

export const webhookMigrations: Migration[] = [
  {
    id: 'webhooks/0001_init',
    sql: `
CREATE TABLE webhooks (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  service text NOT NULL,
  -- Narrows the webhook to one part of the account (e.g. a tenant id); NULL receives every event of the account.
  scope text,
  url text NOT NULL,
  events text[] NOT NULL,
  -- The HMAC key: kept as given, since signing needs it.
  secret text NOT NULL,
  -- 'general' ({id, event, created_at, data}) or 'qcos' (interface 1's payload with a body signature).
  style text NOT NULL DEFAULT 'general',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX webhooks_owner ON webhooks (account_id, service, scope);
--;
CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event text NOT NULL,
  attempt integer NOT NULL,
  success boolean NOT NULL,
  -- NULL when no response came back (timeout, refused connection).
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  delivered_at timestamptz NOT NULL DEFAULT now()
);
--;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
--;
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
`,
  },
  {
    // Every change of a webhook names its account, so that the accounts known to have none
    // (none-known.ts) are forgotten at once.
    id: 'webhooks/0002_change_notices',
    sql: `
CREATE FUNCTION webhooks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${CHANGES_CHANNEL}', '${WEBHOOKS_TOPIC}:' || COALESCE(NEW.account_id, OLD.account_id));
  IF TG_OP = 'UPDATE' AND NEW.account_id <> OLD.account_id THEN
    PERFORM pg_notify('${CHANGES_CHANNEL}', '${WEBHOOKS_TOPIC}:' || OLD.account_id);
  END IF;
  RETURN NULL;
END
$$;
--;
CREATE TRIGGER webhooks_changed AFTER INSERT OR UPDATE OR DELETE ON webhooks
  FOR EACH ROW EXECUTE FUNCTION webhooks_changed();
`,
  },
  {
    // The notices go to the channel of the schema (platform/storage/channels.ts).
    id: 'webhooks/0003_change_notices_by_schema',
    sql: `
CREATE OR REPLACE FUNCTION webhooks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(${channelSql(`'${CHANGES_CHANNEL}'`)}, '${WEBHOOKS_TOPIC}:' || COALESCE(NEW.account_id, OLD.account_id));
  IF TG_OP = 'UPDATE' AND NEW.account_id <> OLD.account_id THEN
    PERFORM pg_notify(${channelSql(`'${CHANGES_CHANNEL}'`)}, '${WEBHOOKS_TOPIC}:' || OLD.account_id);
  END IF;
  RETURN NULL;
END
$$;
`,
  },
];
