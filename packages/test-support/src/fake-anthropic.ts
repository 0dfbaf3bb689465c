/**
 * Answers of a scripted Anthropic Messages API, for a `startFakeUpstream` responder: the event
 * stream Claude Code reads (`message_start` with the prompt's usage, one `content_block_start` /
 * delta / `content_block_stop` per block, `message_delta` with the stop reason and the output
 * count, `message_stop`), each event with its `event:` line, which the Anthropic SDKs require.
 * Also what a client sends back, read from a recorded request: its tool results.
 */
import type { UpstreamReply } from './fake-upstream.js';

/** A block of the model's answer: text, or a tool call with its input. */
export type AnthropicAnswerBlock =
  { text: string } | { toolUse: { id: string; name: string; input: unknown } };

/** The prompt's figures as Anthropic reports them (input after the last breakpoint, cache reads and writes). */
export interface AnthropicUsage {
  input: number;
  cacheRead?: number;
  cacheWrite?: number;
  output?: number;
}

/**
 * Answers are numbered: Claude Code merges streamed messages that share an id into one (all the
 * calls in one assistant message, all the results in one user message).
 */
let answers = 0;

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** The events of one streamed answer, as one text. */
export function anthropicStream(
  blocks: readonly AnthropicAnswerBlock[],
  usage: AnthropicUsage = { input: 100 },
  model = 'claude-fake',
): string {
  const events = [
    sse('message_start', {
      message: {
        id: `msg_fake_${++answers}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          cache_read_input_tokens: usage.cacheRead ?? 0,
          cache_creation_input_tokens: usage.cacheWrite ?? 0,
          output_tokens: 1,
        },
      },
    }),
  ];
  for (const [index, block] of blocks.entries()) {
    if ('text' in block) {
      events.push(
        sse('content_block_start', { index, content_block: { type: 'text', text: '' } }),
        sse('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } }),
      );
    } else {
      const { id, name, input } = block.toolUse;
      events.push(
        sse('content_block_start', {
          index,
          content_block: { type: 'tool_use', id, name, input: {} },
        }),
        sse('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
        }),
      );
    }
    events.push(sse('content_block_stop', { index }));
  }
  const calls = blocks.some((block) => 'toolUse' in block);
  events.push(
    sse('message_delta', {
      delta: { stop_reason: calls ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output ?? 12 },
    }),
    sse('message_stop', {}),
  );
  return events.join('');
}

/** A streamed Messages answer, as a `startFakeUpstream` reply. */
export function anthropicAnswer(
  blocks: readonly AnthropicAnswerBlock[],
  usage?: AnthropicUsage,
): UpstreamReply {
  return { status: 200, text: anthropicStream(blocks, usage), contentType: 'text/event-stream' };
}

/** A `tool_result` block as a request carries it. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: unknown;
  is_error?: boolean;
  cache_control?: unknown;
}

/** The tool results of a Messages request body, oldest first. */
export function toolResultsOf(body: unknown): ToolResultBlock[] {
  const messages = (body as { messages?: Array<{ role: string; content: unknown }> }).messages;
  return (messages ?? []).flatMap((message) =>
    message.role === 'user' && Array.isArray(message.content)
      ? (message.content as Array<{ type?: string }>).filter(
          (block): block is ToolResultBlock => block.type === 'tool_result',
        )
      : [],
  );
}

/** The text of a tool result's content (a string, or its text blocks joined by newlines). */
export function toolResultText(block: ToolResultBlock): string {
  const { content } = block;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Array<{ type?: string; text?: string }>)
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}
