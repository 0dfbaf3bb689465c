/**
 * Loads recorded agent sessions from `../shared/traces` (beside the repository root) and turns a
 * run of them into what an end-to-end test needs: the model turns the fake server replays, and
 * the user turns the host loop sends back (each tool call answered with its recorded output).
 *
 * The traces are not part of the repository. `tracesDir()` is undefined where the folder is
 * absent, and tests skip with `TRACES_SKIP_MESSAGE`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Content, Part } from '@google/gemini-cli-core';
import type { FakeModelTurn } from './fake-gemini-server.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** `TOOLMASK_TRACES_DIR`, else `<repo>/../shared/traces`; undefined when it does not exist. */
export function tracesDir(): string | undefined {
  const dir = process.env['TOOLMASK_TRACES_DIR'] ?? path.resolve(REPO_ROOT, '../shared/traces');
  return fs.existsSync(dir) && fs.statSync(dir).isDirectory() ? dir : undefined;
}

export const TRACES_SKIP_MESSAGE =
  'skipped: recorded sessions not found at ../shared/traces (set TOOLMASK_TRACES_DIR to run the end-to-end tests)';

export interface TraceSession {
  /** `<folder>/<file>` without `.json`. */
  name: string;
  contents: Content[];
}

export function loadTraceSession(name: string, dir = tracesDir()): TraceSession {
  if (!dir) throw new Error(TRACES_SKIP_MESSAGE);
  const file = path.join(dir, `${name}.json`);
  const contents = JSON.parse(fs.readFileSync(file, 'utf8')) as Content[];
  if (!Array.isArray(contents)) throw new Error(`${file}: expected a JSON array of Content`);
  return { name, contents };
}

export function loadTraceSessions(names: readonly string[], dir = tracesDir()): TraceSession[] {
  return names.map((name) => loadTraceSession(name, dir));
}

/** One user message the host sends: a text prompt, or answers to the previous model turn's calls. */
export interface HostStep {
  session: string;
  /** A new prompt (text) starts a new prompt id; answers continue the current one. */
  kind: 'prompt' | 'answers';
  /** Text parts of a prompt. */
  text: string[];
  /** Recorded outputs, keyed by the trace's call id, in call order. */
  answers: Array<{ callId: string; name: string; response: Record<string, unknown> }>;
}

export interface ReplayScript {
  /** What the fake server answers, in order. */
  modelTurns: FakeModelTurn[];
  /** What the host sends, in order. */
  steps: HostStep[];
  /** Every recorded output, by trace call id. */
  outputs: Map<string, { name: string; response: Record<string, unknown> }>;
}

const FINAL_TEXT: FakeModelTurn = { parts: [{ text: 'Task finished.' }] };

function hasCalls(content: Content | undefined): boolean {
  return (content?.parts ?? []).some((part) => part.functionCall);
}

/** Keeps what a model turn says and calls; drops thought parts and signatures. */
function modelTurnOf(content: Content): FakeModelTurn {
  const parts: Part[] = [];
  for (const part of content.parts ?? []) {
    if (part.thought) continue;
    if (part.functionCall) parts.push({ functionCall: part.functionCall });
    else if (typeof part.text === 'string' && part.text.length > 0) parts.push({ text: part.text });
  }
  return { parts: parts.length > 0 ? parts : [{ text: '...' }] };
}

/**
 * Builds the replay of several sessions one after another. Each session starts with its first
 * user text as a new prompt; every model turn is replayed as recorded; every user turn that
 * answers calls becomes an `answers` step. A session that ends on answers gets a closing text
 * turn, so the host loop ends the prompt there, as a real agent would.
 */
export function buildReplayScript(sessions: readonly TraceSession[]): ReplayScript {
  const modelTurns: FakeModelTurn[] = [];
  const steps: HostStep[] = [];
  const outputs: ReplayScript['outputs'] = new Map();

  for (const session of sessions) {
    let previous: Content | undefined;
    for (const content of session.contents) {
      if (content.role === 'model') {
        modelTurns.push(modelTurnOf(content));
        previous = content;
        continue;
      }
      const parts = content.parts ?? [];
      const answers: HostStep['answers'] = [];
      const text: string[] = [];
      for (const part of parts) {
        const fr = part.functionResponse;
        if (fr && typeof fr.id === 'string') {
          const entry = {
            callId: fr.id,
            name: fr.name ?? 'unknown',
            response: (fr.response ?? {}) as Record<string, unknown>,
          };
          answers.push(entry);
          outputs.set(fr.id, { name: entry.name, response: entry.response });
        } else if (typeof part.text === 'string') {
          text.push(part.text);
        }
      }
      if (hasCalls(previous) && answers.length > 0) {
        steps.push({ session: session.name, kind: 'answers', text, answers });
      } else if (!hasCalls(previous) && text.length > 0) {
        steps.push({ session: session.name, kind: 'prompt', text, answers: [] });
      }
      previous = content;
    }
    // The last model reply must be text, or the host would wait for answers that never come.
    if (hasCalls(previous) || previous?.role === 'user') modelTurns.push(FINAL_TEXT);
  }
  return { modelTurns, steps, outputs };
}

/** Total characters of recorded tool output in a run of sessions. */
export function toolOutputChars(sessions: readonly TraceSession[]): number {
  let total = 0;
  for (const session of sessions) {
    for (const content of session.contents) {
      for (const part of content.parts ?? []) {
        if (part.functionResponse) total += JSON.stringify(part.functionResponse.response).length;
      }
    }
  }
  return total;
}
