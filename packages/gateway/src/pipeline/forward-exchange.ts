/**
 * The forwarding step of a model request: its (masked) body goes upstream with the headers its
 * owner's tenancy gave it, and the answer streams back while the provider's usage report is read
 * from it (the usage tap); a request masked in a conversation is recorded (record-exchange.ts)
 * when the answer's last byte is written.
 */
import { forward, type ForwardResult } from '../upstream/forward.js';
import { AnswerHead } from '../usage/failure-reason.js';
import { UsageTap } from '../usage/usage-tap.js';
import type { GatewayContext } from './gateway-context.js';
import type { MaskedBody } from './mask-exchange.js';
import { replyError, type ModelExchange } from './model-exchange.js';
import { recordExchange, type Recording } from './record-exchange.js';

/** Forwards the (masked) body and streams the answer back; records it when it was masked. */
export async function forwardExchange(
  context: GatewayContext,
  exchange: ModelExchange,
  masked: MaskedBody,
): Promise<void> {
  const { request, response, route, protocol, outbound } = exchange;
  const gatewayMs = performance.now() - exchange.startedMs;
  const tap = new UsageTap((event) => protocol.usage(event));
  // The start of the answer: an error's message, for the dashboard's failed requests.
  const head = new AnswerHead();
  const rewrite = context.disableClientMasking
    ? protocol.clientMaskingOff(route.action)
    : undefined;
  const { conversation } = masked;
  const recordAnswer = (result: ForwardResult): Recording | undefined => {
    if (route.action !== 'mask' || !conversation) return undefined;
    const answered = { result, usage: tap.end() ?? {}, gatewayMs, head: head.text() };
    return recordExchange(context, exchange, { ...masked, conversation }, answered);
  };
  // Started when the answer's last byte is written, before its end reaches the client, and
  // finished after: the client never waits for the disk, and its next request still finds
  // this one's state (the conversation's next pass waits its turn behind `finish`, and reads of
  // the stores wait for writes in flight: state/ordered-stores.ts).
  let recording: Recording | undefined;
  let recorded = false;
  // The work that decides no byte sent: once the answer starts (the body is out), else when the
  // request ends.
  const settle = settlerOf(context, masked);
  const result = await forward({
    url: outbound.url,
    method: request.method ?? 'GET',
    headers: outbound.headers,
    ...(exchange.raw ? { body: masked.body } : {}),
    response,
    signal: exchange.signal,
    ...(context.dispatcher ? { dispatcher: context.dispatcher } : {}),
    onChunk: (chunk) => {
      settle();
      tap.feed(chunk);
      head.feed(chunk);
    },
    // Where the gateway's time went, for whoever measures it (bench/gatewayBench.mjs): `pass`
    // and `write` are parts of `mask`.
    timings: { read: exchange.readMs, mask: gatewayMs - exchange.readMs, ...masked.phases },
    ...(rewrite ? { rewriteJson: rewrite } : {}),
    onUnreachable: (error) => {
      const message = `the upstream ${new URL(outbound.url).origin} could not be reached (${String((error as Error)?.cause ?? (error as Error)?.message ?? error)})`;
      // Said in the log too (a launcher's gateway.log): the client may retry for minutes.
      // Named by what the client sent (`POST /anthropic/v1/messages`), not the route's action.
      const sent = `${request.method ?? 'POST'} ${(request.url ?? '').split('?')[0]}`;
      context.log(`[toolmask gateway] ${sent}: ${message}; the client got 502`);
      replyError(response, protocol, { status: 502, code: 'UPSTREAM_UNREACHABLE', message });
    },
    beforeEnd: (answered) => {
      recorded = true;
      recording = recordAnswer(answered);
      // On a store other replicas share, the client's next request may reach another replica,
      // which must find this answer's state there (the usage record need not be there yet).
      return conversation?.stateBeforeAnswerEnds ? recording?.state : undefined;
    },
  });
  // A request the client abandoned before it went out was never billed: nothing to record. One
  // it left while the answer was awaited (a Ctrl-C mid-turn) went through: recorded, status 0.
  settle();
  const neverSent = result.outcome === 'client-gone' && result.status === 0 && !result.sent;
  if (!recorded && !neverSent) recording = recordAnswer(result);
  exchange.owner.answered(
    result.status,
    {
      outputBytes:
        masked.prepared?.result.offloaded.reduce((sum, output) => sum + output.bytes, 0) ?? 0,
      records: recording ? 1 : 0,
    },
    route.action === 'mask',
  );
  await recording?.done;
}

/** The masked body's `settle` (run-pass.ts: what decides no byte sent), started once. */
function settlerOf(context: GatewayContext, masked: MaskedBody): () => void {
  let settled = false;
  return () => {
    if (settled || !masked.settle) return;
    settled = true;
    masked.settle().catch((error: unknown) => context.log(`[toolmask gateway] ${String(error)}`));
  };
}
