/**
 * One chat call from admission to settlement:
 *   balance > 0 (402) -> model in the catalog (403) -> rpm/tpm (429) -> the worst case
 *   reserved against the balance and the key's spendLimit (402) -> the model -> the actual
 *   usage charged, the rest given back, usage recorded per key, model and day.
 * The money goes through credit leases (leases.ts): in the common case no step of a call waits
 * on the database; finished calls are written to the ledger in batches.
 * A call that fails before generating anything gives back its whole reservation; a stream cut
 * off by the client, by a revoked key or by the upstream settles what was generated.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ServerResponse } from 'node:http';
import type { ModelRegistry } from '../../engines/language/registry.ts';
import type { ChatChunk, ChatRequest, FinishReason, Usage } from '../../engines/language/types.ts';
import { BillingError, repairHolds } from '../../platform/billing/index.ts';
import type { KeyAuthenticator } from '../../platform/identity/key-cache.ts';
import type { Identity } from '../../platform/identity/keys.ts';
import type { ServiceContext } from '../../platform/service.ts';
import type { Catalog, GatewayModel } from './catalog.ts';
import { errors, gatewayError } from './errors.ts';
import { SERVICE_ID, limitsOf, spendScope, type KeyLimits } from './keys.ts';
import { CreditLeases, type LeaseOptions, type Reservation } from './leases.ts';
import { limiterFor } from '../../platform/limits/windows.ts';
import { onChange } from '../../platform/storage/changes.ts';
import { startLeaderLoop, type LeaderLoop } from '../../platform/cluster/loop.ts';
import { MinuteCounters } from './limits.ts';
import { promptTokensEstimate, usageCost, worstCaseMicros } from './metering.ts';
import { countGatewayCall, countGatewayUsage } from '../../platform/observability/families.ts';
import type { ChatCall } from './request.ts';
import { modelLayerError } from './upstream-errors.ts';

export interface GatewayOptions {
  /** Longest a call may run, streamed or not (default 10 minutes); its hold expires a minute later. */
  maxCallMs?: number;
  /** How often a stream re-checks that its key is still valid (default 500 ms). */
  keyRecheckMs?: number;
  /** Credit leases: flush interval, idle time, sizes (leases.ts). */
  leases?: LeaseOptions;
}

const OWNER = `${SERVICE_ID}@${hostname()}:${process.pid}`;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface CompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: { role: 'assistant'; content: string }; finish_reason: string }[];
  usage: Usage;
}

/** How an admitted call ended (its `lattice_gateway_calls_total` outcome). */
export type CallOutcome = Parameters<typeof countGatewayCall>[1];

export interface Admitted {
  requestId: string;
  model: GatewayModel;
  money: Reservation;
  minute: number | null;
}

/** Change notices (platform/storage/changes.ts) of a key's limits; the payload is the key id. */
export const KEY_LIMIT_CHANGES = 'llm-gateway.key-limits';

export class Gateway {
  private readonly limitCache = new Map<string, { limits: KeyLimits; at: number }>();
  private repairLoop: LeaderLoop | null = null;
  private stopFollowing: (() => void) | null = null;
  readonly maxCallMs: number;
  readonly keyRecheckMs: number;
  readonly leases: CreditLeases;
  readonly minutes: MinuteCounters;

  constructor(
    readonly ctx: ServiceContext,
    readonly models: ModelRegistry,
    readonly catalog: Catalog,
    readonly keys: KeyAuthenticator,
    options: GatewayOptions = {},
  ) {
    this.maxCallMs = options.maxCallMs ?? 600_000;
    this.keyRecheckMs = options.keyRecheckMs ?? 500;
    this.minutes = new MinuteCounters(ctx.db, limiterFor(ctx.db));
    this.leases = new CreditLeases(ctx.db, ctx.now, { service: SERVICE_ID, owner: OWNER, maxCallMs: this.maxCallMs, scope: spendScope }, options.leases, (err) =>
      console.error(err instanceof Error ? err.message : err),
    );
  }

  /**
   * Holds (calls' and leases') of processes that died: released at start (same host, process
   * gone) or once expired (any host). A call that never finished charges nothing; a lease gives
   * back what it has left (charges it had not written yet are lost: leases.ts). Then every minute.
   */
  async startRepair(): Promise<void> {
    // A key's limits changed in another process: drop them here, and retire this process's
    // leases of the key (placed under the old spend limit), as the changing process did.
    this.stopFollowing = await onChange(this.ctx.db, KEY_LIMIT_CHANGES, (keyId) => {
      this.limitCache.delete(keyId);
      void this.leases.retireKey(keyId).catch(() => {});
    });
    const run = async (): Promise<void> => {
      const now = this.ctx.now();
      await repairHolds(this.ctx.db, {
        service: SERVICE_ID,
        now,
        resolve: (hold, expired) => {
          const [host, pid] = hold.owner.slice(SERVICE_ID.length + 1).split(':');
          const dead = host === hostname() && Number(pid) !== process.pid && !processAlive(Number(pid));
          return dead || expired ? { release: true } : null;
        },
      });
      this.minutes.prune(now);
    };
    await run();
    // Then every minute in one process of the cluster.
    this.repairLoop = await startLeaderLoop(this.ctx.db, 'llm-gateway-repair', 60_000, run);
    this.leases.start();
  }

