/**
 * The operator's scenario switch: `lattice nav scenario NAME` writes the one row of
 * `nav_control` (a new `seq`); the running service reads it every half second, applies a new
 * seq once to its simulator source and writes back what it did. The row is the desired state,
 * so a restarted service applies the scenario in force. No public route can reach it.
 */
import { isOperatorScenario } from '../../engines/gnss/live/source.ts';
import { SimulatorSource } from '../../engines/gnss/live/simulator-source.ts';
import type { Sql } from '../../platform/storage/database.ts';
import type { NavReceiver } from './receiver.ts';

export class ScenarioControl {
  private timer?: NodeJS.Timeout;
  private applied = -1;
  private busy = false;

  constructor(
    private readonly db: Sql,
    private readonly receiver: NavReceiver,
    private readonly pollMs: number,
    private readonly log: (msg: string) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
    void this.poll();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Reads the switch once and applies a new request (exported for tests that do not want to wait). */
  async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const [row] = await this.db.query<{ seq: string | number; scenario: string }>('SELECT seq, scenario FROM nav_control WHERE id = 1');
      if (!row || Number(row.seq) === this.applied) return;
      const seq = Number(row.seq);
      this.applied = seq;
      const source = this.receiver.source;
      let message: string;
      if (!isOperatorScenario(row.scenario)) message = `unknown scenario "${row.scenario}": nothing changed`;
      else if (source instanceof SimulatorSource) {
        source.setScenario(row.scenario);
        message = row.scenario === 'clear' ? 'scenarios cleared on the simulator' : `scenario ${row.scenario} started on the simulator`;
      } else message = `the source is ${source.description}: scenarios act on the simulator only, nothing changed`;
      this.log(`nav: ${message}`);
      await this.db.query('UPDATE nav_control SET applied_seq = $1, applied_at = now(), applied_message = $2 WHERE id = 1 AND seq = $1', [seq, message]);
    } catch (err) {
      this.log(`nav: reading the scenario switch failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.busy = false;
    }
  }
}

/** Writes a scenario request (the CLI side); returns its seq. */
export async function requestScenario(db: Sql, scenario: string): Promise<number> {
  const [row] = await db.query<{ seq: string | number }>(
    `INSERT INTO nav_control (id, seq, scenario, requested_at) VALUES (1, 1, $1, now())
     ON CONFLICT (id) DO UPDATE SET seq = nav_control.seq + 1, scenario = EXCLUDED.scenario, requested_at = now(),
       applied_seq = nav_control.applied_seq
     RETURNING seq`,
    [scenario],
  );
  return Number(row!.seq);
}

/** What the running service did with request `seq`, if it has read it yet. */
export async function scenarioAck(db: Sql, seq: number): Promise<{ applied: boolean; message: string | null }> {
  const [row] = await db.query<{ applied_seq: string | number | null; applied_message: string | null }>('SELECT applied_seq, applied_message FROM nav_control WHERE id = 1');
  const applied = row?.applied_seq !== null && row?.applied_seq !== undefined && Number(row.applied_seq) >= seq;
  return { applied, message: applied ? (row?.applied_message ?? null) : null };
}
