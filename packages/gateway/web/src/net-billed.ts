/**
 * Net billed against no masking, as the server measured it from the provider's usage
 * (src/usage/net-billing.ts): the words for a session or the totals. Money only where every
 * measured request's model has a price in the server's table; no figure where the provider
 * reported no cache figures.
 */
import type { SessionSummary } from '../../src/dashboard/api-types.js';
import { formatInteger, formatMoney } from './format.js';

export type NetFigures = Pick<
  SessionSummary,
  | 'requests'
  | 'requestsNetMeasured'
  | 'billed'
  | 'billedWithoutMasking'
  | 'netSavedTokens'
  | 'cost'
  | 'costWithoutMasking'
  | 'requestsUnpriced'
>;

/** Whether there is a money figure: measured, and every measured request priced. */
export function priced(net: NetFigures): boolean {
  return net.requestsNetMeasured > 0 && net.requestsUnpriced === 0;
}

/** USD saved (negative: what masking cost). */
export function moneySaved(net: NetFigures): number {
  return net.costWithoutMasking - net.cost;
}

/** "12% less" / "3% more" / "the same". */
export function shareWords(net: NetFigures): string {
  const saved = net.netSavedTokens;
  if (Math.round(saved) === 0 || net.billedWithoutMasking <= 0) return 'the same';
  const share = Math.abs(saved / net.billedWithoutMasking) * 100;
  const percent = share < 1 ? share.toFixed(1) : String(Math.round(share));
  return `${percent}% ${saved > 0 ? 'less' : 'more'}`;
}

/** A money amount with its direction: "$0.06 less", "$0.02 more". */
export function moneyWords(dollars: number): string {
  if (dollars === 0) return formatMoney(0);
  return `${formatMoney(Math.abs(dollars))} ${dollars > 0 ? 'less' : 'more'}`;
}

/** What a sessions table cell says. */
export function netCell(net: NetFigures): string {
  if (net.requestsNetMeasured === 0) return '—';
  if (priced(net)) return moneyWords(moneySaved(net));
  if (Math.round(net.netSavedTokens) === 0) return 'the same';
  const tokens = formatInteger(Math.round(Math.abs(net.netSavedTokens)));
  return `${tokens} tokens ${net.netSavedTokens >= 0 ? 'less' : 'more'}`;
}

/** Why a figure is missing, or what it is over. */
export function netNote(net: NetFigures): string {
  if (net.requests === 0) return 'no requests yet';
  if (net.requestsNetMeasured === 0) return 'not measured: the provider reported no cache figures';
  const tokens = formatInteger(Math.round(Math.abs(net.netSavedTokens)));
  const share = shareWords(net);
  const parts =
    share === 'the same'
      ? ['billed the same as without masking']
      : [`billed ${share} than without masking`, `${tokens} tokens`];
  if (net.requestsUnpriced > 0) {
    parts.push(`no price for ${formatInteger(net.requestsUnpriced)} request(s)`);
  }
  return parts.join(' · ');
}
