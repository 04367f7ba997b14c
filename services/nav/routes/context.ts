/** What the positioning routes share: the context, the guards, the receiver and the evidence store. */
import type { preValidationAsyncHookHandler } from 'fastify';
import type { ServiceContext } from '../../../platform/service.ts';
import type { NavEvidence } from '../evidence.ts';
import type { NavReceiver } from '../receiver.ts';
import type { NavSettings } from '../settings.ts';

export interface NavDeps {
  ctx: ServiceContext;
  /** Bearer key, then the plan's requests per minute. */
  auth: preValidationAsyncHookHandler[];
  receiver: NavReceiver;
  evidence: NavEvidence;
  settings: NavSettings;
}

export const bearerSecurity: Array<Record<string, string[]>> = [{ bearerAuth: [] }];
