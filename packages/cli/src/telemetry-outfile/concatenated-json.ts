/**
 * Splits gemini-cli's telemetry outfile into its JSON values as text arrives: the file holds
 * pretty-printed JSON objects written back to back (not one per line), and it grows while the CLI
 * runs. The scanner keeps its place between chunks (inside a string, after a backslash, how deep),
 * so a value cut by the end of one read is finished by the next. A value longer than
 * `maxValueChars` is skipped whole (memory stays bounded whatever a record holds).
 */

/** The largest value kept: records carry whole responses (`response_text`), rarely more. */
export const MAX_VALUE_CHARS = 32 * 1024 * 1024;

export class ConcatenatedJsonScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Text of the value being read, in pieces; empty between values. */
  private pieces: string[] = [];
  private length = 0;
  private skipping = false;
  /** Values that were not JSON or were too long. */
  skipped = 0;

  constructor(private readonly maxValueChars = MAX_VALUE_CHARS) {}

  /** Feeds more text; calls `onValue` for each value it completes. */
  feed(text: string, onValue: (value: unknown) => void): void {
    let start = this.depth > 0 ? 0 : -1;
    for (let index = 0; index < text.length; index++) {
      const char = text[index];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === '\\') this.escaped = true;
        else if (char === '"') this.inString = false;
        continue;
      }
      if (char === '"') {
        if (this.depth > 0) this.inString = true;
      } else if (char === '{' || char === '[') {
        if (this.depth === 0) start = index;
        this.depth++;
      } else if ((char === '}' || char === ']') && this.depth > 0) {
        this.depth--;
        if (this.depth === 0) {
          this.keep(text.slice(start, index + 1));
          this.finish(onValue);
          start = -1;
        }
      }
    }
    if (this.depth > 0 && start >= 0) this.keep(text.slice(start));
  }

  private keep(piece: string): void {
    if (this.skipping) return;
    this.length += piece.length;
    if (this.length > this.maxValueChars) {
      this.skipping = true;
      this.pieces = [];
      return;
    }
    this.pieces.push(piece);
  }

  private finish(onValue: (value: unknown) => void): void {
    const text = this.pieces.join('');
    const skipping = this.skipping;
    this.pieces = [];
    this.length = 0;
    this.skipping = false;
    if (skipping) {
      this.skipped++;
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.skipped++;
      return;
    }
    onValue(value);
  }
}
