/** What every chat route needs, built once in app.ts. */
import type { ConsoleSessions } from '../../../platform/http/session.ts';
import type { ServiceContext } from '../../../platform/service.ts';
import type { ChatConfig } from '../config.ts';
import type { SlotModels } from '../models.ts';
import type { ChatStore } from '../store.ts';

export interface ChatDeps {
  ctx: ServiceContext;
  config: ChatConfig;
  store: ChatStore;
  sessions: ConsoleSessions;
  models: SlotModels;
  prefix: string;
}

export const TAG = 'chat';
export const sessionSecurity = [{ sessionCookie: [] }];
