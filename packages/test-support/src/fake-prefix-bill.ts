/**
 * A provider's prefix-cache billing, for the fakes: each request's prompt is counted the same
 * way every time, the longest prefix it shares with the previous request of the same key (within
 * the cache's time to live) is read from the cache, and the rest is written to it. Each key's bill
 * is totalled, so a test can compare the gateway's figures with the fake's own.
 *
 * The prompt of a body, as this fake sees it: the body without its conversation array (one
 * segment: model, system, tools, settings), then each element of that array (one segment each).
 * Two prompts share a prefix of whole segments: the first segment when it is equal, then each
 * element equal at the same place. `cache_control` breakpoints are left out, of the comparison
 * and of the count: a provider's cache matches the prompt, and clients move their breakpoints
 * every request. Tokens are characters over `charsPerToken`, rounded, counted on the prompt and on
 * its shared prefix (a request's write is the difference).
 *
 * Bills are in input-token equivalents: a read at `readPrice`, a write at `writePrice`
 * (Anthropic: 0.1 and 1.25; OpenAI and Gemini cache implicitly: 0.1 and 1).
 */

export type BillingRules = 'anthropic' | 'openai' | 'gemini';

export const BILLING_PRICES: Record<BillingRules, { readPrice: number; writePrice: number }> = {
  anthropic: { readPrice: 0.1, writePrice: 1.25 },
  openai: { readPrice: 0.1, writePrice: 1 },
  gemini: { readPrice: 0.1, writePrice: 1 },
};

export interface PrefixBillOptions {
  rules: BillingRules;
  /** Where the conversation array is in a body: `['messages']`, `['input']`, `['contents']`. */
  arrayPath: readonly string[];
  /** @default 4 */
  charsPerToken?: number;
  /**
   * The keys of the body outside its conversation that are part of the prompt (`model`, `tools`,
   * `instructions`...), as a provider's cache sees them; default: every key (a client whose
   * bodies carry a per-request value, such as Codex's, then never reads from the cache).
   */
  promptKeys?: readonly string[];
  /** The cache's time to live, from the key's last request. @default 5 minutes */
  ttlMs?: number;
  /** For tests: the clock. @default Date.now */
  now?: () => number;
}

/** One request's prompt as billed. */
export interface PromptBill {
  prompt: number;
  read: number;
  write: number;
  /** In input-token equivalents. */
  billed: number;
}

export interface BillTotals extends PromptBill {
  requests: number;
}

interface Previous {
  /** The segments as billed (without their cache breakpoints). */
  matched: string[];
  at: number;
}

/** A segment as the cache bills it: without its `cache_control` breakpoints. */
function withoutBreakpoints(segment: string): string {
  if (!segment.includes('"cache_control"')) return segment;
  return JSON.stringify(JSON.parse(segment), (key, value: unknown) =>
    key === 'cache_control' ? undefined : value,
  );
}

/** The segments of a body's prompt (see the module comment). */
export function promptSegments(
  body: unknown,
  arrayPath: readonly string[],
  promptKeys?: readonly string[],
): string[] {
  const whole = structuredClone(body) as Record<string, unknown>;
  const copy = promptKeys
    ? Object.fromEntries(
        Object.entries(whole).filter(([key]) => promptKeys.includes(key) || key === arrayPath[0]),
      )
    : whole;
  let parent: Record<string, unknown> = copy;
  for (const key of arrayPath.slice(0, -1)) parent = (parent[key] ?? {}) as Record<string, unknown>;
  const last = arrayPath.at(-1)!;
  const entries = Array.isArray(parent[last]) ? (parent[last] as unknown[]) : [];
  if (Array.isArray(parent[last])) parent[last] = [];
  return [JSON.stringify(copy), ...entries.map((entry) => JSON.stringify(entry))];
}

export class PrefixCacheBill {
  private readonly previous = new Map<string, Previous>();
  private readonly totals = new Map<string, BillTotals>();
  private readonly charsPerToken: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: PrefixBillOptions) {
    this.charsPerToken = options.charsPerToken ?? 4;
    this.ttlMs = options.ttlMs ?? 5 * 60 * 1000;
    this.now = options.now ?? Date.now;
  }

  /** Bills one request body under `key` (its cache), and adds it to that key's totals. */
  bill(key: string, body: unknown): PromptBill {
    const matched = promptSegments(body, this.options.arrayPath, this.options.promptKeys).map(
      withoutBreakpoints,
    );
    const at = this.now();
    const before = this.previous.get(key);
    const warm = before !== undefined && at - before.at <= this.ttlMs;
    let sharedChars = 0;
    if (warm && before.matched[0] === matched[0]) {
      for (let index = 0; index < matched.length; index++) {
        if (before.matched[index] !== matched[index]) break;
        sharedChars += matched[index]!.length;
      }
    }
    this.previous.set(key, { matched, at });
    const totalChars = matched.reduce((sum, segment) => sum + segment.length, 0);
    const prompt = Math.round(totalChars / this.charsPerToken);
    const read = Math.round(sharedChars / this.charsPerToken);
    const write = prompt - read;
    const { readPrice, writePrice } = BILLING_PRICES[this.options.rules];
    const bill = { prompt, read, write, billed: read * readPrice + write * writePrice };
    const totals = this.totals.get(key) ?? { requests: 0, prompt: 0, read: 0, write: 0, billed: 0 };
    this.totals.set(key, {
      requests: totals.requests + 1,
      prompt: totals.prompt + prompt,
      read: totals.read + read,
      write: totals.write + write,
      billed: totals.billed + bill.billed,
    });
    return bill;
  }

  /** The key's bill so far (zeros when it made no request). */
  total(key: string): BillTotals {
    return {
      ...(this.totals.get(key) ?? { requests: 0, prompt: 0, read: 0, write: 0, billed: 0 }),
    };
  }
}

/** The bill as Anthropic reports it: everything not read is written (the breakpoint is on the newest block). */
export function anthropicUsageOf(bill: PromptBill): {
  input: number;
  cacheRead: number;
  cacheWrite: number;
} {
  return { input: 0, cacheRead: bill.read, cacheWrite: bill.write };
}

/** The bill as the Responses API reports it. */
export function responsesUsageOf(bill: PromptBill): { input: number; cached: number } {
  return { input: bill.prompt, cached: bill.read };
}

/** The bill as chat completions (`prompt_tokens_details.cached_tokens`) and Gemini report it. */
export function promptUsageOf(bill: PromptBill): { prompt: number; cached: number } {
  return { prompt: bill.prompt, cached: bill.read };
}
