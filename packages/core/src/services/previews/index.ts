/**
 * Previews built from the output's kind (issue 25): what agents come back for in each kind of
 * output, within the same budget as the shell-aware preview they replace. One module per kind;
 * `outputKind.ts` decides the kind from the tool, the call and the text; `lineSelection.ts` is
 * the selection they share. Each is pure and reads only the text it is given, which the caller
 * bounds (`KIND_PREVIEW_MAX_UNITS`).
 */
import type { OutputKind } from './outputKind.js';
import type { SelectionLimits } from './lineSelection.js';
import type { ToolCall } from './toolCall.js';
import { diffPreview } from './diff.js';
import { logPreview } from './log.js';
import { searchPreview } from './search.js';
import { sourceReadPreview } from './sourceRead.js';
import { runOutcomePreview } from './runOutcome.js';

export { OUTPUT_KINDS, classifyOutput, mainStage, type OutputKind } from './outputKind.js';
export { findToolCall, type ToolCall } from './toolCall.js';
export type { SelectionLimits } from './lineSelection.js';

/**
 * Which previews the pass builds: `by-kind`, the preview of the output's kind where it has one
 * (the default); `head-and-tail`, the shell-aware head and tail lines for every output (the
 * previews before issue 25, kept for the bench's comparison).
 */
export type PreviewFamily = 'by-kind' | 'head-and-tail';

/**
 * Outputs longer than this (256 K code units) get the head-and-tail preview whatever their kind:
 * a kind's preview splits the text into lines and weighs each one, a few milliseconds at this
 * size, in one stretch of the pass (the head-and-tail preview reads only the lines it keeps).
 */
export const KIND_PREVIEW_MAX_UNITS = 1 << 18;

type KindPreview = (
  lines: readonly string[],
  call: ToolCall | undefined,
  limits: SelectionLimits,
  firstLine: number,
) => string;

const PREVIEWS: Partial<Record<OutputKind, KindPreview>> = {
  'source read': sourceReadPreview,
  'test or build run': runOutcomePreview,
  log: logPreview,
  search: searchPreview,
  diff: diffPreview,
};

/**
 * The preview of `text` as an output of `kind`, or undefined when the kind has none (`other`) or
 * the text is too long (`KIND_PREVIEW_MAX_UNITS`): the caller then shows head and tail lines.
 * `firstLine` is the number of the text's first line in the saved output.
 */
export function previewOfKind(
  kind: OutputKind,
  text: string,
  call: ToolCall | undefined,
  limits: SelectionLimits,
  firstLine = 1,
): string | undefined {
  const preview = PREVIEWS[kind];
  if (!preview || text.length > KIND_PREVIEW_MAX_UNITS) return undefined;
  return preview(text.split('\n'), call, limits, firstLine);
}
