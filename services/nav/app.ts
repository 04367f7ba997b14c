/** Builds the positioning service: the app with the nav error envelope, the live receiver, the guards and every route. */
import { createSource } from '../../engines/gnss/live/index.ts';
import { Leadership } from '../../platform/cluster/leader.ts';
import type { ServiceApp } from '../../platform/http/app.ts';
import { mountService } from '../../platform/http/mount.ts';
import { requireKey } from '../../platform/http/auth.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { ScenarioControl } from './control.ts';
import { formatNavError, navError, NavError } from './errors.ts';
import { NavEvidence } from './evidence.ts';
import { NAV_KEY_PREFIX } from './ids.ts';
import { limiterFor } from '../../platform/limits/windows.ts';
import { rateLimitHook } from './limits.ts';
import { advertisedAddress, LeaderForwarder } from './follower.ts';
import { NavReceiver } from './receiver.ts';
import type { NavDeps } from './routes/context.ts';
import { registerEvidence } from './routes/evidence.ts';
import { registerHealth } from './routes/health.ts';
import { registerHoldover } from './routes/holdover.ts';
import { registerIntegrity } from './routes/integrity.ts';
import { registerPage } from './routes/page.ts';
import { registerPosition } from './routes/position.ts';
import { registerSpoofing } from './routes/spoofing.ts';
import { registerTiming } from './routes/timing.ts';
import type { NavSettings } from './settings.ts';

export async function buildNavApp(ctx: ServiceContext, options: { prefix: string }, settings: NavSettings): Promise<ServiceApp> {
  return mountService<NavDeps>(options.prefix, {
    app: {
      bodyLimit: 1024 * 1024,
      formatError: formatNavError,
      docs: {
        title: 'Lattice positioning and timing service (interface 7)',
        version: '1.0.0',
        description:
          'Authenticated position, precise time, spoofing detection, holdover, evidence bundles and integrity from a live GNSS receiver ' +
          '(the built-in GPS + Galileo constellation simulator, a gpsd server, or a replayed receiver log), solved by the Lattice GNSS engine. ' +
          'Bearer keys (plan standard: 600 requests per minute per key). Every answer but /health and /evidence/keys is `{success, data}` ' +
          'or `{success: false, error: {code, message}}`. Positions and bundles are signed with ML-DSA-65 or ML-DSA-87; public keys at /evidence/keys.',
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: `A nav key (${NAV_KEY_PREFIX}_...)` } },
      },
    },
    schemas: [NavError],
    start(app) {
      const log = (m: string) => app.log.info(m);
      const makeReceiver = () =>
        new NavReceiver(
          ctx,
          createSource({ source: settings.source, site: settings.site, rate: settings.rate, seed: settings.seed }),
          { oscillator: settings.oscillator, anomalyEpochs: settings.anomalyEpochs, silenceIntervals: settings.silenceIntervals },
          log,
        );
      const deps: NavDeps = {
        ctx,
        receiver: makeReceiver(),
        evidence: new NavEvidence(ctx),
        settings,
        auth: [
          requireKey({
            db: ctx.db,
            service: 'nav',
            header: 'bearer',
            unauthorized: () => navError('UNAUTHORIZED', 'Missing or invalid API key (send Authorization: Bearer <key>)'),
          }),
          rateLimitHook(limiterFor(ctx.db), settings.requestsPerMinute, ctx.now),
        ],
      };

      // One receiver per source in the cluster (follower.ts): this process runs it while it leads.
      const leadershipName = `nav-receiver:${settings.source}`;
      const forwarder = new LeaderForwarder(ctx.db, leadershipName, options.prefix);
      let control: ScenarioControl | null = null;
      let receiverUsed = false;
      const leadership = new Leadership(ctx.db, leadershipName, {
        log,
        address: () => advertisedAddress(app.server.address()),
        onGain: async () => {
          // A receiver that ran once is not started again: a process leading anew starts afresh.
          if (receiverUsed) deps.receiver = makeReceiver();
          receiverUsed = true;
          await deps.receiver.start();
          control = new ScenarioControl(ctx.db, deps.receiver, settings.controlPollMs, log);
          control.start();
        },
        onLose: async () => {
          control?.stop();
          control = null;
          await deps.receiver.stop();
        },
      });
      app.addHook('onListen', async () => {
        await leadership.start();
      });
      app.addHook('onRequest', async (req, reply) => {
        if (leadership.isLeader || forwarder.isLocal(req.url)) return;
        // Fastify resolves listen() before its onListen hooks finish: a request that arrives
        // while the first attempt to lead is under way waits for its outcome (a few ms) instead
        // of being answered as by a follower that knows no leader (503).
        await leadership.decided();
        if (leadership.isLeader) return;
        return forwarder.forward(req, reply);
      });
      app.addHook('preClose', async () => forwarder.endStreams());
      return { deps, stop: () => leadership.stop() };
    },
    routes: [registerHealth, registerPosition, registerTiming, registerSpoofing, registerHoldover, registerEvidence, registerIntegrity],
    // The page and its assets name their full paths (the asset URLs carry the prefix).
    pages: [registerPage],
  });
}
