/**
 * Setup's changes to a JSON (JSONC) settings file, as minimal text edits through jsonc-parser
 * (comments and layout kept): a value set, a string added to a list. Each knows what was there
 * before and the outermost object it created, so that `--undo` takes back exactly it, and only
 * while it is still what setup wrote, then removes the objects setup created once they are empty.
 */
import { applyEdits, modify } from 'jsonc-parser';
import { sameJson } from '@toolmask/core/utils';
import { parseSettings, setInText, valueAt, type JsonPath } from '../files/jsonc-settings.js';
import { SetupError } from './setup-files.js';

export type JsonChange =
  /** A JSON value set (`before` undefined: the key was not there). */
  | { kind: 'json-set'; path: JsonPath; before?: unknown; after: unknown; created?: JsonPath }
  /** A string added at the end of a JSON array (`arrayCreated`: the array was not there). */
  | {
      kind: 'json-add-item';
      path: JsonPath;
      item: string;
      arrayCreated: boolean;
      created?: JsonPath;
    };

const describe = (value: unknown) => (value === undefined ? '(unset)' : JSON.stringify(value));

/** An object with nothing in it but empty objects. */
export function isEmptyTree(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((inner) => isEmptyTree(inner))
  );
}

/** The shortest leading part of `jsonPath` that does not exist in `settings`. */
function firstMissing(settings: unknown, jsonPath: JsonPath): JsonPath | undefined {
  for (let length = 1; length < jsonPath.length; length++) {
    if (valueAt(settings, jsonPath.slice(0, length)) === undefined) {
      return jsonPath.slice(0, length);
    }
  }
  return undefined;
}

/** A JSON change that sets `path` to `after` in `settings`, with what was there. */
export function jsonSet(settings: unknown, jsonPath: JsonPath, after: unknown): JsonChange {
  const before = valueAt(settings, jsonPath);
  const created = firstMissing(settings, jsonPath);
  return {
    kind: 'json-set',
    path: jsonPath,
    ...(before !== undefined ? { before } : {}),
    after,
    ...(created ? { created } : {}),
  };
}

/** A JSON change that adds `item` to the array at `path`, or none when it is there already. */
export function jsonAddItem(
  settings: unknown,
  jsonPath: JsonPath,
  item: string,
  file: string,
): JsonChange[] {
  const current = valueAt(settings, jsonPath);
  if (current !== undefined && !Array.isArray(current)) {
    throw new SetupError(
      `${file}: ${jsonPath.join('.')} is not a list; toolmask setup adds ${JSON.stringify(item)} to it. Fix the file and run setup again`,
    );
  }
  if (current?.includes(item)) return [];
  const created = firstMissing(settings, jsonPath);
  return [
    {
      kind: 'json-add-item',
      path: jsonPath,
      item,
      arrayCreated: current === undefined,
      ...(created ? { created } : {}),
    },
  ];
}

/**
 * The changes that add each of `items` to the array at `path` (those not there already): the
 * first creates the array when it is missing, the others then add to it.
 */
export function jsonAddItems(
  settings: unknown,
  jsonPath: JsonPath,
  items: readonly string[],
  file: string,
): JsonChange[] {
  const changes: JsonChange[] = [];
  for (const item of items) {
    const added = jsonAddItem(settings, jsonPath, item, file);
    if (changes.length > 0) {
      // The array exists once the first change is made: later items only add to it.
      changes.push(
        ...added.map((change) => ({
          kind: 'json-add-item' as const,
          path: jsonPath,
          item: (change as { item: string }).item,
          arrayCreated: false,
        })),
      );
    } else {
      changes.push(...added);
    }
  }
  return changes;
}

/** jsonc-parser's edit of an array element, a leading byte order mark kept aside. */
function editArray(text: string, elementPath: JsonPath, value: unknown, insert: boolean): string {
  if (text.startsWith('\uFEFF')) {
    return '\uFEFF' + editArray(text.slice(1), elementPath, value, insert);
  }
  const edits = modify(text, elementPath, value, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
    isArrayInsertion: insert,
  });
  return applyEdits(text, edits);
}

/** `text` with `change` made. */
export function applyJsonChange(text: string, change: JsonChange, file: string): string {
  if (change.kind === 'json-set') return setInText(text, change.path, change.after);
  if (change.arrayCreated) return setInText(text, change.path, [change.item]);
  const length = (valueAt(parseSettings(text, file), change.path) as unknown[]).length;
  return editArray(text, [...change.path, length], change.item, true);
}

/** What a change is, in a line for the person. */
export function jsonChangeLine(file: string, change: JsonChange): string {
  return change.kind === 'json-set'
    ? `${file}: ${change.path.join('.')} ${describe(change.before)} → ${describe(change.after)}`
    : `${file}: ${change.path.join('.')} gets ${JSON.stringify(change.item)}`;
}

/** `text` with `change` taken back, when it is still what setup made; a line when it is not. */
export function undoJsonChange(
  text: string,
  change: JsonChange,
  file: string,
  lines: string[],
): string {
  const name = change.path.join('.');
  if (change.kind === 'json-set') {
    if (!sameJson(valueAt(parseSettings(text, file), change.path), change.after)) {
      lines.push(
        `${file}: ${name} changed since setup; left as it is (before setup: ${describe(change.before)})`,
      );
      return text;
    }
    lines.push(`${file}: ${name} → ${describe(change.before)}`);
    return setInText(text, change.path, change.before);
  }
  const current = valueAt(parseSettings(text, file), change.path);
  const index = Array.isArray(current) ? current.indexOf(change.item) : -1;
  if (index < 0) {
    lines.push(`${file}: ${name} no longer has ${JSON.stringify(change.item)}`);
    return text;
  }
  lines.push(`${file}: ${name} without ${JSON.stringify(change.item)}`);
  if (change.arrayCreated && (current as unknown[]).length === 1) {
    return setInText(text, change.path, undefined);
  }
  return editArray(text, [...change.path, index], undefined, false);
}

/** `text` without the objects `changes` created that hold nothing now. */
export function withoutEmptyCreated(
  text: string,
  changes: readonly JsonChange[],
  file: string,
): string {
  let result = text;
  for (const change of changes) {
    if (change.created && isEmptyTree(valueAt(parseSettings(result, file), change.created))) {
      result = setInText(result, change.created, undefined);
    }
  }
  return result;
}
