/**
 * The gateway's own figures for its dashboard: the usage records of its store, each
 * conversation's masked outputs from its recorded decisions (tool, call id, file, size, tokens,
 * and the preview the model was shown), its settings in force. `changed()` is called when a usage
 * record lands, and the page asks again.
 */
import type { ConversationRegistry } from '../conversation/conversation-registry.js';
import type { MaskingSettingsSource } from '../pipeline/masking-settings.js';
import type { ConversationStore, DecisionRecord, UsageStore } from '../state/stores.js';
import { CLIENT_KINDS } from '../usage/usage-record.js';
import type { OffloadedOutput, SettingValue } from './api-types.js';
import type { DashboardSource } from './dashboard-source.js';
import { readToolNames } from './read-back-names.js';

export interface GatewaySourceOptions {
  stateDir: string;
  usage: UsageStore;
  conversations: ConversationStore;
  registry: ConversationRegistry;
  settings: MaskingSettingsSource;
  /** The gateway's own settings in force, as shown. */
  gatewaySettings: Record<string, SettingValue>;
  /** The read-back tool's name the gateway gives gemini-cli (`readToolName`). */
  readToolName?: string;
  /** Resolves once the outputs queued for writing are written (a single gateway's queue). */
  outputsWritten?: () => Promise<unknown>;
  /** A team gateway: its outputs are in the shared store (DashboardSource.openOutput). */
  openOutput?: DashboardSource['openOutput'];
}

export interface GatewaySource extends DashboardSource {
  /** New figures are there (a usage record landed). */
  changed(owner?: string): void;
}

/** The preview inside a snippet: between its header line and its last two (hint, closing tag). */
export function snippetPreview(snippet: string): string {
  const lines = snippet.split('\n');
  return lines.length > 3 ? lines.slice(1, -2).join('\n') : '';
}

function outputOf(decision: Extract<DecisionRecord, { kind: 'masked' }>): OffloadedOutput {
  return {
    tool: decision.toolName,
    callId: decision.callId,
    file: decision.filePath,
    bytes: decision.bytes,
    tokensBefore: decision.tokensBefore,
    tokensAfter: decision.tokensAfter,
    at: decision.at,
    preview: snippetPreview(decision.response.output),
  };
}

export function createGatewaySource(options: GatewaySourceOptions): GatewaySource {
  const listeners = new Set<(owner?: string) => void>();
  return {
    kind: 'gateway',
    records: (query) => options.usage.list(query),
    async outputs(sessionId) {
      let stored;
      try {
        stored = await options.conversations.load(sessionId);
      } catch {
        return []; // not a conversation id of this store
      }
      return stored.decisions
        .filter((decision) => decision.kind === 'masked')
        .map(outputOf)
        .sort((a, b) => a.at - b.at);
    },
    async outputAccess(sessionId) {
      // An output still queued is written first: the page reads it like any other.
      await options.outputsWritten?.();
      return { projectTempDir: options.stateDir, sessionId, allowOtherSessions: false };
    },
    ...(options.openOutput ? { openOutput: options.openOutput } : {}),
    async status() {
      // The settings file's retentionDays is the in-process installation's: the gateway's own
      // (in the gateway group) is the one that applies here.
      const { retentionDays: _inProcessOnly, ...masking } = await options.settings.config();
      return {
        settings: {
          masking: masking as Record<string, SettingValue>,
          gateway: options.gatewaySettings,
        },
        details: {
          stateDir: options.stateDir,
          settingsFile: options.settings.file,
          conversationsInMemory: options.registry.size,
          retainedBytes: options.registry.retainedBytes(),
        },
        settingsFiles: Object.fromEntries(
          await Promise.all(
            CLIENT_KINDS.map(async (client) => [client, await options.settings.fileFor(client)]),
          ),
        ),
        ...(options.readToolName ? { readToolNames: readToolNames(options.readToolName) } : {}),
      };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    changed(owner) {
      for (const listener of listeners) listener(owner);
    },
  };
}
