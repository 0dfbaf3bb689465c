/**
 * Answers of a scripted OpenAI Responses API, for a `startFakeUpstream` responder: the event stream
 * Codex reads (`response.created`, then per output item `response.output_item.added`, a text
 * delta for a message, `response.output_item.done`, and `response.completed` carrying the whole
 * response with its usage), each event with its `event:` line as the API sends them. Also what a
 * client sends back, read from a recorded request: its tool output items.
 */
import type { UpstreamReply } from './fake-upstream.js';

/** An item of the model's answer: text, or a function call (Codex's MCP tools carry a namespace). */
export type ResponsesAnswerItem =
  | { text: string }
  | { functionCall: { callId: string; name: string; arguments: unknown; namespace?: string } };

/** The prompt's figures as the Responses API reports them. */
export interface ResponsesUsage {
  input: number;
  cached?: number;
  output?: number;
}

/** Answers are numbered, so each response and item has an id of its own. */
let answers = 0;

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

function outputItem(item: ResponsesAnswerItem, id: string): Record<string, unknown> {
  if ('text' in item) {
    return {
      type: 'message',
      id: `msg_${id}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: item.text, annotations: [] }],
    };
  }
  const call = item.functionCall;
  return {
    type: 'function_call',
    id: `fc_${id}`,
    status: 'completed',
    call_id: call.callId,
    name: call.name,
    ...(call.namespace ? { namespace: call.namespace } : {}),
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  };
}

/** The events of one streamed answer, as one text. */
export function responsesStream(
  items: readonly ResponsesAnswerItem[],
  usage: ResponsesUsage = { input: 100 },
  model = 'gpt-fake',
): string {
  const id = `resp_fake_${++answers}`;
  const response = { id, object: 'response', created_at: 0, model, status: 'in_progress' };
  const events = [sse('response.created', { response: { ...response, output: [] } })];
  const output = items.map((item, index) => outputItem(item, `${answers}_${index}`));
  for (const [index, item] of output.entries()) {
    events.push(
      sse('response.output_item.added', {
        output_index: index,
        item: { ...item, status: 'in_progress' },
      }),
    );
    if (item['type'] === 'message') {
      const text = (items[index] as { text: string }).text;
      events.push(
        sse('response.output_text.delta', {
          item_id: item['id'],
          output_index: index,
          content_index: 0,
          delta: text,
        }),
      );
    }
    events.push(sse('response.output_item.done', { output_index: index, item }));
  }
  const outputTokens = usage.output ?? 12;
  events.push(
    sse('response.completed', {
      response: {
        ...response,
        status: 'completed',
        output,
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: usage.cached ?? 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + outputTokens,
        },
      },
    }),
  );
  return events.join('');
}

/** A streamed Responses answer, as a `startFakeUpstream` reply. */
export function responsesAnswer(
  items: readonly ResponsesAnswerItem[],
  usage?: ResponsesUsage,
): UpstreamReply {
  return { status: 200, text: responsesStream(items, usage), contentType: 'text/event-stream' };
}

/** A tool output item as a request carries it. */
export interface ToolOutputItem {
  type: string;
  call_id: string;
  output?: unknown;
  id?: string;
}

const OUTPUT_TYPES = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
  'shell_call_output',
  'apply_patch_call_output',
]);

/** The tool output items of a Responses request body, oldest first. */
export function toolOutputsOf(body: unknown): ToolOutputItem[] {
  const input = (body as { input?: unknown }).input;
  return (Array.isArray(input) ? (input as Array<{ type?: string }>) : []).filter(
    (item): item is ToolOutputItem => OUTPUT_TYPES.has(item.type ?? ''),
  );
}

/** The text of a tool output (a string, or its text items joined by newlines). */
export function toolOutputText(item: ToolOutputItem): string {
  const { output } = item;
  if (typeof output === 'string') return output;
  if (!Array.isArray(output)) return '';
  return (output as Array<{ type?: string; text?: string }>)
    .filter((part) => part.type === 'input_text')
    .map((part) => part.text ?? '')
    .join('\n');
}
