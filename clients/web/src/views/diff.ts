// The difference between two versions of a view, structurally: every path whose value
// was added, removed or changed, from the JSON of both (proto3 JSON mapping).

import type { JsonValue } from "@ludotheque/client";

export interface Change {
  /** Where, from the view's top: field names and list positions. */
  path: (string | number)[];
  before?: JsonValue;
  after?: JsonValue;
}

export function diff(before: JsonValue | undefined, after: JsonValue | undefined, path: (string | number)[] = []): Change[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => diff(before[key], after[key], [...path, key]));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const length = Math.max(before.length, after.length);
    return Array.from({ length }, (_, index) => diff(before[index], after[index], [...path, index])).flat();
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  return [{ path, before, after }];
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
