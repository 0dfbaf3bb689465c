/**
 * The offloaded outputs of a session: tool, call id, size, tokens kept out, and the preview, each
 * with a button that opens the whole output in the page (output-viewer.ts).
 */
import type { OffloadedOutput } from '../../src/dashboard/api-types.js';
import { h } from './dom.js';
import { formatBytes, formatInteger, formatTime } from './format.js';
import { openOutput } from './output-viewer.js';

function tokensNote(output: OffloadedOutput): string | null {
  if (output.tokensBefore === undefined || output.tokensAfter === undefined) return null;
  return `${formatInteger(Math.max(0, output.tokensBefore - output.tokensAfter))} tokens kept out`;
}

export function outputsList(session: string, outputs: readonly OffloadedOutput[]): HTMLElement {
  if (outputs.length === 0) {
    return h('p', { class: 'empty' }, 'No outputs offloaded in this session.');
  }
  return h(
    'ol',
    { class: 'outputs', id: 'outputs-list' },
    ...outputs.map((output, index) => {
      const open = h('button', { type: 'button', class: 'open-output' }, 'Open');
      open.addEventListener('click', () => openOutput(session, output));
      return h(
        'li',
        { class: 'output', 'data-index': index },
        h(
          'div',
          { class: 'output-head' },
          h('span', { class: 'tool' }, output.tool || '?'),
          h('span', { class: 'call-id' }, output.callId || '?'),
          h('span', { class: 'size' }, formatBytes(output.bytes)),
          tokensNote(output) ? h('span', { class: 'muted' }, tokensNote(output)) : null,
          h('span', { class: 'muted' }, formatTime(output.at)),
          open,
        ),
        h('pre', { class: 'preview' }, output.preview),
      );
    }),
  );
}
