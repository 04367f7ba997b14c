/** What the runtime routes share. */
import type { ServiceContext } from '../../../platform/service.ts';
import type { RuntimeAuth } from '../auth.ts';
import type { RuntimeLifecycle } from '../lifecycle.ts';

export interface RuntimeDeps {
  ctx: ServiceContext;
  auth: RuntimeAuth;
  jobs: RuntimeLifecycle;
}

export const TAG_JOBS = 'Runtime jobs';
export const TAG_EVIDENCE = 'Evidence';
export const security = [{ bearerAuth: [] }];
