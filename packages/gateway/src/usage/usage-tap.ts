/**
 * Reads the provider's usage report out of an answer as it streams through, without holding the
 * answer. Which kind of answer it is shows in its first character (`{` or `[`: JSON; anything
 * else: server-sent events). Events are split at blank lines and each `data:` payload parsed on its own
 * (the last report wins, as streams repeat it); a plain JSON answer is collected up to a bound and
 * parsed at the end. An event or body past the bound is skipped: usage is then unknown, never wrong.
 */
import type { UsageReport } from '../protocols/protocol.js';

const MAX_EVENT_CHARS = 16 * 1024 * 1024;

export class UsageTap {
  private pending = '';
  private skipping = false;
  /** Undefined until the first character tells. */
  private streaming?: boolean;
  private readonly decoder = new TextDecoder();
  report?: UsageReport;

  constructor(private readonly extract: (value: unknown) => UsageReport | undefined) {}

  feed(chunk: Uint8Array): void {
    const text = this.decoder.decode(chunk, { stream: true });
    if (this.streaming === undefined) {
      const first = /\S/.exec(text)?.[0];
      if (first === undefined) return;
      this.streaming = first !== '{' && first !== '[';
    }
    this.append(text);
    if (this.streaming) this.drainEvents();
  }

  /** Call at the end of the answer. */
  end(): UsageReport | undefined {
    this.append(this.decoder.decode());
    if (this.streaming) {
      this.drainEvents();
      if (!this.skipping) this.readEvent(this.pending);
    } else if (!this.skipping) {
      this.readJson(this.pending);
    }
    this.pending = '';
    return this.report;
  }

  private append(text: string): void {
    if (this.skipping && !this.streaming) return;
    this.pending += text;
    if (this.pending.length > MAX_EVENT_CHARS) {
      this.skipping = true;
      // A stream recovers at the next event boundary; a JSON body is given up.
      const boundary = this.streaming ? this.pending.lastIndexOf('\n\n') : -1;
      this.pending = boundary >= 0 ? this.pending.slice(boundary + 2) : '';
      if (this.streaming && boundary >= 0) this.skipping = false;
    }
  }

  private drainEvents(): void {
    let boundary: number;
    while ((boundary = this.pending.search(/\r?\n\r?\n/)) >= 0) {
      const event = this.pending.slice(0, boundary);
      this.pending = this.pending.slice(boundary).replace(/^\r?\n\r?\n/, '');
      if (!this.skipping) this.readEvent(event);
      this.skipping = false;
    }
  }

  private readEvent(event: string): void {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data === '' || data === '[DONE]') return;
    this.readJson(data);
  }

  private readJson(text: string): void {
    if (text.trim() === '') return;
    try {
      const value: unknown = JSON.parse(text);
      // Some APIs answer a non-streaming call with an array of responses.
      for (const item of Array.isArray(value) ? value : [value]) {
        const report = this.extract(item);
        if (report) this.report = { ...this.report, ...report };
      }
    } catch {
      // Not JSON: no usage in it.
    }
  }
}
