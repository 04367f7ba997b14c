/**
 * What a call may cost before it runs (the hold) and what it cost after (the charge), in
 * micro-dollars. Prices are US dollars per million tokens, which is micro-dollars per token.
 */
import type { Usage } from '../../engines/language/types.ts';
import type { GatewayModel } from './catalog.ts';
import type { ChatCall } from './request.ts';

const encoder = new TextEncoder();

function promptBytes(call: ChatCall): number {
  return call.messages.reduce((sum, m) => sum + encoder.encode(m.content).length, 0);
}

/**
 * An upper bound of the prompt's tokens without running a tokenizer: byte-level BPE and
 * SentencePiece vocabularies never spend more than one token per UTF-8 byte, plus the chat
 * template's few tokens per message.
 */
export function promptTokensUpperBound(call: ChatCall): number {
  return promptBytes(call) + 8 * call.messages.length + 16;
}

/** The usual estimate (four bytes a token), for a call cut off before the model reported its usage. */
export function promptTokensEstimate(call: ChatCall): number {
  return Math.min(promptTokensUpperBound(call), Math.ceil(promptBytes(call) / 4) + 4 * call.messages.length);
}

/** The most output the call may produce: its max_tokens, at most the model's output limit. */
export function completionTokensWorstCase(call: ChatCall, model: GatewayModel): number {
  return Math.min(call.max_tokens ?? model.maxOutputTokens, model.maxOutputTokens);
}

export function costMicros(model: GatewayModel, promptTokens: number, completionTokens: number): number {
  return Math.ceil(promptTokens * model.inputPrice + completionTokens * model.outputPrice - 1e-9);
}

/** The hold: prompt (upper bound) plus max_tokens or the model's output limit, at the model's prices; at least one micro-dollar. */
export function worstCaseMicros(call: ChatCall, model: GatewayModel): number {
  return Math.max(1, costMicros(model, promptTokensUpperBound(call), completionTokensWorstCase(call, model)));
}

export function usageCost(model: GatewayModel, usage: Usage): number {
  return costMicros(model, usage.prompt_tokens, usage.completion_tokens);
}