  /** Stops repair, lets running calls finish (briefly), writes every charge and gives the leases back. */
  async close(): Promise<void> {
    this.stopFollowing?.();
    await this.repairLoop?.stop();
    this.repairLoop = null;
    await this.leases.close();
    await this.minutes.flush();
  }

  /** Limits of a key, cached for 5 s (dropped at once when any process of the cluster changes them). */
  async limits(keyId: string): Promise<KeyLimits> {
    const hit = this.limitCache.get(keyId);
    if (hit && performance.now() - hit.at < 5_000) return hit.limits;
    const limits = await limitsOf(this.ctx.db, keyId);
    if (this.limitCache.size > 10_000) this.limitCache.clear();
    this.limitCache.set(keyId, { limits, at: performance.now() });
    return limits;
  }

  forgetLimits(keyId: string): void {
    this.limitCache.delete(keyId);
  }

  /** 402 before anything runs when the workspace has no credit left (spec rule 1); lease money counts as credit. */
  async requireCredit(identity: Identity): Promise<void> {
    if (!(await this.leases.hasCredit(identity.accountId, identity.keyId))) throw errors.insufficientCredits();
  }

  /** Everything before the model runs; on success the call's worst case is reserved. */
  async admit(identity: Identity, call: ChatCall): Promise<Admitted> {
    await this.requireCredit(identity);
    const requestId = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
    const model = this.catalog.find(call.model);
    if (!model || !model.public) {
      if (this.catalog.models.length === 0) throw gatewayError(503, 'server_error', 'Chat service is not configured', requestId);
      const available = this.catalog.models.filter((m) => m.public).map((m) => m.id);
      throw gatewayError(403, 'permission_error', `Model ${call.model} is not available on this API. Available models: ${available.join(', ')}`, requestId);
    }
    const limits = await this.limits(identity.keyId);
    const now = this.ctx.now();
    const minute = await this.minutes.admit(identity.keyId, limits, now, requestId);
    let money: Reservation;
    try {
      money = await this.leases.reserve(identity.accountId, identity.keyId, limits.spendLimitMicros, worstCaseMicros(call, model), requestId);
    } catch (err) {
      if (err instanceof BillingError && err.code === 'limit_reached') throw errors.spendLimit();
      if (err instanceof BillingError) throw errors.insufficientCredits();
      throw err;
    }
    return { requestId, model, money, minute };
  }

  request(call: ChatCall, model: GatewayModel, signal: AbortSignal): ChatRequest {
    const req: ChatRequest = { model: call.model, messages: call.messages, signal };
    if (call.temperature !== undefined) req.temperature = call.temperature;
    if (call.top_p !== undefined) req.top_p = call.top_p;
    // Capped at the model's output limit: the hold covers no more, so the model may produce no more.
    if (call.max_tokens !== undefined) req.max_tokens = Math.min(call.max_tokens, model.maxOutputTokens);
    return req;
  }

  /** Charges `usage` (capped at the worst case reserved), records it per key, model and day. */
  async settle(identity: Identity, a: Admitted, usage: Usage): Promise<void> {
    if (a.minute !== null) this.minutes.addTokens(identity.keyId, a.minute, usage.prompt_tokens + usage.completion_tokens);
    const cost = usageCost(a.model, usage);
    countGatewayUsage(a.model.id, usage.prompt_tokens, usage.completion_tokens, cost);
    await this.leases.finish(a.money, cost, a.requestId, {
      keyId: identity.keyId,
      accountId: identity.accountId,
      model: a.model.id,
      at: this.ctx.now(),
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
    });
  }

  async release(a: Admitted): Promise<void> {
    await this.leases.cancel(a.money);
  }

  /** A whole (non-streamed) completion, for the client at the other end of `res`. */
  async complete(identity: Identity, call: ChatCall, a: Admitted, res: ServerResponse): Promise<CompletionBody> {
    // One controller for the client leaving and the time limit, and a timer cleared at the end:
    // AbortSignal.timeout would keep a 10-minute timer (and AbortSignal.any its listeners)
    // alive after every call, and a controller per cause costs each call another signal.
    const stop = new AbortController();
    let clientGone = false;
    const onClose = (): void => {
      if (res.writableEnded) return;
      clientGone = true;
      stop.abort();
    };
    res.on('close', onClose);
    const timer = setTimeout(() => stop.abort(new DOMException('call took longer than the gateway allows', 'TimeoutError')), this.maxCallMs);
    let result;
    try {
      result = await this.models.chat(this.request(call, a.model, stop.signal));
    } catch (err) {
      if (clientGone) {
        // The client left while the model ran: the prompt was processed, nothing was delivered.
        // Not a failure of the gateway or the model: no 5xx, no error line.
        countGatewayCall(a.model.id, 'client_gone');
        await this.settle(identity, a, { prompt_tokens: promptTokensEstimate(call), completion_tokens: 0, total_tokens: 0 });
        throw errors.clientGone(a.requestId);
      }
      countGatewayCall(a.model.id, 'upstream_error');
      await this.release(a);
      throw modelLayerError(err, a.requestId);
    } finally {
      clearTimeout(timer);
      res.off('close', onClose);
    }
    countGatewayCall(a.model.id, 'ok');
    await this.settle(identity, a, result.usage);
    return {
      id: a.requestId,
      object: 'chat.completion' as const,
      created: Math.floor(Date.now() / 1000),
      model: a.model.id,
      choices: [{ index: 0, message: { role: 'assistant' as const, content: result.content }, finish_reason: result.finish_reason }],
      usage: result.usage,
    };
  }

