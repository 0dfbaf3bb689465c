/**
 * `search_tool_outputs` as a gemini-cli-core tool, registered beside `read_tool_output`
 * (readToolOutputTool.ts registers both, with the same read-only policy rule). Like that module,
 * it imports `@google/gemini-cli-core` at load time and is loaded lazily. The logic (what may be
 * searched, bounded matching, ranking) is storage/searchOutputs.ts.
 */
import {
  BaseDeclarativeTool,
  BaseToolInvocation,
  Kind,
  ToolErrorType,
  type ExecuteOptions,
  type MessageBus,
  type ToolInvocation,
  type ToolResult,
} from '@google/gemini-cli-core';
import {
  SEARCH_TOOL_OUTPUTS_TOOL_NAME,
  searchToolOutputs,
  validateSearchToolOutputsParams,
  type SearchToolOutputsParams,
} from '../storage/searchOutputs.js';
import { SEARCH_LIMITS } from '../storage/searchQuery.js';
import { SEARCH_TOOL_OUTPUTS_TEXT } from '../storage/searchToolText.js';
import { ToolOutputReadError, type ToolOutputAccess } from '../storage/toolOutputReader.js';
import { describeError } from '../utils/safeCall.js';

const PARAMETER_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', description: SEARCH_TOOL_OUTPUTS_TEXT.parameters.query },
    regex: { type: 'boolean', description: SEARCH_TOOL_OUTPUTS_TEXT.parameters.regex },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: SEARCH_LIMITS.maxResults,
      description: SEARCH_TOOL_OUTPUTS_TEXT.parameters.limit,
    },
  },
  required: ['query'],
};

type AccessProvider = () => Promise<ToolOutputAccess>;

class SearchToolOutputsInvocation extends BaseToolInvocation<SearchToolOutputsParams, ToolResult> {
  constructor(
    params: SearchToolOutputsParams,
    messageBus: MessageBus,
    private readonly access: AccessProvider,
    toolName?: string,
    displayName?: string,
  ) {
    super(params, messageBus, toolName, displayName);
  }

  getDescription(): string {
    const { query, regex } = this.params;
    return `Searching saved tool outputs for ${regex ? `/${query}/` : JSON.stringify(query)}`;
  }

  async execute(options?: ExecuteOptions): Promise<ToolResult> {
    try {
      const signal = options?.abortSignal;
      const access = await this.access();
      const result = await searchToolOutputs(this.params, access, signal ? { signal } : {});
      return { llmContent: result.text, returnDisplay: result.summary };
    } catch (error) {
      const known = error instanceof ToolOutputReadError;
      const message = `search_tool_outputs: ${known ? error.message : describeError(error)}`;
      const invalid =
        known && (error.code === 'INVALID_PARAMS' || error.code === 'INVALID_PATTERN');
      return {
        llmContent: message,
        returnDisplay: message,
        error: {
          message,
          type: invalid ? ToolErrorType.INVALID_TOOL_PARAMS : ToolErrorType.EXECUTION_FAILED,
        },
      };
    }
  }
}

/** The tool. `access` is asked at every call (session id and settings can change). */
export class SearchToolOutputsTool extends BaseDeclarativeTool<
  SearchToolOutputsParams,
  ToolResult
> {
  static readonly Name = SEARCH_TOOL_OUTPUTS_TOOL_NAME;

  constructor(
    messageBus: MessageBus,
    private readonly access: AccessProvider,
  ) {
    super(
      SEARCH_TOOL_OUTPUTS_TOOL_NAME,
      'SearchToolOutputs',
      SEARCH_TOOL_OUTPUTS_TEXT.description,
      Kind.Search,
      PARAMETER_SCHEMA,
      messageBus,
      /* isOutputMarkdown */ false,
      /* canUpdateOutput */ false,
    );
  }

  protected override validateToolParamValues(params: SearchToolOutputsParams): string | null {
    return validateSearchToolOutputsParams(params);
  }

  protected createInvocation(
    params: SearchToolOutputsParams,
    messageBus: MessageBus,
    toolName?: string,
    displayName?: string,
  ): ToolInvocation<SearchToolOutputsParams, ToolResult> {
    return new SearchToolOutputsInvocation(
      params,
      messageBus,
      this.access,
      toolName ?? SEARCH_TOOL_OUTPUTS_TOOL_NAME,
      displayName,
    );
  }
}
