/**
 * What the service knows of each response object it has seen, kept between passes in a WeakMap
 * (an object the host drops is forgotten with it): its token estimate, computed once, and whether
 * it is a snippet this toolmask produced (or was told of with `markMasked`) or an output tried and
 * kept whole. Being masked comes from this record, never from a text's shape: a tool can print a
 * snippet's shape around megabytes, and it is counted at its real size.
 */
import { isForeignMarker } from '../foreignMarkers.js';

interface ResponseInfo {
  tokens: number;
  masked: boolean;
  /**
   * Too small to be worth a snippet: kept whole for good and no longer counted, so that outputs
   * that can never be masked do not fill the prunable total (which would make every later
   * pass mask one output at a time, a cache break per request).
   */
  keptWhole?: boolean;
}

export class ResponseRecords {
  private readonly info = new WeakMap<object, ResponseInfo>();

  constructor(private readonly estimateResponseTokens: (response: unknown) => number) {}

  /** Records `response` as a snippet of this toolmask: neither counted nor masked again. */
  markMasked(response: object): void {
    this.info.set(response, { tokens: 0, masked: true });
  }

  /** Records `response` as tried before and kept whole (restored from a host's log). */
  markKeptWhole(response: object): void {
    this.info.set(response, { tokens: 0, masked: false, keptWhole: true });
  }

  /** An output this pass tried and kept whole: it stops counting (when it was counted). */
  keepWhole(response: object): void {
    const info = this.info.get(response);
    if (info) info.keptWhole = true;
  }

  /** The estimate of an output that counts; undefined for a snippet or an output kept whole. */
  countableTokens(response: object): number | undefined {
    let info = this.info.get(response);
    if (!info) {
      // Masked is what this service produced or was told of (`markMasked`), never what a
      // text looks like: a tool can print a snippet's shape around megabytes.
      // Another host's marker (foreignMarkers.ts) is that host's business: never counted.
      info = isForeignMarker(response)
        ? { tokens: 0, masked: false, keptWhole: true }
        : { tokens: this.estimateResponseTokens(response), masked: false };
      this.info.set(response, info);
    }
    return info.masked || info.keptWhole ? undefined : info.tokens;
  }
}
