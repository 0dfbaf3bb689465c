/** One figure on a card: a label, the value as shown, and the raw value in `data-value`. */
import { h, type Child } from './dom.js';

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
