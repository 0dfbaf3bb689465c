/**
 * docs/cli.md stays true of the clients registry (issue 35): its opening names every client the
 * launchers run, each launcher has a heading that names it, and every link to a heading of the
 * page finds one (GitHub's anchors: lower case, punctuation dropped, spaces as dashes).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliDocumentationPath } from '../../docs-location.js';
import { CLIENTS } from './index.js';

const text = readFileSync(cliDocumentationPath(), 'utf8');
const headings = [...text.matchAll(/^#{2,4} (.+)$/gm)].map((match) => match[1] as string);

function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');
}

describe('docs/cli.md and the clients', () => {
  it('its opening names every client, and each launcher has a heading naming it', () => {
    const opening = text.slice(0, text.indexOf('\n\n', text.indexOf('\n\n') + 2));
    for (const client of CLIENTS) {
      expect(opening, client.name).toContain(`\`${client.name}\``);
      expect(
        headings.some((heading) => heading.includes(`\`toolmask ${client.name}\``)),
        client.name,
      ).toBe(true);
    }
  });

  it('every link to a heading of the page finds one', () => {
    const anchors = new Set(headings.map(anchorOf));
    const links = [...text.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1] as string);
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) expect(anchors.has(link), link).toBe(true);
  });
});
