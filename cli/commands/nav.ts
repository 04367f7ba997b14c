/**
 * `lattice nav scenario spoofing|jamming|signal-loss|clear`: the operator's switch for the
 * positioning service's simulator. It writes the request to the store (the service reads it
 * within half a second; no public route can do this) and, when a service is running on that
 * store, waits briefly for it to say what it did.
 */
import type { Command } from 'commander';
import { printResult, withStore, withStoreOptions, type StoreFlags } from '../lib/store.ts';

const SCENARIOS = ['spoofing', 'jamming', 'signal-loss', 'clear'];

export function register(program: Command): void {
  const nav = program.command('nav').description('positioning and timing service (operator)');
  withStoreOptions(
    nav
      .command('scenario')
      .description('start a spoofing, jamming or signal-loss scenario on the running simulator, or clear it')
      .argument('<name>', SCENARIOS.join('|'))
      .option('--wait <seconds>', 'how long to wait for a running service to apply it (0: do not wait)', '3')
      .option('--json', 'print one JSON object'),
  ).action(async (name: string, o: { wait: string; json?: boolean } & StoreFlags) => {
    if (!SCENARIOS.includes(name)) throw new Error(`scenario must be one of ${SCENARIOS.join(', ')}, got "${name}"`);
    const wait = Number(o.wait);
    if (!Number.isFinite(wait) || wait < 0 || wait > 60) throw new Error(`--wait must be a number of seconds from 0 to 60, got "${o.wait}"`);
    const { requestScenario, scenarioAck } = await import('../../services/nav/control.ts');
    const result = await withStore(o, async (s) => {
      const seq = await requestScenario(s.db, name);
      const deadline = Date.now() + wait * 1000;
      let ack = await scenarioAck(s.db, seq);
      while (!ack.applied && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        ack = await scenarioAck(s.db, seq);
      }
      return { scenario: name, request: seq, applied: ack.applied, message: ack.message ?? (wait > 0 ? `no running nav service applied it within ${wait} s; it applies when one starts` : 'requested') };
    });
    printResult(result, o.json);
  });
}
