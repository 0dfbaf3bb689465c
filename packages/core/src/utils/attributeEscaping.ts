/**
 * The escaping of the snippet's `file="…"` attribute, chosen so that the text a model copies from
 * it always works as the `file` argument of the read-back tool:
 *
 * - only what would break the attribute is escaped: `"` (`&quot;`), CR and LF (`&#13;`, `&#10;`),
 *   and an `&` that would otherwise read as the start of an entity (`&amp;`);
 * - everything else is written as it is: `&` in `R&D`, `<`, `>`, spaces, any non-ASCII text. So a
 *   path that needs no escaping (nearly all of them) is copied verbatim, and the model never sees
 *   `&amp;` for a plain `&`;
 * - `decodeAttribute(escapeAttribute(p)) === p` for every string `p`, and the read-back tool tries
 *   the decoded form of an argument when the argument as written names no file, so a model that
 *   copies `&quot;` works as well as one that decodes it. Old snippets, which escaped every `&`,
 *   `<` and `>`, decode the same way.
 */

/** An `&` that starts something a reader would decode: a named, decimal or hex entity. */
const ENTITY_START = /&(?=(?:[a-z]+|#[0-9]+|#x[0-9a-f]+);)/gi;

export function escapeAttribute(value: string): string {
  return value
    .replace(ENTITY_START, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

const NAMED: Readonly<Record<string, string>> = {
  quot: '"',
  amp: '&',
  lt: '<',
  gt: '>',
  apos: "'",
};
const ENTITY = /&(?:([a-z]+)|#([0-9]+)|#x([0-9a-f]+));/gi;

/** Decodes the entities `escapeAttribute` (and older snippets) write; anything else stays. */
export function decodeAttribute(value: string): string {
  return value.replace(ENTITY, (entity, name?: string, decimal?: string, hex?: string) => {
    if (name !== undefined) return NAMED[name.toLowerCase()] ?? entity;
    const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? '', 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}
