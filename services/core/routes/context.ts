/** What the core routes share: the service context, the authentication guard and the measured figures. */
import type { preValidationAsyncHookHandler } from 'fastify';
import type { ServiceContext } from '../../../platform/service.ts';
import type { ResponseTimes } from '../response-times.ts';
import type { CoreJobs } from '../jobs.ts';
import type { CoreEvidence } from '../evidence.ts';

export interface CoreDeps {
  ctx: ServiceContext;
  /** `X-API-Key` or `Authorization: Bearer`, then the plan's requests per minute. */
  auth: preValidationAsyncHookHandler[];
  responseTimes: ResponseTimes;
  jobs: CoreJobs;
  evidence: CoreEvidence;
  startedAt: Date;
}

export const keySecurity: Array<Record<string, string[]>> = [{ apiKey: [] }, { bearerAuth: [] }];
