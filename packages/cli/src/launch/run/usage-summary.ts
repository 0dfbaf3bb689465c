/**
 * The savings figures on the terminal: what a gateway's `GET /api/summary` answers (its running
 * totals since it started, and one launch's by its session id; gateway/src/usage/usage-tally.ts),
 * fetched with the access secret, and the words for them. A launcher prints a run's when its
 * client exits (launch-client.ts); `toolmask status` prints a running gateway's.
 *
 * The answer's shape is the gateway's `UsageSummary`, checked before use: an older gateway has no
 * such endpoint, and the person is told so rather than shown zeros.
 */
import type { UsageFigures, UsageSummary } from '@toolmask/gateway';
import { formatInteger } from '../../render/format.js';
import type { Palette } from '../../render/color.js';
import { accessHeaders, type GatewayAccess } from '../gateway-access.js';

export type { UsageFigures, UsageSummary };

export type SummaryResult = { ok: true; summary: UsageSummary } | { ok: false; reason: string };

const FIGURES: ReadonlyArray<keyof UsageFigures> = [
  'requests',
  'requestsWithUsage',
  'promptTokens',
  'cachedTokens',
  'maskedOutputs',
  'tokensKeptOut',
  'bytesOffloaded',
  'failures',
];

function isFigures(value: unknown): value is UsageFigures {
  return (
    typeof value === 'object' &&
    value !== null &&
    FIGURES.every((key) => typeof (value as Record<string, unknown>)[key] === 'number')
  );
}

function isSummary(value: unknown, session: string | undefined): value is UsageSummary {
  const summary = value as Partial<UsageSummary> | null;
  return (
    typeof summary === 'object' &&
    summary !== null &&
    typeof summary.instanceId === 'string' &&
    typeof summary.startedAt === 'number' &&
    isFigures(summary.gateway) &&
    (session === undefined || isFigures(summary.session))
  );
}

/**
 * The gateway's figures (and `session`'s). Never throws: a gateway that cannot be reached, that
 * refuses, or that has no such endpoint (an older one) is a reason, said in words.
 */
