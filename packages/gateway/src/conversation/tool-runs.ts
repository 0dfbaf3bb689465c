/**
 * Parallel tool results as one turn. Gemini sends the results of one model turn's calls as one
 * user entry of function responses; the OpenAI shape sends one `tool` message per call, which the
 * protocol turns into one entry each. For the pass they are grouped back into one entry, so the
 * latest-turn rule protects every result of the turn being sent (not just the last one) and the
 * budget counts turns the same way in both protocols. After the pass the groups are split again,
 * each member the same object when the pass left its parts alone.
 */
import type { Content } from '@toolmask/core';

interface Group {
  members: Content[];
  grouped: Content;
}

/**
 * An entry of tool results only. Plain loops (no callback per part): this runs over every entry
 * of every request, in code run once a request (interpreted, where a callback costs a call).
 */
function isToolResults(content: Content | undefined): boolean {
  if (content?.role !== 'user') return false;
  const parts = content.parts;
  if (!Array.isArray(parts) || parts.length === 0) return false;
  for (let index = 0; index < parts.length; index++) {
    if (parts[index]?.functionResponse === undefined) return false;
  }
  return true;
}

/** Whether `group` has exactly the entries `members` of `contents` from `start`. */
function sameMembers(group: Group, contents: readonly Content[], start: number, end: number) {
  if (group.members.length !== end - start) return false;
  for (let at = start; at < end; at++) if (group.members[at - start] !== contents[at]) return false;
  return true;
}

/** Groups by their first member, kept across requests. */
export type ToolRunCache = WeakMap<Content, Group>;

export interface GroupedContents {
  contents: Content[];
  /** `sent` (the pass's output for `contents`) in the original entries' places. */
  ungroup(sent: readonly Content[]): Content[];
}

/**
 * Groups runs of consecutive tool-result entries. `cache` keeps a group's object stable across
 * requests while its members are the same objects (core's per-entry caches then hit).
 */
export function groupToolRuns(contents: readonly Content[], cache: ToolRunCache): GroupedContents {
  const grouped: Content[] = [];
  const groups = new Map<number, Group>();
  let index = 0;
  while (index < contents.length) {
    let end = index;
    while (end < contents.length && isToolResults(contents[end])) end++;
    if (end - index < 2) {
      grouped.push(contents[index] as Content);
      index++;
      continue;
    }
    const first = contents[index] as Content;
    let group = cache.get(first);
    if (!group || !sameMembers(group, contents, index, end)) {
      const members = contents.slice(index, end);
      group = {
        members,
        grouped: { role: 'user', parts: members.flatMap((member) => member.parts ?? []) },
      };
      cache.set(first, group);
    }
    groups.set(grouped.length, group);
    grouped.push(group.grouped);
    index = end;
  }
  if (groups.size === 0) return { contents: grouped, ungroup: (sent) => sent.slice() };

  return {
    contents: grouped,
    ungroup(sent) {
      const out: Content[] = [];
      sent.forEach((content, at) => {
        const group = groups.get(at);
        if (!group) {
          out.push(content);
          return;
        }
        if (content === group.grouped) {
          // One by one: a run of 150,000 results is more arguments than a call may take.
          for (const member of group.members) out.push(member);
          return;
        }
        const parts = content.parts ?? [];
        let offset = 0;
        const members: Content[] = [];
        for (const member of group.members) {
          const own = member.parts ?? [];
          const now = parts.slice(offset, offset + own.length);
          offset += own.length;
          members.push(
            now.every((part, j) => part === own[j]) ? member : { ...member, parts: now },
          );
        }
        for (const member of members) out.push(member);
        // The members as sent are what the next request brings (conversation.ts): grouped, they
        // are this very content. The group of the client's versions, and their text, goes.
        cache.set(members[0] as Content, { members, grouped: content });
      });
      return out;
    },
  };
}