  /**
   * A streamed completion, written to `res` as server-sent events. The first chunk is awaited
   * before any header goes out, so that an upstream failing at once still answers with its
   * status; after that, failures end the stream with an error frame and no `[DONE]`.
   * Resolves with how the call ended.
   */
  async stream(identity: Identity, rawKey: string, call: ChatCall, a: Admitted, res: ServerResponse, headers: Record<string, string>): Promise<CallOutcome> {
    const stop = new AbortController();
    const clientGone = (): void => {
      if (!res.writableEnded) stop.abort(new Error('client closed the connection'));
    };
    res.on('close', clientGone);
    let timedOut = false;
    const timeout = setTimeout(() => {
      timedOut = true;
      stop.abort(new Error('call took longer than the gateway allows'));
    }, this.maxCallMs);
    const iterator = this.models.chatStream(this.request(call, a.model, stop.signal))[Symbol.asyncIterator]();
    let first: IteratorResult<ChatChunk>;
    try {
      first = await iterator.next();
    } catch (err) {
      clearTimeout(timeout);
      res.off('close', clientGone);
      countGatewayCall(a.model.id, 'upstream_error');
      await this.release(a);
      throw modelLayerError(err, a.requestId);
    }
    const created = Math.floor(Date.now() / 1000);
    const frame = (delta: Record<string, unknown>, finish: FinishReason | null, usage?: Usage): string =>
      `data: ${JSON.stringify({ id: a.requestId, object: 'chat.completion.chunk', created, model: a.model.id, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-service-request-id': a.requestId });
    // Frames written in one turn of the event loop (pieces that arrived together) leave in one
    // packet: the socket is corked until the turn ends, not written once per frame.
    let corked = false;
    const uncork = (): void => {
      corked = false;
      if (!res.destroyed) res.uncork();
    };
    const write = async (text: string): Promise<void> => {
      if (res.destroyed || res.writableEnded) return;
      if (!corked) {
        corked = true;
        res.cork();
        setImmediate(uncork);
      }
      if (!res.write(text)) await new Promise<void>((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
    };
    let deltas = 0;
    let usage: Usage | null = null;
    let failure: { message: string; type: string } | null = null;
    let lastKeyCheck = performance.now();
    try {
      await write(frame({ role: 'assistant', content: '' }, null));
      for (let next = first; !next.done; next = await iterator.next()) {
        const chunk = next.value;
        if (chunk.type === 'delta') {
          deltas++;
          await write(frame({ content: chunk.content }, null));
        } else {
          usage = chunk.usage;
          await write(frame({}, chunk.finish_reason, chunk.usage));
        }
        if (stop.signal.aborted) break;
        if (performance.now() - lastKeyCheck >= this.keyRecheckMs) {
          lastKeyCheck = performance.now();
          if (!(await this.keys.authenticate(rawKey, SERVICE_ID, 'api_key', this.ctx.now()))) {
            failure = { message: 'Invalid or expired API key', type: 'authentication_error' };
            break;
          }
        }
      }
    } catch (err) {
      if (timedOut) failure = { message: 'Service unavailable', type: 'server_error' };
      else if (!stop.signal.aborted) {
        const mapped = modelLayerError(err, a.requestId);
        failure = { message: mapped.message, type: mapped.code };
      }
    } finally {
      clearTimeout(timeout);
      res.off('close', clientGone);
      if (!usage) {
        stop.abort(new Error('stream ended early'));
        await iterator.return?.(undefined).catch(() => undefined);
      }
    }
    // What was generated is charged: the model's own count when it finished, else what was delivered.
    const charged = usage ?? { prompt_tokens: promptTokensEstimate(call), completion_tokens: deltas, total_tokens: promptTokensEstimate(call) + deltas };
    const outcome: CallOutcome = failure ? (failure.type === 'authentication_error' ? 'key_revoked' : 'upstream_error') : usage ? 'ok' : 'client_gone';
    countGatewayCall(a.model.id, outcome);
    await this.settle(identity, a, charged);
    if (failure) await write(`data: ${JSON.stringify({ error: failure })}\n\n`);
    else if (usage) await write('data: [DONE]\n\n');
    res.end();
    return outcome;
  }
}
