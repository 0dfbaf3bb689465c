/**
 * `read_tool_output` as a gemini-cli-core tool: registered in the host's `ToolRegistry` by
 * `installToolOutputMasking`, run by core's `Scheduler` like any built-in tool.
 *
 * This module imports `@google/gemini-cli-core` at load time (its base classes); the installation
 * loads it lazily, so that importing `@toolmask/core` stays cheap for code that never installs.
 * The logic (access checks, bounded reads) is storage/toolOutputReader.ts.
 *
 * The tool is read-only (`Kind.Read`) and confined to the project's tool-outputs folder, so the
 * installation allows it in the policy engine the way core allows `read_file` (default tier,
 * priority 1.05, source `toolmask`): it runs without a confirmation prompt, also in
 * non-interactive and plan mode. User and admin policies still win over that rule.
 */
import {
  BaseDeclarativeTool,
  BaseToolInvocation,
  Kind,
  PolicyDecision,
  ToolErrorType,
  tokenLimit,
  type Config,
  type ExecuteOptions,
  type MessageBus,
  type ToolInvocation,
  type ToolLocation,
  type ToolResult,
} from '@google/gemini-cli-core';
import {
  READ_TOOL_OUTPUT_TOOL_NAME,
  ToolOutputReadError,
  readToolOutput,
  validateReadToolOutputParams,
  type ReadToolOutputParams,
  type ToolOutputAccess,
  type ToolOutputReadErrorCode,
} from '../storage/toolOutputReader.js';
import { READ_TOOL_OUTPUT_TEXT } from '../storage/readToolText.js';
import { SEARCH_TOOL_OUTPUTS_TOOL_NAME } from '../storage/searchOutputs.js';
import { SearchToolOutputsTool } from './searchToolOutputsTool.js';
import { describeError } from '../utils/safeCall.js';

export { READ_TOOL_OUTPUT_TOOL_NAME };

/** The policy rule source, for `removeRulesForTool(name, source)`. */
export const READ_TOOL_OUTPUT_POLICY_SOURCE = 'toolmask';
/** Core's default tier for read-only tools (`read-only.toml`, priority 50 → 1.050). */
export const READ_TOOL_OUTPUT_POLICY_PRIORITY = 1.05;

/** Tells the tool, at each call, where this session's outputs are and what may be read. */
export type ToolOutputAccessProvider = () => Promise<ToolOutputAccess>;

const PARAMETER_SCHEMA = {
  type: 'object',
  properties: {
    file: { type: 'string', description: READ_TOOL_OUTPUT_TEXT.parameters.file },
    offset: { type: 'integer', minimum: 1, description: READ_TOOL_OUTPUT_TEXT.parameters.offset },
    limit: { type: 'integer', minimum: 1, description: READ_TOOL_OUTPUT_TEXT.parameters.limit },
    pattern: { type: 'string', description: READ_TOOL_OUTPUT_TEXT.parameters.pattern },
  },
  required: ['file'],
};

function errorType(code: ToolOutputReadErrorCode): ToolErrorType {
  switch (code) {
    case 'INVALID_PARAMS':
    case 'INVALID_PATTERN':
      return ToolErrorType.INVALID_TOOL_PARAMS;
    case 'OUTSIDE':
    case 'OTHER_SESSION':
      return ToolErrorType.PATH_NOT_IN_WORKSPACE;
    case 'NOT_FOUND':
      return ToolErrorType.FILE_NOT_FOUND;
    case 'NOT_A_FILE':
      return ToolErrorType.TARGET_IS_DIRECTORY;
    case 'READ_FAILED':
      return ToolErrorType.READ_CONTENT_FAILURE;
    case 'ABORTED':
      return ToolErrorType.EXECUTION_FAILED;
  }
}

class ReadToolOutputInvocation extends BaseToolInvocation<ReadToolOutputParams, ToolResult> {
  constructor(
    params: ReadToolOutputParams,
    messageBus: MessageBus,
    private readonly access: ToolOutputAccessProvider,
    toolName?: string,
    displayName?: string,
  ) {
    super(params, messageBus, toolName, displayName);
  }

  getDescription(): string {
    const { file, offset, limit, pattern } = this.params;
    const range =
      offset !== undefined || limit !== undefined
        ? ` from line ${offset ?? 1}${limit !== undefined ? `, ${limit} ${pattern ? 'matches' : 'lines'}` : ''}`
        : '';
    return `${pattern ? `Searching /${pattern}/ in` : 'Reading'} ${file}${range}`;
  }

  override toolLocations(): ToolLocation[] {
    return [{ path: this.params.file, line: this.params.offset }];
  }

