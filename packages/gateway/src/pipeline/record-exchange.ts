/**
 * The last step of a masked model request: its usage record (the provider's real usage next to
 * the pass's estimates) and its conversation's state after the answer (the time it ended, for the
 * idle gap, and what the provider cached, for the cold signal).
 */
import { describeError } from '@toolmask/core/errors';
import type { Conversation } from '../conversation/conversation.js';
import type { UsageReport } from '../protocols/protocol.js';
import { boundedModel } from '../server/caller-values.js';
import type { ForwardResult } from '../upstream/forward.js';
import type { UsageRecord } from '../usage/usage-record.js';
import { upstreamErrorMessage } from '../usage/failure-reason.js';
import { sideFacts } from '../usage/side-request.js';
import type { GatewayContext } from './gateway-context.js';
import type { MaskedBody } from './mask-exchange.js';
import type { ModelExchange } from './model-exchange.js';
import { netStep } from './net-step.js';

/** How the answer went. */
export interface Answered {
  result: ForwardResult;
  usage: UsageReport;
  /** Milliseconds the gateway added before forwarding. */
  gatewayMs: number;
  /** The start of the answer (failure-reason.ts): an error's message. */
  head?: string;
}

/** The two writes of a recorded exchange. */
export interface Recording {
  /** The conversation's state after the answer (what its next request needs). */
  state: Promise<void>;
  /** Both writes, the usage record's included. */
  done: Promise<void>;
}

export function recordExchange(
  context: GatewayContext,
  exchange: ModelExchange,
  masked: MaskedBody & { conversation: Conversation },
  answered: Answered,
): Recording {
  const { conversation, prepared } = masked;
  const { result, usage, gatewayMs } = answered;
  const pass = prepared?.result;
  const error = result.status >= 400 ? upstreamErrorMessage(answered.head ?? '') : undefined;
  // Read before the answer's state is saved: a conversation's first request names its session.
  const named = conversation.meta === undefined;
  const record: UsageRecord = {
    at: exchange.arrivedAt,
    conversationId: conversation.id,
    client: exchange.client,
    front: exchange.protocol.kind,
    model: boundedModel(masked.model ?? exchange.route.model),
    status: result.status,
    ...(result.outcome === 'unreachable'
      ? { unreachable: new URL(exchange.outbound.url).origin }
      : {}),
    ...(result.outcome === 'client-gone' ? { aborted: true as const } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(usage.promptTokens !== undefined ? { promptTokens: usage.promptTokens } : {}),
    ...(usage.cachedTokens !== undefined ? { cachedTokens: usage.cachedTokens } : {}),
    ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
    // Only the fronts whose provider reports writes apart (Anthropic) set it, 0 included.
    ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
    maskedOutputs: prepared?.maskedOutputs ?? 0,
    newlyMasked: pass?.maskedCount ?? 0,
    tokensKeptOut: prepared?.tokensKeptOut ?? 0,
    bytesOffloaded: pass?.offloaded.reduce((sum, output) => sum + output.bytes, 0) ?? 0,
    failures: masked.failures + (result.outcome === 'upstream-cut' ? 1 : 0),
    ...(pass?.trigger ? { trigger: pass.trigger } : {}),
    cacheLikelyCold: prepared?.cacheLikelyCold ?? false,
    gatewayMs,
    ...(exchange.owner.name !== undefined ? { owner: exchange.owner.name } : {}),
  };
  // The conversation's state first, as before: its next pass queues behind this `finish`.
  let netSet: () => void = () => undefined;
  const netReady = new Promise<void>((resolve) => (netSet = resolve));
  const state = finishConversation(context, { exchange, masked, usage, record }, netSet);
  const usageWritten = (async () => {
    // After the conversation's net step, which sets the record's net figures (not after its save:
    // the record is written beside the state, as the dashboard expects it by the answer's end).
    await Promise.race([netReady, state]);
    // For the dashboard's sessions only (a router call folds into its session).
    Object.assign(
      record,
      await sideFacts({
        protocol: exchange.protocol,
        raw: exchange.raw,
        ...(masked.outside ? { outside: masked.outside() } : {}),
        session: exchange.session(),
        named,
      }),
    );
    context.telemetry.recordRequest(record);
    await context.recordUsage(record, await exchange.clientSession());
  })();
  // The record and the conversation's state are separate writes: side by side.
  return { state, done: Promise.all([usageWritten, state]).then(() => undefined) };
}

async function finishConversation(
  context: GatewayContext,
  finished: {
    exchange: ModelExchange;
    masked: MaskedBody & { conversation: Conversation };
    usage: UsageReport;
    record: UsageRecord;
  },
  netSet: () => void,
): Promise<void> {
  const { exchange, masked, usage, record } = finished;
  const { conversation } = masked;
  try {
    // In turn with the conversation's passes: the next one sees this answer's time and usage.
    await conversation.exclusive(() => {
      const net = netStep(exchange, masked, conversation.meta, usage, record);
      netSet();
      return conversation.finish(usage, {
        startedAt: conversation.meta?.startedAt ?? record.at,
        client: record.client,
        model: record.model,
        ...(net ? { net } : {}),
      });
    });
  } catch (error) {
    context.log(
      `[toolmask gateway] could not save the state of conversation ${conversation.id}: ${describeError(error)}`,
    );
  }
}
