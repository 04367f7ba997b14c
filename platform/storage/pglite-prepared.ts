/**
 * The embedded store's statements as named prepared statements. PGlite's own `query` sends
 * each statement as six protocol exchanges with the WebAssembly backend (parse, describe the
 * statement, bind, describe the portal, execute, sync) and PostgreSQL plans it afresh every
 * time; planning the job queue's insert took 0.8 ms of the 1.5 ms it spent in the backend.
 * Here a statement is parsed and described once, under a name, and each execution is one
 * exchange (bind, execute, sync), after which PostgreSQL's plan cache keeps a generic plan
 * where it costs no more than custom ones, as it does for any client's prepared statements.
 * A parameterised SELECT of a CTE and an index scan: 758 us of CPU through `query`, 127 us
 * here (load 7, 2 cores).
 *
 * Parameters are serialized and results parsed with the instance's own serializers and
 * parsers, by the types the backend described, exactly as `query` does. The names carry a
 * prefix of their own: processes reaching the store through its socket share its session.
 * At most `capacity` statements are kept; the least recently used one is closed to make room.
 */
import { types, type PGlite } from '@electric-sql/pglite';
import { serialize } from 'pg-protocol';

interface Prepared {
  readonly name: string;
  readonly paramTypes: readonly number[];
  readonly fields: readonly { readonly name: string; readonly dataTypeID: number }[];
}

interface ProtocolMessage {
  name: string;
  dataTypeIDs?: number[];
  fields?: unknown[];
}

/** SQLSTATE of a statement whose cached plan no longer fits the schema, and of a name the session lost. */
const REPLAN = new Set(['0A000', '26000']);

/**
 * Whether `err` is the server refusing a prepared statement under its name (its cached plan
 * no longer fits the schema, or the session lost the name): the statement is to be prepared
 * again. Both stores' prepared statements (here and pg-prepared.ts) go by it.
 */
export function needsReplan(err: unknown): boolean {
  return REPLAN.has((err as { code?: string }).code ?? '');
}

/** Instances in this process, so that two of them on one session never share a name. */
let instances = 0;

export class PreparedStatements {
  private readonly statements = new Map<string, Prepared>();
  /** Names whose Close goes out with the next exchange. */
  private readonly closing: string[] = [];
  private next = 1;
  private readonly prefix = `lattice_stmt_${++instances}_`;

  constructor(
    private readonly pg: PGlite,
    private readonly capacity = 256,
  ) {}

  /** Rows of `text` run with `params`. `inTransaction`: the caller holds the store's transaction (no lock taken, no sync to disk). */
  async query<T>(text: string, params: readonly unknown[], inTransaction: boolean): Promise<T[]> {
    const run = () => this.pg._runExclusiveQuery(() => this.execute<T>(text, params, inTransaction));
    if (inTransaction) return run();
    await this.pg._checkReady();
    const rows = await this.pg._runExclusiveTransaction(run);
    await this.pg.syncToFs();
    return rows;
  }

  private async execute<T>(text: string, params: readonly unknown[], inTransaction: boolean): Promise<T[]> {
    try {
      return await this.bindAndExecute<T>(await this.prepared(text), params);
    } catch (err) {
      // After a schema change under a statement (or a session reset by a socket client), the
      // statement is prepared again and run once more; not inside a transaction, which the
      // failure has aborted (the caller's transaction fails, as it would have without this).
      if (!needsReplan(err)) throw err;
      this.forget(text);
      if (inTransaction) throw err;
      return this.bindAndExecute<T>(await this.prepared(text), params);
    }
  }

  private async prepared(text: string): Promise<Prepared> {
    const known = this.statements.get(text);
    if (known) {
      // Most recently used last: the Map's order is the eviction order.
      this.statements.delete(text);
      this.statements.set(text, known);
      return known;
    }
    const name = `${this.prefix}${this.next++}`;
    const messages = await this.pg.execProtocolStream(
      Buffer.concat([...this.closes(), serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    const described = messages as unknown as ProtocolMessage[];
    const paramTypes = described.find((m) => m.name === 'parameterDescription')?.dataTypeIDs ?? [];
    const rowDescription = described.find((m) => m.name === 'rowDescription');
    const fields = ((rowDescription?.fields ?? []) as { name: string; dataTypeID: number }[]).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
    const statement = { name, paramTypes, fields };
    this.statements.set(text, statement);
    while (this.statements.size > this.capacity) {
      const [oldest, evicted] = this.statements.entries().next().value as [string, Prepared];
      this.statements.delete(oldest);
      this.closing.push(evicted.name);
    }
    return statement;
  }

  private async bindAndExecute<T>(statement: Prepared, params: readonly unknown[]): Promise<T[]> {
    const values = params.map((value, i) => {
      if (value == null) return null;
      const serializer = this.pg.serializers[statement.paramTypes[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const messages = await this.pg.execProtocolStream(
      Buffer.concat([...this.closes(), serialize.bind({ statement: statement.name, values }), serialize.execute({}), serialize.sync()]),
      { syncToFs: false },
    );
    const rows: T[] = [];
    const fields = statement.fields;
    for (const message of messages as unknown as ProtocolMessage[]) {
      if (message.name !== 'dataRow') continue;
      const row: Record<string, unknown> = {};
      const values = message.fields as (string | null)[];
      for (let i = 0; i < fields.length; i++) row[fields[i]!.name] = types.parseType(values[i]!, fields[i]!.dataTypeID, this.pg.parsers);
      rows.push(row as T);
    }
    return rows;
  }

  private forget(text: string): void {
    const statement = this.statements.get(text);
    if (!statement) return;
    this.statements.delete(text);
    this.closing.push(statement.name);
  }

  private closes(): Buffer[] {
    return this.closing.splice(0).map((name) => serialize.close({ type: 'S', name }));
  }
}
