/**
 * The same scripted session through a real client and its `toolmask` launcher twice, masked and
 * with masking off, each against its own fake billed by a provider's prefix-cache rules
 * (fake-prefix-bill.ts), for the launchers' net-figure end-to-end tests: the fakes' own bills,
 * and the net figure the masked run's exit line printed.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PrefixCacheBill, type BillTotals, type BillingRules } from './fake-prefix-bill.js';
import { startFakeUpstream, type UpstreamResponder } from './fake-upstream.js';

export interface LaunchRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface NetBillingRunOptions {
  rules: BillingRules;
  arrayPath: readonly string[];
  /** The body's keys that are part of the prompt (fake-prefix-bill.ts); default: all. */
  promptKeys?: readonly string[];
  /** The fake: answers a request, billing it with `bill` when it is the session's. */
  respond: (bill: PrefixCacheBill) => UpstreamResponder;
  /** Runs the launcher in `root` (a fresh folder) against the fake at `upstreamUrl`. */
  launch: (run: {
    root: string;
    upstreamUrl: string;
    maskingSettings: string;
  }) => Promise<LaunchRun>;
  /** Masking settings of the masked run (`experimental.toolOutputMasking`); default: the defaults. */
  masking?: Record<string, unknown>;
}

export interface NetBillingRun {
  run: LaunchRun;
  bill: BillTotals;
}

/** One request as a fake billed it, with how many masked outputs its body held. */
export interface BilledRequest {
  prompt: number;
  read: number;
  masked: number;
}

/**
 * The requests of a run that broke the cache without masking anything new: each such request
 * should read the whole prompt of the one before it. Empty when nothing but masking breaks it.
 */
export function breaksNotFromMasking(
  requests: readonly BilledRequest[],
): Array<{ index: number; read: number; previousPrompt: number }> {
  return requests.flatMap((request, index) => {
    const before = requests[index - 1];
    return before && request.masked === before.masked && request.read !== before.prompt
      ? [{ index, read: request.read, previousPrompt: before.prompt }]
      : [];
  });
}

/** The net figure of an exit line, signed: positive when masking billed less. */
export function netTokensOf(stderr: string): number | undefined {
  const match = /billed (?:\d+(?:\.\d)?)% (less|more) than without masking \(([\d,]+) tokens/.exec(
    stderr,
  );
  if (!match) return /billed the same as without masking/.test(stderr) ? 0 : undefined;
  const tokens = Number(match[2]!.replaceAll(',', ''));
  return match[1] === 'less' ? tokens : -tokens;
}

async function once(
  options: NetBillingRunOptions,
  masked: boolean,
  base: string,
): Promise<NetBillingRun> {
  // Names of one length: the prompts hold the working folder.
  const root = path.join(base, masked ? 'run-m' : 'run-u');
  await fs.mkdir(root, { recursive: true });
  const bill = new PrefixCacheBill({
    rules: options.rules,
    arrayPath: options.arrayPath,
    ...(options.promptKeys ? { promptKeys: options.promptKeys } : {}),
  });
  const upstream = await startFakeUpstream(options.respond(bill));
  try {
    const maskingSettings = path.join(root, 'masking.json');
    const settings = masked ? (options.masking ?? {}) : { ...options.masking, enabled: false };
    await fs.writeFile(
      maskingSettings,
      JSON.stringify({ experimental: { toolOutputMasking: settings } }),
    );
    const run = await options.launch({ root, upstreamUrl: upstream.url, maskingSettings });
    return { run, bill: bill.total('session') };
  } finally {
    await upstream.close();
  }
}

/** Both runs, masked first; their folders are removed after. */
export async function maskedAndUnmasked(
  options: NetBillingRunOptions,
): Promise<{ masked: NetBillingRun; unmasked: NetBillingRun }> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'toolmask-net-e2e-'));
  try {
    const masked = await once(options, true, base);
    const unmasked = await once(options, false, base);
    return { masked, unmasked };
  } finally {
    await fs.rm(base, { recursive: true, force: true });
  }
}
