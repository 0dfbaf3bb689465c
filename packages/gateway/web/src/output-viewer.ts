/**
 * Opening one offloaded output in the page: a dialog that reads the output's text from the API in
 * slices (the first at once, the next on "Load more") and shows it as text in a `<pre>`, exactly
 * as it was saved. One dialog for the page, kept outside the views so a live refresh of the
 * session behind it leaves it open.
 */
import type { OffloadedOutput } from '../../src/dashboard/api-types.js';
import { api } from './api.js';
import { h } from './dom.js';
import { formatBytes } from './format.js';

interface Viewer {
  dialog: HTMLDialogElement;
  title: HTMLElement;
  text: HTMLPreElement;
  status: HTMLElement;
  more: HTMLButtonElement;
}

let viewer: Viewer | undefined;
/** Which output the dialog shows, and where its next slice starts. */
let current: { session: string; file: string; nextOffset: number } | undefined;

function createViewer(): Viewer {
  const title = h('h2', { id: 'output-title' });
  const text = h('pre', { id: 'output-text', class: 'output-text' });
  const status = h('p', { id: 'output-status', class: 'muted' });
  const more = h('button', { type: 'button', id: 'output-more', hidden: true }, 'Load more');
  const close = h('button', { type: 'button', id: 'output-close' }, 'Close');
  const dialog = h(
    'dialog',
    { id: 'output-dialog', class: 'output-dialog', 'aria-labelledby': 'output-title' },
    h('div', { class: 'dialog-head' }, title, close),
    text,
    h('div', { class: 'dialog-foot' }, status, more),
  );
  close.addEventListener('click', () => dialog.close());
  more.addEventListener('click', () => void loadNext());
  dialog.addEventListener('close', () => {
    current = undefined;
  });
  document.body.append(dialog);
  return { dialog, title, text, status, more };
}

async function loadNext(): Promise<void> {
  if (!viewer || !current) return;
  const reading = current;
  viewer.more.disabled = true;
  try {
    const slice = await api.outputSlice(reading.session, reading.file, reading.nextOffset);
    if (current !== reading) return; // another output was opened meanwhile
    viewer.text.append(slice.text);
    reading.nextOffset = slice.nextOffset;
    viewer.more.hidden = !slice.truncated;
    viewer.status.textContent = slice.truncated
      ? `Showing ${formatBytes(slice.nextOffset)} of ${formatBytes(slice.bytes)}.`
      : `${formatBytes(slice.bytes)}, all shown.`;
    viewer.dialog.dataset['loaded'] = slice.truncated ? 'partial' : 'complete';
  } catch (error) {
    if (current !== reading) return;
    viewer.status.textContent = `Could not read it: ${(error as Error).message}`;
    viewer.dialog.dataset['loaded'] = 'error';
  } finally {
    viewer.more.disabled = false;
  }
}

export function openOutput(session: string, output: OffloadedOutput): void {
  viewer ??= createViewer();
  current = { session, file: output.file, nextOffset: 0 };
  viewer.title.textContent = `${output.tool} · ${output.callId}`;
  viewer.text.textContent = '';
  viewer.status.textContent = 'Loading…';
  viewer.more.hidden = true;
  viewer.dialog.dataset['loaded'] = 'loading';
  if (!viewer.dialog.open) viewer.dialog.showModal();
  void loadNext();
}
