/** One figure on a card: a label, the value as shown, and the raw value in `data-value`. */
import { h, type Child } from './dom.js';
import { formatInteger } from './format.js';

export interface StatCard {
  /** `data-metric`: what the figure is (tests and scripts find it by this). */
  metric: string;
  label: string;
  value: number;
  shown: string;
  /** A line under the figure. */
  note?: Child;
  hint?: string;
}

export function statCards(cards: readonly StatCard[]): HTMLElement {
  return h(
    'section',
    { class: 'cards' },
    ...cards.map((card) =>
      h(
        'div',
        { class: 'card', title: card.hint },
        h('div', { class: 'card-label' }, card.label),
        h(
          'div',
          { class: 'card-value', 'data-metric': card.metric, 'data-value': card.value },
          card.shown,
        ),
        card.note ? h('div', { class: 'card-note' }, card.note) : null,
      ),
    ),
  );
}

/**
 * A card for requests whose upstream could not be reached (none when there were none): a fault
 * the person must see, since the client may only retry, silently.
 */
export function unreachableCards(count: number, upstream: string | undefined): StatCard[] {
  if (!(count > 0)) return [];
  return [
    {
      metric: 'unreachable',
      label: 'Upstream unreachable',
      value: count,
      shown: formatInteger(count),
      note: `${upstream ?? 'the upstream'} could not be reached`,
    },
  ];
}
