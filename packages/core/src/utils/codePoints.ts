/**
 * Cutting text without splitting a character: every cut toolmask makes in text the model will
 * read (previews, cut lines, read-back slices, chunks encoded to UTF-8) goes through here.
 *
 * Lengths stay UTF-16 code units, as everywhere in JavaScript, but a cut never falls between the
 * two halves of a surrogate pair: such a cut would leave a lone surrogate, which has no UTF-8 form
 * (it would be written as U+FFFD) and which many model APIs refuse with a 400. A cut that would
 * fall inside a pair moves so that the pair is left out whole, so the result is never longer than
 * asked. Lone surrogates already in the text are left as they are: they are the text's own.
 */

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Whether `index` falls between the two halves of a surrogate pair of `text`. */
export function splitsPair(text: string, index: number): boolean {
  return (
    index > 0 &&
    index < text.length &&
    isLowSurrogate(text.charCodeAt(index)) &&
    isHighSurrogate(text.charCodeAt(index - 1))
  );
}

/** `index`, moved back by one when it would split a pair. */
export function boundaryAtOrBefore(text: string, index: number): number {
  return splitsPair(text, index) ? index - 1 : index;
}

/** `index`, moved forward by one when it would split a pair. */
export function boundaryAtOrAfter(text: string, index: number): number {
  return splitsPair(text, index) ? index + 1 : index;
}

/** At most the first `maxUnits` code units of `text`, never half a pair. */
export function headOf(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  return text.slice(0, boundaryAtOrBefore(text, Math.max(0, maxUnits)));
}

/** At most the last `maxUnits` code units of `text`, never half a pair. */
export function tailOf(text: string, maxUnits: number): string {
  if (text.length <= maxUnits) return text;
  return text.slice(boundaryAtOrAfter(text, text.length - Math.max(0, maxUnits)));
}

/**
 * `text.slice(start, end)` with both ends moved back out of any pair they would split, so that
 * consecutive slices (`[0, a)`, `[a, b)`, ...) tile the text exactly: the chunks toolmask encodes.
 */
export function sliceCodePoints(text: string, start: number, end = text.length): string {
  return text.slice(boundaryAtOrBefore(text, start), boundaryAtOrBefore(text, end));
}

/** `String.prototype.isWellFormed` (Node 20+, not in the ES2023 typings): no lone surrogate. */
export function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** `String.prototype.toWellFormed`: every lone surrogate replaced by U+FFFD. */
export function toWellFormed(text: string): string {
  return (text as unknown as { toWellFormed(): string }).toWellFormed();
}
