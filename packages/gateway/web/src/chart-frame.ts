/**
 * A chart drawn at the width its box has: the box (`.chart-plot`) fills the content column, and a
 * ResizeObserver draws the SVG again whenever that width changes (a resize, a narrower window), so
 * the chart is never scaled down from a guessed width. ResizeObserver reports before the first
 * paint, so the chart is there on the first frame the page shows.
 */
import { h } from './dom.js';

/** The smallest width a chart is drawn at (a very narrow window scrolls the page instead). */
const MIN_WIDTH = 260;

export function chartFrame(draw: (width: number) => SVGSVGElement, className: string): HTMLElement {
  const plot = h('div', { class: `chart-plot ${className}-plot` });
  let drawnWidth = 0;
  const redraw = (width: number) => {
    const rounded = Math.max(MIN_WIDTH, Math.floor(width));
    if (rounded === drawnWidth) return;
    drawnWidth = rounded;
    plot.replaceChildren(draw(rounded));
  };
  new ResizeObserver((entries) => {
    const entry = entries[entries.length - 1];
    if (entry && plot.isConnected) redraw(entry.contentRect.width);
  }).observe(plot);
  return plot;
}
