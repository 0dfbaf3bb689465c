/**
 * File-level import cycles: the graph of relative imports between the tree's code files
 * (type-only imports count: a cycle of types is still two files that cannot be read apart), and
 * its strongly connected components of more than one file (or a file that imports itself). Each
 * is reported once, with its files and one cycle through them.
 */
import { isCodeFile } from './file-roles.js';
import { importsOf } from './imports.js';
import { isRelative, resolveRelative } from './resolve.js';
import type { SourceTree } from './source-tree.js';
import type { Violation } from './violations.js';

/** Each code file and the files of the tree it imports by a relative path. */
export function importGraph(tree: SourceTree): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of tree.files.filter(isCodeFile)) {
    const targets = new Set<string>();
    for (const { specifier } of importsOf(tree, file)) {
      if (!isRelative(specifier)) continue;
      const target = resolveRelative(tree, file, specifier);
      if (target.exists) targets.add(target.file);
    }
    graph.set(file, targets);
  }
  return graph;
}

export function checkCycles(tree: SourceTree): Violation[] {
  const graph = importGraph(tree);
  const groups = stronglyConnected(graph)
    .filter((group) => group.length > 1 || graph.get(group[0] as string)?.has(group[0] as string))
    .map((group) => {
      const files = [...group].sort();
      const cycle = oneCycle(graph, new Set(group), files[0] as string);
      return {
        rule: 'cycle',
        key: `cycle: ${files.join(' ')}`,
        message:
          `import cycle of ${files.length} file(s): ${cycle.join(' -> ')}` +
          (files.length > cycle.length - 1 ? `; all of them: ${files.join(', ')}` : ''),
      };
    });
  return groups.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Tarjan's algorithm, iterative (a deep chain of imports must not overflow the stack). */
function stronglyConnected(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edges: Iterator<string> }> = [];
    const open = (node: string): void => {
      index.set(node, next);
      low.set(node, next);
      next += 1;
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: (graph.get(node) ?? new Set<string>()).values() });
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; edges: Iterator<string> };
      const edge = frame.edges.next();
      if (!edge.done) {
        const target = edge.value;
        if (!index.has(target)) open(target);
        else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        groups.push(group);
      }
    }
  }
  return groups;
}

/** The shortest cycle from `start` back to it inside `group` (a breadth-first search). */
function oneCycle(graph: Map<string, Set<string>>, group: Set<string>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const target of graph.get(node) ?? []) {
      if (!group.has(target)) continue;
      if (target === start) {
        const path = [node];
        for (let at = node; at !== start;) {
          at = cameFrom.get(at) as string;
          path.push(at);
        }
        return [...path.reverse(), start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start];
}
