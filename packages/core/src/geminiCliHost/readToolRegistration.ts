/**
 * Keeps `read_tool_output` (and `search_tool_outputs` beside it) registered in an installed
 * Config's `ToolRegistry`: registered once the
 * core-bound module (readToolOutputTool.ts) is loaded, registered again when the registry is
 * replaced or the tool removed, left alone (and said once) when another tool owns the name, and
 * clients that sent requests before a (re)registration get fresh tool declarations.
 */
import type { Config, GeminiClient } from '@google/gemini-cli-core';
import type { ToolOutputAccess } from '../storage/toolOutputReader.js';
import { READ_TOOL_OUTPUT_TOOL_NAME } from '../storage/toolOutputReader.js';
import { describeError } from '../utils/safeCall.js';
// Types only: the module itself (it imports gemini-cli-core) is loaded lazily.
import type * as CoreSideModule from './readToolOutputTool.js';

export type CoreSide = typeof CoreSideModule;
type Registration = NonNullable<ReturnType<CoreSide['registerReadToolOutputTool']>>;

export class ReadToolRegistration {
  private registration?: Registration;
  /** Bumped whenever the tool is (re)registered; clients that saw an older one refresh their tools. */
  private generation = 0;
  private readonly clientGeneration = new WeakMap<object, number>();
  /** A registry where another tool owns the name `read_tool_output`. */
  private foreignRegistry?: object;

  constructor(
    private readonly config: Config,
    private readonly access: () => Promise<ToolOutputAccess>,
    private readonly debug: (message: string) => void,
  ) {}

  /** Registers the tool unless already there or another tool owns the name. Never throws. */
  ensure(coreSide: CoreSide): void {
    try {
      const registry = this.config.getToolRegistry();
      const current = this.registration;
      const searchInPlace =
        !current?.searchTool || registry.getTool(current.searchTool.name) === current.searchTool;
      if (
        current &&
        current.registry === registry &&
        registry.getTool(current.tool.name) === current.tool &&
        searchInPlace
      ) {
        return;
      }
      // Someone else's tool of that name: leave it, and say so once per registry.
      if (
        !current &&
        this.foreignRegistry === registry &&
        registry.getTool(READ_TOOL_OUTPUT_TOOL_NAME)
      ) {
        return;
      }
      // The registry was replaced (or the tool removed): register again.
      current?.unregister();
      this.registration = coreSide.registerReadToolOutputTool(this.config, this.access);
      if (this.registration) {
        this.generation++;
      } else {
        this.foreignRegistry = registry;
        this.debug(
          '[toolmask] a tool named read_tool_output is registered already; leaving it in place.',
        );
      }
    } catch (error) {
      this.registration = undefined;
      this.debug(`[toolmask] could not register read_tool_output: ${describeError(error)}`);
    }
  }

  /**
   * `search_tool_outputs` when this registration offers it in the current registry (the snippets
   * then name it); undefined when another tool owns the name or nothing is registered.
   */
  get searchToolName(): string | undefined {
    const search = this.registration?.searchTool;
    if (!search) return undefined;
    try {
      return this.config.getToolRegistry().getTool(search.name) === search
        ? search.name
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** A client that sent requests before the tool was (re)registered gets fresh declarations. */
  async refreshClient(client: GeminiClient): Promise<void> {
    if (!this.registration || this.clientGeneration.get(client) === this.generation) return;
    this.clientGeneration.set(client, this.generation);
    try {
      await client.setTools();
    } catch {
      // The declarations are refreshed at the next model change anyway.
    }
  }

  /** Removes the tool; the host's main client drops the declaration now, others later. */
  unregister(): void {
    if (!this.registration) return;
    this.registration.unregister();
    this.registration = undefined;
    try {
      void this.config
        .getGeminiClient()
        .setTools()
        .catch(() => undefined);
    } catch {
      // No client: nothing to refresh.
    }
  }
}
