/**
 * A chart drawn at the width its box has: the box (`.chart-plot`) fills the content column, and a
 * ResizeObserver draws the SVG again whenever that width changes (a resize, a narrower window), so
 * the chart is never scaled down from a guessed width. A view put in place draws its charts at
 * once (`drawChartsIn`), so the page never says a view is on screen before its charts are; the
 * observer's first report then finds each chart drawn at that width already.
 */
import { h } from './dom.js';

/** The smallest width a chart is drawn at (a very narrow window scrolls the page instead). */
const MIN_WIDTH = 260;

/** Each chart box's drawing at a width, for `drawChartsIn`. */
const drawers = new WeakMap<HTMLElement, (width: number) => void>();

export function chartFrame(draw: (width: number) => SVGSVGElement, className: string): HTMLElement {
  const plot = h('div', { class: `chart-plot ${className}-plot` });
  let drawnWidth = 0;
  const redraw = (width: number) => {
    const rounded = Math.max(MIN_WIDTH, Math.floor(width));
    if (rounded === drawnWidth) return;
    drawnWidth = rounded;
    plot.replaceChildren(draw(rounded));
  };
  drawers.set(plot, redraw);
  new ResizeObserver((entries) => {
    const entry = entries[entries.length - 1];
    if (entry && plot.isConnected) redraw(entry.contentRect.width);
  }).observe(plot);
  return plot;
}

/**
 * Draws every chart under `root`, which is in the document, at its box's width now (the box has
 * no padding or border, so that is the width the observer reports).
 */
export function drawChartsIn(root: ParentNode): void {
  for (const plot of root.querySelectorAll<HTMLElement>('.chart-plot')) {
    drawers.get(plot)?.(plot.getBoundingClientRect().width);
  }
}