export async function fetchUsageSummary(
  gateway: GatewayAccess,
  session?: string,
  timeoutMs = 2_000,
): Promise<SummaryResult> {
  const url = new URL('/api/summary', gateway.url);
  if (session !== undefined) url.searchParams.set('session', session);
  let answer: Response;
  try {
    answer = await fetch(url, {
      headers: accessHeaders(gateway),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    return {
      ok: false,
      reason: `the gateway at ${gateway.url} did not answer (${describe(error)})`,
    };
  }
  if (answer.status === 404) {
    await answer.body?.cancel();
    return {
      ok: false,
      reason: `the gateway at ${gateway.url} is older than this toolmask and gives no figures (restart it: toolmask gateway)`,
    };
  }
  if (!answer.ok) {
    await answer.body?.cancel();
    return { ok: false, reason: `the gateway at ${gateway.url} answered ${answer.status}` };
  }
  try {
    const value: unknown = await answer.json();
    return isSummary(value, session)
      ? { ok: true, summary: value }
      : {
          ok: false,
          reason: `the gateway at ${gateway.url} gave figures this toolmask cannot read`,
        };
  } catch (error) {
    return { ok: false, reason: `the gateway at ${gateway.url} gave no JSON (${describe(error)})` };
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return cause ?? (error instanceof Error ? error.message : String(error));
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatInteger(count)} ${count === 1 ? one : many}`;
}

/**
 * Net billed against no masking, from the provider's reported usage (the gateway's counterfactual:
 * gateway/src/usage/net-billing.ts): "billed 12% less than without masking (8,123 tokens, $0.04)",
 * or more, honestly. Tokens are input-token equivalents (reads and writes at the provider's
 * relative prices); money only when every measured request's model has a price. Where the provider
 * reported no cache figures, it says so and shows no money.
 */
export function describeNet(figures: UsageFigures, palette: Palette): string {
  // An older gateway does not measure it (undefined).
  if (figures.requestsNetMeasured === undefined) return 'net billed not measured by this gateway';
  if (figures.requestsNetMeasured === 0) {
    return figures.requestsWithUsage === 0
      ? 'net billed not measured (the provider reported no usage)'
      : 'net billed not measured (the provider reported no cache figures)';
  }
  const net = figures.billedWithoutMasking - figures.billed;
  const share =
    figures.billedWithoutMasking > 0 ? Math.abs(net / figures.billedWithoutMasking) * 100 : 0;
  const percent = share > 0 && share < 1 ? share.toFixed(1) : String(Math.round(share));
  const tokens = formatInteger(Math.round(Math.abs(net)));
  const money =
    figures.requestsUnpriced === 0
      ? `, $${Math.abs(figures.costWithoutMasking - figures.cost).toFixed(2)}`
      : `; no price for the model of ${plural(figures.requestsUnpriced, 'request')}`;
  const partial =
    figures.requestsNetMeasured < figures.requests
      ? ` over the ${formatInteger(figures.requestsNetMeasured)} requests with cache figures`
      : '';
  if (Math.round(net) === 0) return `billed the same as without masking${partial}`;
  const direction = net > 0 ? 'less' : 'more';
  return `billed ${palette.bold(`${percent}% ${direction}`)} than without masking (${tokens} tokens${money})${partial}`;
}

/**
 * The figures in one line: requests, outputs masked, net billed against no masking (from the
 * provider's usage) and the share of prompt tokens the provider reported as cached.
 */
export function describeFigures(figures: UsageFigures, palette: Palette): string {
  if (figures.requests === 0) return 'no model request went through the gateway';
  const parts = [
    plural(figures.requests, 'request'),
    `${palette.bold(formatInteger(figures.maskedOutputs))} ${figures.maskedOutputs === 1 ? 'output' : 'outputs'} masked`,
    describeNet(figures, palette),
  ];
  if (figures.requestsWithUsage === 0 || figures.promptTokens === 0) {
    parts.push('cache hits not reported by the provider');
  } else {
    const share = Math.round((figures.cachedTokens / figures.promptTokens) * 100);
    const partial =
      figures.requestsWithUsage < figures.requests
        ? ` (${formatInteger(figures.requestsWithUsage)} of the requests reported usage)`
        : '';
    parts.push(
      `cache hits ${palette.bold(`${share}%`)} of ${formatInteger(figures.promptTokens)} prompt tokens (provider's count)${partial}`,
    );
  }
  if (figures.failures > 0)
    parts.push(plural(figures.failures, 'output') + ' left whole by a failure');
  // An older gateway does not count them (undefined).
  if (figures.unreachable > 0) {
    parts.push(
      `${palette.bold(plural(figures.unreachable, 'request'))} could not reach ${figures.unreachableUpstream ?? 'the upstream'} (the client got 502; gateway.log has each)`,
    );
  }
  return parts.join(', ');
}

/** What the launch's figures are, given the gateway's totals before and after the run. */
export interface RunSummaryInput {
  /** The gateway's answer before the client started (undefined: none was read). */
  before?: UsageSummary;
  after: UsageSummary;
  /** The run's gateway is its own (private): nothing else used it. */
  privateGateway: boolean;
}

/** The lines printed when the client exits (without the `toolmask: ` prefix). */
export function runSummaryLines(input: RunSummaryInput, palette: Palette): string[] {
  const run = input.after.session;
  if (!run) return [];
  const lines = [`this run: ${describeFigures(run, palette)}`];
  const { before, after } = input;
  if (before && before.instanceId !== after.instanceId) {
    lines.push(
      'the gateway restarted during the run: the figures count from its restart (the dashboard has them all)',
    );
  } else if (before && !input.privateGateway) {
    // A standalone gateway serves whoever points at it: say what else it carried meanwhile
    // rather than count it as this run's.
    const others = after.gateway.requests - before.gateway.requests - run.requests;
    if (others > 0) {
      lines.push(
        `the gateway also carried ${plural(others, 'request')} of other clients meanwhile (not counted above)`,
      );
    }
  }
  return lines;
}
