/**
 * What the usage record says about a request beside its figures, for the dashboard's sessions:
 * whether it is a side request (its protocol's rule: protocols/side-requests.ts; or OpenCode's
 * title call, request-facts.ts), a digest of its session signal, and on a conversation's first
 * request the prompt and folder it names. Read from the body as it came, after the answer (off
 * the client's path): nothing here changes what is sent or how it is masked.
 */
import type { Protocol } from '../protocols/protocol.js';
import { requestFacts, type RequestFacts } from './request-facts.js';
import { sessionDigestOf } from './session-digest.js';
import type { UsageRecord } from './usage-record.js';

/** A request as the facts are read from it. */
export interface SideFactsOf {
  protocol: Protocol;
  /** The body as it came (none for a GET). */
  raw: Buffer | undefined;
  /**
   * The same without its conversation (the array empty), when the reader has it: every rule
   * reads keys outside the conversation, so it reads the same there without walking the array.
   */
  outside?: Buffer;
  /** Its session signal (protocols/session-signal.ts), as the conversation key read it. */
  session: Promise<string | undefined>;
  /** Keep the prompt and folder the body names (a conversation's first request). */
  named?: boolean;
}

/** The session signal as the conversation key reads it, digested (the record never holds it raw). */
async function sessionDigest(session: Promise<string | undefined>): Promise<string | undefined> {
  const signal = await session;
  return signal ? sessionDigestOf(signal) : undefined;
}

/** The record's `side`, `session`, `prompt` and `folder` fields (absent when unknown); never throws. */
export async function sideFacts(
  request: SideFactsOf,
): Promise<Pick<UsageRecord, 'side' | 'session' | 'prompt' | 'folder'>> {
  try {
    const [structured, session, facts] = await Promise.all([
      request.raw ? request.protocol.isSideRequest(request.outside ?? request.raw) : false,
      sessionDigest(request.session),
      request.raw
        ? requestFacts(request.protocol, request.raw, {
            named: request.named === true,
            outside: request.outside,
          })
        : ({} as RequestFacts),
    ]);
    const side = structured || facts.titleRequest === true;
    return {
      ...(side ? { side: true as const } : {}),
      ...(session ? { session } : {}),
      ...(request.named && facts.prompt ? { prompt: facts.prompt } : {}),
      ...(request.named && facts.folder ? { folder: facts.folder } : {}),
    };
  } catch {
    return {}; // a figure for the dashboard only: never a reason to lose the record
  }
}
