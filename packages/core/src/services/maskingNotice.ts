/**
 * The one-line notice for the person at the keyboard after a pass that masked something (the
 * installation's `onNotice`, the CLI replay's `--verbose` listing), e.g.
 *
 *   toolmask: masked 7 older tool outputs, freed ~48,213 tokens; full outputs in <dir>
 *   toolmask: offloaded 1 oversized tool output (over 262,144 tokens), freed ~6,012,345 tokens; full outputs in <dir>
 *   toolmask: masked 8 tool outputs (1 over 262,144 tokens), freed ~6,060,558 tokens; full outputs in <dir>
 */
import { formatCount } from '../utils/formatCount.js';

export interface MaskingNoticeFields {
  /** Outputs masked by the pass. */
  masked: number;
  /** Of those, outputs above `maxOutputTokens` (masked by the guard, possibly the newest). */
  oversized: number;
  maxOutputTokens: number;
  tokensSaved: number;
  /** The session folder the full outputs went to. */
  directory: string;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export function formatMaskingNotice(fields: MaskingNoticeFields): string {
  const { masked, oversized } = fields;
  const limit = `over ${formatCount(fields.maxOutputTokens)} tokens`;
  let what: string;
  if (oversized <= 0) what = `masked ${plural(masked, 'older tool output')}`;
  else if (oversized >= masked)
    what = `offloaded ${plural(masked, 'oversized tool output')} (${limit})`;
  else what = `masked ${plural(masked, 'tool output')} (${oversized} ${limit})`;
  return `toolmask: ${what}, freed ~${formatCount(fields.tokensSaved)} tokens; full outputs in ${fields.directory}`;
}
