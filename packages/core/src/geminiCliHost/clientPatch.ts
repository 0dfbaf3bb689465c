/**
 * The prototype patch that puts toolmask in front of every model request of a gemini-cli-core
 * `GeminiClient` (0.61.0), reference-counted per prototype.
 *
 * - `sendMessageStream` is wrapped. Core calls `this.sendMessageStream(...)` for its continuations
 *   (next-speaker "Please continue.", loop recovery, AfterAgent hooks), so those go through the
 *   wrapper too, and so do clients created after installation (they share the prototype). The
 *   wrapper asks `lookup(client)` for the client's handler; clients without one (of a Config
 *   that is not installed) pass straight through.
 * - `tryMaskToolOutputs` (core's own masking pass) becomes a no-op for clients whose handler
 *   `suppressesCoreMasking`: remote experiment flags can override the thresholds that otherwise
 *   keep it off.
 *
 * The patch is applied once per prototype and restored when the last user releases it (and left
 * in place, as a pass-through, if someone wrapped the methods on top since).
 */
import type { Content, GeminiClient } from '@google/gemini-cli-core';

export type SendMessageStream = GeminiClient['sendMessageStream'];
export type SendArgs = Parameters<SendMessageStream>;
type TryMask = (this: GeminiClient, history: readonly Content[]) => Promise<void>;

/** What the wrapper delegates to for one client. */
export interface ClientHandler {
  readonly suppressesCoreMasking: boolean;
  send(
    client: GeminiClient,
    original: SendMessageStream,
    args: SendArgs,
  ): ReturnType<SendMessageStream>;
}

export interface ClientPatch {
  release(): void;
}

interface PrototypePatch {
  proto: Record<string, unknown>;
  originalSend: SendMessageStream;
  wrappedSend: SendMessageStream;
  originalTryMask?: TryMask;
  wrappedTryMask?: TryMask;
  users: number;
}

const patches = new Map<object, PrototypePatch>();

/** The prototype in the chain that owns `sendMessageStream` (the class itself, not a subclass). */
export function ownerPrototype(start: object): Record<string, unknown> | undefined {
  for (let proto: object | null = start; proto; proto = Object.getPrototypeOf(proto)) {
    if (Object.prototype.hasOwnProperty.call(proto, 'sendMessageStream')) {
      return proto as Record<string, unknown>;
    }
  }
  return undefined;
}

function createPatch(
  proto: Record<string, unknown>,
  lookup: (client: object) => ClientHandler | undefined,
): PrototypePatch {
  const originalSend = proto['sendMessageStream'] as SendMessageStream;
  const wrappedSend = function sendMessageStream(this: GeminiClient, ...args: SendArgs) {
    const handler = lookup(this);
    if (!handler) return originalSend.apply(this, args);
    return handler.send(this, originalSend, args);
  } as SendMessageStream;
  const patch: PrototypePatch = { proto, originalSend, wrappedSend, users: 0 };
  proto['sendMessageStream'] = wrappedSend;

  const tryMask = proto['tryMaskToolOutputs'];
  if (typeof tryMask === 'function') {
    const originalTryMask = tryMask as TryMask;
    const wrappedTryMask: TryMask = function tryMaskToolOutputs(this: GeminiClient, history) {
      if (lookup(this)?.suppressesCoreMasking) return Promise.resolve();
      return originalTryMask.call(this, history);
    };
    patch.originalTryMask = originalTryMask;
    patch.wrappedTryMask = wrappedTryMask;
    proto['tryMaskToolOutputs'] = wrappedTryMask;
  }
  return patch;
}

function restore(patch: PrototypePatch): void {
  patches.delete(patch.proto);
  // Someone may have wrapped on top of us since; then our (now pass-through) wrapper stays.
  if (patch.proto['sendMessageStream'] === patch.wrappedSend) {
    patch.proto['sendMessageStream'] = patch.originalSend;
  }
  if (patch.wrappedTryMask && patch.proto['tryMaskToolOutputs'] === patch.wrappedTryMask) {
    patch.proto['tryMaskToolOutputs'] = patch.originalTryMask;
  }
}

/**
 * Patches `proto` (once; later calls count users) so that each client's requests go to
 * `lookup(client)`. `lookup` of the first user serves every user of the prototype, so it must find
 * every installation (it does: one registry of installations by Config).
 */
export function acquireClientPatch(
  proto: Record<string, unknown>,
  lookup: (client: object) => ClientHandler | undefined,
): ClientPatch {
  let patch = patches.get(proto);
  if (!patch) {
    patch = createPatch(proto, lookup);
    patches.set(proto, patch);
  }
  patch.users++;
  const acquired = patch;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      acquired.users--;
      if (acquired.users === 0) restore(acquired);
    },
  };
}
