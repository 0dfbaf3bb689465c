/**
 * The editable price table: one row per model prefix with its USD per million uncached and cached
 * prompt tokens; changes are saved in this browser at once; "Reset" brings back the defaults.
 */
import { h } from './dom.js';
import { resetPrices, savePrices, type PriceRow } from './prices.js';

function numberInput(value: number, label: string, onChange: (value: number) => void) {
  const input = h('input', {
    type: 'number',
    min: 0,
    step: 'any',
    value,
    'aria-label': label,
    class: 'price',
  });
  input.addEventListener('change', () => {
    const number = Number(input.value);
    if (Number.isFinite(number) && number >= 0) onChange(number);
  });
  return input;
}

export function priceEditor(rows: PriceRow[], onChange: (rows: PriceRow[]) => void): HTMLElement {
  const commit = (next: PriceRow[]) => {
    savePrices(next);
    onChange(next);
  };
  const body = rows.map((row, index) => {
    const model = h('input', { type: 'text', value: row.model, 'aria-label': 'model prefix' });
    model.addEventListener('change', () =>
      commit(rows.map((r, i) => (i === index ? { ...r, model: model.value.trim() } : r))),
    );
    const remove = h('button', { type: 'button', class: 'remove' }, 'Remove');
    remove.addEventListener('click', () => commit(rows.filter((_, i) => i !== index)));
    return h(
      'tr',
      { class: 'price-row' },
      h('td', {}, model),
      h(
        'td',
        { class: 'num' },
        numberInput(row.input, `${row.model} input price`, (input) =>
          commit(rows.map((r, i) => (i === index ? { ...r, input } : r))),
        ),
      ),
      h(
        'td',
        { class: 'num' },
        numberInput(row.cached, `${row.model} cached price`, (cached) =>
          commit(rows.map((r, i) => (i === index ? { ...r, cached } : r))),
        ),
      ),
      h('td', {}, remove),
    );
  });
  const add = h('button', { type: 'button' }, 'Add a model');
  add.addEventListener('click', () => commit([...rows, { model: '', input: 0, cached: 0 }]));
  const reset = h('button', { type: 'button' }, 'Reset to defaults');
  reset.addEventListener('click', () => onChange(resetPrices()));
  return h(
    'div',
    { class: 'prices' },
    h(
      'table',
      { class: 'price-table', id: 'price-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', {}, 'Model (prefix)'),
          h('th', { class: 'num' }, 'Input $/1M'),
          h('th', { class: 'num' }, 'Cached $/1M'),
          h('th', {}),
        ),
      ),
      h('tbody', {}, ...body),
    ),
    h('p', { class: 'actions' }, add, ' ', reset),
    h(
      'p',
      { class: 'muted' },
      'The defaults are starting points, not quotes: check your provider’s current prices and ' +
        'your contract, and edit them here (saved in this browser). Sources and dates: docs/dashboard.md.',
    ),
  );
}