  async execute(options?: ExecuteOptions): Promise<ToolResult> {
    try {
      const signal = options?.abortSignal;
      const result = await readToolOutput(
        this.params,
        await this.access(),
        signal ? { signal } : {},
      );
      return { llmContent: result.text, returnDisplay: result.summary };
    } catch (error) {
      const readError =
        error instanceof ToolOutputReadError
          ? error
          : new ToolOutputReadError('READ_FAILED', describeError(error));
      const message = `read_tool_output: ${readError.message}`;
      return {
        llmContent: message,
        returnDisplay: message,
        error: { message, type: errorType(readError.code) },
      };
    }
  }
}

/** The tool. `access` is asked at every call (session id and settings can change). */
export class ReadToolOutputTool extends BaseDeclarativeTool<ReadToolOutputParams, ToolResult> {
  static readonly Name = READ_TOOL_OUTPUT_TOOL_NAME;

  constructor(
    messageBus: MessageBus,
    private readonly access: ToolOutputAccessProvider,
  ) {
    super(
      READ_TOOL_OUTPUT_TOOL_NAME,
      'ReadToolOutput',
      READ_TOOL_OUTPUT_TEXT.description,
      Kind.Read,
      PARAMETER_SCHEMA,
      messageBus,
      /* isOutputMarkdown */ false,
      /* canUpdateOutput */ false,
    );
  }

  protected override validateToolParamValues(params: ReadToolOutputParams): string | null {
    return validateReadToolOutputParams(params);
  }

  protected createInvocation(
    params: ReadToolOutputParams,
    messageBus: MessageBus,
    toolName?: string,
    displayName?: string,
  ): ToolInvocation<ReadToolOutputParams, ToolResult> {
    return new ReadToolOutputInvocation(
      params,
      messageBus,
      this.access,
      toolName ?? READ_TOOL_OUTPUT_TOOL_NAME,
      displayName,
    );
  }
}

export interface ReadToolOutputRegistration {
  readonly tool: ReadToolOutputTool;
  /** `search_tool_outputs`, registered with it unless another tool owns that name. */
  readonly searchTool: SearchToolOutputsTool | undefined;
  /** The registry the tool went into (`config.getToolRegistry()` at that time). */
  readonly registry: object;
  /** Removes the tools (those still ours) and their policy rules. Idempotent. */
  unregister(): void;
}

/** Registers `tool` and allows it in the policy engine; returns what undoes both. */
function registerReadOnly(config: Config, tool: ReadToolOutputTool | SearchToolOutputsTool) {
  const registry = config.getToolRegistry();
  const policy = config.getPolicyEngine();
  registry.registerTool(tool);
  policy.addRule({
    name: `toolmask: ${tool.name} is read-only and confined to tool-outputs/`,
    toolName: tool.name,
    decision: PolicyDecision.ALLOW,
    priority: READ_TOOL_OUTPUT_POLICY_PRIORITY,
    source: READ_TOOL_OUTPUT_POLICY_SOURCE,
  });
  return () => {
    if (registry.getTool(tool.name) === tool) registry.unregisterTool(tool.name);
    policy.removeRulesForTool(tool.name, READ_TOOL_OUTPUT_POLICY_SOURCE);
  };
}

/**
 * Registers `read_tool_output` and `search_tool_outputs` in `config.getToolRegistry()` and allows
 * them in the policy engine. Returns undefined (and changes nothing) when another tool named
 * `read_tool_output` is registered already; leaves out the search when another tool has its name.
 */
export function registerReadToolOutputTool(
  config: Config,
  access: ToolOutputAccessProvider,
): ReadToolOutputRegistration | undefined {
  const registry = config.getToolRegistry();
  if (registry.getTool(READ_TOOL_OUTPUT_TOOL_NAME)) return undefined;
  const tool = new ReadToolOutputTool(config.getMessageBus(), access);
  const undo = [registerReadOnly(config, tool)];
  let searchTool: SearchToolOutputsTool | undefined;
  if (!registry.getTool(SEARCH_TOOL_OUTPUTS_TOOL_NAME)) {
    searchTool = new SearchToolOutputsTool(config.getMessageBus(), access);
    undo.push(registerReadOnly(config, searchTool));
  }
  let registered = true;
  return {
    tool,
    searchTool,
    registry,
    unregister() {
      if (!registered) return;
      registered = false;
      for (const step of undo) step();
    },
  };
}

/** Core's context window of a model (`tokenLimit`); undefined when it cannot tell. */
export function contextWindowOf(model: string | undefined): number | undefined {
  if (!model) return undefined;
  try {
    const limit = tokenLimit(model);
    return Number.isFinite(limit) && limit > 0 ? limit : undefined;
  } catch {
    return undefined;
  }
}
